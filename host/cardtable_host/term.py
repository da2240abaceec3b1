"""Terminal output helpers: colour only where a person watches."""
from __future__ import annotations

import os
import sys

_CODES = {"red": "31", "green": "32", "yellow": "33", "blue": "34", "magenta": "35",
          "cyan": "36", "bold": "1", "dim": "2"}


def use_colour(stream=None) -> bool:
    """True when stream is a terminal and NO_COLOR is not set."""
    stream = stream or sys.stdout
    return hasattr(stream, "isatty") and stream.isatty() and "NO_COLOR" not in os.environ


def paint(text: str, colour: str, on: bool | None = None) -> str:
    """text in colour when on (default: stdout is a terminal)."""
    if on is None:
        on = use_colour()
    if not on:
        return text
    return "\x1b[%sm%s\x1b[0m" % (_CODES[colour], text)
