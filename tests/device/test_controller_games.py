"""The controller's input mappings for the other games: Nonesuch bid and suit buttons and the
Excuse, the Nerts call button and count, the Fairies parade, selector and Nexus pad. (Their own
file: a MicroPython process that compiled every game's rules from source would run out of heap,
so the games are spread over test files; tests/device/test_controller.py has the rest.)"""
from support import stepped

from simtable import table


@stepped
def test_nonesuch_bid_buttons_the_excuse_and_a_lead_that_waits_for_its_suit():
    t = yield from table("pico-i2c-4seat", "nonesuch")
    g = t.ctl.game
    t.put("c", "AM")  # the up card deals; an ace fixes trump
    yield
    for b in ("k0", "k1", "k2", "k0"):  # some, most, none, some
        t.press(b)
        yield
    assert g.bids == ["some", "some", "most", "none"] and g.phase == "excuse"
    t.put("s2", "X")  # the Excuse laid on a play spot: that seat holds it
    assert g.history[-1] == (2, "excuse") and g.phase == "play" and g.turn == (1,)
    yield
    t.hal.place("s1", "4MS")  # a two-suit lead with no suit named yet
    t.run(3)
    assert t.kinds("verdict")[-1]["reason"] == "name the suit you lead: moons or suns"
    yield
    t.press("k4")  # "suit S": the card lying there is led as suns
    assert g.history[-1] == (1, "play", 12, 1) and g.turn == (2,)
    t.hal.lift("s1")
    t.run(4)
    assert len(g.history) == 7


@stepped
def test_the_scanner_watches_the_zone_that_takes_the_next_card():
    t = yield from table("pico-i2c-4seat", "nonesuch")
    reader = t.board.zone_reader
    sc = t.ctl.scanner
    assert sc.focus == (reader["c"], reader["d"])  # the up card or the deal pad deals the hand
    t.put("c", "AM")
    for b in ("k0", "k1", "k2", "k0"):
        t.press(b)
    yield
    assert sc.focus == ()  # the Excuse may lie on any play spot: no zone is favoured
    t.put("s2", "X")
    assert t.ctl.game.turn == (1,) and sc.focus == (reader["s1"],)
    yield
    t.hal.place("s1", "4MS")
    t.run(12)
    t.press("k4")
    assert t.ctl.game.turn == (2,) and sc.focus == (reader["s2"],)  # the focus follows the turn


@stepped
def test_nerts_button_starts_the_round_calls_and_counts():
    t = yield from table("pico-nerts-6", "nerts")
    g = t.ctl.game
    t.press("n0")  # any Nerts button starts the round
    assert g.history == [(None, "deal", {})] and g.phase == "play"
    yield
    t.hal.clock.advance(1500)
    t.put("f2", "AS#2")  # seat 2's ace to the centre, timed from the round start
    seat, verb, card, ms = g.history[-1]
    assert (seat, verb) == (2, "center") and 1500 <= ms <= 1600
    yield
    t.press("n3")  # seat 3 calls Nerts
    assert g.history[-1][:2] == (3, "nerts") and g.phase == "count"
    for code in ("2H#1", "9C#1", "KD#1"):  # seat 1 lays its nerts left on its zone
        t.put("l1", code)
        yield
    t.press("n1")
    assert g.history[-1] == (1, "left", 3)


@stepped
def test_fairies_parade_deals_and_the_selector_places_a_sown_card():
    t = yield from table("pico-i2c-2seat", "fairies")
    g = t.ctl.game
    t.put("s1", "7")  # player 2's Parade card deals the game
    assert g.history == [(None, "deal", {"parade": [7]})]
    yield
    t.hal.turn("sel", 3)
    t.run(1)
    t.put("k", "12")  # sown at the selector's position
    assert g.history[-1] == (0, "sow", 12, 3)
    yield
    t.put("c", "9")  # the Nexus card player 2 meditates on, shown on the Nexus pad
    assert g.history[-1] == (1, "meditate", None, 9)
    t.press("ok")  # meditate on a Nexus card the table has not seen: it must be shown
    assert "show it" in t.kinds("verdict")[-1]["reason"]
