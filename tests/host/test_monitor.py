"""`cardtable monitor` on the virtual board: the live view, keys typed through a pty, and a
cable pulled and plugged back; plus the view rendering as a pure function."""
from __future__ import annotations

import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable

import pytest
from hostsupport import need_node

pytest.importorskip("termios")  # ptys are POSIX only

import termios  # noqa: E402

from cardtable import games, record  # noqa: E402
from cardtable.rng import Random  # noqa: E402
from cardtable_host.commands.monitor import Keys, plain, render, table_lines  # noqa: E402
from cardtable_host.serve.model import Model  # noqa: E402


class Terminal:
    """A program running on a pseudo-terminal of 100x40: what it shows, keys typed at it."""

    def __init__(self, args: list[str]) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
        env = dict(os.environ, TERM="xterm", NO_COLOR="1", COLUMNS="100", LINES="40")
        self.proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env,
                                     start_new_session=True)
        os.close(slave)
        self.buf = bytearray()
        self.lock = threading.Lock()
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            with self.lock:
                self.buf.extend(data)

    def screen(self) -> str:
        """The last full frame drawn (the text after the last cursor-home)."""
        with self.lock:
            text = self.buf.decode("utf-8", "replace")
        frame = text.rsplit("\x1b[H", 1)[-1]
        return plain(frame).replace("\r", "")

    def wait(self, pred: Callable[[str], bool], timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            s = self.screen()
            if pred(s):
                return s
            time.sleep(0.05)
        raise AssertionError("the screen never showed what was expected; it shows:\n" + self.screen())

    def type(self, keys: str) -> None:
        for ch in keys:
            os.write(self.master, ch.encode())
            time.sleep(0.03)

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            os.close(self.master)


def test_monitor_mirrors_the_table_takes_keys_and_survives_the_cable() -> None:
    from cardtable_host.sim.board import VirtualBoard

    need_node(module=False)
    with VirtualBoard("pico-spi-4seat", game="fortyfives") as vb:
        term = Terminal([sys.executable, "-m", "cardtable_host.cli", "monitor", "--port", vb.stable_port])
        try:
            s = term.wait(lambda s: "to act: seat 1" in s and "live" in s)
            assert "fortyfives  ·  hand 1  ·  bid  ·  dealer seat 0 South" in s
            assert "seat 0 South" in s  # seat names from the board file
            term.type("b20\r")  # seat 1 bids 20 from the keyboard
            s = term.wait(lambda s: "seat 1 bids 20" in s and "to act: seat 2" in s)
            term.type("b10\r")  # not a legal bid: the table says why
            s = term.wait(lambda s: "refused:" in s)
            term.type("p")
            s = term.wait(lambda s: "seat 2 passes" in s and "to act: seat 3" in s)

            vb.unplug()  # the cable comes out ...
            s = term.wait(lambda s: "board gone" in s)
            vb.press("k4")  # ... and seat 3 passes at the table meanwhile
            vb.replug()
            s = term.wait(lambda s: "live" in s and "to act: seat 0" in s)
            assert "re-synced from the board" in s and "seat 3 pass" in s  # the bids line
            assert "while away: seat 3 passes" in s  # the journal tells what was missed

            term.type("u")
            s = term.wait(lambda s: "undone: seat 3 passes" in s and "to act: seat 3" in s)
            term.type("q")
            assert term.close() == 0
        finally:
            if term.proc.poll() is None:
                term.proc.kill()


def test_the_monitors_keys_reach_the_board_through_serve() -> None:
    """`cardtable monitor` on a served board is serve's client: its keys go through serve's
    scorekeeper endpoint (with the secret serve left for this user) to the board, and every
    spectator's page sees what they did."""
    pytest.importorskip("aiohttp")
    from cardtable_host.sim.board import VirtualBoard
    from servesupport import Serve, Viewer

    need_node(module=False)
    with VirtualBoard("pico-spi-4seat", game="fortyfives") as vb:
        with Serve("--port", vb.stable_port, "--http", "127.0.0.1:0", "-q") as s:
            page = Viewer(s.url)
            term = Terminal([sys.executable, "-m", "cardtable_host.cli", "monitor", "--port", vb.stable_port])
            try:
                sc = term.wait(lambda sc: "to act: seat 1" in sc and "live" in sc, 30)
                s.wait_for(lambda: s.json("snapshot.json")["viewers"] == 2, 30, "the monitor following serve")
                term.type("b20\r")
                term.wait(lambda sc: "seat 1 bids 20" in sc and "to act: seat 2" in sc)
                bid = s.wait_for(lambda: [m for m in list(page.messages) if m.get("type") == "event"
                                          and (m.get("action") or {}).get("act") == "bid"], 20, "the bid on the page")[0]
                assert bid["action"]["seat"] == 1 and bid["action"]["bid"] == 20
                term.type("b10\r")  # not a legal bid: the board's reason, through serve, on the monitor
                term.wait(lambda sc: "refused:" in sc)
                term.type("p")
                term.wait(lambda sc: "seat 2 passes" in sc and "to act: seat 3" in sc)
                seq = s.json("snapshot.json")["seq"]
                term.type("u")
                term.wait(lambda sc: "undone: seat 2 passes" in sc and "to act: seat 2" in sc)
                s.wait_for(lambda: page.has(lambda m: "undone" in m), 20, "the undo on the page")
                assert s.json("snapshot.json")["seq"] == seq + 1  # the undo is journaled as a step
                term.type("q")
                assert term.close() == 0
                assert s.proc.poll() is None  # the monitor leaving does not end serve
            finally:
                if term.proc.poll() is None:
                    term.proc.kill()
                page.close()


def test_plain_mode_prints_a_line_per_event() -> None:
    from cardtable_host.sim.board import VirtualBoard

    need_node(module=False)
    with VirtualBoard("pico-i2c-2seat", game="california-jacks") as vb:
        proc = subprocess.Popen([sys.executable, "-m", "cardtable_host.cli", "monitor", "--port", vb.port],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=dict(os.environ, NO_COLOR="1"))
        said = b""
        try:
            assert proc.stdout is not None
            end = time.monotonic() + 30
            while b"hello: firmware" not in said and time.monotonic() < end:  # it is listening
                if select.select([proc.stdout], [], [], 0.2)[0]:
                    said += os.read(proc.stdout.fileno(), 4096)
            vb.place("c", "9S")  # the cut card deals the hand
            vb.lift("c")
            time.sleep(1.0)
        finally:
            proc.terminate()
            out, err = proc.communicate(timeout=10)
            out = said.decode() + out
        assert "hello: firmware 0.1.0 on pico-i2c-2seat, layout california-jacks" in out
        assert "deal (up)  (zone c)" in out, out + err
        assert "-- california-jacks hand 1 play | to act: 1 | scores: 0 0" in out, out + err


def _fortyfives_midgame() -> dict:
    g = games.load("fortyfives")
    rng = Random(3)
    for _ in range(12):
        g.apply(g.bot_action(rng))
    return g.view(None)


def test_render_shows_trick_turn_scores_faults_and_never_a_hand() -> None:
    view = _fortyfives_midgame()
    m = Model("/dev/ttyACM0")
    m.connected = True
    m.feed({"type": "hello", "fw": "0.1.0", "proto": 1, "board": "pico-i2c-4seat", "layout": "fortyfives",
            "game": {"game": "fortyfives", "seats": 4, "dealer": 0, "rules": {}}, "seq": 12})
    m.feed({"type": "state", "seq": 12, "view": view})
    m.feed({"type": "verdict", "action": {"seat": 2, "act": "play", "card": "AS"}, "seat": 2,
            "reason": "must follow diamonds", "from": "zone s2"})
    m.feed({"type": "fault", "kind": "reader", "zone": "s3", "msg": "reader s3 does not answer"})
    screen = "\n".join(render(m, 100, 40))
    assert "to act: seat 2" in screen
    assert "5D (led)" in screen and "KD" in screen  # the current trick, who led it
    assert "trump diamonds" in screen and "bid 20 by seat 0" in screen
    assert "teams: seats 0 & 2: 0   seats 1 & 3: 0" in screen
    assert "REJECTED seat 2 plays AS: must follow diamonds" in screen
    assert screen.count("FAULT reader at s3: reader s3 does not answer") == 2  # standing, and in the log
    assert "hand" not in view  # the spectator view carries no hand ...
    assert all(len(line) <= 100 for line in render(m, 100, 40))
    m.feed({"type": "fault", "kind": "reader", "zone": "s3", "msg": "answers again", "cleared": True})
    screen = "\n".join(render(m, 100, 40))
    assert screen.count("FAULT reader at s3") == 1 and "fault cleared: reader at s3" in screen
    assert len(render(m, 60, 12)) == 12 and all(len(line) <= 60 for line in render(m, 60, 12))
    m.feed({"type": "fault", "kind": "torn", "zone": "s1", "msg": "the card left before it was read"})
    m.feed({"type": "fault", "kind": "two_tags", "zone": "s2", "msg": "two tags on one pad"})
    screen = "\n".join(render(m, 100, 40))  # happened once: logged, not standing
    assert screen.count("FAULT torn at s1") == 1 and screen.count("FAULT two_tags at s2") == 1
    assert m.faults == {}


def test_cards_show_suit_glyphs_in_colour_and_plain_codes_without() -> None:
    m = Model("/dev/ttyACM0")
    m.connected = True
    m.feed({"type": "hello", "fw": "0.1.0", "proto": 1, "board": "pico-i2c-4seat", "layout": "fortyfives",
            "game": {"game": "fortyfives", "seats": 4, "dealer": 0, "rules": {}}, "seq": 12})
    m.feed({"type": "state", "seq": 12, "view": _fortyfives_midgame()})
    m.feed({"type": "verdict", "action": {"seat": 2, "act": "play", "card": "10S"}, "seat": 2,
            "reason": "must follow diamonds", "from": "zone s2"})
    coloured = "\n".join(render(m, 100, 40, colour=True))
    assert "\x1b[31m5\u2666" in coloured and "KD" not in coloured  # diamonds in red
    assert "plays \x1b[39m10\u2660" in coloured and "10S" not in coloured  # spades: the terminal's colour
    plain_screen = "\n".join(render(m, 100, 40, colour=False))
    assert "5D (led)" in plain_screen and "\u2666" not in plain_screen and "\x1b" not in plain_screen
    widths = [len(re.sub("\x1b\\[[0-9;]*m", "", line)) for line in render(m, 100, 40, colour=True)]
    assert widths == [len(line) for line in render(m, 100, 40, colour=False)]  # a glyph per letter


def test_render_every_game_and_game_over() -> None:
    for name in games.GAMES:
        g = games.load(name, seats=3 if name == "nerts" else None)
        rng = Random(5)
        for _ in range(4000):
            if g.over:
                break
            g.apply(g.bot_action(rng))
        lines = table_lines(g.view(None))
        assert g.over and lines[0].startswith(name)
        assert lines[1].startswith("GAME OVER: ") and lines[1].endswith(" win" if g.TEAMS else " wins"), lines


def test_keys_make_link_commands_for_the_seat_to_act() -> None:
    m = Model()
    m.feed({"type": "hello", "game": {"game": "fortyfives", "seats": 4, "dealer": 0, "rules": {}}})
    m.feed({"type": "state", "view": {"game": "fortyfives", "seats": 4, "turn": [3], "phase": "bid"}})
    k = Keys(m)
    assert [k.press(c) for c in "b25"] == [None, None, None] and m.prompt == "bid"
    assert "bid: 25_" in render(m)[-1]
    assert k.press("\r") == {"cmd": "act", "action": {"seat": 3, "act": "bid", "bid": 25}}
    assert k.press("p") == {"cmd": "act", "action": {"seat": 3, "act": "pass"}}
    assert k.press("t") is None and k.press("h") == {"cmd": "act", "action": {"seat": 3, "act": "trump", "suit": "H"}}
    assert k.press("t") is None and k.press("x") is None and "no suit 'x'" in m.note[0]
    assert k.press("b") is None and k.press("\x1b") is None and m.prompt is None  # Esc cancels
    assert k.press("u") == {"cmd": "undo"} and k.press("q") == "quit"
    m.feed({"type": "state", "view": {"game": "nerts", "seats": 3, "turn": [0, 1, 2]}})
    assert k.press("p") is None and "several seats may act" in m.note[0]


def test_s_presses_the_suit_button_whoever_leads() -> None:
    m = Model()
    m.feed({"type": "hello", "game": {"game": "nonesuch", "seats": 4, "dealer": 0, "rules": {}}})
    m.feed({"type": "state", "view": {"game": "nonesuch", "seats": 4, "turn": [1], "phase": "play"}})
    k = Keys(m)
    assert k.press("s") is None and m.prompt == "suit" and "suit: _" in render(m)[-1]
    assert k.press("k") == {"cmd": "press", "button": "suit K"}  # Decktet Knots; no seat: the table knows
    assert k.press("s") is None and k.press("h") is None and "no suit 'h' here: M S W L Y K" in m.note[0]
    m.note = ("", None)
    assert "t trump  s suit  u undo" in render(m)[-1]


def test_s_names_the_suit_of_a_nonesuch_lead_from_the_monitor() -> None:
    from cardtable_host.sim.board import VirtualBoard

    need_node(module=False)
    with VirtualBoard("pico-spi-4seat", game="nonesuch") as vb:
        term = Terminal([sys.executable, "-m", "cardtable_host.cli", "monitor", "--port", vb.port])
        try:
            term.wait(lambda s: "live" in s and "nonesuch" in s)
            vb.place("c", "5SW")  # the up card deals the hand
            vb.lift("c")
            for seat in (1, 2, 3, 0):
                term.wait(lambda s: "to act: seat %d" % seat in s)
                term.type("bs\r")  # SOME, typed at the monitor
            term.wait(lambda s: "seat 0 bids some" in s)
            vb.place("s2", "X")  # seat 2 shows the Excuse ...
            vb.lift("s2")
            term.wait(lambda s: "seat 2 shows the Excuse" in s)
            term.type("tw")  # ... and names Waves trump
            term.wait(lambda s: "seat 2 names waves trump" in s and "to act: seat 1" in s)
            vb.place("s1", "2MK")  # seat 1 leads a Moons-and-Knots card and names no suit
            s = term.wait(lambda s: "REJECTED seat 1 plays 2MK" in s)
            vb.lift("s1")
            term.type("sk")  # the suit, from the monitor: the lead on the table takes it
            s = term.wait(lambda s: "seat 1 plays 2MK calling knots  (host)" in s and "to act: seat 2" in s)
            assert "led K" in s
            term.type("sm")  # named before the next lead: the table keeps it
            s = term.wait(lambda s: "suit M pressed" in s)
            term.type("q")
            assert term.close() == 0
        finally:
            if term.proc.poll() is None:
                term.proc.kill()


def test_what_happened_while_away_is_told_as_a_spectator_sees_it() -> None:
    from cardtable_host.commands.monitor import Monitor

    class Journal:
        def log(self, timeout: float = 0) -> list[str]:
            return [record.format_line({"game": "fortyfives", "seats": 4, "dealer": 0, "rules": {}}, 0),
                    record.format_line({"act": "deal"}, 1),
                    record.format_line({"seat": 1, "act": "discard", "cards": ["7S", "9S", "QD"]}, 2)]

    mon = Monitor.__new__(Monitor)
    mon.model = Model("/dev/ttyACM0")
    mon.model.feed({"type": "hello", "fw": "0.1.0", "proto": 1, "board": "pico-i2c-4seat",
                    "layout": "fortyfives", "seq": 2,
                    "game": {"game": "fortyfives", "seats": 4, "dealer": 0, "rules": {}}})
    mon.link = Journal()  # type: ignore[assignment]
    mon.missed(1)
    told = [text for text, _ in mon.model.log]
    assert "while away: seat 1 discards 3 cards face down" in told, told
    assert not any("7S" in t or "QD" in t for t in told), told
