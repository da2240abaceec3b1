"""Shared pieces of the benchmarks: repository paths, the games to measure, statistics, tables."""

from __future__ import annotations

import ast
import math
import os
import shutil
from pathlib import Path
from typing import Any, Iterable, Sequence

BENCH = Path(__file__).resolve().parent
REPO_ROOT = BENCH.parent
FIRMWARE = REPO_ROOT / "firmware"
LIB = FIRMWARE / "lib"
BOARDS = FIRMWARE / "boards"
RUN_MJS = REPO_ROOT / "tools" / "mpy" / "run.mjs"
MPY_LIB = REPO_ROOT / "build" / "mpy" / "lib"
RESULTS = BENCH / "results" / "bench.json"

# The Pico's MicroPython GC heap (embedded-facts §7: `GC: total: 192064` on rp2), which
# tools/mpy/run.mjs --heap 192k --cap reproduces exactly in the WebAssembly port.
PICO_HEAP = 192064
# littlefs on the RPI_PICO build: MICROPY_HW_FLASH_STORAGE_BYTES = 1408 KiB, 4 KiB blocks (§7).
PICO_FS_BYTES = 1408 * 1024
FS_BLOCK = 4096

# When MicroPython cannot run, the latency model falls back to CPython's rules cost times the
# wasm/CPython ratio of embedded-facts §1.6 (about 9), and to these driver figures, measured
# with bench/probe.py on the WebAssembly port (ns per poll).
FALLBACK_WASM_PER_CPYTHON = 9.0
FALLBACK_DRIVER = {
    "i2c": {"empty": {"ns": 65000}, "tag": {"ns": 68000}, "read": {"ns": 115000}},
    "spi": {"empty": {"ns": 93000}, "tag": {"ns": 100000}, "read": {"ns": 169000}},
    "step": {"ns": 23000},
}


def rel(path: Path) -> str:
    """A path relative to the repository root, for messages and JSON."""
    try:
        return path.resolve().relative_to(REPO_ROOT).as_posix()
    except ValueError:
        return str(path)


def games_available() -> tuple[dict[str, int], dict[str, str]]:
    """({game id: seats to measure with}, {game id: why it is skipped}).

    Each game is measured at its largest table (most seats): the biggest state and the most
    work per trick. A game whose rules module does not import (not landed yet) is skipped.
    """
    from cardtable import games

    ok: dict[str, int] = {}
    skipped: dict[str, str] = {}
    for name in games.GAMES:  # registry order
        try:
            cls = games.game_class(name)
            g = games.load(name, seats=cls.SEATS[1])
            g.bot_action(_rng(1))
        except Exception as e:  # noqa: BLE001 - any failure skips the game, with the reason
            skipped[name] = f"{type(e).__name__}: {e}"
            continue
        ok[name] = cls.SEATS[1]
    return ok, skipped


def _rng(seed: int) -> Any:
    from cardtable.rng import Random

    return Random(seed)


def boot_modules() -> tuple[list[str], str]:
    """The modules the firmware loads at boot, and where that list came from.

    With firmware/main.py: every device-package module it imports, the reader drivers its
    default board needs (the hal imports them when it builds the readers) and `main` itself
    (it runs from source on the board). Without it: every device-package module except the
    games' rules modules (loaded on demand, measured per game), the simulator and the
    host-side referee -- an upper bound, as a board needs one bus driver and one deck.
    """
    main = FIRMWARE / "main.py"
    if main.exists():
        mods = [m for m in _imports_of(main) if not _simulated(m)]
        if mods:
            board = _default_board(main)
            drivers = _drivers_for(board) if board else []
            mods += [d for d in drivers if d not in mods]
            where = f"firmware/main.py, its imports and the {board} board's drivers" if drivers \
                else "firmware/main.py and its imports"
            return mods + ["main"], where
    mods = []
    for p in sorted(LIB.rglob("*.py")):
        relp = p.relative_to(LIB).with_suffix("")
        parts = list(relp.parts)
        if "__pycache__" in parts:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        name = ".".join(parts)
        if name.startswith("cardtable.games.") or name == "cardtable.referee" or _simulated(name):
            continue
        mods.append(name)
    return mods, "device package (no main.py yet): all modules but the rules, simulator and referee"


def _default_board(main: Path) -> str | None:
    """The DEFAULT_BOARD = "..." of main.py."""
    for node in ast.parse(main.read_text()).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "DEFAULT_BOARD"
                                                for t in node.targets):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return node.value.value
    return None


def _drivers_for(board_name: str) -> list[str]:
    """Driver modules a board's readers use (as hal.make_readers imports them)."""
    try:
        from cardtable.table import config

        board = config.load_board(board_name, str(BOARDS))
    except Exception:  # noqa: BLE001 - no board, no drivers
        return []
    kinds = {b["kind"] for b in board.buses.values()}
    out = []
    if "i2c" in kinds:
        # (the Pico puts each I2C bus behind drivers.i2cbus.GuardedI2C)
        out += ["cardtable.drivers.pn532_i2c", "cardtable.drivers.i2cbus"]
        if any(r[1] is not None for r in board.readers):
            out.append("cardtable.drivers.mux")
    if board.encoders:
        out.append("cardtable.drivers.encoder")
    if "spi" in kinds:
        out.append("cardtable.drivers.pn532_spi")
    if "uart" in kinds:
        out.append("cardtable.drivers.pn532_uart")
    return out


def _simulated(module: str) -> bool:
    """The simulated hardware (hw_sim, its staged boot simboot, the PN532 emulator): main.py's
    booting() loads it for the virtual board; a Pico's boot (main()) never does."""
    return module in ("cardtable.hw_sim", "cardtable.simboot", "cardtable.sim") or module.startswith("cardtable.sim.")


def _imports_of(path: Path) -> list[str]:
    """Module names a script imports (anywhere in it) that resolve under firmware/lib."""
    tree = ast.parse(path.read_text(), str(path))
    out: list[str] = []

    def add(name: str) -> None:
        base = LIB.joinpath(*name.split("."))
        if (base.with_suffix(".py").exists() or (base / "__init__.py").exists()) and name not in out:
            out.append(name)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                add(a.name)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            add(node.module)
            for a in node.names:
                add(f"{node.module}.{a.name}")
    return out


def node_binary() -> str | None:
    return os.environ.get("NODE") or shutil.which("node")


def micropython_missing() -> str | None:
    """Why the WebAssembly MicroPython cannot run here, or None if it can."""
    if node_binary() is None:
        return "node is not installed"
    override = os.environ.get("CARDTABLE_MICROPYTHON_WASM")
    if override:
        return None if Path(override).exists() else f"CARDTABLE_MICROPYTHON_WASM={override} does not exist"
    pkg = REPO_ROOT / "node_modules" / "@micropython" / "micropython-webassembly-pyscript" / "micropython.mjs"
    return None if pkg.exists() else "the MicroPython npm package is not installed (run `npm ci`)"


# -- statistics --------------------------------------------------------------------------------

def quantile(sorted_xs: Sequence[float], q: float) -> float:
    """The q-quantile (0..1) of sorted data, linear between closest ranks."""
    if not sorted_xs:
        return math.nan
    pos = (len(sorted_xs) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)


def summary(xs: Iterable[float], digits: int = 1) -> dict[str, float | int]:
    """n, mean, p50, p90, p95, p99 and max of the data, rounded."""
    s = sorted(xs)
    if not s:
        return {"n": 0}
    out: dict[str, float | int] = {"n": len(s), "mean": sum(s) / len(s)}
    for name, q in (("p50", 0.5), ("p90", 0.9), ("p95", 0.95), ("p99", 0.99)):
        out[name] = quantile(s, q)
    out["max"] = s[-1]
    return {k: (v if k == "n" else round(float(v), digits)) for k, v in out.items()}


def slope(points: Sequence[tuple[float, float]]) -> float:
    """Least-squares slope of y over x."""
    n = len(points)
    if n < 2:
        return math.nan
    mx = sum(p[0] for p in points) / n
    my = sum(p[1] for p in points) / n
    sxx = sum((p[0] - mx) ** 2 for p in points)
    if sxx == 0:
        return math.nan
    return sum((p[0] - mx) * (p[1] - my) for p in points) / sxx


# -- printing ----------------------------------------------------------------------------------

def table(title: str, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain-text table: a title line, a header, a rule and right-aligned columns."""
    cells = [[_fmt(c) for c in r] for r in rows]
    widths = [len(h) for h in header]
    for r in cells:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], len(c))
    lines = [title]
    lines.append("  ".join(h.ljust(widths[0]) if i == 0 else h.rjust(widths[i]) for i, h in enumerate(header)))
    lines.append("  ".join("-" * w for w in widths))
    for r in cells:
        lines.append("  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r)))
    return "\n".join(lines)


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        if math.isnan(v):
            return "-"
        if abs(v) >= 100:
            return f"{v:,.0f}"
        if abs(v) >= 10:
            return f"{v:.1f}"
        return f"{v:.2f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def kib(n: float | None) -> float | None:
    return None if n is None else n / 1024
