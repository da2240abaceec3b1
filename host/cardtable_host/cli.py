"""The `cardtable` command: one table of subcommands."""
from __future__ import annotations

import argparse
import importlib
import os
import sys

# name -> module with HELP, DESCRIPTION, add_arguments(parser) and run(args) -> exit status
COMMANDS = {
    "run": "cardtable_host.runcmd",
    "sim": "cardtable_host.simcmd",
    "monitor": "cardtable_host.monitor",
    "referee": "cardtable_host.referee",
    "pull": "cardtable_host.pull",
    "flash": "cardtable_host.flash",
    "enroll": "cardtable_host.enroll",
    "doctor": "cardtable_host.doctor",
    "demo": "cardtable_host.demo",
    "referee": "cardtable_host.referee",
    "rules": "cardtable_host.rulescmd",
    "test": "cardtable_host.testcmd",
    "draw": "cardtable_host.drawcmd",
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="cardtable",
        description="An instrumented card table: referee records, run the simulated table, "
                    "flash and watch the board.",
        epilog="Run 'cardtable COMMAND --help' for a command's own help and examples.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, modname in COMMANDS.items():
        mod = importlib.import_module(modname)
        p = sub.add_parser(name, help=mod.HELP, description=mod.DESCRIPTION,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        mod.add_arguments(p)
        p.set_defaults(run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `cardtable` command."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:                 # e.g. `cardtable demo | head`
        sys.stdout = open(os.devnull, "w")
        return 0


if __name__ == "__main__":
    sys.exit(main())
