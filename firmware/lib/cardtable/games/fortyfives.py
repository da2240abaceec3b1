"""Forty-Fives ("Nevins House Rules" auction 45s): 4 players, partners 0&2 against 1&3, to 120.

As refereed (research/rules-decisions.md section 6):
- Deal 3-kitty-2: five cards each, three to a face-down kitty, the rest is the stock.
- Bidding starts at the dealer's left, one turn each: pass or bid 15, 20, 25 or 30, higher than
  the last bid; no suit is named. All pass: the dealer is stuck at 15 (F45-7).
- The bidder names trump, then takes the kitty (8 cards). Everyone in turn from the dealer's left,
  bidder included, discards to keep 1 to 5 cards. After the last discard the dealer refills every
  hand to 5 from the stock, from his left, dealer last: this happens at once, with no action
  (the cards drawn are known when the deal showed the stock, else unseen; the numbers are public).
- Trumps, high to low: 5, J, A of hearts, A (not in hearts), K, Q, then red 10..2 / black 2..10.
  The A of hearts is always a trump and never a heart. Plain suits: red K Q J 10..2 (A of
  diamonds lowest), black K Q J A 2..10.
- The bidder leads the first trick; each trick's winner leads the next. A trump lead (the A of
  hearts too) must be followed by a trump, but each of the top three (5, J, A of hearts) may be
  withheld when the card led is a lower trump; whoever holds only such privileged trumps may
  play anything. A plain lead must be followed if you can (may_trump_instead_of_following: or
  trump).
- Each trick is 5; the trick holding the highest trump played this hand is 5 more (30 a hand,
  25 when no trump is played). The bidding side scores what it took if that is at least the bid,
  else loses the bid; the other side always scores what it took. 120 wins; when both sides reach
  it in the same hand the bidding side wins. The dealer moves left each hand.
- Revokes proven with unknown hands are reported, not scored: the seed names
  no penalty.

Examples from the rule book (tested as written): a trump 6 led: a player holding the 5, the
J or the A of hearts and no lower trump may throw off-suit, but with a lower trump too must
play a trump; the trump J led: the holder of the 5 may renege, the holder of the A of hearts
may not.

Rule options:

| option                             | seed     | variant                                    | decision |
|------------------------------------|----------|--------------------------------------------|----------|
| ``kitty``                          | "bidder" | "none": no kitty; 5 each, a 32-card stock  | F45-1    |
| ``min_keep``                       | 1        | 0: a player may discard the whole hand     | F45-2    |
| ``highest_trump_bonus``            | True     | False: every trick 5, 25 a hand            | F45-3    |
| ``renege``                         | "led"    | "none": the top three must follow too      | F45-4    |
| ``may_trump_instead_of_following`` | False    | True: may trump a plain lead (standard)    | F45-5    |
| ``lead``                           | "bidder" | "left_of_bidder" (standard)                | F45-6    |
| ``all_pass``                       | "stuck"  | "redeal": thrown in, the deal passes on    | F45-7    |
| ``dealer_hold``                    | False    | True: the dealer may hold (bid the amount  | F45-7    |
|                                    |          | to beat), then all not passed bid on       |          |
| ``target``                         | 120      | any positive score, e.g. 125               | F45-8    |
| ``thirty_for_sixty``               | False    | True: a made bid of 30 scores 60           | F45-8    |
| ``min_bid_from_100``               | 15       | 20: a side on 100+ may not bid 15          | F45-8    |
| ``defence_cap``                    | 0 (none) | 100: the side without the bid stops at 100 | F45-8    |
| ``name_trump_first``               | True     | False: take the kitty, then name trump     | F45-9    |
| ``rotate_dealer``                  | True     | False: the same dealer every hand          | F45-10   |

``may_trump_instead_of_following`` is the same rule as in California Jacks; its old name here,
``may_trump_when_following``, is still read from rule options and old records.

Verbs: ``bid`` (bid: 15/20/25/30; with dealer_hold the dealer holds by bidding the amount to
beat), ``pass``, ``trump`` (suit), ``discard`` (cards: the cards the table saw discarded, maybe
none; n?: how many were discarded in all when some went unseen, only for a hand the table does
not know), ``play`` (card).
Deal piles: ``hands`` (four lists of 5, any may be null = not seen), ``kitty`` (3 cards),
``stock`` (29 cards, top first; 32 without a kitty). A pile left out is unseen.
"""
from cardtable.cards import standard as std
from cardtable.games import seat_range
from cardtable.games.base import ONE, Game
from cardtable.games.trick import KITTY, OUT, STOCK, UNKNOWN, TrickGame

TRUMPS = 4          # led suit when a trump (the A of hearts included) is led
AH = 26             # std.card(std.ACE, std.HEARTS)
BIDS = (15, 20, 25, 30)

# Plain-suit ladders, high to low, as ranks (A = 1). The A of hearts is never a plain card.
RED_PLAIN = (13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
BLACK_PLAIN = (13, 12, 11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
# Trump ladders below 5, J, A of hearts and the trump ace: "red high, black low".
RED_TRUMP_TAIL = (13, 12, 10, 9, 8, 7, 6, 4, 3, 2)
BLACK_TRUMP_TAIL = (13, 12, 2, 3, 4, 6, 7, 8, 9, 10)

_PLAIN = bytearray(52)      # card -> 13 (king) .. 1 (lowest) inside its plain suit
for _s in range(4):
    _order = RED_PLAIN if _s == std.DIAMONDS or _s == std.HEARTS else BLACK_PLAIN
    for _i in range(13):
        _PLAIN[std.card(_order[_i], _s)] = 13 - _i
_PLAIN[AH] = 0
del _s, _i, _order


def trump_ladder(trump):
    """The trumps of a suit, highest first."""
    out = [std.card(5, trump), std.card(std.JACK, trump), AH]
    if trump != std.HEARTS:
        out.append(std.card(std.ACE, trump))
    red = trump == std.DIAMONDS or trump == std.HEARTS
    for r in RED_TRUMP_TAIL if red else BLACK_TRUMP_TAIL:
        out.append(std.card(r, trump))
    return tuple(out)


def _powers(trump):
    """bytes by card: 120 for the highest trump of the suit, one less down the ladder, 0 for
    a card that is no trump."""
    out = bytearray(52)
    ladder = trump_ladder(trump)
    for i in range(len(ladder)):
        out[ladder[i]] = 120 - i
    return bytes(out)


# card -> trump power per trump suit, made once (naming trump takes one; a game only reads it)
_POWERS = (_powers(0), _powers(1), _powers(2), _powers(3))
_NO_TRUMPS = bytes(52)  # the powers before trump is named


def trump_powers(trump):
    """The powers of trump's suit (bytes by card, 0: no trump)."""
    return _POWERS[trump]


class FortyFives(TrickGame):
    """Auction Forty-Fives with a kitty, as the Nevins house rules play it."""

    ID = "fortyfives"
    TITLE = "Forty-Fives"
    DECK = "standard"
    SEATS = seat_range("fortyfives")  # its registry entry (games/__init__.py)
    AUTO_DEAL = True  # hands the table never sees dealt: dealt unseen at once
    CONFIRM = "discard"  # the cards laid on the kitty
    SIM_SEED = 26
    HAS_DEALER = True
    TEAMS = True
    CARDS = std.DECK
    OPTIONS = {
        "kitty": "bidder",
        "min_keep": 1,
        "highest_trump_bonus": True,
        "renege": "led",
        "may_trump_instead_of_following": False,
        "lead": "bidder",
        "all_pass": "stuck",
        "dealer_hold": False,
        "target": 120,
        "thirty_for_sixty": False,
        "min_bid_from_100": 15,
        "defence_cap": 0,
        "name_trump_first": True,
        "rotate_dealer": True,
    }
    VERBS = {"deal": ("piles",), "bid": ("bid",), "pass": (), "trump": ("suit",),
             "discard": ("cards", "n?"), "play": ("card",)}
    PILES = ("hands", "kitty", "stock")
    # 3 each, 3 to the kitty, 2 each (from the dealer's left), then the rest is the stock
    DEAL_PATTERN = (("hands", 3), ("kitty", 3), ("hands", 2), ("stock", None))
    SECRET = {"discard": ("cards", "n")}  # discards lie face down: a spectator sees how many
    PRIVATE_PLACES = TrickGame.PRIVATE_PLACES + ("is out of play",)  # (out: discarded)
    PHASES = (("bid", "the bidding", "bid", ("bid", "pass")),
              ("trump", "naming trump", "name trump", ("trump",)),
              ("discard", "the discarding", "discard", ("discard",)),
              ("play", "the play", "play", ("play",)))

    @classmethod
    def check_rule_values(cls, rules):
        cls.check_choices(rules, (("kitty", ("bidder", "none")), ("renege", ("led", "none")),
                                  ("lead", ("bidder", "left_of_bidder")),
                                  ("all_pass", ("stuck", "redeal")), ("min_keep", (0, 1)),
                                  ("min_bid_from_100", BIDS)))
        if rules["target"] < 1:
            raise cls.option_error("target", "a positive score", rules["target"])
        if rules["defence_cap"] < 0:
            raise cls.option_error("defence_cap", "0 (none) or a positive score",
                                   rules["defence_cap"])

    # -- state -------------------------------------------------------------------------------
    def reset_table(self, t):
        """The table's scratch for this game's inputs, cleared for each new game (table/inputs.py)."""
        t.discards = []  # cards laid on the kitty by the seat discarding

    def reset(self):
        self.score = [0, 0]                  # per team: seats 0&2, 1&3
        self.dealer = self.first_dealer
        self.over = False
        self.winner = None
        self.results = []                    # one public summary dict per hand played
        self.make_rules()
        self.reset_tricks()
        self.new_hand()
        self.phase = "deal"

    def new_hand(self):
        """Clear everything a hand owns."""
        self.reset_hand()
        self.kitty = None                    # the kitty's cards when the deal showed them
        self.kitty_left = 0                  # cards still lying in the kitty
        self.stock = None                    # stock order, top first, when the deal showed it
        self.stock_left = 0
        self.bids = []                       # (seat, amount); amount 0 = pass
        self.passed = [False] * 4
        self.holding = False                 # the dealer held: bidding goes on round after round
        self.high = 0
        self.high_seat = -1
        self.bidder = -1
        self.bid = 0
        self.trump = -1
        self.pw = _NO_TRUMPS                 # card -> trump power (100 + ..) once trump is named
        self.discarded = [[] for _ in range(4)]   # cards seen discarded, per seat
        self.ndiscarded = [-1] * 4           # how many each seat discarded (-1: not yet)
        self.drawn = [-1] * 4
        self.order_turn = -1                 # the seat to bid or discard

    @property
    def scores(self):
        return [self.score[s % 2] for s in range(4)]

    @property
    def turn(self):
        p = self.phase
        if p == "play":
            return ONE[self.next_in_trick()]
        if p == "bid" or p == "discard":
            return ONE[self.order_turn]
        if p == "trump":
            return ONE[self.bidder]
        return ()

    def is_trump(self, c):
        """True if card c is a trump now (the A of hearts always is, once trump is named)."""
        return self.pw[c] != 0

    # -- the deal ----------------------------------------------------------------------------
    def deal_pattern(self):
        if self.rules["kitty"] == "none":
            return (("hands", 3), ("hands", 2), ("stock", None))
        return self.DEAL_PATTERN

    def sizes(self):
        """Pile sizes of a deal under these rules."""
        if self.rules["kitty"] == "none":
            return (("hands", 5), ("stock", 32))
        return (("hands", 5), ("kitty", 3), ("stock", 29))

    def check_deal(self, action):
        piles = action[2]
        if not isinstance(piles, dict):
            return "a deal is a dict of piles"
        for name in piles:
            pile = piles[name]
            if pile is None:
                continue
            if not isinstance(pile, (list, tuple)):
                return "the %s pile must be a list" % name
            groups = pile if name == "hands" else (pile,)
            for g in groups:
                if g is None:
                    continue
                if not isinstance(g, (list, tuple)):
                    return "each hand must be a list of cards or null"
                deck = self._cards  # type: ignore[attr-defined]  # card_reason's table (_lookups): 52 cards a deal
                for c in g:
                    if type(c) is not int or not 0 <= c < len(deck) or not deck[c]:
                        why = self.card_reason(c)
                        if why:
                            return why
        return self.check_deal_piles(piles, self.sizes())

    def do_deal(self, action):
        piles = action[2]
        self.new_hand()
        self.hand_no += 1
        self.deal_hands(piles.get("hands"), 5)
        if self.rules["kitty"] != "none":
            self.kitty = list(piles["kitty"]) if piles.get("kitty") is not None else None
            self.kitty_left = 3
            if self.kitty is not None:
                self.place(self.kitty, KITTY)
        stock = piles.get("stock")
        self.stock = list(stock) if stock is not None else None
        self.stock_left = self.sizes()[-1][1]  # the stock is the last pile
        if stock is not None:
            self.place(stock, STOCK)
        self.phase = "bid"
        self.order_turn = (self.dealer + 1) % 4
        return [{"ev": "deal", "hand": self.hand_no, "dealer": self.dealer}]

    def random_deal(self, rng):
        """Shuffle and deal 3 each, 3 to the kitty, 2 each, from the dealer's left."""
        cards = rng.shuffle(list(std.DECK))
        hands = [[], [], [], []]
        kitty = None
        pos = 0
        for batch in (3, 2):
            for i in range(1, 5):
                hands[(self.dealer + i) % 4].extend(cards[pos:pos + batch])
                pos += batch
            if batch == 3 and self.rules["kitty"] != "none":
                kitty = cards[pos:pos + 3]
                pos += 3
        piles = {"hands": hands, "stock": cards[pos:]}
        if kitty is not None:
            piles["kitty"] = kitty
        return (None, "deal", piles)

    # -- bidding -----------------------------------------------------------------------------
    def min_bid(self, seat):
        """The lowest bid seat's side may make."""
        if self.score[seat % 2] >= 100:
            return self.rules["min_bid_from_100"]
        return 15

    def may_hold(self, seat):
        """True if seat may hold: match the high bid instead of beating it."""
        return self.rules["dealer_hold"] and seat == self.dealer and self.high_seat >= 0 \
            and self.high_seat != seat

    def check_bid(self, action):
        seat, amount = action[0], action[2]
        if type(amount) is not int or amount not in BIDS:
            return "bids are 15, 20, 25 or 30"
        if self.score[seat % 2] >= 100 and amount < self.rules["min_bid_from_100"]:  # (min_bid)
            return "your side has 100 or more: bid at least %d" % self.min_bid(seat)
        if amount == self.high and self.may_hold(seat):
            return None
        if amount <= self.high:
            return "a bid must be higher than %d" % self.high
        return None

    def do_bid(self, action):
        seat, amount = action[0], action[2]
        ev = "hold" if amount == self.high else "bid"
        if ev == "hold":
            self.holding = True
        self.high, self.high_seat = amount, seat
        self.bids.append((seat, amount))
        events = self.next_bidder(seat)  # (a new list: the bid's event goes first)
        events.insert(0, {"ev": ev, "seat": seat, "bid": amount})
        return events

    def check_pass(self, action):
        return None

    def do_pass(self, action):
        seat = action[0]
        self.passed[seat] = True
        self.bids.append((seat, 0))
        events = self.next_bidder(seat)  # (a new list: the pass's event goes first)
        events.insert(0, {"ev": "pass", "seat": seat})
        return events

    def next_bidder(self, seat):
        """Pass the bidding on, or end it; returns events."""
        if not self.holding:
            if seat != self.dealer:
                self.order_turn = (seat + 1) % 4
                return []
            return self.end_bidding()
        left = [s for s in range(4) if not self.passed[s]]
        if len(left) <= 1:
            return self.end_bidding()
        s = (seat + 1) % 4
        while self.passed[s]:
            s = (s + 1) % 4
        self.order_turn = s
        return []

    def end_bidding(self):
        if self.high_seat < 0:
            if self.rules["all_pass"] == "redeal":
                self.next_deal()
                return [{"ev": "redeal", "dealer": self.dealer}]
            self.high, self.high_seat = 15, self.dealer
            events = [{"ev": "stuck", "seat": self.dealer, "bid": 15}]
        else:
            events = []
        self.bidder, self.bid = self.high_seat, self.high
        self.order_turn = -1
        events.append({"ev": "bidder", "seat": self.bidder, "bid": self.bid})
        if not self.rules["name_trump_first"]:
            events.extend(self.take_kitty())
        self.phase = "trump"
        return events

    # -- trump, kitty, discards, draws -------------------------------------------------------
    def check_trump(self, action):
        if type(action[2]) is not int or not 0 <= action[2] < 4:
            return "trump is clubs, diamonds, hearts or spades"
        return None

    def do_trump(self, action):
        self.trump = t = action[2]
        self.pw = trump_powers(t)
        events = [{"ev": "trump", "seat": self.bidder, "suit": std.fmt_suit(t)}]
        if self.rules["name_trump_first"]:
            events.extend(self.take_kitty())
        self.phase = "discard"
        self.order_turn = (self.dealer + 1) % 4
        return events

    def take_kitty(self):
        if self.rules["kitty"] == "none":
            return []
        b = self.bidder
        if self.kitty is not None:
            self.give(b, self.kitty)
        else:
            self.give_unseen(b, 3)
            self.known[b] = False
        self.kitty_left = 0
        return [{"ev": "kitty", "seat": b, "n": 3}]

    def discard_count(self, action):
        """How many cards the discard action puts away."""
        return len(action[2]) if action[3] is None else action[3]

    def check_discard(self, action):
        seat, cards, n = action[0], action[2], action[3]
        if not isinstance(cards, (list, tuple)):
            return "a discard is a list of cards"
        if n is not None:
            if type(n) is not int or n < len(cards):
                return "n counts every card discarded, the seen ones too"
            if n > len(cards) and self.known[seat]:
                return "the table knows your hand: it must see every card discarded"
        held = self.held[seat]
        keep = held - (len(cards) if n is None else n)  # (discard_count, inline)
        lo = self.rules["min_keep"]
        if not lo <= keep <= 5:
            return "keep %d to 5 cards: discard %d to %d" % (lo, max(0, held - 5), held - lo)
        deck = self._cards  # type: ignore[attr-defined]  # card_reason's table (_lookups), as in check_play_card
        where = self.where
        mine = seat + 1
        for i in range(len(cards)):
            c = cards[i]
            if type(c) is int and 0 <= c < 52 and where[c] == mine and held:
                # a card the table saw in this hand: a card of the deck, and this seat's
                if cards.index(c) < i:
                    return "the %s is discarded twice" % self.card_code(c)
                continue
            if type(c) is not int or not 0 <= c < len(deck) or not deck[c]:
                why = self.card_reason(c)
                if why:
                    return why
            if cards.index(c) < i:  # (as c in cards[:i], with no slice built)
                return "the %s is discarded twice" % self.card_code(c)
            if where[c] != mine or not held:  # (else c is in this hand: where_reason is None)
                why = self.where_reason(seat, c)
                if why:
                    return why
        return None

    def do_discard(self, action):
        seat, cards = action[0], action[2]
        count = len(cards) if action[3] is None else action[3]  # (discard_count, inline)
        where, hand, out, mine = self.where, self.hands[seat], self.discarded[seat], seat + 1
        for c in cards:
            if where[c] == mine:  # (take, inline)
                hand.remove(c)
            where[c] = OUT
            out.append(c)
        self.held[seat] -= len(cards)
        unseen = count - len(cards)
        if unseen:
            # Some of the cards the table knew in this hand may have gone unseen: forget them.
            self.held[seat] -= unseen
            for c in self.hands[seat]:
                self.where[c] = UNKNOWN
            self.hands[seat] = []
        self.ndiscarded[seat] = count
        events = [{"ev": "discard", "seat": seat, "n": count}]
        if seat != self.dealer:
            self.order_turn = (seat + 1) % 4
            return events
        events.extend(self.draw_all())
        self.phase = "play"
        self.order_turn = -1
        self.leader = self.bidder if self.rules["lead"] == "bidder" else (self.bidder + 1) % 4
        return events

    def draw_all(self):
        """The dealer refills every hand to 5 from the stock, from his left, dealer last."""
        events = []
        for i in range(1, 5):
            s = (self.dealer + i) % 4
            k = 5 - self.held[s]
            if self.stock is not None:
                pos = len(self.stock) - self.stock_left
                self.give(s, self.stock[pos:pos + k])
            elif k:
                self.give_unseen(s, k)
                self.known[s] = False
            self.stock_left -= k
            self.drawn[s] = k
            events.append({"ev": "draw", "seat": s, "n": k})
        return events

    # -- play --------------------------------------------------------------------------------
    def led_suit(self, card, action):
        return TRUMPS if self.pw[card] else std.suit(card)

    def power(self, card):
        return self.power_for(card, self.led)

    def power_for(self, c, led):
        """How strongly c bids for a trick whose led suit is led (TRUMPS or a plain suit)."""
        p = self.pw[c]
        if p:
            return p
        return _PLAIN[c] if std.suit(c) == led else 0

    def best(self, cards):
        """Index of the card that wins a trick played in this order, under the current trump."""
        led = self.led_suit(cards[0], None)
        top, win = -1, 0
        for i in range(len(cards)):
            p = self.power_for(cards[i], led)
            if p > top:
                top, win = p, i
        return win

    def privileged(self, c, lead):
        """True if trump c may be withheld when trump lead was led: a top-three over the lead."""
        if self.rules["renege"] == "none":
            return False
        p = self.pw[c]
        return p >= 118 and p > self.pw[lead]

    def make_rules(self):
        """The follow obligations, built once: (holds, allowed, reason) per led suit."""
        out = []
        for s in range(4):
            name = std.SUIT_NAMES[s]
            if self.rules["may_trump_instead_of_following"]:
                out.append(((self.follows, self.follows_or_trumps,
                             "must follow %s or trump" % name),))
            else:
                out.append(((self.follows, self.follows, "must follow %s" % name),))
        out.append(((self.owes_trump, self.is_trump, "must follow trumps"),))
        self._rules = tuple(out)

    def follow_rules(self, seat):
        return self._rules[self.led]

    def follows(self, c):
        """c follows the plain suit led (the A of hearts never does)."""
        return std.suit(c) == self.led and not self.pw[c]

    def follows_or_trumps(self, c):
        return self.pw[c] != 0 or std.suit(c) == self.led

    def owes_trump(self, c):
        """c is a trump its holder must play to the trump led (not a privileged one)."""
        return self.pw[c] != 0 and not self.privileged(c, self.trick[0][1])

    def check_play(self, action):
        return self.check_play_card(action[0], action[2], action)

    def do_play(self, action):
        return self.play_card(action[0], action[2], action)

    def legal(self, seat):
        if seat not in self.turn:
            return []
        p = self.phase
        if p == "bid":
            out = [(seat, "pass")]
            for b in BIDS:
                a = (seat, "bid", b)
                if self.check_bid(a) is None:
                    out.append(a)
            return out
        if p == "trump":
            return [(seat, "trump", s) for s in range(4)]
        if p == "discard":
            return self.legal_discards(seat)
        if p == "play":
            return self.legal_plays(seat)
        return []

    def legal_discards(self, seat):
        """Every discard the seat may make: subsets of a known hand, else counts of unseen cards."""
        lo = max(0, self.held[seat] - 5)
        hi = self.held[seat] - self.rules["min_keep"]
        if not self.known[seat]:
            return [(seat, "discard", (), k) for k in range(lo, hi + 1)]
        hand = self.hands[seat]
        out = []
        for mask in range(1 << len(hand)):
            pick = tuple(hand[i] for i in range(len(hand)) if mask >> i & 1)
            if lo <= len(pick) <= hi:
                out.append((seat, "discard", pick, None))
        return out

    def bot_action(self, rng):
        """A random legal action, bidding and discarding as a cautious player would.

        Purely random bids of 30 fail so often that a game never reaches 120; one time in
        eight the bot still picks any legal action, so play-outs cover every choice.
        """
        if self.dealing or self.phase not in ("bid", "trump", "discard") \
                or not self.known[self.turn[0]] or rng.below(8) == 0:
            return Game.bot_action(self, rng)
        seat = self.turn[0]
        hand = self.hands[seat]
        if self.phase == "trump":
            return (seat, "trump", self.long_suit(hand))
        if self.phase == "bid":
            s = self.long_suit(hand)
            n = 0
            for c in hand:
                if std.suit(c) == s or c == AH:
                    n += 2 if c % 13 in (0, 4, 10) else 1
            for a in self.legal(seat):
                if a[1] == "bid" and a[2] <= 5 * n and rng.below(2):
                    return a
            return (seat, "pass")
        keep = [c for c in hand if self.pw[c]][:5] or hand[:1]
        return (seat, "discard", tuple(c for c in hand if c not in keep), None)

    def long_suit(self, hand):
        """The suit with most cards in hand (the A of hearts counts for every suit)."""
        count = [0, 0, 0, 0]
        for c in hand:
            if c == AH:
                for s in range(4):
                    count[s] += 1
            else:
                count[std.suit(c)] += 1
        best = 0
        for s in range(4):
            if count[s] > count[best]:
                best = s
        return best

    # -- scoring -----------------------------------------------------------------------------
    def end_hand(self):
        took = [0, 0]
        top, bonus = 0, None
        for leader, plays, winner in self.hand_tricks:
            took[winner % 2] += 5
            for s, c in plays:
                if self.pw[c] > top:
                    top, bonus = self.pw[c], winner % 2
        if bonus is not None and self.rules["highest_trump_bonus"]:
            took[bonus] += 5
        else:
            bonus = None
        bt = self.bidder % 2
        made = took[bt] >= self.bid
        gain = [0, 0]
        if made:
            gain[bt] = 60 if self.bid == 30 and self.rules["thirty_for_sixty"] else took[bt]
        else:
            gain[bt] = -self.bid
        dt = 1 - bt
        gain[dt] = took[dt]
        cap = self.rules["defence_cap"]
        if cap and self.score[dt] + gain[dt] > cap:
            gain[dt] = max(0, cap - self.score[dt])
        self.score[0] += gain[0]
        self.score[1] += gain[1]
        result = {"hand": self.hand_no, "dealer": self.dealer, "bidder": self.bidder,
                  "bid": self.bid, "trump": std.fmt_suit(self.trump), "took": took,
                  "bonus": bonus, "made": made, "gain": gain}
        self.results.append(result)
        events = [{"ev": "hand", "hand": self.hand_no, "bidder": self.bidder, "bid": self.bid,
                   "took": list(took), "made": made, "bonus": bonus, "scores": self.scores}]
        target = self.rules["target"]
        won = bt if self.score[bt] >= target else dt if self.score[dt] >= target else None
        if won is not None:
            self.end(won)
            self.phase = "over"
            events.append({"ev": "over", "winner": self.winner, "scores": self.scores})
        else:
            self.next_deal()
        return events

    def next_deal(self):
        if self.rules["rotate_dealer"]:
            self.dealer = (self.dealer + 1) % 4
        self.phase = "deal"

    # -- views -------------------------------------------------------------------------------
    # -- words ----------------------------------------------------------------------------
    def describe(self, ev):
        from cardtable.games import words
        kind = ev.get("ev")
        if kind == "bidder":
            return "seat %d wins the bid at %d" % (ev["seat"], ev["bid"])
        if kind == "stuck":
            return "everyone passed: the dealer, seat %d, is stuck at %d" % (ev["seat"], ev["bid"])
        if kind == "redeal":
            return "everyone passed: seat %d deals again" % ev["dealer"]
        if kind == "kitty":
            return "seat %d takes the %d kitty cards" % (ev["seat"], ev["n"])
        if kind == "hand":
            bt = ev["bidder"] % 2
            took = ev["took"]
            out = "hand %d: %s bid %d, took %d: %s; %s took %d" % (
                ev["hand"], self.side(bt), ev["bid"], took[bt],
                "made it" if ev["made"] else "set, %d off" % ev["bid"], self.side(1 - bt),
                took[1 - bt])
            if ev["bonus"] is not None:
                out += " (the highest trump's 5 to %s)" % self.side(ev["bonus"])
            return out
        return words.describe(self, ev)

    def last_hand_words(self, last):
        from cardtable.games import words
        said = self.describe(dict(last, ev="hand"))
        if last.get("trump"):
            said += "; %s were trumps" % words.suit_words(self, last["trump"])
        return said

    def view(self, seat=None):
        out = self.trick_view(seat)
        out["dealer"] = self.dealer
        out["team_scores"] = list(self.score)
        out["bids"] = [[s, b or "pass"] for s, b in self.bids]
        out["high"] = self.high
        out["bidder"] = self.bidder
        out["bid"] = self.bid
        out["trump"] = std.fmt_suit(self.trump) if self.trump >= 0 else None
        out["kitty_left"] = self.kitty_left
        out["stock_left"] = self.stock_left
        out["discarded"] = list(self.ndiscarded)
        out["drawn"] = list(self.drawn)
        out["last_hand"] = self.results[-1] if self.results else None
        out["revokes"] = list(self.revokes)
        if seat is not None:
            out["my_discards"] = self.codes(self.discarded[seat])
        return out

    def dump(self):
        out = self.trick_dump()
        out.update(self.view(None))
        out["kitty"] = None if self.kitty is None else self.codes(self.kitty)
        out["stock"] = None if self.stock is None else self.codes(self.stock)
        out["discards"] = [self.codes(d) for d in self.discarded]
        out["passed"] = list(self.passed)
        out["holding"] = self.holding
        out["high_seat"] = self.high_seat
        out["order_turn"] = self.order_turn
        out["rules"] = dict(self.rules)
        out["results"] = self.results
        return out
