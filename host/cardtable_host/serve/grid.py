"""A game record refereed for people: each hand's trick grid, the verdict in words, the score
sheet. `cardtable referee` prints these and serve's archive pages show them: one code for both."""
from __future__ import annotations

import io
import re
from typing import Any

from cardtable import record
from cardtable import referee as rules_referee
from cardtable.games import words


CARD_CODE = re.compile(r"(?<![\w#])(10|[2-9AJQK])([CDHS])(#\d+)?(?!\w)")  # a standard card code in text
GLYPHS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}


def glyph_text(game: Any, text: str) -> str:
    """Text with a standard deck's card codes as people write them: 'Ann plays 10♥'."""
    if getattr(game, "DECK", None) != "standard":
        return text
    return CARD_CODE.sub(lambda m: m.group(1) + GLYPHS[m.group(2)] + (m.group(3) or ""), text)


class TrickLog:
    """Every trick of the record by hand: its plays (seat, card, line) and winner."""

    def __init__(self) -> None:
        self.hands: dict[int, list[dict[str, Any]]] = {}
        self.hand = 0
        self.rejected_in: dict[int, int] = {}     # rejected line -> hand

    def add(self, lineno: int, action: tuple, reason: str | None, events: Any) -> None:
        """Take in one step of a replay."""
        if reason:
            self.rejected_in[lineno] = self.hand
        for ev in events:
            kind = ev.get("ev")
            if kind == "deal":
                self.hand = ev.get("hand", self.hand + 1)
            elif kind == "play":
                tricks = self.hands.setdefault(self.hand, [])
                if not tricks or tricks[-1]["winner"] is not None:
                    tricks.append({"plays": [], "winner": None})
                tricks[-1]["plays"].append((ev["seat"], ev["card"], lineno))
            elif kind == "trick":
                self.hands[self.hand][-1]["winner"] = ev["seat"]

    def disputed(self, result: dict[str, Any]) -> int | None:
        """The first hand with a revoke or a rejected line, if any."""
        found = [rv["hand"] for rv in result["revokes"]]
        found += [self.rejected_in[r["line"]] for r in result["rejected"]
                  if self.rejected_in.get(r["line"]) in self.hands]
        return min(found) if found else None

    def played(self, hand: int, trick: int, seat: int) -> tuple[str, int] | None:
        """(card, line) a seat played in a trick of a hand, if it did."""
        tricks = self.hands.get(hand) or []
        if not 1 <= trick <= len(tricks):
            return None
        for s, card, lineno in tricks[trick - 1]["plays"]:
            if s == seat:
                return card, lineno
        return None


def columns(game: Any) -> list[str]:
    """The grid's column heads: the players' names where the record has them, else 'seat N'."""
    return [words.who(game, s) for s in range(game.seats)]


def grid(game: Any, tricks: TrickLog, hand: int, result: dict[str, Any]) -> dict[str, Any]:
    """A hand's tricks as data: a row per trick, a cell per seat (card, line; led, won, revoked)."""
    revoked = {(rv["trick"], rv["seat"]) for rv in result["revokes"] if rv["hand"] == hand}
    rows = []
    for i, trick in enumerate(tricks.hands[hand], 1):
        cells: list[dict[str, Any] | None] = [None] * game.seats
        for k, (seat, card, lineno) in enumerate(trick["plays"]):
            cells[seat] = {"card": card, "line": lineno, "led": k == 0, "won": seat == trick["winner"],
                           "revoke": (i, seat) in revoked}
        rows.append({"trick": i, "leader": trick["plays"][0][0] if trick["plays"] else None,
                     "winner": trick["winner"], "cells": cells})
    return {"hand": hand, "columns": columns(game), "tricks": rows, "revokes": bool(revoked)}


def grid_text(game: Any, g: dict[str, Any], only: int | None, colour: bool) -> str | None:
    """The grid as the terminal table `cardtable referee` prints: > led, * won, ! revoked."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    if only is not None and not 1 <= only <= len(g["tricks"]):
        return None
    t = Table(box=box.SIMPLE, show_edge=False, pad_edge=False)
    t.add_column("trick", justify="right")
    for head in g["columns"]:
        t.add_column(head, justify="left")
    lines = []
    for row in g["tricks"]:
        if only is not None and row["trick"] != only:
            continue
        cells = []
        for seat, c in enumerate(row["cells"]):
            if c is None:
                cells.append("")
                continue
            tail = (" *" if c["won"] else "") + (" !" if c["revoke"] else "")
            cells.append((">" if c["led"] else " ") + words.show(game, c["card"]) + tail)
            lines.append("  trick %d, %s: %s at line %d" % (row["trick"], g["columns"][seat],
                                                            words.show(game, c["card"]), c["line"]))
        t.add_row(str(row["trick"]), *cells)
    out = io.StringIO()
    Console(file=out, width=120, force_terminal=colour, no_color=not colour,
            color_system="standard" if colour else None, highlight=False).print(t)
    head = "hand %d: > led, * won%s" % (g["hand"], ", ! revoked" if g["revokes"] else "")
    text = head + "\n" + out.getvalue().rstrip("\n")
    return text + ("\n" + "\n".join(lines) if only is not None else "")


def sheet_add(game: Any, sheet: list[dict[str, Any]], ev: dict[str, Any]) -> bool:
    """A scored hand (a 'hand' event) as a row of the score sheet; True if it was one."""
    if not isinstance(ev, dict) or ev.get("ev") != "hand":
        return False
    sides = list(words.sides(game))
    before = sheet[-1]["totals"] if sheet else [0] * len(sides)
    sc = ev.get("scores")
    if isinstance(sc, list) and len(sc) >= len(sides):
        totals = [sc[k] for k in sides]
    elif isinstance(ev.get("points"), list) and len(ev["points"]) >= len(sides):
        totals = [b + ev["points"][k] for b, k in zip(before, sides)]
    else:
        return False
    if not all(isinstance(x, int) for x in totals):
        return False
    sheet.append({"hand": ev.get("hand", len(sheet) + 1), "totals": totals,
                  "points": [a - b for a, b in zip(totals, before)], "note": words.sheet_note(game, ev)})
    return True


def verdict_words(game: Any, result: dict[str, Any], tricks: TrickLog) -> list[str]:
    """The referee's verdict as sentences: every rejected line, every revoke with both lines
    (where the seat broke the rule and where it is proven) and their cards."""
    out = []
    if result["ok"]:
        out.append("Every action was legal.")
    for rej in result["rejected"]:
        out.append("Line %d: %s was refused: %s." % (rej["line"], words.who(game, rej["seat"]),
                                                     words.name_seats(game, rej["reason"])))
    for rv in result["revokes"]:
        who = words.who(game, rv["seat"])
        first = tricks.played(rv["hand"], rv["trick"], rv["seat"])
        if rv.get("revoked_line") and first is not None:
            broke = "at line %d %s played %s in trick %d of hand %d without following suit" % (
                rv["revoked_line"], who, words.show(game, first[0]), rv["trick"], rv["hand"])
        else:
            broke = "%s did not follow suit in trick %d of hand %d (on a line not recorded)" % (
                who, rv["trick"], rv["hand"])
        out.append("Revoke: %s; line %d proves it: %s plays %s there, a card of the suit led." % (
            broke, rv["line"], who, words.show(game, rv["card"])))
    return out


def result_words(game: Any, result: dict[str, Any]) -> str:
    """'Ann & Cy win: Ann & Cy 120, Bob & Di 85', or how it stands if the game is not over."""
    sc = result.get("scores") or []
    order = sorted(words.sides(game), key=lambda k: -sc[k] if k < len(sc) and isinstance(sc[k], int) else 0)
    scores = ", ".join("%s %s" % (words.side(game, k), sc[k]) for k in order if k < len(sc))
    if not result.get("over"):
        return "Not finished: " + scores if scores else "Not finished"
    w = result.get("winner")
    return "%s: %s" % ("A draw" if w is None else words.side(game, w) + (" win" if game.TEAMS else " wins"),
                       scores)


class Refereed:
    """A record replayed by the referee: the game at its end, the steps, tricks, verdict, sheet."""

    def __init__(self, lines: list[str], names: list[str] | None = None) -> None:
        self.game, actions = record.load(lines)
        if names:
            self.game.names = list(names)
        self.tricks = TrickLog()
        self.sheet: list[dict[str, Any]] = []
        self.dealt: dict[int, list[list[str]]] = {}  # hand -> each seat's cards, where the deal pad read them
        self.steps = []
        for step in rules_referee.replay(self.game, actions):
            self.steps.append(step)
            self.tricks.add(*step)
            if step[1][1] == "deal" and not step[2]:
                hands = record.encode(self.game, step[1]).get("hands")
                if isinstance(hands, list) and all(isinstance(h, list) for h in hands):
                    self.dealt[self.tricks.hand] = hands
            for ev in step[3]:
                sheet_add(self.game, self.sheet, ev)
        self.result = rules_referee.verdict(self.game, self.steps)

    def grids(self) -> list[dict[str, Any]]:
        """Every hand's trick grid, in hand order."""
        return [grid(self.game, self.tricks, h, self.result) for h in sorted(self.tricks.hands)]


def header_names(head: dict[str, Any]) -> list[str]:
    """The players' names a record's header keeps (its occasion), blanks for unnamed seats."""
    players = head.get("players")
    if not isinstance(players, list):
        return []
    return [p if isinstance(p, str) else "" for p in players]
