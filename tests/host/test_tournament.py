"""`cardtable tournament`: the round-robin, standings, corrections (no broker needed)."""
from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from cardtable_host.errors import UsageError
from cardtable_host.tournament.tourney import Tournament, circle, create, parse_clock
from hostsupport import cardtable


def teams(n: int) -> list[dict]:
    return [{"name": "T%d" % i, "players": ["P%da" % i, "P%db" % i]} for i in range(n)]


@pytest.mark.parametrize("n", [2, 5, 6, 7, 10])
def test_every_pair_meets_once_and_odd_teams_sit_out_once(n: int) -> None:
    rounds = circle(n)
    met = [tuple(sorted(p)) for r in rounds for p in r if p[1] is not None]
    assert sorted(met) == sorted(itertools.combinations(range(n), 2))
    for r in rounds:
        seen = [t for p in r for t in p if t is not None]
        assert len(seen) == len(set(seen)) == n  # nobody plays twice in a round
    byes = [p[0] for r in rounds for p in r if p[1] is None]
    assert sorted(byes) == (list(range(n)) if n % 2 else [])


def test_tables_sittings_and_times(tmp_path: Path) -> None:
    tour = create(tmp_path / "t", teams(9), 2, start="6pm", round_minutes=40)
    r1 = tour.state["rounds"][0]
    assert len(r1["games"]) == 4 and len(r1["byes"]) == 1
    assert [(g["table"], g["sitting"]) for g in r1["games"]] == [(1, 1), (2, 1), (1, 2), (2, 2)]
    text = tour.schedule_text()
    assert "first round begins at 18:00" in text
    assert "18:40  table 1" in text and "19:20  table 1" in text  # round 2 after two sittings
    assert "bye: " in text
    assert parse_clock("6:30pm") == 18 * 60 + 30


def _result(tour: Tournament, a: str, b: str, sa: int, sb: int) -> None:
    gid = next(g["id"] for g in tour.games.values()
               if [tour.team_name(t) for t in g["teams"]] in ([a, b], [b, a]))
    g = tour.games[gid]
    if tour.team_name(g["teams"][0]) != a:
        sa, sb = sb, sa
    tour.append({"kind": "result", "game": gid, "scores": [sa, sb], "winner": 0 if sa > sb else 1})


def test_tiebreaks_each_named_option_decides(tmp_path: Path) -> None:
    # A, B, C each win one of their three games; D wins none but scores heavily.
    tour = create(tmp_path / "t", [{"name": n, "players": [n + "1", n + "2"]} for n in "ABCD"], 2,
                  tiebreaks=["head-to-head", "point-difference"])
    _result(tour, "A", "B", 120, 100)
    _result(tour, "B", "C", 120, 20)
    _result(tour, "C", "A", 120, 110)
    _result(tour, "A", "D", 120, 119)
    _result(tour, "B", "D", 120, 119)
    _result(tour, "C", "D", 120, 119)
    rows = Tournament(tour.dir).standings()
    # all three beat each other once (head-to-head ties); point difference: B +121, A -1... C -110+...
    diff = {r["name"]: r["points_for"] - r["points_against"] for r in rows}
    assert [r["name"] for r in rows[:3]] == sorted("ABC", key=lambda n: -diff[n])
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]
    assert rows[3]["name"] == "D" and rows[3]["won"] == 0 and rows[3]["played"] == 3


def test_head_to_head_before_points(tmp_path: Path) -> None:
    tour = create(tmp_path / "t", [{"name": n, "players": [n + "1", n + "2"]} for n in "ABCD"], 2)
    _result(tour, "A", "B", 120, 115)   # A beat B narrowly
    _result(tour, "B", "C", 200, 0)     # B piles up points
    _result(tour, "A", "D", 0, 120)
    _result(tour, "C", "D", 120, 0)
    _result(tour, "B", "D", 120, 0)
    _result(tour, "A", "C", 0, 120)
    rows = Tournament(tour.dir).standings()
    # B (2 wins, huge difference) and C (2 wins) and ...: A has 1 win; check the head-to-head pair
    by = {r["name"]: r for r in rows}
    assert by["B"]["won"] == 2 and by["C"]["won"] == 2
    # C beat A, B beat C? no: B beat C 200-0, so B is above C on head-to-head
    assert by["B"]["rank"] < by["C"]["rank"]


def test_correction_forfeit_and_audit_trail_through_the_command(tmp_path: Path) -> None:
    d = str(tmp_path / "club")
    r = cardtable("tournament", "new", d, "--team", "Aces=Ann+Bob", "--team", "Kings=Cy+Di",
                  "--team", "Jacks=Ed+Flo", "--prize", "$200 ($100 each)", "--prize", "Wine Gift Baskets")
    assert r.returncode == 0, r.stderr
    assert "bye: " in r.stdout and "first round begins at 18:00" in r.stdout
    tour = Tournament(d)
    g1, g2, g3 = (r["games"][0] for r in tour.state["rounds"])
    names = lambda g: [tour.team_name(t) for t in g["teams"]]  # noqa: E731
    assert cardtable("tournament", "forfeit", d, g1["id"], "--winner", names(g1)[1]).returncode == 0
    tour.append({"kind": "result", "game": g2["id"], "scores": [120, 80], "winner": 0})
    r = cardtable("tournament", "correct", d, g2["id"], "90", "125", "--by", "Mary Nevins",
                  "--reason", "hand 3 miscounted")
    assert r.returncode == 0, r.stderr
    a, b = names(g2)
    assert "corrected by Mary Nevins" in r.stdout
    assert "%s 120, %s 80 -> %s 90, %s 125" % (a, b, a, b) in r.stdout  # whose score, no program literal
    assert "[" not in r.stdout and "None" not in r.stdout
    audit = [json.loads(x) for x in (Path(d) / "results.jsonl").read_text().splitlines()]
    corr = audit[-1]
    assert corr["by"] == "Mary Nevins" and corr["before"] == [120, 80] and corr["at"].endswith("Z")
    rows = json.loads(cardtable("tournament", "standings", d, "--json").stdout)["standings"]
    by = {x["name"]: x for x in rows}
    assert by[names(g2)[1]]["won"] >= 1 and by[names(g2)[1]]["points_for"] >= 125
    assert by[names(g1)[1]]["won"] >= 1  # the forfeit counts
    text = cardtable("tournament", "standings", d).stdout
    assert "Leading so far: " in text and "First Place" not in text  # a game still to play
    tour.append({"kind": "result", "game": g3["id"], "scores": [120, 100], "winner": 0})
    text = cardtable("tournament", "standings", d).stdout
    assert "First Place Team: $200 ($100 each) — " in text and "Leading" not in text
    # bad input: one line, status 2
    r = cardtable("tournament", "correct", d, "nope", "1", "2", "--by", "x", "--reason", "y")
    assert r.returncode == 2 and "no game 'nope'" in r.stderr and "Traceback" not in r.stderr
    r = cardtable("tournament", "standings", str(tmp_path))
    assert r.returncode == 2 and "not a tournament directory" in r.stderr
    with pytest.raises(UsageError):
        create(d, teams(2), 1)


def test_a_late_result_entered_from_its_record(tmp_path: Path) -> None:
    from cardtable import games, record
    from cardtable.rng import Random

    d = tmp_path / "club"
    tour = create(d, teams(4), 2)
    g = tour.state["rounds"][0]["games"][1]
    game = games.load("fortyfives", seats=4)
    rng = Random(9)
    while not game.over:
        game.apply(game.bot_action(rng))
    rec = tmp_path / "late.jsonl"
    rec.write_text("\n".join(record.dump(game)) + "\n")
    r = cardtable("tournament", "result", str(d), g["id"], str(rec), "--by", "Mary")
    assert r.returncode == 0, r.stderr
    o = Tournament(d).outcomes()[g["id"]]
    assert o["scores"] == [game.score[0], game.score[1]] and o["late"] and o["winner"] == game.winner
    assert Path(o["record"]).exists() and json.loads(Path(o["record"]).read_text().splitlines()[0])["players"] \
        == tour.seat_players(g)
    r = cardtable("tournament", "result", str(d), g["id"], str(rec))
    assert r.returncode == 2 and "already has a result" in r.stderr


def test_the_referee_process_gives_the_referees_verdict_and_survives_a_crash(tmp_path: Path) -> None:
    from cardtable import referee as rules_referee
    from cardtable_host.tournament.refworker import Worker
    from cardtable_host.tournament.reporter import bot_game

    lines, scores = bot_game(3)
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(lines) + "\n")
    torn = tmp_path / "torn.jsonl"
    torn.write_text("\n".join(lines[:5]) + "\n{\"act\": \n")
    w = Worker()
    try:
        v = w.verdict(str(good))
        assert v == json.loads(json.dumps(rules_referee.referee(lines))) and v["scores"][:2] == scores
        assert "not valid" in w.verdict(str(torn))["error"]
        assert "cannot read" in w.verdict(str(tmp_path / "gone.jsonl"))["error"]
        assert w.proc is not None
        w.proc.kill()  # the referee's process dies: the next record starts another
        w.proc.wait()
        assert w.verdict(str(good))["over"] and w.proc.poll() is None
    finally:
        w.close()
