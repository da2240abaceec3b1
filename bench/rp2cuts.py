"""Power cuts on the rp2 board's real flash path: how many trials ran, of which kinds, what each
resumed (exactly, or with an accepted action lost or doubled), and what each cost.

Two runners, the same kinds of cut and the same checks (bench/README.md): `replayed` trials
(host/cardtable_host/sim/cutreplay.py) place their cuts on one recorded play per board and boot
a new chip from the flash each cut leaves - the bulk, as in CI; `live` trials
(host/cardtable_host/sim/powercut.py) cut the chip while the host plays on. The trials are
shared between `boards` rp2 boards at once (a core each), each with its own seed. Any failure
is a bug (listed in the JSON under failures).
"""

from __future__ import annotations

import os
import resource
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from benchlib import REPO_ROOT

BOARD = "pico-i2c-2seat"
GAME = "california-jacks"
PLAY_ACTIONS = 60  # actions of each board's recorded play (replayed trials) ...
PLAY_NEWS = 6  # ... and new games among them
KEYS = ("trials", "exact", "lost", "doubled", "wrong")


def _cpu_s() -> float:
    """CPU seconds of this process and its reaped children (the chips' node processes)."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        r = resource.getrusage(who)
        total += r.ru_utime + r.ru_stime
    return total


def _on_board(job: Callable[[Any, Any], dict[str, Any]]) -> dict[str, Any]:
    """job(board, link) on one fresh rp2 board; its tally, with the chips booted and the start."""
    from cardtable_host.board.link import Link
    from cardtable_host.sim.rp2board import Rp2Board

    board = Rp2Board(BOARD, game=GAME, speed=0)
    t0 = time.monotonic()
    board.start(timeout=600)
    try:
        with Link(board.port, timeout=60) as link:
            link.hello()
            out = job(board, link)
        out["boots"] = board.status().get("boots")
    finally:
        board.close()
    out["start_s"] = round(time.monotonic() - t0 - out["wall_s"], 1)
    return out


def _replayed(trials: int, seed: int) -> dict[str, Any]:
    from cardtable_host.sim import cutreplay

    return _on_board(lambda board, link: cutreplay.run(board, link, trials, seed=seed, game_id=GAME,
                                                       actions=PLAY_ACTIONS, news=PLAY_NEWS))


def _live(trials: int, seed: int) -> dict[str, Any]:
    from cardtable_host.sim import powercut

    return _on_board(lambda board, link: powercut.run(board, link, trials, seed=seed, game_id=GAME))


def _shared(one: Callable[[int, int], dict[str, Any]], trials: int, seed: int, boards: int) -> dict[str, Any]:
    """trials of one runner split over `boards` boards at once; the merged tally and timings."""
    boards = max(1, min(trials, boards))
    shares = [trials // boards + (1 if i < trials % boards else 0) for i in range(boards)]
    cpu0, t0 = _cpu_s(), time.monotonic()
    def guarded(n: int, s: int) -> dict[str, Any]:
        try:
            return one(n, s)
        except Exception as e:  # noqa: BLE001 - one board's trouble is reported, the other's figures kept
            return {"error": "board with seed %d: %s: %s" % (s, type(e).__name__, e)}

    with ThreadPoolExecutor(max_workers=boards) as pool:
        parts = list(pool.map(guarded, shares, [seed + 1000 * i for i in range(boards)]))
    wall = time.monotonic() - t0
    out: dict[str, Any] = {"trials": 0, "by_kind": {}, "per_kind": {}, "outcomes": {}, "failures": [],
                           "reboot_cuts": {}, "games": 0, "boots": 0,
                           "errors": [p["error"] for p in parts if "error" in p]}
    parts = [p for p in parts if "error" not in p]
    if not parts:
        out["boards"] = boards
        return out
    for i, part in enumerate(parts):
        for key in ("trials", "games", "boots"):
            out[key] += part.get(key) or 0
        for key in ("by_kind", "outcomes", "reboot_cuts"):
            for k, n in part[key].items():
                out[key][k] = out[key].get(k, 0) + n
        for kind, counts in part["per_kind"].items():
            mine = out["per_kind"].setdefault(kind, dict.fromkeys(KEYS, 0))
            for k in KEYS:
                mine[k] += counts[k]
        out["failures"] += [dict(f, board=i) for f in part["failures"]]
        for key in ("actions", "flash_ops", "record_s"):
            if key in part:
                out[key] = out.get(key, 0) + part[key]
    out.update(boards=boards, wall_s=round(wall, 1), start_s=max(p["start_s"] for p in parts),
               per_trial_s=round(wall / max(1, out["trials"]), 2),
               cpu_per_trial_s=round((_cpu_s() - cpu0) / max(1, out["trials"]), 2))
    return out


def measure(trials: int, live: int = 0, seed: int = 1, boards: int = 0) -> dict[str, Any]:
    """`trials` replayed cuts and `live` live ones, each runner on `boards` rp2 boards at once
    (0: one per core, at most 2); their tallies plus timings."""
    sys.path.insert(0, str(REPO_ROOT / "host"))
    from cardtable_host.sim.rp2board import missing

    why = missing()
    if why:
        return {"skipped": why}
    boards = boards or min(2, os.cpu_count() or 1)
    out: dict[str, Any] = {"board": BOARD, "game": GAME, "seed": seed, "failures": []}
    for name, one, n in (("replayed", _replayed, trials), ("live", _live, live)):
        if n > 0:
            out[name] = _shared(one, n, seed, boards)
            out["failures"] += [dict(f, runner=name) for f in out[name]["failures"]]
            out["failures"] += [{"runner": name, "error": e} for e in out[name]["errors"]]
    out["trials"] = sum(out[k]["trials"] for k in ("replayed", "live") if k in out)
    return out


def tables(r: dict[str, Any]) -> list[tuple[str, list[str], list[list[Any]]]]:
    """The report's tables: per runner, the kinds' outcomes, then the details and costs."""
    out = []
    for name, what in (("replayed", "cuts placed on a recorded play, a new chip booted from each cut's flash"),
                       ("live", "cuts while the host plays on")):
        part = r.get(name)
        if not part or not part.get("trials"):
            continue
        rows = [[kind] + [part["per_kind"][kind][k] for k in KEYS] for kind in part["per_kind"]]
        rows.append(["all"] + [sum(p[k] for p in part["per_kind"].values()) for k in KEYS])
        out.append(("rp2 board power cuts, %s: %d trials on %s (%s): %s"
                    % (name, part["trials"], r.get("board"), r.get("game"), what),
                    ["kind", "trials", "resumed exactly", "lost", "doubled", "other failure"], rows))
        rows = [["outcome: " + o, n] for o, n in sorted(part["outcomes"].items())]
        rows += [["reboot: second cut " + k, n] for k, n in sorted(part["reboot_cuts"].items())]
        if name == "replayed":
            rows += [["recorded: actions (new games) over the boards",
                      "%s (%d)" % (part.get("actions"), part.get("games", 0) - part["boards"])],
                     ["recorded: flash erases and programs", part.get("flash_ops")],
                     ["recording s (all boards)", part.get("record_s")]]
        else:
            rows.append(["games played through", part.get("games")])
        rows += [["chips booted", part.get("boots")],
                 ["wall s per trial (%s boards at once)" % part["boards"], part.get("per_trial_s")],
                 ["CPU s per trial", part.get("cpu_per_trial_s")]]
        out.append(("rp2 board power cuts, %s: details" % name, ["", "trials"], rows))
    return out


if __name__ == "__main__":
    import json

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    m = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    result = measure(n, m)
    for title, header, rows in tables(result):
        print(title)
        print("  " + " | ".join(header))
        for row in rows:
            print("  " + " | ".join(str(x) for x in row))
    print(json.dumps(result))
    sys.exit(1 if result["failures"] else 0)
