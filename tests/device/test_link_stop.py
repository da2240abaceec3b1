"""Issue 30 (8, 9): no byte and no length stops the table. While main.run's loop runs, Ctrl-C
is a byte of a line and only a line of nothing but Ctrl-C stops it; a line longer than the
link takes is refused as soon as it is, and the rest of it dropped as it arrives."""
import sys

from simtable import main_module



def test_ctrl_c_is_data_in_the_loop_and_a_line_of_ctrl_c_stops_it():
    # Issue 30 (8): while main.run's loop runs, 0x03 is a byte of a line (on the Pico
    # micropython.kbd_intr(-1)); a line of nothing but Ctrl-C - mpremote's \r\x03 then \r\x01 -
    # is the deliberate stop: the link's Stop, a KeyboardInterrupt, leaves the loop (main.py
    # then prints it and gives the REPL, Ctrl-C an interrupt again).
    for _ in main_module():
        pass
    main = sys.modules["main"]
    from cardtable import link as lk

    class Serial:
        def __init__(self, data):
            self.data = data
            self.i = 0

        def read_byte(self):
            if self.i >= len(self.data):
                return -1
            self.i += 1
            return self.data[self.i - 1]

    class Table:
        def __init__(self, data):
            self.link = lk.Link(Serial(data))
            self.got = []
            self.steps = 0

        def step(self):
            self.steps += 1
            cmd = self.link.poll()
            if cmd is not None:
                self.got.append(cmd)

    noise = b'{"cmd": "state", "id": 1, "x": "\x03"}\nnoise\x03\n\x03{"cmd": "hello", "id": 2}\n'
    t = Table(noise)
    main.run(t, None, 5)
    assert t.steps == 5 and len(t.got) == 3
    assert t.got[0] == {"cmd": "state", "id": 1, "x": "\x03"} or "not JSON" in t.got[0].msg
    assert isinstance(t.got[1], lk.LinkError) and isinstance(t.got[2], lk.LinkError)
    t = Table(b'{"cmd": "state", "id": 3}\n\r\x03\r\x01')
    try:
        main.run(t, None, 5)
        stopped = False
    except KeyboardInterrupt as e:
        stopped = isinstance(e, lk.Stop)
    assert stopped and t.steps == 2 and t.got == [{"cmd": "state", "id": 3}]
    assert t.link.reader.source.i == len(t.link.reader.source.data) - 1  # \x01: the REPL's


def test_a_line_too_long_is_refused_as_soon_as_it_is_and_the_rest_dropped():
    # Issue 30 (9): the table's memory holds LINE_MAX bytes of a line, never more.
    from cardtable.link import LINE_MAX, TOO_LONG, LineReader

    class Endless:
        def __init__(self):
            self.n = 0

        def read_byte(self):
            self.n += 1
            return 120 if self.n <= 50000 else (10 if self.n == 50001 else -1)

    src = Endless()
    rd = LineReader(src)
    out = []
    while src.n <= 50001:
        line = rd.poll(256)
        if line is not None:
            out.append((line, src.n))
    assert out == [(TOO_LONG, LINE_MAX + 1)], out[:3]
    assert len(rd.buf) == LINE_MAX and rd.n == 0 and not rd.overflow


def test_ctrl_c_interrupts_while_the_journal_is_replayed_and_is_data_after():
    # While the game comes back from the journal the link is not read: Ctrl-C must interrupt
    # at once then (mpremote waits 10 s for its raw REPL), and becomes data once the table
    # referees; leaving the loop makes it an interrupt again.
    for _ in main_module():
        pass
    main = sys.modules["main"]
    calls = []
    real = main.kbd_intr
    main.kbd_intr = calls.append
    try:
        class Table:
            def __init__(self):
                self.steps = 0
                self.replaying = True

            def step(self):
                self.steps += 1
                self.replaying = self.steps < 3  # the game is back after the third step

        main.run(Table(), None, 6)
    finally:
        main.kbd_intr = real
    assert calls == [3, -1, 3], calls
