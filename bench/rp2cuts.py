"""Power cuts on the rp2 board's real flash path (host/cardtable_host/sim/powercut.py): how many
trials ran, where the cuts fell, what the journal kept, and what each cost.

A trial cuts the emulated chip's power at a random time, part-way into a flash erase or
program, during the reboot that follows a cut, or inside a `new` command; it boots a new chip
from the flash and checks the journal and the resumed game against what the host saw accepted.
Any failure is a bug (listed in the JSON under failures). The trials are shared between
`boards` rp2 boards at once (a core each), each with its own seed.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from benchlib import REPO_ROOT

BOARD = "pico-i2c-2seat"
GAME = "california-jacks"


def _cpu_s() -> float:
    """CPU seconds of this process and its reaped children (the chips' node processes)."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        r = resource.getrusage(who)
        total += r.ru_utime + r.ru_stime
    return total


def _one(trials: int, seed: int) -> dict[str, Any]:
    """trials cuts on one fresh rp2 board; powercut.run's tally."""
    from cardtable_host.link import Link
    from cardtable_host.sim import powercut
    from cardtable_host.sim.rp2board import Rp2Board

    board = Rp2Board(BOARD, game=GAME, speed=0)
    t0 = time.monotonic()
    board.start(timeout=600)
    try:
        with Link(board.port, timeout=60) as link:
            link.hello()
            out = powercut.run(board, link, trials, seed=seed, game_id=GAME)
        out["boots"] = board.status().get("boots")
    finally:
        board.close()
    out["start_s"] = round(time.monotonic() - t0 - out["wall_s"], 1)
    return out


def measure(trials: int, seed: int = 1, boards: int = 0) -> dict[str, Any]:
    """Run trials cuts on `boards` rp2 boards at once (0: one per core, at most 2); the
    tally plus timings."""
    sys.path.insert(0, str(REPO_ROOT / "host"))
    from cardtable_host.sim.rp2board import missing

    why = missing()
    if why:
        return {"skipped": why}
    boards = max(1, min(trials, boards or min(2, os.cpu_count() or 1)))
    shares = [trials // boards + (1 if i < trials % boards else 0) for i in range(boards)]
    cpu0, t0 = _cpu_s(), time.monotonic()
    with ThreadPoolExecutor(max_workers=boards) as pool:
        parts = list(pool.map(_one, shares, [seed + 1000 * i for i in range(boards)]))
    wall = time.monotonic() - t0
    out: dict[str, Any] = {"trials": 0, "by_kind": {}, "outcomes": {}, "failures": [],
                           "reboot_cuts": {}, "games": 0, "boots": 0}
    for i, part in enumerate(parts):
        for key in ("trials", "games", "boots"):
            out[key] += part.get(key) or 0
        for key in ("by_kind", "outcomes", "reboot_cuts"):
            for k, n in part[key].items():
                out[key][k] = out[key].get(k, 0) + n
        out["failures"] += [dict(f, board=i) for f in part["failures"]]
    out.update(board=BOARD, game=GAME, boards=boards, seed=seed, wall_s=round(wall, 1),
               start_s=max(p["start_s"] for p in parts),
               per_trial_s=round(wall / max(1, out["trials"]), 2),
               cpu_per_trial_s=round((_cpu_s() - cpu0) / max(1, out["trials"]), 2))
    return out


def tables(r: dict[str, Any]) -> list[tuple[str, list[str], list[list[Any]]]]:
    """The report's tables."""
    rows = [[k, n] for k, n in sorted(r.get("by_kind", {}).items())]
    rows += [["outcome: " + o, n] for o, n in sorted(r.get("outcomes", {}).items())]
    rows += [["reboot: second cut " + k, n] for k, n in sorted(r.get("reboot_cuts", {}).items())]
    rows += [["failures (lost, doubled, torn or not resumed)", len(r.get("failures", []))],
             ["games played through", r.get("games")],
             ["chips booted", r.get("boots")],
             ["wall s per trial (%s boards at once, reboot included)" % r.get("boards"), r.get("per_trial_s")],
             ["CPU s per trial", r.get("cpu_per_trial_s")]]
    return [("rp2 board power cuts: %d trials on %s (%s): cuts at a random time, inside an erase, "
             "inside a program, again during the reboot, inside a new game"
             % (r.get("trials", 0), r.get("board"), r.get("game")), ["", "trials"], rows)]


if __name__ == "__main__":
    import json

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    result = measure(n)
    for title, _, rows in tables(result):
        print(title)
        for row in rows:
            print("  %-60s %s" % tuple(row))
    print(json.dumps(result["failures"], indent=1))
    sys.exit(1 if result["failures"] else 0)
