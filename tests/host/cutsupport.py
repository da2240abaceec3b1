"""The replayed power-cut trials (host/cardtable_host/sim/cutreplay.py) as the tests run them:
test_rp2_powercut_replay_*.py each record their own seeded play on a fresh rp2 board and place
their share of the cuts on it (one file per share, so pytest-xdist's workers split them).

Trials per file: $CARDTABLE_RP2_REPLAY_TRIALS (default 25: four files, 100 in all, every kind
20 times, 5 on each of the four plays). Each costs one boot of the emulated chip (two when a
second cut falls in it) and its checks: ~0.3-0.5 s of emulated time and ~1-1.5 s of wall time
on an idle machine; the recorded play ~0.09 s of emulated time an action, about as much wall
time (file 1, 70 actions and 25 trials: 54 s of CPU alone, 2026-11-29). Every
other cut at a time falls after its action's last flash write (sim/cutreplay.py), so each play
has cuts on both sides of the journal's commit point at this count (at 25 trials of uniform
times, file 3 once had none on the kept side). Depth is `make bench-long`'s: 400 replayed, 50
live.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from hostsupport import need_node

TRIALS = int(os.environ.get("CARDTABLE_RP2_REPLAY_TRIALS") or 25)


def replayed_cuts(tmp_path: Path, seed: int, actions: int, news: int, trials: int = TRIALS) -> None:
    """Record a play of `actions` actions and `news` new games on a fresh rp2 board, place
    `trials` cuts on it, and assert that every one resumed exactly."""
    pytest.importorskip("termios")  # ptys are POSIX only
    need_node(module=False)
    from cardtable_host.board.link import Link
    from cardtable_host.sim import cutreplay, powercut
    from cardtable_host.sim.rp2board import Rp2Board, missing

    if missing():
        pytest.skip("the rp2 board cannot run: %s" % missing())
    board = Rp2Board("pico-i2c-2seat", flash_dir=tmp_path / "flash", game="california-jacks", speed=0)
    board.start(timeout=300)
    try:
        with Link(board.port, timeout=30) as link:
            link.hello()
            tally = cutreplay.run(board, link, trials, seed=seed, actions=actions, news=news)
        boots = board.status()["boots"]
    finally:
        board.close()
    # no accepted action lost or doubled, no torn line, every resume exact
    assert tally["failures"] == [], tally["failures"]
    kinds = tally["by_kind"]
    assert tally["trials"] == trials and all(kinds[k] >= trials // len(powercut.KINDS) for k in powercut.KINDS)
    assert all(p["exact"] == p["trials"] for p in tally["per_kind"].values()), tally["per_kind"]
    assert tally["actions"] == actions and tally["games"] >= news + 1
    # cuts fell on both sides of the journal's commit point: actions kept whole and dropped
    outcomes = tally["outcomes"]
    assert outcomes.get("in-flight action kept", 0) >= 1 and outcomes.get("in-flight action dropped", 0) >= 1, outcomes
    in_flight = sum(n for o, n in outcomes.items() if o.startswith("in-flight"))
    assert in_flight >= (kinds["erase"] + kinds["program"]) // 2
    # some cuts fell inside a new game's writes (its answer never came)
    assert sum(n for o, n in outcomes.items() if o in ("new game kept", "new game renumbered", "new game dropped")) >= 1, outcomes
    # every reboot trial (and half the new ones) cut the next chip again, most while it booted
    fell, missed = tally["reboot_cuts"]["fell"], tally["reboot_cuts"]["missed"]
    assert fell + missed >= kinds["reboot"] and fell >= (fell + missed) // 2, tally["reboot_cuts"]
    assert boots == 1 + trials + fell  # every cut booted a new chip from the flash it left
