"""The table as spectators see it: board messages in, one shared story out to every viewer.

`cardtable serve` feeds the Hub every message the board sends (from the link's reader
thread); the Hub keeps the spectator view (a monitor Model: the board's `view(None)`, the
log in words, faults) and hands each message, serialised once, to every subscriber. Only
what a spectator may see passes: the board's spectator messages (hello, state, event,
verdict, fault) and the link going up or down, with command ids and private fields dropped.
"""
from __future__ import annotations

import json
import threading
import time
from typing import Any, Callable

from cardtable_host.serve.model import Model

Send = Callable[[int, float, str], None]  # a subscriber: (message number, time taken, JSON)
# "t", the time serve took a message from the board, is time.monotonic(): CLOCK_MONOTONIC on
# Linux, one clock for every process of the machine, so a local viewer can time its copy.
SNAPSHOT_LOG = 60  # log lines a new viewer is shown
# What a spectator may see of each message: the board already tells only its public form.
PUBLIC = {
    "hello": ("fw", "proto", "board", "layout", "game", "seq"),
    "state": ("seq", "view"),
    "event": ("seq", "action", "undone", "events", "from"),
    "verdict": ("action", "seat", "reason", "from"),
    "fault": ("kind", "zone", "msg", "cleared"),
    "link": ("up",),
    "agree": ("team", "answer", "agree", "from"),  # a team's answer to a finished game's result
}


def spectator(msg: dict[str, Any]) -> dict[str, Any] | None:
    """The part of a board message a spectator may see, or None for messages they never get."""
    kind = msg.get("type")
    keep = PUBLIC.get(kind) if isinstance(kind, str) else None
    if keep is None:
        return None
    out: dict[str, Any] = {"type": kind}
    for k in keep:
        if k in msg:
            out[k] = msg[k]
    return out


class Hub:
    """The spectator view of one table and the viewers who follow it (thread-safe)."""

    def __init__(self, port: str = "", table: str = "", players: list[str] | None = None,
                 board: str | None = None, layout: str | None = None) -> None:
        self.model = Model(port)
        self.table = table
        self.players = players or []
        self.board = board
        self.layout = layout
        self.sent = 0  # messages published so far (each carries its number as "n")
        self.games_archived: list[int] = []
        self._lock = threading.Lock()
        self._subs: dict[int, Send] = {}
        self._next_sub = 0
        self.started: float | None = None  # when the current game was seen to begin (epoch s)
        self.times: dict[int, float] = {}  # journal line -> when serve heard its action (epoch s)
        self.undos: list[dict[str, Any]] = []  # this game's undos: what, who asked, who agreed
        self.joined = 0  # spectators who ever opened the live feed
        self._joined_cv = threading.Condition()

    # -- in: the board ---------------------------------------------------------------------

    def feed(self, msg: dict[str, Any]) -> None:
        """Take one board message (any thread); publish what a spectator may see of it."""
        t = time.monotonic()
        pub = spectator(msg)
        if pub is None:
            return
        with self._lock:
            before = self.model.added
            if pub["type"] == "link":
                self._link(bool(pub.get("up")))
            else:
                self.model.feed(pub)
                if pub["type"] in ("hello", "state"):
                    self.model.connected = True
                    self.model.status = "live"
                self._game_clock(pub)
            new = self.model.added - before
            lines = list(self.model.log)[-new:] if new > 0 else []
            self.sent += 1
            pub = dict({"n": self.sent, "t": t}, **pub)  # first: a viewer finds them at once
            pub["lines"] = [[text, colour] for text, colour in lines]
            pub["connected"] = self.model.connected
            pub["status"] = self.model.status
            n, text = self.sent, json.dumps(pub)
            subs = list(self._subs.values())
        for send in subs:
            send(n, t, text)

    def _link(self, up: bool) -> None:
        m = self.model
        if up:
            m.status = "the board is back: re-syncing"
            m.add("the board is back", "green")
        else:
            m.connected = False
            m.status = "the board is gone (cable pulled? board reset?): waiting for it"
            m.add("board gone: waiting for it to come back", "yellow")

    def _game_clock(self, pub: dict[str, Any]) -> None:
        now = time.time()
        if pub["type"] == "hello" and pub.get("seq") == 0:
            self.started = now
            self.times = {}
            self.undos = []
        elif pub["type"] == "event" and pub.get("seq") == 1 and "action" in pub:
            self.started = now
            self.times = {}
            self.undos = []
        elif self.started is None and pub["type"] in ("state", "event"):
            self.started = now
        seq = pub.get("seq")
        if pub["type"] == "event" and isinstance(seq, int):
            self.times[seq] = now  # an undo is a line of its own (the journal keeps what it took back)

    def times_ms(self, lines: int) -> list[int | None] | None:
        """Each of a game's action lines 1..lines: when serve heard it, in ms since the first
        line (None where unheard); None if serve heard none of them."""
        with self._lock:
            times = dict(self.times)
        if not times or 1 not in times:
            return None
        t0 = times[1]
        return [None if k not in times else max(0, int(round((times[k] - t0) * 1000))) for k in range(1, lines + 1)]

    def resynced(self, hello: dict[str, Any] | None, state: dict[str, Any], seat_names: list[str]) -> None:
        """The board answered after (re)connecting: its hello and state (any thread)."""
        with self._lock:
            if seat_names:
                self.model.seat_names = seat_names
        if hello is not None:
            self.feed(dict(hello, type="hello"))
        self.feed({"type": "state", "seq": state.get("seq"), "view": state.get("view")})

    def note(self, text: str, colour: str | None = None) -> None:
        """Tell every viewer a line of the story (e.g. a game archived)."""
        t = time.monotonic()
        with self._lock:
            self.model.add(text, colour)
            self.sent += 1
            msg = {"n": self.sent, "t": t, "type": "note", "lines": [[text, colour]],
                   "connected": self.model.connected, "status": self.model.status,
                   "archived": list(self.games_archived)}
            n, text_out = self.sent, json.dumps(msg)
            subs = list(self._subs.values())
        for send in subs:
            send(n, t, text_out)

    # -- out: the viewers --------------------------------------------------------------------

    def subscribe(self, send: Send) -> tuple[int, str]:
        """Follow the table: send(n, t, text) gets every later message (its number, the time
        serve took it from the board, its JSON); returns (id, snapshot text).

        The snapshot and the subscription are taken together, so nothing falls between them.
        """
        with self._lock:
            self._next_sub += 1
            sid = self._next_sub
            self._subs[sid] = send
            return sid, json.dumps(self._snapshot())

    def unsubscribe(self, sid: int) -> None:
        with self._lock:
            self._subs.pop(sid, None)

    def viewer_joined(self) -> None:
        """A spectator opened the live feed (any thread)."""
        with self._joined_cv:
            self.joined += 1
            self._joined_cv.notify_all()

    def wait_viewers(self, n: int, timeout: float | None = None) -> bool:
        """Wait until n spectators have opened the live feed."""
        with self._joined_cv:
            return self._joined_cv.wait_for(lambda: self.joined >= n, timeout)

    def viewers(self) -> int:
        with self._lock:
            return len(self._subs)

    def snapshot(self) -> dict[str, Any]:
        """Everything a new viewer needs to draw the table now."""
        with self._lock:
            return self._snapshot()

    def snapshot_text(self) -> tuple[int, str]:
        """The snapshot as JSON, with the number of the last message it includes."""
        with self._lock:
            return self.sent, json.dumps(self._snapshot())

    def _snapshot(self) -> dict[str, Any]:
        m = self.model
        hello = spectator(dict(m.hello, type="hello")) if m.hello else None
        return {"type": "snapshot", "n": self.sent, "t": time.monotonic(), "hello": hello, "view": m.view,
                "seq": m.seq, "connected": m.connected, "status": m.status,
                "faults": list(m.faults.values()),
                "log": [[text, colour] for text, colour in list(m.log)[-SNAPSHOT_LOG:]],
                "table": self.table, "players": self.players, "seat_names": m.seat_names,
                "board": self.board, "layout": self.layout, "archived": list(self.games_archived)}

    def view(self) -> dict[str, Any] | None:
        with self._lock:
            return None if self.model.view is None else dict(self.model.view)
