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

import hashlib
import json
import logging
import os
import queue
import threading
import time
from typing import Any

from cardtable import record

from cardtable_host.errors import warn
from cardtable_host.serve.archive import Archive
from cardtable_host.tournament import mqttwire
from cardtable_host.tournament.broker import DIRECTOR, MAX_MESSAGE, WATCHER
from cardtable_host.tournament.refworker import Worker
from cardtable_host.tournament.safejson import Refused, load_object
from cardtable_host.tournament.tablewatch import TableWatch
from cardtable_host.tournament.tourney import HEALTH, REFEREE, Tournament

RETRY_S = 1.0  # how often a result the disk would not take is tried again

_log = logging.getLogger("cardtable.tournament")


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
        self.bodies: dict[str, str] = {}  # each counted record's actions (body_hash) -> its game
        self.acked: dict[int, set[str]] = {}
        self.refereeing: dict[str, str] = {}  # games counted, not yet refereed -> their record
        self._to_referee: queue.Queue[str | None] = queue.Queue()
        for e in tour.log():
            if e.get("kind") in ("result", "dispute") and e.get("hash"):
                self.hashes[e["game"]] = e["hash"]
                if e.get("body"):
                    self.bodies[e["body"]] = e["game"]
                self.acked.setdefault(tour.games[e["game"]]["table"], set()).add(e["game"])
                if e.get("referee") == "pending":
                    self.refereeing[e["game"]] = e["record"]
            elif e.get("kind") == "refereed":
                self.refereeing.pop(str(e.get("game")), None)
        for gid in self.refereeing:  # counted before a restart, its verdict not yet given
            self._to_referee.put(gid)
        self.last: str | None = None  # the game counted last, and when its result came
        self.last_received: float | None = None
        self.last_counted: float | None = None  # when the director last counted a result
        # results the disk would not take (a read-only or full folder): kept, tried again every
        # RETRY_S, counted once the disk takes them (the tables are not acknowledged till then)
        self.waiting: dict[str, tuple[int, dict[str, Any], float]] = {}
        self.storage_error: dict[str, Any] | None = None  # {"since": t, "error": text} while it lasts
        self.storage_errors = 0  # writes that failed since the start
        self.handler_errors = 0  # messages that broke a check (refused all the same)
        self._refused_seen: set[tuple[str, str, str]] = set()
        self._health_written: dict[str, Any] | None = None  # the health last written (HEALTH), when
        self._health_at = 0.0
        self.updates = 0  # standings published
        self.calls: dict[int, dict[str, Any]] = {}  # table -> its call for the director, until cleared
        # The standings go out from a thread of their own, each update for every result counted
        # since the one before: a burst of results is counted as it comes, and the standings
        # (a few ms each) are computed once per update, not once per result.
        self._new: dict[str, float] = {}  # games counted since the last update -> when they came
        self._standings_wanted = threading.Event()
        self._stopped = threading.Event()
        self.c = mqttwire.client("cardtable-director-%s" % self.tid, DIRECTOR, password, clean=False)
        self.c.on_message = self._on_message
        # the tables' status in a process of its own (tablewatch), on a connection of its own
        # (the broker names a connection by its user): a flood of status messages never holds
        # up a result, nor takes the interpreter from it
        watcher = _credential(tour, WATCHER)
        self.watch = TableWatch(host, port, self.tid, WATCHER if watcher else DIRECTOR, watcher or password,
                                self._on_status)
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
        threading.Thread(target=self._retry_loop, name="cardtable-retry", daemon=True).start()
        mqttwire.connect(self.c, self.host, self.port, on_up=self._on_up)
        self.watch.start()
        threading.Thread(target=self._watch_log, daemon=True).start()
        return self

    def _watch_log(self) -> None:
        """Republish the standings when the results log grows from outside (`tournament correct`)."""
        seen = len(self.tour.log())
        while not self._stopped.wait(0.5):
            try:
                with self.lock:
                    n = len(self.tour.log())
                    if n != seen:
                        seen = n
                        self.publish_standings()
            except OSError as e:  # the folder unreadable for a moment: look again
                self._storage_failed(e)

    def stop(self) -> None:
        self._stopped.set()
        self._to_referee.put(None)
        self._sync_wanted.set()
        self._standings_wanted.set()
        self.watch.stop()
        self.c.disconnect()
        self.c.loop_stop()

    def _on_up(self) -> None:
        _log.info("the director is connected to the broker")
        t = self.tid
        self.c.subscribe([(mqttwire.topic(t, "table", "+", "result"), 1),
                          (mqttwire.topic(t, "table", "+", "call"), 1),
                          (mqttwire.topic(t, "director", "correct"), 1)])
        self.publish_standings()
        for n in self.acked:
            self._ack_after_sync(n)

    # -- messages ---------------------------------------------------------------------------

    def _on_status(self, table: int, raw: bytes) -> None:
        """A table's latest status, as it came: parsed when shown."""
        if table not in self._status:
            _log.info("table %d is connected", table)
        self._status[table] = raw

    @property
    def status(self) -> dict[int, dict[str, Any]]:
        """Each table's latest status (those that are JSON objects)."""
        out = {}
        for table, raw in sorted(list(self._status.items())):  # a copy: the network thread adds
            try:
                out[table] = _clean_status(table, load_object(raw, 4096, 2))
            except Refused:
                continue  # not a status this page can show (too big, too deep, not JSON)
        return out

    def _on_message(self, _c: Any, _u: Any, msg: Any) -> None:
        """Every message ends as a counted result or correction, or a line in refused.jsonl:
        no exception leaves here (paho's network thread would die with it)."""
        try:
            self._message(msg.topic, msg.payload)
        except Exception as e:  # a check this message broke: refused all the same, and logged
            self.handler_errors += 1
            self.refuse(msg.topic, None, "the director could not read it (%s: %s)" % (type(e).__name__, str(e)[:200]),
                        msg.payload)

    def _message(self, where: str, raw: bytes) -> None:
        parts = where.split("/")
        if len(parts) == 5 and parts[4] == "call" and parts[3].isdigit():
            self.table_call(int(parts[3]), raw, where)
            return
        try:
            payload = load_object(raw, MAX_MESSAGE)
        except Refused as e:
            self.refuse(where, None, str(e), raw)
            return
        if parts[2:3] == ["director"]:
            self.correct(payload)
        elif len(parts) == 5 and parts[4] == "result" and parts[3].isdigit():
            self.result(int(parts[3]), payload, time.time())
        else:
            self.refuse(where, payload, "not a topic the director reads")

    def refuse(self, where: str, payload: dict[str, Any] | None, why: str, raw: bytes | None = None) -> None:
        """Log a refused message (refused.jsonl, once per message and reason) and leave the
        standings alone."""
        game, hash_ = (payload or {}).get("game"), (payload or {}).get("hash")
        game = game if isinstance(game, str) and len(game) <= 100 else None
        hash_ = hash_ if isinstance(hash_, str) and len(hash_) <= 100 else None
        try:
            raw = raw if raw is not None else json.dumps(payload, sort_keys=True).encode("utf-8")
        except (TypeError, ValueError, RecursionError):
            raw = b""
        key = (where, hashlib.sha256(raw).hexdigest(), why)
        if key in self._refused_seen:
            return  # a table resending what was refused: said once
        try:
            self.tour.append({"topic": where[:200], "game": game, "hash": hash_, "why": why}, "refused.jsonl")
        except OSError as e:
            self._storage_failed(e)
            warn("cardtable director: refused %s (%s), and could not log it: %s" % (where, why, e))
            return
        if len(self._refused_seen) < 100_000:
            self._refused_seen.add(key)

    def result(self, table: int, p: dict[str, Any], received: float | None = None) -> None:
        """A table's result (received at that time): counted now if it passes the checks; the
        referee's replay follows."""
        with self.lock:
            why = self._check(table, p)
            if why and isinstance(p.get("game"), str) and self.waiting.get(p["game"], (0, {}, 0))[1] is p:
                del self.waiting[p["game"]]  # kept for the disk, now counted from a resend, or refused
            if why == "resend":
                self._ack_after_sync(table)
                return
            if why:
                self.refuse(mqttwire.topic(self.tid, "table", table, "result"), p, why)
                return
            g = self.tour.games[p["game"]]
            names = [self.tour.team_name(t) for t in g["teams"]]
            occasion = {"table": mqttwire.game_label(table, g["round"], p["game"]),
                        "players": self.tour.seat_players(g)}
            try:
                number = self.archive.save(p["record"], occasion, checked=False)  # the referee reads it next
                path = self.archive.path(number)
                games = self.tour.games
                late = any(games[e["game"]]["round"] > g["round"] for e in self.tour.log() if e.get("game") in games)
                claimed = names.index(p["winner"]) if p.get("winner") in names else (0 if p["scores"][0] >= p["scores"][1] else 1)
                entry = {"kind": "dispute" if p.get("disputed_by") else "result", "game": p["game"],
                         "table": table, "scores": p["scores"], "winner": claimed, "hash": p["hash"],
                         "body": mqttwire.body_hash(p["record"]), "record": str(path),
                         "by": "table%d" % table, "confirmed": p.get("confirmed", []), "late": late,
                         "referee": "pending"}
                if p.get("disputed_by"):
                    entry["disputed_by"] = p["disputed_by"]
                self.tour.append(entry, sync=False)
            except (record.RecordError, ValueError) as e:
                self.refuse(mqttwire.topic(self.tid, "table", table, "result"), p, "the record is not valid: %s" % e)
                return
            except OSError as e:  # the disk would not take it: kept, tried again, not acknowledged
                self.waiting[p["game"]] = (table, p, received or time.time())
                self._storage_failed(e)
                return
            self.waiting.pop(p["game"], None)
            self._storage_ok()
            self.last_counted = time.time()
            self.bodies[entry["body"]] = p["game"]
            self.hashes[p["game"]] = p["hash"]
            self.acked.setdefault(table, set()).add(p["game"])
            self.refereeing[p["game"]] = str(path)
            self.last = p["game"]
            self.last_received = received or time.time()
            self._new[p["game"]] = self.last_received
            self.publish_standings()
            self._ack_after_sync(table)
        self._to_referee.put(p["game"])

    # -- a table's call for the director -------------------------------------------------------

    def table_call(self, table: int, raw: bytes, where: str) -> None:
        """A table calls the director (an empty message: the call is cleared); a call that is
        too large, not JSON or not a call is refused and logged, and changes nothing."""
        if not raw:
            with self.lock:
                self.calls.pop(table, None)
            return
        try:
            p = load_object(raw, mqttwire.MAX_CALL, 2)
        except Refused as e:
            self.refuse(where, None, "a call for the director: %s" % e, raw)
            return
        why = _call_fault(table, p, self.tour.state["tables"])
        if why:
            self.refuse(where, p, "a call for the director: %s" % why)
            return
        gid = p.get("game")
        g = self.tour.games.get(gid) if isinstance(gid, str) else None
        g = g if g is not None and g["table"] == table else None
        who = p["who"].strip()[:mqttwire.NAME_CHARS] or "a player"
        if g is not None and p["seat"] < 4:  # the schedule's names, not what a table says
            who = self.tour.seat_players(g)[p["seat"]]
        teams = [self.tour.team_name(t) for t in g["teams"]] if g is not None else None
        with self.lock:
            self.calls[table] = {"table": table, "who": who, "teams": teams, "t": float(p["t"]),
                                 "received": time.time()}
        _log.info("table %d calls the director (%s)", table, who)

    def clear_call(self, table: int) -> bool:
        """The director answered table's call: it leaves the page (and the broker); False if
        there was none."""
        with self.lock:
            had = self.calls.pop(table, None) is not None
        if had:
            self.c.publish(mqttwire.topic(self.tid, "table", table, "call"), b"", qos=1, retain=True)
        return had

    def _check(self, table: int, p: dict[str, Any]) -> str | None:
        """Why a result is refused ('resend' for an exact resend), or None to count it."""
        gid = p.get("game")
        g = self.tour.games.get(gid) if isinstance(gid, str) else None
        if g is None:
            return "no such game in this tournament"
        if g["table"] != table or p.get("table") != table:
            return "game %s is scheduled at table %d, not table %d" % (g["id"], g["table"], table)
        lines = p.get("record")
        if not isinstance(lines, list) or not lines or not all(isinstance(x, str) for x in lines):
            return "the record must be a list of lines of text"
        if not isinstance(p.get("hash"), str) or mqttwire.record_hash(lines) != p["hash"]:
            return "the record does not match its hash"
        if gid in self.hashes:
            if self.hashes[gid] == p["hash"]:
                return "resend"
            return "replay: game %s is already counted with another record" % g["id"]
        names = [self.tour.team_name(t) for t in g["teams"]]
        if p.get("teams") != names:
            return "the teams %s are not the scheduled %s" % (_words(p.get("teams")), " and ".join(names))
        sc = p.get("scores")
        if not (isinstance(sc, list) and len(sc) == 2 and all(type(x) is int and -10_000 <= x <= 10_000 for x in sc)):
            return "the scores must be two whole numbers"
        for key in ("confirmed",):
            v = p.get(key)
            if v is not None and not (isinstance(v, list) and all(isinstance(x, str) for x in v)):
                return "%r must be a list of team names" % key
        for key in ("disputed_by", "winner"):
            if p.get(key) is not None and not isinstance(p.get(key), str):
                return "%r must be a team's name" % key
        try:
            head = record.parse_line(lines[0], 1)
            record.game_from_header(dict(head), 1)
        except record.RecordError as e:
            return "the record is not valid: %s" % e
        label = mqttwire.game_label(table, g["round"], g["id"])
        if head.get("table") != label or head.get("players") != self.tour.seat_players(g):
            return ("the record is not for game %s: its header must say \"table\": %s and the players %s"
                    % (gid, json.dumps(label), ", ".join(self.tour.seat_players(g))))
        other = self.bodies.get(mqttwire.body_hash(lines))
        if other is not None and other != gid:
            return "the record is game %s's, counted already" % other
        if g["round"] > 1 and not self._round_begun(g["round"]):
            return "round %d has not started: no game of round %d has a result yet" % (g["round"], g["round"] - 1)
        if not p.get("disputed_by") and sorted(p.get("confirmed") or []) != sorted(names):
            return "both teams must confirm a result (confirmed: %s)" % (_words(p.get("confirmed")) or "nobody")
        return None

    def _round_begun(self, rnd: int) -> bool:
        """Whether a game of the round before rnd has a result (a round starts after the one before)."""
        games = self.tour.games
        return any(e.get("kind") in ("result", "dispute", "forfeit") and e.get("game") in games
                   and games[e["game"]]["round"] == rnd - 1 for e in self.tour.log())

    # -- storage: a full or read-only folder ---------------------------------------------------

    def _storage_failed(self, e: OSError) -> None:
        """The disk would not take a write: say so (the page, `standings`, stderr) and go on."""
        self.storage_errors += 1
        if self.storage_error is None:
            self.storage_error = {"since": time.time(), "error": "%s" % (e.strerror or e)}
            warn("cardtable director: cannot write to %s: %s; results are kept and tried again every %g s"
                  % (self.tour.dir, e.strerror or e, RETRY_S))

    def _storage_ok(self) -> None:
        if self.storage_error is not None:
            warn("cardtable director: writing to %s again" % self.tour.dir)
            self.storage_error = None

    def _retry_loop(self) -> None:
        """Try the results the disk would not take again, in the order they came; keep the
        health file current."""
        while not self._stopped.wait(RETRY_S):
            try:
                with self.lock:
                    kept = sorted(self.waiting.items(), key=lambda kv: kv[1][2])
                for gid, (table, p, received) in kept:
                    self.result(table, p, received)
                with self.lock:
                    h = self.health()
                if {k: v for k, v in h.items() if k != "alive"} != self._health_written or time.time() - self._health_at >= 15:
                    self._write_health()
            except Exception as e:  # noqa: BLE001 - this thread must go on: tried again next time
                warn("cardtable director: %s" % e)

    def health(self) -> dict[str, Any]:
        """When the director last counted a result, what it waits to write, storage errors."""
        return {"last_counted": self.last_counted, "last": self.last, "alive": time.time(),
                "waiting": sorted(self.waiting), "storage_error": self.storage_error,
                "storage_errors": self.storage_errors, "handler_errors": self.handler_errors,
                "skipped": list(self.tour.skipped)}

    def _write_health(self) -> None:
        """The health where `tournament standings` reads it (HEALTH, replaced whole)."""
        path = self.tour.dir / HEALTH
        tmp = path.with_name(HEALTH + ".tmp")
        with self.lock:
            h = self.health()
        tmp.write_text(json.dumps(h), encoding="utf-8")
        os.replace(tmp, path)
        self._health_written = {k: v for k, v in h.items() if k != "alive"}
        self._health_at = h["alive"]

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
                try:
                    entry = judge(gid, path, claim, worker.verdict(path))
                except Exception as e:  # noqa: BLE001 - a verdict that cannot be read is the director's to settle
                    entry = {"kind": "refereed", "game": gid, "by": REFEREE, "record": path, "ok": False,
                             "why": "the referee could not give a verdict: %s" % e}
                with self.lock:
                    try:
                        self.tour.append(entry, sync=False)  # on disk with the next sync
                    except OSError as e:  # the verdict again once the disk takes it
                        self._storage_failed(e)
                        threading.Timer(RETRY_S, self._to_referee.put, (gid,)).start()
                        continue
                    self.refereeing.pop(gid, None)
                    self.publish_standings()
                self._sync_wanted.set()
        finally:
            worker.close()

    def correct(self, p: dict[str, Any], where: str | None = None) -> str | None:
        """A director's correction (audited: who, what, when, why); why it was refused, or None."""
        with self.lock:
            gid = p.get("game")
            g = self.tour.games.get(gid) if isinstance(gid, str) else None
            sc = p.get("scores")
            why = None
            if g is None:
                why = "no game %s in this tournament" % (gid if isinstance(gid, str) else "named")
            elif not (isinstance(sc, list) and len(sc) == 2 and all(type(x) is int and -1000 <= x <= 1000 for x in sc)):
                why = "scores must be two whole numbers between -1000 and 1000"
            if why or g is None:
                self.refuse(where or mqttwire.topic(self.tid, "director", "correct"), p, "bad correction: %s" % why)
                return why
            assert isinstance(sc, list)
            before = self.tour.outcomes(disputed_too=True).get(g["id"], {}).get("scores")
            try:
                self.tour.append({"kind": "correction", "game": g["id"], "scores": sc, "before": before,
                                  "winner": 0 if sc[0] >= sc[1] else 1,
                                  "by": str(p.get("by") or DIRECTOR)[:100], "reason": str(p.get("reason") or "")[:1000]})
            except OSError as e:
                self._storage_failed(e)
                return "not saved: %s" % (e.strerror or e)
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
            try:
                self.tour.sync()  # one flush for every result written meanwhile
            except OSError as e:  # not on disk yet: no acknowledgement, the tables keep theirs
                self._storage_failed(e)
                with self._unsynced_lock:
                    self._unsynced |= tables
                if not self._stopped.wait(RETRY_S):
                    self._sync_wanted.set()
                continue
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
               "last_received": self.last_received, "health": self.health(), "t": time.time()}
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
            try:
                with self.lock:
                    snap = self.snapshot(tables=False)
                    snap["new"], self._new = self._new, {}
                self.c.publish(mqttwire.topic(self.tid, "standings"), json.dumps(snap), qos=1, retain=True)
                self.updates += 1
            except Exception as e:  # noqa: BLE001 - the next update tries again; this thread goes on
                warn("cardtable director: the standings were not published: %s" % e)
                if not self._stopped.wait(RETRY_S):
                    self._standings_wanted.set()


def _clean_status(table: int, got: dict[str, Any]) -> dict[str, Any]:
    """The fields of a table's status the director shows, each of its type (a table's
    retained message is whatever it published)."""
    out: dict[str, Any] = {"table": table, "state": "unknown"}
    if isinstance(got.get("state"), str):
        out["state"] = got["state"][:20]
    for k in ("round", "hand"):
        if type(got.get(k)) is int:
            out[k] = got[k]
    if got.get("dealer") in (0, 1, 2, 3) and type(got["dealer"]) is int:
        out["dealer"] = got["dealer"]
    if isinstance(got.get("game"), str):
        out["game"] = got["game"][:100]
    teams, scores = got.get("teams"), got.get("scores")
    if isinstance(teams, list) and len(teams) == 2 and all(isinstance(x, str) for x in teams):
        out["teams"] = [x[:60] for x in teams]
    if isinstance(scores, list) and len(scores) == 2 and all(type(x) is int for x in scores):
        out["scores"] = scores
    if isinstance(got.get("t"), (int, float)):
        out["t"] = got["t"]
    return out


def _call_fault(table: int, p: dict[str, Any], tables: int) -> str | None:
    """What is wrong with a table's call for the director, or None."""
    if not 1 <= table <= tables:
        return "there is no table %d in this tournament" % table
    if p.get("table") != table or type(p.get("table")) is not int:
        return "it must name its own table (%d)" % table
    if type(p.get("seat")) is not int or not 0 <= p["seat"] < 8:
        return "\"seat\" must be the calling seat, 0 to 7"
    if not isinstance(p.get("who"), str) or len(p["who"]) > mqttwire.NAME_CHARS:
        return "\"who\" must be a name of at most %d characters" % mqttwire.NAME_CHARS
    if p.get("game") is not None and not (isinstance(p["game"], str) and len(p["game"]) <= 100):
        return "\"game\" must be a game id or null"
    if not isinstance(p.get("t"), (int, float)) or isinstance(p["t"], bool) or not 0 <= p["t"] < 1e11:
        return "\"t\" must be a unix time"
    return None


def _credential(tour: Tournament, user: str) -> str | None:
    """A user's password from the tournament's credentials, if it has one."""
    try:
        got = json.loads((tour.dir / "broker" / "credentials.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return got.get(user) if isinstance(got, dict) else None


def _words(v: Any) -> str:
    """A list of names as a person reads it ('Aces and Kings'), anything else in brief."""
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        return " and ".join(v)
    return "none" if v is None else "something else (%s)" % type(v).__name__


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
