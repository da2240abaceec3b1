"""Deal-pad helpers for the device tests (both runtimes): deal a pack across the pad, do a
known-hand action at the table, find a revoke to lay; split over files by board, so each
MicroPython run loads one board and few games."""
from simtable import table

# (game, board, layout) of each table with a deal pad
DEALT = (("fortyfives", "pico-i2c-4seat", "fortyfives-dealt"),
         ("nonesuch", "pico-i2c-4seat", "nonesuch"),
         ("nexus", "pico-i2c-2seat", "nexus"),
         ("california-jacks", "pico-i2c-2seat", "california-jacks"),
         ("fairies", "pico-i2c-2seat", "fairies"))


def shuffled(g, seed):
    from cardtable.rng import Random

    return Random(seed).shuffle(list(g.CARDS))


def deal(t, seed=1, upto=None):
    """Deal a shuffled pack across the pad (a step per card); returns the cards in order."""
    from cardtable.table import dealpad

    g = t.ctl.game
    cards = shuffled(g, seed)[:dealpad.total(g)]
    pad = t.zone("deal")
    for c in cards[:upto]:
        t.put(pad, g.card_code(c))
        yield
    return cards


def perform(t, a):
    """A known-hand action done at the table with buttons, pads and taps."""
    g = t.ctl.game
    verb = a[1]
    if verb == "play":
        if len(a) > 3 and a[3] is not None:
            t.press(t.button("suit " + g.deck.fmt_suit(a[3])))
        t.put(t.zone("play", a[0]), g.card_code(a[2]))
    elif verb == "excuse":
        t.put(t.zone("play", a[0]), "X")
    elif verb in ("bid", "pass"):
        t.press(t.button(verb if verb == "pass" else "bid %s" % a[2]))
    elif verb == "trump":
        t.press(t.button(("trump " if g.ID == "fortyfives" else "suit ") + g.deck.fmt_suit(a[2])))
    elif verb == "discard":
        for c in g.hands[a[0]][5:]:  # keep the first five
            t.put(t.zone("kitty"), g.card_code(c))
        t.tap(a[0])
    else:
        raise AssertionError("no way to do %r at the table" % (a,))


def illegal(g):
    """(seat, card) of a revoke the seat to play could lay now, or None."""
    if g.phase != "play" or not g.trick:
        return None
    seat = g.turn[0]
    legal = [a[2] for a in g.legal(seat)]
    for c in g.hands[seat]:
        if c not in legal:
            return seat, c
    return None


def dealt_table(game, board, layout, seed):
    t = yield from table(board, layout, game=game)
    assert t.ctl.game.dealing and t.ctl.deal_zone == "d"
    cards = yield from deal(t, seed)
    return t, cards


def revoke_refused(game, board, layout):
    from cardtable.rng import Random

    t, cards = yield from dealt_table(game, board, layout, 3)
    g = t.ctl.game
    assert not g.dealing, t.kinds("fault")
    assert all(g.known), "every hand is known after the pad deal"
    from cardtable.table import dealpad

    want = dealpad.piles(g, cards)["hands"]
    for s in range(g.seats):
        assert sorted(g.hands[s]) == sorted(want[s])
    # the spectator's view never holds a hand
    assert '"hand"' not in t.last_state and '"hands"' not in t.last_state
    rng = Random(5)
    for _ in range(200):
        bad = illegal(g)
        if bad is not None:
            break
        perform(t, g.bot_action(rng))
        yield
    assert bad is not None, "no chance to revoke in 200 actions"
    seat, card = bad
    n = len(g.history)
    before = len(t.kinds("verdict"))
    t.put(t.zone("play", seat), g.card_code(card))
    verdicts = t.kinds("verdict")[before:]
    assert len(g.history) == n, "the revoke was not played"
    assert verdicts and verdicts[-1]["action"]["card"] == g.card_code(card), verdicts
    assert "must" in verdicts[-1]["reason"] or "follow" in verdicts[-1]["reason"], verdicts[-1]


