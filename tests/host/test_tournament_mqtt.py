"""Tournament tables over a real Mosquitto: a whole evening, a broker crash, a table offline,
a rogue client, a disputed game. Each test starts its own broker on a free loopback port."""
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
from cardtable_host.tournament.director import Director
from cardtable_host.tournament.evening import Evening
from cardtable_host.tournament.reporter import Reporter
from cardtable_host.tournament.tourney import Tournament, create
from hostsupport import cardtable

if not (shutil.which("mosquitto_passwd") and (shutil.which("mosquitto") or Path("/usr/sbin/mosquitto").exists())):
    pytest.skip("Mosquitto is not installed (apt-get install mosquitto; .ci/run does)", allow_module_level=True)


def recompute(records: list[tuple[list[str], list[dict[str, Any]]]]) -> dict[str, tuple[int, int, int, int, int]]:
    """Per team name: (played, won, lost, for, against) from (record lines, the two teams)."""
    out: dict[str, list[int]] = {}
    for lines, pair in records:
        head = json.loads(lines[0])
        v = rules_referee.referee(lines)
        assert v["ok"] and v["over"]
        seat_players = head["players"]
        for side, team in enumerate(pair):
            assert set(team["players"]) == {seat_players[side], seat_players[side + 2]}
            row = out.setdefault(team["name"], [0, 0, 0, 0, 0])
            row[0] += 1
            row[1 if v["winner"] == side else 2] += 1
            row[3] += v["scores"][side]
            row[4] += v["scores"][1 - side]
    return {k: tuple(v) for k, v in out.items()}  # type: ignore[misc]


def as_tuples(rows: list[dict[str, Any]]) -> dict[str, tuple[int, int, int, int, int]]:
    return {r["name"]: (r["played"], r["won"], r["lost"], r["points_for"], r["points_against"]) for r in rows}


def test_demo_json_standings_equal_a_recomputation_by_the_referee() -> None:
    r = cardtable("tournament", "demo", "--teams", "6", "--tables", "3", "--seed", "3", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert len(out["records"]) == 15 and {x["round"] for x in out["records"]} == {1, 2, 3, 4, 5}
    teams = {t["name"]: t for t in out["standings"]}
    records = []
    for i, rec in enumerate(out["records"]):
        if i % 5 == 0:  # the command a director would use (the rest: the same referee, in-process)
            v = cardtable("referee", "--json", rec["path"])
            assert v.returncode == 0, v.stderr
            assert json.loads(v.stdout)["over"]
        records.append((Path(rec["path"]).read_text().splitlines(), [teams[n] for n in rec["teams"]]))
    assert recompute(records) == as_tuples(out["standings"])
    assert sorted(t["rank"] for t in out["standings"])[0] == 1
    assert all(k in out["standings"][0] for k in ("name", "played", "won", "lost", "points_for",
                                                  "points_against", "rank"))


@pytest.fixture
def evening(tmp_path: Path):  # type: ignore[no-untyped-def]
    teams = [{"name": "Team %d" % i, "players": ["P%dA" % i, "P%dB" % i]} for i in range(1, 7)]
    tour = create(tmp_path / "t", teams, 3)
    creds = brokers.write_config(tour.dir / "broker", tour.id, 3)
    b = brokers.LocalBroker(tour.dir / "broker").start()
    yield tour, creds, b
    b.stop()


def test_broker_crash_and_a_table_offline_lose_nothing(evening) -> None:  # type: ignore[no-untyped-def]
    tour, creds, b = evening
    seen: dict[str, int] = {}

    def hook(stage: str, rnd: int, ev: Evening) -> None:
        if rnd == 2 and stage == "during":  # games under way: the broker dies, then comes back
            time.sleep(0.05)
            b.kill()
            time.sleep(0.5)
            b.start()
        if rnd == 3 and stage == "start":
            # round 2's result acknowledged first (the director counts before the table hears so)
            assert mqttwire.wait_for(lambda: ev.tables[2].pending() == 0, 10)
            ev.tables[2].go_offline()
        if rnd == 3 and stage == "end":
            seen["buffered"] = ev.tables[2].pending()
            assert not any(e["game"].endswith("r3-g2") for e in tour.log())  # not delivered yet
            ev.tables[2].go_online()

    ev = Evening(tour, "127.0.0.1", b.port, creds, seed=5, pace=0.002).start()
    try:
        snap = ev.run(hook)
    finally:
        ev.stop()
    assert seen["buffered"] == 1  # the offline table kept its game on disk
    results = [e for e in tour.log() if e["kind"] == "result"]
    assert sorted(e["game"] for e in results) == sorted(tour.games)  # each game counted exactly once
    records = [(Path(e["record"]).read_text().splitlines(), [tour.teams[t] for t in tour.games[e["game"]]["teams"]])
               for e in results]
    assert recompute(records) == as_tuples(snap["standings"]) == as_tuples(Tournament(tour.dir).standings())
    assert snap["decided"] == 15 and snap["round"] is None
    # the referee read every record after it counted, and bore each out
    assert snap["refereeing"] == []
    assert sorted(e["game"] for e in tour.log() if e["kind"] == "refereed" and e["ok"]) == sorted(tour.games)


def test_rogue_clients_replays_and_a_dispute_are_refused_and_logged(evening) -> None:  # type: ignore[no-untyped-def]
    tour, creds, b = evening
    d = Director(tour, "127.0.0.1", b.port, creds["director"]).start()
    t1 = Reporter(tour, 1, "127.0.0.1", b.port, creds["table1"]).start()
    try:
        g1 = next(g for g in tour.state["rounds"][0]["games"] if g["table"] == 1)
        good = t1.play(g1["id"], 7)
        assert mqttwire.wait_for(lambda: t1.pending() == 0, 10)
        base = tour.standings()
        # no credentials, or a wrong password: the broker turns the client away
        for user, pw in (("table1", "guess"), ("nobody", "x")):
            with pytest.raises(ConnectionError):
                mqttwire.connect(mqttwire.client("rogue-" + user, user, pw), "127.0.0.1", b.port, timeout=3)
        # table 2's credentials, writing under table 1's topics: the ACL drops it, the broker logs it
        rogue = mqttwire.client("rogue", "table2", creds["table2"])
        mqttwire.connect(rogue, "127.0.0.1", b.port)
        g2 = next(g for g in tour.state["rounds"][1]["games"] if g["table"] == 1)
        forged = dict(good, game=g2["id"], round=2)
        rogue.publish(mqttwire.topic(tour.id, "table", 1, "result"), json.dumps(forged), qos=1).wait_for_publish(5)
        rogue.publish(mqttwire.topic(tour.id, "director", "correct"),
                      json.dumps({"game": g1["id"], "scores": [0, 500], "by": "rogue"}), qos=1).wait_for_publish(5)
        # table 2 under its own topic, but a game table 1 plays: the director refuses it
        rogue.publish(mqttwire.topic(tour.id, "table", 2, "result"), json.dumps(dict(good, table=2)),
                      qos=1).wait_for_publish(5)
        # a replay of table 1's old result with other scores (and a matching new hash)
        lines = list(good["record"])[:-1]
        t1.c.publish(t1.topic("result"), json.dumps(dict(good, record=lines, hash=mqttwire.record_hash(lines))),
                     qos=1).wait_for_publish(5)
        # an exact resend: acknowledged, never counted twice
        t1.c.publish(t1.topic("result"), json.dumps(good), qos=1).wait_for_publish(5)
        assert mqttwire.wait_for(lambda: "Denied PUBLISH" in b.log() and (tour.dir / "refused.jsonl").exists()
                                 and len((tour.dir / "refused.jsonl").read_text().splitlines()) >= 2, 5)
        time.sleep(0.3)
        refused = [json.loads(x) for x in (tour.dir / "refused.jsonl").read_text().splitlines()]
        whys = " | ".join(r["why"] for r in refused)
        assert "scheduled at table 1, not table 2" in whys and "already counted" in whys
        assert b.log().count("Denied PUBLISH") >= 2
        assert tour.standings() == base
        assert [e["game"] for e in tour.log() if e["kind"] == "result"] == [g1["id"]]
        # a disputed game is flagged, not counted, until the director settles it
        t1.confirm = lambda g, team, scores: team != tour.team_name(g["teams"][1])
        t1.play(g2["id"], 8)
        assert mqttwire.wait_for(lambda: tour.disputes(), 10)
        assert g2["id"] not in tour.outcomes()
        r = cardtable("tournament", "disputes", str(tour.dir))
        assert "cardtable referee " in r.stdout and g2["id"] in r.stdout
        path = r.stdout.split("cardtable referee ", 1)[1].split()[0]
        assert cardtable("referee", "--json", path).returncode == 0
        cardtable("tournament", "correct", str(tour.dir), g2["id"], "120", "95", "--by", "TD", "--reason", "recount")
        assert g2["id"] in tour.outcomes() and not tour.disputes()
        rogue.disconnect()
    finally:
        t1.stop()
        d.stop()


def test_a_game_on_the_virtual_board_is_reported_and_counted(evening) -> None:  # type: ignore[no-untyped-def]
    from hostsupport import need_node

    need_node(module=False)
    from cardtable_host.tournament.boardreport import play_virtual

    tour, creds, b = evening
    d = Director(tour, "127.0.0.1", b.port, creds["director"]).start()
    t2 = Reporter(tour, 2, "127.0.0.1", b.port, creds["table2"]).start()
    try:
        g = next(g for g in tour.state["rounds"][0]["games"] if g["table"] == 2)
        p = play_virtual(t2, g["id"], 4)
        assert mqttwire.wait_for(lambda: g["id"] in tour.outcomes(), 20)
        # the referee reads the board's journal as it came (checksums, sequence numbers) and agrees
        assert mqttwire.wait_for(lambda: any(e["kind"] == "refereed" and e["game"] == g["id"] and e["ok"]
                                             for e in tour.log()), 20), tour.log()[-1]
        o = tour.outcomes()[g["id"]]
        lines = Path(o["record"]).read_text().splitlines()
        v = rules_referee.referee(lines)
        assert v["over"] and o["scores"] == v["scores"][:2] == p["scores"]
        assert json.loads(lines[0])["players"] == tour.seat_players(g)
        # the director looks at the tables' status every quarter second (tablewatch)
        assert mqttwire.wait_for(lambda: d.status.get(2, {}).get("state") == "finished", 5), d.status
    finally:
        t2.stop()
        d.stop()


def test_a_result_counts_at_once_and_the_referee_flags_one_its_record_does_not_bear_out(evening) -> None:  # type: ignore[no-untyped-def]
    from cardtable_host.tournament.reporter import bot_game

    tour, creds, b = evening
    d = Director(tour, "127.0.0.1", b.port, creds["director"]).start()
    t1 = Reporter(tour, 1, "127.0.0.1", b.port, creds["table1"]).start()
    try:
        g1, g2 = [g for rnd in tour.state["rounds"][:2] for g in rnd["games"] if g["table"] == 1]
        good = t1.play(g1["id"], 7)
        lines, scores = bot_game(8)
        told = [scores[1], scores[0]]  # the table's host claims the other order: the record says not
        t1.finish(g2["id"], lines, told)
        assert mqttwire.wait_for(lambda: len([e for e in tour.log() if e["kind"] == "refereed"]) == 2, 30)
        log = tour.log()
        kinds = [(e["kind"], e["game"]) for e in log if e["kind"] in ("result", "refereed")]
        # each result counted first (acknowledged, in the standings), the referee's verdict after it
        assert kinds.index(("result", g1["id"])) < kinds.index(("refereed", g1["id"]))
        assert kinds.index(("result", g2["id"])) < kinds.index(("refereed", g2["id"]))
        assert mqttwire.wait_for(lambda: t1.pending() == 0, 10)  # (the acknowledgement is on its way)
        verdicts = {e["game"]: e for e in log if e["kind"] == "refereed"}
        assert verdicts[g1["id"]]["ok"] and verdicts[g1["id"]]["scores"] == good["scores"]
        bad = verdicts[g2["id"]]
        assert not bad["ok"] and bad["scores"] == scores and "not the record's" in bad["why"]
        # the game the referee does not bear out leaves the standings and waits for the director
        assert g1["id"] in tour.outcomes() and g2["id"] not in tour.outcomes()
        assert [(x["game"], x["disputed_by"]) for x in tour.disputes()] == [(g2["id"], "the referee")]
        r = cardtable("tournament", "disputes", str(tour.dir))
        assert "disputed by the referee (the scores %s are not the record's %s)" % (told, scores) in r.stdout
        assert mqttwire.wait_for(lambda: not d.snapshot()["refereeing"], 5)
        cardtable("tournament", "correct", str(tour.dir), g2["id"], str(scores[0]), str(scores[1]),
                  "--by", "TD", "--reason", "the record")
        assert tour.outcomes()[g2["id"]]["scores"] == scores and not tour.disputes()
    finally:
        t1.stop()
        d.stop()
