"""`cardtable draw`: regenerate hardware/ wiring tables and SVG drawings from firmware/boards/."""
from __future__ import annotations

import argparse
from pathlib import Path

from cardtable_host.draw import drawings

DESCRIPTION = """\
The pin map and every table layout live once, in firmware/boards/*.json. This writes the
wiring tables, the BOM and the SVG drawings under hardware/ from them; --check only
reports drawings that are stale (exit 1), as the tests do.

example:  cardtable draw
          cardtable draw --check
          cardtable draw --out drawings    # into a folder of your own
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--check", action="store_true", help="only report stale files (exit 1 if any)")
    p.add_argument("--out", metavar="DIR", type=Path, default=None,
                   help="the folder to write into (default: the checkout's hardware/, else ./hardware)")


def run(args: argparse.Namespace) -> int:
    return drawings.draw(out=args.out or drawings.HARDWARE_DIR, check=args.check)
