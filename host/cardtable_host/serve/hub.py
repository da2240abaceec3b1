"""The table as spectators see it: board messages in, one shared story out to every viewer.

`cardtable serve` feeds the Hub every message the board sends (from the link's reader
thread); the Hub keeps the spectator view (a monitor Model: the board's `view(None)`, the
log in words, faults) and hands each message, serialised once, to every subscriber. Only
what a spectator may see passes: the board's spectator messages (hello, state, event,
verdict, fault) and the link going up or down, with command ids and private fields dropped.
"""
from __future__ import annotations

import json
import re
import threading
import time
from typing import Any, Callable

from cardtable.games import words

from cardtable_host.serve.grid import glyph_text, sheet_add
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
    "consent": ("team", "answer", "from"),  # a team's agree/dispute button while the game goes on
    "say": ("seat", "from"),  # a seat's say button: who asked, never a card (serve/speech.py)
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
        self.model.sources = False  # spectators are told who did what, not which pad said so
        self.table = table
        self.players = players or []
        self.sheet: list[dict[str, Any]] = []  # the score sheet: a row per hand scored
        self._announced = ""  # the game header the story last said was ready
        self.reveals: dict[int, list[list[str]]] = {}  # hand -> the hands dealt, once it was over
        self.board = board
        self.layout = layout
        self.sent = 0  # messages published so far (each carries its number as "n")
        self.games_archived: list[int] = []
        self.archive_status = ""  # what keeps finished games from the archive ("" when nothing does)
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
                self._names()
                if pub["type"] == "verdict":
                    pub["words"] = self._verdict_words(pub)
                self.model.feed(pub)
                self._reword(before, pub)
                if pub["type"] in ("hello", "state"):
                    self.model.connected = True
                    self.model.status = "live"
                self._game_clock(pub)
                if pub["type"] == "event" and (self._score(pub) or pub.get("seq") == 1):
                    pub["sheet"] = list(self.sheet)
            new = self.model.added - before
            lines = list(self.model.log)[-new:] if new > 0 else []
            self.sent += 1
            pub = dict({"n": self.sent, "t": t}, **pub)  # first: a viewer finds them at once
            if pub["type"] == "state":
                pub["reading"] = self._reading()
            if pub["type"] in ("hello", "state"):
                pub["names"] = self._names()
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

    # -- the table in words: names, the reading, the score sheet (under the lock) ------------

    def _names(self) -> list[str]:
        """Each seat's name: the player's (--players), else the board's place, else its compass point."""
        hdr = (self.model.hello or {}).get("game")
        view = self.model.view or {}
        n = view.get("seats") or (hdr.get("seats") if isinstance(hdr, dict) else None) or len(self.players)
        n = n if isinstance(n, int) and 0 < n <= 16 else 0
        places = words.place_names(n) if n else []
        board = self.model.seat_names
        out = []
        for s in range(n):
            given = self.players[s] if s < len(self.players) else ""
            out.append(given or (board[s] if s < len(board) and board[s] else places[s]))
        if out != self.model.names:
            self.model.names = out
            g = self.model.game()
            if g is not None:
                g.names = list(out)
        return out

    def hands_scored(self) -> int:
        """The number of the last hand on the score sheet (0 before the first is scored)."""
        with self._lock:
            return int(self.sheet[-1]["hand"]) if self.sheet else 0

    def reveal(self, hand: int, hands: list[list[str]]) -> None:
        """Show spectators the hands dealt in a hand that is over (serve --reveal hand)."""
        t = time.monotonic()
        with self._lock:
            if hand in self.reveals:
                return
            self.reveals[hand] = hands
            text = "the hands dealt in hand %d are on the score sheet" % hand
            self.model.add(text, "dim")
            self.sent += 1
            msg = {"n": self.sent, "t": t, "type": "reveal", "hand": hand, "hands": hands,
                   "lines": [[text, "dim"]], "connected": self.model.connected, "status": self.model.status}
            n, text_out = self.sent, json.dumps(msg)
            subs = list(self._subs.values())
        for send in subs:
            send(n, t, text_out)

    def seat_names(self) -> list[str]:
        """Each seat's name as the pages say it: the player's, else the place's."""
        with self._lock:
            return list(self._names())

    def _reword(self, before: int, pub: dict[str, Any]) -> None:
        """The log lines a message just added, told to people: names for seats, no firmware talk."""
        new = min(self.model.added - before, len(self.model.log))
        if new <= 0:
            return
        log = self.model.log
        for i in range(len(log) - new, len(log)):
            text, colour = log[i]
            if pub["type"] == "verdict":
                text, colour = "refused: " + pub["words"], "red"
            elif pub["type"] == "hello":
                g = self.model.game()
                text = "the table is ready: %s" % (words.title(g) if g is not None else "no game yet")
            elif pub["type"] == "fault":
                what = re.sub(r"^zone \S+: ", "", str(pub.get("msg") or pub.get("kind")))
                at = "pad %s" % pub["zone"] if pub.get("zone") else "the board"
                text = ("%s is fine again" % at) if pub.get("cleared") else ("trouble at %s: %s" % (at, what))
            elif text == "deal":
                text = "the cards are dealt"
            elif text.startswith("{") and isinstance(pub.get("action"), dict):
                act = pub["action"]  # an action the game has no words for: who did what, plainly
                g = self.model.game()
                who = words.who(g, act.get("seat")) if g is not None else "a player"
                text = "%s: %s" % (who, str(act.get("act", "an action")).replace("_", " "))
            log[i] = (self._named(text), colour)
        if pub["type"] == "hello":
            key = json.dumps(pub.get("game"), sort_keys=True)
            if key == self._announced and pub.get("seq") != 0:
                del log[-1]  # the board said hello again (a re-sync): the story goes on
                self.model.added -= 1
            self._announced = key

    def _named(self, text: str) -> str:
        """Names for seats, suit glyphs for a standard deck's card codes ('Ann plays 10♥')."""
        g = self.model.game()
        if g is None:
            return text
        return glyph_text(g, words.name_seats(g, text))

    def _reading(self) -> dict[str, Any] | None:
        """The view as people read it (the game's own words: cardtable.games.words.reading)."""
        g = self.model.game()
        if g is None or not isinstance(self.model.view, dict):
            return None
        try:
            return words.reading(g, self.model.view)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return None

    def _verdict_words(self, pub: dict[str, Any]) -> str:
        """'Bob laid the 2♣: not your turn, Cy is to play' (who, what, why; names for seats)."""
        g = self.model.game()
        seat = pub.get("seat")
        who = words.who(g, seat) if g is not None and isinstance(seat, int) else "the table"
        reason = str(pub.get("reason") or "refused")
        if g is not None:
            reason = words.name_seats(g, reason)
        act = pub.get("action")
        card = act.get("card") if isinstance(act, dict) else None
        what = " (%s)" % card if isinstance(card, str) else ""
        return self._named("%s: %s%s" % (who, reason.replace(": ", " \u2014 ", 1), what))

    def _score(self, pub: dict[str, Any]) -> bool:
        """A scored hand in an event goes on the score sheet; True if one did."""
        g = self.model.game()
        if pub.get("seq") == 1:
            self.sheet = []
            self.reveals = {}
        if g is None:
            return False
        added = False
        for ev in pub.get("events") or ():
            if sheet_add(g, self.sheet, ev):
                self.sheet[-1]["note"] = words.name_seats(g, self.sheet[-1]["note"])
                added = True
        return added

    def _game_clock(self, pub: dict[str, Any]) -> None:
        now = time.time()
        if pub["type"] == "hello" and pub.get("seq") == 0:
            self.started = now
            self.sheet = []
            self.reveals = {}
            self.times = {}
            self.undos = []
        elif pub["type"] == "event" and pub.get("seq") == 1:
            self.started = now
            if "action" in pub:  # (not an undo back to the deal)
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
            text = self._named(text)
            self.model.add(text, colour)
            self.sent += 1
            msg = {"n": self.sent, "t": t, "type": "note", "lines": [[text, colour]],
                   "connected": self.model.connected, "status": self.model.status,
                   "archived": list(self.games_archived), "archive_status": self.archive_status}
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
                "names": self._names(), "reading": self._reading(), "sheet": list(self.sheet),
                "reveals": [[h, hs] for h, hs in sorted(self.reveals.items())],
                "board": self.board, "layout": self.layout, "archived": list(self.games_archived),
                "archive_status": self.archive_status}

    def view(self) -> dict[str, Any] | None:
        with self._lock:
            return None if self.model.view is None else dict(self.model.view)
