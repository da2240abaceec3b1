"""A pseudo-terminal standing in for a serial port, relaying bytes to a simulated device.

One relay serves every simulated device a real ``serial.Serial(port)`` talks to: both virtual
boards' USB serial (sim/board.py, the WebAssembly board and the rp2 board) and a PN532 on a
USB-serial adapter (``PtyPN532``, for `cardtable enroll --port`).
"""
from __future__ import annotations

import os
import select
import tempfile
import threading
import time
import tty
from types import TracebackType
from typing import Callable

from cardtable.sim.pn532_emu import PN532Emu, Stream
from cardtable_host.board import portlock

PENDING_MAX = 1 << 20  # bytes kept for a slow or absent reader before dropping the oldest


class PtyRelay:
    """A pty at ``.port`` whose other side is a device, relayed on a background thread.

    Bytes a program writes to the port go to ``to_device(data)``; ``from_device()`` gives what
    the device sent since it was last asked (b"": nothing yet; None: the device is gone, and
    the relay ends). ``device_fd``, when given, becomes readable when the device has sent
    something; without it the device is asked every ``poll_s`` seconds. ``announce``: tell
    portlock a board serves the pty (cardtable's commands refuse other ptys). ``.stable_port``
    is a symlink to the port that comes back with ``replug()`` (to a new pty), as
    ``/dev/ttyACM0`` comes back when a pulled cable is plugged in again.
    """

    def __init__(self, to_device: Callable[[bytes], None], from_device: Callable[[], bytes | None],
                 device_fd: int | None = None, poll_s: float = 0.5, announce: bool = False,
                 name: str = "pty-relay") -> None:
        self.to_device = to_device
        self.from_device = from_device
        self.device_fd = device_fd
        self.poll_s = poll_s
        self.announce = announce
        self.name = name
        self.port = ""
        self.stable_port = ""
        self._master = -1
        self._slave = -1
        self._pending = bytearray()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._wake_r = -1
        self._wake_w = -1
        self._dir: tempfile.TemporaryDirectory[str] | None = None

    # -- life -------------------------------------------------------------------------

    def start(self) -> "PtyRelay":
        """Open the pty and start relaying."""
        self._dir = tempfile.TemporaryDirectory(prefix="cardtable-pty-")
        self._wake_r, self._wake_w = os.pipe()
        self._open()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5) -> None:
        """Stop relaying and close the pty."""
        self._stop.set()
        self._wake()
        if self._thread is not None:
            self._thread.join(timeout=timeout)
            self._thread = None
        with self._lock:
            self._close()
        for fd in (self._wake_r, self._wake_w):
            if fd >= 0:
                os.close(fd)
        self._wake_r = self._wake_w = -1
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def unplug(self) -> None:
        """Pull the cable: the pty goes away (the device goes on, unheard), and ``stable_port``
        with it, as /dev/ttyACM0 does: the pty's number may go to another pty at once, which a
        link following the old name would take for this device."""
        with self._lock:
            self._close()
            self._pending.clear()
            self.port = ""
            if self.stable_port and os.path.lexists(self.stable_port):
                os.unlink(self.stable_port)
        self._wake()

    def replug(self) -> str:
        """Plug the cable back: a new pty (``stable_port`` points at it); returns ``.port``."""
        with self._lock:
            if self._master < 0:
                self._open()
        self._wake()
        return self.port

    def __enter__(self) -> "PtyRelay":
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def _open(self) -> None:
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)  # a USB CDC port or a UART: no echo, no line discipline
        os.set_blocking(self._master, False)
        self.port = os.ttyname(self._slave)
        if self.announce:
            portlock.announce(self.port)
        assert self._dir is not None
        link = os.path.join(self._dir.name, "ttyACM0")
        if os.path.lexists(link):
            os.unlink(link)
        os.symlink(self.port, link)
        self.stable_port = link

    def _close(self) -> None:
        if self.port and self.announce:
            portlock.withdraw(self.port)
        for fd in (self._master, self._slave):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._master = self._slave = -1

    def _wake(self) -> None:
        if self._wake_w >= 0:
            try:
                os.write(self._wake_w, b"x")
            except OSError:
                pass

    # -- the relay ----------------------------------------------------------------------

    def _run(self) -> None:
        # The slave end stays open here, so the master never sees EIO when a program closes it.
        while not self._stop.is_set():
            with self._lock:
                master = self._master
                pending = bool(self._pending)
            device = [] if self.device_fd is None else [self.device_fd]
            rlist = [self._wake_r] + device + ([master] if master >= 0 else [])
            wlist = [master] if pending and master >= 0 else []
            try:
                r, _, _ = select.select(rlist, wlist, [], self.poll_s)
            except (OSError, ValueError):
                with self._lock:
                    unplugged = self._master != master
                if unplugged:
                    continue  # the pty was closed under select (an unplug): go on without it
                break
            if self._wake_r in r:
                try:
                    os.read(self._wake_r, 64)
                except OSError:
                    pass
            if master >= 0 and master in r:
                try:
                    data = os.read(master, 65536)
                except BlockingIOError:
                    data = b""
                except OSError:
                    data = b""  # nobody has the port open (EIO): nothing to read
                    time.sleep(0.01)
                if data:
                    try:
                        self.to_device(data)
                    except OSError:
                        break
            if self.device_fd is None or self.device_fd in r:
                out = self.from_device()
                if out is None:
                    break  # the device is gone
                if out:
                    with self._lock:
                        if self._master >= 0:
                            self._pending.extend(out)
                            if len(self._pending) > PENDING_MAX:
                                del self._pending[:len(self._pending) - PENDING_MAX]
            with self._lock:
                if self._pending and self._master >= 0:
                    try:
                        n = os.write(self._master, self._pending)
                        del self._pending[:n]
                    except BlockingIOError:
                        pass
                    except OSError:
                        self._pending.clear()


class PtyPN532(PtyRelay):
    """A PN532 emulator (its HSU face) on a pty, as on a USB-serial adapter.

    Touch the emulator (place tags, set knobs) inside ``with bridge.lock:`` while it runs.
    """

    def __init__(self, emu: PN532Emu | None = None, baud: int = 115200) -> None:
        self.emu = emu if emu is not None else PN532Emu()
        self.stream = Stream(self.emu, baud)
        self.lock = threading.Lock()
        # Its answers come at the UART's pace: asked for every 2 ms.
        PtyRelay.__init__(self, self._write, self._read, poll_s=0.002, name="pty-pn532")

    def _write(self, data: bytes) -> None:
        with self.lock:
            self.stream.write(data)

    def _read(self) -> bytes:
        with self.lock:
            return self.stream.read(self.stream.in_waiting) if self.stream.in_waiting else b""

    def __enter__(self) -> "PtyPN532":
        self.start()
        return self
