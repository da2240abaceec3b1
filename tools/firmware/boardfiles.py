"""Which files of the device package go to the board: all but the modules marked host only.

A module the board never imports (games/words.py: events in words for people) says so with
MARK in its first lines; the frozen image (firmware/manifest.py), the mip package list
(mip_package.py) and `cardtable flash` all leave it out.
"""
from __future__ import annotations

from pathlib import Path

MARK = "# host only: never imported on the board"


def host_only(path: Path) -> bool:
    """True if the module at path is marked host only."""
    with open(path, encoding="utf-8") as f:
        return MARK in f.read(600)


def board_files(package: Path) -> list[Path]:
    """The .py files of the package (a folder) that go to the board, sorted."""
    return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts and not host_only(p))


def package_files(folder: str) -> list[str]:
    """board_files() of a folder as paths relative to it (what the freezing manifest lists)."""
    root = Path(folder)
    return [p.relative_to(root).as_posix() for p in board_files(root)]
