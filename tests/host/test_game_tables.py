"""Tests and bench take the game list from the registry (issue 29): a table in tests/ or bench/
naming games one by one (a dict keyed by game ids, a list of them, a list of tuples led by
them) names every registered game, so a new game cannot be forgotten; a table may leave a game
out only for a reason written here."""
from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from cardtable import games
from cardtable.table.configcheck import facts

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("tests", "bench")
IDS = frozenset(games.GAMES)

# (file, table) -> why it names only some games: the tuning of those that need it, read with a
# default for every other registered game (the table's users iterate the registry).
OVERRIDES = {
    ("tests/host/test_hidden_info.py", "SEEDS"): "seeds for short hands; others play seed 1",
    ("tests/host/test_sim_e2e.py", "TUNED"): "seeds and rules for short games; others seed 1",
    ("tests/host/test_sim_dealpad.py", "SEEDS"): "seeds for short games; others seed 1",
    ("tests/host/test_serve_hidden.py", "PAD_SEEDS"): "seeds for short hands with the deal pad; others seed 1",
    ("tests/host/test_rp2_games.py", "TUNED"): "measured boards, seeds and order; others follow",
}


def _deal_pad_games() -> frozenset[str]:
    return frozenset(g for g in games.GAMES if facts(g)[-1])


# (file, table) -> (the games it must name, {game it leaves out: why}); any other table must
# name every registered game.
SCOPES = {
    ("tests/device/dealing.py", "DEALT"): (_deal_pad_games(), {}),
    ("tests/host/test_seat_pages.py", "KNOWN"): (_deal_pad_games(), {}),
    ("tests/rules/test_public.py", "test_a_deal_shows_a_spectator_only_its_face_up_piles"): (
        IDS, {"nexus": "its second indicator shows only in plain view: its own test follows"}),
}


def _first_id(node: ast.AST) -> str | None:
    """The game id a table entry names: the id itself, or the first item of a tuple."""
    if isinstance(node, (ast.Tuple, ast.List)) and node.elts:
        node = node.elts[0]
    if isinstance(node, ast.Constant) and node.value in IDS:
        return node.value
    return None


def _named(node: ast.AST) -> set[str]:
    """The game ids a literal lists (its items, or a dict's keys), or an empty set."""
    if isinstance(node, ast.Dict):
        items: list[ast.AST] = [k for k in node.keys if k is not None]
    elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = list(node.elts)
    else:
        return set()
    return {g for g in map(_first_id, items) if g}


def tables(tree: ast.AST) -> Iterator[tuple[str, int, set[str]]]:
    """(name, line, game ids) of every table: a literal naming two games or more at the top of
    a module, three or more inside a function (two there are a test of those two games)."""
    # its name: the variable it is assigned to at the top of the module, else its function
    def walk(node: ast.AST, owner: str, top: bool) -> Iterator[tuple[str, int, set[str]]]:
        for child in ast.iter_child_nodes(node):
            name, here = owner, top
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name, here = child.name, False
            elif isinstance(child, (ast.Assign, ast.AnnAssign)) and top and owner == "":
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                name = next((t.id for t in targets if isinstance(t, ast.Name)), owner)
            ids = _named(child)
            if len(ids) >= (2 if here else 3):
                yield name, getattr(child, "lineno", 0), ids
            else:
                yield from walk(child, name, here)

    yield from walk(tree, "", True)


def found() -> dict[tuple[str, str], set[str]]:
    """(file, table) -> the game ids it names, for every table in tests/ and bench/."""
    out: dict[tuple[str, str], set[str]] = {}
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel == "tests/host/test_game_tables.py":
                continue
            for name, _, ids in tables(ast.parse(path.read_text(encoding="utf-8"))):
                out.setdefault((rel, name), set()).update(ids)
    return out


def forgotten(table: tuple[str, str], ids: set[str]) -> set[str]:
    """The registered games a table should name and does not."""
    if table in OVERRIDES:
        return set()
    must, left_out = SCOPES.get(table, (IDS, {}))
    return set(must) - ids - set(left_out)


def test_every_game_table_in_tests_and_bench_names_every_registered_game() -> None:
    short = {t: sorted(forgotten(t, ids)) for t, ids in found().items() if forgotten(t, ids)}
    assert not short, "tables lacking registered games (name them, or take the list from " \
        "cardtable.games.GAMES): %s" % short


def test_the_reasons_here_are_for_tables_that_exist() -> None:
    tabs = found()
    assert set(OVERRIDES) <= set(tabs), set(OVERRIDES) - set(tabs)
    assert set(SCOPES) <= set(tabs), set(SCOPES) - set(tabs)
    for _, left_out in SCOPES.values():
        assert set(left_out) <= IDS


def test_a_table_lacking_a_registered_game_is_found() -> None:
    one, two, three, *_ = sorted(IDS)
    src = ("SEEDS = {%r: 1, %r: 2}\nPAIRS = [(%r, 'b'), (%r, 'c')]\nX = 1\n\n\ndef f():\n"
           "    for g in (%r, %r, %r):\n        pass\n\n\n@mark(%r, [(%r, 1), (%r, 2)])\ndef g():\n    pass\n"
           ) % (one, two, one, two, one, two, three, "game", one, two)
    got = {name: ids for name, _, ids in tables(ast.parse(src))}
    # g's two games are a test of those two (fixtures of their own), not a table of games
    assert got == {"SEEDS": {one, two}, "PAIRS": {one, two}, "f": {one, two, three}}
    assert forgotten(("x.py", "SEEDS"), got["SEEDS"]) == IDS - {one, two}
    assert forgotten(("x.py", "SEEDS"), set(IDS)) == set()
    # a lone game id (a test of one game) is no table
    assert list(tables(ast.parse("G = %r\nT = (%r, 3)\n" % (one, one)))) == []


def test_every_registered_game_has_its_record_fixtures() -> None:
    """tests/fixtures/GAME/ is a per-game table too (test_referee_cli.py reads its folders): a
    legal, an illegal and a malformed record of every registered game, and of no other."""
    fixtures = ROOT / "tests" / "fixtures"
    folders = {p.name for p in fixtures.iterdir() if p.is_dir()}
    assert folders == IDS, "fixture folders %s, registered games %s" % (sorted(folders), sorted(IDS))
    lacking = [(g, f) for g in sorted(IDS) for f in ("legal.jsonl", "illegal.jsonl", "malformed.jsonl")
               if not (fixtures / g / f).is_file()]
    assert not lacking, lacking
