"""One place per game: no code outside firmware/lib/cardtable/games branches on a game id or
keeps a table keyed by one (issue 21). Adding a game is its module plus its registry entry."""
from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

from cardtable import games

ROOT = Path(__file__).resolve().parents[2]
GAMES_DIR = ROOT / "firmware" / "lib" / "cardtable" / "games"
SCANNED = ("host", "firmware", "tools")
IDS = frozenset(games.GAMES)

# (file, source of the flagged expression) -> why it is not a game id. Keep this short: a new
# entry needs a reason a reader accepts.
ALLOWED = {
    ("firmware/lib/cardtable/cards/__init__.py", 'name == "fairies"'):
        "the Fairies card family (cards.deck), not the game",
    ("host/cardtable_host/draw/drawings.py", '{"standard": 54, "decktet": 37, "fairies": 36}'):
        "tags per card family (a game's DECK), not per game",
    ("firmware/lib/cardtable/table/inputs.py", 'r == "nexus"'):
        "the zone role 'nexus' (the Fairies Nexus pad), not the game",
    ("firmware/lib/cardtable/table/inputs.py", 'verb == "nerts"'):
        "the button verb 'nerts' (a seat's Nerts call), not the game",
    ("firmware/lib/cardtable/table/inputs.py", '(arg, "nerts", dt if dt > 0 else 0)'):
        "the action verb 'nerts'",
    ("firmware/lib/cardtable/table/remote.py", 'verb == "nerts"'):
        "the button verb 'nerts'",
    ("firmware/lib/cardtable/table/remote.py", '{"bid": " <bid>", "trump": " <suit>", "suit": " <suit>", '
                                               '"nerts": " <seat>", "at": " up|down"}'):
        "argument hints per button verb",
    ("host/cardtable_host/sim/bots.py", 'verb == "nerts"'):
        "the action verb 'nerts'",
}
JS_BRANCH = re.compile(r"""[!=]==?\s*["'](%s)["']|["'](%s)["']\s*[!=]==?""" % (
    "|".join(map(re.escape, IDS)), "|".join(map(re.escape, IDS))))


def _is_id(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value in IDS


def _holds_id(node: ast.AST) -> bool:
    return isinstance(node, (ast.Tuple, ast.List, ast.Set)) and any(_is_id(e) for e in node.elts)


def game_id_uses(tree: ast.AST) -> list[ast.AST]:
    """Comparisons with a game id, dicts keyed by one, subscripts by one, literals listing one."""
    out: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            if any(_is_id(x) or _holds_id(x) for x in [node.left, *node.comparators]):
                out.append(node)
        elif isinstance(node, ast.Dict):
            if any(k is not None and _is_id(k) for k in node.keys):
                out.append(node)
        elif isinstance(node, ast.Subscript):
            if _is_id(node.slice):
                out.append(node)
        elif _holds_id(node):
            out.append(node)
    return out


def _normal(src: str) -> str:
    return re.sub(r"\s+", " ", src).replace("( ", "(").replace(" )", ")")


@functools.lru_cache(maxsize=1)
def found() -> tuple[tuple[str, int, str], ...]:
    """(file, line, source) of every game-id branch or table outside games/."""
    hits = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            if GAMES_DIR in path.parents or "node_modules" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            rel = path.relative_to(ROOT).as_posix()
            for node in game_id_uses(ast.parse(text)):
                hits.append((rel, node.lineno, _normal(ast.get_source_segment(text, node) or "")))
        for path in sorted((ROOT / top).rglob("*.js")):
            if "node_modules" in path.parts:
                continue
            rel = path.relative_to(ROOT).as_posix()
            for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if JS_BRANCH.search(line):
                    hits.append((rel, i, line.strip()))
    return tuple(hits)


def test_no_code_outside_games_branches_on_a_game_id() -> None:
    bad = ["%s:%d: %s" % h for h in found() if (h[0], h[2]) not in ALLOWED]
    assert not bad, ("a game's facts belong in its module (firmware/lib/cardtable/games/) or its "
                     "registry entry; found outside:\n" + "\n".join(bad))


def test_every_allowed_line_still_exists() -> None:
    have = {(h[0], h[2]) for h in found()}
    stale = [k for k in ALLOWED if k not in have]
    assert not stale, "allow-list entries that no longer match anything: %s" % stale


def test_the_scan_catches_a_branch_a_table_and_a_lookup() -> None:
    src = ('if g.ID == "nerts":\n    pass\nX = {"fortyfives": 1}\ny = X["nexus"]\n'
           'AUTO = ("fortyfives",)\nok = g.zone("play")\n')
    kinds = [type(n).__name__ for n in game_id_uses(ast.parse(src))]
    assert sorted(kinds) == ["Compare", "Dict", "Subscript", "Tuple"]
