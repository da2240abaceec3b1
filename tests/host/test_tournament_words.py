"""`cardtable tournament` without Mosquitto and in words a person reads: `new` (atomic, from a
spreadsheet's CSV), `forfeit` and `correct` of a counted game, `report --ask`, tie-breaks and
the results log (issues 30 and 32)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cardtable_host.tournament.tourney import Tournament, create
from hostsupport import cardtable


def no_mosquitto(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH has Python and no Mosquitto program."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    os.symlink(sys.executable, bin_ / "python3")
    return dict(os.environ, PATH=str(bin_))


def test_every_command_that_needs_no_broker_works_without_mosquitto(tmp_path: Path) -> None:
    env = no_mosquitto(tmp_path)
    d = str(tmp_path / "club")
    r = cardtable("tournament", "new", d, "--team", "Aces=Ann+Bob", "--team", "Kings=Cy+Di",
                  "--team", "Jacks=Ed+Flo", "--team", "Queens=Gil+Hal", env=env)
    assert r.returncode == 0, r.stderr
    assert (Path(d) / "broker" / "passwd").read_text().count("$7$101$") == 4  # director, watcher, 2 tables
    tour = Tournament(d)
    g1, g2 = tour.state["rounds"][0]["games"]
    from cardtable_host.tournament.reporter import bot_game

    lines, _ = bot_game(4)
    rec = tmp_path / "g.jsonl"
    rec.write_text("\n".join(lines) + "\n")
    names = [tour.team_name(t) for t in g2["teams"]]
    for args in (("schedule", d), ("result", d, g1["id"], str(rec)), ("forfeit", d, g2["id"], "--winner", names[0]),
                 ("correct", d, g1["id"], "120", "95", "--by", "TD", "--reason", "recount"),
                 ("standings", d), ("disputes", d)):
        r = cardtable("tournament", *args, env=env)
        assert r.returncode == 0, (args, r.stderr)
        assert "Traceback" not in r.stderr


def test_new_is_all_or_nothing(tmp_path: Path) -> None:
    d = tmp_path / "club"
    # the broker's files cannot be written (a folder where a file goes): no tournament folder left
    boom = dict(os.environ, PYTHONPATH=str(tmp_path / "hook") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    (tmp_path / "hook").mkdir()
    (tmp_path / "hook" / "sitecustomize.py").write_text(
        "from cardtable_host.tournament import broker\n"
        "def fail(*a, **k):\n    raise OSError(28, 'No space left on device')\n"
        "broker.write_config = fail\n")
    r = cardtable("tournament", "new", str(d), "--team", "A=a+b", "--team", "B=c+d", env=boom)
    assert r.returncode != 0
    assert not d.exists() and list(tmp_path.iterdir()) == [tmp_path / "hook"]
    r = cardtable("tournament", "new", str(d), "--team", "A=a+b", "--team", "B=c+d")
    assert r.returncode == 0, r.stderr  # not "already holds a tournament"
    assert (d / "tournament.json").exists() and (d / "broker" / "credentials.json").exists()


def test_teams_from_a_spreadsheets_utf16_csv_and_errors_by_file_line(tmp_path: Path) -> None:
    csv = tmp_path / "teams.csv"
    csv.write_bytes("team,player1,player2\r\nAces,Zoë,Bob\r\n\r\nKings,Cy,Di\r\n".encode("utf-16"))
    r = cardtable("tournament", "new", str(tmp_path / "a"), "--csv", str(csv))
    assert r.returncode == 0, r.stderr
    assert [t["players"] for t in Tournament(tmp_path / "a").teams] == [["Zoë", "Bob"], ["Cy", "Di"]]
    bad = tmp_path / "bad.csv"
    bad.write_text("team,player1,player2\nAces,Ann,Bob\n\nKings,Cy\n", encoding="utf-8")
    r = cardtable("tournament", "new", str(tmp_path / "b"), "--csv", str(bad))
    assert r.returncode == 2 and "bad.csv line 4: expected team,player1,player2" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "b").exists()


def test_a_forfeit_never_overwrites_a_counted_result(tmp_path: Path) -> None:
    d = tmp_path / "club"
    tour = create(d, [{"name": n, "players": [n + "1", n + "2"]} for n in ("Aces", "Kings")], 1)
    g = tour.state["rounds"][0]["games"][0]
    tour.append({"kind": "result", "game": g["id"], "scores": [125, 35], "winner": 0,
                 "confirmed": ["Aces", "Kings"]})
    before = tour.standings()
    r = cardtable("tournament", "forfeit", str(d), g["id"], "--winner", tour.team_name(g["teams"][1]))
    assert r.returncode == 2 and "already has a result: use `correct`" in r.stderr, r.stderr
    assert Tournament(d).standings() == before


def test_correct_says_whose_scores_and_no_program_literal(tmp_path: Path) -> None:
    d = tmp_path / "club"
    tour = create(d, [{"name": n, "players": [n + "1", n + "2"]} for n in ("Aces", "Kings")], 1)
    g = tour.state["rounds"][0]["games"][0]
    a, b = (tour.team_name(t) for t in g["teams"])
    r = cardtable("tournament", "correct", str(d), g["id"], "120", "95", "--by", "TD", "--reason", "recount")
    assert r.returncode == 0, r.stderr
    assert "no result -> %s 120, %s 95 (recount)" % (a, b) in r.stdout
    assert "None" not in r.stdout and "[" not in r.stdout and "T" not in r.stdout.split(" at ")[1][:19]


def test_report_ask_names_whose_score(tmp_path: Path) -> None:
    """`report --ask` asks each team with both teams' names on their scores (no broker needed to
    ask: the question comes before the result is sent)."""
    from cardtable_host.commands import tournament as cmd

    from cardtable_host.tournament import broker as brokers

    tour = create(tmp_path / "club", [{"name": n, "players": [n + "1", n + "2"]} for n in ("Aces", "Kings")], 1)
    brokers.write_config(tour.dir / "broker", tour.id, 1)
    g = tour.state["rounds"][0]["games"][0]
    names = [tour.team_name(t) for t in g["teams"]]
    asked: list[str] = []

    class Stop(Exception):
        pass

    def fake_reporter(*_a, confirm, **_k):  # type: ignore[no-untyped-def]
        confirm(g, names[0], [120, 0])
        raise Stop

    import builtins

    real_input = builtins.input
    builtins.input = lambda prompt="": asked.append(prompt) or "y"  # type: ignore[assignment]
    import cardtable_host.tournament.reporter as rep

    real = rep.Reporter
    rep.Reporter = fake_reporter  # type: ignore[assignment,misc]
    try:
        with pytest.raises(Stop):
            cmd.run(cmd_args(tour.dir))
    finally:
        builtins.input = real_input
        rep.Reporter = real  # type: ignore[misc]
    assert asked == ["%s: %s 120, %s 0. %s, confirm? [y/n] " % (g["id"], names[0], names[1], names[0])]


def cmd_args(folder: Path):  # type: ignore[no-untyped-def]
    import argparse

    return argparse.Namespace(sub="report", dir=str(folder), broker="127.0.0.1:1", table=1, seed=1, pace=0.0,
                              ask=True, virtual_board=False, log=None)


def test_a_second_result_line_never_replaces_the_first(tmp_path: Path) -> None:
    tour = create(tmp_path / "t", [{"name": n, "players": [n + "1", n + "2"]} for n in "AB"], 1)
    g = tour.state["rounds"][0]["games"][0]
    tour.append({"kind": "result", "game": g["id"], "scores": [120, 80], "winner": 0})
    tour.append({"kind": "result", "game": g["id"], "scores": [10, 125], "winner": 1})
    tour.append({"kind": "dispute", "game": g["id"], "scores": [0, 130], "winner": 1})
    assert Tournament(tour.dir).outcomes()[g["id"]]["scores"] == [120, 80]
    rows = {r["name"]: r for r in Tournament(tour.dir).standings()}
    assert rows[tour.team_name(g["teams"][0])]["won"] == 1


def test_head_to_head_counts_only_games_between_the_tied_teams(tmp_path: Path) -> None:
    # A and B tie on wins (2 each) and A beat B; B's wins over others, and its points, are more:
    # counted over all their games (not only A v B), B would come first
    tour = create(tmp_path / "t", [{"name": n, "players": [n + "1", n + "2"]} for n in "ABCDE"], 2,
                  tiebreaks=["head-to-head", "points-for"])

    def result(x: str, y: str, sx: int, sy: int) -> None:
        g = next(g for g in tour.games.values() if sorted(tour.team_name(t) for t in g["teams"]) == sorted([x, y]))
        if tour.team_name(g["teams"][0]) != x:
            sx, sy = sy, sx
        tour.append({"kind": "result", "game": g["id"], "scores": [sx, sy], "winner": 0 if sx > sy else 1})

    result("A", "B", 121, 119)   # A beats B: head-to-head puts A first
    result("B", "C", 125, 0)     # B's other wins are against others, with many points
    result("B", "E", 125, 0)
    result("A", "D", 120, 119)
    result("C", "A", 121, 0)     # A loses to C: wins A 2, B 2
    rows = Tournament(tour.dir).standings()
    order = [r["name"] for r in rows]
    assert order.index("A") < order.index("B"), rows  # points-for would put B first (369 v 241)
    # B beat C and E, A did not play them all: only A v B decides between A and B
    ranks = {r["name"]: r["rank"] for r in rows}
    assert ranks["A"] == 1 and ranks["B"] == 2


def test_no_posix_only_module_on_a_tournament_commands_path(tmp_path: Path) -> None:
    """Windows has no pwd, grp, termios, tty, fcntl or resource: every tournament subcommand
    that needs no broker runs without them (and the rest import without them)."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(
        "import sys\nfor m in ('pwd', 'grp', 'termios', 'tty', 'fcntl', 'resource'):\n    sys.modules[m] = None\n")
    env = dict(os.environ, PYTHONPATH=str(hook) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    d = str(tmp_path / "club")
    for args in (("new", d, "--team", "A=a+b", "--team", "B=c+d"), ("schedule", d), ("standings", d),
                 ("disputes", d), ("direct", "--help"), ("broker", "--help"), ("report", "--help")):
        r = cardtable("tournament", *args, env=env)
        assert r.returncode == 0, (args, r.stderr)
    r = subprocess.run([sys.executable, "-c", "import cardtable_host.tournament.director, cardtable_host.tournament.directorweb, "
                        "cardtable_host.tournament.evening, cardtable_host.tournament.reporter, cardtable_host.tournament.tablewatch"],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
