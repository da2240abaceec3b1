"""The virtual board: firmware/main.py on real MicroPython (WebAssembly), reachable on a pty.

``VirtualBoard`` starts ``host/cardtable_host/sim/vboard/board.mjs`` (Node) and relays its USB-serial bytes to
a pseudo-terminal (sim/pty.py), so ``.port`` (a ``/dev/pts/N`` path) behaves like a Pico's
``/dev/ttyACM0``: the link protocol while the table runs, the MicroPython REPL after a
Ctrl-C (mpremote connects, lists, copies, resets). A control channel beside the serial
lets the simulation lay tags on the emulated readers (two on one pad too), press buttons, cut
a reader's cable, set its PN532's fault knobs, reset the board or cut its power::

    with VirtualBoard("pico-i2c-2seat", game="california-jacks") as vb:
        link = Link(vb.port)
        vb.place("c", "9S")        # the cut card: deals the hand
        vb.lift("c")

The device package runs from the .mpy build (``tools/mpy/build.py``), as `cardtable flash`
puts it on a board; ``mpy=False`` runs the .py sources instead (more heap, may not fit). An
installed cardtable (no checkout around it) runs the installed packages: the device package
compiled into the user's cache folder (sim/devicelib.py), main.py and the board files from
``cardtable_firmware``, the WebAssembly MicroPython from the cache (sim/nodepkgs.py).

- ``.port`` is the pty's ``/dev/pts/N``; ``.stable_port`` a symlink to it that goes with
  ``unplug()`` and comes back with ``replug()`` (a pulled cable: the pty closes, a new one
  opens), as ``/dev/ttyACM0`` does. A reset or a power cut keeps the pty.
- Heap: the table may keep a Pico's 192 KB alive (``heap``), plus what the emulated
  readers take, which a real board does not carry. The heap is collected once it holds more
  than that budget, as a Pico's is once full; ``status()`` reports the most found alive at a
  collection (``heap_live_max``) against the budget (``heap_budget``), and a step that
  begins over it raises a fault on the link. See host/cardtable_host/sim/vboard/board.mjs.
- Set CARDTABLE_VB_TRACE=1 to see every control request and reply on stderr.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from cardtable_host.errors import warn

if TYPE_CHECKING:
    from cardtable_host.sim.pty import PtyRelay

REPO_ROOT = Path(__file__).resolve().parents[3]
SIM_DIR = Path(__file__).resolve().parent  # the simulators: vboard/ (WebAssembly), rp2/ (RP2040)
BOARD_MJS = SIM_DIR / "vboard" / "board.mjs"
ENV_NODE = "CARDTABLE_NODE"  # the node binary to use (default: node on PATH)
ENV_BUILD = "CARDTABLE_BUILD"  # where .mpy builds go (default: build/ in the repository)
ENV_TRACE = "CARDTABLE_VB_TRACE"  # set: print every control request and reply on stderr
_CONSOLE_MAX = 8192  # the last serial bytes the board printed, kept for console()


class BoardError(RuntimeError):
    """The virtual board could not start, or a control request failed."""


def node_binary() -> str:
    """The Node.js binary: $CARDTABLE_NODE, else node on PATH."""
    node = os.environ.get(ENV_NODE) or shutil.which("node")
    if not node:
        raise BoardError("Node.js is not installed (the virtual board runs MicroPython under Node); "
                         "install nodejs, or set %s" % ENV_NODE)
    return node


def in_checkout() -> bool:
    """True when this cardtable runs from a checkout (its firmware/ and tools/ beside it)."""
    return (REPO_ROOT / "tools" / "mpy" / "build.py").is_file() and (REPO_ROOT / "firmware" / "main.py").is_file()


def _build_dir() -> Path:
    return Path(os.environ.get(ENV_BUILD) or REPO_ROOT / "build").absolute()


def mpy_build() -> tuple[Path, Path]:
    """Build (if stale) the device package as .mpy; its lib folder and the PN532 emulator in it
    (cardtable/sim: the simulated hardware, which the virtual board keeps off its flash).

    Serialised by a lock file, so boards started in parallel do not build over each other.
    """
    posix_pty()  # the virtual board needs a POSIX system: say so before anything starts
    if not in_checkout():
        return installed_lib(True)
    build = _build_dir()
    build.mkdir(parents=True, exist_ok=True)
    lib = build / "mpy" / "lib"
    import fcntl

    with open(build / ".mpy.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        proc = subprocess.run([sys.executable, str(REPO_ROOT / "tools" / "mpy" / "build.py"),
                               "--out", str(build / "mpy")], capture_output=True, text=True)
        if proc.returncode:
            raise BoardError("building the .mpy firmware failed:\n" + proc.stdout + proc.stderr)
    return lib, lib / "cardtable" / "sim" / "pn532_emu.mpy"


def installed_lib(mpy: bool) -> tuple[Path, Path]:
    """An installed cardtable's device package in the cache (.mpy or .py); its lib folder and
    the PN532 emulator in it."""
    from cardtable_host.sim.devicelib import DeviceLibError, device_lib

    try:
        lib = device_lib(mpy)
    except (DeviceLibError, OSError) as e:
        raise BoardError("preparing the device package failed: %s" % e) from None
    return lib, lib / "cardtable" / "sim" / ("pn532_emu.mpy" if mpy else "pn532_emu.py")


def posix_pty() -> type[PtyRelay]:
    """The pseudo-terminal relay, or a BoardError saying the virtual board needs Linux or macOS."""
    try:
        from cardtable_host.sim.pty import PtyRelay
    except ImportError:
        raise BoardError("the virtual board's USB serial port is a pseudo-terminal, which needs "
                         "Linux or macOS (on Windows, use WSL)") from None
    return PtyRelay


def _write_all(fd: int, data: bytes) -> None:
    """Write all of data to a blocking descriptor (the board process's stdin)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def uid_hex(zone: str, text: str | None, uid: bytes | str | None, kind: int | str) -> str:
    """A tag's UID in hex: uid as given, else a stable one for its text (4 bytes for a bank card)."""
    if uid is None:
        from cardtable_host.sim.table import uid_for

        uid = uid_for(text or "foreign:" + zone)
    if isinstance(uid, (bytes, bytearray)):
        uid = uid.hex()
    if kind in ("bank", "classic") and len(uid) == 14:
        uid = uid[:8]
    return uid


class VirtualBoard:
    """A simulated Pico running the table, its USB serial on a pty at ``.port``.

    board: a board config name (firmware/boards); game or layout: what the table plays
    (default: what the flash's /config.json says, else the board's first layout);
    flash_dir: a host directory holding the board's flash, kept across restarts (None: a
    fresh flash each time); install: copy the firmware tree into the flash (default: only
    when it is empty); repl: power up into the REPL (the table not started); stickers: while
    the table enrolls through a zone, a fresh blank sticker is laid there whenever the one
    on it holds a card code (a person tagging a deck).
    """

    # What a program driving the board may wait, in wall seconds: the boot to the table, a
    # command's answer on the link, the board's judgement of a card laid on a reader.
    KIND = "virtual board"  # what it is called where a person reads
    BOOT_S = 60.0
    LINK_S = 10.0
    JUDGE_S = 20.0

    def __init__(self, board: str | None = "pico-i2c-4seat", flash_dir: str | os.PathLike[str] | None = None,
                 game: str | None = None, layout: str | None = None, install: bool | None = None,
                 mpy: bool = True, heap: str = "192k", period_ms: float = 1, steps_per_tick: int = 1,
                 repl: bool = False, echo_stderr: bool = False, stickers: bool = False) -> None:
        self.board = board
        self.flash_dir = None if flash_dir is None else Path(flash_dir).absolute()  # the board runs elsewhere
        self.game = game
        self.layout = layout
        self.install = install
        self.mpy = mpy
        self.heap = heap
        self.period_ms = period_ms
        self.steps_per_tick = steps_per_tick
        self.repl = repl
        self.echo_stderr = echo_stderr
        self.stickers = stickers
        self.mode = "off"
        self.stderr_lines: deque[str] = deque(maxlen=200)
        self._proc: subprocess.Popen[bytes] | None = None
        self._ctl: socket.socket | None = None
        self._pty: PtyRelay | None = None
        self._console = bytearray()
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._replies: dict[int, dict[str, Any]] = {}
        self._next_id = 0
        self._threads: list[threading.Thread] = []
        self._pass_fds: tuple[int, ...] = ()  # more descriptors for the board process
        self._env: dict[str, str] | None = None  # its environment (None: ours)

    def _node_env(self) -> dict[str, str] | None:
        """The board process's environment: ours (or the one set), naming the WebAssembly
        MicroPython in the user's cache when this is no checkout (installed there on first use)."""
        from cardtable_host.sim import nodepkgs

        try:
            modules = nodepkgs.node_modules(warn)  # its progress line, on stderr
        except nodepkgs.NodePackagesError as e:
            raise BoardError(str(e)) from None
        if modules == REPO_ROOT / "node_modules":
            return self._env
        env = dict(self._env or os.environ, CARDTABLE_MICROPYTHON_WASM=str(nodepkgs.micropython_mjs(modules)),
                   CARDTABLE_NODE_MODULES=str(modules))
        if not in_checkout():  # the faster glue of the WebAssembly MicroPython (vboard/mp.mjs) goes there
            from cardtable_host.config.dirs import cache_dir

            env.setdefault(ENV_BUILD, str(cache_dir() / "build"))
        return env

    # -- life -------------------------------------------------------------------------

    def start(self, timeout: float = 30) -> "VirtualBoard":
        """Start the board and wait until it runs the table (or sits at its REPL)."""
        cmd = self._command()
        ours, theirs = socket.socketpair()
        cmd += ["--control-fd", str(theirs.fileno())]
        self._ctl = ours
        try:
            self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, pass_fds=(theirs.fileno(), *self._pass_fds),
                                          cwd=str(REPO_ROOT), env=self._node_env())
        finally:
            theirs.close()
        assert self._proc.stdout is not None and self._proc.stdin is not None
        out_fd, in_fd = self._proc.stdout.fileno(), self._proc.stdin.fileno()
        os.set_blocking(out_fd, False)
        self._pty = posix_pty()(lambda data: _write_all(in_fd, data), lambda: self._serial_out(out_fd),
                             device_fd=out_fd, announce=True, name="vb-serial").start()
        for target, name in ((self._control_reader, "vb-control"), (self._stderr_reader, "vb-stderr")):
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
            self._threads.append(t)
        want = ("repl",) if self.repl else ("table", "repl")
        if not self.wait_mode(want, timeout):
            err = "\n".join(self.stderr_lines)
            self.close()
            raise BoardError("the virtual board did not start within %g s%s" % (
                timeout, (":\n" + err) if err else ""))
        return self

    def _command(self) -> list[str]:
        """The board process's command line (without the control channel)."""
        node = node_binary()
        cmd = [node, str(BOARD_MJS), "--period", str(self.period_ms), "--steps", str(self.steps_per_tick),
               "--heap", self.heap]
        if self.mpy:
            lib, emu = mpy_build()
            cmd += ["--lib", str(lib), "--emu", str(emu)]
        elif not in_checkout():
            lib, emu = installed_lib(False)
            cmd += ["--lib", str(lib), "--emu", str(emu)]
        if not in_checkout():
            from cardtable_host.board.firmwarefiles import firmware_dir

            cmd += ["--firmware", str(firmware_dir())]
        flash = self.flash_dir
        if flash is None:
            flash_arg = None
        else:
            flash.mkdir(parents=True, exist_ok=True)
            flash_arg = str(flash)
        if flash_arg is not None:
            cmd += ["--flash", flash_arg]
            if self.install:
                cmd.append("--install")
        if self.board:
            cmd += ["--board", self.board]
        if self.game:
            cmd += ["--game", self.game]
        if self.layout:
            cmd += ["--layout", self.layout]
        if self.repl:
            cmd.append("--repl")
        if self.stickers:
            cmd.append("--stickers")
        return cmd

    def close(self, timeout: float = 5) -> None:
        """Stop the board (its flash synced to flash_dir) and release everything."""
        proc = self._proc
        if proc is not None and proc.poll() is None:
            try:
                self._request({"op": "quit"}, timeout=timeout)
            except BoardError:
                pass
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._pty is not None:  # (kept: .port still names the pty the board had)
            self._pty.stop(timeout)  # before the board's pipes close: it reads them
        if self._ctl is not None:
            try:
                self._ctl.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for t in self._threads:
            t.join(timeout=timeout)
        self._threads = []
        if self._ctl is not None:
            self._ctl.close()
            self._ctl = None
        if proc is not None:
            for f in (proc.stdin, proc.stdout, proc.stderr):
                if f is not None:
                    try:
                        f.close()
                    except OSError:
                        pass
            self._proc = None
        self.mode = "off"

    def __enter__(self) -> "VirtualBoard":
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    @property
    def alive(self) -> bool:
        """True while the board's process runs."""
        return self._proc is not None and self._proc.poll() is None

    @property
    def port(self) -> str:
        """The pty's /dev/pts/N path ("" while unplugged; after close, the one it had)."""
        return self._pty.port if self._pty is not None else ""

    @property
    def stable_port(self) -> str:
        """A symlink to .port that survives unplug()/replug()."""
        return self._pty.stable_port if self._pty is not None else ""

    # -- the serial ---------------------------------------------------------------------

    def _serial_out(self, out_fd: int) -> bytes | None:
        """What the board printed on its serial since (None: its process ended), kept for console()."""
        try:
            data = os.read(out_fd, 65536)
        except BlockingIOError:
            return b""
        except OSError:
            return None
        if not data:
            return None
        with self._lock:
            self._console.extend(data)
            if len(self._console) > _CONSOLE_MAX:
                del self._console[:len(self._console) - _CONSOLE_MAX]
            self._cond.notify_all()
        return data

    def console(self, ending: str = "", timeout: float = 0) -> str:
        """The last few KB the board printed on its serial, whoever read them (or nobody);
        with ending, once it ends so (a REPL's prompt) or timeout passes: the serial and the
        board's mode come by different ways, so the mode can be ahead of the text."""
        end = ending.encode()
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self._console.endswith(end) and self.alive:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(min(left, 0.2))
            return self._console.decode("utf-8", "replace")

    def _stderr_reader(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stderr is not None
        for raw in iter(proc.stderr.readline, b""):
            line = raw.decode(errors="replace").rstrip("\n")
            self.stderr_lines.append(line)
            if self.echo_stderr:
                print("[board] " + line, file=sys.stderr)

    def unplug(self) -> None:
        """Pull the USB cable: the pty goes away (the board keeps running, unheard)."""
        if self._pty is not None:
            self._pty.unplug()

    def replug(self) -> str:
        """Plug the cable back: a new pty (``stable_port`` points at it); returns ``.port``."""
        return self._pty.replug() if self._pty is not None else ""

    # -- the control channel ------------------------------------------------------------

    def _control_reader(self) -> None:
        assert self._ctl is not None
        f = self._ctl.makefile("rb")
        try:
            for raw in f:
                try:
                    msg = json.loads(raw)
                except ValueError:
                    continue
                with self._cond:
                    if msg.get("event") == "mode":
                        self.mode = msg["mode"]
                    elif isinstance(msg.get("id"), int):
                        self._replies[msg["id"]] = msg
                    self._cond.notify_all()
        except OSError:
            pass
        finally:
            f.close()
            with self._cond:
                self.mode = "off"
                self._cond.notify_all()

    def _request(self, req: dict[str, Any], timeout: float = 15) -> dict[str, Any]:
        if self._ctl is None or not self.alive:
            raise BoardError("the virtual board is not running")
        with self._cond:
            self._next_id += 1
            rid = self._next_id
        req = dict(req, id=rid)
        try:
            with self._send_lock:
                self._ctl.sendall((json.dumps(req) + "\n").encode())
        except OSError as e:
            raise BoardError("the virtual board is gone: %s" % e)
        deadline = time.monotonic() + timeout
        with self._cond:
            while rid not in self._replies:
                left = deadline - time.monotonic()
                if left <= 0 or not self.alive:
                    raise BoardError("no answer from the virtual board to %s" % req.get("op"))
                self._cond.wait(min(left, 0.2))
            reply = self._replies.pop(rid)
        if os.environ.get(ENV_TRACE):
            print("[vb %.3f] %s -> %s" % (time.monotonic(), json.dumps(req), json.dumps(reply)),
                  file=sys.stderr)
        if not reply.get("ok"):
            raise BoardError(reply.get("error") or "request failed")
        return reply

    def wait_mode(self, modes: tuple[str, ...] | str, timeout: float = 15) -> bool:
        """Wait until the board is in one of modes ('table', 'repl', 'stopped', 'off')."""
        if isinstance(modes, str):
            modes = (modes,)
        deadline = time.monotonic() + timeout
        with self._cond:
            while self.mode not in modes:
                left = deadline - time.monotonic()
                if left <= 0 or not self.alive:
                    return self.mode in modes
                self._cond.wait(min(left, 0.2))
        return True

    # -- the table ----------------------------------------------------------------------

    def place(self, zone: str, text: str | None, uid: bytes | str | None = None, kind: int | str = 213,
              wait: bool = True) -> None:
        """Lay a tag on a zone's reader: an NTAG holding text (a card code), by default.

        uid: the tag's UID (default: a stable one for the text); kind: 213/215/216,
        'bank' (an ISO-DEP card, no NDEF), 'classic' (MIFARE Classic) or 'blank' (an NTAG
        never formatted). wait: return once the firmware has polled the reader enough
        times to have seen the tag. Where a tag was just lifted, the same tag goes down once
        the firmware has seen the reader empty; another goes down at once (a swap, which the
        scanner reports as the lift and the new card).
        """
        self._request({"op": "place", "zone": zone, "uid": uid_hex(zone, text, uid, kind), "text": text,
                       "kind": kind, "wait": wait})

    def lift(self, zone: str, wait: bool = True) -> None:
        """Take the tag off a zone (wait: until the firmware has had time to notice)."""
        self._request({"op": "lift", "zone": zone, "wait": wait})

    def press(self, button: str) -> None:
        """Press and release a button."""
        self._request({"op": "press", "button": button})

    def turn(self, encoder: str, steps: int) -> None:
        """Turn an encoder by steps (negative: back)."""
        self._request({"op": "turn", "encoder": encoder, "steps": steps})

    def stack(self, zone: str, text: str | None, uid: bytes | str | None = None, wait: bool = True) -> None:
        """Lay a second NTAG (holding text) over the tag on a zone: two tags on one pad.
        lift() takes both away."""
        if uid is None:
            from cardtable_host.sim.table import uid_for

            uid = uid_for(text or "foreign:" + zone)
        if isinstance(uid, (bytes, bytearray)):
            uid = uid.hex()
        self._request({"op": "stack", "zone": zone, "uid": uid, "text": text, "wait": wait})

    def knob(self, reader: int | str, name: str, value: int | bool) -> None:
        """Set a fault knob of a reader's emulated PN532 (by index or zone name), e.g.
        ``knob("c", "vanish_after", 0)``: the next tag read there loses its tag halfway."""
        key = "zone" if isinstance(reader, str) else "reader"
        self._request({"op": "knob", key: reader, "name": name, "value": value})

    def kill_reader(self, reader: int | str) -> None:
        """Cut a reader's cable (by index, or by its zone's name): it stops answering."""
        key = "zone" if isinstance(reader, str) else "reader"
        self._request({"op": "kill", key: reader})

    def revive_reader(self, reader: int | str) -> None:
        """Mend a reader's cable."""
        key = "zone" if isinstance(reader, str) else "reader"
        self._request({"op": "revive", key: reader})

    def reset(self, repl: bool = False, timeout: float = 30) -> str:
        """Hard reset (power cycle) the board; returns the mode it came up in."""
        return str(self._request({"op": "reset", "repl": repl}, timeout=timeout)["mode"])

    def power_cut(self, off_ms: int = 0, timeout: float = 30) -> None:
        """Cut the power without warning; it comes back after off_ms (and the table boots)."""
        self._request({"op": "powercut", "off_ms": off_ms})
        if off_ms >= 0:
            self.wait_mode(("table", "repl"), timeout + off_ms / 1000)

    def status(self) -> dict[str, Any]:
        """The board's mode, steps, heap in use, cards on the table, dead readers."""
        return self._request({"op": "status"})

    def pixels(self) -> list[tuple[int, int, int]]:
        """What each LED shows now."""
        return [tuple(p) for p in self._request({"op": "pixels"})["pixels"]]  # type: ignore[misc]

    def tones(self) -> list[int]:
        """Every tone (Hz, 0: silence) the piezo was asked for since the table started."""
        return [int(f) for f in self._request({"op": "tones"})["tones"]]

    def sync(self) -> None:
        """Write the flash out to flash_dir now."""
        self._request({"op": "sync"})

    def set_period(self, ms: float) -> None:
        """Milliseconds between the table's loop ticks from now on (0: as fast as it goes)."""
        self._request({"op": "period", "ms": ms})
        self.period_ms = ms
