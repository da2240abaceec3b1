"""Where a running `cardtable serve` says how to reach it: a file beside the port's lock,
readable by this user only, with its page's address and the scorekeeper's secret."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cardtable_host.board import portlock


def path(port: str) -> Path:
    """The serve file of a board's port."""
    return portlock.runtime_dir() / (portlock.lock_path(port).stem + ".serve")


def _alive(info: Any) -> bool:
    return isinstance(info, dict) and isinstance(info.get("pid"), int) and portlock.alive(info["pid"])


def running() -> list[dict[str, Any]]:
    """The serves running on this machine: [{"url", "secret", "pid", "port", "command"}]."""
    out = []
    for f in sorted(portlock.runtime_dir().glob("*.serve")):
        try:
            info = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if _alive(info):
            out.append(info)
    return out


def find(port: str) -> dict[str, Any] | None:
    """The running serve that holds port, or None."""
    try:
        info = json.loads(path(port).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return info if _alive(info) else None
