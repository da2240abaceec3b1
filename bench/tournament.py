"""Tournament scale: many tables publishing through one Mosquitto on loopback.

Each table is a headless reporter (its own credentials, the ACL on). At table speed every
table publishes its status once a second (a real table: once a hand, a few a minute) and then
its game, the games ending spread over the phase (still far more often than real tables: a game
to 120 takes half an hour); the burst sends 100 status messages a second per table with every
game ending within it. Reported: messages per second through the broker, and the time from a
game's end to the standings that count it (the director checks each record with the referee,
about 30-60 ms a game on this machine, so a burst of results queues).
"""
from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from cardtable_host import broker as brokers
from cardtable_host import mqttwire
from cardtable_host.reporter import Reporter
from cardtable_host.tourney import create


def measure(tables: int = 50, seconds: float = 8.0, burst_seconds: float = 2.0) -> dict[str, Any]:
    """Table speed, then a 100x burst; latency figures per phase."""
    with tempfile.TemporaryDirectory(prefix="cardtable-bench-") as tmp:
        teams = [{"name": "Team %d" % i, "players": ["P%dA" % i, "P%dB" % i]} for i in range(2 * tables)]
        tour = create(Path(tmp) / "t", teams, tables)
        creds = brokers.write_config(tour.dir / "broker", tour.id, tables)
        b = brokers.LocalBroker(tour.dir / "broker", verbose_log=False).start()
        got: dict[str, float] = {}
        watch = mqttwire.client("bench-watch", "table1", creds["table1"])
        watch.on_message = lambda _c, _u, m: got.setdefault(json.loads(m.payload).get("last") or "", time.time())
        # the director runs on its own machine in a club: here, its own process
        d = subprocess.Popen([sys.executable, "-m", "cardtable_host.cli", "tournament", "direct", str(tour.dir),
                              "--broker", "127.0.0.1:%d" % b.port], stdout=subprocess.DEVNULL)
        mqttwire.connect(watch, "127.0.0.1", b.port,
                         on_up=lambda: watch.subscribe(mqttwire.topic(tour.id, "standings"), 1))
        reps = [Reporter(tour, n, "127.0.0.1", b.port, creds[brokers.table_user(n)]).start()
                for n in range(1, tables + 1)]
        try:
            out = {"tables": tables,
                   "table_speed": _phase(tour, reps, got, 0, 1.0, seconds),
                   "burst_100x": _phase(tour, reps, got, 1, 100.0, burst_seconds)}
        finally:
            for r in reps:
                r.stop()
            d.terminate()
            d.wait()
            watch.disconnect()
            b.stop()
    return out


def _phase(tour: Any, reps: list[Reporter], got: dict[str, float], rnd: int, rate: float,
           seconds: float) -> dict[str, Any]:
    games = tour.state["rounds"][rnd]["games"]
    ended: dict[str, float] = {}
    sent = [0]
    lock = threading.Lock()
    t0 = time.time()

    def table(rep: Reporter, g: dict[str, Any]) -> None:
        rng = random.Random(rep.table)
        at = t0 + rng.uniform(0.05, 0.95) * seconds  # when this table's game ends
        n = 0
        nxt = t0
        played = False
        while time.time() < t0 + seconds:
            rep.c.publish(rep.topic("status"), json.dumps(dict(rep.status, t=time.time())), qos=1, retain=True)
            n += 1
            if not played and time.time() >= at:
                p = rep.play(g["id"], 1000 + rep.table)
                ended[g["id"]] = p["ended"]
                played = True
            nxt += 1.0 / rate
            time.sleep(max(0.0, nxt - time.time()))
        if not played:
            ended[g["id"]] = rep.play(g["id"], 1000 + rep.table)["ended"]
        with lock:
            sent[0] += n

    threads = [threading.Thread(target=table, args=(reps[g["table"] - 1], g)) for g in games]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    mqttwire.wait_for(lambda: all(g["id"] in got for g in games), 15)
    wall = time.time() - t0
    lat = sorted(got[g] - ended[g] for g in ended if g in got)
    return {"rate_per_table": rate, "status_messages": sent[0],
            "messages_per_s": round(sent[0] / seconds, 1), "games": len(games), "counted": len(lat),
            "latency_ms_median": round(statistics.median(lat) * 1000, 1) if lat else None,
            "latency_ms_max": round(max(lat) * 1000, 1) if lat else None,
            "under_1s": all(x < 1.0 for x in lat) and len(lat) == len(games), "wall_s": round(wall, 2)}


def report(res: dict[str, Any]) -> str:
    """The section's lines for `make bench`."""
    if "error" in res:
        return "\nTournament over MQTT: %s" % res["error"]
    out = ["", "Tournament over MQTT: %d tables, one Mosquitto on loopback (standings after a game ends)"
           % res["tables"]]
    for name in ("table_speed", "burst_100x"):
        p = res[name]
        out.append("  %-12s %6.0f status msg/s  %d/%d games counted  latency median %s ms, max %s ms%s" % (
            name.replace("_", " "), p["messages_per_s"], p["counted"], p["games"], p["latency_ms_median"],
            p["latency_ms_max"], "" if p["under_1s"] else "  OVER the 1 s budget"))
    return "\n".join(out)


if __name__ == "__main__":
    r = measure()
    print(json.dumps(r, indent=1))
    print(report(r))
