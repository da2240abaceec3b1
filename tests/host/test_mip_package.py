"""firmware/package.json installs the device package with mpremote's mip, as libraries ship
(all but the modules marked host only, which the board never imports)."""
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


def _board_files() -> list[Path]:
    """Every .py of the package but the host-only ones (their first lines carry the mark)."""
    mark = "# host only: never imported on the board"
    return sorted(p for p in PACKAGE.rglob("*.py")
                  if "__pycache__" not in p.parts and mark not in p.read_text()[:600])


def test_package_json_lists_every_board_file_of_the_package_and_its_version() -> None:
    doc = json.loads((FIRMWARE / "package.json").read_text())
    on_disk = sorted(p.relative_to(FIRMWARE / "lib").as_posix() for p in _board_files())
    assert sorted(dest for dest, _src in doc["urls"]) == on_disk, \
        "stale: run python3 tools/firmware/mip_package.py"
    assert all(src == "lib/" + dest for dest, src in doc["urls"])
    assert doc["version"] == version.VERSION


def test_mpremote_mip_installs_the_package_from_a_local_path() -> None:
    board = RecordingBoard()
    mip._install_package(board, str(FIRMWARE / "package.json"), mip._PACKAGE_INDEX, "/lib", None, False)
    want = {"/lib/" + p.relative_to(FIRMWARE / "lib").as_posix(): p.read_bytes()
            for p in _board_files()}
    assert board.files == want
    assert {"/lib/cardtable", "/lib/cardtable/games", "/lib/cardtable/table"} <= board.dirs


def test_the_words_module_stays_on_the_host() -> None:
    doc = json.loads((FIRMWARE / "package.json").read_text())
    dests = [dest for dest, _src in doc["urls"]]
    assert "cardtable/games/words.py" not in dests
    assert "cardtable/games/base.py" in dests and (PACKAGE / "games" / "words.py").is_file()
    # the board never imports it: no device module outside the games' host-only methods names it
    users = [p.name for p in PACKAGE.rglob("*.py") if "games" not in p.parts
             and "import words" in p.read_text()]
    assert users == []
