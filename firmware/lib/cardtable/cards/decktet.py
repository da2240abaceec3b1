"""The Decktet: six suits, Ace 1 .. 9, Crowns (rank 10), and the Excuse (the basic deck + Excuse)."""
# Suits in card-code order: Moons M, Suns S, Waves W, Leaves L, Wyrms Y, Knots K (suit numbers 0..5).
# Codes: an Ace is ``A`` + its suit (``AM``), a number card its rank then its suits in that order
# (``4MS`` is the Mountain), a Crown ``C`` + its suit (``CM``), the Excuse ``X``. Names such as
# "Mountain" or "Chance Meeting" are accepted as aliases. A card is an index into ``CARDS``.
from cardtable.cards import BadCard
from cardtable.compat import const

MOONS = const(0)
SUNS = const(1)
WAVES = const(2)
LEAVES = const(3)
WYRMS = const(4)
KNOTS = const(5)
CROWN = const(10)
EXCUSE = const(36)

SUIT_LETTERS = "MSWLYK"
SUIT_NAMES = ("moons", "suns", "waves", "leaves", "wyrms", "knots")

# (rank, suits as a string of suit letters, name); the index is the card number.
CARDS = (
    (1, "M", ""), (1, "S", ""), (1, "W", ""), (1, "L", ""), (1, "Y", ""), (1, "K", ""),
    (2, "MK", "Author"), (2, "SY", "Desert"), (2, "WL", "Origin"),
    (3, "MW", "Journey"), (3, "SK", "Painter"), (3, "LY", "Savage"),
    (4, "MS", "Mountain"), (4, "WL", "Sailor"), (4, "YK", "Battle"),
    (5, "ML", "Forest"), (5, "SW", "Discovery"), (5, "YK", "Soldier"),
    (6, "MW", "Lunatic"), (6, "SY", "Penitent"), (6, "LK", "Market"),
    (7, "ML", "Chance Meeting"), (7, "SK", "Castle"), (7, "WY", "Cave"),
    (8, "MS", "Diplomat"), (8, "WL", "Mill"), (8, "YK", "Betrayal"),
    (9, "MS", "Pact"), (9, "WY", "Darkness"), (9, "LK", "Merchant"),
    (10, "M", "Huntress"), (10, "S", "Bard"), (10, "W", "Sea"), (10, "L", "End"),
    (10, "Y", "Calamity"), (10, "K", "Windfall"),
    (0, "", "Excuse"),
)
# The code of each card, by number (a literal: kept in flash by a frozen image, no allocation).
CODES = ("AM", "AS", "AW", "AL", "AY", "AK", "2MK", "2SY", "2WL", "3MW", "3SK", "3LY",
         "4MS", "4WL", "4YK", "5ML", "5SW", "5YK", "6MW", "6SY", "6LK", "7ML", "7SK", "7WY",
         "8MS", "8WL", "8YK", "9MS", "9WY", "9LK", "CM", "CS", "CW", "CL", "CY", "CK", "X")
DECK = tuple(range(37))
# Each card's suits as bits (1 << suit number), by number: a literal as CODES is.
SUIT_BITS = b'\x01\x02\x04\x08\x10 !\x12\x0c\x05"\x18\x03\x0c0\t\x060\x05\x12(\t"\x14\x03\x0c0\x03\x14(\x01\x02\x04\x08\x10 \x00'
_HELP = "expected A+suit (AM), rank+suits (4MS), C+suit (CM), X, or a card name like Mountain"


def rank(c):
    """Rank 1..10 (Ace 1, Crown 10); 0 for the Excuse."""
    return CARDS[c][0]


def suits(c):
    """The card's suits as a tuple of suit numbers."""
    return tuple(SUIT_LETTERS.index(ch) for ch in CARDS[c][1])


def has_suit(c, s):
    """True if card c carries suit s."""
    return s >= 0 and SUIT_BITS[c] >> s & 1 == 1


def name(c):
    """The card's Decktet name ('Ace of Moons' for an Ace)."""
    r, ss, n = CARDS[c]
    if n:
        return n
    word = SUIT_NAMES[SUIT_LETTERS.index(ss)]
    return "Ace of " + word[0].upper() + word[1:]   # MicroPython's str has no capitalize()


def _squash(text):
    return "".join(ch for ch in text.lower() if ch.isalpha() or ch.isdigit())


def parse_suit(s):
    """Suit number from a letter (M S W L Y K) or a name."""
    t = str(s).strip().lower()
    for i in range(6):
        if t == SUIT_LETTERS[i].lower() or t == SUIT_NAMES[i] or t == SUIT_NAMES[i][:-1]:
            return i
    raise BadCard("bad suit %r: expected one of M S W L Y K (Moons Suns Waves Leaves Wyrms Knots)" % (s,))


def fmt_suit(s):
    """Suit letter."""
    return SUIT_LETTERS[s]


def parse(code):
    """Card from a code (AM, 4MS, CM, X) or a name (Mountain, the Excuse); raises BadCard."""
    if not isinstance(code, str) or not code.strip():
        raise BadCard("bad Decktet card %r: %s" % (code, _HELP))
    text = code.strip().upper()
    if text == "X":
        return EXCUSE
    head, tail = text[0], text[1:]
    if head.isdigit() and len(text) >= 2:
        r, letters = int(head), tail
    elif head == "A" and len(tail) == 1:
        r, letters = 1, tail
    elif head == "C" and len(tail) == 1:
        r, letters = CROWN, tail
    else:
        r, letters = -1, ""
    if r > 0 and letters and all(ch in SUIT_LETTERS for ch in letters):
        for i in range(36):
            cr, cs, _ = CARDS[i]
            if cr == r and len(cs) == len(letters) and all(ch in cs for ch in letters):
                return i
        raise BadCard("no Decktet card %r: no rank-%d card has the suits %s" % (code, r, letters))
    key = _squash(code)
    if key.startswith("the"):
        key = key[3:]
    for i in range(37):
        if _squash(name(i)) == key:
            return i
    raise BadCard("bad Decktet card %r: %s" % (code, _HELP))


def fmt(c):
    """Canonical code of a card."""
    if not 0 <= c < 37:
        raise BadCard("no Decktet card has the number %r" % (c,))
    return CODES[c]


pretty = name
