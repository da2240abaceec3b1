"""The director's service: takes the tables' results from the broker, checks them, keeps the
standings (topics and payloads: ``mqttwire``)."""
from __future__ import annotations

import json
import threading
import time
from typing import Any

from cardtable import record
from cardtable import referee as rules_referee

from cardtable_host import mqttwire
from cardtable_host.archive import Archive
from cardtable_host.broker import DIRECTOR
from cardtable_host.tourney import Tournament


class Director:
    """Subscribes to every table; counts each game once; publishes standings and acks."""

    def __init__(self, tour: Tournament, host: str, port: int, password: str) -> None:
        self.tour = tour
        self.tid = tour.id
        self.host, self.port = host, port
        self.archive = Archive(tour.dir / "archive")
        self.lock = threading.Lock()
        self.status: dict[int, dict[str, Any]] = {}
        self.hashes: dict[str, str] = {}
        self.acked: dict[int, set[str]] = {}
        for e in tour.log():
            if e.get("kind") in ("result", "dispute") and e.get("hash"):
                self.hashes[e["game"]] = e["hash"]
                self.acked.setdefault(tour.games[e["game"]]["table"], set()).add(e["game"])
        self.last: str | None = None
        self.verdict: dict[str, Any] = {}  # the referee's verdict on the result being checked
        self.updates = 0  # standings published
        self._stopped = threading.Event()
        self.c = mqttwire.client("cardtable-director-%s" % self.tid, DIRECTOR, password, clean=False)
        self.c.on_message = self._on_message

    def start(self) -> "Director":
        mqttwire.connect(self.c, self.host, self.port, on_up=self._on_up)
        threading.Thread(target=self._watch_log, daemon=True).start()
        return self

    def _watch_log(self) -> None:
        """Republish the standings when the results log grows from outside (`tournament correct`)."""
        seen = len(self.tour.log())
        while not self._stopped.wait(0.5):
            with self.lock:
                n = len(self.tour.log())
                if n != seen:
                    seen = n
                    self.publish_standings()

    def stop(self) -> None:
        self._stopped.set()
        self.c.disconnect()
        self.c.loop_stop()

    def _on_up(self) -> None:
        t = self.tid
        self.c.subscribe([(mqttwire.topic(t, "table", "+", "status"), 1),
                          (mqttwire.topic(t, "table", "+", "result"), 1),
                          (mqttwire.topic(t, "director", "correct"), 1)])
        self.publish_standings()
        for n in self.acked:
            self._ack(n)

    # -- messages ---------------------------------------------------------------------------

    def _on_message(self, _c: Any, _u: Any, msg: Any) -> None:
        parts = msg.topic.split("/")
        try:
            payload = json.loads(msg.payload.decode("utf-8"))
            if not isinstance(payload, dict):
                raise ValueError("not a JSON object")
        except (ValueError, UnicodeDecodeError) as e:
            self.refuse(msg.topic, None, "not JSON: %s" % e)
            return
        if parts[2:3] == ["director"]:
            self.correct(payload)
        elif len(parts) == 5 and parts[4] == "status":
            with self.lock:
                self.status[int(parts[3])] = payload
        elif len(parts) == 5 and parts[4] == "result":
            self.result(int(parts[3]), payload)

    def refuse(self, where: str, payload: dict[str, Any] | None, why: str) -> None:
        """Log a refused message (refused.jsonl) and leave the standings alone."""
        self.tour.append({"topic": where, "game": (payload or {}).get("game"),
                          "hash": (payload or {}).get("hash"), "why": why}, "refused.jsonl")

    def result(self, table: int, p: dict[str, Any]) -> None:
        with self.lock:
            why = self._check(table, p)
            if why == "resend":
                self._ack(table)
                return
            if why:
                self.refuse(mqttwire.topic(self.tid, "table", table, "result"), p, why)
                return
            g = self.tour.games[p["game"]]
            occasion = {"table": "table %d, round %d (%s)" % (table, g["round"], p["game"]),
                        "players": self.tour.seat_players(g)}
            number = self.archive.save(p["record"], occasion)
            path = self.archive.path(number)
            recorded = {e.get("game") for e in self.tour.log()}
            late = any(x["id"] in recorded for r in self.tour.state["rounds"][g["round"]:] for x in r["games"])
            entry = {"kind": "dispute" if p.get("disputed_by") else "result", "game": p["game"],
                     "table": table, "scores": p["scores"], "winner": self.verdict["winner"], "hash": p["hash"], "record": str(path),
                     "by": "table%d" % table, "confirmed": p.get("confirmed", []), "late": late}
            if p.get("disputed_by"):
                entry["disputed_by"] = p["disputed_by"]
            self.tour.append(entry)
            self.hashes[p["game"]] = p["hash"]
            self.acked.setdefault(table, set()).add(p["game"])
            self.last = p["game"]
            self._ack(table)
            self.publish_standings()

    def _check(self, table: int, p: dict[str, Any]) -> str | None:
        """Why a result is refused ('resend' for an exact resend), or None to count it."""
        g = self.tour.games.get(p.get("game"))  # type: ignore[arg-type]
        if g is None:
            return "no such game in this tournament"
        if g["table"] != table or p.get("table") != table:
            return "game %s is scheduled at table %d, not table %d" % (g["id"], g["table"], table)
        lines = p.get("record")
        if not isinstance(lines, list) or mqttwire.record_hash(lines) != p.get("hash"):
            return "the record does not match its hash"
        if p["game"] in self.hashes:
            if self.hashes[p["game"]] == p["hash"]:
                return "resend"
            return "replay: game %s is already counted with another record" % g["id"]
        names = [self.tour.team_name(t) for t in g["teams"]]
        if p.get("teams") != names:
            return "the teams %s are not the scheduled %s" % (p.get("teams"), names)
        try:
            head = record.parse_line(lines[0], 1)
            v = self.verdict = rules_referee.referee(lines)
        except (record.RecordError, IndexError) as e:
            return "the record is not valid: %s" % e
        if head.get("players") not in (None, self.tour.seat_players(g)):
            return "the record's players are not the scheduled teams"
        if not v["over"] or [v["scores"][0], v["scores"][1]] != p.get("scores"):
            return "the scores %s are not the record's %s" % (p.get("scores"), v["scores"][:2])
        if not p.get("disputed_by") and sorted(p.get("confirmed") or []) != sorted(names):
            return "both teams must confirm a result (confirmed: %s)" % (p.get("confirmed") or "nobody")
        return None

    def correct(self, p: dict[str, Any]) -> None:
        with self.lock:
            g = self.tour.games.get(p.get("game"))  # type: ignore[arg-type]
            sc = p.get("scores")
            if g is None or not (isinstance(sc, list) and len(sc) == 2 and all(type(x) is int for x in sc)):
                self.refuse(mqttwire.topic(self.tid, "director", "correct"), p, "bad correction")
                return
            before = self.tour.outcomes().get(g["id"], {}).get("scores")
            self.tour.append({"kind": "correction", "game": g["id"], "scores": sc, "before": before,
                              "winner": 0 if sc[0] >= sc[1] else 1,
                              "by": str(p.get("by") or DIRECTOR), "reason": str(p.get("reason") or "")})
            self.publish_standings()

    def _ack(self, table: int) -> None:
        self.c.publish(mqttwire.topic(self.tid, "director", "ack", table),
                       json.dumps({"games": sorted(self.acked.get(table, ()))}), qos=1, retain=True)

    # -- standings --------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """Standings, progress, the round now and the next round's games, the tables' status."""
        tour = self.tour
        decided = tour.outcomes()
        now = next((r for r in tour.state["rounds"] if any(g["id"] not in decided for g in r["games"])), None)
        nxt = None
        if now is not None and now["round"] < len(tour.state["rounds"]):
            nxt = tour.state["rounds"][now["round"]]
        pairings = [{"table": g["table"], "teams": [tour.team_name(t) for t in g["teams"]], "game": g["id"]}
                    for g in (nxt or {"games": []})["games"]]
        return {"standings": tour.standings(), "decided": len(decided), "of": len(tour.games),
                "round": now["round"] if now else None, "next": pairings,
                "disputes": [d["game"] for d in tour.disputes()], "last": self.last, "t": time.time(),
                "tables": {str(k): v for k, v in sorted(self.status.items())}}

    def publish_standings(self) -> None:
        snap = self.snapshot()
        snap.pop("tables")
        self.c.publish(mqttwire.topic(self.tid, "standings"), json.dumps(snap), qos=1, retain=True)
        self.updates += 1
