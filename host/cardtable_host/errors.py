"""The error every command may raise: one line for stderr and the exit status it ends with."""
from __future__ import annotations

import sys
from typing import Any, Callable

# Exit statuses shared by every command (cli.EXIT_STATUS and each command's --help list them).
OK = 0
FAILED = 1        # the command ran and found a problem, or the board failed it
USAGE = 2         # bad arguments or input, no board, the board's port held by another program
INTERRUPTED = 130  # Ctrl-C
TERMINATED = 143   # SIGTERM (a command that serves or simulates ends as Ctrl-C ends it)


class CardtableError(Exception):
    """A failure the user can act on: `cardtable COMMAND: MESSAGE` on stderr, then exit `status`.

    Under --json the command's standard output also gets one object: `json` when given, else
    {"ok": false, "error": MESSAGE, "status": STATUS}; none when `reported` (the command
    printed its own report, which says the error).
    """

    status = FAILED

    def __init__(self, msg: str, status: int | None = None, *, json: dict[str, Any] | None = None,
                 reported: bool = False) -> None:
        super().__init__(msg)
        if status is not None:
            self.status = status
        self.json = json
        self.reported = reported

    def json_report(self) -> dict[str, Any] | None:
        """The object --json prints for this error (None: the command has printed its own)."""
        if self.reported:
            return None
        return self.json if self.json is not None else {"ok": False, "error": str(self), "status": self.status}


class UsageError(CardtableError):
    """Bad arguments or input (exit status 2)."""

    status = USAGE


class Interrupted(CardtableError):
    """Ctrl-C with something to say (what to run to finish): exit status 130."""

    status = INTERRUPTED


def warn(text: str) -> None:
    """Say something wrong that does not stop the command: one line on stderr."""
    print(text, file=sys.stderr, flush=True)


def end_on_sigterm() -> Callable[[], Any]:
    """From now on SIGTERM raises SystemExit(TERMINATED), so the command's clean-up runs as on
    Ctrl-C; returns the undo."""
    import signal

    def term(_sig: int, _frame: Any) -> None:
        raise SystemExit(TERMINATED)

    try:
        old = signal.signal(signal.SIGTERM, term)
    except ValueError:  # not the main thread
        return lambda: None
    return lambda: signal.signal(signal.SIGTERM, old)
