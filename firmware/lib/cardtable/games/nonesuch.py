"""Nonesuch (P.D. Magnus): a Decktet trick-taking game for 3 or 4 players, bids SOME/MOST/NONE.

As refereed (seed 'NONESUCH'; research/rules-decisions.md section 3):
- Deck: the 36 basic Decktet cards plus the Excuse (37). Ranks Ace 1 < 2 .. 9 < Crown; Aces and
  Crowns carry one suit, number cards two. Each seat is dealt 12 (3 players) or 9 (4 players);
  the 37th card is the up card, face up.
- Trump: an Ace or Crown up card fixes its suit; a number up card lets the Excuse holder choose
  one of its two suits after the bidding; the Excuse up means no trump this hand (D7).
- Bidding from the dealer's left, one bid each: ``some`` (1 per trick taken), ``most`` (2 per
  trick if at least the threshold: 6 with 3 players, 5 with 4; else lose one per trick short,
  D1), ``none`` (the number of tricks in the hand if no trick is taken, else lose one per trick).
- After the bids the Excuse holder reveals and discards the Excuse and takes the up card (D8,
  also when the up card is an Ace or Crown; nobody does when the Excuse is up).
- Play: the dealer's left leads first, then each trick's winner. The leader names one suit of
  the card led (a one-suit card names its own); the others follow the named suit if they can,
  else play anything. A card is a trump when it carries the trump suit, whatever was named.
  A trump-bearing card may not be led until a trump has been played this hand (any way: D5),
  unless the leader holds only trumps (D10; that lead breaks trumps). The highest trump wins,
  else the highest card of the named suit; ties cannot happen: each suit is on exactly one card
  of each rank (D4). With unknown hands a trump led before trumps are broken proves the leader
  held only trumps, and showing out proves a void: a later contradiction is a revoke.
- After each hand: if someone has ``target`` (31) or more, the highest total wins; a tie at the
  top plays on (D9). The deal passes to the left.

Example from the rule book (tested as written): Wyrms are trump; Tarrant leads an 8 calling
Suns; Raphael follows with the 2 of Suns and Wyrms, which follows suit and is a trump, and
wins the trick unless someone plays a higher trump.

Rule options (default = the seed's reading; variant = the common standard or other reading):

| option               | default                       | variant                            | id  |
|----------------------|-------------------------------|------------------------------------|-----|
| most_threshold       | 0: half the tricks, rounded   | n: MOST needs n tricks             | D1  |
|                      | up (6 or 5)                   |                                    |     |
| most_penalty         | "short": -1 per trick short   | "taken": -1 per trick taken        | D1  |
| some_zero_points     | 0: SOME with no trick, 0      | -1: a failed SOME loses a point    | D2  |
| none_points          | 0: the tricks in the hand     | n: a made NONE scores n            | D3  |
| trump_broken_by      | "any": any trump-bearing card | "ruff": only one played to a trick | D5, |
|                      | played in any way             | whose named suit it lacks (Spades) | D10 |
| trump_lead_suit      | "either": a trump led names   | "trump": it must name trumps       | D6  |
|                      | either of its suits           |                                    |     |
| reveal_before_bids   | False: Excuse and trump after | True: before the bids              | D8  |
| tie                  | "play_on": until one leader   | "shared": tied leaders share the   | D9  |
|                      |                               | win (winner None)                  |     |
| target               | 31                            | any positive total                 | end |

D4 (no ties in a trick) and D7 (Excuse up: no trump, no swap; Ace/Crown up: still swap) are
facts of the deck and the seed, not options.

Verbs (a suit is 0..5 = M S W L Y K in actions, a letter in records):
- ``deal`` (piles): ``hands`` (3 or 4 lists of 12 or 9 cards; a list or a seat's entry may be
  null = not seen) and ``up`` (a list of the one up card; required).
- ``bid`` (bid): "some", "most" or "none".
- ``excuse`` (): the Excuse holder reveals and discards it and takes the up card. When the
  Excuse is in no hand the table saw, any seat whose hand it did not see may make it.
- ``trump`` (suit): the Excuse holder's choice, one of the number up card's two suits.
- ``play`` (card, suit?): suit is the suit the leader names; required when leading a two-suit
  card, absent when following.
"""
from cardtable.cards import decktet as dk
from cardtable.games import seat_range
from cardtable.games.base import ONE
from cardtable.games.trick import OUT, UP, TrickGame

BIDS = ("some", "most", "none")


class Nonesuch(TrickGame):
    """Nonesuch on the trick core."""

    ID = "nonesuch"
    DECK = "decktet"
    SEATS = seat_range("nonesuch")  # its registry entry (games/__init__.py)
    LEAD_SUIT = True
    SIM_SEED = 254
    CARDS = dk.DECK
    OPTIONS = {
        "most_threshold": 0,
        "most_penalty": "short",
        "some_zero_points": 0,
        "none_points": 0,
        "trump_broken_by": "any",
        "trump_lead_suit": "either",
        "reveal_before_bids": False,
        "tie": "play_on",
        "target": 31,
    }
    VERBS = {"deal": ("piles",), "bid": ("bid",), "excuse": (), "trump": ("suit",),
             "play": ("card", "suit?")}
    PILES = ("hands", "up")
    PUBLIC_PILES = ("up",)
    DEAL_PATTERN = (("hands", 9), ("up", 1))  # 9 each (12 with three players), then the up card

    _BID = ("bid", "the bidding", "bid", ("bid",))
    _EXCUSE = ("excuse", "the reveal of the Excuse", "reveal the Excuse", ("excuse",))
    _TRUMP = ("trump", "the choice of trump", "choose trump", ("trump",))
    _PLAY = ("play", "the play", "play", ("play",))
    PHASES = (_BID, _EXCUSE, _TRUMP, _PLAY)

    @classmethod
    def check_rule_values(cls, rules):
        cls.check_choices(rules, (("most_penalty", ("short", "taken")),
                                  ("trump_broken_by", ("any", "ruff")),
                                  ("trump_lead_suit", ("either", "trump")),
                                  ("tie", ("play_on", "shared"))))
        if not 0 <= rules["most_threshold"] <= 12:
            raise cls.option_error("most_threshold", "0 (half the tricks) or 1..12",
                                   rules["most_threshold"])
        if rules["target"] < 1:
            raise cls.option_error("target", "a positive score", rules["target"])
        if rules["none_points"] < 0:
            raise cls.option_error("none_points", "0 or more", rules["none_points"])

    def reset_table(self, t):
        """The table's scratch for this game's inputs, cleared for each new game (table/inputs.py)."""
        t.lead_suit = -1  # the suit pressed for the next lead
        t.unnamed = None  # (seat, card, led, zone) of a lead refused for want of a suit

    def reset(self):
        n = self.seats
        if self.rules["reveal_before_bids"]:
            self.PHASES = (self._EXCUSE, self._TRUMP, self._BID, self._PLAY)
        self.score = [0] * n
        self.dealer = self.first_dealer
        self.over = False
        self.winner = None
        self.reset_tricks()
        self.reset_hand()
        self.bids = [None] * n
        self.up = -1
        self.trump = -1              # suit number; -1 while undecided or with no trump
        self.excuse_seat = -1        # who revealed the Excuse this hand
        self.broken = False          # a trump-bearing card has been played this hand
        self.phase = "deal"
        self._follow = [None] * 6    # led suit -> its follow rules, made once

    @property
    def tricks_per_hand(self):
        """12 with three players, 9 with four."""
        return 36 // self.seats

    @property
    def threshold(self):
        """Tricks a MOST bid needs (D1)."""
        return self.rules["most_threshold"] or (self.tricks_per_hand + 1) // 2

    @property
    def turn(self):
        phase = self.phase
        if phase == "bid":
            return ONE[(self.dealer + 1 + self.seats - self.bids.count(None)) % self.seats]
        if phase == "excuse":
            w = self.where[dk.EXCUSE]
            if 1 <= w <= self.seats:
                return (w - 1,)
            return self._unseen()
        if phase == "trump":
            return (self.excuse_seat,)
        if phase == "play":
            return ONE[self.next_in_trick()]
        return ()

    def _unseen(self):
        """The seats whose hands the table did not see (apart: a generator expression in turn
        would make its every call allocate a cell for self)."""
        return tuple(s for s in range(self.seats) if not self.known[s])

    def _advance(self):
        """Go to the next step of the hand that is still due: bids, Excuse, trump, play."""
        if self.rules["reveal_before_bids"]:
            steps = ("excuse", "trump", "bid")
        else:
            steps = ("bid", "excuse", "trump")
        for step in steps:
            if step == "bid" and None in self.bids \
                    or step == "excuse" and self.up != dk.EXCUSE and self.excuse_seat < 0 \
                    or step == "trump" and self.trump < 0 and self.up != dk.EXCUSE:
                self.phase = step
                return
        self.phase = "play"
        self.leader = (self.dealer + 1) % self.seats

    # -- the deal -------------------------------------------------------------------------
    def check_deal(self, action):
        piles = action[2]
        if not isinstance(piles, dict):
            return "a deal is a dict of piles"
        hands = piles.get("hands")
        if hands is not None:
            ok = isinstance(hands, (list, tuple))
            for h in hands if ok else ():
                ok = ok and (h is None or isinstance(h, (list, tuple)))
            if not ok:
                return "hands is a list of one list of cards per seat"
        reason = self.check_deal_piles(piles, (("hands", self.tricks_per_hand), ("up", 1)))
        if reason:
            return reason
        if piles.get("up") is None:
            return "the deal must show the up card"
        return None

    def do_deal(self, action):
        piles = action[2]
        self.reset_hand()
        self.hand_no += 1
        self.deal_hands(piles.get("hands"), self.tricks_per_hand)
        up = piles["up"][0]
        self.up = up
        self.where[up] = UP
        self.bids = [None] * self.seats
        self.excuse_seat = -1
        self.broken = False
        r = dk.rank(up)
        self.trump = dk.suits(up)[0] if r == 1 or r == dk.CROWN else -1
        self._advance()
        return [{"ev": "deal", "hand": self.hand_no, "dealer": self.dealer,
                 "up": self.card_code(up), "trump": self._trump_letter()}]

    def deal_pattern(self):
        return (("hands", self.tricks_per_hand), ("up", 1))

    def random_deal(self, rng):
        cards = rng.shuffle(list(dk.DECK))
        k = self.tricks_per_hand
        return (None, "deal", {"hands": [cards[i * k:(i + 1) * k] for i in range(self.seats)],
                               "up": [cards[-1]]})

    # -- bids, the Excuse, trump ------------------------------------------------------------
    def check_bid(self, action):
        bid = action[2]
        if not isinstance(bid, str) or bid.lower() not in BIDS:
            return "a bid is some, most or none, not %r" % (bid,)
        return None

    def do_bid(self, action):
        seat, bid = action[0], action[2].lower()
        self.bids[seat] = bid
        self._advance()
        return [{"ev": "bid", "seat": seat, "bid": bid}]

    def check_excuse(self, action):
        reason = self.where_reason(action[0], dk.EXCUSE)
        return reason and "you cannot hold the Excuse: " + reason

    def do_excuse(self, action):
        seat = action[0]
        self.take(seat, dk.EXCUSE)
        self.where[dk.EXCUSE] = OUT
        self.give(seat, (self.up,))
        self.excuse_seat = seat
        self._advance()
        return [{"ev": "excuse", "seat": seat}]

    def check_trump(self, action):
        suit, options = action[2], dk.suits(self.up)
        if type(suit) is not int or suit not in options:
            return "trump is %s or %s, the suits of the up card" % (
                dk.SUIT_NAMES[options[0]], dk.SUIT_NAMES[options[1]])
        return None

    def do_trump(self, action):
        self.trump = action[2]
        self._advance()
        return [{"ev": "trump", "seat": action[0], "suit": self._trump_letter()}]

    def _trump_letter(self):
        return dk.fmt_suit(self.trump) if self.trump >= 0 else None

    # -- play -----------------------------------------------------------------------------
    def is_trump(self, card):
        """True if card carries the trump suit (whatever suit was named when it was led)."""
        return self.trump >= 0 and dk.has_suit(card, self.trump)

    def follow_rules(self, seat):
        rules = self._follow[self.led]
        if rules is None:
            rules = self._follow[self.led] = \
                ((self.follows, self.follows, "must follow %s" % dk.SUIT_NAMES[self.led]),)
        return rules

    def follows(self, c):
        """c has the suit led."""
        return dk.has_suit(c, self.led)

    def lead_reason(self, seat, card, action):
        suit = action[3]  # (no tuple of the card's suits built for a legal lead)
        if suit is None:
            if len(dk.CARDS[card][1]) > 1:
                own = dk.suits(card)
                return "name the suit you lead: %s or %s" % (dk.SUIT_NAMES[own[0]],
                                                              dk.SUIT_NAMES[own[1]])
        elif not dk.has_suit(card, suit):
            return "the %s has no %s" % (self.card_code(card), dk.SUIT_NAMES[suit])
        if self.is_trump(card):
            if not self.broken:
                for c in self.hands[seat]:
                    if not dk.has_suit(c, self.trump):  # a card without trump: lead that
                        return "trumps cannot be led until a trump has been played"
            if self.rules["trump_lead_suit"] == "trump" and suit is not None and suit != self.trump:
                return "a trump led must name %s" % dk.SUIT_NAMES[self.trump]
        return None

    def led_suit(self, card, action):
        return dk.suits(card)[0] if action[3] is None else action[3]

    def power(self, card):
        if self.is_trump(card):
            return 100 + dk.rank(card)
        return dk.rank(card) if dk.has_suit(card, self.led) else 0

    def check_play(self, action):
        card, suit = action[2], action[3]
        why = self.card_reason(card)
        if why:
            return why
        if suit is not None and (type(suit) is not int or not 0 <= suit < 6):
            return "not a Decktet suit: %r" % (suit,)
        if self.trick and suit is not None:
            return "only the leader names a suit"
        return self.check_play_card(action[0], card, action)

    def do_play(self, action):
        seat, card = action[0], action[2]
        if self.is_trump(card):
            if not self.trick and not self.broken and not self.known[seat]:
                self._prove_only_trumps(seat)
            ruff = self.trick and not dk.has_suit(card, self.led)
            if ruff or self.rules["trump_broken_by"] == "any":
                self.broken = True
        named = -1 if self.trick else self.led_suit(card, action)
        events = self.play_card(seat, card, action)
        if named >= 0:
            for e in events:
                if e["ev"] == "play":
                    e["suit"] = dk.fmt_suit(named)   # the suit the leader named, for the table
        return events

    def _prove_only_trumps(self, seat):
        """A trump led before trumps are broken proves the unseen rest of the hand is all trumps."""
        n = len(self.hand_tricks) + 1
        mark, trump, where = self.absent[seat], self.trump, self.where
        for c in self.CARDS:
            if where[c] == 0 and not mark[c] and not dk.has_suit(c, trump):
                mark[c] = n

    def bot_action(self, rng):
        """A random legal action, but a bid is SOME three times in four.

        SOME never loses points; random MOST and NONE bids fail so often that the totals
        drift below zero and a game may never reach 31 (seen: 930 hands of seed 5).
        """
        if self.phase == "bid" and self.turn and rng.below(4):
            return (self.turn[0], "bid", "some")
        return TrickGame.bot_action(self, rng)

    def legal(self, seat):
        if seat not in self.turn:
            return []
        phase = self.phase
        if phase == "bid":
            return [(seat, "bid", b) for b in BIDS]
        if phase == "excuse":
            return [(seat, "excuse")] if self.check((seat, "excuse")) is None else []
        if phase == "trump":
            return [(seat, "trump", s) for s in dk.suits(self.up)]
        if phase != "play" or not self.known[seat]:
            return []
        out = []
        for c in sorted(self.hands[seat]):
            suits = dk.suits(c) if not self.trick and len(dk.suits(c)) > 1 else (None,)
            for s in suits:
                a = (seat, "play", c, s)
                if self.check_play(a) is None:
                    out.append(a)
        return out

    # -- scoring --------------------------------------------------------------------------
    def points_for(self, bid, taken):
        """What a bid scores with taken tricks this hand."""
        rules = self.rules
        if bid == "some":
            return taken if taken else rules["some_zero_points"]
        if bid == "most":
            need = self.threshold
            if taken >= need:
                return 2 * taken
            return -taken if rules["most_penalty"] == "taken" else taken - need
        if taken == 0:
            return rules["none_points"] or self.tricks_per_hand
        return -taken

    def tricks_taken(self):
        """Tricks each seat took this hand."""
        out = [0] * self.seats
        for t in self.hand_tricks:
            out[t[2]] += 1
        return out

    def end_hand(self):
        taken = self.tricks_taken()
        points = [self.points_for(self.bids[s], taken[s]) for s in range(self.seats)]
        for s in range(self.seats):
            self.score[s] += points[s]
        events = [{"ev": "hand", "hand": self.hand_no, "bids": list(self.bids), "tricks": taken,
                   "points": points, "scores": list(self.score)}]
        events.extend(self.settle())
        return events

    def settle(self):
        """After a hand: end the game if someone reached the target (D9), else deal to the left."""
        top = max(self.score)
        leaders = [s for s in range(self.seats) if self.score[s] == top]
        if top >= self.rules["target"] and (len(leaders) == 1 or self.rules["tie"] == "shared"):
            self.end(leaders[0] if len(leaders) == 1 else None)
            self.phase = "over"
            return [{"ev": "over", "winner": self.winner, "leaders": leaders,
                     "scores": list(self.score)}]
        self.dealer = (self.dealer + 1) % self.seats
        self.phase = "deal"
        return []

    # -- views ----------------------------------------------------------------------------
    # -- words ----------------------------------------------------------------------------
    def action_words(self, obj):
        from cardtable.games import words
        if obj.get("act") == "excuse":
            return "seat %d shows the Excuse and takes the up card" % obj["seat"]
        return words.action_words(self, obj)

    def furniture(self, view, out):
        """The suit the leader named and each seat's bid, for the page (host only)."""
        from cardtable.games import words
        for f in out["facts"]:
            if f[0] == "suit led":
                f[0] = "named suit"
        bids = view.get("bids") or []
        for s in range(len(out["seats"])):
            if s < len(bids) and bids[s] is not None:
                out["seats"][s]["facts"].insert(0, "bid " + str(bids[s]))
        if view.get("excuse") is not None:
            out["facts"].append(["the Excuse", "shown by " + words.who(self, view["excuse"])])

    def describe(self, ev):
        from cardtable.games import words
        kind = ev.get("ev")
        if kind == "deal":
            t = ev.get("trump")
            return "hand %d: seat %d deals; the up card is %s: %s" % (
                ev["hand"], ev["dealer"], words.show(self, ev["up"]),
                words.suit_words(self, t) + " are trumps" if t else
                "no trumps" if ev["up"] == "X" else "the Excuse's holder will name trumps")
        if kind == "hand":
            return "hand %d: %s" % (ev["hand"], "; ".join(
                "seat %d bid %s, took %d: %+d"
                % (s, ev["bids"][s], ev["tricks"][s], ev["points"][s]) for s in range(self.seats)))
        if kind == "over" and ev.get("winner") is None:
            return "game over: seats %s share the win; final scores %s" % (
                " & ".join(str(s) for s in ev["leaders"]), words.score_words(self, ev["scores"]))
        return words.describe(self, ev)

    def view(self, seat=None):
        out = self.trick_view(seat)
        up = self.up
        out["dealer"] = self.dealer
        out["bids"] = list(self.bids)
        # Once in the Excuse holder's hand the up card is a hand card: only that seat shows it.
        out["up"] = self.card_code(up) if up >= 0 and self.where[up] == UP else None
        out["excuse"] = None if self.excuse_seat < 0 else self.excuse_seat
        out["trump"] = self._trump_letter()
        out["no_trump"] = up == dk.EXCUSE
        out["trump_broken"] = self.broken
        out["led"] = dk.fmt_suit(self.led) if self.trick else None
        out["most_threshold"] = self.threshold
        return out

    def dump(self):
        out = self.trick_dump()
        out.update(self.view(None))
        out["up"] = self.card_code(self.up) if self.up >= 0 else None
        out["rules"] = dict(self.rules)
        return out
