"""The error every command may raise: one line for stderr and the exit status it ends with."""
from __future__ import annotations

# Exit statuses shared by every command (each command's --help lists the ones it uses).
OK = 0
FAILED = 1        # the command ran and found a problem, or the board failed it
USAGE = 2         # bad arguments or input, no board, the board's port held by another program
INTERRUPTED = 130  # Ctrl-C


class CardtableError(Exception):
    """A failure the user can act on: `cardtable COMMAND: MESSAGE` on stderr, then exit `status`."""

    status = FAILED

    def __init__(self, msg: str, status: int | None = None) -> None:
        super().__init__(msg)
        if status is not None:
            self.status = status


class UsageError(CardtableError):
    """Bad arguments or input (exit status 2)."""

    status = USAGE
