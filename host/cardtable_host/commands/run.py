"""`cardtable run`: the table's main job - `cardtable serve` of the board, or of the simulated table."""
from __future__ import annotations

import argparse
import os

from cardtable_host.board import boardfind
from cardtable_host.serve.main import serve
from cardtable_host.serve.serving import DEFAULT_HTTP, ServeOptions
from cardtable_host.sim import choice as simchoice
from cardtable_host.errors import UsageError

DESCRIPTION = """\
With a board plugged in (or --port), this is `cardtable serve`: the board's live table in
the browser (the page's address is printed), the archive of its games, and the story on
the terminal. With no board it serves the demo table in simulation - `cardtable serve --sim
GAME` with a bot in every seat: the real firmware on real MicroPython behind a
pseudo-terminal, emulated NFC readers under a virtual table, the game refereed on the
device, live. `cardtable monitor` in another terminal follows it.

--board rp2 serves the demo table from the emulated RP2040 instead: the firmware image
itself (`make firmware`) on rp2040js, its readers on the chip's I2C bus (see cardtable sim;
'rp2:NAME' with board config NAME, or a board config NAME for the WebAssembly board). A
board given with --board is always the simulated one, even with a Pico plugged in.

A port named with --port (or $CARDTABLE_PORT) must be there: the simulator never stands
in for a board that was asked for.

example:  cardtable run                  # Forty-Fives to 120, or the board's live view
          cardtable run nexus --seed 3
          cardtable run --board rp2      # the demo table on the emulated RP2040
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", nargs="?", default="fortyfives", help="game for the simulated table")
    p.add_argument("--seed", type=int, help="shuffle and bot seed for the simulated table")
    p.add_argument("--sim", action="store_true", help="simulate even if a board is plugged in")
    p.add_argument("--board", metavar="NAME",
                   help="the simulated board (implies --sim): 'rp2' for the emulated RP2040 running the "
                        "firmware image, 'rp2:NAME', or a board config NAME")
    p.add_argument("--http", default=DEFAULT_HTTP, metavar="HOST:PORT",
                   help="where the page is served (default %s)" % DEFAULT_HTTP)
    boardfind.add_port_argument(p)


def run(args: argparse.Namespace) -> int:
    if args.board is not None and args.port:
        raise UsageError("--board %s is a simulated board and --port names a real one: give one of them" % args.board)
    if not args.sim and args.board is None:
        named = args.port or os.environ.get(boardfind.ENV)
        try:
            port = boardfind.resolve(args.port)
        except boardfind.BoardNotFound:
            if named:  # a board was named: no quiet fall back to the simulator
                raise
            port = None
        if port is not None:
            print("cardtable: board at %s: serving it (cardtable serve)" % port)
            return serve(ServeOptions(port=port, http=args.http))
    if args.board is not None:
        where = "the emulated RP2040" if simchoice.board_kind(args.board, args.game)[0] == simchoice.RP2 else \
            "the virtual board " + args.board
        print("cardtable: the demo table on %s (cardtable serve --sim %s --board %s)" % (where, args.game, args.board))
    else:
        print("cardtable: no board attached: the demo table in simulation (cardtable serve --sim %s)" % args.game)
    return serve(ServeOptions(sim=args.game, http=args.http, seed=args.seed, board=args.board))
