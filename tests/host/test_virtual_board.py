"""The virtual board: firmware/main.py on real MicroPython behind a pty, like a Pico on USB.

mpremote (the real tool, as a subprocess, and its SerialTransport) lists and copies files on
it; the serial link answers; tags laid on the emulated readers become plays; the flash
survives a restart and a power cut; a pulled cable is survived by the host's link.
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hostsupport import need_node

pytest.importorskip("termios")  # ptys are POSIX only

from cardtable_host.board.link import CommandError, Link  # noqa: E402
from cardtable_host.sim.board import VirtualBoard  # noqa: E402
from cardtable_host.sim.table import FOREIGN, VirtualTable  # noqa: E402

need_node()


def mpremote(port: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mpremote", "connect", port, *args],
                          capture_output=True, text=True, timeout=timeout)


def wait_for(link: Link, mtype: str, timeout: float = 10, **match: object) -> dict:
    msg = link.wait_for(lambda m: m.get("type") == mtype and all(m.get(k) == v for k, v in match.items()),
                        timeout)
    assert msg is not None, "no %s %s from the board within %g s" % (mtype, match, timeout)
    return msg


def test_mpremote_lists_copies_and_resets_the_virtual_board(tmp_path: Path) -> None:
    with VirtualBoard("pico-i2c-2seat", game="california-jacks") as vb:
        assert vb.port.startswith("/dev/pts/") and vb.mode == "table"
        ls = mpremote(vb.port, "fs", "ls", ":")
        assert ls.returncode == 0, ls.stderr
        names = ls.stdout.split()
        for want in ("main.py", "lib/", "boards/", "config.json"):
            assert want in names, ls.stdout
        assert vb.mode == "repl"  # mpremote's Ctrl-C stopped the table, as on a Pico
        lib = mpremote(vb.port, "fs", "ls", ":lib/cardtable")
        sizes = dict(reversed(line.split()) for line in lib.stdout.splitlines()[1:] if line.strip())
        assert int(sizes["link.mpy"]) > 500, lib.stdout  # the .mpy build, with real sizes

        local = tmp_path / "hello.txt"
        local.write_text("hello, board\n" * 200)
        cp = mpremote(vb.port, "fs", "cp", str(local), ":hello.txt")
        assert cp.returncode == 0, cp.stderr
        cat = mpremote(vb.port, "fs", "cat", ":hello.txt")
        assert cat.stdout == local.read_text()
        missing = mpremote(vb.port, "fs", "cat", ":no-such-file.txt")
        assert missing.returncode == 1 and "No such file or directory" in missing.stderr

        run = mpremote(vb.port, "exec", "import json; print(json.load(open('config.json'))['layout'])")
        assert run.stdout.strip() == "california-jacks"

        reset = mpremote(vb.port, "reset")  # machine.reset(): the table boots again
        assert reset.returncode == 0, reset.stderr
        assert vb.wait_mode("table", 20)
        with Link(vb.port) as link:
            hello = link.hello()
            assert hello["board"] == "pico-i2c-2seat" and hello["game"]["game"] == "california-jacks"


def test_serial_transport_writes_and_reads_files_in_the_raw_repl() -> None:
    from mpremote.transport_serial import SerialTransport

    data = os.urandom(3000)
    with VirtualBoard("pico-i2c-2seat", game="nexus") as vb:
        t = SerialTransport(vb.port, baudrate=115200)
        try:
            t.enter_raw_repl(soft_reset=True)  # Ctrl-C, Ctrl-A, Ctrl-D: a clean MicroPython
            assert t.eval("1 + 2") == 3
            t.fs_mkdir("data")
            t.fs_writefile("data/blob.bin", data)
            assert t.fs_readfile("data/blob.bin") == data
            assert "blob.bin" in [e.name for e in t.fs_listdir("data")]
            assert t.fs_stat("data/blob.bin").st_size == len(data)
            with pytest.raises(OSError) as missing:
                t.fs_stat("data/none.bin")
            assert missing.value.errno == 2  # ENOENT, as a Pico's littlefs says it
            t.exit_raw_repl()
        finally:
            t.close()
        assert vb.mode == "repl"
        assert vb.reset() == "table"
        status = vb.status()
        assert status["mode"] == "table" and status["heap_over"] == 0
        # a Pico's 192 KB for the table, plus the emulated readers' share (a real board has none)
        assert status["heap_budget"] == 192 * 1024 + 20 * 1024 + 7 * 1024  # 7 readers: 6 zones + the deal pad
        assert 0 < status["heap_live_max"] <= status["heap_budget"]


def test_a_table_that_keeps_more_alive_than_the_heap_is_a_fault_on_the_link() -> None:
    # 120 KB (and the emulated readers' share): less than a two-seat table keeps alive
    with VirtualBoard("pico-i2c-2seat", game="california-jacks", heap="120k") as vb, Link(vb.port) as link:
        link.hello()
        assert vb.reset() == "table"  # (said once a boot: again, now that the link listens)
        fault = wait_for(link, "fault", kind="error")
        status = vb.status()
        assert "the table holds" in fault["msg"] and "more than a Pico's %d" % status["heap_budget"] in fault["msg"]
        assert status["mode"] == "table" and status["heap_over"] > 0
        assert status["heap_live_max"] > status["heap_budget"]


def test_the_link_answers_hello_commands_and_garbage() -> None:
    with VirtualBoard("pico-i2c-2seat", game="california-jacks") as vb, Link(vb.port) as link:
        hello = link.hello()
        assert hello["proto"] == 1 and hello["fw"] and hello["layout"] == "california-jacks"
        link.drain()
        link.send_raw(b"this is not json\n")
        err = wait_for(link, "error")
        assert err["id"] is None and "JSON" in err["msg"]
        with pytest.raises(CommandError) as bad:
            link.command("fly")
        assert "unknown command" in bad.value.msg
        state = link.state()
        assert state["view"]["game"] == "california-jacks" and state["view"]["phase"] == "deal"
        assert link.config()["zones"]["c"] == "up"


def test_tags_on_the_virtual_table_are_plays_verdicts_and_faults() -> None:
    with VirtualBoard("pico-i2c-2seat", game="california-jacks") as vb, Link(vb.port) as link:
        table = VirtualTable(vb, "pico-i2c-2seat", "california-jacks")
        link.hello()
        link.drain()
        table.lay("c", "9S")  # the cut card: deals the hand, spades are trump
        deal = wait_for(link, "event", **{"from": "zone c"})
        assert deal["action"] == {"act": "deal", "up": ["9S"]}
        table.lift("c")
        leader = link.state()["view"]["turn"][0]
        other = 1 - leader
        table.lay(table.zone("play", other), "KH")  # out of turn
        verdict = wait_for(link, "verdict")
        assert verdict["seat"] == other and verdict["reason"].startswith("not your turn")
        table.lift(table.zone("play", other))
        table.lay(table.zone("play", leader), "QH")
        play = wait_for(link, "event", **{"from": "zone " + table.zone("play", leader)})
        assert play["action"] == {"seat": leader, "act": "play", "card": "QH"}
        table.lift(table.zone("play", leader))

        table.lay_tag("c", FOREIGN["bank"])  # a bank card on a reader: a fault, not a play
        fault = wait_for(link, "fault", kind="tag")
        assert fault["zone"] == "c"
        table.lift("c")

        vb.kill_reader("s0")
        down = wait_for(link, "fault", kind="reader")
        assert down["zone"] == "s0" and "stopped answering" in down["msg"]
        vb.revive_reader("s0")
        up = wait_for(link, "fault", kind="reader", cleared=True, timeout=15)
        assert up["zone"] == "s0"
        assert len(vb.pixels()) == 7 and any(  # one LED per reader, the deal pad's too
            p != (0, 0, 0) for p in vb.pixels())


def test_a_card_laid_again_or_swapped_at_once_after_a_lift_is_seen_by_the_board() -> None:
    """A hand that lifts a card and lays one at once: the same card is laid once the board has
    seen its pad empty (else the board would see nothing happen), another goes down at once
    and the board sees the swap: both are judged."""
    with VirtualBoard("pico-i2c-2seat", game="california-jacks") as vb, Link(vb.port) as link:
        table = VirtualTable(vb, "pico-i2c-2seat", "california-jacks")
        link.hello()
        link.drain()
        table.lay("c", "9S")
        wait_for(link, "event", **{"from": "zone c"})
        table.lift("c")
        leader = link.state()["view"]["turn"][0]
        pad = table.zone("play", leader)
        table.lay(pad, "QH")
        wait_for(link, "event", **{"from": "zone " + pad})
        for card in ("KD", "KD", "KC"):  # swapped at once, the same laid again, swapped again
            table.lift(pad, wait=False)
            link.drain()
            table.lay(pad, card)
            verdict = wait_for(link, "verdict", **{"from": "zone " + pad})
            assert verdict["action"]["card"] == card and verdict["reason"].startswith("not your turn"), verdict


def test_the_flash_survives_a_power_cut_and_a_restart(tmp_path: Path) -> None:
    flash = tmp_path / "flash"
    with VirtualBoard("pico-i2c-2seat", flash_dir=flash, game="california-jacks") as vb:
        assert (flash / "main.py").exists() and (flash / "lib" / "cardtable").is_dir()
        with Link(vb.port) as link:
            link.hello()
            vb.place("c", "9S")
            vb.lift("c")
            lead = link.state()["view"]["turn"][0]
            vb.place("s%d" % lead, "KH")
            vb.lift("s%d" % lead)
            assert link.state()["seq"] == 2
            view = link.state()["view"]
        vb.power_cut()  # no warning, no Ctrl-C: the journal is what was written
        assert vb.mode == "table"
        with Link(vb.port) as link:
            hello = link.hello()
            assert hello["seq"] == 2 and link.state()["view"] == view
    journals = sorted((flash / "games").glob("*.jsonl"))
    assert journals and len(journals[-1].read_text().splitlines()) == 3  # header + 2 actions
    with VirtualBoard(None, flash_dir=flash) as vb, Link(vb.port) as link:  # the flash as it was
        hello = link.hello()
        assert hello["game"]["game"] == "california-jacks" and hello["seq"] == 2
        assert link.log() == [line for line in journals[-1].read_text().splitlines()]


def test_a_pulled_cable_is_survived_by_the_link() -> None:
    with VirtualBoard("pico-i2c-2seat", game="nexus") as vb, Link(vb.stable_port) as link:
        link.hello()
        link.drain()
        vb.unplug()
        wait_for(link, "link", up=False)
        with pytest.raises(Exception):
            link.hello(timeout=0.5)
        vb.replug()
        wait_for(link, "link", up=True)
        assert link.hello()["layout"] == "nexus"


def test_closing_leaves_no_process_thread_or_descriptor() -> None:
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("counting open descriptors needs Linux's /proc")

    def fds() -> int:
        return len(os.listdir("/proc/self/fd"))

    before_fds, before_threads = fds(), threading.active_count()
    vb = VirtualBoard("pico-i2c-2seat", game="nexus").start()
    pid = vb._proc.pid if vb._proc else -1
    with Link(vb.port) as link:
        link.hello()
    vb.close()
    time.sleep(0.1)
    assert not vb.alive and fds() == before_fds and threading.active_count() == before_threads
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_raw_paste_mode_carries_code_longer_than_its_window() -> None:
    """mpremote's raw-paste mode (MicroPython's flow control) is served, not declined."""
    from mpremote.transport import TransportExecError
    from mpremote.transport_serial import SerialTransport

    lines = ["x%d = %d" % (i, i) for i in range(60)]  # ~600 bytes: several 128-byte windows
    with VirtualBoard("pico-i2c-2seat", game="nexus") as vb:
        t = SerialTransport(vb.port, baudrate=115200)
        try:
            t.enter_raw_repl(soft_reset=True)
            out = t.exec("\n".join(lines) + "\nprint(sum([%s]))" % ", ".join("x%d" % i for i in range(60)))
            assert out.splitlines() == [b"1770"]
            assert t.use_raw_paste  # the board said R\x01: mpremote keeps using raw-paste
            with pytest.raises(TransportExecError) as err:
                t.exec("print('before')\nraise ValueError('pasted')")
            assert err.value.error_output.splitlines()[-1] == "ValueError: pasted"
            assert t.eval("6 * 7") == 42
            t.exit_raw_repl()
        finally:
            t.close()
