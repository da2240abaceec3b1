"""A Nerts race timed by the readers' IRQ lines (board "scan": "irq"): the foundations' PN532s
wait for their cards with their fields on, the time of a play is taken at its IRQ edge, so two
plays 50 ms apart are judged in the order they were laid, whatever order the table reads them
in. (Its own file: one table configuration per MicroPython process keeps the heap like the
Pico's.)"""
from support import stepped

from emutable import IRQ_TABLE, emulated, idle, lay, nerts_three_seats, until


def _race_table():
    """The three-seat Nerts table with its foundations' IRQ lines; None where the emulator does not
    fit (beside the .py package: fake readers, no IRQ lines)."""
    yield from nerts_three_seats()
    t, emu = yield from emulated("nerts-3", "nerts", extra=IRQ_TABLE)
    return None if emu is None else t


def _reads(t, log):
    """Log the zone of every card read, in the order the table reads them."""
    for zone in ("f0", "f2", "f4"):
        r = t.hal.readers[t.board.zone_reader[zone]]
        orig = r.read_text

        def spy(orig=orig, zone=zone):
            log.append(zone)
            return orig()

        r.read_text = spy


@stepped
def test_two_plays_50_ms_apart_the_earlier_edge_is_read_and_judged_first_at_its_own_time():
    t = yield from _race_table()
    if t is None:
        return
    ctl = t.ctl
    g = ctl.game
    w = ctl.scanner.waiter
    foundations = tuple(sorted(t.board.zone_reader[z] for z in ("f0", "f2", "f4")))
    t.hal.press("n0")  # the round starts: the foundations take cards at any time
    yield from idle(t, 3)
    assert w.want == foundations and all(w.armed[i] for i in foundations), (w.want, list(w.armed))
    assert t.hal.fields_on() == 3  # the foundations' fields wait at once; the "left" pads' are off
    for i in foundations:
        t.hal.emus[i].log = bytearray()
    for _ in range(20):
        t.run(1)
        for e in t.hal.emus:
            e.frames = []
        yield
    lists = [len([c for c in t.hal.emus[i].log if c == 0x4A]) for i in foundations]
    assert lists == [0] * 3, "an armed reader was polled: %r" % lists
    yield from lay(t, "f0", "AS#0")
    assert [len(p) for p in g.piles] == [1]
    t.hal.lift("f0")  # the ace goes onto its pile, off the read pad
    yield from until(t, "f0", False)
    yield from idle(t, 2)
    assert w.armed[t.board.zone_reader["f0"]], "the pad waits again once its card is lifted"
    log = []
    _reads(t, log)
    # Bob (seat 2) lays the two of spades on f4; 50 ms later Will (seat 1) lays his on f2, and
    # both wait for the table's next step. f2 comes first in the table's order, yet the step
    # reads Bob's card alone (its edge came first) and shows its verdict before Will's is read.
    from cardtable.table.feedback import COLOURS

    clock = t.hal.clock
    laid = clock.ticks_ms()
    t.hal.place("f4", "2S#2")
    clock.advance(50)
    t.hal.place("f2", "2S#1")
    t.run(1, ms=5)
    assert log == ["f4"], log
    assert t.led("f4") == COLOURS["accepted"]
    bob_pad = t.hal.emus[t.board.zone_reader["f4"]]
    bob_pad.frames = []
    t.run(1, ms=5)
    assert log == ["f4", "f2"], log
    # Will's card waited: its step read it before Bob's reader was told anything (its field on,
    # as while it waited); the step after bounds its retries again and switches its field off
    rfconfig = lambda: [bytes(f[2:3]) for f in bob_pad.frames if bytes(f[:2]) == b"\xd4\x32"]  # noqa: E731
    assert rfconfig() == [], bob_pad.frames
    t.run(1, ms=5)
    assert rfconfig() == [b"\x05", b"\x01"], bob_pad.frames  # RFConfiguration items 5, 1
    on = [z for z in ("f0", "f2", "f4") if t.hal.emus[t.board.zone_reader[z]].rf]
    assert on == ["f0"], on  # the pads holding Bob's and Will's cards have their fields off
    t0 = ctl.round_t0
    bob = g.deck.parse("2S#2")
    assert g.piles[0][-1] == (bob, laid - t0), g.piles  # accepted, at the time it was laid
    assert len(g.piles[0]) == 2 and g.centre[2] == 1 and g.centre[1] == 0
    late = t.kinds("verdict")[-1]
    assert late["seat"] == 1 and late["reason"].startswith("too late"), late
    assert (t.led("f4"), t.led("f2")) == (COLOURS["accepted"], COLOURS["rejected"])


@stepped
def test_the_step_that_takes_a_card_at_its_edge_checks_no_other_armed_reader():
    # An armed reader is aborted and armed again about every retry_ms (IrqWait._check: three
    # exchanges): not in the step that took a card, whose verdict comes first.
    t = yield from _race_table()
    if t is None:
        return
    ctl = t.ctl
    g = ctl.game
    w = ctl.scanner.waiter
    t.hal.press("n0")
    yield from idle(t, 3)
    others = [t.board.zone_reader[z] for z in ("f2", "f4")]
    assert all(w.armed[i] for i in others), list(w.armed)
    for i in others:
        t.hal.emus[i].log = bytearray()
    checks = w.checks
    w._check_at = t.hal.clock.ticks_ms()  # a check is due
    t.hal.place("f0", "AS#0")
    t.run(1, ms=0)
    assert [len(p) for p in g.piles] == [1], "the ace was not played in the step after its edge"
    assert w.checks == checks, "an armed reader was checked before the verdict"
    assert [len(t.hal.emus[i].log) for i in others] == [0, 0]
    t.run(3)  # ... the check comes in a later step
    assert w.checks == checks + 1


@stepped
def test_a_race_s_second_card_is_judged_before_the_first_one_s_journal_flush():
    # A flush erases a flash sector with interrupts off (45-51 ms): a card laid meanwhile would
    # be timed at its end and judged after it. In a timed game the flush waits until no play
    # has come for controller.QUIET_MS, so the second card of a race is judged first.
    t = yield from _race_table()
    if t is None:
        return
    from cardtable.table.controller import QUIET_MS
    from cardtable.table.feedback import COLOURS

    ctl = t.ctl
    t.hal.press("n0")
    yield from idle(t, 3)
    events = t.events
    t.hal.place("f4", "AS#2")
    t.run(1, ms=5)
    assert t.led("f4") == COLOURS["accepted"] and t.events == events  # shown, not yet journaled
    t.run(3, ms=QUIET_MS // 6)  # half the quiet time: Will's ace comes then
    assert t.events == events, "the flush did not wait for the quiet time"
    t.hal.place("f2", "AS#1")
    t.run(1, ms=5)
    assert t.led("f2") == COLOURS["accepted"] and t.events == events
    t.run(2, ms=QUIET_MS)
    assert t.events == events + 2, "both plays journaled and told once the table was quiet"
    assert [len(p) for p in ctl.game.piles] == [1, 1]


@stepped
def test_a_table_without_irq_lines_polls_as_before():
    t, emu = yield from emulated("pico-i2c-2seat", "nexus")
    assert t.ctl.scanner.waiter is None  # "scan" is "poll" unless the board file says "irq"
    yield from lay(t, "s0", "AS")
    assert t.ctl.scanner.present(t.board.zone_reader["s0"])
