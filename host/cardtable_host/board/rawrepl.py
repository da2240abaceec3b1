"""The board's raw REPL: mpremote's SerialTransport used as a library - survey the files,
write them, read the config, reset and wait for the hello (what `cardtable flash` and
`cardtable doctor` drive)."""
from __future__ import annotations

import base64
import json
import time
from typing import Any, Callable

from cardtable_host.board import portlock
from cardtable_host.errors import CardtableError

CHUNK = 768  # bytes per write on the raw REPL (1 kB of base64)
HELLO_TIMEOUT = 30.0
SERIAL_TIMEOUT = 10.0  # seconds any one read of the raw REPL may wait (mpremote's own default)
MAINTENANCE = "maintenance"
CONFIG = "config.json"
OURS = ("lib/cardtable", "boards")  # board folders flash owns; stale files there are removed

# Run on the board, a few small execs rather than one big one: the WebAssembly port (the
# virtual board) collects garbage only between top-level calls, and a board stopped with
# Ctrl-C may still hold the table's heap.
_SURVEY_DEFS = """\
import sys, os, json, hashlib, binascii, gc
def _h(p):
    try:
        f = open(p, 'rb')
    except OSError:
        return None
    d = hashlib.sha256()
    n = 0
    b = bytearray(256)
    while True:
        k = f.readinto(b)
        if not k:
            break
        d.update(b if k == 256 else b[:k])
        n += k
    f.close()
    return [n, binascii.hexlify(d.digest()).decode()]
def _hs(ps):
    for p in ps:
        print(json.dumps([p, _h(p)]))
def _walk(d):
    try:
        it = list(os.ilistdir(d))
    except OSError:
        return
    for e in it:
        p = d + '/' + e[0]
        if e[1] & 0x4000:
            _walk(p)
        else:
            print(json.dumps(p))
def _info():
    i = sys.implementation
    try:
        st = os.statvfs('/')
        free = st[0] * st[3]
    except Exception:
        free = -1
    try:
        from cardtable._build import BUILD as b
    except ImportError:
        b = None
    print(json.dumps({'name': i.name, 'version': list(i.version[:3]), 'mpy': getattr(i, '_mpy', 0),
                      'platform': sys.platform, 'free': free, 'build': b}))
gc.collect()
"""
_BATCH = 6  # files hashed per exec


class FlashError(CardtableError):
    """A failure with advice; status is the exit status."""

    def __init__(self, msg: str, status: int = 1) -> None:
        super().__init__(msg, status)


class Board:
    """The board over mpremote's SerialTransport (raw REPL), used as the library it is."""

    def __init__(self, port: str) -> None:
        """Open the port (the caller holds it: portlock); every read has a deadline."""
        from mpremote.transport import TransportError, TransportExecError
        from mpremote.transport_serial import SerialTransport

        self.TransportError = TransportError
        self.TransportExecError = TransportExecError
        try:
            self.t = SerialTransport(port, baudrate=115200, timeout=SERIAL_TIMEOUT)
        except TransportError as e:
            if portlock.exclusive_busy(port):
                raise portlock.busy_error(port) from None
            raise FlashError("cannot open %s (%s)" % (port, e), 2)
        self.port = port

    def enter(self) -> None:
        # No soft reset on the way in: Ctrl-C stops the table's loop and its watchdog stays
        # fed from a timer; a soft reset now would let the watchdog reset the board mid-copy.
        try:
            self.t.enter_raw_repl(soft_reset=False)
        except self.TransportError as e:
            raise FlashError("the board on %s does not answer Ctrl-C with a raw REPL (%s): is another "
                             "program (a cardtable monitor?) reading the port? is it running MicroPython? "
                             "close other programs, or unplug the board and plug it in again, then retry"
                             % (self.port, e), 2)

    def run(self, code: str) -> str:
        return self.t.exec(code).decode()

    def info(self) -> dict[str, Any]:
        """The board's MicroPython, platform, free flash and frozen cardtable build (or None)."""
        self.run(_SURVEY_DEFS)
        info: dict[str, Any] = json.loads(self.run("_info()").strip().splitlines()[-1])
        return info

    def survey(self, paths: list[str]) -> dict[str, Any]:
        """[size, sha256] of paths, and our folders' files (after info())."""
        info: dict[str, Any] = {}
        files: dict[str, Any] = {}
        for i in range(0, len(paths), _BATCH):
            for line in self.run("_hs(%r)" % paths[i:i + _BATCH]).splitlines():
                if line.strip():
                    p, h = json.loads(line)
                    files[p] = h
        tree = []
        for d in OURS:
            tree += [json.loads(line) for line in self.run("_walk(%r)" % d).splitlines() if line.strip()]
        info.update(files=files, tree=tree)
        return info

    def read_config(self) -> dict[str, Any]:
        try:
            text = bytes(self.t.fs_readfile(CONFIG)).decode()
        except OSError:
            return {}
        try:
            obj = json.loads(text)
        except ValueError:
            return {}
        return obj if isinstance(obj, dict) else {}

    def mkdirs(self, paths: list[str]) -> None:
        dirs: list[str] = []
        for p in paths:
            parts = p.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                d = "/".join(parts[:i])
                if d not in dirs:
                    dirs.append(d)
        if dirs:
            self.run("import os\nfor d in %r:\n try:\n  os.mkdir(d)\n except OSError:\n  pass\n" % dirs)

    def write(self, path: str, data: bytes, progress: Callable[[int, int], None] | None = None) -> None:
        """Write a file through the raw REPL, base64 in each chunk (a third of repr's bytes)."""
        try:
            self.t.exec("from binascii import a2b_base64 as _a\nf=open(%r,'wb')\nw=f.write" % path)
            for i in range(0, len(data), CHUNK):
                self.t.exec("w(_a(%r))" % base64.b64encode(data[i:i + CHUNK]))
                if progress is not None:
                    progress(min(i + CHUNK, len(data)), len(data))
            self.t.exec("f.close()")
        except self.TransportExecError as e:
            raise OSError("%s: %s" % (path, e.error_output.strip().splitlines()[-1:] or e)) from None

    def bootloader(self) -> None:
        """Restart the Pico into its bootrom's BOOTSEL mode (the RPI-RP2 drive, picotool)."""
        try:
            self.t.exec_raw_no_follow("import machine\nmachine.bootloader()")
        except (self.TransportError, OSError):
            pass  # the port may vanish before the answer

    def remove(self, paths: list[str]) -> None:
        if paths:
            self.run("import os\nfor p in %r:\n try:\n  os.remove(p)\n except OSError:\n  pass\n" % paths)

    def reset_and_hello(self, timeout: float = HELLO_TIMEOUT) -> dict[str, Any]:
        """Soft-reset from the friendly REPL (main.py runs) and wait for the firmware's hello."""
        ser = self.t.serial
        self.t.exit_raw_repl()
        time.sleep(0.05)
        ser.reset_input_buffer()
        ser.write(b"\x04")  # Ctrl-D at the friendly REPL: soft reboot, boot.py and main.py run
        ser.timeout = 0.1  # a board that says nothing must not block past the deadline
        seen = []
        buf = b""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            chunk = ser.read(ser.in_waiting or 1)
            if not chunk:
                continue
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                text = line.decode("utf-8", "replace").strip()
                if not text:
                    continue
                seen.append(text)
                if text.startswith("{"):
                    try:
                        msg = json.loads(text)
                    except ValueError:
                        continue
                    if isinstance(msg, dict) and msg.get("type") == "hello":
                        return msg
        said = "\n  ".join(seen[-8:]) or "(nothing)"
        raise FlashError("the board did not say hello within %g s after the reset; it said:\n  %s"
                         % (timeout, said), 1)

    def look(self) -> tuple[bool, bool]:
        """(the maintenance flag is set, the table's main.py is there), at the raw REPL."""
        said = self.run("import os\n_l = os.listdir('/')\nprint('%s' in _l, 'main.py' in _l)" % MAINTENANCE)
        words = said.split()
        return words[:1] == ["True"], words[1:2] == ["True"]

    def close(self) -> None:
        try:
            self.t.close()
        except OSError:
            pass
