"""The director under fire, against a real Mosquitto on loopback (issue 30's fault suite and
its regression tests): poison payloads from a table's own credential, a read-only folder, a
torn results log, a recycled record, a stolen client id, an oversized message, a deep status.
Every honest result is counted exactly once; every hostile message is a line in refused.jsonl."""
from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from cardtable_host.tournament import broker as brokers
from cardtable_host.tournament import mqttwire
from cardtable_host.tournament.director import Director
from cardtable_host.tournament.reporter import Reporter, bot_game
from cardtable_host.tournament.tourney import Tournament, create
from hostsupport import cardtable, club_tournament

if not (shutil.which("mosquitto") or Path("/usr/sbin/mosquitto").exists()):
    pytest.skip("Mosquitto is not installed (apt-get install mosquitto; .ci/run does)", allow_module_level=True)

BENCH = Path(__file__).resolve().parents[2] / "bench"
WRITE_FAILS = ("Read-only", "denied", "Not a directory")  # read_only(): mount, chmod or a file in its place
LIMIT = 1_000_000  # the largest message the broker and the director take (broker.MAX_MESSAGE)


def _drill_module() -> Any:
    spec = importlib.util.spec_from_file_location("cardtable_bench_tournament_faults", BENCH / "tournament_faults.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_fault_suite_every_honest_result_once_every_hostile_one_refused(tmp_path: Path) -> None:
    r = _drill_module().drill(tmp_path)
    tour = Tournament(r["dir"])
    # every honest game counted, exactly once, and the standings are the log's
    assert r["missing"] == [] and r["counted_twice"] == [] and r["counted"] == r["games"] == 15
    assert r["standings_equal"] and r["snapshot"]["decided"] == 15
    # the six poison payloads: one line each in refused.jsonl, saying why; no honest one refused
    assert r["hostile_sent"] == 6 and r["refused_lines"] == 6 and r["refused_honest"] == []
    whys = [x["why"] for x in r["refused"]]
    assert all(x["topic"].endswith("/table/3/result") for x in r["refused"])
    assert any("nested" in w for w in whys) and any("not UTF-8" in w for w in whys)
    assert sum("list of lines of text" in w for w in whys) == 2
    # the read-only archive: round 2's results kept (not counted, not acknowledged) and shown
    assert r["storage_waiting"] == 3 and r["counted_while_read_only"] == []
    shown = r["storage_error_shown"] or ""
    assert any(w in shown for w in WRITE_FAILS)
    # the torn line: skipped and reported; the next entry started a line of its own
    assert len(r["torn_skipped"]) == 1
    text = (tour.dir / "results.jsonl").read_text()
    assert len(text.splitlines()) == len(tour.log()) + 1
    out = cardtable("tournament", "standings", str(tour.dir))
    assert out.returncode == 0, out.stderr
    assert "line %d skipped" % r["torn_skipped"][0]["line"] in out.stdout
    assert "the director last counted a result at " in out.stdout


@pytest.fixture
def club(tmp_path: Path):  # type: ignore[no-untyped-def]
    with club_tournament(tmp_path) as running:
        yield running


def _text(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _refused(tour: Tournament) -> list[dict[str, Any]]:
    p = tour.dir / "refused.jsonl"
    return [json.loads(x) for x in p.read_text().splitlines()] if p.exists() else []


def _rogue(tour: Tournament, creds: dict[str, str], port: int, table: int, client_id: str = "rogue") -> Any:
    c = mqttwire.client(client_id, brokers.table_user(table), creds[brokers.table_user(table)])
    mqttwire.connect(c, "127.0.0.1", port)
    return c


def _game(tour: Tournament, rnd: int, table: int) -> dict[str, Any]:
    return next(g for g in tour.state["rounds"][rnd - 1]["games"] if g["table"] == table)


def _stamp(tour: Tournament, g: dict[str, Any], lines: list[str]) -> list[str]:
    """The record with its header naming the game, as a table's reporter sends it."""
    head = json.loads(lines[0])
    head.update(table="table %d, round %d (%s)" % (g["table"], g["round"], g["id"]), players=tour.seat_players(g))
    return [json.dumps(head)] + lines[1:]


def _payload(tour: Tournament, g: dict[str, Any], lines: list[str], scores: list[int]) -> dict[str, Any]:
    names = [tour.team_name(t) for t in g["teams"]]
    lines = _stamp(tour, g, lines)
    return {"game": g["id"], "table": g["table"], "round": g["round"], "teams": names, "scores": scores,
            "winner": names[0] if scores[0] > scores[1] else names[1], "record": lines,
            "hash": mqttwire.record_hash(lines), "confirmed": names, "disputed_by": None}


def _send(c: Any, tour: Tournament, table: int, payload: Any) -> None:
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    c.publish(mqttwire.topic(tour.id, "table", table, "result"), raw, qos=1).wait_for_publish(10)


def test_a_poison_payload_neither_silences_the_director_nor_a_restarted_one(club) -> None:  # type: ignore[no-untyped-def]
    tour, creds, b, d = club
    rogue = _rogue(tour, creds, b.port, 1)
    _send(rogue, tour, 1, {"game": [1]})
    _send(rogue, tour, 1, {"game": {"a": 1}})
    assert mqttwire.wait_for(lambda: len(_refused(tour)) == 2, 10), _refused(tour)
    # the director still counts: an honest result from the other table
    g = _game(tour, 1, 2)
    lines, scores = bot_game(11)
    _send(rogue_2 := _rogue(tour, creds, b.port, 2), tour, 2, _payload(tour, g, lines, scores))
    assert mqttwire.wait_for(lambda: g["id"] in tour.outcomes(), 10)
    # and a director started afresh (the same persistent session) counts too
    d.stop()
    d2 = Director(Tournament(tour.dir), "127.0.0.1", b.port, creds["director"]).start()
    try:
        g1 = _game(tour, 1, 1)
        lines, scores = bot_game(12)
        _send(rogue, tour, 1, _payload(tour, g1, lines, scores))
        assert mqttwire.wait_for(lambda: g1["id"] in Tournament(tour.dir).outcomes(), 10)
        assert d2.snapshot()["health"]["last_counted"]
    finally:
        d2.stop()
        rogue.disconnect()
        rogue_2.disconnect()


def test_a_read_only_folder_keeps_the_result_says_so_and_counts_it_once_writable(club) -> None:  # type: ignore[no-untyped-def]
    tour, creds, b, d = club
    drill = _drill_module()
    t1 = Reporter(tour, 1, "127.0.0.1", b.port, creds["table1"]).start()
    try:
        g = _game(tour, 1, 1)
        def health() -> dict[str, Any]:
            return dict(d.snapshot().get("health") or {})

        with drill.read_only(tour.dir / "archive"):
            t1.play(g["id"], 5)
            # the director has it, and the disk would not take it (or, before the fix, it died)
            mqttwire.wait_for(lambda: health().get("waiting") == [g["id"]], 10)
            assert not tour.result_recorded(g["id"]) and t1.pending() == 1  # not acknowledged
            shown = health()
            assert any(w in shown["storage_error"]["error"] for w in WRITE_FAILS)
            assert shown["waiting"] == [g["id"]]
            # and `tournament standings` says so (the director writes its health beside the log)
            assert mqttwire.wait_for(lambda: "storage_error\": {" in _text(tour.dir / "director.json"), 10)
            out = cardtable("tournament", "standings", str(tour.dir)).stdout
            assert "STORAGE ERROR since " in out and "1 result(s) kept until the folder takes them" in out, out
        # writable again: counted, acknowledged, once
        assert mqttwire.wait_for(lambda: tour.result_recorded(g["id"]), 10)
        assert mqttwire.wait_for(lambda: t1.pending() == 0, 10)
        assert [e["game"] for e in tour.log() if e["kind"] == "result"] == [g["id"]]
        assert mqttwire.wait_for(lambda: health()["storage_error"] is None, 5)
        assert health()["storage_errors"] >= 1
    finally:
        t1.stop()


def test_a_torn_last_line_is_skipped_reported_and_the_next_entry_has_its_own_line(tmp_path: Path) -> None:
    tour = create(tmp_path / "t", [{"name": n, "players": [n + "1", n + "2"]} for n in "ABCD"], 2)
    g1, g2 = tour.state["rounds"][0]["games"]
    tour.append({"kind": "result", "game": g1["id"], "scores": [120, 80], "winner": 0})
    with open(tour.dir / "results.jsonl", "a") as f:
        f.write('{"kind": "result", "game": "%s", "sco' % g2["id"])  # the crash
    fresh = Tournament(tour.dir)
    assert [e["game"] for e in fresh.log()] == [g1["id"]]
    fresh.append({"kind": "result", "game": g2["id"], "scores": [90, 121], "winner": 1})
    again = Tournament(tour.dir)
    assert [e["game"] for e in again.log()] == [g1["id"], g2["id"]]
    assert [s["line"] for s in again.skipped] == [2]
    r = cardtable("tournament", "standings", str(tour.dir))
    assert r.returncode == 0 and "results.jsonl line 2 skipped" in r.stdout, r.stdout + r.stderr


def test_a_recycled_record_and_a_round_not_started_are_refused(club) -> None:  # type: ignore[no-untyped-def]
    tour, creds, b, d = club
    rogue = _rogue(tour, creds, b.port, 1)
    try:
        r4 = [g for g in tour.games.values() if g["table"] == 1 and g["round"] == 3][0]
        # a fresh, valid record for round 3 before round 1 has begun
        lines, scores = bot_game(21)
        _send(rogue, tour, 1, _payload(tour, r4, lines, scores))
        assert mqttwire.wait_for(lambda: any("has not started" in x["why"] for x in _refused(tour)), 10), _refused(tour)
        g1 = _game(tour, 1, 1)
        good = _payload(tour, g1, *bot_game(22))
        _send(rogue, tour, 1, good)
        assert mqttwire.wait_for(lambda: g1["id"] in tour.outcomes(), 10)
        g2 = _game(tour, 2, 1)
        # round 2 has begun: game 1's record as game 2's, as it came (its header names game 1) ...
        _send(rogue, tour, 1, dict(good, game=g2["id"], round=2, teams=_payload(tour, g2, good["record"], [0, 0])["teams"]))
        # ... and with its header rewritten to name game 2 (the same actions)
        _send(rogue, tour, 1, _payload(tour, g2, good["record"], good["scores"]))
        assert mqttwire.wait_for(lambda: len(_refused(tour)) == 3, 10), _refused(tour)
        whys = [x["why"] for x in _refused(tour)]
        assert "is not for game %s" % g2["id"] in whys[1]
        assert "the record is game %s's, counted already" % g1["id"] in whys[2]
        assert g2["id"] not in tour.outcomes() and len(tour.outcomes()) == 1
    finally:
        rogue.disconnect()


def test_a_tables_credential_cannot_knock_the_director_off(club) -> None:  # type: ignore[no-untyped-def]
    tour, creds, b, d = club
    drops: list[Any] = []
    d.c.on_disconnect = lambda *a: drops.append(a)
    g = _game(tour, 1, 2)
    lines, scores = bot_game(31)
    for i in range(12):  # a table's password with the director's client id, over and over
        c = mqttwire.client("cardtable-director-%s" % tour.id, "table1", creds["table1"], clean=False)
        mqttwire.connect(c, "127.0.0.1", b.port)
        if i == 6:
            honest = _rogue(tour, creds, b.port, 2)
            _send(honest, tour, 2, _payload(tour, g, lines, scores))
        c.disconnect()
        c.loop_stop()
    assert mqttwire.wait_for(lambda: g["id"] in tour.outcomes(), 10)
    assert drops == [] and d.c.is_connected()
    conf = (tour.dir / "broker" / "mosquitto.conf").read_text()
    assert "use_username_as_clientid true" in conf
    honest.disconnect()


def test_oversized_message_refused_and_a_deep_status_does_not_break_the_page(club) -> None:  # type: ignore[no-untyped-def]
    tour, creds, b, d = club
    conf = (tour.dir / "broker" / "mosquitto.conf").read_text()
    assert "max_packet_size %d" % LIMIT in conf
    rogue = _rogue(tour, creds, b.port, 1)
    try:
        g = _game(tour, 1, 1)
        big = _payload(tour, g, *bot_game(41))
        big["junk"] = "x" * (LIMIT + 10)
        rogue.publish(mqttwire.topic(tour.id, "table", 1, "result"), json.dumps(big), qos=1)
        # the broker drops the client that sends it; the director never holds it
        assert mqttwire.wait_for(lambda: not rogue.is_connected(), 10)
        assert not tour.result_recorded(g["id"])
        # the director refuses what a broker with another limit lets through
        d._message(mqttwire.topic(tour.id, "table", 1, "result"), json.dumps(big).encode())
        assert "too large" in _refused(tour)[-1]["why"]
        # a table's retained status nested deep: the director's page still answers
        deep = _rogue(tour, creds, b.port, 2, "deep")
        deep.publish(mqttwire.topic(tour.id, "table", 2, "status"),
                     b'{"table": 2, "state": ' + b"[" * 50_000 + b"]" * 50_000 + b"}", qos=1, retain=True).wait_for_publish(10)
        deep.publish(mqttwire.topic(tour.id, "table", 2, "status"),
                     json.dumps({"table": 2, "state": "playing", "teams": "Team 1"}), qos=1, retain=True).wait_for_publish(10)
        assert mqttwire.wait_for(lambda: 2 in d.status, 10)
        assert d.status[2] == {"table": 2, "state": "playing"}
        from cardtable_host.tournament.directorweb import run_in_thread
        import urllib.request

        stop, port = run_in_thread(d, creds["director"], 0)
        try:
            req = urllib.request.Request("http://127.0.0.1:%d/state.json" % port,
                                         headers={"Cookie": "cardtable_director=" + creds["director"]})
            with urllib.request.urlopen(req) as resp:
                assert resp.status == 200 and json.loads(resp.read())["tables"]["2"]["state"] == "playing"
        finally:
            stop()
        deep.disconnect()
    finally:
        rogue.disconnect()


def test_a_record_not_matching_its_hash_and_a_result_one_team_confirmed_are_refused(club) -> None:  # type: ignore[no-untyped-def]
    tour, creds, b, d = club
    rogue = _rogue(tour, creds, b.port, 1)
    try:
        g = _game(tour, 1, 1)
        p = _payload(tour, g, *bot_game(51))
        _send(rogue, tour, 1, dict(p, hash=mqttwire.record_hash(p["record"][:-1])))
        _send(rogue, tour, 1, dict(p, confirmed=p["teams"][:1]))
        assert mqttwire.wait_for(lambda: len(_refused(tour)) == 2, 10), _refused(tour)
        whys = [x["why"] for x in _refused(tour)]
        assert whys[0] == "the record does not match its hash"
        assert whys[1].startswith("both teams must confirm a result (confirmed: %s)" % p["teams"][0])
        assert not tour.result_recorded(g["id"])
        _send(rogue, tour, 1, p)  # both confirmed, the hash its record's: counted
        assert mqttwire.wait_for(lambda: g["id"] in tour.outcomes(), 10)
    finally:
        rogue.disconnect()


def test_the_broker_refuses_a_client_without_a_user_name(club) -> None:  # type: ignore[no-untyped-def]
    tour, creds, b, d = club
    import paho.mqtt.client as mqtt

    anon = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="anon", protocol=mqtt.MQTTv311)
    with pytest.raises(ConnectionError) as no:
        mqttwire.connect(anon, "127.0.0.1", b.port, timeout=5)
    assert "Not authorized" in str(no.value) or "refused" in str(no.value)
    assert "allow_anonymous false" in (tour.dir / "broker" / "mosquitto.conf").read_text()
    # with a user name and its password, the same client is let in
    ok = mqttwire.client("named", "table1", creds["table1"])
    mqttwire.connect(ok, "127.0.0.1", b.port, timeout=5)
    ok.disconnect()


def test_the_password_file_written_here_lets_a_table_in(tmp_path: Path) -> None:
    """No mosquitto_passwd needed: the file is written in its format, and Mosquitto takes it."""
    creds = brokers.write_config(tmp_path / "broker", "tx", 2)
    lines = (tmp_path / "broker" / "passwd").read_text().splitlines()
    assert [x.split(":", 1)[0] for x in lines] == list(creds)
    for line in lines:
        user, h = line.split(":", 1)
        _, seven, iters, salt, digest = h.split("$")
        assert seven == "7" and iters == "101" and len(salt) == 16 and len(digest) == 88
    b = brokers.LocalBroker(tmp_path / "broker").start()
    try:
        c = mqttwire.client("t1", "table1", creds["table1"])
        mqttwire.connect(c, "127.0.0.1", b.port, timeout=5)
        c.disconnect()
        with pytest.raises(ConnectionError):
            mqttwire.connect(mqttwire.client("t2", "table2", creds["table1"]), "127.0.0.1", b.port, timeout=5)
    finally:
        b.stop()
    if shutil.which("mosquitto_passwd"):  # the real tool's line for the same password and salt
        import base64
        import subprocess

        f = tmp_path / "real"
        f.write_text("table1:%s\n" % creds["table1"])
        subprocess.run(["mosquitto_passwd", "-U", str(f)], check=True)
        real = f.read_text().strip()
        salt = base64.b64decode(real.split("$")[3])
        assert brokers.password_line("table1", creds["table1"], salt) == real


def test_tournament_broker_stopped_with_sigterm_stops_its_mosquitto(tmp_path: Path) -> None:
    import signal
    import subprocess

    from hostsupport import command

    tour = create(tmp_path / "t", [{"name": n, "players": [n + "1", n + "2"]} for n in "AB"], 1)
    brokers.write_config(tour.dir / "broker", tour.id, 1)
    port = brokers.free_port()
    p = subprocess.Popen(command("tournament", "broker", str(tour.dir), "--port", str(port)),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout is not None and "mosquitto on 127.0.0.1:%d" % port in p.stdout.readline()
        # a second one on the same port says so, instead of "stopped by itself"
        r = cardtable("tournament", "broker", str(tour.dir), "--port", str(port))
        assert r.returncode == 1 and "port %d on 127.0.0.1 is taken" % port in r.stderr, r.stderr
        p.send_signal(signal.SIGTERM)
        p.wait(10)
    finally:
        if p.poll() is None:
            p.kill()
    # its Mosquitto went with it: the port is free
    assert mqttwire.wait_for(lambda: _port_free(port), 5)


def _port_free(port: int) -> bool:
    import socket

    try:
        socket.create_connection(("127.0.0.1", port), 0.2).close()
        return False
    except OSError:
        return True
