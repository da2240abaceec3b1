"""The NEXUS-Fairies deck: numbered cards 1..30 and Mushrooms M1..M6 (cards 31..36)."""
from cardtable.cards import BadCard
from cardtable.compat import const

MUSHROOM0 = const(30)
DECK = tuple(range(1, 37))
SUIT_NAMES = ()
_HELP = "expected a number 1-30 or a Mushroom M1-M6"


def is_mushroom(c):
    """True for the six Mushrooms."""
    return c > MUSHROOM0


def number(c):
    """The printed number 1..30, or 0 for a Mushroom."""
    return 0 if c > MUSHROOM0 else c


def parse(code):
    """Card from '7' or 'M3'; raises BadCard."""
    text = str(code).strip().upper() if isinstance(code, (str, int)) else ""
    if text.isdigit() and 1 <= int(text) <= 30 and not text.startswith("0"):
        return int(text)
    if len(text) == 2 and text[0] == "M" and text[1] in "123456":
        return MUSHROOM0 + int(text[1])
    raise BadCard("bad Fairies card %r: %s" % (code, _HELP))


def fmt(c):
    """Canonical code."""
    if 1 <= c <= 30:
        return str(c)
    if MUSHROOM0 < c <= MUSHROOM0 + 6:
        return "M" + str(c - MUSHROOM0)
    raise BadCard("no Fairies card has the number %r" % (c,))


def parse_suit(s):
    """Fairies cards have no suits."""
    raise BadCard("Fairies cards have no suits")


def fmt_suit(s):
    """Fairies cards have no suits."""
    raise BadCard("Fairies cards have no suits")


pretty = fmt
