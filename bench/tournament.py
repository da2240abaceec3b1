"""Tournament scale: many tables publishing through one Mosquitto on loopback.

Each table is a headless reporter (its own credentials, the ACL on). At table speed every
table publishes its status once a second (a real table: once a hand, a few a minute) and then
its game, the games ending spread over the phase (still far more often than real tables: a game
to 120 takes half an hour); the burst sends 100 status messages a second per table with every
game ending within it. The games are played before each phase (a table's game takes half an
hour; its end is when it reports); the status messages come from a process of their own (one
asyncio loop speaking MQTT), the results from the tables' own reporters (paho, the outbox).

Reported per phase: status messages per second through the broker, and per game the time from
its end to the standings that first count it, as the director published them (their "t") and
as a watcher received them (a process of its own, as the director's page or a phone would
be), split into the table's publish to the broker's PUBACK, the broker to the director, the
director's own share (the result in to the standings out) and the standings' way to the
watcher; and the load average, since on a shared 2-core machine the tail is the CPU's.
"""
from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from cardtable_host.tournament import broker as brokers
from cardtable_host.tournament import mqttwire
from cardtable_host.tournament.reporter import Reporter, bot_game
from cardtable_host.tournament.tourney import create


def measure(tables: int = 50, seconds: float = 8.0, burst_seconds: float = 2.0) -> dict[str, Any]:
    """Table speed, then a 100x burst; latency figures per phase."""
    with tempfile.TemporaryDirectory(prefix="cardtable-bench-") as tmp:
        teams = [{"name": "Team %d" % i, "players": ["P%dA" % i, "P%dB" % i]} for i in range(2 * tables)]
        tour = create(Path(tmp) / "t", teams, tables)
        creds = brokers.write_config(tour.dir / "broker", tour.id, tables)
        creds.update(_bench_users(tour.dir / "broker", tour.id, tables))
        b = brokers.LocalBroker(tour.dir / "broker", verbose_log=False).start()
        got: dict[str, tuple[float, float, float]] = {}  # game -> (standings published, received)
        watch = subprocess.Popen([sys.executable, __file__, "--watch", "127.0.0.1", str(b.port), tour.id,
                                  creds[WATCH_USER]], stdout=subprocess.PIPE, text=True)
        # the director runs on its own machine in a club: here, its own process
        d = subprocess.Popen([sys.executable, "-m", "cardtable_host.cli", "tournament", "direct", str(tour.dir),
                              "--broker", "127.0.0.1:%d" % b.port], stdout=subprocess.DEVNULL)
        assert watch.stdout is not None and watch.stdout.readline().strip() == "watching"
        threading.Thread(target=_read_watch, args=(watch, got), daemon=True).start()
        reps = [Reporter(tour, n, "127.0.0.1", b.port, creds[brokers.table_user(n)]).start()
                for n in range(1, tables + 1)]
        try:
            out = {"tables": tables, "load_average_1m": round(os.getloadavg()[0], 2),
                   "table_speed": _phase(tour, reps, got, 0, 1.0, seconds),
                   "burst_100x": _phase(tour, reps, got, 1, 100.0, burst_seconds)}
        finally:
            for r in reps:
                r.stop()
            d.terminate()
            d.wait()
            watch.terminate()
            watch.wait()
            b.stop()
    out["load_average_1m_after"] = round(os.getloadavg()[0], 2)
    return out


WATCH_USER = "bench-watch"  # reads the standings (as anyone signed in may)


def flood_user(n: int) -> str:
    """The status flood's user for table n: its own connection (the broker names a connection
    by its user, so the flood must not use the table's, which its reporter holds)."""
    return "bench-flood-%d" % n


def _bench_users(folder: Path, tid: str, tables: int) -> dict[str, str]:
    """The bench's own users, added to the tournament's password file and ACL before the broker
    starts: a standings watcher, and per table a user that may write only its status."""
    import secrets

    users = {WATCH_USER: secrets.token_urlsafe(12)}
    users.update({flood_user(n): secrets.token_urlsafe(12) for n in range(1, tables + 1)})
    with open(folder / "passwd", "a", encoding="utf-8") as f:
        f.write("".join(brokers.password_line(u, p) + "\n" for u, p in users.items()))
    with open(folder / "acl", "a", encoding="utf-8") as f:
        f.write("".join("\nuser %s\ntopic write %s\n" % (flood_user(n), mqttwire.topic(tid, "table", n, "status"))
                        for n in range(1, tables + 1)))
    (folder / "bench-credentials.json").write_text(json.dumps(users), encoding="utf-8")
    return users


def _read_watch(proc: subprocess.Popen[str], got: dict[str, tuple[float, float, float]]) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        m = json.loads(line)
        got.setdefault(m["last"], (m["t"], m["got"], m["in"] or m["t"]))


def watch(host: str, port: int, tid: str, password: str) -> None:
    """Print a line for each standings update: the game it last counted, published, received."""
    c = mqttwire.client("bench-watch", WATCH_USER, password)

    def on_message(_c: Any, _u: Any, m: Any) -> None:
        now = time.time()
        snap = json.loads(m.payload)
        for game, came in (snap.get("new") or {}).items():  # the games this update counts first
            print(json.dumps({"last": game, "t": snap["t"], "got": now, "in": came}), flush=True)

    c.on_message = on_message
    mqttwire.connect(c, host, port, on_up=lambda: c.subscribe(mqttwire.topic(tid, "standings"), 1))
    print("watching", flush=True)
    threading.Event().wait()


def flood(folder: str, port: int, tables: int, rate: float, seconds: float) -> None:
    """Every table's status, `rate` times a second each for `seconds`; print how many were sent.

    A process of its own, and one asyncio loop speaking MQTT 3.1.1 itself (CONNECT with each
    table's credentials, PUBLISH at QoS 1 retained, PUBACKs read back): fifty paho clients on
    threads cost a core of this 2-core machine at a few thousand messages a second, which the
    broker and the director then lack. The games' results, sent meanwhile, go through the
    tables' own reporters (paho, the outbox): the code a table runs.
    """
    import asyncio

    from cardtable_host.tournament.tourney import Tournament

    # the fifty tables are fifty other machines on an evening: on this one they yield the CPU
    # to the broker and the director (the rate they reach is reported, and the test checks it)
    os.nice(5)
    tour = Tournament(folder)
    creds = json.loads((tour.dir / "broker" / "bench-credentials.json").read_text(encoding="utf-8"))
    sent = asyncio.run(_flood(tour.id, port, creds, tables, rate, seconds))
    print(sent, flush=True)


def _mqtt_str(text: str) -> bytes:
    b = text.encode("utf-8")
    return len(b).to_bytes(2, "big") + b


def _mqtt_packet(first: int, body: bytes) -> bytes:
    """A fixed header (its remaining length as MQTT's variable-length integer) and the body."""
    n, out = len(body), bytearray((first,))
    while True:
        byte, n = n % 128, n // 128
        out.append(byte | (128 if n else 0))
        if not n:
            return bytes(out) + body


async def _flood(tid: str, port: int, creds: dict[str, str], tables: int, rate: float, seconds: float) -> int:
    import asyncio

    async def table(n: int) -> int:
        user = flood_user(n)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        connect = (_mqtt_str("MQTT") + bytes((4, 0x80 | 0x40 | 0x02)) + (60).to_bytes(2, "big")
                   + _mqtt_str("bench-flood-%d" % n) + _mqtt_str(user) + _mqtt_str(creds[user]))
        writer.write(_mqtt_packet(0x10, connect))
        connack = await reader.readexactly(4)
        if connack[0] != 0x20 or connack[3] != 0:
            raise ConnectionError("the broker refused table %d: CONNACK %r" % (n, connack))
        acks = asyncio.ensure_future(reader.read(1 << 30))  # PUBACKs, drained until the end
        topic = _mqtt_str(mqttwire.topic(tid, "table", n, "status"))
        head = b'{"table": %d, "state": "playing", "round": 1, "t": ' % n
        k = 0
        t0 = time.time()
        nxt = t0 + (n % 10) / 10 / rate  # the tables spread over the first interval
        while True:
            now = time.time()
            if now >= t0 + seconds:
                break
            while nxt <= now:
                k += 1
                body = topic + (k % 65535 + 1).to_bytes(2, "big") + head + b"%.3f}" % now
                writer.write(_mqtt_packet(0x33, body))  # PUBLISH, QoS 1, retained
                nxt += 1.0 / rate
            await writer.drain()
            await asyncio.sleep(max(0.0, min(nxt, t0 + seconds) - time.time()))
        writer.write(b"\xe0\x00")  # DISCONNECT
        await writer.drain()
        writer.close()
        acks.cancel()
        return k

    return sum(await asyncio.gather(*(table(n) for n in range(1, tables + 1))))


def _phase(tour: Any, reps: list[Reporter], got: dict[str, tuple[float, float, float]], rnd: int, rate: float,
           seconds: float) -> dict[str, Any]:
    games = tour.state["rounds"][rnd]["games"]
    # each table's game was played over the half hour before it ends: its record is ready
    played = {g["id"]: bot_game(1000 + 100 * rnd + g["table"]) for g in games}  # a record per game
    ended: dict[str, float] = {}
    acked = _watch_pubacks(reps)  # game -> when the broker acknowledged the table's result
    statuses = subprocess.Popen([sys.executable, __file__, "--flood", str(tour.dir), str(reps[0].port),
                                 str(len(reps)), str(rate), str(seconds)], stdout=subprocess.PIPE, text=True)
    t0 = time.time()

    def table(rep: Reporter, g: dict[str, Any]) -> None:
        at = t0 + random.Random(rep.table).uniform(0.05, 0.95) * seconds  # when this table's game ends
        time.sleep(max(0.0, at - time.time()))
        ended[g["id"]] = rep.finish(g["id"], *played[g["id"]])["ended"]

    threads = [threading.Thread(target=table, args=(reps[g["table"] - 1], g)) for g in games]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sent = [int(statuses.communicate()[0].split()[-1])]
    mqttwire.wait_for(lambda: all(g["id"] in got for g in games), 15)
    wall = time.time() - t0
    lat = sorted(got[g][0] - ended[g] for g in ended if g in got)
    seen = sorted(got[g][1] - ended[g] for g in ended if g in got)
    own = sorted(got[g][0] - got[g][2] for g in ended if g in got)  # the director's own share
    # where the time goes, per game: the table's publish to the broker's PUBACK, from there
    # to the director's receipt, and the standings' way from the director to the watcher
    to_broker = sorted(acked[g] - ended[g] for g in ended if g in acked)
    to_director = sorted(got[g][2] - acked[g] for g in ended if g in got and g in acked)
    to_watcher = sorted(got[g][1] - got[g][0] for g in ended if g in got)
    return {"rate_per_table": rate, "status_messages": sent[0],
            "messages_per_s": round(sent[0] / seconds, 1), "games": len(games), "counted": len(lat),
            "latency_ms_median": round(statistics.median(lat) * 1000, 1) if lat else None,
            "latency_ms_max": round(max(lat) * 1000, 1) if lat else None,
            "director_ms_median": round(statistics.median(own) * 1000, 1) if own else None,
            "director_ms_max": round(max(own) * 1000, 1) if own else None,
            "watcher_ms_median": round(statistics.median(seen) * 1000, 1) if seen else None,
            "watcher_ms_max": round(max(seen) * 1000, 1) if seen else None,
            "segments_ms": {k: _median_max(v) for k, v in (("table_to_broker", to_broker),
                                                             ("broker_to_director", to_director),
                                                             ("director", own), ("director_to_watcher", to_watcher))},
            "under_1s": all(x < 1.0 for x in lat) and len(lat) == len(games), "wall_s": round(wall, 2)}


def _median_max(xs: list[float]) -> list[float] | None:
    """[median, max] in ms."""
    return [round(statistics.median(xs) * 1000, 1), round(max(xs) * 1000, 1)] if xs else None


def _watch_pubacks(reps: list[Reporter]) -> dict[str, float]:
    """game -> when the broker acknowledged the table's result (its PUBACK), for each table."""
    out: dict[str, float] = {}
    for rep in reps:
        mids: dict[int, str] = {}
        publish = rep.c.publish

        def pub(topic: str, payload: Any = None, qos: int = 0, retain: bool = False, *,
                _publish: Any = publish, _mids: dict[int, str] = mids) -> Any:
            info = _publish(topic, payload, qos, retain)
            if topic.endswith("/result"):
                _mids[info.mid] = json.loads(payload)["game"]
            return info

        def on_publish(_c: Any, _u: Any, mid: int, *_rest: Any, _mids: dict[int, str] = mids) -> None:
            game = _mids.get(mid)
            if game is not None:
                out.setdefault(game, time.time())

        rep.c.publish = pub  # type: ignore[method-assign]
        rep.c.on_publish = on_publish
    return out


def report(res: dict[str, Any]) -> str:
    """The section's lines for `make bench`."""
    if "error" in res:
        return "\nTournament over MQTT: %s" % res["error"]
    out = ["", "Tournament over MQTT: %d tables, one Mosquitto on loopback (standings after a game ends;"
           " load average %s before, %s after)" % (res["tables"], res.get("load_average_1m"),
                                                     res.get("load_average_1m_after"))]
    for name in ("table_speed", "burst_100x"):
        p = res[name]
        out.append("  %-12s %6.0f status msg/s  %d/%d games counted  latency median %s ms, max %s ms%s" % (
            name.replace("_", " "), p["messages_per_s"], p["counted"], p["games"], p["latency_ms_median"],
            p["latency_ms_max"], "" if p["under_1s"] else "  OVER the 1 s budget"))
        out.append("  %-12s of which the director's, from the result in: median %s ms, max %s ms" % (
            "", p.get("director_ms_median"), p.get("director_ms_max")))
        out.append("  %-12s as a watcher received them: median %s ms, max %s ms" % (
            "", p.get("watcher_ms_median"), p.get("watcher_ms_max")))
        seg = p.get("segments_ms") or {}
        out.append("  %-12s per game, median/max ms: table to broker %s, broker to director %s, director %s,"
                   " director to watcher %s" % ("", *("/".join("%g" % x for x in seg[k]) if seg.get(k) else "-"
                                                     for k in ("table_to_broker", "broker_to_director", "director",
                                                               "director_to_watcher"))))
    return "\n".join(out)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--watch"]:
        watch(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
    if sys.argv[1:2] == ["--flood"]:
        flood(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6]))
        sys.exit(0)
    r = measure()
    print(json.dumps(r, indent=1))
    print(report(r))
