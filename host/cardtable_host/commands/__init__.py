"""The subcommands of `cardtable`: one module each (cli.py lists them)."""
from __future__ import annotations

import argparse
import dataclasses
from typing import TypeVar

T = TypeVar("T")


def options(cls: type[T], args: argparse.Namespace) -> T:
    """A command's options as the dataclass cls, filled from its parsed command line: what
    another command fills in itself to call it as a function."""
    return cls(**{f.name: getattr(args, f.name) for f in dataclasses.fields(cls)  # type: ignore[arg-type]
                  if hasattr(args, f.name)})
