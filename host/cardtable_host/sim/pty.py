"""A PN532 emulator on a pseudo-terminal, so a real serial.Serial(port) can talk to it."""
from __future__ import annotations

import os
import select
import threading
import tty
from types import TracebackType

from cardtable.sim.pn532_emu import PN532Emu, Stream


class PtyPN532:
    """Relay bytes between a pty and a PN532Emu (HSU face) on a background thread.

    `port` is the /dev/pts/N path to open. Use as a context manager; touch the emulator
    (place tags, set knobs) inside `with bridge.lock:` while it runs.
    """

    def __init__(self, emu: PN532Emu | None = None, baud: int = 115200) -> None:
        self.emu = emu if emu is not None else PN532Emu()
        self.stream = Stream(self.emu, baud)
        self.lock = threading.Lock()
        self.port = ""
        self._master = -1
        self._slave = -1
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> "PtyPN532":
        """Open the pty and start relaying."""
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)  # no echo, no line discipline: bytes pass untouched
        self.port = os.ttyname(self._slave)
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="pty-pn532", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        # The slave fd stays open here, so the master never sees EIO when a client closes.
        while not self._stop.is_set():
            r, _, _ = select.select([self._master], [], [], 0.002)
            if r:
                try:
                    data = os.read(self._master, 4096)
                except OSError:
                    break
                with self.lock:
                    self.stream.write(data)
            with self.lock:
                out = self.stream.read(self.stream.in_waiting) if self.stream.in_waiting else b""
            if out:
                try:
                    os.write(self._master, out)
                except OSError:
                    break

    def stop(self) -> None:
        """Stop relaying and close both ends of the pty."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        for fd in (self._master, self._slave):
            if fd >= 0:
                os.close(fd)
        self._master = self._slave = -1

    def __enter__(self) -> "PtyPN532":
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
