"""`cardtable doctor`: is the table healthy? Readers, journal, flash, heap, link."""
from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from cardtable_host import boardfind
from cardtable_host.term import paint, use_colour

HELP = "check the table's health: every reader, the journal, free flash and heap"
DESCRIPTION = """\
Asks the running table for its health twice, SAMPLE seconds apart, and reports:
each reader by zone (answering or down, its PN532 firmware version, its last error, polls
per second over the sample, failed polls, a card on it now, the driver's retry and error
counters), the journal (game number, lines, bytes, a torn tail cut off at boot, write
errors), free flash and heap, uptime and main-loop rate, and link errors. Problems are
listed at the end.
Exit status: 0 healthy, 1 a problem was found, 2 no board (or it does not answer).

example:  cardtable doctor
          cardtable doctor --port /dev/ttyACM0 --sample 3
          cardtable doctor --json | jq '.problems'
"""

FLASH_LOW = 64 * 1024  # bytes: below this a few games' journals will not fit
HEAP_LOW = 16 * 1024  # bytes: below this the table may run out of memory mid-game


def add_arguments(p: argparse.ArgumentParser) -> None:
    boardfind.add_port_argument(p)
    p.add_argument("--sample", type=float, default=1.0, metavar="S",
                   help="seconds between the two health readings, for rates (default 1)")
    p.add_argument("--json", action="store_true", help="print one JSON object for programs")


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
    print("board %s on %s: firmware %s (protocol %s), layout %s, playing %s" % (
        rep["board"], port, rep["fw"], rep["proto"], rep["layout"], rep["game"] or "nothing"))
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
    from cardtable_host.link import LinkError

    link = boardfind.open_link("doctor", args.port)
    if link is None:
        return 2
    port = link.port
    try:
        hello = link.hello()
        cfg = link.config()
        first = link.health()
        t0 = time.monotonic()
        time.sleep(max(0.0, args.sample))
        second = link.health()
        dt = time.monotonic() - t0
    except LinkError as e:
        print("cardtable doctor: the board on %s does not answer (%s): is the table running "
              "(`cardtable flash` puts the firmware on it)? is another program (a cardtable monitor "
              "or sim) reading the port?" % (port, e), file=sys.stderr)
        return 2
    finally:
        link.close()
    rep = diagnose(hello, cfg, first, second, dt)
    if args.json:
        rep["port"] = port
        print(json.dumps(rep))
    else:
        show(rep, port, use_colour())
    return 0 if rep["ok"] else 1
