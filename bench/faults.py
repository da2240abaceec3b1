"""`make bench` fault figures: the link fuzzed (CPython) and `cardtable referee` on mutated records.

Counts, not timings: lines fuzzed, lines answered, crashes, refused lines that changed the game;
records mutated, tracebacks, malformed records refused without naming their line. The
fuzzers are the tests' own (tests/device/linkfuzz.py, tests/host/recordfuzz.py), run longer.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
for sub in ("tests", "tests/device", "tests/host"):
    if str(REPO / sub) not in sys.path:
        sys.path.insert(0, str(REPO / sub))

TABLES = (("pico-i2c-2seat", "california-jacks"), ("pico-i2c-4seat", "fortyfives"))


def _table(board: str, layout: str) -> Any:
    from cardtable.hw_sim import MemStorage
    from simtable import built, table

    return built(table(board, layout, storage=MemStorage(), history=False))


def link(lines: int, seed: int = 1) -> dict[str, Any]:
    """Fuzz the link with `lines` lines, split over the TABLES; the counts."""
    import linkfuzz

    t0 = time.process_time()
    total = {"lines": 0, "answered": 0, "accepted": 0, "crashes": 0, "changed": 0}
    examples: list[str] = []
    for k, (board, layout) in enumerate(TABLES):
        h = linkfuzz.Harness(_table(board, layout))
        for line in linkfuzz.lines(seed + k, lines // len(TABLES)):
            h.feed(line)
        for key, v in h.report().items():
            total[key] += v
        examples += ["%s: %r -> %s" % (layout, data[:80], why[:120]) for data, why in (h.crashes + h.changed)[:3]]
    total["empty"] = total["lines"] - total["answered"] - total["crashes"]  # truncated to nothing: skipped
    total["cpu_s"] = round(time.process_time() - t0, 1)
    total["examples"] = examples
    return total


def records(count: int, seed: int = 1) -> dict[str, Any]:
    """Referee `count` mutated records; the counts by exit status, tracebacks, unclear errors."""
    import recordfuzz

    t0 = time.process_time()
    out: dict[str, Any] = {"records": 0, "tracebacks": 0, "unclear": 0, "legal": 0, "rejected": 0,
                           "malformed": 0}
    examples: list[str] = []
    for data in recordfuzz.records(seed, count):
        rc, err = recordfuzz.judge(data)
        out["records"] += 1
        if rc not in (0, 1, 2) or "Traceback" in err:
            out["tracebacks"] += 1
            examples.append("%r -> %s" % (data[:80], err.strip().splitlines()[-1][:160] if err.strip() else rc))
        elif rc == 2:
            out["malformed"] += 1
            lines = err.strip().splitlines()
            if len(lines) != 1 or ": line " not in lines[0]:
                out["unclear"] += 1
                examples.append("%r -> %s" % (data[:80], err.strip()[:160]))
        else:
            out["legal" if rc == 0 else "rejected"] += 1
    out["cpu_s"] = round(time.process_time() - t0, 1)
    out["examples"] = examples[:5]
    return out


def report(f: dict[str, Any]) -> str:
    """The section of the printed report."""
    lk, rc = f.get("link") or {}, f.get("records") or {}
    parts = ["\nFaults (CPython fuzzers; bench/faults.py)"]
    if "lines" in lk:
        parts.append(f"  link: {lk['lines']:,} lines fuzzed, {lk['answered']:,} answered ({lk['accepted']:,} ok), "
                     f"{lk['empty']} empty, crashes {lk['crashes']}, refused lines that changed the game "
                     f"{lk['changed']} ({lk['cpu_s']} s CPU)")
    if "records" in rc:
        parts.append(f"  referee: {rc['records']:,} records mutated: {rc['malformed']:,} malformed (exit 2), "
                     f"{rc['rejected']:,} rejected, {rc['legal']:,} legal; tracebacks {rc['tracebacks']}, "
                     f"errors not naming their line {rc['unclear']} ({rc['cpu_s']} s CPU)")
    for ex in (lk.get("examples") or []) + (rc.get("examples") or []):
        parts.append("    " + ex)
    return "\n".join(parts)
