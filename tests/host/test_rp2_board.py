"""The rp2 board: the MicroPython image on an emulated RP2040 behind a pty, like a Pico on USB.

One board (Forty-Fives on the four-seat I2C board) serves the module: it boots to the table,
mpremote lists, copies and runs code on it, files outlive a reset and a new chip, a button
pressed on GPIO is seen by the table, the LED chain's colours are decoded from its pin, a
stuck loop is ended by the watchdog and the game resumes, and a power cut inside a flash
program leaves a filesystem a new chip mounts. Costs about a minute of CPU (more the first
time on a machine: installing the firmware on a fresh flash is cached afterwards).
"""
from __future__ import annotations

import hashlib
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest
from hostsupport import need_node

pytest.importorskip("termios")  # ptys are POSIX only

from cardtable_host.board.link import Link  # noqa: E402
from cardtable_host.sim.rp2board import FROZEN_UF2, Rp2Board, missing  # noqa: E402

need_node()
_why = missing()
if _why:
    pytest.skip("the rp2 board cannot run here: %s" % _why, allow_module_level=True)

BOOT_S = 180  # boot to the table on a loaded 2-core machine, stock image and .mpy on flash


def mpremote(port: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """mpremote on the board, run again (as a person would) if it gave up entering the raw REPL:
    it waits 10 s of wall time for the prompt, which the emulated chip, at a twentieth of a
    Pico's pace on a loaded machine, may not give in time."""
    for _ in range(3):
        r = subprocess.run([sys.executable, "-m", "mpremote", "connect", port, *args],
                           capture_output=True, text=True, timeout=timeout)
        if "could not enter raw repl" not in r.stderr:
            break
    return r


def mpremote_bg(port: str, *args: str) -> subprocess.Popen[str]:
    """mpremote running while the test does something to the board (it may never finish)."""
    return subprocess.Popen([sys.executable, "-m", "mpremote", "connect", port, *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)


def wait_for(link: Link, mtype: str, timeout: float = 60, **match: object) -> dict:
    msg = link.wait_for(lambda m: m.get("type") == mtype and all(m.get(k) == v for k, v in match.items()),
                        timeout)
    assert msg is not None, "no %s %s from the board within %g s" % (mtype, match, timeout)
    return msg


@pytest.fixture(scope="module")
def flash_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("rp2flash")


@pytest.fixture(scope="module")
def board(flash_dir: Path) -> Iterator[Rp2Board]:
    b = Rp2Board("pico-i2c-4seat", flash_dir=flash_dir, layout="fortyfives", install=None)
    b.start(timeout=BOOT_S)
    try:
        yield b
    finally:
        b.close()


def back_to_table(b: Rp2Board) -> None:
    assert b.reset(timeout=BOOT_S) == "table"


def test_boots_the_image_to_the_table_and_says_hello(board: Rp2Board) -> None:
    assert board.mode == "table"
    with Link(board.port, timeout=30) as link:
        hello = link.hello(timeout=60)
    assert hello["board"] == "pico-i2c-4seat"
    assert hello["layout"] == "fortyfives"
    st = board.status()
    assert st["boots"] >= 1 and st["emulated_ns"] > 0


def test_mpremote_lists_copies_and_runs_code(board: Rp2Board, tmp_path: Path) -> None:
    src = tmp_path / "note.txt"
    src.write_text("written by mpremote\n")
    r = mpremote(board.port, "cp", str(src), ":note.txt", "+", "ls", ":", "+", "exec",
                 "import sys; print(sys.platform, sys.implementation.name)")
    assert r.returncode == 0, r.stderr
    assert "note.txt" in r.stdout and "config.json" in r.stdout and "boards/" in r.stdout
    assert "rp2 micropython" in r.stdout
    r = mpremote(board.port, "cat", ":note.txt")
    assert r.stdout.strip() == "written by mpremote"
    back_to_table(board)


def test_a_busy_wait_ends_on_time_though_the_emulator_skips_it(board: Rp2Board) -> None:
    # time.sleep_us spins on the timer (mp_hal_delay_us); the emulator moves the clock to its
    # end instead of running the spin (Chip.skipDelay), and the chip's own clock must agree.
    before = board.status()["skipped_ns"]
    r = mpremote(board.port, "exec", "import time\nfor us in (100, 700, 1500):\n"
                 " t = time.ticks_us(); time.sleep_us(us); print(us, time.ticks_diff(time.ticks_us(), t))")
    assert r.returncode == 0, r.stderr
    took = dict(tuple(map(int, line.split())) for line in r.stdout.split("\n") if line.strip())
    assert sorted(took) == [100, 700, 1500]
    # (the calls around it: tens of µs on the chip; the emulator running the spin measured
    # {100: 169, 700: 723, 1500: 1522}, skipping it {100: 168, 700: 723, 1500: 1523})
    assert all(us <= took[us] <= us + 100 for us in took), took
    assert board.status()["skipped_ns"] - before >= 1_000_000  # most of the 1.3 ms spun (1500: 1 ms of it waits)
    back_to_table(board)


def test_ctrl_c_in_a_line_is_data_and_a_line_of_ctrl_c_stops_the_table(board: Rp2Board) -> None:
    # Issue 30 (8): over the chip's USB CDC, with main.run's kbd_intr(-1), a 0x03 inside a line
    # is a byte of that line (here: a command with no id, refused as such) and the table plays
    # on; a line of nothing but Ctrl-C (what mpremote sends to connect) stops it for the REPL.
    with Link(board.port, timeout=30) as link:
        link.hello(timeout=60)
        link.drain()
        link.send_raw(b'{"cmd": "state", "x": "a\x03b"}\n')
        err = wait_for(link, "error")
        assert err["id"] is None and err["msg"].startswith('missing "id"'), err
        link.send_raw(b"noise\x03\n")
        assert "not JSON" in wait_for(link, "error")["msg"]
        assert board.mode == "table" and link.hello(timeout=60)["layout"] == "fortyfives"
        link.send_raw(b"\r\x03\r")
        assert board.wait_mode("repl", 60), board.mode
    r = mpremote(board.port, "exec", "import micropython; print('ok')")  # Ctrl-C works again
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
    back_to_table(board)


def test_files_outlive_a_reset_and_a_new_chip(board: Rp2Board, flash_dir: Path) -> None:
    r = mpremote(board.port, "exec", "with open('keep.txt', 'w') as f: f.write('%d' % 4242)")
    assert r.returncode == 0, r.stderr
    back_to_table(board)
    assert mpremote(board.port, "cat", ":keep.txt").stdout.strip() == "4242"
    back_to_table(board)
    board.close()  # the flash file is all a new chip gets
    again = Rp2Board("pico-i2c-4seat", flash_dir=flash_dir, repl=True)
    again.start(timeout=BOOT_S)
    try:
        assert mpremote(again.port, "cat", ":keep.txt").stdout.strip() == "4242"
    finally:
        again.close()
    board.start(timeout=BOOT_S)


def test_a_button_on_gpio_is_seen_and_idle_buttons_read_high(board: Rp2Board) -> None:
    # Idle high: the firmware would otherwise see k0 held at power-up (maintenance mode).
    assert board.mode == "table"
    with Link(board.port, timeout=30) as link:
        link.hello(timeout=60)
        board.press("k4")  # "pass" on the Forty-Fives layout
        msg = link.wait_for(lambda m: m.get("type") in ("event", "verdict") and m.get("from") == "button k4", 60)
    assert msg is not None, "the table did not see button k4"


def test_the_seats_say_buttons_and_a_teams_agree_button_reach_the_host(board: Rp2Board) -> None:
    # issue 33: the say buttons sit on GP0, GP1, GP2 and GP28 (GP0 and GP1 are UART0's by default)
    with Link(board.port, timeout=30) as link:
        link.hello(timeout=60)
        for seat, button in enumerate(("say0", "say1", "say2", "say3")):
            board.press(button)
            msg = link.wait_for(lambda m: m.get("type") == "say" and m.get("from") == "button " + button, 60)
            assert msg == {"type": "say", "seat": seat, "from": "button " + button}, (button, msg)
        board.press("ok1")  # the game goes on: East-West's agree is their consent, told to the host
        msg = link.wait_for(lambda m: m.get("type") in ("consent", "verdict", "agree"), 60)
    assert msg == {"type": "consent", "team": 1, "answer": "agree", "from": "button ok1"}, msg


def test_the_board_check_is_kept_and_an_edited_board_file_is_checked_again(board: Rp2Board, tmp_path: Path) -> None:
    # The image keeps its check of the board file (table/checkedboard.py) under the file's
    # hash: the next boot builds the board from it. A maker's edit that breaks the file is
    # checked again at the next boot, which stops with the checker's words.
    path = ":boards/pico-i2c-4seat.json"
    kept = mpremote(board.port, "cat", ":board-checked.json")
    assert kept.returncode == 0, kept.stderr
    key = kept.stdout.splitlines()[0].split()
    good = tmp_path / "good.json"
    assert mpremote(board.port, "cp", path, str(good)).returncode == 0
    assert key[1:] == ["boards/pico-i2c-4seat.json", hashlib.sha256(good.read_bytes()).hexdigest()], key
    broken = tmp_path / "broken.json"
    broken.write_text(good.read_text().replace('"bus": "i2c0"', '"bus": "i2c7"', 1))
    try:
        assert mpremote(board.port, "cp", str(broken), path).returncode == 0
        assert board.reset(timeout=BOOT_S) == "repl"  # the table did not start
        said = mpremote(board.port, "cat", ":boot-error.txt").stdout
        assert "pico-i2c-4seat.json" in said and "i2c7" in said, said
    finally:
        assert mpremote(board.port, "cp", str(good), path).returncode == 0
    back_to_table(board)
    again = mpremote(board.port, "cat", ":board-checked.json")
    assert again.stdout.splitlines()[0] == kept.stdout.splitlines()[0]  # the good file's check, kept anew
    back_to_table(board)


def test_a_button_held_at_power_up_is_maintenance_mode(board: Rp2Board) -> None:
    board.hold("k0", True)
    try:
        assert board.reset(timeout=BOOT_S) == "repl"  # main.py left the table off
    finally:
        board.hold("k0", False)
    back_to_table(board)


def test_led_colours_and_the_piezo_tone_are_read_from_their_pins(board: Rp2Board) -> None:
    code = ("from neopixel import NeoPixel; from machine import Pin, PWM\n"
            "n = NeoPixel(Pin(22), 9)\n"
            "n[3] = (10, 200, 30); n[8] = (255, 0, 7); n.write()\n"
            "p = PWM(Pin(15)); p.freq(1319); p.duty_u16(32768)\n")
    r = mpremote(board.port, "exec", code)
    assert r.returncode == 0, r.stderr
    px = board.pixels()
    assert len(px) == 10  # the 4-seat board's chain: nine zones and the deal pad
    assert px[3] == (10, 200, 30) and px[8] == (255, 0, 7) and px[0] == (0, 0, 0)
    tone = board.tone()
    assert tone is not None and abs(tone["freq"] - 1319) <= 2 and abs(tone["duty"] - 0.5) < 0.01
    back_to_table(board)


def test_the_watchdog_ends_a_stuck_loop_and_the_game_resumes(board: Rp2Board) -> None:
    with Link(board.port, timeout=30) as link:
        link.new("fortyfives")
        before = link.hello(timeout=60)
        games = link.games()
    boots = board.status()["boots"]
    stuck = mpremote_bg(board.port, "exec", "import machine\nw = machine.WDT(timeout=300)\nwhile True:\n    pass\n")
    try:
        deadline = time.monotonic() + BOOT_S
        while board.status()["boots"] == boots and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        stuck.kill()
        stuck.wait()
    assert board.wait_mode("table", BOOT_S)
    st = board.status()
    assert st["boots"] == boots + 1 and st["last_stop"] == "watchdog"
    with Link(board.port, timeout=30) as link:
        after = link.hello(timeout=60)
        assert link.games() == games
    assert after["game"] == before["game"] and after["seq"] == before["seq"]


def test_a_power_cut_inside_a_flash_program_leaves_a_mountable_filesystem(board: Rp2Board) -> None:
    r = mpremote(board.port, "exec", "with open('cut.txt', 'w') as f: f.write('old')")
    assert r.returncode == 0, r.stderr
    cuts = board.status()["boots"]
    # The next program of the flash is cut half-way; the write below is what it was doing.
    writer = mpremote_bg(board.port, "exec", "with open('cut.txt', 'w') as f: f.write('new' * 400)")
    try:
        reply = board.power_cut_at(op_kind="program", frac=0.5, timeout=BOOT_S)
    finally:
        writer.kill()
        writer.wait()
    assert reply["flash_ops"]["program"] >= 1
    assert board.status()["boots"] == cuts + 1 and board.status()["last_stop"] == "power"
    r = mpremote(board.port, "exec", "import os\nprint(os.listdir())\ntry:\n print(len(open('cut.txt').read()))\n"
                 "except OSError as e:\n print('gone', e)\n")
    assert r.returncode == 0, r.stderr
    # littlefs is copy-on-write: the file is the old one or the new one, never a mix.
    assert r.stdout.split()[-1] in ("3", "1200"), r.stdout
    back_to_table(board)


def test_calls_take_their_frames_from_the_python_stack(board: Rp2Board) -> None:
    """The image runs with MicroPython's Python stack (tools/firmware/usermod/cardtable_pystack.c):
    every call's frame, however large, is on it, deeper calls deeper, and none is searched for
    in the heap (a third of the table's loop on the stock build: bench/rp2profile.py)."""
    if board.image != FROZEN_UF2:
        pytest.skip("the stock image has no Python stack: `make firmware` builds the one that has")
    code = ("import micropython\n"
            "def deep(n, a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8, i=9, j=10, k=11):\n"
            "    return micropython.pystack_use() if n == 0 else deep(n - 1)\n"
            "print(deep(0), deep(10))\n")
    r = mpremote(board.port, "exec", code)
    assert r.returncode == 0, r.stderr
    one, eleven = (int(x) for x in r.stdout.split())
    assert one >= 12 * 4  # the frame's twelve locals are on the Python stack
    assert eleven >= one + 10 * 12 * 4  # ... and so are ten more of them, one per call
