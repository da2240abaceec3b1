"""Card codes for every deck family: parse a code to a small int and format it back."""
# Each deck module has ``parse(code) -> int``, ``fmt(card) -> str``, ``parse_suit(s) -> int``,
# ``fmt_suit(suit) -> str``, ``SUIT_NAMES`` and ``DECK`` (the full deck as a tuple of ints).


class BadCard(ValueError):
    """A card code that names no card of the deck."""


def deck(name):
    """The deck module called name: 'standard', 'decktet' or 'fairies'."""
    if name == "standard":
        from cardtable.cards import standard as m
    elif name == "decktet":
        from cardtable.cards import decktet as m
    elif name == "fairies":
        from cardtable.cards import fairies as m
    else:
        raise ValueError("unknown deck %r" % (name,))
    return m
