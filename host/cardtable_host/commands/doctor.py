"""`cardtable doctor`: is the table healthy? Readers, journal, flash, heap, link."""
from __future__ import annotations

import argparse
import json
import time
from typing import TYPE_CHECKING, Any

from cardtable_host.board import boardfind
from cardtable_host.errors import USAGE, CardtableError, UsageError
from cardtable_host.term import paint, use_colour

if TYPE_CHECKING:
    from cardtable_host.board.bringup import Report

DESCRIPTION = """\
Asks the running table for its health twice, SAMPLE seconds apart, and reports:
each reader by zone (answering or down, its PN532 firmware version, its last error, polls
per second over the sample, failed polls, a card on it now, the driver's retry and error
counters), the journal (game number, lines, bytes, a torn tail cut off at boot, write
errors), free flash and heap, uptime and main-loop rate, and link errors. Problems are
listed at the end.

A board that does not answer is looked at closer: stopped at the MicroPython REPL (a flash,
mpremote or Ctrl-C stopped the table, or the table failed to boot) or in maintenance mode
(a flash did not finish). doctor says which and how to get back; with --restart it does it:
at the REPL it restarts the table (and shows the board's own words if it cannot boot), in
maintenance mode it finishes the flash (`cardtable flash`), then checks the table's health.
Exit status: 0 healthy, 1 a problem was found (the table at the REPL or in maintenance mode
too), 2 no board, the port in use by another program, the board does not answer, or bad
arguments; 130 Ctrl-C.

With --bringup it guides a first power-up instead: for each zone in turn it asks for any
tagged card on it ("zone s0 (play 0), reader 0 on mux 0x70 ch 0: lay any tagged card on
it"), reports the reader's read time and the tag, flashes the zone's LED (the card's own
code written back) and asks whether it lit, asks for two tagged cards laid together (the
table must say two tags and play nothing; --no-two skips it); then, the table reporting
presses instead of playing them, it asks for each button in turn ("button k0 (GP6): press
it") and each encoder turned one detent, sounds the buzzer and asks whether it was heard; it
ends with what to measure where a step failed: a reader that is down or reads nothing (its
mux channel's lines, 5 V, the module's switch), an LED chain that stops (between which two
LEDs), a button not seen or another seen instead (its GPIO's levels, swapped wires), the
buzzer silent. Exit status 0 when every step passed, 1 otherwise.

example:  cardtable doctor
          cardtable doctor --port /dev/ttyACM0 --sample 3
          cardtable doctor --restart          # the table stopped at the REPL: start it again
          cardtable doctor --json | jq '.problems'
          cardtable doctor --bringup          # a new build: one zone at a time
"""

FLASH_LOW = 64 * 1024  # bytes: below this a few games' journals will not fit
HEAP_LOW = 16 * 1024  # bytes: below this the table may run out of memory mid-game


def add_arguments(p: argparse.ArgumentParser) -> None:
    boardfind.add_port_argument(p)
    p.add_argument("--sample", type=float, default=1.0, metavar="S",
                   help="seconds between the two health readings, for rates (default 1)")
    p.add_argument("--restart", action="store_true",
                   help="a table stopped at the REPL: start it again; in maintenance mode: finish "
                        "the flash")
    p.add_argument("--json", action="store_true", help="print one JSON object for programs")
    p.add_argument("--bringup", action="store_true",
                   help="guide a first power-up: a card on each zone in turn, its LED, each button,"
                        " the buzzer, what to measure")
    p.add_argument("--wait", type=float, default=120.0, metavar="S",
                   help="with --bringup: seconds to wait for the card on each zone (default 120)")
    p.add_argument("--no-two", action="store_true",
                   help="with --bringup: skip the two-tag check (two cards laid together on each zone)")


def diagnose(hello: dict[str, Any], cfg: dict[str, Any], first: dict[str, Any], second: dict[str, Any],
             dt: float) -> dict[str, Any]:
    """The report: readers with rates, the journal, memory, and the problems found."""
    zones = cfg.get("zones") or {}
    before = {r.get("zone"): r for r in first.get("readers") or []}
    readers = []
    problems = []
    for r in second.get("readers") or []:
        zone = r.get("zone")
        b = before.get(zone, {})
        polls = r.get("polls", 0) - b.get("polls", 0)
        fails = r.get("failures", 0) - b.get("failures", 0)
        entry = {"zone": zone, "role": zones.get(zone), "up": bool(r.get("up")),
                 "polls_per_s": round(polls / dt, 1) if dt > 0 else None,
                 "failures": r.get("failures", 0), "failures_in_sample": fails,
                 "card": bool(r.get("card")), "error": r.get("error"), "driver": r.get("driver"),
                 "fw": r.get("fw")}
        readers.append(entry)
        where = "reader %s%s" % (zone, " (%s)" % entry["role"] if entry["role"] else "")
        if not entry["up"]:
            problems.append("%s is down: %s" % (where, entry["error"] or "it does not answer"))
        elif fails:
            problems.append("%s failed %d of its polls in %g s (%s)" % (
                where, fails, dt, entry["error"] or "flaky cable or module?"))
        elif polls == 0 and dt > 0:
            problems.append("%s was not polled in %g s (is the table's loop stuck?)" % (where, dt))
    j = second.get("journal") or {}
    if j.get("error"):
        problems.append("journal: %s" % j["error"])
    if j.get("dropped"):
        problems.append("journal: %d bytes of a torn last line were cut off at boot (a power cut "
                        "mid-write; the actions before it are safe)" % j["dropped"])
    flash = second.get("flash_free", -1)
    heap = second.get("heap_free", -1)
    if isinstance(flash, int) and 0 <= flash < FLASH_LOW:
        problems.append("flash: only %d bytes free; pull the games and let the board drop old ones" % flash)
    if isinstance(heap, int) and 0 <= heap < HEAP_LOW:
        problems.append("heap: only %d bytes free" % heap)
    link = second.get("link") or {}
    lerr = link.get("errors", 0) - ((first.get("link") or {}).get("errors", 0))
    steps = second.get("steps", 0) - first.get("steps", 0)
    return {"ok": not problems, "problems": problems, "board": hello.get("board"), "fw": hello.get("fw"),
            "build": hello.get("build"), "proto": hello.get("proto"), "layout": hello.get("layout"),
            "game": (hello.get("game") or {}).get("game"), "readers": readers, "journal": j,
            "flash_free": flash, "heap_free": heap, "uptime_ms": second.get("uptime_ms"),
            "steps_per_s": round(steps / dt, 1) if dt > 0 else None, "link": link,
            "link_errors_in_sample": lerr}


def _bytes(n: Any) -> str:
    if not isinstance(n, int) or n < 0:
        return "unknown"
    return "%d KiB" % (n // 1024) if n >= 10 * 1024 else "%d B" % n


def show(rep: dict[str, Any], port: str, colour: bool) -> None:
    def c(text: str, col: str) -> str:
        return paint(text, col, colour)

    up = rep.get("uptime_ms")
    game = ("no game" if not rep["game"] else
            "a game of %s, over" % rep["game"] if rep.get("over") else "playing %s" % rep["game"])
    print("board %s on %s: firmware %s (protocol %s), layout %s, %s" % (
        rep["board"], port, rep["fw"], rep["proto"], rep["layout"], game))
    print("up %s, main loop %s steps/s" % ("%.0f s" % (up / 1000) if isinstance(up, int) else "?",
                                           rep["steps_per_s"]))
    print()
    print("  %-6s %-10s %-6s %8s %9s %5s  %s" % ("zone", "role", "state", "polls/s", "failures", "card", "notes"))
    for r in rep["readers"]:
        state = c("ok", "green") if r["up"] else c("DOWN", "red")
        notes = []
        if r.get("fw"):
            notes.append("PN532 firmware %s" % r["fw"])
        if r.get("error"):
            notes.append("last error: %s" % r["error"])
        drv = r.get("driver") or {}
        if drv.get("retried"):
            notes.append("%d retried" % drv["retried"])
        print("  %-6s %-10s %-6s %8s %9s %5s  %s" % (
            r["zone"], r["role"] or "-", state, r["polls_per_s"], r["failures"], "yes" if r["card"] else "",
            "; ".join(notes)))
    j = rep["journal"]
    print()
    print("journal: game %s, %s lines, %s%s%s" % (
        j.get("number"), j.get("seq", -1) + 1 if isinstance(j.get("seq"), int) else "?", _bytes(j.get("bytes")),
        ", %d B cut off at boot" % j["dropped"] if j.get("dropped") else "",
        c(", error: %s" % j["error"], "red") if j.get("error") else ""))
    print("flash free: %s   heap free: %s" % (_bytes(rep["flash_free"]), _bytes(rep["heap_free"])))
    link = rep.get("link") or {}
    print("link: %s lines sent, %s received, %s bad" % (link.get("sent"), link.get("received"), link.get("errors")))
    print()
    if rep["ok"]:
        print(c("healthy: every reader answers, the journal is clean", "green"))
    else:
        print(c("%d problem%s:" % (len(rep["problems"]), "" if len(rep["problems"]) == 1 else "s"), "red"))
        for p in rep["problems"]:
            print("  - " + p)


def run(args: argparse.Namespace) -> int:
    if not args.sample > 0:
        raise UsageError("--sample %g: the seconds between the two readings must be more than 0"
                         % args.sample)
    if args.bringup:
        return _bringup(args)
    port, hold = boardfind.claim("doctor", args.port)
    try:
        rep = _examine(args, port)
        if rep.get("stopped") and args.restart:
            _restart(args, port, rep, hold)
            hold.acquire()
            rep = _examine(args, port)
    finally:
        hold.release()
    if args.json:
        rep["port"] = port
        print(json.dumps(rep))
    elif rep.get("stopped"):
        print("board on %s: %s" % (port, rep["stopped"]))
        for p in rep["problems"]:
            print("  - " + p)
    else:
        show(rep, port, use_colour())
    return 0 if rep["ok"] else 1


def _examine(args: argparse.Namespace, port: str) -> dict[str, Any]:
    """The health report; a board that does not answer is looked at as a REPL (``stopped``)."""
    from cardtable_host.board.link import Link, LinkError

    try:
        link = Link(port, timeout=5, reconnect=False, lock=False)
    except LinkError as e:
        raise CardtableError(str(e), USAGE) from None
    try:
        hello = link.hello()
        cfg = link.config()
        view = link.state().get("view") or {}
        first = link.health()
        t0 = time.monotonic()
        time.sleep(args.sample)
        second = link.health()
        dt = time.monotonic() - t0
    except LinkError as e:
        heard = list(link.noise)
        link.close()
        return _stopped(port, e, heard)
    finally:
        link.close()
    rep = diagnose(hello, cfg, first, second, dt)
    rep["over"] = bool(view.get("over")) if rep.get("game") else None
    return rep


REPL_SIGNS = (">>>", "MicroPython v", "raw REPL", "Traceback", "Error:", "cardtable: ")


def _stopped(port: str, e: Exception, heard: list[str]) -> dict[str, Any]:
    """The table does not answer: is the board at the REPL, or in maintenance mode?"""
    from cardtable_host.board.rawrepl import Board
    from cardtable_host.board.link import BOOT_ERROR, board_words

    board = Board(port)
    try:
        # Ctrl-B leaves a raw REPL (a stopped flash leaves one) and makes a friendly REPL say
        # its banner; a running table takes it for a line of noise.
        board.t.serial.write(b"\r\x02")
        time.sleep(0.5)
        said = board.t.serial.read(board.t.serial.in_waiting or 0).decode("utf-8", "replace")
        if not any(sign in text for sign in REPL_SIGNS for text in heard + [said]):
            raise CardtableError("the board on %s does not answer (%s): is the table running "
                                 "(`cardtable flash` puts the firmware on it)?" % (port, e), USAGE)
        board.enter()
        maint, firmware = board.look()
        try:  # why its table last failed to start, as the board printed it (main.py keeps it)
            failed = board_words(bytes(board.t.fs_readfile(BOOT_ERROR)).decode("utf-8", "replace"))
        except (OSError, board.TransportError):
            failed = None
        board.t.exit_raw_repl()
    except board.TransportError as te:
        raise CardtableError("the board on %s does not answer the table's link nor the REPL (%s)"
                             % (port, te), USAGE) from None
    finally:
        board.close()
    words = [t for t in heard if t.strip() and "hello" not in t and not t.startswith(">>>")]
    if not firmware:
        what = "at the MicroPython REPL without the table's firmware"
        advice = "`cardtable flash` puts the firmware on it and starts the table"
    elif maint:
        what = "in maintenance mode: the table is off (a `cardtable flash` did not finish)"
        advice = "`cardtable flash` finishes the flash and starts the table (or: cardtable doctor --restart)"
    else:
        what = "at the MicroPython REPL: the table is not running (stopped by a flash, mpremote or Ctrl-C, or it failed to boot)"
        if failed:
            what = "at the MicroPython REPL: the table failed to start: %s" % failed
        advice = "`cardtable doctor --restart` starts the table again (or unplug the board and plug it in)"
    problems = [what, advice]
    if words:
        problems.insert(1, "the board said: %s" % " | ".join(words[-4:]))
    return {"ok": False, "stopped": what, "maintenance": maint, "firmware": firmware, "problems": problems}


def _restart(args: argparse.Namespace, port: str, rep: dict[str, Any], hold: Any) -> None:
    """Bring a stopped table back: a soft reset at the REPL, or finish the flash."""
    from cardtable_host.board import flashing as flash

    say = (lambda s: None) if args.json else (lambda s: print(s, flush=True))
    if not rep.get("firmware"):
        raise CardtableError("the board has no table firmware to restart: `cardtable flash` puts it on", 1)
    if rep.get("maintenance"):
        say("the board is in maintenance mode: finishing the flash (cardtable flash) ...")
        hold.release()  # flash holds the port itself
        flash.flash_board(flash.FlashOptions(port=port), {}, say)
        return
    say("the board is at the REPL: restarting the table ...")
    board = flash.Board(port)
    try:
        board.enter()
        hello = board.reset_and_hello()
    except flash.FlashError as e:
        raise CardtableError("the table did not start: %s" % e, 1) from None
    finally:
        board.close()
    say("the table is running again: %s" % ((hello.get("game") or {}).get("game") or "no game"))




def _bringup(args: argparse.Namespace) -> int:
    """`doctor --bringup`: the guided walk (bringup.walk) and its summary."""
    from dataclasses import asdict

    if not args.wait > 0:
        raise UsageError("--wait %g: the seconds to wait for a card must be more than 0" % args.wait)
    port, hold = boardfind.claim("doctor", args.port)
    try:
        rep = _walk(port, args)
    finally:
        hold.release()
    if args.json:
        print(json.dumps({"ok": rep.ok, "board": rep.board, "port": port, "problems": rep.problems,
                          "zones": [asdict(z) for z in rep.zones],
                          "inputs": [asdict(x) for x in rep.inputs]}))
    else:
        _bringup_summary(rep)
    return 0 if rep.ok else 1


def _walk(port: str, args: argparse.Namespace) -> Report:
    """Walk the board on port through bring-up, asking at the terminal (silent with --json)."""
    from cardtable_host.board import bringup
    from cardtable_host.board.firmwarefiles import firmware_dir
    from cardtable_host.board.link import Link, LinkError

    quiet = args.json

    def say(text: str) -> None:
        if not quiet:
            print(text, flush=True)

    def ask(question: str) -> str | None:
        if not quiet:
            print(question.rstrip(), flush=True)
        try:
            return input()
        except EOFError:
            return None

    try:
        link = Link(port, timeout=10, reconnect=False, lock=False)
    except LinkError as e:
        raise CardtableError(str(e), USAGE) from None
    try:
        return bringup.walk(link, firmware_dir() / "boards", say, ask, args.wait, not args.no_two)
    except LinkError as e:
        raise CardtableError("the board on %s stopped answering: %s" % (port, e), USAGE) from None
    finally:
        link.close()


def _bringup_summary(rep: Report) -> None:
    """The walk's summary lines: readers read, inputs seen, the buzzer, the problems."""
    read = [z.read_ms for z in rep.zones if z.read_ms is not None]
    print()
    print("bring-up: %d of %d readers read a card%s" % (
        len(read), len(rep.zones), " (%.0f to %.0f ms)" % (min(read), max(read)) if read else ""))
    pressed = [x for x in rep.inputs if x.kind in ("button", "encoder") and x.pins]
    if pressed:
        print("bring-up: %d of %d buttons and encoders seen" % (
            sum(1 for x in pressed if x.ok), len(pressed)))
    for x in rep.inputs:
        if x.kind == "buzzer":
            print("bring-up: the buzzer %s" % (
                "was not confirmed" if x.ok is None else "sounded" if x.ok else "did not sound"))
    colour = use_colour()
    if rep.ok:
        print(paint("every step passed", "green", colour))
    else:
        print(paint("%d problem%s:" % (len(rep.problems), "" if len(rep.problems) == 1 else "s"),
                    "red", colour))
        for p in rep.problems:
            print("  - " + p)
