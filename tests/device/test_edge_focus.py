"""The seat to play answered at the card's edge (issue 35): on pico-i2c-4seat the seat pads'
readers have IRQ lines, so the seat to play's reader waits for its card by itself (armed) and is
never polled meanwhile, while the other zones keep their round robin; a card laid there is read
and judged in the very next step, before any other reader is polled; two tags laid together are
still refused. (Its own file: one table configuration per MicroPython process.)"""
from support import stepped

from emutable import EXTRA, IRQ_TABLE, WAIT, emulated, idle, tidy, until

LIST = 0x4A  # InListPassiveTarget
RFCONFIG = 0x32  # RFConfiguration (the field off, the retries bounded)
EXCHANGE = 0x40  # InDataExchange (the card's READ)


def _lists(emu, cmd=LIST):
    """How many commands cmd (InListPassiveTarget) an emulated PN532 was sent since its log was reset."""
    return len([c for c in emu.log if c == cmd])


def _dealt(t):
    """California Jacks: the up card deals; then the table waits for the first play."""
    t.hal.place("c", "9S")
    yield from until(t, "c", True)
    yield from idle(t, 3)
    assert not t.ctl.game.dealing


def _to_play(t):
    """The play zone of the seat to play and its reader."""
    g = t.ctl.game
    zone = t.zone("play", g.turn[0])
    return zone, t.board.zone_reader[zone]


@stepped
def test_the_seat_to_play_waits_armed_and_its_card_is_judged_in_the_next_step():
    t, emu = yield from emulated("pico-i2c-4seat", "california-jacks", extra=IRQ_TABLE)
    if emu is None:  # fake readers (the emulator does not fit beside the .py package): no IRQ lines
        return
    from cardtable.table.feedback import COLOURS

    ctl = t.ctl
    sc = ctl.scanner
    w = sc.waiter
    assert w is not None, "pico-i2c-4seat's seat pads have IRQ lines"
    yield from _dealt(t)
    zone, r = _to_play(t)
    assert sc.focus == (r,) and w.want == (r,) and w.armed[r], (sc.focus, w.want, list(w.armed))
    emus = t.hal.emus
    for e in emus:
        e.log = bytearray()
    others = [i for i in range(sc.n) if i != r]
    before = [sc.polls[i] for i in others]
    for _ in range(12):
        t.run(1)
        for e in emus:
            e.frames = []
        yield
    assert _lists(emus[r]) == 0, "the armed reader was polled"
    # the other zones' round robin goes on: each of the nine other readers polled in 12 steps,
    # but for the rare ones (the up card's pad, a played pad)
    polled = [i for k, i in enumerate(others) if sc.polls[i] > before[k]]
    assert len(polled) >= 6, (polled, before)
    # one polled field at a time beside the armed pad's (a poll's answer is read a step later)
    assert emus[r].rf and len([e for e in emus if e.rf]) <= 2, [e.rf for e in emus]
    # a card laid on the armed pad: the very next step reads it and lights its verdict, and no
    # other reader is polled in that step
    tidy(t)
    verdicts = len(t.kinds("verdict"))
    seq = ctl.journal.seq
    t.hal.place(zone, "KH")
    t.run(1)
    assert ctl.journal.seq == seq + 1, "the card was not played in the step after its edge"
    assert t.led(zone) == COLOURS["accepted"], t.led(zone)
    assert len(t.kinds("verdict")) == verdicts  # accepted: no refusal
    # no poll before the verdict, not even of that reader; its READ only (no RFConfiguration)
    assert [i for i in range(sc.n) if _lists(emus[i])] == [], "a reader was polled before the verdict"
    assert _lists(emus[r], RFCONFIG) == 0, list(emus[r].log)
    assert w.answers >= 1 and sc.present(r)
    t.run(1)  # the next step: its field off again, its retries bounded; polled till lifted
    assert not emus[r].rf or _lists(emus[r]) > 0
    assert emus[r].max_retries != 0xFF, "its retries are bounded again after the verdict"
    yield
    # the next seat to play's reader is armed in its turn (the card stays till the trick ends)
    yield from idle(t, 1)
    nxt, r2 = _to_play(t)
    assert nxt != zone and w.want == (r2,) and w.armed[r2] and not w.armed[r], (nxt, list(w.armed))


@stepped
def test_two_tags_laid_together_on_the_armed_pad_are_refused_and_nothing_is_played():
    t, emu = yield from emulated("pico-i2c-4seat", "california-jacks", extra=IRQ_TABLE)
    if emu is None:
        return
    ctl = t.ctl
    yield from _dealt(t)
    zone, r = _to_play(t)
    assert ctl.scanner.waiter.armed[r]
    seq = ctl.journal.seq
    e = t.hal.emus[r]
    e.field.append(emu.Tag(b"\x04\x01\x02\x03\x04\x05\x06", text="KH"))  # two cards at once
    e.place(emu.Tag(b"\x04\x01\x02\x03\x04\x05\x07", text="QH"))
    t.run(1)
    faults = [m for m in t.kinds("fault") if m.get("kind") == "two_tags"]
    assert len(faults) == 1 and "two tags on one pad" in faults[0]["msg"], t.kinds("fault")
    assert ctl.journal.seq == seq, "a card was played from two tags"
    t.run(3)
    assert len([m for m in t.kinds("fault") if m.get("kind") == "two_tags"]) == 1  # once while they lie
    t.hal.lift(zone)
    yield from idle(t, 6)
    assert ctl.scanner.waiter.armed[r], "the pad waits again once the tags are lifted"
    t.hal.place(zone, "KH")
    t.run(1)
    assert ctl.journal.seq == seq + 1


@stepped
def test_a_card_the_table_has_read_is_judged_at_the_edge_without_a_read():
    # The up card was read on its pad; the same tag laid on the armed pad is named by its UID:
    # no InDataExchange (READ) on the bus between its edge and its verdict.
    t, emu = yield from emulated("pico-i2c-4seat", "california-jacks", extra=IRQ_TABLE)
    if emu is None:
        return
    from cardtable.table.feedback import COLOURS

    ctl = t.ctl
    yield from _dealt(t)
    t.hal.lift("c")
    yield from until(t, "c", False)
    zone, r = _to_play(t)
    assert ctl.scanner.waiter.armed[r]
    tidy(t)
    verdicts = len(t.kinds("verdict"))
    reads, named = ctl.scanner.reads, ctl.scanner.named
    e = t.hal.emus[r]
    e.log = bytearray()
    t.hal.place(zone, "9S")  # the up card's own tag: not in the seat's hand
    t.run(1)
    assert len(t.kinds("verdict")) == verdicts + 1, "no verdict in the step after its edge"
    assert t.led(zone) == COLOURS["rejected"], t.led(zone)
    assert _lists(e, EXCHANGE) == 0, list(e.log)
    assert ctl.scanner.named == named + 1 and ctl.scanner.reads == reads


def _say(t, obj, steps=2):
    """Send a host command; its answer."""
    import json

    t.hal.serial.feed(json.dumps(obj) + "\n")
    for _ in range(steps):
        t.run(1)
        tidy(t)
        yield
    a = [m for m in t.said if m.get("id") == obj.get("id")]
    assert len(a) == 1, a
    return a[0]


@stepped
def test_the_tag_command_reads_the_armed_pad():
    t, emu = yield from emulated("pico-i2c-4seat", "california-jacks", extra=EXTRA + WAIT)
    if emu is None:
        return
    yield from _dealt(t)
    zone, r = _to_play(t)
    w = t.ctl.scanner.waiter
    assert w.armed[r]
    a = yield from _say(t, {"cmd": "tag", "id": 1, "zone": zone})  # enrolling: no tag there yet
    assert a == {"type": "ok", "id": 1, "zone": zone, "uid": None}, a
    t.hal.place(zone, "KH")
    yield from idle(t, 3)
    a = yield from _say(t, {"cmd": "tag", "id": 2, "zone": zone})
    assert a["type"] == "ok" and a["text"] == "KH", a
