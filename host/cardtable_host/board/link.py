"""The host side of the serial link (DESIGN section 4; the protocol is specified in the
device's ``cardtable/link.py``): JSON Lines over the board's USB serial, with pyserial.

    with Link("/dev/ttyACM0") as link:          # or a virtual board's pty
        hello = link.hello()                    # {"type": "hello", "fw": ..., "game": {...}}
        link.command("act", action={"seat": 1, "act": "bid", "bid": 20})
        for msg in link.messages(timeout=1.0):  # event / verdict / state / fault / ...
            ...
        lines = link.log()                      # the current game's journal, as text lines

- ``command(cmd, **fields)`` sends ``{"cmd": cmd, "id": N, ...}`` and returns the device's
  ``ok`` reply (a dict). An ``error`` reply raises ``CommandError`` (its ``msg`` and the
  reply); no reply within the timeout raises ``LinkTimeout``; the cable pulled while waiting
  raises ``LinkDown``; the board at MicroPython's REPL instead of the table (its prompt, or our
  command echoed back) raises ``AtRepl`` (a LinkTimeout) at once. Every other message the
  device sends - ``hello``, ``event``, ``verdict``, ``state``, ``fault`` - goes to a queue read
  by ``messages()``/``next()``.
  Messages that carry a pending command's ``id`` (the ``log`` lines) go to that command.
- A background thread reads the port. When the port fails (cable pulled, pty closed) the
  link keeps trying to reopen the same path every ``retry`` seconds; the queue gets a
  ``{"type": "link", "up": false}`` message when it goes down and ``{"type": "link",
  "up": true}`` when it is back, after which the caller should re-sync (``state()``).
  ``reconnect=False`` gives up instead (``{"type": "link", "up": false, "final": true}``).
- A command whose line would be longer than the board takes (``LINE_MAX``, the device's own
  constant) raises ``CommandTooLong`` (a ValueError) and is never sent.
- Lines that are not JSON objects with a "type" (REPL chatter, a boot banner) are ignored;
  the last few are kept in ``noise`` for diagnostics.
- Thread-safe: commands may be sent from several threads; one reader thread per Link.
"""
from __future__ import annotations

import json
import queue
import re
import threading
import time
from collections import deque
from types import TracebackType
from typing import Any, Callable, Iterator

import serial
from cardtable.link import LINE_MAX  # the longest host line the board takes: one limit, both sides

from cardtable_host.board import portlock
from cardtable_host.errors import CardtableError

PROTO = 1
BAUD = 115200
DEVICE_MESSAGES = ("hello", "event", "verdict", "state", "fault", "dealt")
REPL_PROMPT = b">>> "  # MicroPython's friendly REPL waiting for a line
COMMAND_ECHO = b'{"cmd": '  # a command line of ours coming back: the REPL echoes what it is sent
BOOT_ERROR = "boot-error.txt"  # where the board keeps why its table last failed to start (main.py)
_EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit))\b:?\s*(.*)$")


class LinkError(Exception):
    """Something went wrong on the link."""


class LinkTimeout(LinkError):
    """The device did not answer in time."""


class LinkDown(LinkError):
    """The port is gone (cable pulled, board reset) and has not come back."""


class AtRepl(LinkTimeout):
    """The board is at MicroPython's REPL (its prompt, or our command echoed): no table answers."""


class CommandTooLong(ValueError):
    """A command longer than the link's line limit: refused here, never sent to the board."""


class CommandError(LinkError):
    """The device answered a command with ``error``; ``msg`` says why."""

    def __init__(self, cmd: str, msg: str, reply: dict[str, Any]) -> None:
        super().__init__("%s: %s" % (cmd, msg))
        self.cmd = cmd
        self.msg = msg
        self.reply = reply


def _repl_line(partial: bytes) -> bool:
    """True if the line the board is in the middle of is MicroPython's REPL: its prompt, or our
    own command echoed (the REPL echoes a line as it is typed; the table never does)."""
    if partial.startswith(REPL_PROMPT):
        partial = partial[len(REPL_PROMPT):]
    return not partial or partial.startswith(COMMAND_ECHO)


class _Pending:
    def __init__(self, cmd: str) -> None:
        self.cmd = cmd
        self.done = threading.Event()
        self.reply: dict[str, Any] | None = None
        self.stream: list[dict[str, Any]] = []
        self.down = False
        self.repl = False  # the board's REPL prompt came instead of an answer


class Link:
    """A connection to the table's board over its serial port (see the module docstring)."""

    def __init__(self, port: str, timeout: float = 5.0, reconnect: bool = True, retry: float = 0.2,
                 open_timeout: float = 5.0, command: str | None = None, lock: bool = True,
                 tap: Callable[[dict[str, Any]], None] | None = None) -> None:
        """Open the port, held for `command` (default: this program; portlock.PortInUse if
        another holds it); lock=False when the caller holds it already. tap(msg), if given,
        sees each queued message the moment it arrives, on the reader thread."""
        self.port = port
        self.timeout = timeout
        self.reconnect = reconnect
        self.retry = retry
        self.noise: deque[str] = deque(maxlen=20)
        self.up = False
        self.last_hello: dict[str, Any] | None = None
        self._ser: serial.Serial | None = None
        self._wlock = threading.Lock()
        self._plock = threading.Lock()
        self._pending: dict[int, _Pending] = {}
        self._next_id = 0
        self._queue: queue.Queue[dict[str, Any]] = queue.Queue()
        self._closed = threading.Event()
        self._tap = tap
        self._hold = portlock.hold(port, command) if lock else None
        try:
            self._open(open_timeout, first=True)
        except BaseException:
            if self._hold is not None:
                self._hold.release()
            raise
        self._thread = threading.Thread(target=self._reader, name="cardtable-link", daemon=True)
        self._thread.start()

    # -- the port ---------------------------------------------------------------------

    def _open(self, timeout: float, first: bool = False) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                ser = portlock.open_serial(self.port, BAUD, timeout=0.05, write_timeout=2)
                break
            except portlock.PortInUse:
                if first:
                    raise  # refused at once: another program has the board
                raise LinkDown("%s is held by another program" % self.port) from None
            except CardtableError as e:
                if time.monotonic() >= deadline:
                    raise LinkDown(str(e)) from None
                time.sleep(self.retry)
        try:
            ser.reset_input_buffer()  # whatever the board said while nobody listened
            ser.write(b"\n")  # ends any half line left in the board's input (it skips empty lines)
        except (serial.SerialException, OSError):
            pass
        self._ser = ser
        self.up = True

    def _drop(self) -> None:
        ser = self._ser
        self._ser = None
        self.up = False
        if ser is not None:
            try:
                ser.close()
            except (serial.SerialException, OSError):
                pass
        with self._plock:
            pending = list(self._pending.values())
        for p in pending:
            p.down = True
            p.done.set()

    def close(self) -> None:
        """Close the port and stop the reader thread."""
        self._closed.set()
        self._drop()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=2)
        if self._hold is not None:
            self._hold.release()

    def __enter__(self) -> "Link":
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # -- reading ----------------------------------------------------------------------

    def _put(self, msg: dict[str, Any]) -> None:
        if self._tap is not None:
            try:
                self._tap(msg)
            except Exception:  # noqa: BLE001 - a listener's trouble must not stop the link
                pass
        self._queue.put(msg)

    def _reader(self) -> None:
        buf = bytearray()
        while not self._closed.is_set():
            ser = self._ser
            if ser is None:
                if not self.reconnect:
                    self._put({"type": "link", "up": False, "final": True})
                    return
                try:
                    self._open(0)
                except LinkDown:
                    self._closed.wait(self.retry)
                    continue
                buf = bytearray()
                self._put({"type": "link", "up": True})
                continue
            try:
                data = ser.read(ser.in_waiting or 1)
            except (serial.SerialException, OSError, TypeError, AttributeError):
                if self._closed.is_set():
                    return
                self._drop()
                self._put({"type": "link", "up": False})
                continue
            if not data:
                continue
            buf.extend(data)
            while True:
                nl = buf.find(b"\n")
                if nl < 0:
                    break
                line = bytes(buf[:nl]).strip()
                del buf[:nl + 1]
                if line:
                    self._line(line)
            if len(buf) > 65536:
                del buf[:]
            if buf and _repl_line(bytes(buf)):
                self._at_repl()

    def _at_repl(self) -> None:
        """The board is at MicroPython's REPL: no command sent will be answered."""
        with self._plock:
            pending = list(self._pending.values())
        for p in pending:
            p.repl = True
            p.done.set()

    def _line(self, raw: bytes) -> None:
        text = raw.decode("utf-8", errors="replace")
        try:
            msg = json.loads(text)
        except ValueError:
            msg = None
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            self.noise.append(text)
            return
        kind = msg["type"]
        mid = msg.get("id")
        if kind == "hello":
            self.last_hello = msg
        if isinstance(mid, int) and kind not in DEVICE_MESSAGES:
            with self._plock:
                p = self._pending.get(mid)
            if p is not None:
                if kind in ("ok", "error"):
                    p.reply = msg
                    p.done.set()
                else:
                    p.stream.append(msg)
                return
        if kind in ("ok", "error"):
            if kind == "error" and mid is None:
                self._put(msg)  # an error for a line we did not send as a command
            return  # an answer nobody waits for any more
        self._put(msg)

    def next(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next device message (None if none came within timeout; None = wait for ever)."""
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def messages(self, timeout: float | None = None) -> Iterator[dict[str, Any]]:
        """Device messages as they come; ends after `timeout` seconds of silence (None: never)."""
        while True:
            msg = self.next(timeout)
            if msg is None:
                return
            yield msg

    def drain(self) -> list[dict[str, Any]]:
        """Every message waiting now, without blocking."""
        out = []
        while True:
            try:
                out.append(self._queue.get_nowait())
            except queue.Empty:
                return out

    # -- writing ------------------------------------------------------------------------

    def send_raw(self, data: bytes) -> None:
        """Write bytes to the port as they are (e.g. a line of garbage, in a test)."""
        with self._wlock:
            ser = self._ser
            if ser is None:
                raise LinkDown("%s is not connected" % self.port)
            try:
                ser.write(data)
                ser.flush()
            except (serial.SerialException, OSError) as e:
                raise LinkDown("%s: %s" % (self.port, e)) from None

    def command(self, cmd: str, timeout: float | None = None, check: bool = True,
                **fields: Any) -> dict[str, Any]:
        """Send a command and return its ``ok`` reply (``error``: CommandError if check).

        Streamed answers (``log`` lines) are in the reply under ``"stream"``.
        """
        with self._plock:
            self._next_id += 1
            cid = self._next_id
            p = self._pending[cid] = _Pending(cmd)
        try:
            obj = {"cmd": cmd, "id": cid}
            obj.update(fields)
            line = json.dumps(obj, allow_nan=False).encode()  # ValueError: no NaN to a board
            if len(line) > LINE_MAX:
                raise CommandTooLong("the %s command is %d bytes long: the link to the board takes "
                                     "at most %d bytes a line" % (cmd, len(line), LINE_MAX))
            self.send_raw(line + b"\n")
            if not p.done.wait(self.timeout if timeout is None else timeout):
                raise LinkTimeout("no answer to %s from %s within %g s" % (
                    cmd, self.port, self.timeout if timeout is None else timeout))
            if p.reply is None and p.repl:
                raise AtRepl("no answer to %s from %s: the board is at the MicroPython REPL, the table "
                             "is not running" % (cmd, self.port))
            if p.reply is None:
                raise LinkDown("%s went away while waiting for the answer to %s" % (self.port, cmd))
            reply = dict(p.reply)
        finally:
            with self._plock:
                self._pending.pop(cid, None)
        if p.stream:
            reply["stream"] = p.stream
        if reply.get("type") == "error" and check:
            raise CommandError(cmd, str(reply.get("msg")), reply)
        return reply

    # -- the commands -------------------------------------------------------------------

    def hello(self, timeout: float | None = None) -> dict[str, Any]:
        """Ask the board to introduce itself; its ``hello`` message (fw, proto, board, game)."""
        self.last_hello = None
        self.command("hello", timeout=timeout)
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while self.last_hello is None and time.monotonic() < deadline:
            time.sleep(0.01)
        if self.last_hello is None:
            raise LinkTimeout("no hello from %s" % self.port)
        return self.last_hello

    def state(self, seat: int | None = None, **fields: Any) -> dict[str, Any]:
        """The spectator view now: ``{"seq": ..., "view": {...}}`` (and a finished team game's
        ``agree``, each team's answer to its result); with seat, that seat's view instead (for
        its player alone)."""
        if seat is None:
            r = self.command("state", **fields)
        else:
            r = self.command("state", seat=seat, **fields)
        out = {"seq": r.get("seq"), "view": r.get("view")}
        if "teach" in r:
            out["teach"] = r["teach"]
        if "agree" in r:
            out["agree"] = r["agree"]
        return out

    def act(self, action: dict[str, Any]) -> dict[str, Any]:
        """Type an action the table has no button for (a record line); CommandError if the
        rules reject it (its msg is the reason)."""
        return self.command("act", action=action)

    def new(self, game: str, **fields: Any) -> dict[str, Any]:
        """Start a new game (fields: seats, dealer, rules, layout)."""
        return self.command("new", game=game, **fields)

    def undo(self, seq: int | None = None) -> dict[str, Any]:
        """Take back the last action (with seq: only if line seq is still the last)."""
        return self.command("undo") if seq is None else self.command("undo", seq=seq)

    def log(self, game: int | None = None, timeout: float = 30) -> list[str]:
        """The journal of a game (default: the current one) as its text lines, in order."""
        fields: dict[str, Any] = {} if game is None else {"game": game}
        r = self.command("log", timeout=timeout, **fields)
        return [m["line"] for m in r.get("stream", []) if m.get("type") == "log"]

    def games(self) -> list[dict[str, Any]]:
        """The journals on the board: ``[{"number": 3, "bytes": 2048, "current": True}, ...]``."""
        return list(self.command("games").get("games", []))

    def config(self, **set_fields: Any) -> dict[str, Any]:
        """The board's layout, zones and buttons; with board=/layout=, saves them for the next boot."""
        if set_fields:
            return self.command("config", set=set_fields)
        return self.command("config")

    def health(self) -> dict[str, Any]:
        """Reader, journal, flash and heap health (each reader's PN532 firmware as ``fw``)."""
        return self.command("health")

    def press(self, button: str) -> dict[str, Any]:
        """Press a button by its meaning ("suit M", "bid 20", "confirm"), whether or not the
        table has that button; CommandError with the reason if the rules reject what it does."""
        return self.command("press", button=button)

    def tag(self, zone: str | None = None, write: str | None = None, uid: str | None = None,
            done: bool = False) -> dict[str, Any]:
        """Read (or write, then read back) the tag on a zone's reader; if it succeeds, starts
        enrolling, during which the table plays nothing, until ``tag(done=True)``. A tag it
        cannot use raises CommandError whose reply has ``tag``: "lost" (try again) or
        "unusable"."""
        if done:
            return self.command("tag", done=True)
        fields: dict[str, Any] = {"zone": zone}
        if write is not None:
            fields["write"] = write
        if uid is not None:
            fields["uid"] = uid
        return self.command("tag", **fields)

    def wait_for(self, pred: Any, timeout: float) -> dict[str, Any] | None:
        """The first queued message for which pred(msg) is true, within timeout (others dropped)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            msg = self.next(left)
            if msg is not None and pred(msg):
                return msg


def board_words(text: str) -> str | None:
    """Why the table did not start, in the words the board printed (its console text): the
    last exception of a traceback (``MemoryError``, ``OSError: [Errno 28] ENOSPC``) or a
    ``cardtable: ...`` sentence; None if it printed neither."""
    found = None
    for raw in text.replace("\r", "\n").split("\n"):
        line = raw.strip()
        m = _EXCEPTION.match(line)
        if m:
            found = m.group(1) + (": " + m.group(3) if m.group(3) else "")
        elif line.startswith("cardtable: ") and "stopped by Ctrl-C" not in line:
            found = line[len("cardtable: "):]
    return found
