"""The table as the monitor and the hub mirror it, fed by the board's link messages: the hello,
the last spectator view, a log and the standing faults."""
from __future__ import annotations

import collections
import json
from typing import Any, Callable

from cardtable import record
from cardtable.games import words

from cardtable_host.narrate import action_text, event_text, source_words

LOG_KEEP = 200

# Faults that last until the board says they are cleared; the others (a foreign tag, two tags
# on a pad, a torn read, ...) happen once and are only logged.
STANDING = ("reader", "journal")


class Model:
    """The mirror's state: the board's hello, the last spectator view, a log and faults."""

    def __init__(self, port: str = "") -> None:
        self.port = port
        self.hello: dict[str, Any] | None = None
        self.view: dict[str, Any] | None = None
        self.seq = -1
        self.log: collections.deque[tuple[str, str | None]] = collections.deque(maxlen=LOG_KEEP)
        self.faults: dict[str, dict[str, Any]] = {}
        self.connected = False
        self.status = "connecting"
        self.prompt: str | None = None  # "bid", "trump", "suit", while a key waits for more
        self.entry = ""
        self.note: tuple[str, str | None] = ("", None)
        self.seat_names: list[str] = []
        self.buttons: dict[str, str] = {}  # button name -> what it does (the board's config)
        self.added = 0  # log lines ever added (the log keeps the last LOG_KEEP)
        self.names: list[str] = []  # players' names by seat, for the game's words (serve's pages)
        self.card_style: Callable[[str], str] | None = None  # card code -> words (e.g. suit glyphs)
        self.sources = True  # say where an action came from ("(zone s0)"); serve's pages say buttons only
        self._game: Any = None
        self._game_id: str | None = None

    def game(self) -> Any:
        """A rules object for naming actions (from the hello's record header), or None."""
        hdr = (self.hello or {}).get("game")
        if not isinstance(hdr, dict):
            return None
        key = json.dumps(hdr, sort_keys=True)
        if key != self._game_id:
            try:
                self._game = record.game_from_header(dict(hdr), 1)
                if self.names:
                    self._game.names = list(self.names)
                if self.card_style is not None:
                    self._game.card_style = self.card_style
            except (ValueError, KeyError, TypeError):
                self._game = None
            self._game_id = key
        return self._game

    def add(self, text: str, colour: str | None = None) -> None:
        self.log.append((text, colour))
        self.added += 1

    def feed(self, msg: dict[str, Any]) -> bool:
        """Take one device message; True if the screen changed."""
        kind = msg.get("type")
        if kind == "hello":
            self.hello = msg
            hdr = msg.get("game") or {}
            self.seq = msg.get("seq", self.seq)
            self.add("hello: firmware %s on %s, layout %s, %s" % (
                msg.get("fw"), msg.get("board"), msg.get("layout"), hdr.get("game", "no game")), "dim")
            return True
        if kind == "state":
            self.view = msg.get("view")
            self.seq = msg.get("seq", self.seq)
            return True
        if kind == "event":
            self.seq = msg.get("seq", self.seq)
            src = source_words(str(msg.get("from") or ""), self.buttons)
            said = ("undone: %s" % self.action_words(msg["undone"]) if msg.get("undone") is not None
                    else self.action_words(msg.get("action")))
            self.add("%s%s" % (said, "  (%s)" % src if src and src != "auto" and (self.sources or src.endswith(" button"))
                               else ""))
            verb = (msg.get("action") or {}).get("act")
            for ev in msg.get("events") or []:
                if not isinstance(ev, dict) or ev.get("ev") == verb:
                    continue  # the action's own echo: its line says it already
                text = event_text(ev, self.game())
                if text:
                    self.add("  " + text, "red" if ev.get("ev") == "revoke" else "cyan")
            return True
        if kind == "verdict":
            what = self.action_words(msg.get("action")) if msg.get("action") else "seat %s" % msg.get("seat")
            self.add("REJECTED %s: %s" % (what, msg.get("reason")), "red")
            return True
        if kind == "fault":
            key = "%s %s" % (msg.get("kind"), msg.get("zone") or "")
            if msg.get("cleared"):
                if self.faults.pop(key, None) is not None:
                    self.add("fault cleared: %s%s" % (msg.get("kind"), at_zone(msg)), "green")
            else:
                if msg.get("kind") in STANDING:
                    self.faults[key] = msg
                self.add("FAULT %s%s: %s" % (msg.get("kind"), at_zone(msg), msg.get("msg")), "yellow")
            return True
        if kind == "agree" and msg.get("team") in (0, 1):
            g = self.game()
            who = words.side(g, msg["team"]) if g is not None else "team %d" % msg["team"]
            src = source_words(str(msg.get("from") or ""), self.buttons)
            dispute = msg.get("answer") == "dispute"
            self.add("%s %s the result%s" % (who, "DISPUTE" if dispute else "agree with",
                                             "  (%s)" % src if src else ""), "yellow" if dispute else "green")
            return True
        if kind == "say" and isinstance(msg.get("seat"), int):
            self.add("seat %d asks to hear the hand and the trick" % msg["seat"], "dim")
            return True
        if kind == "error" and msg.get("id") is None:
            self.add("the board did not understand a line: %s" % msg.get("msg"), "yellow")
            return True
        return False

    def action_words(self, obj: Any) -> str:
        """'seat 1 plays 5H' for a record line, or its fields in plain words if the game cannot say it."""
        if not isinstance(obj, dict):
            return "(no action)" if obj is None else words.plain(obj)
        g = self.game()
        if g is not None:
            try:
                return action_text(g, record.decode(g, dict(obj), 1))
            except (ValueError, KeyError, TypeError):
                try:  # e.g. a private move, told without its card: the game's words still say it
                    return str(g.action_words(obj))
                except (ValueError, KeyError, TypeError):
                    pass
        return words.plain(obj)


def at_zone(msg: dict[str, Any]) -> str:
    """" at ZONE" when the message names a zone, else nothing."""
    return " at %s" % msg["zone"] if msg.get("zone") else ""


def seat_names(board: str | None, layout: str | None) -> list[str]:
    """Seat names ("South", ...) from the firmware's board file, if it is there."""
    if not board or not layout:
        return []
    from cardtable_host.board.firmwarefiles import firmware_dir

    path = firmware_dir() / "boards" / (board + ".json")
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        names = [s.get("name", "") for s in data.get("seats", [])]
        order = data["layouts"][layout].get("seats", list(range(len(names))))
        return [names[i] if isinstance(i, int) and i < len(names) else "" for i in order]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []
