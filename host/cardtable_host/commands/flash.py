"""`cardtable flash`: put the firmware on the board - the image or the files, then hello."""
from __future__ import annotations

import argparse
import json
from typing import Any, Callable

from cardtable_host.board import boardfind
from cardtable_host.board.flashing import FlashOptions, default_board, flash_board
from cardtable_host.commands import options
from cardtable_host.errors import CardtableError, Interrupted

DESCRIPTION = """\
The cardtable image (build/firmware/cardtable-pico.uf2, built or taken from the cache as
`make firmware` does): MicroPython with the firmware frozen in. A Pico plugged in with
BOOTSEL held shows a drive named RPI-RP2: flash copies the image onto it (or loads it with
picotool, when a picotool that talks USB is installed) and waits for the Pico to boot. A
Pico already running MicroPython is sent to BOOTSEL mode first, unless it runs this very
build (the build hash in its hello). Then the board files are copied, stale firmware files
removed, the board config written (/config.json: which board file and layout the table
runs), the board reset, and its hello must name the image's build.

With --mpy, or when the image cannot be built here (no ARM toolchain), or on a board that is
no Pico (the WebAssembly virtual board): the files way, for a stock MicroPython. Checks that
its MicroPython matches the mpy-cross that compiles the firmware, compiles firmware/lib to
.mpy, compares every file with the board's (sha256) and copies only what changed with
mpremote; its hello must say build "source". Journals (/games) are never touched.

While copying, the board is in maintenance mode (/maintenance exists: the table does not
start at boot), so a copy that fails half-way leaves a board that is safe to flash again:
run the same command again and it finishes the job. A flash that is refused (wrong
MicroPython, a layout the board has not) changes nothing: the table is started again.
--layout starts a new game in that layout now (an unfinished game stays in the journal,
where `cardtable pull` gets it); without it the table resumes the game it was playing.
Every wait has a deadline: a board that stops answering fails the flash with what it said.
Exit status: 0 flashed and said hello, 1 the copy, the image or the hello failed, 2 no
board, the board's port in use by another program, wrong MicroPython, no image or bad
arguments, 130 Ctrl-C.

example:  cardtable flash                       # hold BOOTSEL, plug the Pico in, run this
          cardtable flash --mpy                 # files onto a stock MicroPython
          cardtable flash --port /dev/ttyACM0 --board pico-i2c-4seat --layout fortyfives
          cardtable flash --dry-run --json
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    boardfind.add_port_argument(p)
    p.add_argument("--board", metavar="NAME",
                   help="the board file the table runs (firmware/boards/NAME.json); default: keep "
                        "the board's, else %s" % default_board())
    p.add_argument("--layout", metavar="NAME",
                   help="the layout (game on this table) to start with, e.g. fortyfives; default: keep")
    p.add_argument("--dry-run", "-n", action="store_true",
                   help="say what would be copied and removed; change nothing on the board (the "
                        "table is stopped to look and then restarted: it resumes its game)")
    p.add_argument("--mpy", action="store_true",
                   help="copy the firmware as .mpy files onto a stock MicroPython instead of installing the image")
    p.add_argument("--uf2", metavar="FILE",
                   help="the image to install (default: build/firmware/cardtable-pico.uf2, built as "
                        "`make firmware` does)")
    p.add_argument("--drive", metavar="DIR",
                   help="the RPI-RP2 drive of a Pico in BOOTSEL mode (default: the one mounted)")
    p.add_argument("--any-version", action="store_true",
                   help="flash even if the board's MicroPython is not the version the firmware is built for")
    p.add_argument("--no-reset", action="store_true",
                   help="leave the board at the REPL after copying (no reset, no hello check)")
    p.add_argument("--json", action="store_true", help="print one JSON object for programs")
    p.add_argument("--verbose", "-v", action="store_true", help="name every file copied")


def run(args: argparse.Namespace) -> int:
    opts = options(FlashOptions, args)
    report: dict[str, Any] = {"ok": False}
    say: Callable[[str], None] = (lambda s: None) if opts.json else (lambda s: print(s, flush=True))
    try:
        return flash_board(opts, report, say)
    except CardtableError as e:
        report["error"] = str(e)
        e.reported = True  # the report below says it
        raise
    except KeyboardInterrupt:
        report["error"] = "interrupted"
        if not opts.json:
            print()  # off the line the terminal's ^C is on
        raise Interrupted("interrupted; run it again to finish (a board left in maintenance mode "
                          "starts the table once a flash finishes)", reported=True) from None
    finally:
        if opts.json:
            print(json.dumps(report))

