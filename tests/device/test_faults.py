"""Faults at the table (hardware/README.md, "Faults at the table"): a reader that stops
answering, a card torn away mid-read, two tags on one pad, a foreign tag. Each is one named
`fault` on the link and one colour on the zone's LED, and nothing is played."""
from support import MICROPYTHON, stepped

from simtable import table


def emulator():
    """The PN532 emulator where it fits beside the package (see test_main_loop.py), else None."""
    if MICROPYTHON:
        import cardtable

        if not cardtable.__file__.endswith(".mpy"):
            return None
    from cardtable_host.sim import pn532_emu

    return pn532_emu


def faults(t, kind):
    return [m for m in t.said if m["type"] == "fault" and m["kind"] == kind]


def colour(name):
    from cardtable.table.feedback import COLOURS

    return COLOURS[name]


def check_faults(t):
    """The four faults on zone c of a California Jacks table waiting for its cut card."""
    # a card snatched away in the middle of its read: torn, nothing dealt; laid again, it deals
    t.hal.tear("c")
    t.hal.place("c", "9S")
    t.run(4)
    torn = faults(t, "torn")
    assert len(torn) == 1 and torn[0]["zone"] == "c" and "lay it again" in torn[0]["msg"], t.said
    assert t.led("c") == colour("misread") and t.ctl.feedback.last_sound == "misread"
    assert t.ctl.journal.seq == 0 and t.ctl.game.dealing
    yield
    t.run(160)  # the flash is over
    # two tags on one pad: one two_tags fault while they lie there, nothing dealt
    t.hal.place("c", "9S")
    t.hal.stack("c", "KH")
    t.run(12)
    two = faults(t, "two_tags")
    assert len(two) == 1 and two[0]["zone"] == "c" and "two tags" in two[0]["msg"], t.said
    assert t.led("c") == colour("unknown") and t.ctl.feedback.last_sound == "unknown"
    assert t.ctl.journal.seq == 0 and t.ctl.game.dealing
    t.hal.lift("c")
    t.run(4)
    yield
    # a foreign tag: a bank card, no card code
    t.hal.place("c", None)
    t.run(4)
    tag = faults(t, "tag")
    assert len(tag) == 1 and tag[0]["zone"] == "c", t.said
    assert t.led("c") == colour("unknown") and t.ctl.journal.seq == 0
    t.hal.lift("c")
    t.run(4)
    yield
    # the reader stops answering: steady amber until it answers again
    t.hal.kill("c")
    t.run(6)
    down = faults(t, "reader")
    assert len(down) == 1 and down[0]["zone"] == "c" and "stopped answering" in down[0]["msg"]
    assert t.led("c") == colour("fault") and t.ctl.feedback.last_sound == "fault"
    t.run(200)
    assert t.led("c") == colour("fault") and len(faults(t, "reader")) == 1
    t.hal.revive("c")
    t.run(250)  # retried every 2 s
    up = faults(t, "reader")[-1]
    assert up.get("cleared") is True and t.led("c") != colour("fault")
    yield
    # and the table plays on: the torn card laid again deals the hand
    t.put("c", "9S")
    assert t.ctl.journal.seq == 1 and not t.ctl.game.dealing
    assert len(faults(t, "torn")) == 1 and len(faults(t, "two_tags")) == 1


@stepped
def test_faults_are_named_on_the_link_and_the_led_and_play_nothing():
    t = yield from table("pico-i2c-2seat", "california-jacks")
    yield from check_faults(t)


@stepped
def test_faults_on_the_real_driver_and_an_emulated_pn532():
    emu = emulator()
    if emu is None:
        return  # MicroPython from .py sources: the emulator does not fit; the .mpy run has it
    t = yield from table("pico-i2c-2seat", "california-jacks", emu=emu)
    yield from check_faults(t)
    r = t.ctl.scanner.readers[t.board.zone_reader["c"]]
    assert r.counts[4] >= 1  # the torn read was the tag's failure, not the reader's
