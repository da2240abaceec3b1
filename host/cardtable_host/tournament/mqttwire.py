"""The tournament's MQTT topics and payloads (the one place they are defined), and the client.

Every topic starts with ``cardtable/<tournament id>/``; every message is one JSON object,
published with QoS 1. Who may write where is enforced by the broker's ACL (``broker.py``).

``table/<n>/status`` (retained; table n writes): the table now, republished after every hand
    and on every (re)connection: ``{"table": n, "state": "idle"|"playing"|"finished"|"offline",
    "round": r, "game": id, "teams": [name, name], "scores": [a, b], "dealer": seat,
    "hand": number, "t": unix time}``. The broker's last will sets ``"state": "offline"``.
``table/<n>/result`` (table n writes): a finished game, both teams asked:
    ``{"game": id, "table": n, "round": r, "teams": [name, name], "scores": [a, b],
    "winner": name, "record": [record lines, the header naming the game: "table":
    "table n, round r (id)", "players": a name per seat], "hash": sha256 hex of the record's lines joined
    by newlines, "confirmed": [team names that confirmed (a board's: the teams' agree buttons,
    its link's ``agree``)], "disputed_by": name or null,
    "ended": unix time}``. Idempotent: the director counts a game id once; the same hash again
    is a resend (acknowledged, not counted twice); another hash for a counted game is refused.
``table/<n>/call`` (retained; table n writes, the director clears): a player at the table
    calls the director (a seat page's button): ``{"table": n, "seat": seat, "who": the
    player's name as the table knows it, "game": the scheduled game id or null, "t": unix
    time}``, at most ``MAX_CALL`` bytes. The director shows it until it clears it, by
    publishing an empty retained message on the same topic.
``director/ack/<n>`` (retained; the director writes): ``{"games": [ids]}``, the games of
    table n the director holds; the table's outbox keeps a result until it is listed here.
``director/correct`` (the director writes): ``{"game": id, "scores": [a, b], "by": name,
    "reason": text}``, a correction applied with an audit line.
``standings`` (retained; the director writes): ``{"standings": [rows as `cardtable
    tournament standings --json`], "decided": n, "of": total, "round": the round being played,
    "next": [the next round's games], "disputes": [game ids], "last": game id, "new": {game id:
    unix time its result came, for the games this update counts first}, "t": unix time}``. The
    director publishes one update for every result counted since the one before.
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Any, Callable

import paho.mqtt.client as mqtt

from cardtable import record

QOS = 1
MAX_CALL = 1024  # the largest call for the director read (a call is ~120 bytes)
NAME_CHARS = 60  # a name in a call, at most


def topic(tid: str, *parts: Any) -> str:
    """``cardtable/<tid>/part/part``."""
    return "/".join(["cardtable", tid] + [str(p) for p in parts])


def game_label(table: int, rnd: int, gid: str) -> str:
    """What a result's record header says in "table": the table, round and tournament game id
    (with "players", a name per seat, it names the game the record is for)."""
    return "table %d, round %d (%s)" % (table, rnd, gid)


def stamp(lines: list[str], label: str, players: list[str]) -> list[str]:
    """The record with its header naming the game (game_label) and the players per seat."""
    head = record.parse_line(lines[0], 1)
    seq = head.pop("seq", None)  # a board's journal: the header keeps its form (seq and checksum)
    head.update(table=label, players=players)
    return [record.format_line(head, seq)] + list(lines[1:])


def body_hash(lines: list[str]) -> str:
    """The hash of a record's actions (everything after the header): the same game whatever
    its header says."""
    return hashlib.sha256("\n".join(lines[1:]).encode("utf-8")).hexdigest()


def record_hash(lines: list[str]) -> str:
    """The hash a result carries: sha256 of the record's lines joined by newlines."""
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def client(name: str, user: str, password: str, clean: bool = True,
           will: tuple[str, dict[str, Any]] | None = None) -> mqtt.Client:
    """A paho client (MQTT 3.1.1) with the tournament's credentials."""
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=name, clean_session=clean,
                    protocol=mqtt.MQTTv311)
    c.username_pw_set(user, password)
    c.reconnect_delay_set(1, 2)
    c.max_inflight_messages_set(100)
    if will is not None:
        c.will_set(will[0], json.dumps(will[1]), qos=QOS, retain=True)
    return c


def connect(c: mqtt.Client, host: str, port: int, on_up: Callable[[], None] | None = None,
            timeout: float = 10.0) -> None:
    """Connect and start the network thread (on_up runs on every (re)connection);
    raises ConnectionError if the broker is not there or refuses the credentials."""
    state: dict[str, Any] = {"up": threading.Event(), "refused": None}

    def on_connect(_c: Any, _u: Any, _f: Any, rc: Any, _p: Any = None) -> None:
        if rc.is_failure:
            state["refused"] = str(rc)
            state["up"].set()
            return
        if on_up is not None:
            on_up()
        state["up"].set()

    c.on_connect = on_connect
    try:
        c.connect(host, port, keepalive=5)
    except OSError as e:
        raise ConnectionError("cannot reach the broker at %s:%d: %s" % (host, port, e))
    c.loop_start()
    if not state["up"].wait(timeout) or state["refused"]:
        c.loop_stop()
        raise ConnectionError("the broker at %s:%d refused the connection: %s"
                              % (host, port, state["refused"] or "no answer"))


class Outbox:
    """Messages kept on disk until the director acknowledges them (one file per key)."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.dir = Path(folder)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()

    def put(self, key: str, topic_: str, payload: dict[str, Any]) -> None:
        tmp = self.dir / (key + ".tmp")
        tmp.write_text(json.dumps({"topic": topic_, "payload": payload}), encoding="utf-8")
        os.replace(tmp, self.dir / (key + ".json"))

    def pending(self) -> list[tuple[str, str, dict[str, Any]]]:
        out = []
        with self.lock:
            for p in sorted(self.dir.glob("*.json")):
                try:
                    m = json.loads(p.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    continue
                out.append((p.stem, m["topic"], m["payload"]))
        return out

    def done(self, keys: list[str]) -> None:
        with self.lock:
            for k in keys:
                try:
                    (self.dir / (k + ".json")).unlink()
                except FileNotFoundError:
                    pass


def wait_for(pred: Callable[[], bool], timeout: float, step: float = 0.02) -> bool:
    """Poll pred until it holds or timeout seconds pass; whether it held."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return pred()
