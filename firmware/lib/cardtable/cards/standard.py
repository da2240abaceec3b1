"""The standard 52-card deck plus two jokers, and Nerts' per-owner decks."""
# A card is ``suit * 13 + rank - 1`` with ranks 1 (ace) .. 13 (king) and suits clubs,
# diamonds, hearts, spades (0..3); the little joker is 52 and the big joker 53. A card from
# an owned deck (Nerts) adds ``(owner + 1) * 64``, so an int below 64 has no owner.
# Codes: ``AS KH QD JC 10S .. 2C``, ``LJ``/``BJ`` and ``AS#2`` for owner 2.
from cardtable.cards import BadCard
from cardtable.compat import const

CLUBS = const(0)
DIAMONDS = const(1)
HEARTS = const(2)
SPADES = const(3)
LJ = const(52)
BJ = const(53)
ACE = const(1)
JACK = const(11)
QUEEN = const(12)
KING = const(13)

SUIT_LETTERS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
SUIT_SYMBOLS = ("\u2663", "\u2666", "\u2665", "\u2660")
RANK_CODES = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
# The code of each card, by number: a literal, so a frozen image keeps it in flash, and
# formatting a card (every view formats every card it shows) allocates nothing.
CODES = ("AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC",
         "AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "10D", "JD", "QD", "KD",
         "AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH",
         "AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS",
         "LJ", "BJ")
DECK = tuple(range(52))
DECK_WITH_JOKERS = tuple(range(54))
_HELP = "expected rank A 2-10 J Q K then suit C D H S (e.g. 10H), or BJ/LJ"


def card(rank, suit):
    """The card of this rank (1..13) and suit (0..3)."""
    return suit * 13 + rank - 1


def suit(c):
    """Suit 0..3 of a card (4 for a joker), ignoring any owner."""
    return (c & 63) // 13


def rank(c):
    """Rank 1..13 of a card (ace 1, king 13); jokers are 14 (little) and 15 (big)."""
    c &= 63
    return c - 38 if c >= 52 else c % 13 + 1


def owner(c):
    """The owner seat of a Nerts card, or -1."""
    return (c >> 6) - 1


def plain(c):
    """The card without its owner."""
    return c & 63


def owned(c, seat):
    """The card from seat's own deck."""
    return (c & 63) + ((seat + 1) << 6)


def is_red(c):
    """True for diamonds and hearts."""
    s = suit(c)
    return s == DIAMONDS or s == HEARTS


def parse_suit(s):
    """Suit number from a letter (C D H S), a symbol or a name."""
    t = str(s).strip().lower()
    for i in range(4):
        if t == SUIT_LETTERS[i].lower() or t == SUIT_NAMES[i] or t == SUIT_NAMES[i][:-1] \
                or t == SUIT_SYMBOLS[i]:
            return i
    raise BadCard("bad suit %r: expected C, D, H or S" % (s,))


def fmt_suit(s):
    """Suit letter."""
    return SUIT_LETTERS[s]


def parse(code):
    """Card int from a code like '10H', 'as', 'BJ' or 'AS#2'; raises BadCard."""
    if not isinstance(code, str):
        raise BadCard("bad card code %r: %s" % (code, _HELP))
    text = code.strip().upper()
    own = 0
    if "#" in text:
        text, _, tail = text.partition("#")
        if not tail.isdigit() or len(tail) > 2:
            raise BadCard("bad card code %r: the owner after # must be a seat number" % (code,))
        own = (int(tail) + 1) << 6
    if text == "LJ":
        return LJ + own
    if text == "BJ":
        return BJ + own
    if len(text) < 2 or text[-1] not in SUIT_LETTERS:
        raise BadCard("bad card code %r: %s" % (code, _HELP))
    r = text[:-1]
    if r == "T":
        r = "10"
    for i in range(1, 14):
        if RANK_CODES[i] == r:
            return card(i, SUIT_LETTERS.index(text[-1])) + own
    raise BadCard("bad card code %r: %s" % (code, _HELP))


def fmt(c):
    """Canonical code of a card."""
    base = c & 63
    if base > BJ:
        raise BadCard("no card has the number %d" % c)
    if c >= 64:
        return CODES[base] + "#" + str((c >> 6) - 1)
    return CODES[base]


def pretty(c):
    """A code with the suit symbol, for people: '10♥'."""
    base = c & 63
    if base >= 52:
        return fmt(c)
    return RANK_CODES[base % 13 + 1] + SUIT_SYMBOLS[base // 13]
