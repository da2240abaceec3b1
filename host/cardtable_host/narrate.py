"""Words for actions and events, shared by `referee`, `demo` and `monitor`: each game says its own."""
from __future__ import annotations

import io
from typing import Any

from cardtable import record
from cardtable.games import words


def action_text(game: Any, action: tuple) -> str:
    """A short sentence for an action, e.g. 'seat 1 plays 10H'."""
    return game.action_words(record.encode(game, action))


def event_text(ev: dict, game: Any = None) -> str | None:
    """A short sentence for an event, or None for events the action text already says."""
    if game is not None:
        return game.describe(ev)
    kind = ev.get("ev")
    if kind in ("play", "bid", "pass"):
        return None
    rest = ", ".join("%s %s" % (k, " ".join(str(x) for x in v) if isinstance(v, list) else v)
                     for k, v in ev.items() if k != "ev" and v is not None
                     and not isinstance(v, dict))
    return "%s: %s" % (kind, rest) if rest else str(kind)


def source_words(src: str, buttons: dict[str, str]) -> str:
    """Where an action came from, a button named by what it does: 'button k4' -> 'pass button'."""
    kind, _, name = src.partition(" ")
    if kind == "button" and name in buttons:
        return "%s button" % buttons[name]
    return src


def result_text(game) -> str:
    """Who won, in words: 'seat 1 wins', 'seats 1 & 3 win', 'a draw'."""
    w = game.winner
    if w is None:
        return "a draw" if game.over else "not over yet"
    return game.side(w) + (" win" if game.TEAMS else " wins")


class ScoreSheet:
    """The score sheet a scorekeeper keeps: per hand, each side's points and running total."""

    def __init__(self, game: Any) -> None:
        self.game = game
        self.sides = list(words.sides(game))
        self.rows: list[tuple[int, list[int], list[int]]] = []
        self.totals = [0] * len(self.sides)

    def add(self, ev: dict) -> bool:
        """Take a hand's result event; True if it was one (a row was added)."""
        if ev.get("ev") != "hand":
            return False
        totals = [ev["scores"][n] for n in self.sides]
        self.rows.append((ev["hand"], [t - b for t, b in zip(totals, self.totals)], totals))
        self.totals = totals
        return True

    def render(self, colour: bool = False, last: int | None = 1) -> str:
        """The sheet as a table: the last `last` hands (None: every hand) and the totals."""
        from rich import box
        from rich.console import Console
        from rich.table import Table

        t = Table(box=box.SIMPLE, show_edge=False, pad_edge=False, show_footer=True)
        t.add_column("hand", justify="right", footer="total")
        for n, total in zip(self.sides, self.totals):
            t.add_column(self.game.side(n), justify="right", footer=str(total))
        rows = self.rows if last is None else self.rows[-last:]
        for hand, points, _ in rows:
            t.add_row(str(hand), *("%+d" % p for p in points))
        out = io.StringIO()
        Console(file=out, width=120, force_terminal=colour, no_color=not colour,
                color_system="standard" if colour else None, highlight=False).print(t)
        return out.getvalue().rstrip("\n")
