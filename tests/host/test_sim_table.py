"""The simulated table behaves like the real one where a newcomer looks (issue 15's smaller
items): one journal per game, a Pico's flash figures, a resting board that rests, and
enrolling through the table's own reader on `cardtable sim`."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostsupport import cardtable, need_node

pytest.importorskip("termios")  # ptys are POSIX only

need_node()

PICO_FLASH = 1408 * 1024  # RPI_PICO's littlefs (MICROPY_HW_FLASH_STORAGE_BYTES)


def test_a_fresh_fortyfives_sim_journals_only_its_game() -> None:
    from cardtable_host.board.link import Link
    from cardtable_host.sim.board import VirtualBoard
    from cardtable_host.sim.bots import Bots
    from cardtable_host.sim.table import VirtualTable

    with VirtualBoard("pico-i2c-4seat", game="fortyfives") as vb:
        table = VirtualTable(vb, "pico-i2c-4seat", "fortyfives")
        with Link(vb.port, timeout=10) as link:
            bots = Bots(link, table, seed=26, mistakes=False)
            hello = link.hello()
            assert hello["seq"] == 1  # the board dealt its first hand at boot, unseen
            bots.new_game(None, hello=hello)
            for _ in range(6):  # the bidding goes on from that deal
                assert bots.step()
                bots.settle(0.05)
            assert not bots.divergences, bots.divergences
            kept = link.games()
            assert [g["number"] for g in kept] == [1] and kept[0]["current"], kept
            lines = link.log()
            assert len(lines) == 1 + 1 + 6 and '"act": "deal"' in lines[1]


def test_the_virtual_board_reports_a_picos_flash() -> None:
    from cardtable_host.board.link import Link
    from cardtable_host.sim.board import VirtualBoard

    with VirtualBoard("pico-i2c-2seat", game="nexus") as vb:
        with Link(vb.port, timeout=10) as link:
            free = link.health()["flash_free"]
        # the firmware's .mpy files and boards take some of the 1408 KiB, not gigabytes free
        assert PICO_FLASH - 600 * 1024 < free < PICO_FLASH, free
        r = cardtable("doctor", "--port", vb.port, "--sample", "0.2", "--json", timeout=60)
        told = json.loads(r.stdout.strip().splitlines()[-1])["flash_free"]
        assert PICO_FLASH - 600 * 1024 < told < PICO_FLASH, r.stdout + r.stderr


def _cpu_s(pid: int) -> float:
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs /proc")
def test_a_board_left_alone_rests_and_wakes_for_a_card() -> None:
    from cardtable_host.board.link import Link
    from cardtable_host.sim.board import VirtualBoard

    # the sim's idle loop period (sim/choice.py IDLE_PERIOD_MS) for a board people play or watch
    with VirtualBoard("pico-i2c-2seat", game="california-jacks", period_ms=2) as vb:
        assert vb._proc is not None
        time.sleep(4.0)  # nothing happens: the board settles
        t0, c0 = time.monotonic(), _cpu_s(vb._proc.pid)
        time.sleep(3.0)
        share = (_cpu_s(vb._proc.pid) - c0) / (time.monotonic() - t0)
        assert share < 0.10, "a resting board takes %.0f%% of a core" % (100 * share)
        with Link(vb.port, timeout=10) as link:
            link.drain()
            t = time.monotonic()
            vb.place("c", "9S")  # the cut card: the board deals at once, rested or not
            msg = link.wait_for(lambda m: m.get("type") == "event", 5)
            assert msg is not None and msg["action"]["act"] == "deal"
            assert time.monotonic() - t < 2.0


def test_enroll_through_the_simulated_tables_own_reader_finishes(tmp_path: Path) -> None:
    port_file = tmp_path / "board.port"
    sim = subprocess.Popen([sys.executable, "-m", "cardtable_host.cli", "sim", "nexus", "--seed", "1",
                            "--keep", "-q", "--port-file", str(port_file)],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, env=dict(os.environ, NO_COLOR="1"))
    try:
        assert sim.stdout is not None
        said = []
        for line in sim.stdout:
            said.append(line)
            if "keeps running" in line:
                break
        else:
            raise AssertionError("the simulation ended before keeping the board:\n" + "".join(said[-30:]))
        port = port_file.read_text().strip()
        r = cardtable("enroll", "--game", "nexus", "--board-port", port, "--zone", "s0",
                      "--cards", "AS,KD,QH", "--wait", "20", timeout=90)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "3/3 cards enrolled (3 written, 0 already held their code)" in r.stdout, r.stdout
        assert "QH written and verified on tag 04" in r.stdout, r.stdout
    finally:
        sim.send_signal(signal.SIGINT)
        try:
            sim.wait(timeout=20)
        except subprocess.TimeoutExpired:
            sim.kill()
            sim.wait()
