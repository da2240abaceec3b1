"""A board's table in a tournament: `cardtable serve` of a board on a port (the virtual board
behind a pseudo-terminal, as a Pico's /dev/ttyACM0 would be) with the tournament options
reports its status and each finished game through Mosquitto, as the headless tables do; the
game counts once both teams have pressed their agree buttons on the table."""
from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from cardtable import referee as rules_referee
from cardtable_host.tournament import broker as brokers
from cardtable_host.tournament import mqttwire
from cardtable_host.tournament.reporter import Reporter, bot_game
from cardtable_host.tournament.tablereport import TableReport
from cardtable_host.tournament.tourney import create
from hostsupport import club_tournament, need_node

if not (shutil.which("mosquitto_passwd") and (shutil.which("mosquitto") or Path("/usr/sbin/mosquitto").exists())):
    pytest.skip("Mosquitto is not installed (apt-get install mosquitto; .ci/run does)", allow_module_level=True)

TARGET = 30  # a game to 30: one or two hands on the virtual board, not the half hour of 120


@pytest.fixture
def tournament(tmp_path: Path):  # type: ignore[no-untyped-def]
    with club_tournament(tmp_path) as running:
        yield running


def test_serve_of_a_board_on_a_port_reports_its_table_and_a_game_both_teams_confirmed(tournament, tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("aiohttp")
    need_node()
    from cardtable_host.board.link import Link
    from cardtable_host.serve.serveclient import RemoteLink
    from cardtable_host.sim.board import VirtualBoard
    from cardtable_host.sim.bots import Bots
    from cardtable_host.sim.table import VirtualTable
    from servesupport import Serve

    tour, creds, b, d = tournament
    g = next(x for x in tour.state["rounds"][0]["games"] if x["table"] == 1)
    names = [tour.team_name(t) for t in g["teams"]]

    class ServedLink(RemoteLink):
        """The bots' link through serve: events from its page's feed, typed actions by its control."""

        def act(self, action: dict[str, Any]) -> dict[str, Any]:
            return self.command("act", action=action)

        def games(self) -> list[dict[str, Any]]:
            return [{"number": 1, "current": True}]

    with VirtualBoard("pico-i2c-4seat", layout="fortyfives", period_ms=0) as vb:
        link = Link(vb.stable_port, timeout=10)
        try:
            link.new("fortyfives", seats=4, dealer=0, rules={"target": TARGET}, layout="fortyfives")
        finally:
            link.close()
        with Serve("--port", vb.stable_port, "--http", "127.0.0.1:0", "--archive", str(tmp_path / "archive"),
                   "--tournament", str(tour.dir), "--tournament-table", "1",
                   "--broker", "127.0.0.1:%d" % b.port) as s:
            seen: list[dict[str, Any]] = []
            remote = ServedLink(s.url, s.secret)

            def watch(_msg: dict[str, Any], _before: Any) -> None:
                st = d.status.get(1)
                if st and (not seen or st != seen[-1]):
                    seen.append(st)

            vt = VirtualTable(vb, "pico-i2c-4seat", "fortyfives")
            bots = Bots(remote, vt, seed=3, mistakes=False, on_message=watch, timeout=30)  # type: ignore[arg-type]
            bots.new_game({"target": TARGET}, hello=remote.hello())
            bots.run(2000)
            bots.settle(0.5)
            # the game is over on the board: it waits for both teams, nothing is sent yet
            time.sleep(1.0)
            assert g["id"] not in tour.outcomes() and not tour.log()
            vb.press(vt.button("agree 0"))  # North-South agree on their button
            time.sleep(1.0)
            assert not tour.log()  # one team is not enough
            vb.press(vt.button("agree 1"))
            assert mqttwire.wait_for(lambda: g["id"] in tour.outcomes(), 20), s.out()
            remote.close()
            s.wait_for(lambda: "sent to the director (confirmed by both teams)" in s.out(), 10, "serve's note")
            # the page's story (and serve's terminal) tells each team's answer as it came
            out = s.out()
            assert "South & North agree with the result  (button ok0)" in out, out[-2000:]
            assert "West & East agree with the result  (button ok1)" in out
    entry = next(e for e in tour.log() if e.get("game") == g["id"])
    assert entry["kind"] == "result" and sorted(entry["confirmed"]) == sorted(names) and entry["by"] == "table1"
    o = tour.outcomes()[g["id"]]
    lines = Path(o["record"]).read_text().splitlines()
    v = rules_referee.referee(lines)  # the board's own journal, as the director archived it
    assert v["over"] and o["scores"] == v["scores"][:2] == bots.scores[:2] and json.loads(lines[0])["rules"]["target"] == TARGET
    assert mqttwire.wait_for(lambda: any(e["kind"] == "refereed" and e["game"] == g["id"] and e["ok"]
                                         for e in tour.log()), 20)
    # the table's status went out as the headless tables send it: the game, the teams, each hand
    playing = [st for st in seen if st.get("state") == "playing"]
    assert playing and all(st["game"] == g["id"] and st["round"] == 1 and st["teams"] == names for st in playing)
    assert playing[0]["hand"] == 1 and playing[0]["scores"] == [0, 0]
    assert mqttwire.wait_for(lambda: d.status[1]["state"] in ("finished", "idle", "offline"), 10)


def test_a_dispute_at_the_table_is_sent_as_a_dispute_and_the_next_game_is_the_tables_next(tournament) -> None:  # type: ignore[no-untyped-def]
    tour, creds, b, d = tournament
    rep = Reporter(tour, 2, "127.0.0.1", b.port, creds["table2"]).start()
    try:
        report = TableReport(rep)
        g1, g2 = [x for r in tour.state["rounds"][:2] for x in r["games"] if x["table"] == 2]
        lines, scores = bot_game(11)
        view = {"game": "fortyfives", "over": False, "team_scores": [0, 0], "dealer": 0, "hand_no": 1}
        report.follow({"type": "state", "view": view})
        assert report.game_id == g1["id"] and rep.status["state"] == "playing"
        over = dict(view, over=True, team_scores=scores)
        report.follow({"type": "state", "view": over, "agree": [0, 0]})
        report.finished(1, lines)
        report.follow({"type": "agree", "team": 0, "answer": "agree", "agree": [1, 0]})
        assert rep.pending() == 0 and not tour.log()  # one answer: nothing sent
        report.follow({"type": "agree", "team": 1, "answer": "dispute", "agree": [1, 2]})
        assert mqttwire.wait_for(lambda: tour.disputes(), 10)
        names = [tour.team_name(t) for t in g1["teams"]]
        assert [(x["game"], x["disputed_by"]) for x in tour.disputes()] == [(g1["id"], names[1])]
        assert g1["id"] not in tour.outcomes()  # flagged for the director, not counted
        report.follow({"type": "state", "view": view})  # a tap started the next game
        assert report.game_id == g2["id"]
    finally:
        rep.stop()


def test_serve_refuses_bad_tournament_options_in_one_line_before_any_board(tmp_path: Path) -> None:
    from hostsupport import cardtable

    teams = [{"name": "Team %d" % i, "players": ["P%dA" % i, "P%dB" % i]} for i in range(1, 5)]
    tour = create(tmp_path / "t", teams, 2)
    brokers.write_config(tour.dir / "broker", tour.id, 2)
    d = str(tour.dir)
    for args, code, said in (
            (("--sim", "fortyfives", "--tournament", d, "--tournament-table", "1"), 2, "virtual tables play with"),
            (("--tournament", d), 2, "--tournament DIR and --tournament-table N go together"),
            (("--tournament", d, "--tournament-table", "3"), 2, "no table 3 in this tournament (tables 1 to 2)"),
            (("--tournament", str(tmp_path), "--tournament-table", "1"), 2, "is not a tournament directory"),
            (("--tournament", d, "--tournament-table", "1", "--broker", "127.0.0.1:1"), 1, "cannot reach the broker")):
        r = cardtable("serve", "--http", "127.0.0.1:0", "--port", str(tmp_path / "no-board"), *args, timeout=60)
        assert r.returncode == code and said in r.stderr and r.stderr.count("\n") == 1, (args, r.stderr)
        assert "Traceback" not in r.stderr and "table page" not in r.stdout
