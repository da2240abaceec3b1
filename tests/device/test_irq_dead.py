"""A reader that waits for its card by itself (board "scan": "irq") is never polled, yet one that
stops answering is reported down within a few seconds, like a polled one, and waits for cards
again once it answers. (Its own file: one table configuration per MicroPython process.)"""
from support import stepped

from emutable import IRQ_TABLE, emulated, idle, nerts_three_seats


def _seconds(t, s):
    for _ in range(s * 10):
        t.run(1, ms=100)
        yield


@stepped
def test_a_waiting_reader_that_stops_answering_is_reported_down_and_waits_again_when_it_answers():
    yield from nerts_three_seats()
    t, emu = yield from emulated("nerts-3", "nerts", extra=IRQ_TABLE)
    if emu is None:  # fake readers (the emulator does not fit beside the .py package): no IRQ lines
        return
    sc = t.ctl.scanner
    w = sc.waiter
    f2 = t.board.zone_reader["f2"]
    t.hal.press("n0")  # the round starts: the foundations wait for cards
    yield from idle(t, 3)
    assert w.armed[f2] and not sc.down[f2]
    t.hal.kill("f2")  # its cable comes loose while it waits
    yield from _seconds(t, 5)
    down = [m for m in t.kinds("fault") if m["kind"] == "reader" and m.get("zone") == "f2"]
    assert len(down) == 1 and "stopped answering" in down[0]["msg"], t.kinds("fault")
    assert sc.down[f2] and not w.armed[f2] and w.checks > 0
    assert not any(sc.down[i] for i in w.want if i != f2)  # the other foundations still wait
    t.hal.revive("f2")
    yield from _seconds(t, 5)
    back = [m for m in t.kinds("fault") if m.get("cleared") and m.get("zone") == "f2"]
    assert len(back) == 1 and "answers again" in back[0]["msg"], t.kinds("fault")
    assert not sc.down[f2] and w.armed[f2]
