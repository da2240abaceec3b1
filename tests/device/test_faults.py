"""Faults at the table (hardware/README.md, "Faults at the table"): a reader that stops
answering, a card torn away mid-read, two tags on one pad, a foreign tag. Each is one named
`fault` on the link and one colour on the zone's LED, and nothing is played."""
from support import MICROPYTHON, stepped

from simtable import board, collect, loading, only_game, table


def emulator_fits():
    """CPython only: on MicroPython the emulator, the drivers and the table no longer fit in
    the 192 KB heap together with this test's steps; the real drivers and the emulator run
    these faults on MicroPython in tests/host/test_faults_vb.py (the virtual board)."""
    return not MICROPYTHON


def faults(t, kind):
    return [m for m in t.said if m["type"] == "fault" and m["kind"] == kind]


def colour(name):
    from cardtable.table.feedback import COLOURS

    return COLOURS[name]


def run(t, n):
    """n steps of the table, a step of the test every 2 (the heap is collected between)."""
    while n > 0:
        t.run(min(n, 2))
        n -= 2
        collect()
        yield


def led_as_said(t, zone):
    """Each fault kind the table sends -> the zone's LED at the moment the message left."""
    seen = {}
    send = t.ctl.link.send

    def spy(msg):
        if msg.get("type") == "fault":
            seen[msg["kind"]] = t.led(zone)
        send(msg)

    t.ctl.link.send = spy
    return seen


def check_faults(t):
    """The four faults on zone c of a California Jacks table waiting for its cut card; the
    LED shows each before its message leaves (a host that sees the message sees the LED)."""
    led_then = led_as_said(t, "c")
    # a card snatched away in the middle of its read: torn, nothing dealt; laid again, it deals
    t.hal.tear("c")
    t.hal.place("c", "9S")
    yield from run(t, 4)
    torn = faults(t, "torn")
    assert len(torn) == 1 and torn[0]["zone"] == "c" and "lay it again" in torn[0]["msg"], t.said
    assert t.led("c") == colour("misread") and t.ctl.feedback.last_sound == "misread"
    assert led_then["torn"] == colour("misread")
    assert t.ctl.journal.seq == 0 and t.ctl.game.dealing
    yield
    yield from run(t, 160)  # the flash is over
    # two tags on one pad: one two_tags fault while they lie there, nothing dealt
    t.hal.place("c", "9S")
    t.hal.stack("c", "KH")
    yield from run(t, 12)
    two = faults(t, "two_tags")
    assert len(two) == 1 and two[0]["zone"] == "c" and "two tags" in two[0]["msg"], t.said
    assert t.led("c") == colour("unknown") and t.ctl.feedback.last_sound == "unknown"
    assert led_then["two_tags"] == colour("unknown")
    assert t.ctl.journal.seq == 0 and t.ctl.game.dealing
    t.hal.lift("c")
    yield from run(t, 4)
    yield
    # a foreign tag: a bank card, no card code
    t.hal.place("c", None)
    yield from run(t, 4)
    tag = faults(t, "tag")
    assert len(tag) == 1 and tag[0]["zone"] == "c", t.said
    assert t.led("c") == colour("unknown") and t.ctl.journal.seq == 0
    assert led_then["tag"] == colour("unknown")
    t.hal.lift("c")
    yield from run(t, 4)
    yield
    # the reader stops answering: steady amber until it answers again
    t.hal.kill("c")
    yield from run(t, 6)
    down = faults(t, "reader")
    assert len(down) == 1 and down[0]["zone"] == "c" and "stopped answering" in down[0]["msg"]
    assert t.led("c") == colour("fault") and t.ctl.feedback.last_sound == "fault"
    assert led_then["reader"] == colour("fault")
    yield from run(t, 200)
    assert t.led("c") == colour("fault") and len(faults(t, "reader")) == 1
    t.hal.revive("c")
    yield from run(t, 250)  # retried every 2 s
    up = faults(t, "reader")[-1]
    assert up.get("cleared") is True and t.led("c") != colour("fault")
    assert led_then["reader"] == t.led("c")
    yield
    # and the table plays on: the torn card laid again deals the hand
    t.hal.place("c", "9S")
    yield from run(t, 4)
    assert t.ctl.journal.seq == 1 and not t.ctl.game.dealing
    assert len(faults(t, "torn")) == 1 and len(faults(t, "two_tags")) == 1


@stepped
def test_faults_on_the_real_driver_and_an_emulated_pn532():
    # first in this file: the emulator compiles from source, best done in an empty heap
    if not emulator_fits():
        return
    from cardtable.sim import pn532_emu as emu

    yield from only_game("california-jacks")
    yield from board("pico-i2c-2seat")
    yield from loading(("cardtable.sim.pn532_emu", "cardtable.drivers.ndef", "cardtable.drivers.pn532",
                        "cardtable.drivers.mux", "cardtable.drivers.pn532_i2c"))  # while the heap is emptiest
    t = yield from table("pico-i2c-2seat", "california-jacks", emu=emu)
    yield from check_faults(t)
    r = t.ctl.scanner.readers[t.board.zone_reader["c"]]
    assert r.counts[4] >= 1  # the torn read was the tag's failure, not the reader's


@stepped
def test_faults_are_named_on_the_link_and_the_led_and_play_nothing():
    t = yield from table("pico-i2c-2seat", "california-jacks")
    yield from check_faults(t)
