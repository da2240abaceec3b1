"""`cardtable referee RECORD`: replay a game record and say what a referee would."""
from __future__ import annotations

import argparse
import codecs
import json
import sys

from cardtable import record
from cardtable import referee as rules_referee

from cardtable_host.narrate import action_text, event_text
from cardtable_host.term import paint

HELP = "judge a game record: every action legal? who won each trick? the scores"
DESCRIPTION = """\
Replay a game record (JSON Lines: a header, then one action per line; the journal that
`cardtable pull` downloads, a simulator's output or a hand-written file) and judge it.
A rejected action is not applied - at the table the player takes the card back - and
refereeing goes on. The record is UTF-8 (with or without a byte-order mark) or UTF-16
with its mark. Exit status: 0 all legal, 1 something was rejected or a revoke was proven,
2 the record cannot be read or is malformed (the message names the line), 130 Ctrl-C.

example:  cardtable referee game.jsonl
          cardtable referee --json game.jsonl | jq .scores
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("record", help="the record file, or - for standard input")
    p.add_argument("--json", action="store_true", help="print one JSON object for programs")
    p.add_argument("--quiet", "-q", action="store_true", help="only the verdict, not every line")


def text_lines(data: bytes) -> list[str]:
    """A record's lines: UTF-8 (a byte-order mark is skipped) or UTF-16 with its mark, as
    Windows editors save it; RecordError naming the line where the bytes are not text."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16").splitlines()
        except UnicodeDecodeError as e:
            raise record.RecordError(data[:e.start].decode("utf-16", "replace").count("\n") + 1,
                                     "not UTF-16 text: the file is damaged") from None
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError as e:
        raise record.RecordError(data.count(b"\n", 0, e.start) + 1,
                                 "byte %d is not UTF-8 text: save the record as UTF-8" % (e.start + 1)) from None


def run(args: argparse.Namespace) -> int:
    try:
        if args.record == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(args.record, "rb") as f:
                data = f.read()
        lines = text_lines(data)
        game, actions = record.load(lines)
    except OSError as e:
        print("cardtable referee: cannot read %s: %s" % (args.record, e.strerror), file=sys.stderr)
        return 2
    except record.RecordError as e:
        if args.json:
            print(json.dumps({"ok": False, "error": str(e), "line": e.line}))
        print("cardtable referee: %s: %s" % (args.record, e), file=sys.stderr)
        return 2
    steps = []
    for step in rules_referee.replay(game, actions):
        steps.append(step)
        if not args.json and not args.quiet:
            _print_step(game, *step)
    result = rules_referee.verdict(game, steps)
    if args.json:
        print(json.dumps(result))
    else:
        _print_summary(result)
    return 0 if result["ok"] else 1


def _print_step(game, lineno: int, action: tuple, reason: str | None, events) -> None:
    head = "line %3d  %s" % (lineno, action_text(game, action))
    if reason:
        print(head + "  " + paint("REJECTED: " + reason, "red"))
        return
    print(head)
    for ev in events:
        text = event_text(ev)
        if text:
            colour = "red" if ev.get("ev") == "revoke" else "cyan"
            print("          " + paint(text, colour))


def _print_summary(r: dict) -> None:
    print()
    print("%s: %s" % (r["game"], paint("all legal", "green") if r["ok"] else
                      paint("%d rejected, %d revokes" % (len(r["rejected"]), len(r["revokes"])), "red")))
    for rej in r["rejected"]:
        print("  line %d, seat %s: %s" % (rej["line"], rej["seat"], rej["reason"]))
    for rv in r["revokes"]:
        print("  line %d: seat %s revoked in trick %s of hand %s" % (rv["line"], rv["seat"], rv["trick"], rv["hand"]))
    for d in r.get("displaced", ()):
        print("  line %d: an earlier play took back a slot: %s" % (d["line"], {k: v for k, v in d.items() if k not in ("ev", "line")}))
    print("scores: %s" % r["scores"])
    if r["over"]:
        print("game over: %s" % ("a draw" if r["winner"] is None else "seat %s wins" % r["winner"]))
    else:
        print("the game is not over")
