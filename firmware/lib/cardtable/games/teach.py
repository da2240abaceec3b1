"""Teaching: which cards of a seat's hand may be played now, and why not the others."""
# Nothing here is a rule: a card is marked when the game's legal(seat) has an action laying it,
# and every other card's reason is the game's check() of laying it now, in the game's own words.
# A game's card verb is its first verb whose first field is the card ("play", "sow", ...).


def card_verb(g):
    """The verb that lays one card from the hand, or None if the game has none."""
    for verb in g.VERBS:
        fields = g.VERBS[verb]
        if fields and fields[0] == "card":
            return verb
    return None


def marks(g, seat):
    """[[code, None or reason], ...] for each card of seat's known hand (its view's "hand"), or
    None when the table does not know the hand."""
    hand = g.view(seat).get("hand")
    verb = card_verb(g)
    if hand is None or verb is None:
        return None
    fields = len(g.VERBS[verb])
    legal = {}
    if g.turn_reason(seat, verb) is None:  # else no card is legal now: check() says why
        for a in g.legal(seat):
            if a[1] == verb:
                legal[a[2]] = True
    out = []
    for code in hand:
        if code is None:
            continue
        c = g.deck.parse(code)
        if c in legal:
            out.append([code, None])
        else:
            action = (seat, verb, c) + (None,) * (fields - 1)
            out.append([code, g.check(action) or "not now"])
    return out
