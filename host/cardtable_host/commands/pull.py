"""`cardtable pull`: download the board's game journals as game records for `cardtable referee`."""
from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from cardtable_host.board import boardfind, journals
from cardtable_host.board.journals import check, check_out, save  # noqa: F401 - pull.save, pull.check as before
from cardtable_host.errors import FAILED, USAGE, CardtableError
from cardtable_host.term import paint

if TYPE_CHECKING:
    from cardtable_host.board.link import Link

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


def run(args: argparse.Namespace) -> int:
    """Pull (or list) the board's games; the JSON object at the end with --json."""
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
        kept = journals.chosen(link, args.current, args.game)
        if args.list:
            _list(link, kept, args, out)
            return 0
        check_out(args.out, make=True)
        status = _pull(link, kept, args, out)
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


def _list(link: Link, kept: list[dict[str, Any]], args: argparse.Namespace, out: dict[str, Any]) -> None:
    """`--list`: each kept game, its actions and whether it is over."""
    games = []
    for g in kept:
        entry = journals.listed(link, g)
        games.append(entry)
        if not args.json:
            state = "(damaged: %s)" % entry["damaged"] if entry.get("damaged") else (
                "(being played)" if g.get("current") and not entry["over"] else
                "(over)" if entry["over"] else "(not over)")
            print("%4d  %-18s %5s actions %7d bytes  %s" % (
                g["number"], entry["game"] or "?", entry["actions"] if entry["actions"] is not None else "?",
                g["bytes"], state))
    out["games"] = games
    if not kept and not args.json:
        print("the board keeps no games yet")
    out["ok"] = True


def _pull(link: Link, kept: list[dict[str, Any]], args: argparse.Namespace, out: dict[str, Any]) -> int:
    """Download the kept games, a line for each; 1 if one is damaged (unreadable: refused)."""
    status = 0
    results = []
    unread = []  # games whose journal could not be read: said once, after the others
    for g in kept:
        entry, lines = journals.pull_game(link, g, args.out)
        results.append(entry)
        if "error" in entry:
            unread.append("game %d: could not read its journal: %s" % (entry["number"], entry["error"]))
            continue
        problem = entry.get("damaged")
        if problem:
            status = 1
        if not args.json:
            note = ("" if problem else " (over)" if entry["over"] else
                    " (being played)" if g.get("current") else " (not over)")
            line = "%-28s %4d lines, %s%s" % (entry["file"], len(lines), entry["status"], note)
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
    return status
