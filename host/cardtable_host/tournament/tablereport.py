"""A served board's table in a tournament: it reports as a headless table does (``mqttwire``).

`cardtable serve --tournament DIR --tournament-table N` hands this every message the board
sends. The table's status (round, game, teams, scores, dealer, hand) goes out whenever it
changes, and a finished Forty-Fives game goes out once both teams have answered at the table
(their agree or dispute buttons, a partner's tap pad, or the scorekeeper's press): the
board's journal is its record, the answers say who confirmed and who disputed. Same topics,
payloads and disk outbox as `cardtable tournament report` (``reporter.Reporter``).
"""
from __future__ import annotations

from typing import Any, Callable

from cardtable_host.tournament.reporter import Reporter

GAME = "fortyfives"  # the tournament's game: a board playing anything else is not reported


class TableReport:
    """Follows one board for its tournament table; publishes through a Reporter."""

    def __init__(self, rep: Reporter, note: Callable[..., Any] | None = None) -> None:
        self.rep = rep
        self.note = note or (lambda *_a: None)
        self.game_id: str | None = None  # the scheduled game the board is playing
        self.view: dict[str, Any] | None = None
        self.agree: list[int] | None = None  # the teams' answers to a finished game
        self.done: tuple[Any, list[str]] | None = None  # (journal number, record) awaiting answers
        self.sent: set[Any] = set()  # journal numbers already reported
        self._told_none = False

    def next_game(self) -> str | None:
        """This table's first scheduled game with no result yet (sent, held or recorded)."""
        tour = self.rep.tour
        held = set(self.rep.acked) | {k for k, _t, _p in self.rep.outbox.pending()}
        for rnd in tour.state["rounds"]:
            for g in rnd["games"]:
                if g["table"] == self.rep.table and g["id"] not in held and not tour.result_recorded(g["id"]):
                    return str(g["id"])
        return None

    def follow(self, msg: dict[str, Any]) -> None:
        """A message from the board: a state (the status, a game's end) or a team's answer."""
        kind = msg.get("type")
        if kind == "agree" and isinstance(msg.get("agree"), list):
            self.agree = list(msg["agree"])
            self._send_if_answered()
            return
        if kind != "state" or not isinstance(msg.get("view"), dict):
            return
        view = msg["view"]
        if view.get("game") != GAME:
            return
        self.view = view
        if view.get("over"):
            if isinstance(msg.get("agree"), list):
                self.agree = list(msg["agree"])
            self._send_if_answered()
            return
        self.agree = None
        if self.game_id is None:
            self.game_id = self.next_game()
            if self.game_id is None:
                if not self._told_none:
                    self.note("tournament: table %d has no game left in the schedule: not reported"
                              % self.rep.table, "red")
                    self._told_none = True
                return
        g = self.rep.tour.game(self.game_id)
        status = {"table": self.rep.table, "state": "playing", "round": g["round"], "game": self.game_id,
                  "teams": [self.rep.tour.team_name(t) for t in g["teams"]],
                  "scores": list(view.get("team_scores") or [0, 0]), "dealer": view.get("dealer"),
                  "hand": view.get("hand_no")}
        if status != self.rep.status:
            self.rep.status = status
            self.rep._publish_status()

    def director_call(self, seat: int, who: str) -> None:
        """A seat's page called the director: the call goes to the director's page, with the
        player's name from the schedule where the table's game is known."""
        name = who
        game = self.game_id or self.next_game()  # (before the first deal: the game to be played)
        if game is not None:
            players = self.rep.tour.seat_players(self.rep.tour.game(game))
            name = players[seat] if 0 <= seat < len(players) else who
        self.rep.call_director(seat, name, game)

    def finished(self, number: Any, lines: list[str]) -> None:
        """The board's journal of the game that just ended (serve archives it too)."""
        if number not in self.sent:
            self.done = (number, list(lines))
            self._send_if_answered()

    def _send_if_answered(self) -> None:
        a = self.agree
        if self.done is None or self.game_id is None or self.view is None or not a or not all(a):
            return
        number, lines = self.done
        scores = list(self.view.get("team_scores") or [0, 0])
        p = self.rep.finish(self.game_id, lines, scores, answers=a)
        self.sent.add(number)
        self.done = None
        self.game_id = None
        how = "confirmed by both teams" if not p["disputed_by"] else "disputed by %s" % p["disputed_by"]
        self.note("tournament: round %d, table %d: %s %d, %s %d sent to the director (%s)" % (
            p["round"], p["table"], p["teams"][0], scores[0], p["teams"][1], scores[1], how), "green")
