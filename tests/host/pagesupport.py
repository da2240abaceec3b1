"""A table for the page tests without a board: the real Hub and web app, fed the messages a
board sends (hello, event, state, verdict) from the rules engine playing a seeded game."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from cardtable import games, record
from cardtable.rng import Random

from cardtable_host.serve.archive import Archive
from cardtable_host.serve.hub import Hub
from cardtable_host.serve.web import Server, make_app

# What a person should never read on a page: a program's literals.
LITERALS = re.compile(r"[\[\]{}]|\bNone\b|\btrue\b|\bfalse\b|\bnull\b|\bundefined\b|\bNaN\b|"
                      r"\d{4}-\d\d-\d\dT\d\d:\d\d|"
                      r"(?:10|[2-9AJQKCDHS\u2660-\u2667])#\d")  # a Nerts card's deck mark, as the record writes it
SEAT_NUMBER = re.compile(r"\bseats? \d")


class FakeBoard:
    """A game played by the rules engine, its messages fed to a Hub as a board's would be."""

    def __init__(self, hub: Hub, game: str, seats: int | None = None, seed: int = 1) -> None:
        self.hub = hub
        self.g = games.load(game, seats=seats)
        self.rng = Random(seed)
        self.seq = 0
        hub.feed({"type": "hello", "fw": "test", "proto": 1, "board": hub.board, "layout": hub.layout,
                  "game": record.header(self.g), "seq": 0})
        self.state()

    def state(self) -> None:
        self.hub.feed({"type": "state", "seq": self.seq, "view": self.g.view(None)})

    def act(self, action: tuple) -> list[dict[str, Any]]:
        """Apply an action as the table would, telling the hub its event and the new state."""
        obj = record.encode(self.g, action)
        events = self.g.apply(action)
        self.seq += 1
        self.hub.feed({"type": "event", "seq": self.seq, "action": self.g.public(obj),
                       "events": events, "from": "zone s%s" % obj.get("seat", "")})
        self.state()
        return events

    def step(self) -> list[dict[str, Any]]:
        return self.act(self.g.bot_action(self.rng))

    def refuse(self, seat: int, card: str, reason: str) -> None:
        """The table refused a card seat laid (it is taken back)."""
        self.hub.feed({"type": "verdict", "seat": seat, "action": {"act": "play", "seat": seat, "card": card},
                       "reason": reason, "from": "zone s%d" % seat})

    def fault(self, kind: str, zone: str | None, msg: str, cleared: bool = False) -> None:
        """A fault the board reports (a reader down, a tag it does not know, ...)."""
        self.hub.feed({"type": "fault", "kind": kind, "zone": zone, "msg": msg, "cleared": cleared})

    def until(self, pred: Any, limit: int = 5000) -> None:
        for _ in range(limit):
            if pred():
                return
            self.step()
        raise AssertionError("the game never got there")

    def finish(self) -> None:
        self.until(lambda: self.g.over, 20000)


class PageServer:
    """The web app of one table on a free port, with its Hub and Archive."""

    def __init__(self, tmp: Path, players: list[str] | None = None, table: str = "Club night",
                 driver: Any = None, board: tuple[str, str] | None = None) -> None:
        self.driver = driver  # a browser to take off the page first (its socket would hold the server)
        self.hub = Hub(table=table, players=players or [], board=board and board[0], layout=board and board[1])
        drawn = None
        if board is not None:  # the board's wiring drawing, as serve draws it
            from cardtable_host.draw import drawings
            for d in drawings.load_boards(drawings.BOARDS_DIR):
                if d.name == board[0] and board[1] in d.board.layouts:
                    drawn = (drawings.layout_svg(d, board[1]), drawings.zone_boxes(d, board[1]))
        self.archive = Archive(tmp / "archive")
        self.server = Server(make_app(self.hub, self.archive, "s" * 32, None, lambda: drawn), "127.0.0.1", 0)
        self.url = self.server.start()

    def __enter__(self) -> "PageServer":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.driver is not None:
            self.driver.get("about:blank")
        self.server.stop()
