"""Power cuts on the rp2 board's real flash path (littlefs on the emulated chip's flash, the
journal on top): cuts at random times, part-way into flash erases and programs, again while
the next chip boots, and inside a `new` command; a new chip booted from the flash each time,
checked against what the host saw accepted (see host/cardtable_host/sim/powercut.py). And a
flash with no room left: the table says so and goes on refereeing.

Trials: $CARDTABLE_RP2_POWERCUT_TRIALS (default 10, two of each kind, cut while the host plays
on). Each costs a play and a reboot of the chip or two: ~2.5 s of CPU, ~3 s of wall time on an
idle machine, up to ~10 s on a loaded one. The bulk of the trials are replayed on recorded plays
(test_rp2_powercut_replay_*.py, 100; `make bench-long` runs 400 replayed and 50 live); here
too: a replayed cut's flash is byte for byte the flash a live cut at the same point leaves.
What this file adds to the replayed ones is the live runner itself (the chip that boots plays
on for the next trial): two trials of each kind show it, as 25 did.
"""
from __future__ import annotations

import concurrent.futures
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest
from hostsupport import need_node

pytest.importorskip("termios")  # ptys are POSIX only
need_node()

from cardtable import games, record  # noqa: E402
from cardtable.rng import Random  # noqa: E402
from cardtable.table import feedback  # noqa: E402
from cardtable_host.board.link import Link  # noqa: E402
from cardtable_host.sim import powercut  # noqa: E402
from cardtable_host.sim.rp2board import Rp2Board, missing  # noqa: E402

if missing():
    pytest.skip("the rp2 board cannot run: %s" % missing(), allow_module_level=True)

TRIALS = int(os.environ.get("CARDTABLE_RP2_POWERCUT_TRIALS") or 10)


@pytest.fixture
def board(tmp_path: Path) -> Iterator[Rp2Board]:
    b = Rp2Board("pico-i2c-2seat", flash_dir=tmp_path / "flash", game="california-jacks", speed=0)
    b.start(timeout=300)
    try:
        yield b
    finally:
        b.close()


def test_power_cuts_lose_or_double_no_accepted_action_and_the_game_resumes_exactly(board: Rp2Board) -> None:
    with Link(board.port, timeout=30) as link:
        link.hello()
        tally = powercut.run(board, link, TRIALS, seed=7)
    assert tally["failures"] == [], tally["failures"]
    kinds = tally["by_kind"]
    assert tally["trials"] == TRIALS and all(kinds[k] >= TRIALS // len(powercut.KINDS) for k in powercut.KINDS)
    in_flight = sum(n for o, n in tally["outcomes"].items() if o.startswith("in-flight"))
    assert in_flight >= (kinds["erase"] + kinds["program"]) // 2  # cuts inside erases and programs fell mid-action
    # every reboot trial (and some new ones) cut the next chip again; most of those cuts fell
    # while it booted (one inside a flash program misses when the boot had nothing to repair),
    # each booting a further chip
    fell, missed = tally["reboot_cuts"]["fell"], tally["reboot_cuts"]["missed"]
    assert fell + missed >= kinds["reboot"] and fell >= (fell + missed) // 2
    # some cuts fell inside the new game's writes (its answer never came)
    assert sum(n for o, n in tally["outcomes"].items() if o in ("new game kept", "new game dropped")) >= 1
    assert board.status()["boots"] == TRIALS + 1 + fell  # every cut booted a new chip from the flash


@pytest.mark.parametrize("op_kind", ["program", "erase"])
def test_a_replayed_cut_leaves_the_flash_byte_for_byte_as_a_live_cut_there(board: Rp2Board, op_kind: str) -> None:
    # sim/cutreplay.py builds each trial's flash from the record of a play; here the same play
    # is cut live part-way into a flash operation of an action, and the two flashes compared.
    with Link(board.port, timeout=30) as link:
        link.hello()
        link.new("california-jacks", seats=2)
        game = games.load("california-jacks", seats=2)
        rng = Random(3)
        for _ in range(3):  # a deal and two cards: the journal is a flash block now
            action = game.bot_action(rng)
            link.command("act", 60, True, action=record.encode(game, action))
            game.apply(action)
        board.record(True)
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            cut = pool.submit(board.power_cut_at, op_kind=op_kind, frac=0.37, off_ms=-1, timeout=120)
            time.sleep(0.2)  # armed before the action reaches the chip
            sent = pool.submit(link.command, "act", 5, False, action=record.encode(game, game.bot_action(rng)))
            at_ns = cut.result()["at_ns"]
            concurrent.futures.wait([sent])
    board.sync()
    live = board.flash_file().read_bytes()
    rec = board.record(False)
    assert rec["broken"] == "the chip stopped"  # the record ends with the cut chip
    k = len(rec["ops"]) - 1
    kind, start, ns = rec["ops"][k][:3]
    assert kind == op_kind and start < at_ns < start + ns  # the cut fell inside the op, the record's last
    board.restore(k, at_ns - start, off=True)
    assert board.flash_file().read_bytes() == live
    if op_kind == "program":  # a program of journal text: neither undone nor done, but part-way
        for whole in (k, k + 1):  # (an erase may find its sector erased already)
            board.restore(whole, None, off=True)
            assert board.flash_file().read_bytes() != live
    assert board.reset() == "table"


def test_a_full_flash_is_a_journal_fault_and_the_table_plays_on(board: Rp2Board) -> None:
    # Fill littlefs to the last block (the REPL stops the table, as mpremote does on a Pico).
    fill = ("import os\nf = open('filler.bin', 'wb')\nb = bytes(4096)\n"
            "try:\n    while True:\n        f.write(b)\n        f.flush()\nexcept OSError as e:\n    print('full', e.errno)\n"
            "f.close()\nprint(os.statvfs('/')[3])\n")
    r = subprocess.run([sys.executable, "-m", "mpremote", "connect", board.port, "exec", fill],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and "full 28" in r.stdout, r.stdout + r.stderr  # ENOSPC
    assert board.reset() == "table"
    with Link(board.port, timeout=30) as link:
        link.hello()
        board.place("c", "9S")  # the cut card: the deal
        board.lift("c", wait=False)
        fault = None
        # The first lines may still fit where littlefs has room (inline in its metadata); play
        # on until a line needs a block it cannot have.
        for card in ("KH", "QH", "JH", "10H", "9H", "8H", "7H", "6H", "5H", "4H", "3H", "2H"):
            view = link.state()["view"]
            for _ in range(120):  # the emulated chip may still be dealing: wait for a turn
                if view["turn"]:
                    break
                time.sleep(0.5)
                view = link.state()["view"]
            assert view["turn"], view
            turn = view["turn"][0]
            # Laid and lifted without waiting for the scanner's polls, as players do: a pad the
            # play has just left is polled only every few laps (table/scanner.py, rare), and
            # waiting there for 3-4 polls took ~2 s of the chip's clock a card.
            board.place("s%d" % turn, card, wait=False)
            m = link.wait_for(lambda m: m.get("type") == "fault" and m.get("kind") == "journal"
                              or m.get("type") == "event" and m["action"].get("card") == card, 60)
            assert m is not None, card
            if m["type"] == "fault":
                fault = m
                event = link.wait_for(lambda m: m.get("type") == "event", 60)
                break
            board.lift("s%d" % turn, wait=False)
        assert fault is not None and ("28" in fault["msg"] or "ENOSPC" in fault["msg"]), fault
        # The zone's LED (s0/s1: LEDs 0/1, decoded from the WS2812 data pin) flashes the fault
        # colour for 1.5 s of emulated time once the loop draws it.
        seen = []
        for _ in range(100):
            seen.append(board.pixels()[turn])
            if seen[-1] == feedback.COLOURS["fault"]:
                break
            time.sleep(0.05)
        assert seen[-1] == feedback.COLOURS["fault"], seen
        assert event is not None and event["action"]["card"] == card and event["seq"] is None  # it stands
        board.lift("s%d" % turn, wait=False)
        other = 1 - link.state()["view"]["turn"][0]
        board.place("s%d" % other, "AC", wait=False)  # out of turn: still refereed
        verdict = link.wait_for(lambda m: m.get("type") == "verdict", 60)
        assert verdict is not None and "not your turn" in verdict["reason"]
