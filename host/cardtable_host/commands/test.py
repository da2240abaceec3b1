"""`cardtable test`: run the rules test suite on CPython, and on MicroPython with --micropython."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

from cardtable_host.errors import UsageError

DESCRIPTION = """\
Runs the rules tests - the same files on both runtimes - so a table builder who changes a
rule option or edits a game can check it without knowing the test layout. With
--micropython the same tests also run on real MicroPython (the WebAssembly port) under
the Pico's 192 KB heap, from .py and from mpy-cross compiled .mpy files.

example:  cardtable test
          cardtable test --micropython -k fortyfives
"""


def repo_root() -> str:
    """The checkout this tool runs from (the device package lives at firmware/lib/cardtable)."""
    import cardtable

    return os.path.normpath(os.path.join(os.path.dirname(cardtable.__file__), "..", "..", ".."))


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--micropython", action="store_true", help="also run them on MicroPython")
    p.add_argument("-k", dest="pattern", help="only tests whose name matches (pytest -k)")


def run(args: argparse.Namespace) -> int:
    root = repo_root()
    suites = [os.path.join(root, "tests", d) for d in ("rules", "device")]
    if not os.path.isdir(suites[0]):
        raise UsageError("no tests at %s: run it from a clone of the repository" % suites[0])
    cmd = [sys.executable, "-m", "pytest", "-q", *suites]
    if args.pattern:
        cmd += ["-k", args.pattern]
    rc = subprocess.call(cmd, cwd=root)
    if args.micropython:
        mcmd = [sys.executable, os.path.join(root, "tools", "mpy", "test_mpy.py")]
        if args.pattern:
            mcmd += ["-k", args.pattern]
        rc = subprocess.call(mcmd, cwd=root) or rc
    return rc
