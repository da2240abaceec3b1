"""The tempo of a game: each action's time since its seat's turn began, from the record's times
(the header's "times", kept by `cardtable serve`'s archive), per seat and per hand: how many, the
median, the slowest and a histogram. `cardtable referee --tempo`, the archive and the live page
all take their figures from here."""
from __future__ import annotations

import json
from typing import Any

from cardtable import record

BINS = (2000, 5000, 10000, 30000, 60000)  # ms: the histogram's edges
BIN_WORDS = ("under 2 s", "2-5 s", "5-10 s", "10-30 s", "30-60 s", "60 s or more")


def thinks(lines: list[str]) -> list[dict[str, Any]] | None:
    """Each action of a seat: its line, seat, hand and ms since the seat's turn began; None if
    the record keeps no times. A seat's turn begins with the action after which it is to act."""
    head = json.loads(lines[0])
    times = head.get("times")
    if not isinstance(times, list):
        return None
    g = record.game_from_header(dict(head), 1)
    began: dict[int, int] = {}
    hand = 0
    out = []
    for i, text in enumerate(lines[1:]):
        if not text.strip():
            continue
        obj = json.loads(text)
        obj.pop("seq", None)
        t = times[i] if i < len(times) else None
        if obj.get("act") == "undo":  # the journal's undo line: the game goes back one action
            try:
                g.undo()
            except ValueError:
                continue
            began = {s: t for s in g.turn if isinstance(t, int)}
            continue
        try:
            action = record.decode(g, obj, i + 2)
            reason = g.check(action)
        except record.RecordError:
            continue
        if reason:
            continue  # refused at the table: it took no time of the game
        if action[1] == "deal":
            hand += 1
        seat = action[0]
        if seat is not None and isinstance(t, int) and seat in began:
            out.append({"line": i + 2, "seat": seat, "hand": max(hand, 1), "ms": t - began[seat]})
        g.apply(action)
        for s in list(began):
            if s not in g.turn:
                del began[s]
        for s in g.turn:
            if s not in began and isinstance(t, int):
                began[s] = t
            elif s == seat and isinstance(t, int):
                began[s] = t  # acting again at once (e.g. a lead after winning): a new turn
    return out


def summary(ms: list[int]) -> dict[str, Any]:
    """How many, the median, the slowest (ms) and the histogram (counts per BIN_WORDS)."""
    xs = sorted(ms)
    n = len(xs)
    median = None if not n else (xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) // 2)
    hist = [0] * (len(BINS) + 1)
    for x in xs:
        k = 0
        while k < len(BINS) and x >= BINS[k]:
            k += 1
        hist[k] += 1
    return {"actions": n, "median_ms": median, "slowest_ms": xs[-1] if n else None, "histogram": hist}


def figures(lines: list[str]) -> dict[str, Any] | None:
    """The tempo of a record per seat and per hand, or None if it keeps no times."""
    rows = thinks(lines)
    if rows is None:
        return None
    seats = sorted({r["seat"] for r in rows})
    hands = sorted({r["hand"] for r in rows})
    return {"bins": list(BIN_WORDS),
            "seats": [dict(summary([r["ms"] for r in rows if r["seat"] == s]), seat=s) for s in seats],
            "hands": [dict(summary([r["ms"] for r in rows if r["hand"] == h]), hand=h) for h in hands]}


def seconds(ms: float | None) -> str:
    """Tenths of a second, half up, as the page's tempo.js rounds them ("%.1f" and JavaScript's
    toFixed disagree on 1250 and 1150 ms)."""
    return "-" if ms is None else "%.1f s" % ((ms + 50) // 100 / 10)


def text(fig: dict[str, Any], names: list[str] | None = None) -> list[str]:
    """The figures as lines for a terminal: per seat, then per hand."""
    def who(s: int) -> str:
        return names[s] if names and s < len(names) and names[s] else "seat %d" % s

    out = ["tempo: time from the start of a seat's turn to its action (median, slowest; how many took)"]
    for row in fig["seats"]:
        out.append("  %-10s %3d actions  median %7s  slowest %7s  %s" % (
            who(row["seat"]), row["actions"], seconds(row["median_ms"]), seconds(row["slowest_ms"]),
            histogram_words(row["histogram"])))
    for row in fig["hands"]:
        out.append("  hand %-5d %3d actions  median %7s  slowest %7s  %s" % (
            row["hand"], row["actions"], seconds(row["median_ms"]), seconds(row["slowest_ms"]),
            histogram_words(row["histogram"])))
    return out


def histogram_words(hist: list[int]) -> str:
    """'under 2 s: 12, 2-5 s: 3' (the bins with actions)."""
    return ", ".join("%s: %d" % (BIN_WORDS[k], n) for k, n in enumerate(hist) if n)
