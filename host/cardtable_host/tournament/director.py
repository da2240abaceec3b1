"""The director's service: takes the tables' results from the broker, checks them, keeps the
standings (topics and payloads: ``mqttwire``).

A result counts as soon as it passes the checks that need no replay (the right table, its
hash, no replay of another record, the scheduled teams, both teams' confirmation), so the
standings follow a burst of games at once; the referee's replay of each record (30-60 ms a
game) follows on a thread of its own, in order, and its verdict is logged as a separate
entry ("refereed"): a record the referee does not bear out (not valid, not over, other scores
or winner) leaves the standings and is flagged for the director as a disputed game.

Between a result and its standings nothing waits on the disk or on other traffic: the
standings go out from a thread of their own (one update for all the results counted since the
one before), the results log is flushed to disk after that and only then is the result
acknowledged to its table, and the tables' status is followed in a process of its own
(``tablewatch``).
"""
from __future__ import annotations

import json
import queue
import threading
import time
from typing import Any

from cardtable import record

from cardtable_host.tournament import mqttwire
from cardtable_host.serve.archive import Archive
from cardtable_host.tournament.broker import DIRECTOR
from cardtable_host.tournament.refworker import Worker
from cardtable_host.tournament.tablewatch import TableWatch
from cardtable_host.tournament.tourney import REFEREE, Tournament


class Director:
    """Subscribes to every table; counts each game once; publishes standings and acks."""

    def __init__(self, tour: Tournament, host: str, port: int, password: str) -> None:
        self.tour = tour
        self.tid = tour.id
        self.host, self.port = host, port
        self.archive = Archive(tour.dir / "archive")
        self.lock = threading.Lock()
        self._status: dict[int, bytes] = {}  # each table's latest status, read when asked for
        self.hashes: dict[str, str] = {}
        self.acked: dict[int, set[str]] = {}
        self.refereeing: dict[str, str] = {}  # games counted, not yet refereed -> their record
        self._to_referee: queue.Queue[str | None] = queue.Queue()
        for e in tour.log():
            if e.get("kind") in ("result", "dispute") and e.get("hash"):
                self.hashes[e["game"]] = e["hash"]
                self.acked.setdefault(tour.games[e["game"]]["table"], set()).add(e["game"])
                if e.get("referee") == "pending":
                    self.refereeing[e["game"]] = e["record"]
            elif e.get("kind") == "refereed":
                self.refereeing.pop(str(e.get("game")), None)
        for gid in self.refereeing:  # counted before a restart, its verdict not yet given
            self._to_referee.put(gid)
        self.last: str | None = None  # the game counted last, and when its result came
        self.last_received: float | None = None
        self.updates = 0  # standings published
        # The standings go out from a thread of their own, each update for every result counted
        # since the one before: a burst of results is counted as it comes, and the standings
        # (a few ms each) are computed once per update, not once per result.
        self._new: dict[str, float] = {}  # games counted since the last update -> when they came
        self._standings_wanted = threading.Event()
        self._stopped = threading.Event()
        self.c = mqttwire.client("cardtable-director-%s" % self.tid, DIRECTOR, password, clean=False)
        self.c.on_message = self._on_message
        # the tables' status in a process of its own (tablewatch): a flood of status messages
        # never holds up a result, nor takes the interpreter from it
        self.watch = TableWatch(host, port, self.tid, DIRECTOR, password, self._on_status)
        # the results log is made durable (fsync) after the standings went out, and only then
        # is a result acknowledged to its table (which keeps it until then): a crash between
        # loses nothing, and no disk flush stands between a result and its standings
        self._unsynced: set[int] = set()  # tables whose acknowledgement waits for the fsync
        self._unsynced_lock = threading.Lock()
        self._sync_wanted = threading.Event()

    def start(self) -> "Director":
        threading.Thread(target=self._referee_loop, name="cardtable-referee", daemon=True).start()
        threading.Thread(target=self._sync_loop, name="cardtable-sync", daemon=True).start()
        threading.Thread(target=self._standings_loop, name="cardtable-standings", daemon=True).start()
        mqttwire.connect(self.c, self.host, self.port, on_up=self._on_up)
        self.watch.start()
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
        self._to_referee.put(None)
        self._sync_wanted.set()
        self._standings_wanted.set()
        self.watch.stop()
        self.c.disconnect()
        self.c.loop_stop()

    def _on_up(self) -> None:
        t = self.tid
        self.c.subscribe([(mqttwire.topic(t, "table", "+", "result"), 1),
                          (mqttwire.topic(t, "director", "correct"), 1)])
        self.publish_standings()
        for n in self.acked:
            self._ack_after_sync(n)

    # -- messages ---------------------------------------------------------------------------

    def _on_status(self, table: int, raw: bytes) -> None:
        """A table's latest status, as it came: parsed when shown."""
        self._status[table] = raw

    @property
    def status(self) -> dict[int, dict[str, Any]]:
        """Each table's latest status (those that are JSON objects)."""
        out = {}
        for table, raw in sorted(list(self._status.items())):  # a copy: the network thread adds
            try:
                got = json.loads(raw.decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                continue
            if isinstance(got, dict):
                out[table] = got
        return out

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
        elif len(parts) == 5 and parts[4] == "result":
            self.result(int(parts[3]), payload, time.time())

    def refuse(self, where: str, payload: dict[str, Any] | None, why: str) -> None:
        """Log a refused message (refused.jsonl) and leave the standings alone."""
        self.tour.append({"topic": where, "game": (payload or {}).get("game"),
                          "hash": (payload or {}).get("hash"), "why": why}, "refused.jsonl")

    def result(self, table: int, p: dict[str, Any], received: float | None = None) -> None:
        """A table's result (received at that time): counted now if it passes the checks; the
        referee's replay follows."""
        with self.lock:
            why = self._check(table, p)
            if why == "resend":
                self._ack_after_sync(table)
                return
            if why:
                self.refuse(mqttwire.topic(self.tid, "table", table, "result"), p, why)
                return
            g = self.tour.games[p["game"]]
            names = [self.tour.team_name(t) for t in g["teams"]]
            occasion = {"table": "table %d, round %d (%s)" % (table, g["round"], p["game"]),
                        "players": self.tour.seat_players(g)}
            try:
                number = self.archive.save(p["record"], occasion, checked=False)  # the referee reads it next
            except (record.RecordError, ValueError) as e:
                self.refuse(mqttwire.topic(self.tid, "table", table, "result"), p, "the record is not valid: %s" % e)
                return
            path = self.archive.path(number)
            games = self.tour.games
            late = any(games[e["game"]]["round"] > g["round"] for e in self.tour.log() if e.get("game") in games)
            claimed = names.index(p["winner"]) if p.get("winner") in names else (0 if p["scores"][0] >= p["scores"][1] else 1)
            entry = {"kind": "dispute" if p.get("disputed_by") else "result", "game": p["game"],
                     "table": table, "scores": p["scores"], "winner": claimed, "hash": p["hash"], "record": str(path),
                     "by": "table%d" % table, "confirmed": p.get("confirmed", []), "late": late,
                     "referee": "pending"}
            if p.get("disputed_by"):
                entry["disputed_by"] = p["disputed_by"]
            self.tour.append(entry, sync=False)
            self.hashes[p["game"]] = p["hash"]
            self.acked.setdefault(table, set()).add(p["game"])
            self.refereeing[p["game"]] = str(path)
            self.last = p["game"]
            self.last_received = received or time.time()
            self._new[p["game"]] = self.last_received
            self.publish_standings()
            self._ack_after_sync(table)
        self._to_referee.put(p["game"])

    def _check(self, table: int, p: dict[str, Any]) -> str | None:
        """Why a result is refused ('resend' for an exact resend), or None to count it."""
        g = self.tour.games.get(p.get("game"))  # type: ignore[arg-type]
        if g is None:
            return "no such game in this tournament"
        if g["table"] != table or p.get("table") != table:
            return "game %s is scheduled at table %d, not table %d" % (g["id"], g["table"], table)
        lines = p.get("record")
        if not isinstance(lines, list) or not lines or mqttwire.record_hash(lines) != p.get("hash"):
            return "the record does not match its hash"
        if p["game"] in self.hashes:
            if self.hashes[p["game"]] == p["hash"]:
                return "resend"
            return "replay: game %s is already counted with another record" % g["id"]
        names = [self.tour.team_name(t) for t in g["teams"]]
        if p.get("teams") != names:
            return "the teams %s are not the scheduled %s" % (p.get("teams"), names)
        sc = p.get("scores")
        if not (isinstance(sc, list) and len(sc) == 2 and all(type(x) is int for x in sc)):
            return "the scores must be two numbers"
        try:
            head = record.parse_line(lines[0], 1)
            record.game_from_header(dict(head), 1)
        except record.RecordError as e:
            return "the record is not valid: %s" % e
        if head.get("players") not in (None, self.tour.seat_players(g)):
            return "the record's players are not the scheduled teams"
        if not p.get("disputed_by") and sorted(p.get("confirmed") or []) != sorted(names):
            return "both teams must confirm a result (confirmed: %s)" % (p.get("confirmed") or "nobody")
        return None

    # -- the referee, behind the standings ---------------------------------------------------

    def _referee_loop(self) -> None:
        """Referee each counted result in turn (in a process of its own); log the verdict."""
        worker = Worker()
        try:
            while True:
                gid = self._to_referee.get()
                if gid is None or self._stopped.is_set():
                    return
                with self.lock:
                    path = self.refereeing.get(gid)
                    claim = self.tour.outcomes(disputed_too=True).get(gid)
                if path is None:
                    continue
                entry = judge(gid, path, claim, worker.verdict(path))
                with self.lock:
                    self.tour.append(entry, sync=False)  # on disk with the next sync
                    self.refereeing.pop(gid, None)
                    self.publish_standings()
                self._sync_wanted.set()
        finally:
            worker.close()

    def correct(self, p: dict[str, Any], where: str | None = None) -> str | None:
        """A director's correction (audited: who, what, when, why); why it was refused, or None."""
        with self.lock:
            g = self.tour.games.get(p.get("game"))  # type: ignore[arg-type]
            sc = p.get("scores")
            why = None
            if g is None:
                why = "no game %r in this tournament" % p.get("game")
            elif not (isinstance(sc, list) and len(sc) == 2 and all(type(x) is int and -1000 <= x <= 1000 for x in sc)):
                why = "scores must be two whole numbers between -1000 and 1000"
            if why or g is None:
                self.refuse(where or mqttwire.topic(self.tid, "director", "correct"), p, "bad correction: %s" % why)
                return why
            assert isinstance(sc, list)
            before = self.tour.outcomes().get(g["id"], {}).get("scores")
            self.tour.append({"kind": "correction", "game": g["id"], "scores": sc, "before": before,
                              "winner": 0 if sc[0] >= sc[1] else 1,
                              "by": str(p.get("by") or DIRECTOR), "reason": str(p.get("reason") or "")})
            self.publish_standings()
            return None

    def _ack_after_sync(self, table: int) -> None:
        """Acknowledge a table's results once the log holding them is on disk (_sync_loop)."""
        with self._unsynced_lock:
            self._unsynced.add(table)
        self._sync_wanted.set()

    def _sync_loop(self) -> None:
        """Flush the results log to disk, then acknowledge the tables that waited for it."""
        while True:
            self._sync_wanted.wait()
            if self._stopped.is_set():
                return
            self._sync_wanted.clear()
            with self._unsynced_lock:
                tables, self._unsynced = self._unsynced, set()
            self.tour.sync()  # one flush for every result written meanwhile
            with self.lock:
                for table in sorted(tables):
                    self._ack(table)

    def _ack(self, table: int) -> None:
        self.c.publish(mqttwire.topic(self.tid, "director", "ack", table),
                       json.dumps({"games": sorted(self.acked.get(table, ()))}), qos=1, retain=True)

    # -- standings --------------------------------------------------------------------------

    def snapshot(self, tables: bool = True) -> dict[str, Any]:
        """Standings, progress, the round now and the next round's games, the tables' status."""
        tour = self.tour
        decided = tour.outcomes()
        now = next((r for r in tour.state["rounds"] if any(g["id"] not in decided for g in r["games"])), None)
        nxt = None
        if now is not None and now["round"] < len(tour.state["rounds"]):
            nxt = tour.state["rounds"][now["round"]]
        pairings = [{"table": g["table"], "teams": [tour.team_name(t) for t in g["teams"]], "game": g["id"]}
                    for g in (nxt or {"games": []})["games"]]
        out = {"standings": tour.standings(), "decided": len(decided), "of": len(tour.games),
               "refereeing": sorted(self.refereeing),
               "round": now["round"] if now else None, "next": pairings,
               "disputes": [d["game"] for d in tour.disputes()], "last": self.last,
               "last_received": self.last_received, "t": time.time()}
        if tables:
            out["tables"] = {str(k): v for k, v in self.status.items()}
        return out

    def publish_standings(self) -> None:
        """Have the standings published (at once, by _standings_loop)."""
        self._standings_wanted.set()

    def _standings_loop(self) -> None:
        while True:
            self._standings_wanted.wait()
            if self._stopped.is_set():
                return
            self._standings_wanted.clear()
            with self.lock:
                snap = self.snapshot(tables=False)
                snap["new"], self._new = self._new, {}
            self.c.publish(mqttwire.topic(self.tid, "standings"), json.dumps(snap), qos=1, retain=True)
            self.updates += 1


def judge(gid: str, path: str, claim: dict[str, Any] | None, v: dict[str, Any]) -> dict[str, Any]:
    """The "refereed" entry for a counted game: does the referee's verdict v on its record bear
    out the claimed result?"""
    entry: dict[str, Any] = {"kind": "refereed", "game": gid, "by": REFEREE, "record": path}
    if "error" in v:
        return dict(entry, ok=False, why=v["error"])
    scores = [v["scores"][0], v["scores"][1]]
    entry.update(scores=scores, winner=v["winner"], revokes=len(v["revokes"]), rejected=len(v["rejected"]))
    why = None
    if not v["over"]:
        why = "the record's game is not over"
    elif claim is not None and claim.get("how") == "played" and not claim.get("corrected"):
        if claim["scores"] != scores:
            why = "the scores %s are not the record's %s" % (claim["scores"], scores)
        elif claim["winner"] != v["winner"]:
            why = "the winner is not the record's"
    entry["ok"] = why is None
    if why:
        entry["why"] = why
    return entry
