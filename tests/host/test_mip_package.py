"""firmware/package.json installs the whole device package with mpremote's mip, as libraries ship."""
from __future__ import annotations

import json
from pathlib import Path

from mpremote import mip

from cardtable import version

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
PACKAGE = FIRMWARE / "lib" / "cardtable"


class RecordingBoard:
    """The part of mpremote's transport mip uses: a board filesystem kept in a dict."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.dirs: set[str] = {"/lib"}

    def fs_exists(self, path: str) -> bool:
        return path in self.dirs or path in self.files

    def fs_mkdir(self, path: str) -> None:
        self.dirs.add(path)

    def fs_writefile(self, path: str, data: bytes, progress_callback: object = None) -> None:
        assert path.rpartition("/")[0] in self.dirs, "no folder for " + path
        self.files[path] = data


def test_package_json_lists_every_file_of_the_package_and_its_version() -> None:
    doc = json.loads((FIRMWARE / "package.json").read_text())
    on_disk = sorted(p.relative_to(FIRMWARE / "lib").as_posix() for p in PACKAGE.rglob("*.py")
                     if "__pycache__" not in p.parts)
    assert sorted(dest for dest, _src in doc["urls"]) == on_disk, \
        "stale: run python3 tools/firmware/mip_package.py"
    assert all(src == "lib/" + dest for dest, src in doc["urls"])
    assert doc["version"] == version.VERSION


def test_mpremote_mip_installs_the_package_from_a_local_path() -> None:
    board = RecordingBoard()
    mip._install_package(board, str(FIRMWARE / "package.json"), mip._PACKAGE_INDEX, "/lib", None, False)
    want = {"/lib/" + p.relative_to(FIRMWARE / "lib").as_posix(): p.read_bytes()
            for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}
    assert board.files == want
    assert {"/lib/cardtable", "/lib/cardtable/games", "/lib/cardtable/table"} <= board.dirs
