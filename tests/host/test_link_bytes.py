"""No byte and no length stops the table (issue 30, points 8 and 9), on the virtual board:
Ctrl-C (0x03) inside a line is data while the table runs, and only a line of nothing but
Ctrl-C - what mpremote sends to break in - stops it for the REPL; a line of any length is
refused on the link as it arrives and the table plays on; the host never sends a command
longer than the link takes, and a scorekeeper's over-long button through `serve --sim` is a
400, the demo table going on."""
from __future__ import annotations

import time

import pytest
from hostsupport import need_node

pytest.importorskip("termios")  # ptys are POSIX only

from cardtable.link import LINE_MAX  # noqa: E402
from cardtable_host.board.link import CommandTooLong, Link  # noqa: E402
from cardtable_host.sim.board import VirtualBoard  # noqa: E402

need_node()


def errors(link: Link, n: int, timeout: float = 20) -> list[dict]:
    """The next n errors the board sent for lines that were no command (id null)."""
    out = []
    deadline = time.monotonic() + timeout
    while len(out) < n and time.monotonic() < deadline:
        msg = link.next(timeout=max(0.0, deadline - time.monotonic()))
        if msg is not None and msg.get("type") == "error" and msg.get("id") is None:
            out.append(msg)
    assert len(out) == n, "%d of %d refusals from the board: %s" % (len(out), n, out)
    return out


def test_ctrl_c_in_a_line_is_data_and_a_line_of_ctrl_c_stops_the_table() -> None:
    with VirtualBoard("pico-i2c-2seat", game="california-jacks") as vb, Link(vb.port) as link:
        link.hello()
        link.drain()
        # line noise: Ctrl-C inside a line, at its end, and before the rest of it
        link.send_raw(b'{"cmd": "state", "x": "a\x03b"}\n')  # read as JSON: it has no id
        link.send_raw(b"noise\x03\x03\n")
        link.send_raw(b"\x03")
        time.sleep(0.3)  # (the Ctrl-C alone in the board's input a while)
        link.send_raw(b'{"cmd": "state"}\n')
        said = [e["msg"] for e in errors(link, 3)]
        assert said[0].startswith('missing "id"') and "not JSON" in said[1] \
            and "not JSON" in said[2], said
        assert vb.mode == "table", "a Ctrl-C in a line stopped the table"
        assert link.hello()["game"]["game"] == "california-jacks"
        # the deliberate stop: what mpremote sends to break in (\r\x03, then \r\x01)
        link.send_raw(b"\r\x03\r")
        assert vb.wait_mode("repl", 20), vb.mode
        assert "stopped by Ctrl-C; the REPL is yours" in vb.console(ending=">>> ", timeout=10)
    with VirtualBoard("pico-i2c-2seat", game="nexus") as vb:
        from mpremote.transport_serial import SerialTransport

        t = SerialTransport(vb.port)  # Ctrl-C, then Ctrl-A: the raw REPL
        try:
            t.enter_raw_repl(soft_reset=False)
            assert t.eval("1 + 2") == 3
            t.exit_raw_repl()
        finally:
            t.close()
        assert vb.mode == "repl"
        assert vb.reset() == "table"


def test_a_line_of_any_length_is_refused_as_it_arrives_and_the_table_plays_on() -> None:
    with VirtualBoard("pico-i2c-2seat", game="california-jacks") as vb, Link(vb.port) as link:
        link.hello()
        link.drain()
        link.send_raw(b"x" * 30000)  # no line end yet: refused as soon as it is too long
        said = errors(link, 1)
        assert said[0]["msg"] == ("line too long: at most %d bytes a line; the rest of it is "
                                  "discarded" % LINE_MAX)
        link.send_raw(b"x" * 5000 + b"\n")  # its end: the rest was dropped, nothing more said
        link.send_raw(b'{"cmd": "state", "id": 1, "pad": "%s"}\n' % (b"y" * 60000))
        said = errors(link, 1)
        assert "line too long" in said[0]["msg"]
        assert link.state()["view"]["game"] == "california-jacks"  # the next line is a command
        assert vb.alive and vb.mode == "table"
        status = vb.status()
        assert status["heap_over"] == 0 and status["heap_live_max"] <= status["heap_budget"]
        # the host does not send what the board would refuse
        with pytest.raises(CommandTooLong) as e:
            link.command("press", button="b" * 60000)
        assert "takes at most %d bytes a line" % LINE_MAX in str(e.value)
        assert link.drain() == [] and link.hello()["layout"] == "california-jacks"


def test_a_scorekeepers_overlong_button_is_refused_and_the_demo_table_goes_on(tmp_path) -> None:
    from servesupport import Serve, Viewer

    with Serve("--sim", "nexus", "--seed", "2", "--bot-delay", "0.05", "--http", "127.0.0.1:0",
               "--archive", str(tmp_path)) as s:
        v = Viewer(s.url)

        def events() -> list[dict]:
            return [m for m in list(v.messages) if m.get("type") == "event"]

        s.wait_for(lambda: len(events()) >= 3, 60, "play")
        status, reply = s.control({"cmd": "press", "button": "b" * 60000}, s.secret)
        assert status == 400 and not reply["ok"], (status, reply)
        assert "takes at most %d bytes a line" % LINE_MAX in reply["error"]
        at = len(events())
        s.wait_for(lambda: len(events()) >= at + 3, 60, "the game going on")
        assert s.json("snapshot.json")["connected"]
        v.close()
