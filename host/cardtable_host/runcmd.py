"""`cardtable run`: the table's main job - the live monitor of the board, or the simulated table."""
from __future__ import annotations

import argparse
import os

from cardtable_host import boardfind, monitor, simcmd

HELP = "the main job: watch the table live (a board is plugged in) or play the simulated table"
DESCRIPTION = """\
With a board plugged in (or --port), this is `cardtable monitor`: the live mirror of the
table. With no board it starts the demo table in simulation - `cardtable sim GAME` with a
bot in every seat: the real firmware on real MicroPython behind a pseudo-terminal, emulated
NFC readers under a virtual table, a whole game refereed on the device, live.

A port named with --port (or $CARDTABLE_PORT) must be there: the simulator never stands
in for a board that was asked for.

example:  cardtable run                  # Forty-Fives to 120, or the board's live view
          cardtable run nexus --seed 3
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", nargs="?", default="fortyfives", help="game for the simulated table")
    p.add_argument("--seed", type=int, help="shuffle and bot seed for the simulated table")
    p.add_argument("--sim", action="store_true", help="simulate even if a board is plugged in")
    p.add_argument("--board", help="the simulated board: as `cardtable sim --board` ('rp2': the "
                                   "emulated RP2040)")
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
            print("cardtable: board at %s: live view (cardtable monitor)" % port)
            margs = argparse.Namespace(port=port, plain=False)
            return monitor.run(margs)
    print("cardtable: no board attached: the demo table in simulation (cardtable sim %s)" % args.game)
    p = argparse.ArgumentParser()
    simcmd.add_arguments(p)
    sargs = p.parse_args([args.game] + ([] if args.seed is None else ["--seed", str(args.seed)])
                         + ([] if args.board is None else ["--board", args.board]))
    return simcmd.run(sargs)
