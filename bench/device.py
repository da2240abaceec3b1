"""MicroPython side: run bench/probe.py on the WebAssembly port under the Pico's heap cap.

Each probe is one Node process (tools/mpy/run.mjs --heap 192k --cap --step step N), so the
collector runs between steps exactly as on the board between top-level calls; the probe's
'@' lines are parsed here. `python bench/device.py --summarize FILE` summarises the output of
`mpremote run bench/probe.py` on a real Pico the same way.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchlib import (BOARDS, FIRMWARE, LIB, MPY_LIB, PICO_HEAP, REPO_ROOT, RUN_MJS, node_binary,
                      slope, summary)

PROBE = Path(__file__).resolve().parent / "probe.py"
BOOTPROBE = Path(__file__).resolve().parent / "bootprobe.py"  # the boot heap: a small script of its own
MAIN = FIRMWARE / "main.py"
GC_TOTAL = re.compile(r"GC: total: (\d+)")
MAX_STEPS = 10_000_000  # the probe ends the run itself (sys.exit) when its plan is done


@dataclass
class ProbeRun:
    records: list[dict[str, Any]] = field(default_factory=list)
    actions: list[tuple[Any, ...]] = field(default_factory=list)
    heap_total: int | None = None
    rc: int = 0
    error: str | None = None


def parse(text: str) -> ProbeRun:
    """Records ('@{...}'), per-action rows ('@a ...') and the heap size from probe output."""
    run = ProbeRun()
    for line in text.splitlines():
        if line.startswith("@{"):
            run.records.append(json.loads(line[1:]))
        elif line.startswith("@a "):
            f = line.split()
            # seed, n, verb, check ns, apply ns, alloc, view ns, view alloc, view len, held
            run.actions.append((int(f[1]), int(f[2]), f[3], *(int(x) for x in f[4:])))
        elif run.heap_total is None:
            m = GC_TOTAL.search(line)
            if m:
                run.heap_total = int(m.group(1))
    return run


def run_probe(args: list[str], mpy: bool = True, timeout: float = 600,
              extra: tuple[str, ...] = (), script: Path = PROBE) -> ProbeRun:
    """Run the probe (or script) with args on the capped WebAssembly MicroPython; lib from .mpy
    or .py; extra: more `--lib HOST:MEMFS` copies."""
    lib = MPY_LIB if mpy else LIB
    main = [] if not MAIN.exists() else ["--lib", f"{MAIN}:/"]  # /main.py, as on the board
    cmd = [node_binary() or "node", str(RUN_MJS), "--heap", "192k", "--cap",
           "--lib", f"{lib}:/lib", "--lib", f"{BOARDS}:/boards", *main,
           *(x for spec in extra for x in ("--lib", spec)),
           "--timeout", str(int(timeout)), "--step", "step", str(MAX_STEPS), str(script), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO_ROOT, timeout=timeout + 30)
    run = parse(proc.stdout)
    run.rc = proc.returncode
    done = any(r.get("k") == "done" for r in run.records)
    if proc.returncode != 0 or not done:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-6:]
        run.error = f"{script.stem} {' '.join(args[:2])[:80]} exited {proc.returncode}: " + " | ".join(tail)
    return run


def _record(run: ProbeRun, kind: str) -> dict[str, Any] | None:
    for r in run.records:
        if r.get("k") == kind:
            return r
    return None


# -- boot --------------------------------------------------------------------------------------

def boot(modules: list[str], mpy: bool) -> dict[str, Any]:
    """Heap the firmware's boot keeps (and the most in use while it loads): main.py's staged
    boot (cardtable.simboot) without the simulated hardware, then the modules it did not load."""
    run = run_probe([",".join(modules)], mpy=mpy, script=BOOTPROBE)
    r = _record(run, "boot")
    if r is None:
        return {"error": run.error or "no boot record"}
    top = sorted(r["modules"].items(), key=lambda kv: -kv[1])
    return {
        "retained": r["retained"],
        "peak": r["peak"],
        "heap_total": run.heap_total or PICO_HEAP,
        "runner_base": r["base"],
        "failed": r["failed"],
        "by_module": dict(top),
        "error": run.error,
    }


# -- one game ----------------------------------------------------------------------------------

def game_run(name: str, seats: int, seeds: tuple[int, ...], max_actions: int, boot_mods: list[str]) -> ProbeRun:
    """One probe run replaying seeded bot games of one game, the firmware's modules loaded.

    The bots play here and their action tuples are written one per line; the device applies
    the same tuples, so the bots' own cost (and memory) stays off the device.
    """
    with tempfile.TemporaryDirectory(prefix="cardtable-bench-") as tmp:
        write_actions(name, seats, seeds, max_actions, Path(tmp))
        return run_probe(["replay", name, str(seats), "/actions", ",".join(map(str, seeds)),
                          str(max_actions), ",".join(boot_mods)], extra=(f"{tmp}:/actions",))


def tag(x: Any) -> Any:
    """An action in JSON form: a tuple becomes {"()": [items]} (probe.untag reverses it)."""
    if isinstance(x, tuple):
        return {"()": [tag(v) for v in x]}
    if isinstance(x, list):
        return [tag(v) for v in x]
    if isinstance(x, dict):
        return {k: tag(v) for k, v in x.items()}
    return x


def write_actions(name: str, seats: int, seeds: tuple[int, ...], max_actions: int, folder: Path) -> None:
    """FOLDER/SEED.jsonl: the actions of each seeded bot game, at most max_actions."""
    from cardtable import games
    from cardtable.rng import Random

    for seed in seeds:
        g = games.load(name, seats=seats)
        rng = Random(seed)
        lines: list[str] = []
        while not g.over and len(lines) < max_actions:
            a = g.bot_action(rng)
            lines.append(json.dumps(tag(a), separators=(",", ":")))
            g.apply(a)
        (folder / f"{seed}.jsonl").write_text("\n".join(lines) + "\n")


def merge(runs: list[ProbeRun]) -> ProbeRun:
    """Runs of the same seeded games: per action the least time of each (a slice of another
    process's time is not the rules' cost); bytes are the same in every run."""
    good = [r for r in runs if r.actions]
    if not good:
        return runs[0]
    best = good[0]
    rows = {(a[0], a[1]): list(a) for a in best.actions}
    for r in good[1:]:
        for a in r.actions:
            row = rows.get((a[0], a[1]))
            if row is not None:
                for k in (3, 4, 6):
                    row[k] = min(row[k], a[k])
    best.actions = [tuple(rows[(a[0], a[1])]) for a in best.actions]
    best.error = best.error or next((r.error for r in runs if r.error), None)
    return best


def game_summary(run: ProbeRun) -> dict[str, Any]:
    mod = _record(run, "module")
    if mod is None or not run.actions:
        return {"error": run.error or "no game records"}
    total = run.heap_total or PICO_HEAP
    acts = run.actions
    check = [a[3] / 1000 for a in acts]
    apply = [a[4] / 1000 for a in acts]
    both = [(a[3] + a[4]) / 1000 for a in acts]
    alloc = [a[5] for a in acts]
    ends = [r for r in run.records if r.get("k") == "end"]
    first_seed = acts[0][0]
    state_start = acts[0][9]
    peak = max(acts, key=lambda a: a[9])
    # after the action in row i, the state is the next row's `held` (or the game's end record)
    held_after = [(a[1], a[9]) for a in acts]
    used_at_start = mod["used"] + state_start
    free = total - used_at_start
    grow = slope(held_after)
    out: dict[str, Any] = {
        "actions": len(acts),
        "check_us": summary(check, 2),
        "apply_us": summary(apply, 2),
        "action_us": summary(both, 2),
        "alloc_bytes": summary(alloc, 0),
        "view_us": summary([a[6] / 1000 for a in acts], 2),
        "view_alloc_bytes": summary([a[7] for a in acts], 0),
        "view_json_bytes": summary([a[8] for a in acts], 0),
        "module_bytes": mod["bytes"],
        "used_before_game": mod["used"],
        "heap_total": total,
        "state_start": state_start,
        "state_max": peak[9],
        "state_max_at": {"seed": peak[0], "action": peak[1]},
        "retained_per_action": round(grow, 1),
        "free_at_start": free,
        "capacity_actions": int((free) / grow) if grow and grow > 0 else None,
        "games": [{k: e[k] for k in ("seed", "actions", "over", "oom")} for e in ends],
        "boot_failed": mod.get("boot_failed", {}),
        "error": run.error,
        # kept for the latency model, dropped before the JSON is written
        "_samples": {"check_us": check, "action_us": both,
                     # check() of what a card laid on a pad makes (not a deal: the pad deals card by card)
                     "check_play_us": [a[3] / 1000 for a in acts if a[2] != "deal"],
                     "view_us": [a[6] / 1000 for a in acts], "view_len": [a[8] for a in acts]},
    }
    out.update(_without_gc(acts, first_seed, free, ends))
    return out


def _without_gc(acts: list[tuple[Any, ...]], seed: int, free: int, ends: list[dict[str, Any]]) -> dict[str, Any]:
    """How many accepted actions fit in the free heap before a collection must run.

    Walks the first seeded game's actions adding the bytes each check+apply allocated (and,
    in the second figure, also the controller's state report after it) until the heap
    that was free when the game started is used up.
    """
    rows = [a for a in acts if a[0] == seed]
    ended = any(e["seed"] == seed and e["over"] for e in ends)
    out: dict[str, Any] = {}
    for key, cost in (("without_gc", lambda a: a[5]), ("without_gc_with_report", lambda a: a[5] + a[7])):
        used = 0
        n = 0
        for a in rows:
            if used + cost(a) > free:
                break
            used += cost(a)
            n += 1
        filled = n < len(rows)
        whole = sum(cost(a) for a in rows)
        out[key] = {
            "actions": n,
            "heap_filled": filled,
            "games": round(free / whole, 2) if ended and not filled and whole else None,
        }
    return out


# -- the PN532 driver --------------------------------------------------------------------------

def driver() -> dict[str, Any]:
    """CPU of the real PN532 driver per poll on buses that answer at once, and of an idle step."""
    run = run_probe(["driver", "/boards"])
    r = _record(run, "driver")
    if r is None:
        return {"error": run.error or "no driver record"}
    out: dict[str, Any] = {k: r[k] for k in ("i2c", "spi", "step", "polls") if k in r}
    if "step_error" in r:
        out["step_error"] = r["step_error"]
    out["error"] = run.error
    return out


# -- a Pico's output ---------------------------------------------------------------------------

def summarize_file(path: Path) -> str:
    """Per-game medians from a saved `mpremote run bench/probe.py` session."""
    text = path.read_text(errors="replace")
    run = parse(text)
    by_game: dict[str, list[tuple[Any, ...]]] = {}
    current = "?"
    i = 0
    for line in text.splitlines():
        if line.startswith("@{"):
            rec = json.loads(line[1:])
            if rec.get("k") == "module":
                current = rec.get("game", "?")
        elif line.startswith("@a "):
            by_game.setdefault(current, []).append(run.actions[i])
            i += 1
    lines: list[str] = []
    for name, acts in by_game.items():
        s = summary([(a[3] + a[4]) / 1000 for a in acts], 1)
        al = summary([a[5] for a in acts], 0)
        lines.append(f"{name:18} {len(acts):5} actions  check+apply p50 {s['p50']} us  p90 {s['p90']} us  "
                     f"max {s['max']} us  alloc p50 {al['p50']} B")
    d = _record(run, "driver")
    if d:
        lines.append("driver per poll (ns): " + json.dumps({k: d.get(k) for k in ("i2c", "spi", "step")}))
    return "\n".join(lines) or "no probe records found"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Summarise bench/probe.py output from a real board.")
    ap.add_argument("--summarize", type=Path, required=True, metavar="FILE",
                    help="saved output of `mpremote run bench/probe.py`")
    args = ap.parse_args(argv)
    print(summarize_file(args.summarize))
    return 0


if __name__ == "__main__":
    sys.exit(main())
