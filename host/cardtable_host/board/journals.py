"""The board's game journals as game records: choosing, saving and summing them up (`cardtable pull`)."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from cardtable import record

from cardtable_host.errors import CardtableError, UsageError

if TYPE_CHECKING:
    from cardtable_host.board.link import Link


def file_name(number: int, header: dict[str, Any]) -> str:
    """The record's file name: NNNN-GAME.jsonl after the board's game number."""
    game = str(header.get("game", "game")).replace("/", "_")
    return "%04d-%s.jsonl" % (number, game)


def save(directory: str, name: str, lines: list[str]) -> tuple[str, str]:
    """Write a record; (path, what happened: new, updated, unchanged, kept-both)."""
    text = "".join(line + "\n" for line in lines)
    path = os.path.join(directory, name)
    status = "new"
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            old = f.read()
        if old == text:
            return path, "unchanged"
        if text.startswith(old):
            status = "updated"
        else:
            stem = name[:-len(".jsonl")]
            k = 1
            while True:
                path = os.path.join(directory, "%s.%d.jsonl" % (stem, k))
                if not os.path.exists(path):
                    break
                with open(path, encoding="utf-8") as f:
                    if f.read() == text:
                        return path, "unchanged"
                k += 1
            status = "kept-both"
    tmp = path + ".part"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
    return path, status


def check(lines: list[str]) -> str | None:
    """None if the record reads back cleanly, else what is wrong (with the line number)."""
    try:
        record.load(lines)
    except record.RecordError as e:
        return str(e)
    return None


def summary(lines: list[str]) -> dict[str, Any]:
    """A journal's game, actions and whether it is over (replayed as the referee does)."""
    from cardtable import referee as rules_referee

    try:
        game, actions = record.load(lines)
    except record.RecordError as e:
        return {"game": None, "actions": None, "over": None, "damaged": str(e)}
    steps = list(rules_referee.replay(game, actions))
    verdict = rules_referee.verdict(game, steps)
    return {"game": verdict.get("game"), "actions": len(actions), "over": bool(verdict.get("over"))}


def check_out(directory: str, make: bool = False) -> None:
    """Refuse an output folder that cannot be used (before the board is touched); make: make it."""
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise UsageError("-o %s: that is a file, not a folder; name a folder for the records" % directory)
    there = os.path.abspath(directory)
    while not os.path.exists(there):
        there = os.path.dirname(there)
    if not os.path.isdir(there):
        raise UsageError("-o %s: cannot make the folder: %s is a file" % (directory, there))
    if not os.access(there, os.W_OK | os.X_OK):
        raise UsageError("-o %s: cannot write in %s (permission denied)" % (directory, there))
    if make:
        try:
            os.makedirs(directory, exist_ok=True)
        except OSError as e:
            raise UsageError("-o %s: cannot make the folder: %s" % (directory, e.strerror)) from None


def chosen(link: Link, current: bool, numbers: list[int] | None) -> list[dict[str, Any]]:
    """The board's kept games: only the current one, or only those numbers (no such game: refused)."""
    kept = link.games()
    if current:
        kept = [g for g in kept if g.get("current")]
    if numbers:
        missing = [n for n in numbers if n not in [g["number"] for g in kept]]
        if missing:
            raise UsageError("the board has no game %s (it keeps %s)" % (
                ", ".join(map(str, missing)), ", ".join(str(g["number"]) for g in link.games()) or "none"))
        kept = [g for g in kept if g["number"] in numbers]
    return kept


def listed(link: Link, g: dict[str, Any]) -> dict[str, Any]:
    """A kept game as `--list` shows it: the board's entry and its journal's summary."""
    entry = dict(g)
    entry.update(summary(link.log(g["number"], timeout=120)))
    return entry


def pull_game(link: Link, g: dict[str, Any], directory: str) -> tuple[dict[str, Any], list[str]]:
    """Download one kept game into directory: its entry (or its error) and its lines."""
    from cardtable_host.board.link import LinkError

    n = g["number"]
    try:
        lines = link.log(n, timeout=120)
    except LinkError as e:
        return {"number": n, "error": str(e)}, []
    try:
        header = record.parse_line(lines[0], 1) if lines else {}
    except record.RecordError:
        header = {}
    try:
        path, what = save(directory, file_name(n, header), lines)
    except OSError as e:
        raise CardtableError("cannot write game %d into %s: %s" % (n, directory, e.strerror)) from None
    told = summary(lines)
    entry = {"number": n, "game": header.get("game"), "file": path, "lines": len(lines),
             "current": bool(g.get("current")), "status": what, "over": told.get("over")}
    if told.get("damaged"):
        entry["damaged"] = told["damaged"]
    return entry, lines
