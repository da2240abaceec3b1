"""`cardtable run`: the table's main job - `cardtable serve` of the board, or of the simulated table."""
from __future__ import annotations

import argparse
import os

from cardtable_host import boardfind, servecmd

HELP = "the main job: serve the table live (a board is plugged in) or the simulated table"
DESCRIPTION = """\
With a board plugged in (or --port), this is `cardtable serve`: the board's live table in
the browser (the page's address is printed), the archive of its games, and the story on
the terminal. With no board it serves the demo table in simulation - `cardtable serve --sim
GAME` with a bot in every seat: the real firmware on real MicroPython behind a
pseudo-terminal, emulated NFC readers under a virtual table, the game refereed on the
device, live. `cardtable monitor` in another terminal follows it.

A port named with --port (or $CARDTABLE_PORT) must be there: the simulator never stands
in for a board that was asked for.

example:  cardtable run                  # Forty-Fives to 120, or the board's live view
          cardtable run nexus --seed 3
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", nargs="?", default="fortyfives", help="game for the simulated table")
    p.add_argument("--seed", type=int, help="shuffle and bot seed for the simulated table")
    p.add_argument("--sim", action="store_true", help="simulate even if a board is plugged in")
    p.add_argument("--http", default=servecmd.DEFAULT_HTTP, metavar="HOST:PORT",
                   help="where the page is served (default %s)" % servecmd.DEFAULT_HTTP)
    boardfind.add_port_argument(p)


def run(args: argparse.Namespace) -> int:
    if not args.sim:
        named = args.port or os.environ.get(boardfind.ENV)
        try:
            port = boardfind.resolve(args.port)
        except boardfind.BoardNotFound:
            if named:  # a board was named: no quiet fall back to the simulator
                raise
            port = None
        if port is not None:
            print("cardtable: board at %s: serving it (cardtable serve)" % port)
            return servecmd.run(_serve_args(["--port", port, "--http", args.http]))
    print("cardtable: no board attached: the demo table in simulation (cardtable serve --sim %s)" % args.game)
    more = [] if args.seed is None else ["--seed", str(args.seed)]
    return servecmd.run(_serve_args(["--sim", args.game, "--http", args.http] + more))


def _serve_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    servecmd.add_arguments(p)
    return p.parse_args(argv)
