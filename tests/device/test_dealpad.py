"""The deal pad: every trick game and Fairies dealt across one reader in the game's order; with
the hands known a revoke laid on the table is refused at once; misdeals are reported."""
from support import stepped

from simtable import scratch, table

# (game, board, layout) of each table with a deal pad
DEALT = (("fortyfives", "pico-i2c-4seat", "fortyfives-dealt"),
         ("nonesuch", "pico-i2c-4seat", "nonesuch-dealt"),
         ("nexus", "pico-i2c-2seat", "nexus-dealt"),
         ("california-jacks", "pico-i2c-2seat", "california-jacks-dealt"),
         ("fairies", "pico-i2c-2seat", "fairies-dealt"))


def _shuffled(g, seed):
    from cardtable.rng import Random

    return Random(seed).shuffle(list(g.CARDS))


def deal(t, seed=1, upto=None):
    """Deal a shuffled pack across the pad (a step per card); returns the cards in order."""
    from cardtable.table import dealpad

    g = t.ctl.game
    cards = _shuffled(g, seed)[:dealpad.total(g)]
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


def _dealt_table(game, board, layout, seed):
    root, keep = scratch()
    from cardtable.hal import FileStorage

    t = yield from table(board, layout, FileStorage(root), game=game)
    t._dir = keep
    assert t.ctl.game.dealing and t.ctl.deal_zone == "d"
    cards = yield from deal(t, seed)
    return t, cards


def _revoke_refused(game, board, layout):
    from cardtable.rng import Random

    t, cards = yield from _dealt_table(game, board, layout, 3)
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


@stepped
def test_fortyfives_revoke_refused_at_once():
    yield from _revoke_refused(*DEALT[0])


@stepped
def test_nonesuch_revoke_refused_at_once():
    yield from _revoke_refused(*DEALT[1])


@stepped
def test_nexus_revoke_refused_at_once():
    yield from _revoke_refused(*DEALT[2])


@stepped
def test_california_jacks_revoke_refused_at_once():
    yield from _revoke_refused(*DEALT[3])


@stepped
def test_fairies_dealt_through_the_pad():
    t, cards = yield from _dealt_table(*DEALT[4], seed=4)
    g = t.ctl.game
    assert not g.dealing
    assert g.nexus == cards[0:7] and g.parade == [cards[7]]
    assert sorted(g.hands[0]) == sorted(cards[8:11]) and sorted(g.hands[1]) == sorted(cards[11:14])
    assert g.deck_cards == cards[14:36]


@stepped
def test_forty_fives_stock_known_so_draws_are_known():
    t, cards = yield from _dealt_table(*DEALT[0], seed=6)
    g = t.ctl.game
    assert g.stock == cards[23:] and g.kitty == cards[12:15]


@stepped
def test_a_card_dealt_twice_is_a_misdeal():
    from cardtable.hal import FileStorage

    root, keep = scratch()
    t = yield from table("pico-i2c-2seat", "nexus-dealt", FileStorage(root), game="nexus")
    yield from deal(t, 2, upto=5)
    g = t.ctl.game
    again = g.card_code(t.ctl.dealt[1])
    t.put("d", again)
    faults = t.kinds("fault")
    assert faults and faults[-1]["kind"] == "misdeal", faults
    assert again in faults[-1]["msg"] and "twice" in faults[-1]["msg"]
    assert t.ctl.dealt == [] and g.dealing, "the deal starts over"
    assert t.led("d") != (0, 0, 0)
    cards = yield from deal(t, 2)  # dealt again, in full: the hand starts
    assert not t.ctl.game.dealing and len(cards) == 24


@stepped
def test_a_short_deal_and_a_card_of_another_deck_are_misdeals():
    from cardtable.hal import FileStorage

    root, keep = scratch()
    t = yield from table("pico-i2c-4seat", "nonesuch-dealt", FileStorage(root), game="nonesuch")
    yield from deal(t, 2, upto=7)
    t.tap(0)  # the dealer says done after 7 of 37 cards (9 each and the up card)
    f = t.kinds("fault")[-1]
    assert f["kind"] == "misdeal" and "7 of the 37" in f["msg"], f
    assert t.ctl.game.dealing
    yield from deal(t, 2, upto=3)
    t.put("d", "10H")  # a standard card in a Decktet deal
    f = t.kinds("fault")[-1]
    assert f["kind"] == "misdeal" and "no card" in f["msg"], f
    assert t.ctl.dealt == [] and t.ctl.game.dealing


@stepped
def test_dealing_three_cards_a_second_misses_and_doubles_nothing():
    """A card every 333 ms, 120 ms over the pad: each read once, the deal is whole."""
    from cardtable.hal import FileStorage
    from cardtable.table import dealpad

    root, keep = scratch()
    t = yield from table("pico-i2c-2seat", "california-jacks-dealt", FileStorage(root),
                         game="california-jacks")
    g = t.ctl.game
    cards = _shuffled(g, 8)[:dealpad.total(g)]
    t0 = t.hal.clock.ticks_ms()
    for c in cards:
        t.hal.place("d", g.card_code(c))
        t.run(12)
        t.hal.lift("d")
        t.run(21)
        yield
    secs = (t.hal.clock.ticks_ms() - t0) / 1000
    assert len(cards) / secs >= 3
    assert not t.kinds("fault"), t.kinds("fault")
    assert not g.dealing and g.stock == cards[12:]
