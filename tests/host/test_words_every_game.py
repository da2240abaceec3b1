"""What people read prints no program data (a list's brackets, a dict's braces, None), over
every game of the registry: the demo, `sim`, the monitor (its log and table view, an undo
too), `pull` (its list and the records it saves) and `doctor`."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from cardtable import games, record
from cardtable import referee as rules_referee

LITERAL = re.compile(r"[\[\]{}]|\bNone\b")
GAMES = sorted(games.GAMES)


def literals(text: str) -> list[str]:
    """The lines of text that show program data."""
    return [line for line in text.splitlines() if LITERAL.search(line)]


SEEDS = {"nerts": 46}  # a round with every kind of play in 73 actions (seed 3's took 244); others 3


def short(gid: str) -> list[str]:
    """Rule options that make a game short, from the game's own options (a target score)."""
    options = games.game_class(gid).OPTIONS
    return ["--rule", "target=1"] if type(options.get("target")) is int else []


def test_the_registry_is_what_is_tested() -> None:
    assert len(GAMES) >= 6 and "fortyfives" in GAMES


def test_the_demo_of_every_game_prints_no_program_data() -> None:
    from hostsupport import cardtable

    r = cardtable("demo", *GAMES, "--seed", "5", timeout=300)
    assert r.returncode == 0, r.stderr
    assert not literals(r.stdout + r.stderr), literals(r.stdout + r.stderr)[:5]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """Each game played once by `cardtable sim` with its flash kept: (folder, what sim printed)."""
    return {}


def sim_game(played: dict[str, tuple[Path, str]], base: Path, gid: str) -> tuple[Path, str]:
    from hostsupport import cardtable, need_node

    pytest.importorskip("termios")
    need_node()
    if gid not in played:
        folder = base / gid
        folder.mkdir()
        r = cardtable("sim", gid, "--delay", "0", "--seed", str(SEEDS.get(gid, 3)), *short(gid), "--flash", str(folder / "flash"),
                      "--record", str(folder / "game.jsonl"), timeout=300)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr
        played[gid] = (folder, r.stdout + r.stderr)
    return played[gid]


@pytest.mark.parametrize("gid", GAMES)
def test_sim_prints_no_program_data(gid: str, played: dict[str, tuple[Path, str]],
                                    tmp_path_factory: pytest.TempPathFactory) -> None:
    _folder, said = sim_game(played, tmp_path_factory.getbasetemp(), gid)
    assert "result: " in said
    assert not literals(said), literals(said)[:5]


def board_messages(lines: list[str]) -> list[dict[str, Any]]:
    """A record as the board tells it to a spectator: its hello, then each action's event
    (public form) and the state after it; an undo of the last action at the end."""
    game, actions = record.load(lines)
    header = json.loads(lines[0])
    out: list[dict[str, Any]] = [{"type": "hello", "fw": "0.1.0", "board": "virtual", "layout": "x",
                                  "game": header, "seq": 0},
                                 {"type": "state", "seq": 0, "view": game.view(None)}]
    seq = 0
    last: dict[str, Any] | None = None
    for _lineno, action, reason, events in rules_referee.replay(game, actions):
        obj = game.public(record.encode(game, action))
        seq += 1
        if reason:
            out.append({"type": "verdict", "action": obj, "seat": obj.get("seat"), "reason": reason})
            continue
        last = obj
        out.append({"type": "event", "seq": seq, "action": obj, "events": events, "from": "host"})
        out.append({"type": "state", "seq": seq, "view": game.view(None)})
    if last is not None:
        out.append({"type": "event", "seq": seq + 1, "undone": last, "from": "host"})
    return out


@pytest.mark.parametrize("gid", GAMES)
def test_the_monitor_shows_every_game_in_words(gid: str, played: dict[str, tuple[Path, str]],
                                               tmp_path_factory: pytest.TempPathFactory) -> None:
    from cardtable_host.commands.monitor import table_lines
    from cardtable_host.serve.model import Model

    folder, _ = sim_game(played, tmp_path_factory.getbasetemp(), gid)
    lines = (folder / "game.jsonl").read_text().splitlines()
    model = Model("virtual")
    shown: list[str] = []
    for msg in board_messages(lines):
        model.feed(msg)
        if msg["type"] == "state":
            shown.extend(table_lines(msg["view"]))
    shown.extend(text for text, _colour in model.log)
    assert any(line.startswith("undone: ") for line in shown)
    bad = [line for line in shown if LITERAL.search(line)]
    assert not bad, bad[:5]


@pytest.mark.parametrize("gid", GAMES)
def test_pull_and_doctor_say_a_finished_game_in_words(gid: str, played: dict[str, tuple[Path, str]],
                                                      tmp_path_factory: pytest.TempPathFactory) -> None:
    from hostsupport import cardtable

    from cardtable_host.sim.board import VirtualBoard

    folder, _ = sim_game(played, tmp_path_factory.getbasetemp(), gid)
    with VirtualBoard(None, flash_dir=folder / "flash", period_ms=2) as vb:  # the board the game was on
        listed = cardtable("pull", "--list", "--port", vb.port, timeout=120)
        pulled = cardtable("pull", "-o", str(folder / "pulled"), "--port", vb.port, timeout=120)
        doctor = cardtable("doctor", "--port", vb.port, timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert pulled.returncode == 0, pulled.stderr
    assert doctor.returncode in (0, 1), doctor.stderr
    for r in (listed, pulled, doctor):
        assert not literals(r.stdout + r.stderr), literals(r.stdout + r.stderr)[:5]
    # the game just played is over, and both commands say so; doctor does not call it playing
    row = [line for line in listed.stdout.splitlines() if gid in line][-1]
    assert row.endswith("(over)"), listed.stdout
    saved = [line for line in pulled.stdout.splitlines() if gid in line and " lines, " in line][-1]
    assert saved.endswith("(over)") and "being played" not in saved, pulled.stdout
    assert "a game of %s, over" % gid in doctor.stdout and "playing %s" % gid not in doctor.stdout, doctor.stdout


@pytest.mark.parametrize("gid", GAMES)
def test_a_game_left_unfinished_is_told_in_words(gid: str, capsys: pytest.CaptureFixture[str]) -> None:
    """sim's last line when the people quit before the end: the scores so far, per seat or side."""
    from types import SimpleNamespace

    from cardtable_host.commands import sim

    g = games.load(gid)
    scores = list(g.scores)
    scores[0] = scores[0] - 20  # a side behind
    bots = SimpleNamespace(shadow=g, scores=scores, over=False, winner=None, game_id=gid, actions=3)
    sim._result(sim.Show(False, False, False), bots, SimpleNamespace(status=lambda: {}))  # type: ignore[arg-type]
    said = capsys.readouterr().out
    assert said.startswith("the game is not over; scores so far: "), said
    assert g.side(0) + " -20" in said
    assert not literals(said), said
