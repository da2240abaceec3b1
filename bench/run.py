"""`make bench`: the firmware's speed, heap, flash size and placement-to-verdict latency.

Per-action cost on CPython and MicroPython, heap on MicroPython under the Pico's cap, games
per second, the .mpy footprint, and a model of the time from a card landing on a pad to its
LED verdict. Figures are reported, not asserted; those over a budget of bench/README.md are
called out. Prints the tables and writes bench/results/bench.json.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import sys
import threading
import time
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchlib  # noqa: E402
from benchlib import (FALLBACK_DRIVER, FALLBACK_WASM_PER_CPYTHON, PICO_HEAP, RESULTS, kib,  # noqa: E402
                      micropython_missing, rel, table)

LATENCY_BUDGET_MS = 100.0  # placement to verdict with 8 readers (bench/README.md, Budgets)
LATENCY_BUDGET_READERS = 8
NERTS_BOARD = "pico-nerts-6"  # issue 35: p95 <= 30 ms for a play on a foundation
HEAP_BUDGET = PICO_HEAP // 2  # firmware + the largest game state within half the heap


@dataclass(frozen=True)
class Plan:
    quick: bool
    seeds: tuple[int, ...]
    max_actions: int
    repeats: int  # runs per game whose per-action minimum is kept
    throughput_s: float
    throughput_cap: int
    trials: int
    fuzz_lines: int  # link lines fuzzed (bench/faults.py)
    fuzz_records: int  # records mutated for the referee
    powercut_trials: int  # rp2 power cuts replayed on recorded plays: a boot of the emulated chip each
    powercut_live: int  # rp2 power cuts while the host plays on: a play and a boot each
    rp2_plays: int  # cards laid by the seat to play on the rp2 board, each timed to its LED verdict
    race_per_apart: int  # Nerts races on the rp2 board per distance apart
    profile_plays: int  # plays of the rp2 board's profile (bench/rp2profile.py)
    rp2_actions: int  # actions per game timed on the rp2 board (its emulated chip runs ~0.05-0.2x a Pico)
    rp2_whole: int  # a whole seeded game's cap for its largest state on the rp2 board (0: not played)
    rp2_stock: bool  # the stock image's figures beside the frozen one's


# `make bench`: every section, sized for about five minutes on a 2-core machine
FULL = Plan(False, (1, 2, 3), 1500, 1, 0.5, 20000, 2000, 100_000, 500, 8, 2, 12, 2, 5, 10, 0, False)
# `make bench-long` (--long): the counts the bench had before issue 35 (well over 15 minutes)
LONG = Plan(False, (1, 2, 3), 1500, 3, 1.0, 20000, 2000, 1_000_000, 5000, 400, 50, 100, 10, 30, 30, 1500, True)
QUICK = Plan(True, (1,), 120, 1, 0.1, 2000, 200, 2000, 50, 0, 0, 0, 0, 0, 0, 0, False)


Guard = Callable[[str, Callable[[], Any]], Any]


def _parser() -> argparse.ArgumentParser:
    """`make bench`'s options."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a fast pass (the smoke test): one seed, fewer actions and trials")
    ap.add_argument("--long", action="store_true",
                    help="the long run (make bench-long): 3 repeats, 10^6 fuzzed lines, 400 + 50 power cuts, "
                         "100 placements, 10 races per distance")
    ap.add_argument("--out", type=Path, default=RESULTS, help=f"JSON results (default {rel(RESULTS)})")
    ap.add_argument("--no-micropython", action="store_true", help="CPython figures and the model only")
    ap.add_argument("--no-rp2", action="store_true",
                    help="skip the rp2 board (the real port on an emulated RP2040; skipped with --quick)")
    ap.add_argument("--powercut-trials", type=int, default=None, metavar="N",
                    help=f"power cuts on the rp2 board placed on recorded plays (default {FULL.powercut_trials}, "
                         f"{LONG.powercut_trials} with --long; "
                         "0: none; skipped with --no-rp2)")
    ap.add_argument("--powercut-live", type=int, default=None, metavar="N",
                    help=f"power cuts on the rp2 board while the host plays on (default {FULL.powercut_live}, "
                         f"{LONG.powercut_live} with --long; 0: none)")
    ap.add_argument("--latency-only", action="store_true",
                    help="only the placement-to-verdict and undo figures: the rp2 board's timings and the model")
    ap.add_argument("--rp2-log", metavar="FILE",
                    help="the rp2 board's placements from a log `python bench/rp2latency.py PLAYS FILE` wrote,"
                         " instead of timing them again")
    ap.add_argument("--rp2-undo", metavar="FILE",
                    help="the rp2 board's undo times from the JSON `python bench/rp2latency.py undo GAMES` printed,"
                         " instead of timing them again")
    ap.add_argument("--no-undo", action="store_true", help="do not time undo on the rp2 board")
    ap.add_argument("--games", help="comma-separated game ids (default: every game that imports)")
    ap.add_argument("--jobs", type=int, default=None,
                    help="MicroPython processes at once (default 1 beside the rp2 board's lane, 2 with --serial)")
    ap.add_argument("--serial", action="store_true",
                    help="every section alone, one after another (each section's CPU seconds measured; "
                         "by default the host's sections and the rp2 board's run in two lanes at once)")
    ap.add_argument("--only", choices=("race", "profile"),
                    help="run one section alone: race (Nerts race resolution, bench/race.py), profile (where "
                         "the rp2 board's chip spends its time, bench/rp2profile.py)")
    return ap


def _only(args: argparse.Namespace) -> int:
    """--only: one section alone, its tables printed and its JSON written."""
    import race
    import rp2profile

    section = race if args.only == "race" else rp2profile
    out = section.section(args.quick, not args.no_rp2)
    for title, header, rows in section.tables(out):
        print(table(title, header, rows))
    for line in _nerts_measured(out) if args.only == "race" else ():
        print(line)
    dest = args.out if args.out != RESULTS else section.OUT
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(_clean(out), indent=1) + "\n")
    print(f"\nresults: {rel(dest)}")
    return 0


def _guard(errors: list[str]) -> Guard:
    """guard(section, fn): fn's result, or its error noted in errors and returned."""
    def guard(section: str, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except Exception as e:  # noqa: BLE001 - one broken section must not lose the others
            errors.append(f"{section}: {type(e).__name__}: {e}")
            traceback.print_exc()
            return {"error": f"{type(e).__name__}: {e}"}

    return guard


class Timings:
    """Each section's wall seconds and its own Python's CPU seconds, and its CPU seconds with its
    child processes (Node, Chromium, ...) where the sections run one at a time (--serial):
    concurrent sections' children are reaped in each other's windows."""

    def __init__(self, serial: bool) -> None:
        self.serial = serial
        self.sections: dict[str, dict[str, float]] = {}
        self._lock = threading.Lock()
        self.cpu0 = _cpu_s()

    def run(self, name: str, fn: Callable[[], Any]) -> Any:
        """fn's result, its wall (and CPU) seconds kept under name."""
        cpu0, mine0, t0 = _cpu_s(), _thread_cpu_s(), time.monotonic()
        try:
            return fn()
        finally:
            entry = {"wall_s": round(time.monotonic() - t0, 1), "python_cpu_s": round(_thread_cpu_s() - mine0, 1)}
            if self.serial:
                entry["cpu_s"] = round(_cpu_s() - cpu0, 1)
            with self._lock:
                self.sections[name] = entry
            print(f"[{name}: {entry['wall_s']:g} s]", file=sys.stderr, flush=True)  # (a run stopped early still says)

    def meta(self) -> dict[str, Any]:
        """The "timing" of the results' meta."""
        return {"mode": "serial" if self.serial else "two lanes", "cpu_s": round(_cpu_s() - self.cpu0, 1),
                "sections": self.sections}


def _thread_cpu_s() -> float:
    """CPU seconds of this thread (the section's own Python, without its child processes)."""
    r = resource.getrusage(resource.RUSAGE_THREAD)
    return r.ru_utime + r.ru_stime


def _cpu_s() -> float:
    """CPU seconds of this process and its reaped children (Node, Chromium, Mosquitto, ...)."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        r = resource.getrusage(who)
        total += r.ru_utime + r.ru_stime
    return total


def run_lanes(host: Callable[[], dict[str, Any]], board: list[tuple[str, Callable[[], Any]]],
              timings: Timings) -> tuple[dict[str, Any], dict[str, Any]]:
    """(host's result, {name: result} of the board jobs): host (its sections one after another)
    in this thread while a second thread takes the board jobs in order; once host is done this
    thread takes board jobs too. Two lanes, a core each on the 2-core machine. With
    timings.serial, all in this thread, one at a time."""
    done: dict[str, Any] = {}
    queue = list(board)
    lock = threading.Lock()

    def take_board_jobs() -> None:
        while True:
            with lock:
                if not queue:
                    return
                name, fn = queue.pop(0)
            try:
                done[name] = timings.run(name, fn)
            except Exception as e:  # noqa: BLE001 - the job's guard missed it: noted, the lane goes on
                traceback.print_exc()
                done[name] = {"error": f"{type(e).__name__}: {e}"}

    if timings.serial:
        out = host()
        take_board_jobs()
        return out, done
    second = threading.Thread(target=take_board_jobs, name="bench-board-lane", daemon=True)
    second.start()
    try:
        out = host()
        take_board_jobs()
    finally:
        second.join()
    return out, done


def _games(ap: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[dict[str, int], dict[str, str]]:
    """The games to measure ({id: seats}, --games' choice) and those skipped ({id: why})."""
    games, skipped = benchlib.games_available()
    if args.games:
        want = [g.strip() for g in args.games.split(",") if g.strip()]
        unknown = [g for g in want if g not in games and g not in skipped]
        if unknown:
            ap.error(f"unknown game(s): {', '.join(unknown)}")
        games = {g: s for g, s in games.items() if g in want}
    for name, why in skipped.items():
        print(f"skipping {name}: {why}", file=sys.stderr)
    return games, skipped


def _cpython(plan: Plan, games: dict[str, int], guard: Guard) -> tuple[dict[str, Any], dict[str, Any]]:
    """Section 1, CPython alone on the machine: ({game: per-action cost}, {game: throughput})."""
    import speed

    cpy: dict[str, Any] = {}
    thr: dict[str, Any] = {}
    for g, s in games.items():
        cpy[g] = guard(f"cpython {g}", partial(speed.per_action, g, s, plan.seeds, plan.max_actions,
                                               1 if plan.quick else 5))
        thr[g] = guard(f"throughput {g}", partial(speed.throughput, g, s, plan.throughput_s, plan.throughput_cap))
    return cpy, thr


def _footprint(cpy: dict[str, Any], guard: Guard, errors: list[str]) -> dict[str, Any]:
    """Section 2: the .mpy build and its size."""
    import footprint

    journal_max = max((r.get("journal_game_bytes", 0) for r in cpy.values() if "error" not in r), default=None)
    print("mpy-cross: building firmware/lib for armv6m ...", file=sys.stderr)
    foot = guard("footprint", lambda: footprint.measure(journal_max))
    if foot.get("build_status"):
        errors.append("footprint: mpy-cross failed: " + foot.get("build_log", ""))
    return foot


def _micropython(args: argparse.Namespace, plan: Plan, games: dict[str, int], foot: dict[str, Any],
                 boot_mods: list[str], guard: Guard, errors: list[str]
                 ) -> tuple[str | None, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Section 3, MicroPython (wasm, Pico heap cap): (why skipped or None, games, boot, driver)."""
    missing = "disabled (--no-micropython)" if args.no_micropython else micropython_missing()
    mpy_games: dict[str, Any] = {}
    boot: dict[str, Any] = {}
    driver: dict[str, Any] = {}
    if missing:
        print(f"MicroPython: skipped: {missing}", file=sys.stderr)
        return missing, mpy_games, boot, driver
    if foot.get("error") or foot.get("build_status"):
        return "the .mpy build failed", mpy_games, boot, driver
    import device

    print(f"MicroPython: {len(games)} games, boot heap and driver on the wasm port, "
          f"{args.jobs} at a time ...", file=sys.stderr)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        runs: dict[str, list[Future]] = {
            g: [pool.submit(device.game_run, g, s, plan.seeds, plan.max_actions, boot_mods)
                for _ in range(plan.repeats)]
            for g, s in games.items()}
        f_boot = {k: pool.submit(device.boot, boot_mods, k == "mpy") for k in ("mpy", "py")}
        f_drv = pool.submit(device.driver)
        for g, fs in runs.items():
            mpy_games[g] = guard(f"micropython {g}", partial(_merged, device, fs))
        boot = {k: guard(f"boot {k}", f.result) for k, f in f_boot.items()}
        driver = guard("driver", f_drv.result)
    for section, res in [*(("micropython " + g, r) for g, r in mpy_games.items()),
                         *(("boot " + k, r) for k, r in boot.items()), ("driver", driver)]:
        if isinstance(res, dict) and res.get("error") and f"{section}:" not in " ".join(errors):
            errors.append(f"{section}: {res['error']}")
    return None, mpy_games, boot, driver


def _faults(plan: Plan, guard: Guard, errors: list[str]) -> dict[str, Any]:
    """Section 4: the fault suite's fuzzers, at length."""
    import faults

    print(f"faults: fuzzing the link with {plan.fuzz_lines:,} lines, the referee with "
          f"{plan.fuzz_records:,} records ...", file=sys.stderr)
    fault = {"link": guard("faults link", partial(faults.link, plan.fuzz_lines)),
             "records": guard("faults records", partial(_own_process, faults.records, plan.fuzz_records))}
    for name, key in (("link", "crashes"), ("link", "changed"), ("records", "tracebacks"), ("records", "unclear")):
        if fault[name].get(key):
            errors.append(f"faults {name}: {fault[name][key]} {key}")
    return fault


def _own_process(fn: Callable[..., Any], *args: Any) -> Any:
    """fn(*args) in a process of its own (spawned): the referee fuzzer judges the referee's
    stderr, which it captures by swapping sys.stderr, and in this process the rp2 lane's
    progress lines would land in it too."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(fn, *args).result()


def _rp2_skipped(args: argparse.Namespace) -> str | None:
    """Why the rp2 board's sections do not run, or None."""
    return "--quick" if args.quick else "--no-rp2" if args.no_rp2 else None


def _rp2_board(args: argparse.Namespace, plan: Plan, games: dict[str, int], boot_mods: list[str],
               guard: Guard, errors: list[str]) -> dict[str, Any]:
    """Section 5: the real port on the rp2 board (minutes: the emulated chip is slower than a Pico)."""
    import rp2

    print(f"rp2 board: boot heap on the {'stock and ' if plan.rp2_stock else ''}frozen image{'s' if plan.rp2_stock else ''}, "
          f"{len(games)} games ({plan.rp2_actions} actions each"
          f"{', then each whole seeded game' + chr(39) + 's largest state' if plan.rp2_whole else ''}) on the "
          "emulated RP2040 ...", file=sys.stderr)
    rp2_out = guard("rp2", lambda: rp2.measure(games, (plan.seeds[0],), plan.rp2_actions, boot_mods, plan.rp2_whole,
                                               plan.rp2_stock))
    if rp2_out.get("error") and "rp2:" not in " ".join(errors):
        errors.append("rp2: " + str(rp2_out["error"]))
    return rp2_out


def _power_cuts(trials: int, live: int, guard: Guard, errors: list[str]) -> dict[str, Any]:
    """Section 5b: power cuts on the rp2 board's flash path, on one board (the bench runs the
    replayed and the live ones as two jobs, a core each)."""
    import rp2cuts

    print(f"rp2 board: {trials} replayed and {live} live power cuts ...", file=sys.stderr)
    cuts_out = guard("rp2 power cuts", lambda: rp2cuts.measure(trials, live, boards=1))
    if cuts_out.get("failures"):
        errors.append("rp2 power cuts: %d trial(s) lost, doubled or did not resume an action"
                      % len(cuts_out["failures"]))
    return cuts_out


def _cuts_merged(replayed: dict[str, Any] | None, live: dict[str, Any] | None, why: str) -> dict[str, Any]:
    """The replayed and the live power cuts' results as one section."""
    parts = [p for p in (replayed, live) if p]
    if not parts:
        return {"skipped": why if why != "not run" else "no trials"}
    out = dict(parts[0])
    for p in parts[1:]:
        if "live" in p:
            out["live"] = p["live"]
        out["failures"] = list(out.get("failures") or []) + list(p.get("failures") or [])
        out["trials"] = (out.get("trials") or 0) + (p.get("trials") or 0)
    return out


def _race(plan: Plan, guard: Guard) -> dict[str, Any]:
    """Section 5c: Nerts races (rp2 board IRQ edges, the model)."""
    import race

    if not plan.quick:
        print("rp2 board: Nerts races timed at the readers' IRQ edges ...", file=sys.stderr)
    return guard("race", lambda: race.section(plan.quick, True, plan.race_per_apart))


def _profile(plan: Plan, guard: Guard) -> dict[str, Any]:
    """Section 5d: where the rp2 board's chip spends its time."""
    import rp2profile

    print("rp2 board: a profile of the chip while the bots play ...", file=sys.stderr)
    return guard("rp2 profile", lambda: rp2profile.section(plan.quick, True, plan.profile_plays))


def _placements(plan: Plan, guard: Guard, first_sight: bool) -> dict[str, Any]:
    """Section 5e, one half: placements by the seat to play timed to their LED verdict on the rp2
    board, of cards the table has read (dealt across its deal pad) or of cards it has not."""
    import rp2latency

    what = "it has not read" if first_sight else "the table has read"
    print(f"rp2 board: {plan.rp2_plays} placements by the seat to play of cards {what}, timed to their LED "
          f"verdict on the emulated clock ...", file=sys.stderr)
    return guard("rp2 latency " + ("new" if first_sight else "read"),
                 lambda: rp2latency.measure(plan.rp2_plays, first_sight=first_sight))


def _undo_one(game: str, plan: Plan, guard: Guard) -> dict[str, Any]:
    """Section 5f, one game: undo at the end of its longest seeded game on the rp2 board."""
    import rp2latency

    print(f"rp2 board: undo at the end of the longest seeded {game} game ...", file=sys.stderr)
    return guard(f"rp2 undo {game}", lambda: rp2latency.undo([game], jobs=1, max_actions=plan.max_actions)[game])


def _board_jobs(args: argparse.Namespace, plan: Plan, games: dict[str, int], boot_mods: list[str],
                guard: Guard, errors: list[str]) -> list[tuple[str, Callable[[], Any]]]:
    """The sections on the rp2 board, each one Node process (a core) at a time, the longest first
    (as measured: bench/README.md, How long it takes)."""
    jobs: list[tuple[str, Callable[[], Any]]] = []
    if _rp2_skipped(args):
        return [("race", partial(_race, plan, guard))]  # (the model alone)
    if not args.rp2_log:  # (two boards at once: each half is the longest job)
        jobs += [(f"placements {k}", partial(_placements, plan, guard, k == "new")) for k in ("read", "new")]
    jobs.append(("rp2", partial(_rp2_board, args, plan, games, boot_mods, guard, errors)))
    if not args.no_undo and not args.rp2_undo:
        jobs += [(f"undo {g}", partial(_undo_one, g, plan, guard)) for g in games]
    if args.powercut_trials > 0:
        jobs.append(("cuts replayed", partial(_power_cuts, args.powercut_trials, 0, guard, errors)))
    if args.powercut_live > 0:
        jobs.append(("cuts live", partial(_power_cuts, 0, args.powercut_live, guard, errors)))
    jobs.append(("race", partial(_race, plan, guard)))
    jobs.append(("rp2 profile", partial(_profile, plan, guard)))
    return jobs


def _board_latency(args: argparse.Namespace, games: dict[str, int], done: dict[str, Any]) -> dict[str, Any]:
    """The placements and undo figures as the latency model takes them, or why they were skipped."""
    why = _rp2_skipped(args)
    if why:
        return {"skipped": why}
    placed = _placed(args, done)
    if args.no_undo:
        return {"placements": placed, "undo": {}}
    if args.rp2_undo:
        return {"placements": placed, "undo": json.loads(Path(args.rp2_undo).read_text())}
    return {"placements": placed, "undo": {g: done[f"undo {g}"] for g in games if f"undo {g}" in done}}


def _placed(args: argparse.Namespace, done: dict[str, Any]) -> dict[str, Any] | None:
    """The placements' figures: from --rp2-log, or the two halves timed in this run."""
    import rp2latency

    if args.rp2_log:
        return rp2latency.from_log(args.rp2_log)
    read, new = done.get("placements read"), done.get("placements new")
    return rp2latency.combine(read, new) if read and new else read or new


def _tournament(plan: Plan, guard: Guard) -> dict[str, Any]:
    """Section 7: tournament tables over MQTT (needs Mosquitto)."""
    import tournament

    print("tournament: 50 tables through one Mosquitto ...", file=sys.stderr)
    return guard("tournament", lambda: tournament.measure(10, 2.0, 1.0) if plan.quick else tournament.measure())


def _tournament_faults(guard: Guard) -> dict[str, Any]:
    """Section 7b: the director under fire (bench/tournament_faults.py)."""
    import tournament_faults

    print("tournament: the director under fire (poison payloads, a read-only folder, a torn log) ...", file=sys.stderr)
    return guard("tournament faults", tournament_faults.section)


def _pages(plan: Plan, guard: Guard) -> dict[str, Any]:
    """Section 8: the table page in Chromium over a whole game (bench/pages.py)."""
    import pages

    if plan.quick:  # a whole game in a browser is a minute: the smoke run keeps to the quick sections
        return {"skipped": "not in --quick (a whole game in Chromium)"}
    print("table page: a whole seeded game shown in headless Chromium (update time, weight) ...", file=sys.stderr)
    return guard("table page", partial(pages.section, plan.quick))


def _meta(plan: Plan, missing: str | None) -> dict[str, Any]:
    """What the figures were measured with (the results' "meta")."""
    return {
        "schema": 1,
        "quick": plan.quick,
        "long": plan is LONG,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "machine": f"{platform.machine()} {platform.system()}, {os.cpu_count()} CPUs",
        "micropython": None if missing else "1.27 WebAssembly port, heap 192k capped",
        "micropython_skipped": missing,
        "seeds": list(plan.seeds),
        "max_actions": plan.max_actions,
        "repeats": plan.repeats,
    }


def _plan(args: argparse.Namespace) -> Plan:
    """The counts of this run (--quick, --long or the default), the power cuts' defaults filled in."""
    plan = QUICK if args.quick else LONG if args.long else FULL
    if args.powercut_trials is None:
        args.powercut_trials = 0 if _rp2_skipped(args) else plan.powercut_trials
    if args.powercut_live is None:
        args.powercut_live = 0 if _rp2_skipped(args) else plan.powercut_live
    if args.jobs is None:  # beside the board lane, the MicroPython runs take one core
        args.jobs = min(2, os.cpu_count() or 1) if args.serial else 1
    return plan


def main(argv: list[str] | None = None) -> int:
    ap = _parser()
    args = ap.parse_args(argv)
    plan = _plan(args)
    if args.only:
        return _only(args)
    t_start = time.monotonic()
    timings = Timings(args.serial)
    errors: list[str] = []
    guard = _guard(errors)
    games, skipped = _games(ap, args)
    if args.latency_only:
        return latency_only(args, plan, games, guard, errors, timings, t_start)
    boot_mods, boot_source = benchlib.boot_modules()
    _preload()
    host, board = run_lanes(partial(_host_sections, args, plan, games, boot_mods, guard, errors, timings),
                            _board_jobs(args, plan, games, boot_mods, guard, errors), timings)
    board_lat = _board_latency(args, games, board)
    # 6. The latency model, fed by the figures above.
    lat = timings.run("latency model", lambda: guard("latency", lambda: run_latency(
        plan, host["cpy"], host["mpy_games"], host["driver"], *_place_polls(), board.get("rp2") or {}, games,
        board_lat)))
    results = _results(args, plan, games, skipped, boot_mods, boot_source, host, board, lat)
    results["budgets"] = budgets(results)
    results["errors"] = errors
    results["meta"]["seconds"] = round(time.monotonic() - t_start, 1)
    results["meta"]["timing"] = timings.meta()
    print(report(results) + _sections_report(host["fault"], host["tour"], host["tour_faults"], host["page"])
          + timing_report(results["meta"]))
    return finish(args.out, results, errors)


def _preload() -> None:
    """The bench modules and the boards' files imported before the lanes start (no two threads
    importing one module half-way)."""
    import device  # noqa: F401
    import faults  # noqa: F401
    import latency  # noqa: F401
    import pages  # noqa: F401
    import race  # noqa: F401
    import rp2  # noqa: F401
    import rp2cuts  # noqa: F401
    import rp2latency  # noqa: F401
    import rp2profile  # noqa: F401
    import speed  # noqa: F401
    import tournament  # noqa: F401
    import tournament_faults  # noqa: F401
    from cardtable.table import config

    for name in config.board_names(str(benchlib.BOARDS)):
        config.load_board(name, str(benchlib.BOARDS))


def _place_polls() -> tuple[int, str]:
    import latency

    return latency.place_polls_default()


def _host_sections(args: argparse.Namespace, plan: Plan, games: dict[str, int], boot_mods: list[str],
                   guard: Guard, errors: list[str], timings: Timings) -> dict[str, Any]:
    """The sections timed on the host's own clock, one after another (one lane): 1. CPython,
    2. the .mpy build, 3. MicroPython (wasm), 4. the fuzzers, 7. tournament tables, 8. the page."""
    out: dict[str, Any] = {}
    print(f"CPython: per-action cost and throughput of {len(games)} games ...", file=sys.stderr)
    out["cpy"], out["thr"] = timings.run("cpython", partial(_cpython, plan, games, guard))
    out["foot"] = timings.run("footprint", partial(_footprint, out["cpy"], guard, errors))
    out["missing"], out["mpy_games"], out["boot"], out["driver"] = timings.run(
        "micropython", partial(_micropython, args, plan, games, out["foot"], boot_mods, guard, errors))
    out["fault"] = timings.run("faults", partial(_faults, plan, guard, errors))
    out["tour"] = timings.run("tournament", partial(_tournament, plan, guard))
    out["tour_faults"] = timings.run("tournament faults", partial(_tournament_faults, guard))
    out["page"] = timings.run("table page", partial(_pages, plan, guard))
    return out


def _results(args: argparse.Namespace, plan: Plan, games: dict[str, int], skipped: dict[str, str],
             boot_mods: list[str], boot_source: str, host: dict[str, Any], board: dict[str, Any],
             lat: dict[str, Any]) -> dict[str, Any]:
    """bench/results/bench.json's sections (the budgets, errors and timing go in after)."""
    why = _rp2_skipped(args) or "not run"
    return {
        "meta": _meta(plan, host["missing"]),
        "games": {"measured": games, "skipped": skipped},
        "speed": speed_section(games, host["cpy"], host["mpy_games"]),
        "memory": memory_section(host["boot"], boot_source, boot_mods, host["mpy_games"]),
        "throughput": host["thr"],
        "footprint": host["foot"],
        "driver": host["driver"] or None,
        "latency": lat,
        "rp2": board.get("rp2") or {"skipped": why},
        "rp2_power_cuts": _cuts_merged(board.get("cuts replayed"), board.get("cuts live"), why),
        "race": board.get("race") or {},
        "rp2_profile": board.get("rp2 profile") or {"skipped": why},
        "faults": host["fault"],
        "tournament": host["tour"],
        "tournament_faults": host["tour_faults"],
        "pages": host["page"],
    }


def _sections_report(fault: dict[str, Any], tour: dict[str, Any], tour_faults: dict[str, Any],
                     page: dict[str, Any]) -> str:
    """The tables the fault suite, the tournament and the table page sections print themselves."""
    import faults
    import pages
    import tournament
    import tournament_faults

    return (faults.report(fault) + tournament.report(tour) + tournament_faults.report(tour_faults)
            + pages.report(page))


def finish(out: Path, results: dict[str, Any], errors: list[str]) -> int:
    """Write the results file, list the errors and print the summary lines; the exit status."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(_clean(results), indent=1, sort_keys=False) + "\n")
    print(f"\nresults: {rel(out)} ({results['meta']['seconds']} s)")
    if errors:
        print("errors:\n  " + "\n  ".join(errors), file=sys.stderr)
    print("\n".join(summary_lines(results)))
    return 1 if errors else 0


def latency_only(args: argparse.Namespace, plan: Plan, games: dict[str, int], guard: Guard, errors: list[str],
                 timings: Timings, t_start: float) -> int:
    """--latency-only: the rp2 board's timings and the model fed by them; nothing else."""
    import speed

    def cpython() -> dict[str, Any]:  # the model's grid and undo figures (CPython's rules cost)
        return {g: guard(f"cpython {g}", partial(speed.per_action, g, s, plan.seeds[:1], plan.max_actions, 1))
                for g, s in games.items()}

    jobs = [j for j in _board_jobs(args, plan, games, [], guard, errors)
            if j[0].startswith(("placements", "undo "))]
    cpy, board = run_lanes(lambda: timings.run("cpython", cpython), jobs, timings)
    board_lat = _board_latency(args, games, board)
    lat = guard("latency", lambda: run_latency(plan, cpy, {}, {}, *_place_polls(), {}, games, board_lat))
    results: dict[str, Any] = {"meta": {"schema": 1, "quick": plan.quick, "latency_only": True},
                               "latency": lat, "errors": errors}
    results["meta"]["seconds"] = round(time.monotonic() - t_start, 1)
    results["meta"]["timing"] = timings.meta()
    print(latency_report(lat) + timing_report(results["meta"]))
    return finish(args.out, results, errors)


def timing_report(meta: dict[str, Any]) -> str:
    """How long each section took (wall; CPU too with --serial) and the run's CPU in all."""
    t = meta.get("timing") or {}
    secs = t.get("sections") or {}
    if not secs:
        return ""
    serial = t.get("mode") == "serial"
    rows = [[name, s["wall_s"], s.get("python_cpu_s"), s.get("cpu_s")] for name, s in secs.items()]
    return "\n" + table(f"\nSections ({t['mode']}; seconds; CPU with its Node, Chromium, ... processes"
                        f"{'' if serial else ' with --serial only'})",
                        ["section", "wall", "Python CPU", "CPU"], rows) + \
        f"\n  in all: {meta.get('seconds')} s wall, {t['cpu_s']} s CPU"


def _merged(device: Any, futures: list[Future]) -> dict[str, Any]:
    return device.game_summary(device.merge([f.result() for f in futures]))


def _clean(obj: Any) -> Any:
    """The results without the raw samples kept for the model, NaN as null."""
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items() if not str(k).startswith("_")}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if isinstance(obj, float) and obj != obj:
        return None
    return obj


# -- sections ------------------------------------------------------------------------------------

def speed_section(games: dict[str, int], cpy: dict[str, Any], mpy: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for g in games:
        c = cpy.get(g, {})
        m = mpy.get(g)
        entry: dict[str, Any] = {"seats": games[g], "cpython": c, "micropython": None, "ratio": None}
        if m and m.get("action_us"):
            entry["micropython"] = {k: m[k] for k in ("actions", "check_us", "apply_us", "action_us",
                                                     "view_us", "view_json_bytes") if k in m}
            try:
                entry["ratio"] = round(m["action_us"]["p50"] / c["action_us"]["p50"], 1)
                lo, nom, hi = (latency_factor(k) for k in ("fast", "nominal", "slow"))
                p50 = m["action_us"]["p50"]
                entry["rp2040_estimate_us"] = {"p50": round(p50 * nom), "range": [round(p50 * lo), round(p50 * hi)]}
            except (KeyError, TypeError, ZeroDivisionError):
                pass
        out[g] = entry
    return out


def latency_factor(name: str) -> float:
    import latency

    return latency.RP2040_FACTORS[name]


def memory_section(boot: dict[str, Any], source: str, mods: list[str], mpy: dict[str, Any]) -> dict[str, Any]:
    per_game: dict[str, Any] = {}
    for g, m in mpy.items():
        if not m.get("module_bytes"):
            per_game[g] = {"error": m.get("error")}
            continue
        oom = [x for x in m.get("games", []) if x.get("oom")]
        per_game[g] = {
            "module_bytes": m["module_bytes"],
            "state_start": m["state_start"],
            "state_max": m["state_max"],
            "state_max_at": m["state_max_at"],
            "retained_per_action": m["retained_per_action"],
            "alloc_per_action": m["alloc_bytes"],
            "report_alloc_per_action": m["view_alloc_bytes"],
            "free_at_start": m["free_at_start"],
            "without_gc": m["without_gc"],
            "without_gc_with_report": m["without_gc_with_report"],
            "capacity_actions": m["capacity_actions"],
            "out_of_heap": [{"seed": x["seed"], "after_actions": x["actions"], "in": x["oom"]} for x in oom],
            "games": m.get("games", []),
        }
    return {
        "heap_total": next((b["heap_total"] for b in boot.values() if isinstance(b, dict) and b.get("heap_total")), PICO_HEAP),
        "boot_source": source,
        "boot_modules": mods,
        "boot": boot,
        "games": per_game,
    }


def run_latency(plan: Plan, cpy: dict[str, Any], mpy: dict[str, Any], driver: dict[str, Any],
                place_polls: int, pp_source: str, rp2_out: dict[str, Any] | None = None,
                games: dict[str, int] | None = None, board_lat: dict[str, Any] | None = None) -> dict[str, Any]:
    import latency

    rules, source, game = _rules_samples(cpy, mpy)
    drv = driver if driver and driver.get("i2c") else FALLBACK_DRIVER
    model = latency.Model(drv, rules, place_polls=place_polls, trials=plan.trials)
    boards: dict[str, Any] = {}
    from cardtable.table import config

    for i, name in enumerate(config.board_names(str(benchlib.BOARDS))):
        b = config.load_board(name, str(benchlib.BOARDS))
        kinds = {bus["kind"] for bus in b.buses.values()}
        kind = "spi" if kinds == {"spi"} else "i2c"
        hz = min(int(bus.get("baud") or bus.get("freq") or 400_000) for bus in b.buses.values())
        focus, armed, idle = _board_focus(b)
        boards[name] = {"readers": len(b.readers), "leds": b.led_count, "focus": focus,
                        **model.board(kind, hz, len(b.readers), b.led_count, seed=9000 + i, focus=focus,
                                      armed=armed, idle=idle)}
    grid = model.grid()
    return {
        "summary": _summary(model, grid, rp2_out or {}, mpy, cpy, games or {}, plan, board_lat or {}),
        "params": latency.parameters(model),
        "place_polls_source": pp_source,
        "rules_source": source,
        "rules_game": game,
        "driver_source": "measured (bench/probe.py, wasm)" if drv is driver else "fallback constants (MicroPython not run)",
        "grid": grid,
        "what_if_8_readers_i2c": model.what_if(LATENCY_BUDGET_READERS),
        "boards": boards,
    }


def _board_focus(b: Any) -> tuple[str, int, int]:
    """How a board's scanner meets the card the model times (latency.simulate's focus, armed,
    idle): the controller focuses it on the play zones of the seat to play, armed at the
    card's edge where their readers have IRQ lines (issue 35); a Nerts table ("scan": "irq")
    keeps every foundation armed in a round, its "left" pads polled seldom; else no focus."""
    irq = b.reader_irq or ()
    plays = {b.zone_reader[z] for lay in b.layouts.values() for z, rs in lay.roles.items() if rs[0] == "play"}
    if plays:
        return ("edge" if plays and all(irq and irq[i] is not None for i in plays) else "on"), 0, 0
    found = {b.zone_reader[z] for lay in b.layouts.values() for z, rs in lay.roles.items() if rs[0] == "foundation"}
    if b.scan == "irq" and found and all(irq[i] is not None for i in found):
        left = {b.zone_reader[z] for lay in b.layouts.values() for z, rs in lay.roles.items() if rs[0] == "left"}
        return "edge", len(found) - 1, len(left)
    return "off", 0, 0


def _rp2_games(rp2_out: dict[str, Any]) -> dict[str, Any]:
    """Per-game figures measured on the rp2 board's frozen image (emulated clock), or {}."""
    games = ((rp2_out.get("images") or {}).get("frozen") or {}).get("games") or {}
    return {g: r for g, r in games.items() if isinstance(r.get("check_us"), dict) and r["check_us"].get("p50")}


def _summary(model: Any, grid: dict[str, Any], rp2_out: dict[str, Any], mpy: dict[str, Any],
             cpy: dict[str, Any], games: dict[str, int], plan: Plan, board_lat: dict[str, Any]) -> dict[str, Any]:
    """The two figures the bench ends with (issue 18), the Nerts race resolution and the undo
    time of the longest seeded game of each kind."""
    import dataclasses

    import latency

    n = LATENCY_BUDGET_READERS
    bus = latency.BUSES[0]
    rp2g = _rp2_games(rp2_out)
    cpu, check_src = _verdict_cpu(model, rp2g, rp2_out)
    placed = board_lat.get("placements") or {}
    board: dict[str, Any] = {}
    if placed.get("_samples") and placed.get("_steps"):
        cpu, check_src, board = _board_measured(model, cpu, bus, placed)
    res = _seat_to_play(model, n, bus, cpu, model.timing)  # cards the table has read: named by their UID
    p99 = max(res["rejected"]["p99"], res["accepted"]["p99"])
    new = _seat_to_play(model, n, bus, cpu, model.timing, known=False)  # a card seen the first time: READ
    # the same with the PN532 listing a tag in 9.7-15 ms instead of the ISO floor (estimate)
    slow = _seat_to_play(model, n, bus, cpu, dataclasses.replace(model.timing, **latency.LIST_TAG_SLOW))
    out: dict[str, Any] = {"p99_ms": p99, "readers": n, "bus": bus.label, "check_source": check_src,
                           "p50_ms": res["accepted"]["p50"], "p95_ms": res["accepted"]["p95"],
                           "p99_pn532_slow_ms": max(slow["rejected"]["p99"], slow["accepted"]["p99"]),
                           "mean_parts_ms": res["mean_parts_ms"],
                           "first_sight": {"p50_ms": new["accepted"]["p50"], "p95_ms": new["accepted"]["p95"],
                                           "p99_ms": max(new["rejected"]["p99"], new["accepted"]["p99"]),
                                           "mean_parts_ms": new["mean_parts_ms"]},
                           "board": board}
    out["nerts_foundation"] = _nerts_foundation(model, bus, cpu, check_src)
    # Nerts: two plays 50 ms apart on the 12-reader board (6 foundations, 6 "left" pads idle)
    trials = 400 if plan.quick else 4000
    out["nerts_race_50ms"] = _nerts_race(model, bus, cpu, trials)
    # dealing across the deal pad: the 2-seat board's 7 readers
    out["deal"] = latency.deal_reads(7, bus, cpu, trials, 79)
    out["undo"] = undo = _undo_times(model, games, plan, rp2g, mpy, cpy, board_lat)
    if undo:
        out["undo_worst"] = _undo_worst(undo)
    return out


def _nerts_foundation(model: Any, bus: Any, cpu: Any, cpu_source: str) -> dict[str, Any]:
    """Issue 35's Nerts figure: a play on a foundation of pico-nerts-6 (every foundation armed,
    the "left" pads polled every 8th lap), the model with the summary line's CPU."""
    import latency
    from cardtable.table import config

    b = config.load_board(NERTS_BOARD, str(benchlib.BOARDS))
    focus, armed, idle = _board_focus(b)
    # (known=False: a Nerts table's decks, one a seat, are more tags than the scanner's UID cache
    # keeps, so a card on a foundation is READ)
    res = latency.simulate(len(b.readers), bus, cpu, model.trials * 2, seed=4545, place_polls=model.place_polls,
                           occupancy=model.occupancy, leds=b.led_count, t=model.timing, focus=focus,
                           armed=armed, idle=idle, known=False)
    return {"board": NERTS_BOARD, "readers": len(b.readers), "focus": focus, "armed": armed + 1, "idle": idle,
            "accepted": res["accepted"], "rejected": res["rejected"], "cpu_source": cpu_source}


def _seat_to_play(model: Any, readers: int, bus: Any, cpu: Any, timing: Any, known: bool = True) -> dict[str, Any]:
    """The model's placements by the seat to play (its pad armed at the card's edge): cards the
    table has read before (a deal pad, an earlier hand), or with known False seen the first time."""
    import latency

    return latency.simulate(readers, bus, cpu, model.trials * 2, seed=4242, place_polls=model.place_polls,
                            occupancy=model.occupancy, t=timing, focus="edge", known=known)


def _verdict_cpu(model: Any, rp2g: dict[str, Any], rp2_out: dict[str, Any]) -> tuple[Any, str]:
    """The model's CPU: check() etc. on the rp2 board's emulated clock where it ran, else
    MicroPython (wasm) x the nominal RP2040 factor; and where it came from."""
    import latency

    cpu = model.cpu(latency.RP2040_FACTORS["nominal"])
    if rp2g:
        return _rp2_cpu(cpu, rp2g, rp2_out)
    return cpu, "check() on MicroPython (WebAssembly) x the nominal RP2040 factor"


def _board_measured(model: Any, cpu: Any, bus: Any, placed: dict[str, Any]) -> tuple[Any, str, dict[str, Any]]:
    """The firmware's CPU as the rp2 board spent it on its emulated clock (a step with an empty
    poll, the sighting poll, sighting to LED: for the cards named by their UID and for those
    READ apart, where the samples say which), the PN532 and tags as sourced; its source; and
    the board's measured placements beside the model of the same board with the emulator's PN532
    times."""
    import latency

    smp = placed["_samples"]
    known = [x for x in smp if x.get("known")]
    first = [x for x in smp if not x.get("known")]
    edge = [x["poll"] for x in first if "poll" in x and x.get("edge")]
    cpu = latency.board_cpu(cpu, bus, placed["_steps"], [x["poll"] for x in smp if "poll" in x and not x.get("edge")],
                            [x["verdict"] for x in (known or first) if "verdict" in x], edge,
                            [x["poll"] for x in known if "poll" in x and x.get("edge")],
                            [x["verdict"] for x in first if "verdict" in x] if known else [])
    check_src = ("the firmware's CPU measured on the rp2 board's emulated clock (bench/rp2latency.py: "
                 "a step with an empty poll, the sighting poll, sighting to LED frame"
                 + (", for cards named by their UID and cards READ apart)" if known and first else
                    ", cards named by their UID only: a first sight's READ CPU as theirs)" if known else
                    ", cards READ only: a card named by its UID costed as one READ less)"))
    board: dict[str, Any] = {"board": placed["board"], "readers": placed["readers"]}
    for name, sub, k in (("known", known, True), ("first", first, False)):
        if not sub:
            continue
        same = latency.simulate(placed["readers"], bus, cpu, model.trials * 2, seed=4343,
                                place_polls=model.place_polls, occupancy=0.0, t=latency.emulated_timing(),
                                focus="edge", known=k)
        fig = placed.get("by_sight", {}).get(name) or latency_part(sub)
        board[name] = {"plays": len(sub), "measured": fig["ms"], "model": same["accepted"], "parts_ms": fig["parts_ms"]}
    main = board.get("known") or board.get("first") or {}
    board.update({"plays": main.get("plays"), "measured": main.get("measured"), "model": main.get("model"),
                  "parts_ms": main.get("parts_ms"),
                  "cpu_ms": {"empty_poll_step": round(cpu.poll[bus.cpu]["empty"], 2),
                             "sighting_poll": round(cpu.poll[bus.cpu]["read"], 2),
                             "named_at_the_edge": round(cpu.poll[bus.cpu].get("named", cpu.poll[bus.cpu]["read"]), 2),
                             "sighting_to_led_p50": latency._median(cpu.verdict or []),
                             "read_to_led_p50": latency._median(cpu.verdict_new or cpu.verdict or [])}})
    return cpu, check_src, board


def latency_part(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """A share of the rp2 board's samples as rp2latency.by_sight gives it (a log's figures)."""
    import rp2latency

    return rp2latency.by_sight(samples).get("known" if samples[0].get("known") else "first") or {}


def _rp2_cpu(cpu: Any, rp2g: dict[str, Any], rp2_out: dict[str, Any]) -> tuple[Any, str]:
    """The model's CPU as the rp2 board's emulated clock timed it, and where the figures come from."""
    import dataclasses

    # check() on the emulated RP2040's clock: the slowest game's quantiles as the samples
    g = max(rp2g, key=lambda k: rp2g[k]["check_us"].get("p90", 0))
    samples = (rp2g[g].get("_samples") or {}).get("check_play_us")
    if samples:
        check = [x / 1000 for x in samples]
    else:  # (quantiles only)
        q = rp2g[g]["check_us"]
        check = [q[k] / 1000 for k in ("p50", "p50", "p90", "p95", "p99", "max") if k in q]
    cpu = dataclasses.replace(cpu, check=check)
    check_src = f"check() on the rp2 board's emulated RP2040 clock ({g}, frozen image)"
    drv = ((rp2_out.get("images") or {}).get("frozen") or {}).get("driver") or {}
    if all(isinstance(drv.get(b), dict) for b in ("i2c", "spi")):
        # the driver's CPU per poll (on fake buses in Python) and an idle step there too
        cpu = dataclasses.replace(cpu, poll={b: {k: drv[b][k]["ns"] / 1e6 for k in ("empty", "tag", "read")}
                                             for b in ("i2c", "spi")})
        check_src += "; the PN532 driver's CPU per poll there too"
        if isinstance(drv.get("step"), dict) and drv["step"].get("ns"):
            cpu = dataclasses.replace(cpu, step=drv["step"]["ns"] / 1e6)
            check_src += " and an idle controller step"
    return cpu, check_src


def _nerts_race(model: Any, bus: Any, cpu: Any, trials: int) -> dict[str, Any]:
    """Two Nerts plays 50 ms apart on the 12-reader board: how often the earlier is ordered first."""
    import dataclasses

    import latency
    import race

    slow_t = dataclasses.replace(model.timing, sleep=1.0)
    return {
        "ordered_right": round(latency.race(12, bus, cpu, trials, 77, 50.0, rare=6), 4),
        "before_issue_18": round(latency.race(12, bus, cpu, trials, 77, 50.0, rare=0, t=slow_t), 4),
        "irq_edge": round(race.irq_race(trials, 77, 50.0), 4),  # board "scan": "irq" (bench/race.py)
        "by_apart_ms": {str(d): round(latency.race(12, bus, cpu, trials // 2, 78 + d, float(d), rare=6), 4)
                        for d in (10, 20, 30, 50, 100)},
    }


def _undo_times(model: Any, games: dict[str, int], plan: Plan, rp2g: dict[str, Any], mpy: dict[str, Any],
                cpy: dict[str, Any], board_lat: dict[str, Any]) -> dict[str, Any]:
    """Undo at the end of the longest seeded game of each kind: modelled, and timed on the rp2 board."""
    import latency

    undo: dict[str, Any] = {}
    for g, seats in games.items():
        seed, acts, k = latency.since_at_end(g, seats, (1, 2, 3), plan.max_actions)
        if g in rp2g:
            apply_ms, src = rp2g[g]["apply_us"]["p50"] / 1000, "apply() on the rp2 board (emulated clock)"
        elif (mpy.get(g) or {}).get("apply_us"):
            apply_ms = mpy[g]["apply_us"]["p50"] / 1000 * latency.RP2040_FACTORS["nominal"]
            src = "apply() on MicroPython (WebAssembly) x the nominal RP2040 factor"
        elif (cpy.get(g) or {}).get("apply_us"):
            apply_ms = cpy[g]["apply_us"]["p50"] / 1000 * FALLBACK_WASM_PER_CPYTHON * latency.RP2040_FACTORS["nominal"]
            src = f"apply() on CPython x {FALLBACK_WASM_PER_CPYTHON:g} x the nominal RP2040 factor"
        else:
            continue
        undo[g] = {"seed": seed, "actions": acts, "replayed": k, "apply_ms": round(apply_ms, 3),
                   "model_ms": round(latency.undo_ms(k, apply_ms, model.timing)), "source": src}
        on_board = (board_lat.get("undo") or {}).get(g) or {}
        if "ms" in on_board:  # timed end to end on the rp2 board (its seats: the board's layout)
            undo[g]["board_ms"] = round(on_board["ms"])
            undo[g]["board"] = on_board
    return undo


def _undo_worst(undo: dict[str, Any]) -> dict[str, Any]:
    """The game whose undo takes longest: on the rp2 board where timed there, else modelled."""
    ms = {g: u.get("board_ms", u["model_ms"]) for g, u in undo.items()}
    worst = max(ms, key=lambda g: ms[g])
    return {"game": worst, "ms": ms[worst], "source": "rp2 board" if "board_ms" in undo[worst] else "model"}


def summary_lines(r: dict[str, Any]) -> list[str]:
    """The two lines the bench ends with, word for word as issue 18 names them (the first for
    a table that has read its cards before: a deal pad, an earlier hand), and before them the
    same figure for a card the table has not seen before."""
    s = (r.get("latency") or {}).get("summary") or {}
    out = []
    if "p99_ms" in s:
        first = s.get("first_sight") or {}
        if "p99_ms" in first:  # (before the two the bench ends with)
            out.append(f"placement-to-verdict p99, a card not seen before: {first['p99_ms']:.0f} ms "
                       f"({s['readers']} readers, seat to play)")
        out.append(f"placement-to-verdict p99: {s['p99_ms']:.0f} ms ({s['readers']} readers, seat to play)")
    w = s.get("undo_worst")
    if w:
        out.append(f"undo at the end of the longest game: {w['ms']} ms ({w['game']})")
    return out


def _rules_samples(cpy: dict[str, Any], mpy: dict[str, Any]) -> tuple[dict[str, list[float]], str, str | None]:
    """Per-action samples for the model from the game with the slowest check+apply (p90)."""
    measured = {g: m for g, m in mpy.items() if m.get("_samples")}
    if measured:
        g = max(measured, key=lambda k: measured[k]["action_us"]["p90"])
        return dict(measured[g]["_samples"]), "measured on MicroPython (wasm), slowest game", g
    # no MicroPython: CPython's medians scaled to wasm by embedded-facts §1.6
    ok = {g: c for g, c in cpy.items() if c.get("action_us")}
    if not ok:
        raise RuntimeError("no rules measurements at all")
    g = max(ok, key=lambda k: ok[k]["action_us"]["p90"])
    c = ok[g]
    k = FALLBACK_WASM_PER_CPYTHON
    return ({"check_us": [c["check_us"]["p90"] * k], "action_us": [c["action_us"]["p90"] * k],
             "view_us": [c["view_us"]["p90"] * k], "view_len": [400]},
            f"CPython p90 x {k} (embedded-facts §1.6), MicroPython not run", g)


# -- budgets ---------------------------------------------------------------------------------------

def budgets(r: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    lat = r.get("latency") or {}
    grid = lat.get("grid") or {}
    for bus, per in grid.items():
        cell = (per.get("nominal") or {}).get(str(LATENCY_BUDGET_READERS))
        if not cell:
            continue
        for kind in ("rejected", "accepted"):
            v = cell[kind]["p95"]
            out.append({"budget": f"placement to verdict, {LATENCY_BUDGET_READERS} readers, {bus}, {kind} play (p95)",
                        "limit": LATENCY_BUDGET_MS, "value": v, "unit": "ms", "ok": v <= LATENCY_BUDGET_MS,
                        "note": f"p50 {cell[kind]['p50']} ms; model with the nominal RP2040 factor; a card "
                                "laid by the seat to play (the scanner's focus; out of turn: what_if)"})
    mem = r.get("memory") or {}
    boot = mem.get("boot") or {}
    games = mem.get("games") or {}
    largest = max(((g, m["module_bytes"] + m["state_max"]) for g, m in games.items() if "module_bytes" in m),
                  key=lambda x: x[1], default=None)
    for kind in ("mpy", "py"):
        b = boot.get(kind) or {}
        if "retained" not in b or largest is None:
            continue
        v = b["retained"] + largest[1]
        out.append({"budget": f"firmware (.{kind}) + largest game state ({largest[0]}) within half the heap",
                    "limit": HEAP_BUDGET, "value": v, "unit": "bytes", "ok": v <= HEAP_BUDGET,
                    "note": f"boot {b['retained']} B ({mem.get('boot_source')}), game module + state "
                            f"{largest[1]} B (a game that ran out of heap counts with its state then)"})
    for g, m in games.items():
        ooms = m.get("out_of_heap", [])
        if ooms:
            first = min(ooms, key=lambda o: o["after_actions"])
            out.append({"budget": f"a {g} game fits the heap", "limit": None, "value": first["after_actions"],
                        "unit": "actions", "ok": False,
                        "note": f"MemoryError with the firmware loaded in {len(ooms)} of the seeded games "
                                f"(first after {first['after_actions']} actions, in the {first['in']}); "
                                "the bench stops games at its action limit"})
    acc = (r.get("rp2") or {}).get("acceptance") or {}
    if "total" in acc:
        out.append({"budget": f"rp2 board, frozen image: firmware + largest game ({acc['game']}) module and state",
                    "limit": acc["target"], "value": acc["total"], "unit": "bytes", "ok": acc["ok"],
                    "note": f"firmware {acc['firmware']} B + module {acc['module']} B + state {acc['state_max']} B "
                            f"({acc['state_source']})"})
    foot = r.get("footprint") or {}
    if "fs_fraction_blocks" in foot:
        j = (foot.get("journal") or {}).get("fs_fraction", 0.0)
        v = foot["fs_fraction_blocks"] + j
        out.append({"budget": "firmware files + kept journals within the flash filesystem", "limit": 1.0,
                    "value": round(v, 3), "unit": "fraction of 1408 KiB", "ok": v <= 1.0,
                    "note": f"firmware {foot['fs_fraction_blocks']:.1%} (4 KiB blocks), journals {j:.1%}"})
    return out


# -- the printed report ----------------------------------------------------------------------------

def report(r: dict[str, Any]) -> str:
    parts: list[str] = []
    meta = r["meta"]
    parts.append(f"cardtable bench ({'quick' if meta['quick'] else 'full'}): seeds {meta['seeds']}, "
                 f"at most {meta['max_actions']} actions per game; MicroPython: "
                 f"{meta['micropython'] or 'skipped (' + str(meta['micropython_skipped']) + ')'}")
    if r["games"]["skipped"]:
        parts.append("skipped games: " + "; ".join(f"{g} ({w})" for g, w in r["games"]["skipped"].items()))
    parts += _speed_report(r)
    parts += _memory_report(r)
    parts += _throughput_and_flash_report(r)
    parts += _driver_report(r)
    parts.append(latency_report(r.get("latency") or {}, r.get("race") or {}))
    parts += _rp2_report(r)
    parts += _budgets_report(r)
    return "\n".join(parts)


def _speed_report(r: dict[str, Any]) -> list[str]:
    """The per-action cost table."""
    rows = []
    for g, s in r["speed"].items():
        c = s.get("cpython") or {}
        m = s.get("micropython") or {}
        est = s.get("rp2040_estimate_us") or {}
        rows.append([g, s["seats"], m.get("actions") or c.get("actions"), _p(c, "action_us", "p50"),
                     _p(m, "action_us", "p50"), _p(m, "action_us", "p90"), s.get("ratio"),
                     est.get("p50"), "-".join(str(x) for x in est.get("range", [])) or None])
    return [table("\nPer action: check+apply, microseconds (medians over seeded random games)",
                  ["game", "seats", "actions", "CPython", "MPy wasm", "wasm p90", "ratio",
                   "RP2040 est", "range"], rows)]


def _memory_report(r: dict[str, Any]) -> list[str]:
    """The heap at boot and per game on MicroPython."""
    parts: list[str] = []
    mem = r["memory"]
    boot = mem.get("boot") or {}
    if boot:
        rows = [[k, kib(b.get("retained")), kib(b.get("peak")), len(b.get("failed") or {})]
                for k, b in boot.items() if isinstance(b, dict) and "retained" in b]
        parts.append(table(f"\nHeap at boot, KiB of {kib(mem['heap_total']):.1f} ({mem['boot_source']})",
                           ["from", "retained", "peak", "failed"], rows))
        top = next((b.get("by_module") for b in boot.values() if isinstance(b, dict) and b.get("by_module")), None)
        if top:
            parts.append("  largest (.mpy, in import order): " + ", ".join(
                f"{m.replace('cardtable.', '')} {v / 1024:.1f}" for m, v in list(top.items())[:6]))
    rows = []
    for g, m in mem.get("games", {}).items():
        if "module_bytes" not in m:
            rows.append([g, None, None, None, None, None, None, None, m.get("error")])
            continue
        wg = m["without_gc"]
        wr = m["without_gc_with_report"]
        oom = ", ".join(f"seed {o['seed']} @{o['after_actions']}" for o in m["out_of_heap"]) or "-"
        rows.append([g, kib(m["module_bytes"]), kib(m["state_max"]), m["retained_per_action"],
                     m["alloc_per_action"].get("p50"), _no_gc(wg), _no_gc(wr), m["capacity_actions"], oom])
    if rows:
        parts.append(table("\nHeap per game on MicroPython, firmware loaded (KiB / bytes / actions)",
                           ["game", "module", "state max", "kept/act", "alloc/act", "no-GC acts",
                            "+report", "capacity", "out of heap"], rows))
    return parts


def _throughput_and_flash_report(r: dict[str, Any]) -> list[str]:
    """Games per CPU second on CPython; the .mpy footprint and the journal on flash."""
    rows = [[g, t.get("games_per_s"), t.get("actions_per_s"), t.get("mean_actions"), t.get("capped")]
            for g, t in r["throughput"].items() if "error" not in t]
    parts = [table("\nThroughput on CPython: seeded random full games per CPU second",
                   ["game", "games/s", "actions/s", "actions/game", "capped"], rows)]
    f = r.get("footprint") or {}
    if "total_bytes" in f:
        lines = [f"\nFlash: {f['mpy_cross']} -march={f['march']}: {len(f['modules'])} modules "
                 f"{f['py_bytes']:,} B .py -> {f['mpy_bytes']:,} B .mpy; with main.py and boards "
                 f"{f['total_bytes']:,} B = {f['fs_fraction']:.1%} of the {f['fs_bytes'] // 1024} KiB filesystem "
                 f"({f['blocks_4k']} blocks of 4 KiB = {f['fs_fraction_blocks']:.1%})"]
        j = f.get("journal")
        if j:
            lines.append(f"Journal: largest game here {j['largest_game_bytes']:,} B; {j['keep_games']} kept "
                         f"= {j['bytes']:,} B ({j['fs_fraction']:.1%} of the filesystem)")
        parts.append("\n".join(lines))
    return parts


def _driver_report(r: dict[str, Any]) -> list[str]:
    """The PN532 driver's CPU per poll on the wasm port."""
    d = r.get("driver") or {}
    if not d.get("i2c"):
        return []
    rows = [[bus, d[bus]["empty"]["ns"] / 1000, d[bus]["tag"]["ns"] / 1000, d[bus]["read"]["ns"] / 1000,
             d[bus]["empty"]["alloc_per_poll"], d[bus]["read"]["alloc_per_poll"]] for bus in ("i2c", "spi")]
    step = d.get("step") or {}
    return [table("\nPN532 driver CPU per poll on wasm (us; bus answering at once), bytes allocated",
                  ["bus", "empty", "card", "card+READ", "alloc empty", "alloc READ"], rows)
            + (f"\n  idle controller step ({step.get('readers')} fake readers): {step['ns'] / 1000:.1f} us"
               if step.get("ns") else "")]


def _rp2_report(r: dict[str, Any]) -> list[str]:
    """The rp2 board's tables: images and games, Nerts races, the chip's profile, power cuts."""
    parts: list[str] = []
    rp2r = r.get("rp2") or {}
    if rp2r.get("images"):
        import rp2

        for title, header, rows in rp2.tables(rp2r):
            parts.append(table("\n" + title, header, rows))
        parts.append("  emulator: " + "; ".join(rp2r["limits"]))
    elif rp2r.get("skipped"):
        parts.append(f"\nrp2 board: skipped ({rp2r['skipped']})")
    import race as race_bench

    for title, header, rows in race_bench.tables(r.get("race") or {}):
        parts.append(table("\n" + title, header, rows))
    import rp2profile

    for title, header, rows in rp2profile.tables(r.get("rp2_profile") or {}):
        parts.append(table("\n" + title, header, rows))
    cuts = r.get("rp2_power_cuts") or {}
    if cuts.get("trials"):
        import rp2cuts

        for title, header, rows in rp2cuts.tables(cuts):
            parts.append(table("\n" + title, header, rows))
    elif cuts.get("skipped"):
        parts.append(f"\nrp2 board power cuts: skipped ({cuts['skipped']})")
    return parts


def _budgets_report(r: dict[str, Any]) -> list[str]:
    """Each budget of bench/README.md: ok or OVER."""
    rows = []
    for b in r["budgets"]:
        mark = "ok" if b["ok"] else "OVER"
        limit = "-" if b["limit"] is None else f"{b['limit']:g}"
        rows.append([mark, b["budget"], f"{b['value']:g} {b['unit']}", limit])
    parts = [table("\nBudgets (bench/README.md)", ["", "budget", "value", "limit"], rows)]
    over = [b for b in r["budgets"] if not b["ok"]]
    if over:
        parts.append(f"\n{len(over)} figure(s) over budget (OVER above); see bench/README.md for what "
                     "each means and budgets[].note in the JSON")
    return parts


def latency_report(lat: dict[str, Any], race: dict[str, Any] | None = None) -> str:
    """The latency section's tables (race: the race section's results, for the rp2 board's
    measured Nerts figure beside the model's)."""
    parts = _latency_grid_report(lat) if lat.get("grid") else []
    sm = lat.get("summary") or {}
    if lat.get("grid"):
        modelled = sm.get("nerts_race_50ms")
        if modelled:
            parts.append(f"  Nerts race, two plays 50 ms apart, 12 readers: the earlier one wins "
                         f"{modelled['ordered_right']:.1%} polled (before issue 18's levers: "
                         f"{modelled['before_issue_18']:.1%}), "
                         f"{modelled.get('irq_edge', 0):.1%} timed at the IRQ edge (board scan irq); polled "
                         "by ms apart: " + ", ".join(f"{d} {v:.1%}" for d, v in modelled["by_apart_ms"].items()))
        deal = sm.get("deal")
        if deal:
            parts.append(f"  dealing across the pad (7 readers): a card is read {deal['read_ms']['p50']} ms "
                         f"(p99 {deal['read_ms']['p99']}) after it reaches the pad; over it {deal['dwell_ms']:g} ms: "
                         f"missed {deal['missed_at_dwell']:.2%}; up to {deal['cards_per_s_at_p99']} cards/s")
    if "p99_ms" in sm:
        parts.append(f"\nPlacement to verdict, 8 readers on I2C, the seat to play (model; {sm['check_source']}): "
                     f"p50 {sm['p50_ms']}, p95 {sm['p95_ms']}, p99 {sm['p99_ms']} ms; with the PN532 listing a "
                     f"tag in 9.7-15 ms instead of the ISO floor (estimate): p99 {sm.get('p99_pn532_slow_ms')} ms")
        fs = sm.get("first_sight")
        if fs:
            parts.append(f"  a card the table has not read before (its READ at the edge): p50 {fs['p50_ms']}, "
                         f"p95 {fs['p95_ms']}, p99 {fs['p99_ms']} ms")
    nf = sm.get("nerts_foundation")
    if nf:
        a = nf["accepted"]
        parts.append(f"Nerts on {nf['board']}, a play on a foundation ({nf['armed']} foundations armed, "
                     f"{nf['idle']} pads every 8th lap; model, the same CPU): p50 {a['p50']}, p95 {a['p95']}, "
                     f"p99 {a['p99']} ms")
    parts += _nerts_measured(race or {})
    board = sm.get("board") or {}
    if board.get("measured"):
        parts.extend(_board_report(board))
    if sm.get("undo"):
        parts.append(table("  undo at the end of the longest seeded game (ms)",
                           ["game", "seed", "actions", "replayed", "apply ms", "model ms", "rp2 board ms", "source"],
                           [[g, u["seed"], u["actions"], u["replayed"], u["apply_ms"], u["model_ms"],
                             u.get("board_ms", "-"), u["source"]] for g, u in sm["undo"].items()]))
    if lat.get("boards"):
        rows = [[b, c["bus"], c["readers"], c.get("focus", "-"), c["rejected"]["p50"], c["rejected"]["p95"],
                 c["accepted"]["p50"], c["accepted"]["p95"]] for b, c in lat.get("boards", {}).items()]
        if rows:
            parts.append(table("  the boards in firmware/boards",
                               ["board", "bus", "readers", "focus", "reject p50", "p95", "accept p50", "p95"], rows))

    return "\n".join(parts)


def _nerts_measured(race: dict[str, Any]) -> list[str]:
    """The rp2 board's Nerts figure, when the race section ran there: its plays on a foundation
    timed from the landing to the LED verdict on the emulated clock (bench/race.py)."""
    rp2r = race.get("rp2") or {}
    v = rp2r.get("verdict_ms") or {}
    if not v.get("n"):
        return []
    return [f"Nerts foundation play p95: {v['p95']:g} ms on the rp2 board ({rp2r.get('board', NERTS_BOARD)}, "
            f"{v['n']} plays)",
            f"  landing to the LED verdict on the emulated clock (races N ms apart, bench/race.py): "
            f"p50 {v['p50']:g}, p99 {v['p99']:g}, max {v['max']:g} ms"]


def _board_report(board: dict[str, Any]) -> list[str]:
    """The rp2 board's measured placements beside the model: cards named by their UID, cards READ."""
    parts: list[str] = []
    for name, what in (("known", "cards the table had read before"), ("first", "cards seen the first time")):
        b = board.get(name)
        if not b:
            continue
        m, md = b["measured"], b["model"]
        parts.append(table(f"\nPlacement to verdict on the rp2 board's emulated clock ({board['board']}, "
                           f"{board['readers']} readers, {b['plays']} {what}, laid by the seat to play; ms)",
                           ["", "p50", "p95", "p99", "max"],
                           [["measured (LED latch - landing)", m["p50"], m["p95"], m["p99"], m["max"]],
                            ["the model, the emulator's PN532 times", md["p50"], md["p95"], md["p99"], md["max"]]]))
        parts.append("  where it went (measured, p50 / p99 ms): " + ", ".join(
            f"{k} {v.get('p50')} / {v.get('p99')}" for k, v in b["parts_ms"].items()))
    parts.append(f"  measured CPU fed to the model: {board['cpu_ms']}")
    return parts


def _latency_grid_report(lat: dict[str, Any]) -> list[str]:
    """The model's grid: placement to verdict by bus and number of readers, and what if."""
    parts: list[str] = []
    p = lat["params"]
    parts.append(f"\nPlacement to verdict (model, ms): debounce {p['place_polls']} polls "
                 f"({lat['place_polls_source']}); laid by the seat to play (its zone is the scanner's focus); "
                 f"half the other pads hold a card; RP2040 = wasm x "
                 f"{p['rp2040_factors']['nominal']:g}; rules: {lat['rules_source']} ({lat['rules_game']})")
    for bus, per in lat["grid"].items():
        nom = per["nominal"]
        rows = [[n, c["cycle_ms"], c["rejected"]["p50"], c["rejected"]["p95"], c["accepted"]["p50"],
                 c["accepted"]["p95"], c["accepted"]["max"]]
                for n, c in nom.items() if int(n) in (2, 3, 4, 6, 8, 10, 12, 16)]
        parts.append(table(f"  {p['buses'][bus]['label']}",
                           ["readers", "cycle", "reject p50", "p95", "accept p50", "p95", "max"], rows))
        e8 = [f"{k} p95 {per[k]['8']['accepted']['p95']:.0f}" for k in ("fast", "slow", "full_table_slow")
              if "8" in per.get(k, {})]
        parts.append("  8 readers, accepted: " + ", ".join(e8))
    first = next(iter(lat["grid"]))
    parts_8 = lat["grid"][first]["nominal"].get("8", {}).get("mean_parts_ms")
    if parts_8:
        parts.append(f"  where the time goes (8 readers, {p['buses'][first]['label']}, mean ms): " +
                     ", ".join(f"{k} {v:.0f}" for k, v in parts_8.items()))
    wi = lat.get("what_if_8_readers_i2c") or {}
    if wi:
        parts.append(table("  what if (8 readers, I2C; one change at a time)",
                           ["change", "reject p50", "p95", "p99", "accept p50", "p95", "p99"],
                           [[k.replace("_", " "), v["rejected_p50"], v["rejected_p95"], v.get("rejected_p99"),
                             v["accepted_p50"], v["accepted_p95"], v.get("accepted_p99")] for k, v in wi.items()]))
    return parts


def _no_gc(w: dict[str, Any]) -> str:
    """'85' (the heap filled after 85 actions) or '37+ (2.8 games)' (whole games fit)."""
    if w["heap_filled"]:
        return str(w["actions"])
    return f"{w['actions']}+" + (f" ({w['games']:g} games)" if w.get("games") else "")


def _p(d: dict[str, Any], key: str, q: str) -> float | None:
    v = d.get(key)
    return v.get(q) if isinstance(v, dict) else None


if __name__ == "__main__":
    sys.exit(main())
