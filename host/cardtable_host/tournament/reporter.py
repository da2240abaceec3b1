"""A headless table reporter: referees its table's games and publishes them (``mqttwire``).

The games are played by bots on the rules engine itself (the same rules the board runs, the
same records); a result waits in an outbox on disk until the director acknowledges it, so a
table that loses the broker keeps playing and delivers when the broker is back.
"""
from __future__ import annotations

import json
import logging
import threading
import time
from pathlib import Path
from typing import Any, Callable

from cardtable import games, record
from cardtable.rng import Random

from cardtable_host.tournament import mqttwire
from cardtable_host.tournament.broker import table_user
from cardtable_host.tournament.tourney import Tournament

# confirm(game, team name, scores) -> True to confirm, False to dispute
Confirm = Callable[[dict[str, Any], str, list[int]], bool]

_log = logging.getLogger("cardtable.tournament")


def bots_agree(_game: dict[str, Any], _team: str, _scores: list[int]) -> bool:
    return True


def bot_game(seed: int, acted: Callable[[Any, list[dict[str, Any]]], None] | None = None
             ) -> tuple[list[str], list[int]]:
    """A game of Forty-Fives played by bots on the rules engine: its record and the scores
    (acted(game, events) after each action)."""
    game = games.load("fortyfives", seats=4, dealer=0)
    rng = Random(seed)
    while not game.over:
        events = game.apply(game.bot_action(rng))
        if acted is not None:
            acted(game, events)
    return record.dump(game), [game.score[0], game.score[1]]


class Reporter:
    """One table: plays (or is told) its games, publishes status and results."""

    def __init__(self, tour: Tournament, table: int, host: str, port: int, password: str,
                 outbox: Path | None = None, confirm: Confirm = bots_agree, pace: float = 0.0) -> None:
        self.tour = tour
        self.table = table
        self.host, self.port, self.password = host, port, password
        self.confirm = confirm
        self.pace = pace
        self.outbox = mqttwire.Outbox(outbox or tour.dir / "outbox" / ("table%d" % table))
        self.status: dict[str, Any] = {"table": table, "state": "idle"}
        self.acked: set[str] = set()
        self.online = False
        self.unsent_call: dict[str, Any] | None = None  # a call for the director made while offline
        self.c = self._client()
        self._stop = threading.Event()
        self._resender = threading.Thread(target=self._resend_loop, daemon=True)

    def _client(self) -> Any:
        c = mqttwire.client("cardtable-%s-table%d" % (self.tour.id, self.table), table_user(self.table),
                            self.password, will=(self.topic("status"), {"table": self.table, "state": "offline"}))
        c.on_message = self._on_message
        return c

    def topic(self, kind: str) -> str:
        return mqttwire.topic(self.tour.id, "table", self.table, kind)

    # -- the connection -------------------------------------------------------------------

    def start(self) -> "Reporter":
        self.go_online()
        self._resender.start()
        return self

    def go_online(self) -> None:
        mqttwire.connect(self.c, self.host, self.port, on_up=self._on_up)
        self.online = True

    def go_offline(self) -> None:
        """Drop the connection, as a table whose network fails (it goes on refereeing)."""
        self.online = False
        self.c.disconnect()
        self.c.loop_stop()
        self.c = self._client()

    def stop(self) -> None:
        self._stop.set()
        if self.online:
            self.c.publish(self.topic("status"), json.dumps(dict(self.status, state="idle")), qos=1, retain=True)
            self.c.disconnect()
            self.c.loop_stop()

    def _on_up(self) -> None:
        _log.info("table %d is connected to the broker", self.table)
        self.c.subscribe(mqttwire.topic(self.tour.id, "director", "ack", self.table), 1)
        self._publish_status()
        self.flush()
        call, self.unsent_call = self.unsent_call, None
        if call is not None:
            self._publish_call(call)

    def _on_message(self, _c: Any, _u: Any, msg: Any) -> None:
        try:
            games_ = json.loads(msg.payload.decode("utf-8")).get("games", [])
        except (ValueError, AttributeError):
            return
        self.acked.update(games_)
        self.outbox.done([g for g in games_])

    def _publish_status(self) -> None:
        if self.online:
            self.c.publish(self.topic("status"), json.dumps(dict(self.status, t=time.time())), qos=1, retain=True)

    def call_director(self, seat: int, who: str, game: str | None) -> None:
        """A player at this table calls the director (retained until the director clears it)."""
        call = {"table": self.table, "seat": seat, "who": who[:mqttwire.NAME_CHARS], "game": game, "t": time.time()}
        if self.online and self.c.is_connected():
            self._publish_call(call)
        else:
            self.unsent_call = call  # sent on the next connection

    def _publish_call(self, call: dict[str, Any]) -> None:
        self.c.publish(self.topic("call"), json.dumps(call), qos=1, retain=True)

    def flush(self) -> None:
        """Publish every result the director has not acknowledged yet."""
        if not self.online:
            return
        for key, top, payload in self.outbox.pending():
            if key in self.acked:
                self.outbox.done([key])
            else:
                self.c.publish(top, json.dumps(payload), qos=1)

    def _resend_loop(self) -> None:
        while not self._stop.wait(1.0):
            if self.online and self.c.is_connected():
                self.flush()

    def pending(self) -> int:
        return len(self.outbox.pending())

    # -- games --------------------------------------------------------------------------

    def play(self, game_id: str, seed: int) -> dict[str, Any]:
        """Play a scheduled game with bots on the rules engine; report it; the result payload."""
        g = self.tour.game(game_id)
        names = [self.tour.team_name(t) for t in g["teams"]]
        self.status = {"table": self.table, "state": "playing", "round": g["round"], "game": game_id,
                       "teams": names, "scores": [0, 0], "dealer": 0, "hand": 1}
        self._publish_status()

        def acted(game: Any, events: list[dict[str, Any]]) -> None:
            for ev in events:
                if ev.get("ev") == "hand":
                    self.status.update(scores=[game.score[0], game.score[1]], dealer=game.dealer,
                                       hand=ev["hand"] + 1)
                    self._publish_status()
            if self.pace:
                time.sleep(self.pace)

        lines, scores = bot_game(seed, acted)
        return self.finish(game_id, lines, scores)

    def finish(self, game_id: str, lines: list[str], scores: list[int],
               answers: list[int] | None = None) -> dict[str, Any]:
        """Send a finished game's result (kept until acked), with both teams' answers: as the
        table gave them (answers: per team 1 agreed, 2 disputed, the board's ``agree``), else
        asked here (self.confirm)."""
        g = self.tour.game(game_id)
        names = [self.tour.team_name(t) for t in g["teams"]]
        # the header names the game the record is for: no other game can count it
        lines = mqttwire.stamp(lines, mqttwire.game_label(self.table, g["round"], game_id), self.tour.seat_players(g))
        confirmed, disputed = [], None
        for i, name in enumerate(names):
            if (answers[i] == 1) if answers is not None else self.confirm(g, name, scores):
                confirmed.append(name)
            elif disputed is None:
                disputed = name
        payload = {"game": game_id, "table": self.table, "round": g["round"], "teams": names,
                   "scores": scores, "winner": names[0] if scores[0] > scores[1] else names[1],
                   "record": lines, "hash": mqttwire.record_hash(lines), "confirmed": confirmed,
                   "disputed_by": disputed, "ended": time.time()}
        self.outbox.put(game_id, self.topic("result"), payload)
        _log.info("result of %s sent: %s %d, %s %d%s", game_id, names[0], scores[0], names[1], scores[1],
                  "; disputed by %s" % disputed if disputed else "")
        self.status.update(state="finished", scores=scores)
        self._publish_status()
        self.flush()
        return payload
