"""`cardtable pull`: download the board's game journals as game records for `cardtable referee`."""
from __future__ import annotations

import argparse
import json
import os
from typing import Any

from cardtable import record

from cardtable_host.board import boardfind
from cardtable_host.errors import FAILED, USAGE, CardtableError, UsageError
from cardtable_host.term import paint

DESCRIPTION = """\
Downloads the games the board keeps (its journal: every accepted action, as it happened,
with a sequence number and a checksum per line) into a folder, one file per game named
NNNN-GAME.jsonl after the board's game number. The files are game records exactly as the
board wrote them: `cardtable referee FILE` replays and judges them as they are.

Pulling again updates files whose game went on (the new lines are added) and leaves
finished ones alone. A file that holds a different game under the same number (a board
whose journals were wiped) is never overwritten: the new one is saved beside it.
`--list` names each game and says whether it is over (it reads every journal).
Exit status: 0 pulled (or listed), 1 a journal could not be read or has damaged lines, or
the board stopped answering, 2 no board, the port in use by another program, the board does
not answer, no such game, or an output folder that cannot be written; 130 Ctrl-C.

example:  cardtable pull -o games/
          cardtable pull --current -o games/ && cardtable referee games/0003-fortyfives.jsonl
          cardtable pull --json -o games/ | jq '.games[].file'
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    boardfind.add_port_argument(p)
    p.add_argument("-o", "--out", default="games", metavar="DIR",
                   help="folder to write the records into (default: ./games)")
    p.add_argument("--game", type=int, action="append", metavar="N",
                   help="only game number N (repeatable; numbers as `--list` shows them)")
    p.add_argument("--current", action="store_true", help="only the game being played")
    p.add_argument("--list", action="store_true", help="list the board's games, download nothing")
    p.add_argument("--json", action="store_true", help="print one JSON object for programs")


def file_name(number: int, header: dict[str, Any]) -> str:
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


def run(args: argparse.Namespace) -> int:
    from cardtable_host.board.link import LinkError

    out: dict[str, Any] = {"ok": False}
    if not args.list:
        check_out(args.out)
    link = boardfind.open_link("pull", args.port)
    out["port"] = link.port
    status = 0
    try:
        hello = link.hello()
        out["board"] = hello.get("board")
        kept = link.games()
        if args.current:
            kept = [g for g in kept if g.get("current")]
        if args.game:
            missing = [n for n in args.game if n not in [g["number"] for g in kept]]
            if missing:
                raise UsageError("the board has no game %s (it keeps %s)" % (
                    ", ".join(map(str, missing)), ", ".join(str(g["number"]) for g in link.games()) or "none"))
            kept = [g for g in kept if g["number"] in args.game]
        if args.list:
            listed = []
            for g in kept:
                entry = dict(g)
                entry.update(summary(link.log(g["number"], timeout=120)))
                listed.append(entry)
                if not args.json:
                    state = "(damaged: %s)" % entry["damaged"] if entry.get("damaged") else (
                        "(being played)" if g.get("current") and not entry["over"] else
                        "(over)" if entry["over"] else "(not over)")
                    print("%4d  %-18s %5s actions %7d bytes  %s" % (
                        g["number"], entry["game"] or "?", entry["actions"] if entry["actions"] is not None else "?",
                        g["bytes"], state))
            out["games"] = listed
            if not kept and not args.json:
                print("the board keeps no games yet")
            out["ok"] = True
            return 0
        check_out(args.out, make=True)
        results = []
        unread = []  # games whose journal could not be read: said once, after the others
        for g in kept:
            n = g["number"]
            try:
                lines = link.log(n, timeout=120)
            except LinkError as e:
                results.append({"number": n, "error": str(e)})
                unread.append("game %d: could not read its journal: %s" % (n, e))
                continue
            try:
                header = record.parse_line(lines[0], 1) if lines else {}
            except record.RecordError:
                header = {}
            try:
                path, what = save(args.out, file_name(n, header), lines)
            except OSError as e:
                raise CardtableError("cannot write game %d into %s: %s" % (n, args.out, e.strerror)) from None
            told = summary(lines)
            problem = told.get("damaged")
            entry = {"number": n, "game": header.get("game"), "file": path, "lines": len(lines),
                     "current": bool(g.get("current")), "status": what, "over": told.get("over")}
            if problem:
                entry["damaged"] = problem
                status = 1
            results.append(entry)
            if not args.json:
                note = ("" if problem else " (over)" if told.get("over") else
                        " (being played)" if g.get("current") else " (not over)")
                line = "%-28s %4d lines, %s%s" % (path, len(lines), what, note)
                print(paint(line + ": " + problem, "red") if problem else line)
        out["games"] = results
        out["ok"] = status == 0
        if not args.json and results:
            last = [r for r in results if "file" in r]
            if last:
                print("judge one with:  cardtable referee %s" % last[-1]["file"])
        if not kept and not args.json:
            print("the board keeps no games yet")
        if unread:
            out["ok"] = False
            raise CardtableError("; ".join(unread))
    except LinkError as e:
        out["error"] = "%s (is the table running? `cardtable doctor` looks)" % e
        raise CardtableError(out["error"], USAGE if "board" not in out else FAILED, reported=True) from None
    except CardtableError as e:
        out["error"] = str(e)
        e.reported = True  # the JSON below says it
        raise
    finally:
        link.close()
        if args.json:
            print(json.dumps(out))
    return status
