"""`cardtable referee RECORD`: replay a game record and say what a referee would."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cardtable import record
from cardtable import referee as rules_referee
from cardtable.games import words

from cardtable_host.errors import UsageError
from cardtable_host.narrate import ScoreSheet, action_text, event_text
from cardtable_host.serve.grid import TrickLog, grid, grid_text, header_names
from cardtable_host.term import paint, style_cards, use_colour

DESCRIPTION = """\
Replay a game record (JSON Lines: a header, then one action per line; the journal that
`cardtable pull` downloads, a simulator's output or a hand-written file) and judge it.
A rejected action is not applied - at the table the player takes the card back - and
refereeing goes on. The record is UTF-8 (with or without a byte-order mark) or UTF-16
with its mark. Exit status: 0 all legal, 1 something was rejected or a revoke was proven,
2 the record cannot be read, is malformed (a key given twice in a line, too) or goes
beyond the referee's limits (8 MB, 20000 actions, 1000 rejected; the message names the
line and the limit), 130 Ctrl-C.

For a trick game it then prints the tricks of the hand in dispute (the first hand with a
rejected line or a revoke, or the hand you name) as a grid: one row per trick, one column
per seat; > marks the card that led, * the card that won, ! a revoke.

example:  cardtable referee game.jsonl
          cardtable referee game.jsonl --hand 2 --trick 4
          cardtable referee --json game.jsonl | jq .scores
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("record", help="the record file, or - for standard input")
    p.add_argument("--json", action="store_true", help="print one JSON object for programs (with --hand, "
                   "its trick grid as \"grid\": the one serve's archive shows)")
    p.add_argument("--tempo", action="store_true",
                   help="the time each seat took to act, per seat and per hand (median, slowest, a "
                        "histogram), from the record's times (kept by cardtable serve's archive)")
    p.add_argument("--quiet", "-q", action="store_true", help="only the verdict, not every line")
    p.add_argument("--hand", type=int, metavar="N",
                   help="show the tricks of hand N (default: the first hand in dispute)")
    p.add_argument("--trick", type=int, metavar="N",
                   help="show only trick N of that hand, with the line of each card")


def run(args: argparse.Namespace) -> int:
    """Judge a game record; 0 if every action in it was legal."""
    game, actions, lines = _load(args.record)
    if args.tempo:
        return _tempo(args, list(lines))
    colour = use_colour()
    if not args.json:
        style_cards(game, colour)
    result, tricks, sheet = _judge(args, game, actions)
    if args.json:
        return _json_verdict(args, game, tricks, result)
    _print_summary(game, result)
    if sheet.rows:
        print()
        print(sheet.render(colour, last=None))
    _print_grid(args, game, tricks, result, colour)
    return 0 if result["ok"] else 1


def _load(path: str) -> tuple[Any, list[Any], list[str]]:
    """The record at path (- for stdin): its game (with the header's names), actions and lines."""
    try:
        limit = rules_referee.MAX_BYTES + 1  # a byte more than the limit: it is refused
        if path == "-":
            data = sys.stdin.buffer.read(limit)
        else:
            with open(path, "rb") as f:
                data = f.read(limit)
        lines = rules_referee.text_lines(data)
        game, actions = record.load(lines)
    except OSError as e:
        raise UsageError("cannot read %s: %s" % (path, e.strerror)) from None
    except record.RecordError as e:
        raise UsageError("%s: %s" % (path, e),
                         json={"ok": False, "error": str(e), "line": e.line}) from None
    try:
        names = header_names(json.loads(lines[0]))
    except (ValueError, IndexError):
        names = []
    if any(names):
        game.names = names
    return game, actions, lines


def _judge(args: argparse.Namespace, game: Any, actions: list[Any]) -> tuple[dict[str, Any], TrickLog, ScoreSheet]:
    """Replay the actions (each printed unless --json or --quiet): the verdict, tricks and scores."""
    tricks = TrickLog()
    sheet = ScoreSheet(game)
    verdict = rules_referee.Verdict(game)
    try:
        for step in rules_referee.replay(game, actions):
            verdict.add(*step)  # first: past the referee's limits it stops here
            tricks.add(*step)
            for ev in step[3]:
                sheet.add(ev)
            if not args.json and not args.quiet:
                _print_step(game, *step)
    except record.RecordError as e:
        raise UsageError("%s: %s" % (args.record, e),
                         json={"ok": False, "error": str(e), "line": e.line}) from None
    return verdict.result(), tricks, sheet


def _json_verdict(args: argparse.Namespace, game: Any, tricks: TrickLog, result: dict[str, Any]) -> int:
    """--json: the verdict as one object (with --hand, that hand's trick grid)."""
    if args.hand is not None:
        if args.hand not in tricks.hands:
            raise UsageError("the record has no hand %d with tricks%s" % (args.hand, (
                " (hands %s)" % ", ".join(str(h) for h in sorted(tricks.hands))) if tricks.hands else ""))
        result = dict(result, grid=grid(game, tricks, args.hand, result))
    print(json.dumps(result))
    return 0 if result["ok"] else 1


def _print_grid(args: argparse.Namespace, game: Any, tricks: TrickLog, result: dict[str, Any], colour: bool) -> None:
    """The trick grid of --hand (and --trick), or of the disputed hand."""
    hand = args.hand if args.hand is not None else tricks.disputed(result)
    if (args.hand is not None or args.trick is not None) and not tricks.hands:
        raise UsageError("%s has no tricks to show" % game.ID)
    if hand is not None and tricks.hands:
        if hand not in tricks.hands:
            raise UsageError("the record has no hand %d with tricks (hands %s)"
                             % (hand, ", ".join(str(h) for h in sorted(tricks.hands))))
        text = grid_text(game, grid(game, tricks, hand, result), args.trick, colour)
        if text is None:
            raise UsageError("hand %d has no trick %d" % (hand, args.trick))
        print()
        print(text)


def _tempo(args: argparse.Namespace, lines: list[str]) -> int:
    from cardtable_host.serve import tempo

    fig = tempo.figures(lines)
    if fig is None:
        raise UsageError("%s keeps no times: cardtable serve's archive keeps them (the header's "
                         "\"times\")" % args.record, json={"ok": False, "error": "no times"})
    if args.json:
        print(json.dumps(fig))
        return 0
    names = json.loads(lines[0]).get("players")
    for line in tempo.text(fig, names if isinstance(names, list) else None):
        print(line)
    return 0


def _print_step(game, lineno: int, action: tuple, reason: str | None, events) -> None:
    head = "line %3d  %s" % (lineno, action_text(game, action))
    if reason:
        print(head + "  " + paint("REJECTED: " + reason, "red"))
        return
    print(head)
    for ev in events:
        text = event_text(ev, game)
        if text:
            colour = "red" if ev.get("ev") == "revoke" else "cyan"
            print("          " + paint(text, colour))


def _print_summary(game, r: dict) -> None:
    print()
    print("%s: %s" % (r["game"], paint("all legal", "green") if r["ok"] else
                      paint("%d rejected, %s" % (len(r["rejected"]), _count(len(r["revokes"]), "revoke")),
                            "red")))
    for rej in r["rejected"]:
        print("  line %d, seat %s: %s" % (rej["line"], rej["seat"], rej["reason"]))
    for rv in r["revokes"]:
        at = "line %d" % rv["revoked_line"] if rv.get("revoked_line") else "an unrecorded line"
        print("  %s: seat %s revoked in trick %s of hand %s; line %d proves it: the seat plays "
              "%s there" % (at, rv["seat"], rv["trick"], rv["hand"], rv["line"],
                            words.show(game, rv["card"])))
    for d in r.get("displaced", ()):
        print("  line %d: %s" % (d["line"], game.describe(d)))
    print("scores: %s" % game.score_words(r["scores"]))
    if r["over"]:
        w = r["winner"]
        print("game over: %s" % ("a draw" if w is None else
                                 game.side(w) + (" win" if game.TEAMS else " wins")))
    else:
        print("the game is not over")


def _count(n: int, noun: str) -> str:
    """'1 revoke', '2 revokes'."""
    return "%d %s%s" % (n, noun, "" if n == 1 else "s")
