"""The host's half of lockstep on the rp2 board: a Link whose waits let the standing chip run.

With ``Rp2Board(lockstep=True)`` the chip pauses after every line it sends over USB, its
emulated clock stopped, until the host says ``go`` (host/cardtable_host/sim/rp2/lockstep.mjs).
This Link says it at the only moments that cannot change what the chip sees:

- the caller waits for a message (``next`` with a timeout, the queue empty): it has done
  everything it does in answer to the lines so far;
- a line was written (a command, then its answer waited for), with the count of bytes written,
  so the chip takes them at the pause's instant, in one piece;
- a line came while a command waits for its answer and it is not that answer: the caller is
  blocked, nothing it does can depend on the line yet.

Each go names the lines read so far; one that comes before the line the chip paused at is
stale and the chip stays paused. Before the caller is told that no message is waiting, the
link has read every line the standing chip sent (a step of a wait may have sent some), so
what the caller does next never depends on how fast this reader thread was. So a placement, a lift or a command lands at the emulated
instant of the line it answers, however long the host took: figures on the emulated clock are
the same on a loaded machine and an idle one. Open it with ``Rp2Board.lockstep_link()``.
"""
from __future__ import annotations

import threading
import time
from typing import Any

from cardtable_host.board.link import Link


class LockstepLink(Link):
    """A Link to an Rp2Board running in lockstep (see the module's doc)."""

    def __init__(self, board: Any, lines: int, serial: int, timeout: float = 5.0, **kw: Any) -> None:
        """lines, serial: the lines the chip had sent and the bytes it had taken when the link
        opened (the chip standing, everything before discarded by the open)."""
        self._board = board
        self._lines_base = lines
        self._serial_base = serial
        self.lines = 0  # non-blank lines read (as the board counts them)
        self.written = 0  # bytes written
        self._seen = threading.Condition()
        Link.__init__(self, board.port, timeout=timeout, **kw)

    def _open(self, timeout: float, first: bool = False) -> None:
        Link._open(self, timeout, first)
        self.written += 1  # the newline every open writes

    def go(self) -> None:
        """Tell the chip to run on from its pause at the last line read (ignored if it is not
        paused there), once it has every byte written so far."""
        self._board.go(self._lines_base + self.lines, self._serial_base + self.written)

    def _line(self, raw: bytes) -> None:
        with self._plock:
            waiting = [p for p in self._pending.values() if not p.done.is_set()]
        with self._seen:
            Link._line(self, raw)
            self.lines += 1
            self._seen.notify_all()
        if waiting and not any(p.done.is_set() for p in waiting):
            self.go()  # a command waits for its answer: nobody acts on this line now

    def send_raw(self, data: bytes) -> None:
        self.written += len(data)  # first: a go the reader sends meanwhile waits for these too
        try:
            Link.send_raw(self, data)
        except BaseException:
            self.written -= len(data)
            raise
        self.go()

    def caught_up(self) -> None:
        """Wait until every line the chip sent before it stood has been read (nothing, while
        it runs)."""
        st = self._board.held(now=True)
        if st.get("why") is None:
            return
        want = int(st["lines"]) - self._lines_base
        end = time.monotonic() + self.timeout
        with self._seen:
            while self.lines < want and time.monotonic() < end:
                self._seen.wait(0.2)

    def next(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next device message; while none is queued the chip runs on (None: none came
        within timeout seconds of wall time)."""
        msg = Link.next(self, 0)
        if msg is not None:
            return msg
        self.caught_up()
        if timeout == 0:
            return Link.next(self, 0)
        end = None if timeout is None else time.monotonic() + timeout
        with self._seen:
            while True:
                msg = Link.next(self, 0)
                if msg is not None:
                    return msg
                self.go()
                left = 0.5 if end is None else min(0.5, end - time.monotonic())
                if left <= 0:
                    return None
                self._seen.wait(left)

    def drain(self) -> list[dict[str, Any]]:
        """Every message the standing chip has sent, without letting it run."""
        self.caught_up()
        return Link.drain(self)


__all__ = ["LockstepLink"]
