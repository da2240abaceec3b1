"""The deal pad: every card dealt across it is assigned by the game's deal pattern."""
# The dealer deals the whole deal across one reader (the zone with the ``deal`` role) in the
# game's own order (``DEAL_PATTERN`` in its rules module). Each card read there is the next
# card of the pattern; the last one deals the hand with every pile known. A card read twice,
# a card of another deck or a deal ended short is a misdeal: the pad flashes, the link says
# why, and the deal starts over (nothing is guessed). Loaded when a card crosses a deal pad;
# it imports nothing, so unloading the table's modules frees them (a test switching games).


def total(g):
    """How many cards cross the pad in one deal of g."""
    n = 0
    for pile, k in g.deal_pattern():
        n += _count(g, pile, k, n)
    return n


def _count(g, pile, k, dealt):
    if k is None:
        return len(g.CARDS) - dealt
    return k * g.seats if pile[:5] == "hands" else k


def piles(g, cards):
    """The deal's piles from the cards in the order they crossed the pad."""
    seats = g.seats
    first = (g.dealer + 1) % seats if g.HAS_DEALER else 0
    out = {}
    pos = 0
    for pile, k in g.deal_pattern():
        if pile[:5] == "hands":  # one per seat ("hands2": Nexus' round 2, set aside face down)
            hands = out.get(pile)
            if hands is None:
                hands = [[] for _ in range(seats)]
                out[pile] = hands
            for i in range(seats):
                hands[(first + i) % seats].extend(cards[pos:pos + k])
                pos += k
        else:
            n = _count(g, pile, k, pos)
            out[pile] = list(cards[pos:pos + n])
            pos += n
    return out


def card(ctl, zone, led, c):
    """A card read on the deal pad while a deal is due: the next card of the pattern."""
    g = ctl.game
    if not g.dealing or g.over:
        return None  # cards passed over the pad during play are not the deal
    dealt = ctl.dealt
    if c in dealt:
        return misdeal(ctl, zone, led, "the %s was dealt twice (cards %d and %d)" % (
            g.card_code(c), dealt.index(c) + 1, len(dealt) + 1))
    dealt.append(c)
    now = ctl.clock.ticks_ms()
    n = total(g)
    if len(dealt) < n:
        ctl.feedback.flash(led, "accepted", now)
        ctl.link.send({"type": "dealt", "n": len(dealt), "of": n, "zone": zone})
        return None
    cards = dealt[:]
    ctl.dealt = []
    return ctl.play((None, "deal", piles(g, cards)), "deal pad", led, zone)


def misdeal(ctl, zone, led, why):
    """Report a misdeal and start the count again: the cards are gathered and dealt anew."""
    now = ctl.clock.ticks_ms()
    ctl.dealt = []
    ctl.feedback.flash(led, "rejected", now)
    ctl.feedback.sound("rejected", now)
    ctl.link.send({"type": "fault", "kind": "misdeal", "zone": zone,
                   "msg": "misdeal: %s; gather the cards, shuffle and deal again across the "
                          "pad" % why})
    ctl.refresh()
    return False, "misdeal: " + why, None


def short(ctl, zone, led):
    """The dealer says the deal is done before every card crossed the pad."""
    n = total(ctl.game)
    return misdeal(ctl, zone, led, "%d of the %d cards were dealt" % (len(ctl.dealt), n))
