"""Nerts race resolution: two plays on two foundations N ms apart, how often the earlier one wins.

Two ways a table times a play (the `t` the rules judge a race by, games/nerts.py):

- "poll": the scanner's round robin, one field on at a time; `t` is the poll that first sees
  the card (latency.race: the 12-reader Nerts board, its 6 "left" pads polled every 8th lap).
- "irq" (board "scan": "irq", table/irqwait.py): each foundation's PN532 waits in
  InListPassiveTarget with its field on and pulls its IRQ line low when a card is activated;
  the Pico's interrupt handler takes ticks_us() at that edge. What can still misorder two
  plays: the activation time after the card arrives (a REQA attempt cycle, then anticollision
  and SELECT of a 7-byte UID), the millisecond the rules count in, and a flash erase or program
  in progress: MicroPython's rp2 port runs them with interrupts disabled
  (ports/rp2/rp2_flash.c, begin_critical_flash_section), so an edge that falls in one is timed
  when it ends, and two edges in one erase are timed in GPIO order (a coin toss between them).

`python bench/race.py` runs this section alone: the model at N = 2..100 ms, and on the rp2 board
(an emulated RP2040 running the firmware, the IRQ lines driven at the emulated time each
PN532 answers) two seats racing for each pile N ms apart, each of their cards timed from its
landing to the LED frame that shows its verdict on the emulated clock (issue 35: a play on a
foundation); it prints the tables and writes bench/results/race.json. bench/run.py runs the
same as its `race` section.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import FALLBACK_DRIVER, RESULTS, summary, table  # noqa: E402

APARTS = (2, 5, 10, 20, 30, 50, 100)  # ms between the two plays
RP2_APARTS = (50, 20, 5)
OUT = RESULTS.with_name("race.json")


@dataclass(frozen=True)
class IrqTiming:
    """The IRQ-timed race's inputs, ms; (lo, hi) ranges are sampled uniformly."""

    # A card coming into a waiting field meets the next REQA of the PN532's activation loop
    # within one attempt (estimate: REQA/ATQA and the retry, 0.1-1 ms) ...
    attempt: tuple[float, float] = (0.0, 1.0)
    # ... then anticollision over two cascade levels and SELECT of its 7-byte UID, the field
    # already on (no 5.1 ms power-up guard): the ISO 14443-3 exchange less the guard, as
    # latency.Timing.count (issue 18's 9.7 ms floor less 5.1 ms; upper end an estimate).
    activate: tuple[float, float] = (4.6, 9.9)
    # Flash erases and programs with interrupts off: the journal's flush after each accepted
    # play at the table (latency.Timing.journal: a 4 KiB sector erase, W25Q16JV tSE 45 ms
    # typical, plus page programs), at this rate of accepted plays (all seats together; an
    # estimate for a busy moment of a six-player Nerts round).
    flush: tuple[float, float] = (45.0, 51.4)
    plays_per_s: float = 2.0


def irq_race(trials: int, seed: int, apart_ms: float, t: IrqTiming = IrqTiming()) -> float:
    """The fraction of trials in which the earlier of two plays apart_ms apart gets the earlier
    `t` (a tie goes either way, as the GPIO order decides it: half)."""
    rng = random.Random(seed)
    good = 0.0
    for _ in range(trials):
        span = apart_ms + 200.0
        # other plays' flushes around the race (a Poisson process of starts)
        windows = []
        rate = t.plays_per_s / 1000.0
        x = -t.flush[1] - (rng.expovariate(rate) if rate else span)
        while rate and x < span:
            if x > -t.flush[1]:
                windows.append((x, x + rng.uniform(*t.flush)))
            x += rng.expovariate(rate)
        land_a = rng.uniform(0.0, 100.0)
        stamps = []
        for land in (land_a, land_a + apart_ms):
            edge = land + rng.uniform(*t.attempt) + rng.uniform(*t.activate)
            for w0, w1 in windows:
                if w0 <= edge < w1:
                    edge = w1  # the interrupt waits for the erase to end
                    break
            stamps.append(int(edge))  # the rules count whole ms
        a, b = stamps
        good += 1.0 if a < b else 0.5 if a == b else 0.0
    return good / trials


def model(trials: int = 4000, aparts: Sequence[int] = APARTS) -> dict[str, Any]:
    """Both ways of timing, by ms apart; the polled one on the 12-reader board as latency.race."""
    import latency

    bus = latency.BUSES[0]
    cpu = latency.Cpu.scaled(latency.RP2040_FACTORS["nominal"], FALLBACK_DRIVER,
                             {"check_us": [400.0], "action_us": [800.0], "view_us": [1000.0],
                              "view_len": [400.0]})
    t = IrqTiming()
    busy = IrqTiming(plays_per_s=4.0)
    return {
        "inputs": {"irq": {k: getattr(t, k) for k in t.__dataclass_fields__},
                   "poll": "latency.race: 12 readers on I2C, 6 of them polled every 8th lap, nominal CPU"},
        "poll": {str(d): round(latency.race(12, bus, cpu, trials // 2, 78 + d, float(d), rare=6), 4)
                 for d in aparts},
        "irq": {str(d): round(irq_race(trials, 500 + d, float(d), t), 4) for d in aparts},
        "irq_4_plays_per_s": {str(d): round(irq_race(trials, 600 + d, float(d), busy), 4) for d in aparts},
    }


def rp2(per_apart: int = 10, aparts: Sequence[int] = RP2_APARTS) -> dict[str, Any]:
    """On the rp2 board: races for one pile, the two plays apart ms apart in emulated time."""
    from cardtable_host.sim import rp2board
    from cardtable_host.sim.rp2race import races

    why = rp2board.missing()
    if why:
        return {"skipped": why}
    out = races(per_apart, aparts)
    out["verdict_ms"] = verdicts(out.get("plays") or [])
    plays = out.get("plays") or []
    out["verdict_ms_by_apart"] = {str(d): verdicts([p for p in plays if p.get("apart") == d]) for d in aparts}
    # the later card of each race may wait for the earlier one's work (its journal flush)
    out["verdict_ms_by_order"] = {name: verdicts([p for p in plays if p.get("order") == k])
                                  for k, name in enumerate(("earlier", "later"))}
    return out


def verdicts(plays: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The plays' landing-to-LED-verdict times (ms, emulated clock), and how many showed none."""
    ms = [p["ms"] for p in plays if "ms" in p]
    return {**summary(ms), "plays": len(plays), "no_verdict": len(plays) - len(ms),
            "green": sum(1 for p in plays if p.get("led") == "accepted"),
            "red": sum(1 for p in plays if p.get("led") == "rejected")}


VERDICT_TITLE = ("Nerts, pico-nerts-6, a play on a foundation, rp2 board measured (landing to the LED verdict, "
                 "emulated clock; ms)")


def verdict_table(b: dict[str, Any]) -> tuple[str, list[str], list[list[Any]]] | None:
    """(title, header, rows): the races' plays timed to their LED verdict, all and by ms apart."""
    v = b.get("verdict_ms") or {}
    if not v.get("plays"):
        return None
    rows = [["all"] + [v.get(k, "-") for k in ("p50", "p95", "p99", "max")] + [v["plays"], v["no_verdict"]]]
    split = [("%s ms apart" % d, w) for d, w in (b.get("verdict_ms_by_apart") or {}).items()]
    split += [("the %s card" % o, w) for o, w in (b.get("verdict_ms_by_order") or {}).items()]
    for name, w in split:
        if w.get("plays"):
            rows.append([name] + [w.get(k, "-") for k in ("p50", "p95", "p99", "max")] + [w["plays"], w["no_verdict"]])
    return VERDICT_TITLE, ["", "p50", "p95", "p99", "max", "plays", "no verdict"], rows


def tables(r: dict[str, Any]) -> list[tuple[str, list[str], list[list[Any]]]]:
    """(title, header, rows) of the race section."""
    m = r.get("model") or {}
    out = []
    if m:
        rows = [["poll (model)"] + ["%.1f%%" % (100 * v) for v in m["poll"].values()],
                ["irq (model)"] + ["%.1f%%" % (100 * v) for v in m["irq"].values()],
                ["irq, 4 plays/s (model)"] + ["%.1f%%" % (100 * v) for v in m["irq_4_plays_per_s"].values()]]
        out.append(("Nerts race: the earlier of two plays N ms apart wins (12-reader board)",
                    ["timing"] + ["%s ms" % d for d in m["irq"]], rows))
    b = r.get("rp2") or {}
    if b.get("by_apart"):
        rows = [[d, v["races"], v["earlier_won"], "%.1f%%" % (100 * v["ordered_right"]), v.get("source", "")]
                for d, v in b["by_apart"].items()]
        out.append(("Nerts race on the rp2 board (IRQ edges on the emulated clock)",
                    ["ms apart", "races", "earlier won", "ordered right", "image"], rows))
    led = verdict_table(b)
    if led is not None:
        out.append(led)
    return out


def section(quick: bool = False, with_rp2: bool = True, per_apart: int = 10) -> dict[str, Any]:
    """The bench's race section (per_apart: races on the rp2 board per distance apart)."""
    out: dict[str, Any] = {"model": model(400 if quick else 4000)}
    if with_rp2 and not quick and per_apart > 0:
        try:
            out["rp2"] = rp2(per_apart)
        except Exception as e:  # noqa: BLE001 - the model stands without it
            out["rp2"] = {"error": "%s: %s" % (type(e).__name__, e)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer model trials, no rp2 board")
    ap.add_argument("--no-rp2", action="store_true", help="the model only")
    ap.add_argument("--out", type=Path, default=OUT, help="JSON results (default bench/results/race.json)")
    args = ap.parse_args(argv)
    r = section(args.quick, not args.no_rp2)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(r, indent=1) + "\n")
    for title, header, rows in tables(r):
        print(table(title, header, rows))
    if (r.get("rp2") or {}).get("skipped") or (r.get("rp2") or {}).get("error"):
        print("rp2 board: %s" % (r["rp2"].get("skipped") or r["rp2"].get("error")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
