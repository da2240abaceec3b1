"""`cardtable sim`: a whole table without hardware - a virtual board on a pty, bots at the seats."""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from cardtable import games, record

from cardtable_host.errors import CardtableError, UsageError, end_on_sigterm
from cardtable_host.gameids import resolve
from cardtable_host.board.link import CommandError, Link, LinkError, board_words
from cardtable_host.narrate import action_text, event_text, source_words
from cardtable_host.sim.board import BoardError, VirtualBoard
from cardtable_host.sim.rp2board import Rp2Board
from cardtable_host.sim.bots import Bots, SimError
from cardtable_host.sim.table import VirtualTable
from cardtable_host.sim.choice import IDLE_PERIOD_MS, board_kind, prepare
from cardtable_host.sim.play import play_out
from cardtable_host.sim.simprompt import People
from cardtable_host.term import paint, use_colour

DESCRIPTION = """\
Starts a virtual board - the table's firmware on real MicroPython (WebAssembly), its USB
serial on a pseudo-terminal exactly like a Pico's /dev/ttyACM0 - with emulated NFC readers
under a virtual table. The simulator deals from the seed; bots lay their cards on the
readers and type what the table has no buttons for over the serial link, and the game is
refereed on the device: every accepted play, every rejected one with its reason, tricks,
hand scores and the result. The pty's path is printed. While the simulator plays it holds
the port (one program per board: others are told "the table's port is in use by cardtable
sim, pid N"); with --keep it lets go after the game, and `cardtable monitor --port PATH`,
`cardtable pull`, `cardtable doctor` and mpremote work on the board. --port-file is removed
when the simulator ends (however it ends).
`cardtable enroll --board-port PATH --zone Z` works there too: a blank sticker lies on
zone Z for each card.

With fewer bots than seats the other seats are yours: type at the sim> prompt in a
player's words - play 10H, bid 20, pass, trump H, discard 7S 9S, press confirm - and it
says when it is your turn and what you may do (`help` lists every command).

examples:
  cardtable sim fortyfives                   # four bots, a whole game, live
  cardtable sim nexus --seed 3 --delay 0.3   # slower, to watch it
  cardtable sim nonesuch --bots 3            # you play seat 0; bots play 1..3
  cardtable sim nerts --rule target=30 --record nerts.jsonl   # then: cardtable referee nerts.jsonl
  cardtable sim california-jacks --keep --port-file board.port   # then: cardtable monitor --port "$(cat board.port)"
  cardtable sim fortyfives --board rp2       # on the emulated RP2040 running the firmware image
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", help="game id or a common alias (45s, cal-jacks): " + ", ".join(sorted(games.GAMES)))
    p.add_argument("--seed", type=int, help="shuffle and bot seed (default: one per game)")
    p.add_argument("--bots", default="all", metavar="K",
                   help="how many seats bots play: a number or 'all' (default all); people take "
                        "the first seats")
    p.add_argument("--board", help="board config (default: one per game, see firmware/boards); "
                                   "'rp2' plays on the emulated RP2040 running the firmware image "
                                   "instead of the WebAssembly board ('rp2:NAME' with board config NAME)")
    p.add_argument("--layout", help="the board's layout to play (default: the game's)")
    p.add_argument("--seats", type=int, help="players (picks a layout with that many seats)")
    p.add_argument("--deal-pad", action="store_true",
                   help="deal through the board's deal pad: the bots deal every card across it in "
                        "the game's order, so the board knows every hand and refuses a revoke at once")
    p.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                   help="a rule option (value as JSON: target=30, double_ended=true); repeatable")
    p.add_argument("--port-file", metavar="F", help="write the board's pty path to F")
    p.add_argument("--flash", metavar="DIR", help="keep the board's flash (journals, config) in DIR")
    p.add_argument("--record", metavar="FILE",
                   help="after the game, pull its journal from the board (over the link) into FILE: "
                        "a game record for `cardtable referee`")
    p.add_argument("--keep", action="store_true",
                   help="keep the board running after the game (for monitor, pull); Ctrl-C ends")
    p.add_argument("--delay", type=float, default=None,
                   help="seconds between bot actions (default 0.1 on a terminal, else 0)")
    p.add_argument("--no-mistakes", action="store_true",
                   help="bots never lay a wrong card (by default one now and then, to show verdicts)")
    p.add_argument("--json", action="store_true",
                   help="print every message of the board as a JSON line, then the result (for "
                        "programs: the board's messages, not a game record; --record FILE writes "
                        "the record `cardtable referee` reads)")
    p.add_argument("--quiet", "-q", action="store_true", help="only deals, hand scores and the result")
    p.add_argument("--verbose", "-v", action="store_true", help="also the board's own diagnostics")


class Show:
    """Prints what the board says, as a person at the table would want it told."""

    def __init__(self, as_json: bool, quiet: bool, colour: bool) -> None:
        self.json = as_json
        self.quiet = quiet
        self.colour = colour
        self.tty = sys.stdout.isatty()
        self.prompting = False  # "sim> " is on screen, waiting for the person's line
        self.buttons: dict[str, str] = {}  # button name -> what it does, to say which was pressed
        self.heard = 0  # the board's events, verdicts and faults so far

    def paint(self, text: str, colour: str) -> str:
        return paint(text, colour, self.colour)

    def line(self, text: str) -> None:
        if not self.json:
            if self.prompting:  # the board's lines never run on after the prompt
                sys.stdout.write("\r\x1b[K" if self.tty else "\n")
                self.prompting = False
            print(text, flush=True)

    def obj(self, obj: dict[str, Any]) -> None:
        if self.json:
            print(json.dumps(obj), flush=True)

    def message(self, msg: dict[str, Any], shadow: Any) -> None:
        if msg.get("type") in ("event", "verdict", "fault"):
            self.heard += 1  # the table answered something (the prompt tells a play it ignored)
        self.obj(msg if "_shadow_action" not in msg else {k: v for k, v in msg.items() if k != "_shadow_action"})
        if self.json:
            return
        kind = msg.get("type")
        if kind == "event":
            self.event(msg, shadow)
        elif kind == "verdict":
            if self.quiet:
                return
            what = _describe(shadow, msg.get("action"))
            self.line("  %s  %s" % (what, self.paint("REJECTED: %s" % msg.get("reason"), "red")))
        elif kind == "fault":
            if msg.get("cleared"):
                self.line("  " + self.paint("fault cleared: %s" % msg.get("msg"), "green"))
            else:
                self.line("  " + self.paint("FAULT (%s): %s" % (msg.get("kind"), msg.get("msg")), "magenta"))
        elif kind == "link":
            self.line(self.paint("link %s" % ("up" if msg.get("up") else "down"), "dim"))

    def event(self, msg: dict[str, Any], shadow: Any) -> None:
        if "undone" in msg:
            self.line("  " + self.paint("undone: %s" % _describe(shadow, msg["undone"]), "yellow"))
            return
        obj = msg.get("action") or {}  # as the board tells a spectator: no hidden card
        if obj.get("act") == "deal":
            self.line(self.paint("-- %s --" % _deal_note(msg, shadow), "bold"))
        elif not self.quiet:
            text = _describe(shadow, obj)
            src = source_words(msg.get("from") or "", self.buttons)
            self.line("  %s%s" % (text, self.paint("   (%s)" % src, "dim") if src and src != "host" else ""))
        for ev in msg.get("events") or ():
            kind = ev.get("ev")
            if kind in ("deal", "play") or kind == obj.get("act"):
                continue  # the action's own line says it
            said = event_text(ev, shadow)
            if not said:
                continue
            text = said
            if kind in ("hand", "over"):
                self.line("    " + self.paint(text, "yellow"))
            elif not self.quiet:
                self.line("    " + self.paint(text, "cyan"))


def _describe(shadow: Any, obj: Any) -> str:
    """An action as the board told it, in the game's words (a spectator's form too: a card
    it does not show is 'an unseen card')."""
    if not isinstance(obj, dict):
        return "(no action)"
    if shadow is not None:
        try:
            return action_text(shadow, record.decode(shadow, obj, 0))
        except (record.RecordError, ValueError, KeyError, TypeError):
            pass
        try:
            return str(shadow.action_words(obj))
        except (ValueError, KeyError, TypeError, AttributeError):
            pass
    return plain_words(obj)


def plain_words(obj: dict[str, Any]) -> str:
    """An action no game can word (no game followed, or a malformed one): its fields as words."""
    who = "seat %s " % obj["seat"] if isinstance(obj.get("seat"), int) else ""
    rest = " ".join("%s %s" % (k, value_words(v)) for k, v in obj.items()
                    if k not in ("act", "seat") and v is not None)
    return ("%s%s %s" % (who, value_words(obj.get("act", "action")), rest)).strip()


def value_words(v: Any) -> str:
    """A value as a person reads it: lists as their items, no brackets, quotes or None."""
    if isinstance(v, (list, tuple)):
        return " ".join(value_words(x) for x in v) or "nothing"
    if isinstance(v, dict):
        return ", ".join("%s %s" % (k, value_words(x)) for k, x in v.items())
    if v is None:
        return "nothing"
    if v is True or v is False:
        return "yes" if v else "no"
    return str(v)


def _deal_note(msg: dict[str, Any], shadow: Any) -> str:
    """The deal's line, in the game's words: 'hand 2: seat 1 deals; the up card is 8YK'."""
    for ev in msg.get("events") or ():
        if ev.get("ev") == "deal":
            if shadow is not None:
                try:
                    said = shadow.describe(ev)
                except (ValueError, KeyError, TypeError, AttributeError):
                    said = None
                if said:
                    return str(said)
            return "the deal"
    return "the deal"


def run(args: argparse.Namespace) -> int:
    try:
        game = resolve(args.game)  # an id or a common alias: 45s, cal-jacks
    except ValueError as e:
        raise UsageError(str(e)) from None
    chip, board_cfg = board_kind(args.board, game)
    try:
        board_name, layout, rules, seed = prepare(game, board_cfg, args.layout, args.seats,
                                                  args.rule, args.seed, args.deal_pad)
    except (ValueError, OSError) as e:
        raise UsageError(str(e)) from None
    colour = use_colour() and not args.json
    show = Show(args.json, args.quiet, colour)
    delay = args.delay if args.delay is not None else (0.1 if colour else 0.0)
    if delay < 0:
        raise UsageError("--delay %g: the seconds between bot actions cannot be negative" % delay)
    on_term = end_on_sigterm()
    try:
        try:
            if chip == "rp2":
                vb: VirtualBoard = Rp2Board(board_name, flash_dir=args.flash, layout=layout,
                                            echo_stderr=args.verbose)
            else:
                vb = VirtualBoard(board_name, flash_dir=args.flash, layout=layout,
                                  period_ms=0 if args.bots == "all" else IDLE_PERIOD_MS, echo_stderr=args.verbose,
                                  stickers=True)
            vb.start(vb.BOOT_S)
        except BoardError as e:
            raise CardtableError(str(e)) from None
        try:
            if args.port_file:
                with open(args.port_file, "w") as f:
                    f.write(vb.port + "\n")
            return _play(args, vb, board_name, layout, game, rules, seed, show, delay)
        except KeyboardInterrupt:
            show.line("")
            raise
        except SystemExit as e:  # SIGTERM
            return int(e.code or 0)
        finally:
            if args.port_file:  # a stale port file would name a pty a shell may reuse
                _remove_port_file(args.port_file, vb.port)
            vb.close()
    finally:
        on_term()


def _remove_port_file(path: str, port: str) -> None:
    """Remove the port file if it still names this board's port."""
    try:
        with open(path) as f:
            if f.read().strip() != port:
                return
        os.remove(path)
    except OSError:
        pass


def _play(args: argparse.Namespace, vb: VirtualBoard, board_name: str, layout: str, game: str,
          rules: dict[str, Any], seed: int, show: Show, delay: float) -> int:
    """Play one game on the board: bots at some seats, people at the others; 0 when it is over."""
    table = VirtualTable(vb, board_name, layout)
    show.buttons = {n: v if a is None else "%s %s" % (v, a) for n, (v, a) in table.layout.buttons.items()}
    nseats = len(table.layout.seats)
    nbots = _bot_count(args.bots, nseats)
    bot_seats = set(range(nseats - nbots, nseats))
    _announce(args, vb, show, board_name, layout, game, seed, bot_seats)
    if vb.mode != "table":
        raise CardtableError("the board did not start the table (%s)%s" % (vb.mode, _said(vb)))
    link = Link(vb.port, timeout=vb.LINK_S)  # held: other programs are refused while the bots play
    try:
        bots = Bots(link, table, bot_seats, seed=seed, mistakes=not args.no_mistakes, timeout=vb.JUDGE_S,
                    on_message=show.message, deal_pad=args.deal_pad)
        hello = link.hello()
        link.drain()
        try:
            bots.new_game(rules, hello=hello)
        except CommandError as e:
            raise CardtableError("the board refused the game: %s" % e.msg) from None
        people = People(bots, show, vb) if nbots < nseats else None
        if people is not None:
            show.line("you play seat%s %s; the bots the others. Type help for commands." % (
                "s" if len(people.people) > 1 else "", ", ".join(map(str, people.people))))
            people.prompt()
        play_out(bots, delay, people)
        _result(show, bots, vb)
        if args.record:
            _save_record(link, args.record, vb, show)
        _keep_running(args.keep, vb, link, bots, people, show)
        if bots.divergences:
            raise CardtableError("the host's copy of the game disagrees with the board: %s"
                                 % "; ".join(str(d) for d in bots.divergences))
        return 0
    except (SimError, LinkError) as e:
        msg = str(e)
        if vb.mode != "table":
            msg += "; the board is not running the table any more (%s)%s" % (vb.mode, _said(vb))
        if args.verbose:  # what the board and the link said last, for whoever debugs it
            msg += "".join("\n  | " + line for line in list(link.noise) + list(vb.stderr_lines))
        raise CardtableError(msg) from None
    finally:
        link.close()


def _bot_count(bots: str, nseats: int) -> int:
    """How many seats the bots take: --bots as a number (within the seats) or 'all'."""
    if bots == "all":
        return nseats
    try:
        nbots = int(bots)
    except ValueError:
        raise UsageError("--bots takes a number or 'all'") from None
    return max(0, min(nseats, nbots))


def _announce(args: argparse.Namespace, vb: VirtualBoard, show: Show, board_name: str, layout: str, game: str,
              seed: int, bot_seats: set[int]) -> None:
    """Say what is played where (and the JSON line for programs)."""
    show.obj({"type": "sim", "port": vb.port, "board": board_name, "layout": layout, "game": game,
              "seed": seed, "bots": sorted(bot_seats)})
    show.line(show.paint("cardtable sim: %s on an %s %s, seed %d" % (game, vb.KIND, board_name, seed)
                         if vb.KIND[0] in "aeiou" else
                         "cardtable sim: %s on a %s %s, seed %d" % (game, vb.KIND, board_name, seed), "bold"))
    show.line("%s on %s   (held by this simulator while it plays%s)" % (vb.KIND, 
        vb.port, "; with --keep: cardtable monitor --port %s after the game" % vb.port if not args.keep else
        ": cardtable monitor --port %s once the game is over" % vb.port))


def _save_record(link: Link, path: str, vb: VirtualBoard, show: Show) -> None:
    """Write the board's journal of the game to path, as `cardtable referee` reads it."""
    lines = link.log(timeout=5 * vb.LINK_S)  # the whole journal, a line at a time
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))
    show.obj({"type": "record", "path": path, "lines": len(lines)})
    show.line("the board's journal of this game (%d lines) is in %s:  cardtable referee %s" % (
        len(lines), path, path))


def _keep_running(keep: bool, vb: VirtualBoard, link: Link, bots: Bots, people: People | None, show: Show) -> None:
    """After the game: with --keep, or while a person has not quit, the board runs on (Ctrl-C ends)."""
    if keep and people is None:
        vb.set_period(IDLE_PERIOD_MS)
        link.close()            # one program per serial port: leave it to monitor, pull, ...
        show.line("the board keeps running on %s, free for cardtable monitor, pull, doctor "
                  "and mpremote; Ctrl-C ends" % vb.port)
        while True:
            time.sleep(0.5)
    if keep or (people is not None and not people.quit):
        vb.set_period(IDLE_PERIOD_MS)
        show.line("the board keeps running on %s; Ctrl-C ends" % vb.port)
        while True:
            if people is not None:
                people.poll()
                if people.quit:
                    break
            bots.pump(0.2)


def _said(vb: VirtualBoard) -> str:
    """What the board printed last, as words to add to an error ("" if nothing)."""
    why = board_words(vb.console(ending=">>> " if vb.mode == "repl" else "", timeout=5))
    return "; the board said: %s" % why if why else ""


def _result(show: Show, bots: Bots, vb: VirtualBoard) -> None:
    g = bots.shadow
    scores = bots.scores
    try:
        st = vb.status()
        heap = {"live_max": st.get("heap_live_max"), "peak": st.get("heap_peak"),
                "budget": st.get("heap_budget"), "steps_over": st.get("heap_over")}
    except BoardError:
        heap = None
    show.obj({"type": "result", "game": bots.game_id, "over": bots.over, "scores": scores,
              "winner": bots.winner, "actions": bots.actions, "heap": heap})
    sheet = g.score_words(scores) if g is not None else value_words(scores)
    if not bots.over:
        show.line(show.paint("the game is not over; scores so far: %s" % sheet, "green"))
        return
    w = bots.winner
    who = "a draw" if w is None or g is None else g.side(w) + (" win" if g.TEAMS else " wins")
    show.line(show.paint("result: %s; scores: %s" % (who, sheet), "green"))
