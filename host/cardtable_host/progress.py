"""A one-line progress bar for long work, drawn only where a person watches (a terminal)."""
from __future__ import annotations

import shutil
import sys
from typing import TextIO

from cardtable_host.term import paint, use_colour


class Progress:
    """`done/total` with a bar and a short message, redrawn in place on a terminal.

    Off a terminal (a pipe, a log file, --json) nothing is drawn: callers print their own
    plain lines, so programs reading the output never see carriage returns.
    """

    def __init__(self, total: int, label: str = "", stream: TextIO | None = None,
                 enabled: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.total = max(total, 1)
        self.label = label
        self.done = 0
        self.message = ""
        if enabled is None:
            enabled = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.enabled = enabled
        self.colour = self.enabled and use_colour(self.stream)
        self._shown = False

    def update(self, done: int | None = None, message: str | None = None) -> None:
        """Move the bar to done (default: unchanged) and show message."""
        if done is not None:
            self.done = min(done, self.total)
        if message is not None:
            self.message = message
        self._draw()

    def advance(self, n: int = 1, message: str | None = None) -> None:
        self.update(self.done + n, message)

    def note(self, text: str) -> None:
        """Print a line above the bar (a refusal, a warning) and redraw the bar under it."""
        if self.enabled and self._shown:
            self.stream.write("\r\x1b[K")
        self.stream.write(text + "\n")
        self.stream.flush()
        if self.enabled and self._shown:
            self._draw()

    def text(self, width: int) -> str:
        """The bar as plain text, at most width columns."""
        count = "%d/%d" % (self.done, self.total)
        head = (self.label + " ") if self.label else ""
        barw = max(10, min(30, width // 3))
        fill = self.done * barw // self.total
        bar = "[" + "#" * fill + "." * (barw - fill) + "]"
        line = "%s%s %s  %s" % (head, bar, count, self.message)
        return line[:width - 1]

    def _draw(self) -> None:
        if not self.enabled:
            return
        width = shutil.get_terminal_size((80, 24)).columns
        line = self.text(width)
        if self.colour and "[" in line:
            a = line.index("[")
            b = line.find("]", a)
            if b > a:
                line = line[:a + 1] + paint(line[a + 1:b].replace(".", " "), "green", True) + line[b:]
        self.stream.write("\r\x1b[K" + line)
        self.stream.flush()
        self._shown = True

    def close(self) -> None:
        """End the bar's line."""
        if self.enabled and self._shown:
            self.stream.write("\n")
            self.stream.flush()
        self._shown = False
