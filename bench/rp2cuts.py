"""Power cuts on the rp2 board's real flash path (host/cardtable_host/sim/powercut.py): how many
trials ran, where the cuts fell, what the journal kept, and what each cost.

A trial cuts the emulated chip's power at a random time or part-way into a flash erase or
program, boots a new chip from the flash and checks the journal and the resumed game against
what the host saw accepted. Any failure is a bug (listed in the JSON under failures).
"""

from __future__ import annotations

import sys
import time
from typing import Any

from benchlib import REPO_ROOT

BOARD = "pico-i2c-2seat"
GAME = "california-jacks"


def measure(trials: int, seed: int = 1) -> dict[str, Any]:
    """Run trials cuts on one rp2 board; the tally plus timings."""
    sys.path.insert(0, str(REPO_ROOT / "host"))
    from cardtable_host.link import Link
    from cardtable_host.sim import powercut
    from cardtable_host.sim.rp2board import Rp2Board, missing

    why = missing()
    if why:
        return {"skipped": why}
    board = Rp2Board(BOARD, game=GAME, speed=0)
    t0 = time.monotonic()
    board.start(timeout=600)
    try:
        with Link(board.port, timeout=60) as link:
            link.hello()
            out = powercut.run(board, link, trials, seed=seed, game_id=GAME)
        st = board.status()
    finally:
        board.close()
    out["board"] = BOARD
    out["game"] = GAME
    out["boots"] = st.get("boots")
    out["start_s"] = round(time.monotonic() - t0 - out["wall_s"], 1)
    out["per_trial_s"] = round(out["wall_s"] / max(1, out["trials"]), 2)
    out.pop("log", None)
    return out


def tables(r: dict[str, Any]) -> list[tuple[str, list[str], list[list[Any]]]]:
    """The report's tables."""
    rows = [[k, n] for k, n in sorted(r.get("by_kind", {}).items())]
    rows += [["outcome: " + o, n] for o, n in sorted(r.get("outcomes", {}).items())]
    rows += [["failures (lost, doubled, torn or not resumed)", len(r.get("failures", []))],
             ["games played through", r.get("games")],
             ["wall s per trial (reboot included)", r.get("per_trial_s")]]
    return [("rp2 board power cuts: %d trials on %s (%s), cuts at a random time, inside an erase, "
             "inside a program" % (r.get("trials", 0), r.get("board"), r.get("game")), ["", "trials"], rows)]
