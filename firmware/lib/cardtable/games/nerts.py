"""Nerts: every player races a private solitaire to shared foundations in the centre.

As refereed (seed "Two Card Games"; research/rules-decisions.md section 4, R1-R7):
- Each player has an own deck; a card's code carries its owner (``AS#2``). Nobody deals: a
  round starts with a ``deal`` line (which may carry each seat's scanned deck) and then everyone
  plays at once, each seat at its own layout (R1):
  seed: 12 nerts as 4 face-up slots refilled from an 8-card stack, a Klondike of 7 piles
  (1..7 cards, the top one face up) and a 12-card stock; standard: a 13-card nerts pile
  (top up), 4 work piles of one face-up card, a 35-card stock. The stock is turned
  ``stock_turn`` at a time onto a waste; an empty stock takes the waste back.
- To the centre (R2) go a nerts slot card, the top of a work pile or the waste top. An ace of
  any deck starts a new pile; anyone may play the next card up in suit on any pile; several
  piles of one suit may exist. Work piles build down in alternating colours; a face-up run
  moves as one; an exposed face-down card turns up; an empty pile takes any card (R3).
- Time (R4): ``center``, ``nerts`` and ``stuck`` carry ``t``, ms since the round began. Lines
  are judged in arrival order, which is the order of the record's lines: the table writes each
  line as its readers see the card, and the referee reads a file top to bottom; nothing is
  re-sorted by ``t`` (private ``draw``/``move`` lines carry no ``t``, so a seat's own lines could
  not be re-sorted against the others'). ``t`` counts in exactly three ways. (1) A centre play is
  judged against the centre as it stood at its ``t`` (each centre card keeps its ``t``): the card
  it goes on must have been there by then ("no ♠ pile was at 4 by t=300"). (2) When the place it
  needs was taken by a card with a later ``t``, the earlier ``t`` wins and that card is handed
  back to its owner ("displaced"), but only while it is the top of its pile and its owner has
  done nothing since; otherwise the late arrival is rejected: "too late: 5♠ pile already at 6".
  (3) After the round ends (Nerts called, or stuck) a play timed after the end is too late, and
  nothing is displaced any more. So a record out of ``t`` order by one late line per race is
  judged as if in ``t`` order; a larger reordering is judged in file order.
- Round end (R5): a player with no nerts left may call Nerts (optional: she may play on).
  When nobody can move, ``stuck`` (refused while a known layout has a card that fits the
  centre): every stock's top card goes to its bottom; stuck again with no centre play in
  between ends the round with no caller. Then every seat but the caller reports its nerts
  ``left`` (scanned or counted), and the round is scored (R6): seed: +1 per own card in the
  centre, -1 per nert left, +10 to the caller; standard: +1, -2, no bonus. The game ends when
  a round leaves a single highest score at ``target`` or more (a tie at the top plays on).

Example from the rule book (tested as written): Bob plays the ace of spades; he, Will or Mike
may play the two of spades, but only one of them can; then anyone may play the three.

Known and unknown layouts: with a seat's deck in the deal the table follows that seat's
private play (``draw`` and ``move`` lines), so a card that is not free, a wrong build, a call
with nerts left or a wrong count is rejected at once. Without it (null or no deal piles) the
table checks what it sees: the card is the seat's own, not already in the centre, fits a pile
and is in time; private lines are then accepted unchecked. A deck scanned before play but
without its private moves should be recorded as unseen: availability cannot be proven then.

Rule options:

| option         | default = seed | variant                                   | decision |
|----------------|----------------|-------------------------------------------|----------|
| ``layout``     | "seed"         | "standard": 13 nerts, 4 work piles, 35 stock | R1    |
| ``stock_turn`` | 3              | 1: turn the stock one card at a time      | R1       |
| ``from_waste`` | True           | False: only nerts and work piles feed the centre | R2 |
| ``empty_pile`` | "any"          | "kings": only a king fills an empty pile (Klondike) | R3 |
| ``stuck_shift``| True           | False: stuck ends the round at once       | R5       |
| ``must_call``  | False          | True: a player out of nerts must call     | R5       |
| ``scoring``    | "seed"         | "standard": -2 per nert, no caller bonus  | R6       |
| ``target``     | 100            | any positive score                        | R6       |
| ``seed_strict``| False          | True: at least 3 players, as the seed says | R7      |

Verbs (``t`` in ms since the round began):
- ``deal`` (piles) starts a round; ``center`` (card, t) plays a card to the centre;
  ``nerts`` (t) calls Nerts; ``stuck`` (t) says nobody can move; ``left`` (n) counts a seat's
  nerts at round end; private detail: ``draw`` () turns the stock, ``move`` (card, at) puts a
  card (with the run on it) onto work pile ``at`` (0-based).

Deal piles: ``hands``, one list per seat (null = not seen) of that seat's 52 own cards in the
order they are laid out: the nerts first (seed: 4 slots, then the stack top first; standard:
the pile top first), then the work piles one after the other (bottom card first), then the
stock top first.

Seats: 2 to 8. The issue allows any number; eight is what one table holds: each seat has its own
``left`` reader (one TCA9548A multiplexer has eight channels), and eight decks (416 tagged cards,
up to 32 foundation piles) is about what one centre within everyone's reach takes.
"""
from cardtable.cards import standard as std
from cardtable.compat import const
from cardtable.games import seat_range
from cardtable.games.base import FIRST, Game

SLOT = const(0)      # where a card sits in a layout
STACK = const(1)
PILE = const(2)
STOCK = const(3)
WASTE = const(4)

# layout name -> (nerts slots, nerts stack, work pile sizes, stock)
SHAPES = {"seed": (4, 8, (1, 2, 3, 4, 5, 6, 7), 12), "standard": (1, 12, (1, 1, 1, 1), 35)}
_CHOICES = {"layout": ("seed", "standard"), "empty_pile": ("any", "kings"),
            "scoring": ("seed", "standard")}
_WHERE = ("is not free", "is in your nerts stack", "is covered", "is in your stock",
          "is under your waste top")


class Layout:
    """One seat's private layout while the table knows it; lists keep their top card last."""

    def __init__(self, deck, shape):
        nslots, nstack, sizes, nstock = shape
        self.slots = list(deck[:nslots])        # -1 = an empty slot
        i = nslots + nstack
        self.stack = list(deck[nslots:i])
        self.stack.reverse()
        self.piles = []
        self.down = []                          # face-down cards at the bottom of each pile
        for n in sizes:
            self.piles.append(list(deck[i:i + n]))
            self.down.append(n - 1)
            i += n
        self.stock = list(deck[i:])
        self.stock.reverse()
        self.waste = []
        self.at_j = self.at_pos = 0             # where locate() last found a card

    def nerts(self):
        """Nerts left: cards in the slots and the stack."""
        n = len(self.stack)
        for c in self.slots:
            if c >= 0:
                n += 1
        return n

    def find(self, c):
        """(kind, index, position) of card c; position counts from the bottom."""
        kind = self.locate(c)
        return kind, self.at_j, self.at_pos

    def locate(self, c):
        """The kind of place card c is in, its index and position left in at_j and at_pos (no
        tuple built: a check runs this on every card laid)."""
        j = pos = 0
        if c in self.slots:
            kind, j = SLOT, self.slots.index(c)
        elif c in self.stack:
            kind, pos = STACK, self.stack.index(c)
        elif c in self.waste:
            kind, pos = WASTE, self.waste.index(c)
        else:
            kind = STOCK
            for i in range(len(self.piles)):
                p = self.piles[i]
                if c in p:
                    kind, j, pos = PILE, i, p.index(c)
                    break
        self.at_j = j
        self.at_pos = pos
        return kind

    def where_reason(self, c, runs):
        """None if card c is free (runs: a face-up card under others counts), else why not."""
        kind = self.locate(c)
        j, pos = self.at_j, self.at_pos
        if kind == SLOT:
            return None
        if kind == WASTE:
            return None if pos == len(self.waste) - 1 else _WHERE[WASTE]
        if kind == PILE:
            if pos < self.down[j]:
                return "is face down"
            if pos == len(self.piles[j]) - 1 or runs:
                return None
            return _WHERE[PILE]
        return _WHERE[kind]

    def free_cards(self, from_waste):
        """The cards that may go to the centre now."""
        out = [c for c in self.slots if c >= 0]
        for p in self.piles:
            if p:
                out.append(p[-1])
        if from_waste and self.waste:
            out.append(self.waste[-1])
        return out

    def take(self, c):
        """Remove free card c (with the run on it); returns (run, undo), undo = (kind, j, flag)."""
        kind, j, pos = self.find(c)
        if kind == SLOT:
            refill = 1 if self.stack else 0
            self.slots[j] = self.stack.pop() if refill else -1
            return [c], (SLOT, j, refill)
        if kind == WASTE:
            self.waste.pop()
            return [c], (WASTE, 0, 0)
        p = self.piles[j]
        run = p[pos:]
        del p[pos:]
        flip = 0
        if self.down[j] and len(p) == self.down[j]:
            self.down[j] -= 1
            flip = 1
        return run, (PILE, j, flip)

    def restore(self, c, undo):
        """Put back a single card taken by take() when nothing else changed since."""
        kind, j, flag = undo
        if kind == SLOT:
            if flag:
                self.stack.append(self.slots[j])
            self.slots[j] = c
        elif kind == WASTE:
            self.waste.append(c)
        else:
            if flag:
                self.down[j] += 1
            self.piles[j].append(c)

    def draw(self, n):
        """Turn n stock cards onto the waste, or the waste back over when the stock is empty."""
        if not self.stock:
            self.stock = self.waste
            self.stock.reverse()
            self.waste = []
            return
        for _ in range(n):
            if not self.stock:
                break
            self.waste.append(self.stock.pop())

    def shift(self):
        """The stuck rule: the top stock card goes to the bottom (the waste is turned first)."""
        if not self.stock:
            self.draw(0)
        if self.stock:
            self.stock.insert(0, self.stock.pop())

    def dump(self, fmt):
        return {"slots": [None if c < 0 else fmt(c) for c in self.slots],
                "stack": [fmt(c) for c in self.stack],
                "piles": [[fmt(c) for c in p] for p in self.piles],
                "down": list(self.down), "stock": [fmt(c) for c in self.stock],
                "waste": [fmt(c) for c in self.waste]}

    def view(self, fmt):
        """What its owner sees: face-up cards; face-down ones only counted."""
        return {"slots": [None if c < 0 else fmt(c) for c in self.slots], "stack": len(self.stack),
                "piles": [[self.down[j], [fmt(c) for c in self.piles[j][self.down[j]:]]]
                          for j in range(len(self.piles))],
                "stock": len(self.stock), "waste": len(self.waste),
                "waste_top": fmt(self.waste[-1]) if self.waste else None}


def _fits_on(c, under):
    """True if c may be built on under in a work pile: one rank lower, the other colour."""
    return std.rank(c) + 1 == std.rank(under) and std.is_red(c) != std.is_red(under)


_SIZES = (("hands", 52),)  # a deal: each seat's own deck (None: not seen)


class Nerts(Game):
    """Nerts on the rules API: every seat acts at any time; the centre is judged by t."""

    ID = "nerts"
    DECK = "standard"
    SEATS = seat_range("nerts")  # its registry entry (games/__init__.py)
    TIMED = True
    OWNED = True  # AS#2
    SIM_SEED = 120
    DEMO_SEATS = 3  # the seed's stated minimum
    HAS_DEALER = False
    TEAMS = False
    CARDS = tuple(std.owned(c, s) for s in range(SEATS[1]) for c in std.DECK)
    OPTIONS = {
        "layout": "seed",
        "stock_turn": 3,
        "from_waste": True,
        "empty_pile": "any",
        "stuck_shift": True,
        "must_call": False,
        "scoring": "seed",
        "target": 100,
        "seed_strict": False,
    }
    VERBS = {"deal": ("piles",), "center": ("card", "t"), "nerts": ("t",), "stuck": ("t",),
             "left": ("n",), "draw": (), "move": ("card", "at")}
    PILES = ("hands",)
    SECRET = {"move": ("card", None)}  # a private move: a spectator sees no layout (view(None))
    # Everyone plays at once (turn: every seat); once the round ends, late centre plays are
    # still judged by t while the seats count their nerts.
    PHASES = (("play", "the round", "play", ("center", "nerts", "stuck", "draw", "move")),
              ("count", "the count", "count their nerts", ("center", "left")))

    @classmethod
    def check_rule_values(cls, rules):
        cls.check_choices(rules, _CHOICES.items())
        for key in ("target", "stock_turn"):
            if rules[key] < 1:
                raise cls.option_error(key, "a positive number", rules[key])

    def __init__(self, seats, dealer=0, rules=None):
        Game.__init__(self, seats, dealer, rules)
        if self.rules["seed_strict"] and seats < 3:
            raise ValueError("the seed says Nerts needs 3 players at least (seed_strict)")
        self.CARDS = self.CARDS[:52 * seats]

    def reset_table(self, t):
        """The table's scratch for this game's inputs, cleared for each new game (table/inputs.py)."""
        t.left = [[] for _ in range(self.seats)]  # cards laid on each left zone

    def reset(self):
        n = self.seats
        self.shape = SHAPES[self.rules["layout"]]
        self.nerts_size = self.shape[0] + self.shape[1]
        self.score = [0] * n
        self.rounds = []                  # points of every scored round
        self.hand_no = 0
        self.over = False
        self.winner = None
        self.phase = "deal"
        self.spot_pile = -1               # where spot_reason() last placed a card (scratch)
        self.spot_displace = False
        self.new_round()

    def new_round(self):
        """Clear the per-round state."""
        n = self.seats
        self.layouts = [None] * n         # a Layout where the table knows the seat's deck
        self.piles = []                   # centre piles: lists of (card, t), ace first
        self.by_suit = [[], [], [], []]   # suit -> its centre piles' indices, oldest first
        self.at = bytearray(64 * (n + 1))  # card -> centre pile + 1, 0 = not in the centre
        self.centre = [0] * n             # own cards in the centre, per seat
        self.clock = 0                    # the latest t judged
        self.end_t = -1                   # t of the call or of the final stuck
        self.caller = -1
        self.counted = [-1] * n           # nerts left per seat once reported
        self.ops = [0] * n                # actions per seat, to tell if one acted since
        self.last = [None] * n            # (card, ops stamp, undo) of each seat's last centre play
        self.idle = [0] * n               # draws since the seat's last progress
        self.stuck_at = -1                # centre size at the last stuck, -1 = none yet

    # -- the API properties ---------------------------------------------------------------
    @property
    def turn(self):
        if self.phase in ("play", "count"):
            return FIRST[self.seats]
        return ()

    def to_act(self):
        """Who is to do what: 'everyone is to play', 'seat 0 and seat 2 are to count their nerts'."""
        i = self._phase_at(self.phase)
        if self.phase != "count":
            return "everyone is to " + self.PHASES[i][2]
        left = [s for s in range(self.seats) if self.counted[s] < 0]
        return "%s %s to %s" % (" and ".join("seat %d" % s for s in left),
                                "is" if len(left) == 1 else "are", self.PHASES[i][2])

    def is_card(self, c):
        """True for a card of one of this table's decks (seat s's are 64 (s + 1) + 0..51)."""
        return type(c) is int and 64 <= c < 64 * (self.seats + 1) and c & 63 < 52

    def card_reason(self, c):
        return None if self.is_card(c) else self.not_a_card(c)

    # -- the deal -------------------------------------------------------------------------
    def check_deal(self, action):
        return self.check_deal_piles(action[2], _SIZES)

    def deal_card_reason(self, c, seat):
        if not self.is_card(c) or std.owner(c) != seat:
            return "the %s is not seat %d's card" % (self.code(c), seat)
        return None

    def deal_reason(self, kind, name, want, got, seat):
        if kind == "hands":
            return "the deal needs one deck per seat: %d" % want
        return "seat %d's deck must hold 52 cards" % seat

    def do_deal(self, action):
        self.new_round()
        self.hand_no += 1
        hands = action[2].get("hands")
        if hands is not None:
            for s in range(self.seats):
                if hands[s] is not None:
                    self.layouts[s] = Layout(hands[s], self.shape)
        self.phase = "play"
        return [{"ev": "deal", "hand": self.hand_no,
                 "known": [lay is not None for lay in self.layouts]}]

    def random_deal(self, rng):
        hands = []
        for s in range(self.seats):
            deck = [std.owned(c, s) for c in std.DECK]
            hands.append(rng.shuffle(deck))
        return (None, "deal", {"hands": hands})

    # -- shared checks --------------------------------------------------------------------
    def code(self, c):
        """Code of c if it is a card, else its repr (for reasons about bad input)."""
        return self.card_code(c) if type(c) is int and c >= 0 and std.plain(c) < 52 else repr(c)

    def own_reason(self, seat, c):
        """None if c is one of seat's cards and not in the centre."""
        if not self.is_card(c):
            return self.not_a_card(c)
        if std.owner(c) != seat:
            return "the %s is seat %d's card" % (self.card_code(c), std.owner(c))
        if self.at[c]:
            return "the %s is already in the centre" % self.card_code(c)
        return None

    def private_reason(self, seat):
        """None if seat may still act at its layout (the rules' must_call)."""
        lay = self.layouts[seat]
        if self.rules["must_call"] and lay is not None and not lay.nerts():
            return "you are out of nerts: call Nerts!"
        return None

    def time_reason(self, seat, t):
        """None if a centre play at t may still be judged."""
        if type(t) is not int or t < 0:
            return "t is the time in ms since the round began, not %r" % (t,)
        if self.phase == "play":
            return None
        if t > self.end_t:
            if self.caller < 0:
                return "too late: the round ended (stuck) at t=%d" % self.end_t
            return "too late: seat %d called Nerts at t=%d" % (self.caller, self.end_t)
        if self.counted[seat] >= 0 and seat != self.caller:
            return "too late: your nerts are already counted"
        return None

    # -- the centre -----------------------------------------------------------------------
    def spot(self, c, t):
        """(reason, pile, displace): where card c played at t goes; pile -1 = a new pile."""
        reason = self.spot_reason(c, t)
        return reason, self.spot_pile, self.spot_displace

    def spot_reason(self, c, t):
        """None if card c played at t has a place in the centre, else why not; the place is left
        in spot_pile (-1: a new pile) and spot_displace (no tuple built: checked on every play)."""
        self.spot_pile = -1
        self.spot_displace = False
        r = std.rank(c)
        if r == 1:
            return None
        s = std.suit(c)
        free = disp = -1
        late = 99
        early = False
        for i in self.by_suit[s]:
            p = self.piles[i]
            top = len(p)
            if top < r - 1:
                continue
            if top >= r and top < late:
                late = top
            if p[r - 2][1] > t:
                early = True
            elif top == r - 1:
                if free < 0:
                    free = i
            elif top == r and p[r - 1][1] > t and disp < 0 and self.phase == "play" \
                    and self.displaceable(p[r - 1][0]):
                disp = i
        if free >= 0:
            self.spot_pile = free
            return None
        if disp >= 0:
            self.spot_pile = disp
            self.spot_displace = True
            return None
        sym = std.SUIT_SYMBOLS[s]
        if late < 99:
            return "too late: %s pile already at %s" % (std.pretty(c), std.RANK_CODES[late])
        if early:
            return "no %s pile was at %s by t=%d" % (sym, std.RANK_CODES[r - 1], t)
        return "nothing to play the %s on: no %s pile is at %s" % (std.pretty(c), sym,
                                                                   std.RANK_CODES[r - 1])

    def wanted(self):
        """bytearray by plain card: 1 where it fits the centre now (an ace, or a pile below it)."""
        out = bytearray(52)
        for s in range(4):
            out[s * 13] = 1
        for p in self.piles:
            top = len(p)
            if top < 13:
                out[std.plain(p[-1][0]) + 1] = 1
        return out

    def displaceable(self, q):
        """True if q's owner has done nothing since playing it (so it can be handed back)."""
        o = std.owner(q)
        last = self.last[o]
        return last is not None and last[0] == q and last[1] == self.ops[o]

    def check_center(self, action):
        seat, c, t = action[0], action[2], action[3]
        reason = self.own_reason(seat, c) or self.time_reason(seat, t)
        if reason:
            return reason
        lay = self.layouts[seat]
        if lay is not None:
            if self.phase == "play":
                reason = self.private_reason(seat)
                if reason:
                    return reason
            where = lay.where_reason(c, False)
            if where is None and lay.locate(c) == WASTE and not self.rules["from_waste"]:
                where = "is on your waste: only nerts and work piles feed the centre"
            if where:
                return "the %s %s" % (std.pretty(c), where)
        return self.spot_reason(c, t)

    def do_center(self, action):
        seat, c, t = action[0], action[2], action[3]
        events = []
        self.spot_reason(c, t)
        i, disp = self.spot_pile, self.spot_displace
        if disp:
            events.append(self.displace(i, seat))
        lay = self.layouts[seat]
        undo = lay.take(c)[1] if lay is not None else None
        if i < 0:
            self.piles.append([(c, t)])
            i = len(self.piles) - 1
            self.by_suit[std.suit(c)].append(i)
        else:
            self.piles[i].append((c, t))
        self.at[c] = i + 1
        self.centre[seat] += 1
        self.ops[seat] += 1
        self.last[seat] = (c, self.ops[seat], undo)
        if t > self.clock:
            self.clock = t
        for s in range(self.seats):
            self.idle[s] = 0
        events.append({"ev": "center", "seat": seat, "card": self.card_code(c), "pile": i, "t": t})
        return events

    def displace(self, i, by):
        """Hand the top card of centre pile i back to its owner: an earlier play took its place."""
        q = self.piles[i].pop()[0]
        o = std.owner(q)
        self.at[q] = 0
        self.centre[o] -= 1
        lay = self.layouts[o]
        if lay is not None:
            lay.restore(q, self.last[o][2])
        self.last[o] = None
        self.ops[o] += 1
        return {"ev": "displaced", "seat": o, "card": self.card_code(q), "by": by}

    # -- private play (optional detail) -----------------------------------------------------
    def check_draw(self, action):
        seat = action[0]
        reason = self.private_reason(seat)
        if reason:
            return reason
        lay = self.layouts[seat]
        if lay is not None and not lay.stock and not lay.waste:
            return "your stock and waste are empty"
        return None

    def do_draw(self, action):
        seat = action[0]
        lay = self.layouts[seat]
        if lay is not None:
            lay.draw(self.rules["stock_turn"])
        self.ops[seat] += 1
        self.idle[seat] += 1
        return []

    def check_move(self, action):
        seat, c, at = action[0], action[2], action[3]
        reason = self.private_reason(seat) or self.own_reason(seat, c)
        if reason:
            return reason
        npiles = len(self.shape[2])
        if type(at) is not int or not 0 <= at < npiles:
            return "at is a work pile 0..%d, not %r" % (npiles - 1, at)
        lay = self.layouts[seat]
        if lay is None:
            return None
        where = lay.where_reason(c, True)  # (its locate() leaves where c lies in lay.at_j)
        if where:
            return "the %s %s" % (std.pretty(c), where)
        if lay.locate(c) == PILE and lay.at_j == at:
            return "the %s is already on that pile" % std.pretty(c)
        target = lay.piles[at]
        if not target:
            if self.rules["empty_pile"] == "kings" and std.rank(c) != std.KING:
                return "only a king may fill an empty pile"
            return None
        if not _fits_on(c, target[-1]):
            return "the %s does not go on the %s" % (std.pretty(c), std.pretty(target[-1]))
        return None

    def do_move(self, action):
        seat, c, at = action[0], action[2], action[3]
        lay = self.layouts[seat]
        if lay is not None:
            run = lay.take(c)[0]
            lay.piles[at].extend(run)
        self.ops[seat] += 1
        self.idle[seat] = 0
        return []

    # -- the end of a round ---------------------------------------------------------------
    def check_nerts(self, action):
        seat, t = action[0], action[2]
        if type(t) is not int or t < 0:
            return "t is the time in ms since the round began, not %r" % (t,)
        lay = self.layouts[seat]
        n = lay.nerts() if lay is not None else 0
        if n:
            return "you still have %d nert%s" % (n, "" if n == 1 else "s")
        return None

    def do_nerts(self, action):
        seat, t = action[0], action[2]
        self.caller = seat
        self.counted[seat] = 0
        self.ops[seat] += 1
        return [{"ev": "nerts", "seat": seat, "t": t}] + self.end_round(t)

    def check_stuck(self, action):
        t = action[2]
        if type(t) is not int or t < 0:
            return "t is the time in ms since the round began, not %r" % (t,)
        wanted = self.wanted()
        for s in range(self.seats):
            lay = self.layouts[s]
            if lay is None:
                continue
            for c in lay.free_cards(self.rules["from_waste"]):
                if wanted[std.plain(c)]:
                    return "not stuck: seat %d can play the %s" % (s, std.pretty(c))
        return None

    def do_stuck(self, action):
        t = action[2]
        for s in range(self.seats):
            self.ops[s] += 1
            self.idle[s] = 0
        played = sum(self.centre)
        if self.rules["stuck_shift"] and played > self.stuck_at:
            self.stuck_at = played
            for lay in self.layouts:
                if lay is not None:
                    lay.shift()
            return [{"ev": "stuck", "shift": True, "t": t}]
        return [{"ev": "stuck", "shift": False, "t": t}] + self.end_round(t)

    def end_round(self, t):
        self.phase = "count"
        self.end_t = t
        return self.score_round()

    def check_left(self, action):
        seat, n = action[0], action[2]
        if self.counted[seat] >= 0:
            return "seat %d's nerts are already counted" % seat
        if type(n) is not int or not 0 <= n <= self.nerts_size:
            return "n is the number of nerts left, 0..%d, not %r" % (self.nerts_size, n)
        lay = self.layouts[seat]
        if lay is not None and lay.nerts() != n:
            return "seat %d has %d nerts left, not %d" % (seat, lay.nerts(), n)
        return None

    def do_left(self, action):
        seat, n = action[0], action[2]
        self.counted[seat] = n
        return [{"ev": "left", "seat": seat, "n": n}] + self.score_round()

    def score_round(self):
        """Once every seat is counted: score the round, then deal again or end the game."""
        if min(self.counted) < 0:
            return []
        per_nert = 1 if self.rules["scoring"] == "seed" else 2
        bonus = 10 if self.rules["scoring"] == "seed" else 0
        points = []
        for s in range(self.seats):
            p = self.centre[s] - per_nert * self.counted[s]
            if s == self.caller:
                p += bonus
            points.append(p)
            self.score[s] += p
        self.rounds.append(points)
        events = [{"ev": "hand", "hand": self.hand_no, "points": points,
                   "center": list(self.centre), "left": list(self.counted),
                   "caller": None if self.caller < 0 else self.caller, "scores": list(self.score)}]
        best = max(self.score)
        if best >= self.rules["target"] and self.score.count(best) == 1:
            self.end(self.score.index(best))
            self.phase = "over"
            events.append({"ev": "over", "winner": self.winner, "scores": list(self.score)})
        else:
            self.phase = "deal"
        return events

    # -- legal actions and bots -----------------------------------------------------------
    def legal(self, seat):
        if self.phase == "count":
            if self.counted[seat] >= 0:
                return []
            lay = self.layouts[seat]
            if lay is not None:
                return [(seat, "left", lay.nerts())]
            return [(seat, "left", n) for n in range(self.nerts_size + 1)]
        if self.phase != "play":
            return []
        t = self.clock
        out = []
        lay = self.layouts[seat]
        # an unseen layout may hold any of its own cards not yet in the centre
        cards = self.CARDS[52 * seat:52 * seat + 52] if lay is None \
            else lay.free_cards(self.rules["from_waste"])
        for c in cards:
            a = (seat, "center", c, t)
            if self.check_center(a) is None:
                out.append(a)
        out.extend(self.moves(seat))
        for a in ((seat, "draw"), (seat, "nerts", t), (seat, "stuck", t)):
            if self.check(a) is None:
                out.append(a)
        return out

    def moves(self, seat, useful=False):
        """Legal moves of a known layout; useful: only those that make progress (a bot's)."""
        lay = self.layouts[seat]
        out = []
        if lay is None or self.private_reason(seat):
            return out
        heads = [(c, -1) for c in lay.slots if c >= 0]
        if lay.waste:
            heads.append((lay.waste[-1], -1))
        for j in range(len(lay.piles)):
            p = lay.piles[j]
            first = lay.down[j]
            if useful:
                if first and len(p) > first:
                    heads.append((p[first], j))
            else:
                for pos in range(first, len(p)):
                    heads.append((p[pos], j))
        kings = self.rules["empty_pile"] == "kings"
        for c, j in heads:
            for at in range(len(lay.piles)):
                target = lay.piles[at]
                if at == j:
                    continue
                if target and _fits_on(c, target[-1]) \
                        or not target and (not kings or std.rank(c) == std.KING):
                    out.append((seat, "move", c, at))
        return out

    def bot_action(self, rng):
        """A racing bot per known seat: centre first, then progress, then the stock."""
        if self.phase == "deal":
            return self.random_deal(rng)
        if self.phase == "count":
            for s in range(self.seats):
                if self.counted[s] < 0:
                    return self.legal(s)[0]
        t = self.clock + 1 + rng.below(400)
        start = rng.below(self.seats)
        for k in range(self.seats):
            a = self.bot_seat((start + k) % self.seats, rng, t)
            if a is not None:
                return a
        for s in range(self.seats):
            lay = self.layouts[s]
            if lay is not None and not lay.nerts():
                return (s, "nerts", t)
        return (start, "stuck", t)

    def bot_seat(self, seat, rng, t):
        """What seat's bot does now, or None when it has nothing left to try."""
        lay = self.layouts[seat]
        if lay is None:
            return None
        if not lay.nerts() and (self.rules["must_call"] or rng.below(4)):
            return (seat, "nerts", t)
        plays = []
        wanted = self.wanted()
        for c in lay.free_cards(self.rules["from_waste"]):
            a = (seat, "center", c, t)
            if wanted[std.plain(c)] and self.check_center(a) is None:
                plays.append(a)
        if plays:
            return plays[rng.below(len(plays))]
        moves = self.moves(seat, True)
        if moves:
            return moves[rng.below(len(moves))]
        turn = self.rules["stock_turn"]
        cycle = (len(lay.stock) + len(lay.waste) + turn - 1) // turn + 1
        if (lay.stock or lay.waste) and self.idle[seat] <= cycle:
            return (seat, "draw")
        return None

    # -- views ----------------------------------------------------------------------------
    # -- words ----------------------------------------------------------------------------
    def action_words(self, obj):
        from cardtable.games import words
        verb = obj.get("act")
        who = words.who(self, obj.get("seat"))
        if verb == "center":
            return "%s plays %s to the centre, %s" % (who, words.show(self, obj["card"], obj.get("seat")),
                                                      _into(obj["t"]))
        if verb == "nerts":
            return "%s calls Nerts!, %s" % (who, _into(obj["t"]))
        if verb == "stuck":
            return "nobody can move, %s: stuck" % _into(obj["t"])
        if verb == "left":
            return "%s has %s nerts left" % (who, obj["n"])
        if verb == "draw":
            return "%s turns the stock" % who
        if verb == "move":
            return "%s moves %s onto work pile %s" % (who, words.show(self, obj.get("card"), obj.get("seat")),
                                                      obj["at"] + 1)
        return words.action_words(self, obj)

    def furniture(self, view, out):
        """The centre foundations and each player's nerts pile, for the page (host only)."""
        from cardtable.games import words
        centre = view.get("center") or []
        if centre:
            out["rows"].append({"label": "centre foundations", "cards": [p[0] for p in centre],
                                "counts": [p[1] for p in centre]})
        left = view.get("nerts_left") or []
        inc = view.get("in_center") or []
        for s in range(len(out["seats"])):
            facts = []
            if s < len(left) and left[s] is not None:
                facts.append(words.count_words(left[s], "card") + " left in the nerts pile")
            if s < len(inc) and inc[s]:
                facts.append(words.count_words(inc[s], "card") + " in the centre")
            out["seats"][s]["facts"] = facts
        if view.get("caller") is not None:
            out["facts"].append(["Nerts!", "called by " + words.who(self, view["caller"])])

    def describe(self, ev):
        from cardtable.games import words
        kind = ev.get("ev")
        if kind in ("center", "nerts", "left"):
            return None                 # the action says it
        if kind == "deal":
            return "round %d begins" % ev["hand"]
        if kind == "stuck":
            return "every stock's top card goes under" if ev["shift"] else \
                "still stuck: the round ends with no caller"
        if kind == "displaced":
            return "%s takes back %s: %s played earlier" % (
                words.who(self, ev["seat"]), words.show(self, ev["card"], ev["seat"]), words.who(self, ev["by"]))
        if kind == "hand":
            bits = []
            for s in range(self.seats):
                b = "seat %d: %d in the centre" % (s, ev["center"][s])
                if ev["left"][s]:
                    b += ", %d nerts left" % ev["left"][s]
                if s == ev["caller"]:
                    b += ", called Nerts"
                bits.append("%s: %+d" % (b, ev["points"][s]))
            return "round %d: %s" % (ev["hand"], "; ".join(bits))
        return words.describe(self, ev)

    def view(self, seat=None):
        out = {
            "game": self.ID, "seats": self.seats, "phase": self.phase, "turn": list(self.turn),
            "hand_no": self.hand_no, "clock": self.clock,
            "center": [[self.card_code(p[-1][0]), len(p)] for p in self.piles],
            "in_center": list(self.centre),
            "nerts_left": [self.counted[s] if self.counted[s] >= 0 else
                           (self.layouts[s].nerts() if self.layouts[s] is not None else None)
                           for s in range(self.seats)],
            "caller": None if self.caller < 0 else self.caller,
            "last_hand": list(self.rounds[-1]) if self.rounds else None,
            "scores": self.scores, "over": self.over, "winner": self.winner,
        }
        if seat is not None and self.layouts[seat] is not None:
            out["layout"] = self.layouts[seat].view(self.card_code)
        return out

    def dump(self):
        out = self.view(None)
        fmt = self.card_code
        out["rules"] = dict(self.rules)
        out["piles"] = [[[fmt(c), t] for c, t in p] for p in self.piles]
        out["layouts"] = [None if lay is None else lay.dump(fmt) for lay in self.layouts]
        out["end_t"] = self.end_t
        out["counted"] = list(self.counted)
        out["ops"] = list(self.ops)
        out["last"] = [None if x is None else
                       [fmt(x[0]), x[1], None if x[2] is None else list(x[2])] for x in self.last]
        out["idle"] = list(self.idle)
        out["stuck_at"] = self.stuck_at
        out["rounds"] = [list(r) for r in self.rounds]
        return out


def _into(t):
    """A round's time in words: 6388 -> '6.4 s into the round' (host only)."""
    if type(t) is not int or t < 0:
        return "at %s" % (t,)
    t = (t + 50) // 100
    return "%d.%d s into the round" % (t // 10, t % 10)
