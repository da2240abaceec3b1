"""The deal pad on the two-seat table: Nexus and California Jacks dealt across one reader in
their own order, a revoke refused the moment it is laid; Fairies' setup; a card dealt twice is
a misdeal; three cards a second, none missed or doubled."""
from support import stepped

from dealing import DEALT, deal, dealt_table, revoke_refused, shuffled
from simtable import table


@stepped
def test_nexus_revoke_refused_at_once():
    yield from revoke_refused(*DEALT[2])


@stepped
def test_california_jacks_revoke_refused_at_once():
    yield from revoke_refused(*DEALT[3])


@stepped
def test_fairies_dealt_through_the_pad():
    t, cards = yield from dealt_table(*DEALT[4], seed=4)
    g = t.ctl.game
    assert not g.dealing
    assert g.nexus == cards[0:7] and g.parade == [cards[7]]
    assert sorted(g.hands[0]) == sorted(cards[8:11]) and sorted(g.hands[1]) == sorted(cards[11:14])
    assert g.deck_cards == cards[14:36]


@stepped
def test_a_card_dealt_twice_is_a_misdeal():
    t = yield from table("pico-i2c-2seat", "nexus", game="nexus")
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
    assert not t.ctl.game.dealing and len(cards) == 42


@stepped
def test_dealing_three_cards_a_second_misses_and_doubles_nothing():
    """A card every 333 ms, 120 ms over the pad: each read once, the deal is whole."""
    from cardtable.table import dealpad

    t = yield from table("pico-i2c-2seat", "california-jacks", game="california-jacks")
    g = t.ctl.game
    cards = shuffled(g, 8)[:dealpad.total(g)]
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
