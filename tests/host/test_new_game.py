"""Acceptance (issue 29): a new game is its module, one registry line and one board layout.

The tree is copied to a temporary folder; there a throwaway trick game on the shared trick core
(tests/host/newgame/plaintricks.py) goes into firmware/lib/cardtable/games/, its line into the
registry and its layout into a shipped board file, and nothing else changes. In that copy the
conformance suite passes (CPython and MicroPython), `cardtable sim` plays a whole game of it by
bots on the virtual board, and `cardtable referee` agrees with the journal pulled from the board.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hostsupport import need_node

pytest.importorskip("termios")  # ptys are POSIX only
need_node()

ROOT = Path(__file__).resolve().parents[2]
GAME = "plain-tricks"
MODULE = Path(__file__).resolve().parent / "newgame" / "plaintricks.py"
ENTRY = '    "%s": ("cardtable.games.plaintricks", "PlainTricks", "2|play*||||deal"),\n' % GAME
BOARD = "pico-i2c-2seat"
LAYOUT = {"seats": [0, 1], "zones": {"s0": "play 0", "s1": "play 1", "t0": "tap 0", "t1": "tap 1",
                                     "d": "deal"}}
SKIP = shutil.ignore_patterns(".git", ".venv", "node_modules", "build", "__pycache__",
                              ".pytest_cache", ".hypothesis", "*.egg-info", "results")
TIMEOUT = 300


def _add_game(tree: Path) -> None:
    """The three additions a new game needs: its module, its registry line, its layout."""
    games_dir = tree / "firmware" / "lib" / "cardtable" / "games"
    shutil.copy(MODULE, games_dir / "plaintricks.py")
    registry = games_dir / "__init__.py"
    text = registry.read_text(encoding="utf-8")
    start = text.index("GAMES = {\n")
    end = text.index("\n}\n", start) + 1
    registry.write_text(text[:end] + ENTRY + text[end:], encoding="utf-8")
    board = tree / "firmware" / "boards" / (BOARD + ".json")
    conf = json.loads(board.read_text(encoding="utf-8"))
    conf["layouts"][GAME] = LAYOUT
    board.write_text(json.dumps(conf, indent=2) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository with the new game added."""
    tree = tmp_path_factory.mktemp("newgame") / "cardtable"
    shutil.copytree(ROOT, tree, ignore=SKIP)
    (tree / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    _add_game(tree)
    return tree


def _run(tree: Path, *args: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
    """A command in the copy, its Python packages taken from the copy (not this checkout)."""
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=os.pathsep.join(
        [str(tree / "firmware" / "lib"), str(tree / "host")]))
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run([sys.executable, *args], cwd=tree, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_the_copy_knows_the_new_game_from_its_three_additions(tree: Path) -> None:
    p = _run(tree, "-c", "from cardtable import games; from cardtable_host.sim.choice import "
             "board_for; print(games.available(), board_for(%r))" % GAME)
    assert p.returncode == 0, p.stderr
    assert GAME in p.stdout and BOARD in p.stdout
    assert str(tree) in _run(tree, "-c", "import cardtable; print(cardtable.__file__)").stdout


def test_the_new_game_passes_the_conformance_suite(tree: Path) -> None:
    p = _run(tree, "-m", "pytest", "-o", "addopts=", "-q", "-p", "no:cacheprovider", "tests/rules/test_conformance.py")
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    assert " passed" in p.stdout and "failed" not in p.stdout
    p = _run(tree, "tools/mpy/test_mpy.py", "--mode", "mpy", "tests/rules/test_conformance.py")
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    assert "0 failed" in p.stdout


def test_the_new_game_plays_on_the_virtual_board_and_the_referee_agrees(tree: Path) -> None:
    rec = tree / "played.jsonl"
    p = _run(tree, "-m", "cardtable_host.cli", "sim", GAME, "--bots", "all", "--seed", "3", "--json",
             "--record", str(rec))
    assert p.returncode == 0, p.stderr[-3000:]
    messages = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    assert messages[0]["type"] == "sim" and messages[0]["game"] == GAME
    result = [m for m in messages if m.get("type") == "result"][-1]
    assert result["over"] is True and max(result["scores"]) >= 5
    events = [m for m in messages if m.get("type") == "event"]
    plays = [m for m in events if str(m.get("from", "")).startswith("zone ")]
    assert plays, "no card was laid on a reader"
    lines = rec.read_text().splitlines()
    assert json.loads(lines[0])["game"] == GAME and len(lines) == len(events) + 1

    ref = _run(tree, "-m", "cardtable_host.cli", "referee", "--json", str(rec))
    assert ref.returncode == 0, ref.stdout + ref.stderr
    verdict = json.loads(ref.stdout)
    assert verdict["ok"] and verdict["over"]
    assert verdict["scores"] == result["scores"] and verdict["winner"] == result["winner"]


def test_a_new_game_module_is_not_ignored_by_git(tmp_path: Path) -> None:
    """.gitignore's patterns are anchored: a games/ folder deep in the tree is no pull folder."""
    shutil.copy(ROOT / ".gitignore", tmp_path / ".gitignore")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)

    def ignored(path: str) -> bool:
        p = subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=tmp_path)
        assert p.returncode in (0, 1), p  # 0: ignored, 1: not
        return p.returncode == 0

    assert not ignored("firmware/lib/cardtable/games/plaintricks.py")
    assert ignored("games/0001.jsonl")  # `cardtable pull`'s folder at the root still is
