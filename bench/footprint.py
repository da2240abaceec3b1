"""Firmware flash footprint: the mpy-cross (armv6m) build against the Pico's filesystem."""

from __future__ import annotations

import importlib.util
import io
import math
from contextlib import redirect_stdout
from types import ModuleType
from typing import Any

from benchlib import BOARDS, FIRMWARE, FS_BLOCK, PICO_FS_BYTES, REPO_ROOT


def _load_build() -> ModuleType:
    """tools/mpy/build.py under a private name (a top-level `build` could be pypa's)."""
    spec = importlib.util.spec_from_file_location("cardtable_mpy_build", REPO_ROOT / "tools" / "mpy" / "build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build() -> tuple[int, str]:
    """Bring build/mpy up to date (incremental); returns (status, what build.py printed)."""
    b = _load_build()
    out = io.StringIO()
    with redirect_stdout(out):
        rc = b.build()
    return rc, out.getvalue().strip()


def _blocks(n: int) -> int:
    return max(1, math.ceil(n / FS_BLOCK))


def measure(journal_game_bytes: int | None = None) -> dict[str, Any]:
    """Sizes of what `cardtable flash` copies: lib as .mpy, main.py, the board files.

    `blocks` counts every file as whole 4 KiB littlefs blocks -- an upper bound, since
    littlefs keeps very small files inline in their directory's metadata.
    """
    import json

    rc, log = build()
    b = _load_build()
    manifest = json.loads((b.OUT / "manifest.json").read_text())
    modules = {rel: {"py": f["src"], "mpy": f["out"]} for rel, f in sorted(manifest["files"].items())
               if rel.endswith(".py") and "out" in f}
    data = {rel: f["out"] for rel, f in manifest["files"].items() if not rel.endswith(".py") and "out" in f}
    files = [m["mpy"] for m in modules.values()] + list(data.values())
    main = FIRMWARE / "main.py"
    main_size = main.stat().st_size if main.exists() else None
    if main_size:
        files.append(main_size)
    boards = {p.name: p.stat().st_size for p in sorted(BOARDS.glob("*.json"))}
    files.extend(boards.values())
    total = sum(files)
    blocks = sum(_blocks(n) for n in files)
    out: dict[str, Any] = {
        "mpy_cross": manifest.get("mpy_cross"),
        "march": manifest.get("march"),
        "build_status": rc,
        "build_log": log,
        "modules": modules,
        "py_bytes": sum(m["py"] for m in modules.values()),
        "mpy_bytes": sum(m["mpy"] for m in modules.values()),
        "data_bytes": sum(data.values()),
        "main_py_bytes": main_size,
        "board_bytes": sum(boards.values()),
        "total_bytes": total,
        "blocks_4k": blocks,
        "fs_bytes": PICO_FS_BYTES,
        "fs_fraction": round(total / PICO_FS_BYTES, 4),
        "fs_fraction_blocks": round(blocks * FS_BLOCK / PICO_FS_BYTES, 4),
    }
    if journal_game_bytes is not None:
        from cardtable.journal import KEEP

        out["journal"] = {
            "largest_game_bytes": journal_game_bytes,
            "keep_games": KEEP,
            "bytes": KEEP * journal_game_bytes,
            "fs_fraction": round(KEEP * journal_game_bytes / PICO_FS_BYTES, 4),
        }
    return out
