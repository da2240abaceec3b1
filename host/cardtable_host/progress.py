"""A one-line progress bar for long work (rich's), drawn only where a person watches (a terminal)."""
from __future__ import annotations

import shutil
import sys
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TaskID, TextColumn
from rich.progress import Progress as RichProgress

from cardtable_host.term import use_colour


class Progress:
    """`done/total` with a bar and a short message, redrawn in place on a terminal.

    Off a terminal (a pipe, a log file, --json) nothing is drawn: callers print their own
    plain lines, so programs reading the output never see cursor movements.
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
        self._bar: RichProgress | None = None
        self._task = TaskID(0)

    def _shown(self) -> RichProgress:
        if self._bar is None:
            console = Console(file=self.stream, force_terminal=True, no_color=not use_colour(self.stream),
                              width=shutil.get_terminal_size((80, 24)).columns, highlight=False)
            self._bar = RichProgress(TextColumn("{task.description}"), BarColumn(bar_width=30),
                                     MofNCompleteColumn(), TextColumn("{task.fields[message]}"),
                                     console=console, auto_refresh=False)
            self._task = self._bar.add_task(self.label, total=self.total, message="")
            self._bar.start()
        return self._bar

    def update(self, done: int | None = None, message: str | None = None, total: int | None = None) -> None:
        """Move the bar to done (default: unchanged) of total (default: unchanged) and show message."""
        if total is not None:
            self.total = max(total, 1)
        if done is not None:
            self.done = min(done, self.total)
        if message is not None:
            self.message = message
        if self.enabled:
            bar = self._shown()
            bar.update(self._task, completed=self.done, total=self.total, message=self.message)
            bar.refresh()

    def advance(self, n: int = 1, message: str | None = None) -> None:
        self.update(self.done + n, message)

    def note(self, text: str) -> None:
        """Print a line above the bar (a refusal, a warning); the bar stays under it."""
        if self._bar is not None:
            self._bar.console.print(text, markup=False, soft_wrap=True)
            return
        self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
