"""NEXUS-Fairies: two players meditate on the Nexus row or sow chaos into it; parades score.

As refereed (research/rules-decisions.md section 2):
- Deal: 7 cards face up to the Nexus (a row, its top card first), 1 card to player 2's Parade (the
  Active Parade), 3 to each hand, 22 face down in the Deck. Seat 0 is player 1 and moves first;
  then the players alternate, one action each.
- Meditate: resolve the top card of the Nexus by the Laws of the Fairy Court: a higher number
  follows a lower one, a Mushroom follows any number, any number follows a Mushroom, a Mushroom
  never follows a Mushroom. A card that follows joins the Active Parade; one that does not
  starts a new Parade for the player whose Parade is empty, and the old Parade goes whole to
  its owner's Score Zone (F4, F5). Then, if the Nexus is down to 2 cards, 2 cards go from the
  Deck to its bottom, and the meditating player draws 1 (F1, F3).
- Sow Chaos: a card from your hand into the Nexus at any place ``at``: on top (0), between two
  cards, or below the bottom card (the Nexus's length) (F8).
- The game ends when the Deck is empty, after the action that emptied it is complete; a short
  refill deals what there is and a draw from an empty Deck is skipped (F2).
- Scoring, per parade in a Score Zone: (sum of the card values, a mushroom-count card being worth
  the Mushrooms in its parade) x the product of the parade's multipliers (x2, swap = x-1,
  zero = x0). Multipliers act only inside their own parade. Cards in hands, the Nexus and the
  Active Parade score nothing. The higher total wins; equal totals are a draw (F6).
- Double-ended variant (F9): Meditate resolves the top or the bottom card (``end``) and refills
  go into the middle of the Nexus (after its first half, rounded down).

Examples from the rule book (the table is tested against each, as written):
- Meditation Example: the 8 starts player 2's Parade; the 24, 13, 9, 28, a Mushroom, the 25
  and the 19 resolve in turn, each player meditating; the Nexus refills after the Mushroom and
  again after the 19.
- SOW CHAOS! Example: from the same start, player 1 sows the 20 on top of the Nexus.
- The eight Scoring Examples, from "3 + 1 + 0 + 2: worth 6 points" to
  "(3 + 2 + 2 + -2 + 0) x 0: worth 0 points", each with its printed total.
- Notes: an odd number of cards in the Nexus means player 1's turn, even player 2's; the Nexus
  plus both hands hold 13 cards, 2 more for each refill.

Card values are data. The printed values of the real deck are not public (2a): ``DEFAULT_VALUES``
below is a PROVISIONAL table that only satisfies the constraints the seed implies. A record or a
table overrides any card with the ``values`` option (code -> "+2", "-1", "0", "x2", "swap",
"zero", "mushrooms"); ``read_values(path)`` loads such a dict from a JSON file and a card tag
may carry its printed value ("7:+2", see ``parse_tagged``). Every table is validated by
``deck_table``: each value parses, stars/skulls within -9..+9, at least two x2, at least two
swap, exactly one zero, at least two mushroom-count cards.

Rule options:

| option               | default (seed)    | variant                                     | id |
|----------------------|-------------------|---------------------------------------------|----|
| ``values``           | {}: the built-in  | the deck's printed values, code -> value    | 2a |
|                      | provisional table |                                             |    |
| ``double_ended``     | False             | True: meditate top or bottom, refill middle | F9 |
| ``refill_then_draw`` | True              | False: draw first, then refill              | F1 |
| ``mushroom_bridge``  | True: any number  | False: a number after a Mushroom must still | F4 |
|                      | follows a Mushroom| beat the parade's last number               |    |
| ``new_parade_to``    | "empty": the side | "meditator": the meditating player's        | F5 |
|                      | with no Parade    |                                             |    |

Fixed by the seed, no option: refill 2 when the Nexus is down to exactly 2 (F3, F10: not the
base NEXUS's refill of 4 when empty); the end after the complete action (F2); a tie is a draw (F6).

Verbs: ``meditate`` (``end``: "top"/"bottom", only in the double-ended variant, required there;
``card``: the card resolved, optional when the table knows that Nexus card, required when it
does not), ``sow`` (``card``, ``at``). Deal piles: ``nexus`` (7, top first), ``parade``
(1, player 2's; required: the table must see it), ``hands`` (two lists of 3), ``deck``
(22, top first). Any pile but ``parade`` may be left out and any card in a pile may be null.

Known and unknown cards: the table locates every card it has seen (``where``). With a scanned
deal every action is checked at once. With unseen hands a sown card must be one the table has not
located elsewhere, and a hand whose unseen cards are used up is known; with an unseen Deck refills
and draws are unseen cards, and a meditate that resolves an unseen Nexus card must name it.
There are no follow obligations, so nothing is legal now and disproven later: a card the table
has already located (naming the move where it was seen) is rejected at once.
Hidden information: hands hidden (sizes public), Nexus and Active Parade face up, Score Zones face
down (sizes public, totals once the game is over), Deck face down (count public).
"""
from binascii import hexlify

from cardtable.cards import BadCard
from cardtable.cards import fairies as fc
from cardtable.compat import const
from cardtable.games import seat_range
from cardtable.games.base import ONE, Game

_HIDDEN = const(0)       # where[]: not yet seen (a hidden hand or the hidden deck)
_IN_NEXUS = const(10)    # where[] codes above the seats (seat s in hand = s + 1)
_IN_PARADE = const(11)
_IN_ZONE = const(12)
_IN_DECK = const(13)

_PLACES = {_IN_NEXUS: "is in the Nexus", _IN_PARADE: "is in the Active Parade",
           _IN_ZONE: "is in a Score Zone", _IN_DECK: "is in the Deck"}
_SIZES = (("nexus", 7), ("parade", 1), ("hands", 3), ("deck", 22))

# PROVISIONAL values (the real deck's are unpublished): cards 1..30, then M1..M6.
DEFAULT_VALUES = (
    "+1", "-1", "+2", "-2", "+3", "0", "+2", "-3", "-1", "x2",             # 1..10
    "+1", "-2", "+3", "swap", "+1", "-1", "+2", "0", "-3", "x2",           # 11..20
    "+3", "zero", "-2", "+1", "swap", "-1", "+2", "-3", "+3", "-2",        # 21..30
    "mushrooms", "mushrooms", "+1", "-1", "0", "+2",                       # M1..M6
)

# A parsed value is (base, multiplier, counts_mushrooms).
_KINDS = {"x2": (0, 2, 0), "swap": (0, -1, 0), "zero": (0, 0, 0), "mushrooms": (0, 1, 1)}
_ALIASES = {"\u00d72": "x2", "*2": "x2", "x-1": "swap", "\u00d7-1": "swap", "*-1": "swap",
            "x0": "zero", "\u00d70": "zero", "*0": "zero", "mushroom": "mushrooms"}
_MAX_STARS = const(9)


def parse_value(text):
    """(base, multiplier, counts_mushrooms) of a value like '+2', '-1', 'x2', 'swap'; ValueError."""
    t = str(text).strip().lower() if isinstance(text, (str, int)) else ""
    t = _ALIASES.get(t, t)
    if t in _KINDS:
        return _KINDS[t]
    digits = t[1:] if t[:1] in ("+", "-") else t
    if digits.isdigit():
        n = int(digits)
        if n > _MAX_STARS:
            raise ValueError("card value %r is out of range -%d..+%d"
                             % (text, _MAX_STARS, _MAX_STARS))
        return (-n if t[0] == "-" else n, 1, 0)
    raise ValueError("bad card value %r: expected +n, -n, 0, x2, swap, zero or mushrooms" % (text,))


def value_text(v):
    """Canonical text of a parsed value."""
    base, mult, counts = v
    if counts:
        return "mushrooms"
    if mult == 2:
        return "x2"
    if mult == -1:
        return "swap"
    if mult == 0:
        return "zero"
    return "+%d" % base if base > 0 else str(base)


def deck_table(values=None):
    """Validated value table, a tuple indexed by card (0 unused): the defaults overridden."""
    texts = list(DEFAULT_VALUES)
    if values is not None and not isinstance(values, dict):
        raise ValueError("the values table is a dict of card code -> value, not %r" % (values,))
    for code in values or {}:
        try:
            c = fc.parse(code)
        except BadCard as e:
            raise ValueError("values: %s" % e)
        texts[c - 1] = values[code]
    table = [None]
    for i in range(36):
        try:
            table.append(parse_value(texts[i]))
        except ValueError as e:
            raise ValueError("values: the %s: %s" % (fc.fmt(i + 1), e))
    check_table(table)
    return tuple(table)


def check_table(table):
    """Raise ValueError naming every seed constraint the parsed table breaks."""
    kinds = {"x2": [], "swap": [], "zero": [], "mushrooms": []}
    for c in range(1, 37):
        t = value_text(table[c])
        if t in kinds:
            kinds[t].append(fc.fmt(c))
    problems = []
    for kind, exact, want in (("x2", 0, 2), ("swap", 0, 2), ("zero", 1, 1), ("mushrooms", 0, 2)):
        have = kinds[kind]
        if len(have) < want or exact and len(have) != want:
            problems.append("the seed needs %s %d %s card%s, this table has %d%s"
                            % ("exactly" if exact else "at least", want, kind,
                               "" if want == 1 else "s", len(have),
                               " (" + ", ".join(have) + ")" if have else ""))
    if problems:
        raise ValueError("bad deck table: " + "; ".join(problems))


def score_parade(cards, table):
    """Score of one parade: (sum of values, mushroom-count = Mushrooms in it) x its multipliers."""
    mushrooms = 0
    for c in cards:
        if fc.is_mushroom(c):
            mushrooms += 1
    total = 0
    mult = 1
    for c in cards:
        base, m, counts = table[c]
        total += mushrooms if counts else base
        mult *= m
    return total * mult


def parse_tagged(text):
    """(card, canonical value or None) from a tag text such as '7:+2', 'M1:mushrooms' or '7'."""
    t = str(text).strip()
    i = t.find(":")
    code, value = (t, None) if i < 0 else (t[:i], t[i + 1:])
    card = fc.parse(code)
    if value is None:
        return card, None
    try:
        return card, value_text(parse_value(value))
    except ValueError as e:
        raise ValueError("tag %r: %s" % (text, e))


def values_from_tags(texts):
    """The values dict (code -> value) carried by a deck's tag texts; validated as a whole."""
    out = {}
    for text in texts:
        card, value = parse_tagged(text)
        if value is not None:
            out[fc.fmt(card)] = value
    deck_table(out)
    return out


def read_values(path):
    """A values dict from a JSON file ({"7": "+2", "M1": "mushrooms", ...}); validated."""
    import json
    with open(path) as f:
        values = json.load(f)
    if not isinstance(values, dict):
        raise ValueError("%s: a deck table is a JSON object of card code -> value" % path)
    deck_table(values)
    return values


def can_join(parade, c, bridge=True):
    """True if card c may follow the Active Parade by the Laws of the Fairy Court."""
    last = parade[-1]
    if fc.is_mushroom(c):
        return not fc.is_mushroom(last)
    if not fc.is_mushroom(last):
        return c > last
    if bridge:
        return True
    for p in reversed(parade):
        if not fc.is_mushroom(p):
            return c > p
    return True


class Fairies(Game):
    """NEXUS-Fairies for two players."""

    ID = "fairies"
    TITLE = "NEXUS-Fairies"
    DECK = "fairies"
    SEATS = seat_range("fairies")  # its registry entry (games/__init__.py)
    CONFIRM = "meditate"
    HAS_DEALER = False
    CARDS = fc.DECK
    OPTIONS = {
        "values": {},
        "double_ended": False,
        "refill_then_draw": True,
        "mushroom_bridge": True,
        "new_parade_to": "empty",
    }
    VERBS = {"deal": ("piles",), "meditate": ("end?", "card?"), "sow": ("card", "at")}
    PILES = ("nexus", "parade", "hands", "deck")
    PUBLIC_PILES = ("nexus", "parade")
    PRIVATE_PLACES = ("is in seat ", "is in the Deck")  # where _located says a hidden card is
    # the setup order: the Nexus (7), player 2's Parade card, 3 each, the rest is the Deck
    DEAL_PATTERN = (("nexus", 7), ("parade", 1), ("hands", 3), ("deck", None))
    PHASES = (("play", "the play", "play", ("meditate", "sow")),)  # one action each in turn

    def __init__(self, seats=2, dealer=0, rules=None):
        self.table = None
        Game.__init__(self, seats, dealer, rules)

    @classmethod
    def check_rule_values(cls, rules):
        if not isinstance(rules["values"], dict):
            raise ValueError("rule option 'values' takes a dict of card code -> value, not %r"
                             % (rules["values"],))
        deck_table(rules["values"])
        cls.check_choices(rules, (("new_parade_to", ("empty", "meditator")),))

    def reset_table(self, t):
        """The table's scratch for this game's inputs, cleared for each new game (table/inputs.py)."""
        t.at = 0  # the position selector

    def reset(self):
        if self.table is None:
            self.table = deck_table(self.rules["values"])
        self.phase = "deal"
        self.over = False
        self.winner = None
        self.nexus = []                 # top first; 0 = a card the table has not seen
        self.parade = []                # the Active Parade, first card first
        self.owner = 1                  # whose the Active Parade is
        self.zones = [[], []]           # per seat: parades (tuples) in its Score Zone
        self.zone_scores = [[], []]
        self.hands = [[], []]           # cards the table knows each seat holds
        self.unseen = [0, 0]            # cards each seat holds that the table has not seen
        self.deck_cards = []            # the Deck, top first; 0 = unseen
        self.where = bytearray(37)      # card -> _HIDDEN (0), seat + 1, or an _IN_ place
        self.seen_at = bytearray(37)    # card -> move (1-based, 0 = the deal) it was first seen
        self.moves = 0
        self.refills = 0
        self.refilled = 0               # cards dealt to the Nexus by refills

    @property
    def turn(self):
        if self.phase != "play":
            return ()
        return ONE[self.moves % 2]

    @property
    def held(self):
        return [len(self.hands[s]) + self.unseen[s] for s in (0, 1)]

    @property
    def scores(self):
        return [sum(self.zone_scores[0]), sum(self.zone_scores[1])]

    # -- where the table has seen a card ------------------------------------------------------
    def _see(self, c, place):
        if self.where[c] == _HIDDEN and not self.seen_at[c]:
            self.seen_at[c] = 0 if self.dealing else min(self.moves + 1, 255)
        self.where[c] = place

    def _located(self, c):
        """Why card c cannot come out of hiding: where the table saw it."""
        w = self.where[c]
        code = fc.fmt(c)
        when = " (seen on move %d)" % self.seen_at[c] if self.seen_at[c] else " (seen in the deal)"
        if w <= 2:
            return "the %s is in seat %d's hand%s" % (code, w - 1, when)
        return "the %s %s%s" % (code, _PLACES[w], when)

    # -- the deal -------------------------------------------------------------------------
    def check_deal(self, action):
        piles = action[2]
        if isinstance(piles, dict):
            parade = piles.get("parade")
            if not isinstance(parade, (list, tuple)) or len(parade) != 1 or parade[0] is None:
                return "the deal must show the one card of player 2's Parade"
        return self.check_deal_piles(piles, _SIZES, True)

    def deal_reason(self, kind, name, want, got, seat):
        if kind == "hands":
            return "the deal has hands for 2 seats"
        return "the %s pile must hold %d cards" % (name, want)

    def do_deal(self, action):
        piles = action[2]
        nexus = piles.get("nexus") or [None] * 7
        self.nexus = [c or 0 for c in nexus]
        self.parade = [piles["parade"][0]]
        self.owner = 1
        hands = piles.get("hands") or (None, None)
        for s in (0, 1):
            h = hands[s] or (None, None, None)
            self.hands[s] = [c for c in h if c]
            self.unseen[s] = 3 - len(self.hands[s])
            for c in self.hands[s]:
                self._see(c, s + 1)
        deck = piles.get("deck") or [None] * 22
        self.deck_cards = [c or 0 for c in deck]
        for c in self.nexus:
            if c:
                self._see(c, _IN_NEXUS)
        self._see(self.parade[0], _IN_PARADE)
        for c in self.deck_cards:
            if c:
                self._see(c, _IN_DECK)
        self.phase = "play"
        return [{"ev": "deal", "nexus": self._codes(self.nexus), "parade": self._codes(self.parade),
                 "seat": self.owner}]

    def random_deal(self, rng):
        cards = rng.shuffle(list(self.CARDS))
        return (None, "deal", {"nexus": cards[0:7], "parade": cards[7:8],
                               "hands": [cards[8:11], cards[11:14]], "deck": cards[14:36]})

    # -- meditate -------------------------------------------------------------------------
    def check_meditate(self, action):
        end, card = action[2], action[3]
        if end is None:
            if self.rules["double_ended"]:
                return "say which end of the Nexus to meditate on: top or bottom"
            end = "top"
        elif end not in ("top", "bottom"):
            return "end is top or bottom, not %r" % (end,)
        elif end == "bottom" and not self.rules["double_ended"]:
            return "only the double-ended variant meditates on the bottom card"
        if not self.nexus:
            return "the Nexus is empty"
        slot = self.nexus[0] if end == "top" else self.nexus[-1]
        if card is None:
            return None if slot else \
                "the table has not seen the %s card of the Nexus: show it" % end
        reason = self.card_reason(card)
        if reason:
            return reason
        if slot:
            if card != slot:
                return "the %s card of the Nexus is the %s, not the %s" \
                    % (end, fc.fmt(slot), fc.fmt(card))
            return None
        return self._located(card) if self.where[card] != _HIDDEN else None

    def do_meditate(self, action):
        seat, end, card = action[0], action[2] or "top", action[3]
        c = self.nexus.pop(0 if end == "top" else len(self.nexus) - 1) or card
        self._see(c, _IN_PARADE)
        events = [{"ev": "meditate", "seat": seat, "card": fc.fmt(c), "end": end}]
        if can_join(self.parade, c, self.rules["mushroom_bridge"]):
            self.parade.append(c)
            events.append({"ev": "join", "seat": self.owner, "card": fc.fmt(c)})
        else:
            old = self.owner
            parade = tuple(self.parade)
            for p in parade:
                self.where[p] = _IN_ZONE
            self.zones[old].append(parade)
            self.zone_scores[old].append(score_parade(parade, self.table))
            self.owner = seat if self.rules["new_parade_to"] == "meditator" else 1 - old
            self.parade = [c]
            events.append({"ev": "parade", "seat": old, "cards": len(parade)})
            events.append({"ev": "new_parade", "seat": self.owner, "card": fc.fmt(c)})
        if self.rules["refill_then_draw"]:
            events.extend(self._refill())
            events.extend(self._draw(seat))
        else:
            events.extend(self._draw(seat))
            events.extend(self._refill())
        self.moves += 1
        if not self.deck_cards:
            self.phase = "over"
            s0, s1 = self.scores
            self.end(None if s0 == s1 else (0 if s0 > s1 else 1))
            events.append({"ev": "over", "scores": [s0, s1], "winner": self.winner})
        return events

    def _refill(self):
        if len(self.nexus) != 2 or not self.deck_cards:
            return []
        cards = []
        while self.deck_cards and len(cards) < 2:
            c = self.deck_cards.pop(0)
            if c:
                self._see(c, _IN_NEXUS)
            cards.append(c)
        at = len(self.nexus) // 2 if self.rules["double_ended"] else len(self.nexus)
        for i in range(len(cards)):
            self.nexus.insert(at + i, cards[i])
        self.refills += 1
        self.refilled += len(cards)
        return [{"ev": "refill", "cards": self._codes(cards), "at": at}]

    def _draw(self, seat):
        if not self.deck_cards:
            return []
        c = self.deck_cards.pop(0)
        if c:
            self.hands[seat].append(c)
            self.where[c] = seat + 1
        else:
            self.unseen[seat] += 1
        return [{"ev": "draw", "seat": seat}]

    # -- sow chaos ------------------------------------------------------------------------
    def check_sow(self, action):
        seat, card, at = action[0], action[2], action[3]
        reason = self.card_reason(card)
        if reason:
            return reason
        if type(at) is not int or not 0 <= at <= len(self.nexus):
            return "sow at a place 0..%d of the Nexus (0 = top), not %r" % (len(self.nexus), at)
        w = self.where[card]
        if w == seat + 1:
            return None
        if not self.held[seat]:
            return "you have no cards to sow"
        if w == _HIDDEN:
            return None if self.unseen[seat] else "you do not hold the %s" % fc.fmt(card)
        return self._located(card)

    def do_sow(self, action):
        seat, card, at = action[0], action[2], action[3]
        if self.where[card] == seat + 1:
            self.hands[seat].remove(card)
        else:
            self.unseen[seat] -= 1
        self.nexus.insert(at, card)
        self._see(card, _IN_NEXUS)
        self.moves += 1
        return [{"ev": "sow", "seat": seat, "card": fc.fmt(card), "at": at}]

    # -- the API --------------------------------------------------------------------------
    def legal(self, seat):
        if seat not in self.turn:
            return []
        out = []
        ends = ("top", "bottom") if self.rules["double_ended"] else (None,)
        for end in ends:
            a = (seat, "meditate", end, None)
            if self.check_meditate(a) is None:
                out.append(a)
        for c in self.hands[seat]:
            for at in range(len(self.nexus) + 1):
                out.append((seat, "sow", c, at))
        return out

    def _codes(self, cards):
        return [fc.fmt(c) if c else None for c in cards]

    # -- words ----------------------------------------------------------------------------
    def action_words(self, obj):
        from cardtable.games import words
        verb = obj.get("act")
        who = words.who(self, obj.get("seat"))
        if verb == "meditate":
            end = obj.get("end")
            return "%s meditates%s" % (who, " on the %s card" % end if end else "")
        if verb == "sow":
            at = obj["at"]
            where = "on top of the Nexus" if at == 0 else "into the Nexus at place %d" % (at + 1)
            return "%s sows chaos: %s %s" % (who, words.show(self, obj["card"]), where)
        return words.action_words(self, obj)

    def furniture(self, view, out):
        """The Nexus row and the Parade, whose it is, for the page (host only)."""
        from cardtable.games import words
        if view.get("nexus"):
            out["rows"].append({"label": "the Nexus", "cards": list(view["nexus"])})
        if view.get("parade"):
            owner = view.get("parade_owner")
            out["rows"].append({"label": "the Parade" + ("" if owner is None else
                                                          " (" + words.who(self, owner) + "'s)"),
                                "cards": list(view["parade"])})
        zones = view.get("zones") or []
        for s in range(len(out["seats"])):
            if s < len(zones) and zones[s]:
                out["seats"][s]["facts"].append(words.count_words(sum(zones[s]), "card")
                                                + " in the Score Zone")

    def describe(self, ev):
        from cardtable.games import words
        kind = ev.get("ev")
        if kind == "deal":
            return "the Nexus: %s; seat %d's Parade starts with %s" % (
                words.show_all(self, ev["nexus"]), ev["seat"], words.show_all(self, ev["parade"]))
        if kind == "meditate":
            return "the %s resolves" % words.show(self, ev["card"])
        if kind == "join":
            return "it joins seat %d's Parade" % ev["seat"]
        if kind == "parade":
            return "seat %d's Parade of %d card%s goes to its Score Zone" % (
                ev["seat"], ev["cards"], "" if ev["cards"] == 1 else "s")
        if kind == "new_parade":
            return "it starts a new Parade for seat %d" % ev["seat"]
        if kind == "refill":
            return "the Nexus refills from the Deck: %s" % words.show_all(self, ev["cards"])
        if kind == "draw":
            return "seat %d draws a card" % ev["seat"]
        return words.describe(self, ev)

    def view(self, seat=None):
        out = {
            "game": self.ID, "seats": 2, "phase": self.phase, "turn": list(self.turn),
            "dealt": not self.dealing,
            "rules": {"double_ended": self.rules["double_ended"]},
            "nexus": self._codes(self.nexus), "parade": self._codes(self.parade),
            "parade_owner": self.owner, "deck": len(self.deck_cards), "held": self.held,
            "zones": [[len(p) for p in self.zones[s]] for s in (0, 1)],
            "refills": self.refills, "moves": self.moves,
            "scores": self.scores if self.over else None,
            "over": self.over, "winner": self.winner,
        }
        if seat is not None:
            out["hand"] = self._codes(sorted(self.hands[seat]))
            out["unseen"] = self.unseen[seat]
        return out

    def dump(self):
        out = self.view(None)
        out["scores"] = self.scores
        out["hands"] = [self._codes(h) for h in self.hands]
        out["unseen"] = list(self.unseen)
        out["deck_cards"] = self._codes(self.deck_cards)
        out["zone_cards"] = [[self._codes(p) for p in self.zones[s]] for s in (0, 1)]
        out["zone_scores"] = [list(z) for z in self.zone_scores]
        out["where"] = hexlify(self.where).decode()
        out["seen_at"] = hexlify(self.seen_at).decode()
        out["refilled"] = self.refilled
        return out
