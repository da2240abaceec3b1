"""The rp2 board's PN532 readers: pn532_emu instances served to the emulated chip's buses.

host/cardtable_host/sim/rp2/bus.mjs models the wires (TCA9548A muxes, I2C addresses and status bytes, SPI op
bytes and chip selects, bus time); each transaction that needs a PN532 comes here over a
socket while the chip waits, so the readers, their tags and the timing of their answers
live in Python, beside the bots that lay the cards::

    readers = Readers(board_config)
    node_side = readers.serve()        # a socket to pass to the runner (--bus-fd)
    readers.place("s0", "AS", uid)     # returns once the firmware has polled s0 enough

A PN532 answers after its processing time on the emulated clock (pn532_emu's timing model:
~0.5 ms a command, ~5 ms to activate a tag, 1 ms an empty attempt), not at once: the driver
polls its status byte meanwhile, as on a table.
"""
from __future__ import annotations

import socket
import struct
import threading
import time
from typing import Any, Callable

from cardtable.sim.pn532_emu import ACK, PN532Emu, Tag

OP_WRITE = 0x57
OP_READ = 0x52
OP_TAKE = 0x54
OP_POWER = 0x50
OP_RSTPDN = 0x5A
OP_IRQ = 0x49  # a reader's P70_IRQ line: low now?, and when it next falls (host/cardtable_host/sim/rp2/irq.mjs)
OP_ARRIVE = 0x41  # the card staged for a reader comes into its field now; replies as OP_IRQ
OP_SYNC = 0x53  # an empty reply once every earlier request is handled (the chip pauses: lockstep)
_IRQ_REPLY = struct.Struct("<Bd")
_BUSY_REPLY = struct.Struct("<Bd")  # 2, then when a reader working on a command is ready (emulated ns)
_HEAD = struct.Struct("<IBBd")  # length of the rest, op, reader, emulated ns

# A change on a reader is seen by the scanner within this many polls of it (the controller's
# place_polls / lift_polls + 1), as host/cardtable_host/sim/vboard/board.mjs waits on the WebAssembly board.
PLACE_POLLS = 3
LIFT_POLLS = 4
TRACE_MAX = 4000
# Wall time a place/lift waits for its polls before giving up. A play pad that takes no card
# now is polled every 8th lap (table/scanner.py rare): at the emulator's pace under load
# (~1.3 s a lap with two chips running), the 4 polls that see a lift take ~40 s.
WAIT_S = 120.0
CMD_LIST = 0x4A  # InListPassiveTarget: one poll


CMD_EXCHANGE = 0x40  # InDataExchange: reading a tag
CMD_RFCONFIG = 0x32  # RFConfiguration; item 1 switches the field


def command(payload: bytes) -> tuple[int, bytes]:
    """The command code and parameters of the host frame in payload, or (-1, b"")."""
    i = payload.find(b"\x00\xff")
    if i < 0 or len(payload) < i + 5 or payload[i + 4] != 0xD4:
        return -1, b""
    return payload[i + 5] if len(payload) > i + 5 else -1, bytes(payload[i + 6:])


class _Reader:
    """One PN532: its emulator and when (emulated ns) its pending answer is ready."""

    def __init__(self) -> None:
        self.emu = PN532Emu()
        self.emu.us_per_byte = 0  # the wire's time is bus.mjs's; here only the PN532's own
        self.ready_ns = 0.0
        self.polls = 0
        self.last_list = 0  # MaxTg of the last InListPassiveTarget (0: none yet)
        self.last_cmd = -1  # the last command written to it
        self.tag: Tag | None = None
        self.staged: tuple[Tag, tuple[str, str | None, int | str]] | None = None  # (arrive())
        self.dead = False
        self.fail_reads = 0  # InDataExchange commands to answer with an error frame (-1: all)
        self.failed_reads = 0
        self.rf_off_after_fail = 0  # failed reads followed at once by RFConfiguration field off
        self._after_fail = False


class Readers:
    """Every reader of a board (a cardtable.table.config.Board), served to bus.mjs."""

    def __init__(self, board: Any) -> None:
        self.board = board
        self.readers = [_Reader() for _ in board.readers]
        self.cards: dict[int, tuple[str, str | None, int | str]] = {}  # reader -> (uid hex, text, kind)
        self.lift_until: dict[int, int] = {}
        self.lifted: dict[int, str] = {}  # reader -> the uid hex of the tag last taken off it
        self.requests = 0
        self.served_s = 0.0  # wall time spent answering (the chip waits meanwhile)
        self.fields_max = 0  # the most RF fields on at once ("one field at a time": 1)
        self.fields_over: list[list[int]] = []  # the readers with their fields on together, when > 1
        # a tag to lay on the emulated clock: [reader, tag, delay ns, landing ns once known]
        self._armed: list[Any] | None = None
        self.landed_ns: float | None = None  # when the last armed tag landed (emulated ns)
        # (emulated ns, reader, command code or -1 for an answer read) from the chip's bus
        # while tracing, at most TRACE_MAX: where the time between a landing and its verdict went
        self.trace: list[tuple[float, int, int]] | None = None
        # Lockstep (Rp2Board(lockstep=True)): the chip stands while the host acts, so a wait for
        # the firmware's polls lets it run a step of emulated time (and stand again) instead
        self.stepper: Callable[[], None] | None = None
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._sock: socket.socket | None = None

    # -- the link to the chip ------------------------------------------------------------

    def serve(self) -> socket.socket:
        """Start answering; returns the socket end for the runner (blocking, inheritable)."""
        ours, theirs = socket.socketpair()
        theirs.setblocking(True)
        theirs.set_inheritable(True)
        self._sock = ours
        self._thread = threading.Thread(target=self._loop, name="rp2-bus", daemon=True)
        self._thread.start()
        return theirs

    def close(self) -> None:
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._sock.close()
            self._sock = None

    def _recv(self, n: int) -> bytes:
        assert self._sock is not None
        buf = bytearray()
        while len(buf) < n:
            part = self._sock.recv(n - len(buf))
            if not part:
                raise EOFError
            buf.extend(part)
        return bytes(buf)

    def _loop(self) -> None:
        try:
            while self._sock is not None:
                head = self._recv(_HEAD.size)
                size, op, index, ns = _HEAD.unpack(head)
                payload = self._recv(size - 10) if size > 10 else b""
                t0 = time.perf_counter()
                reply = self.handle(op, index, ns, payload)
                if reply is not None:
                    self._sock.sendall(struct.pack("<I", len(reply)) + reply)
                self.served_s += time.perf_counter() - t0
        except (EOFError, OSError, AttributeError):
            pass  # the runner went away (a power cut, the end)

    def handle(self, op: int, index: int, ns: float, payload: bytes) -> bytes | None:
        """One request from the chip's bus; the reply bytes, or None (no reply)."""
        with self._cond:
            return self._handle(op, index, ns, payload)

    def _handle(self, op: int, index: int, ns: float, payload: bytes) -> bytes | None:
        self.requests += 1
        if self._armed is not None:
            self._land(ns)
        if op == OP_SYNC:
            return b""  # every request before this one has been handled
        if op == OP_POWER:
            if index:
                self.power_cycle()
            return None
        r = self.readers[index]
        if op == OP_WRITE:
            self._write(r, index, ns, payload)
            return None
        if op == OP_READ:
            return self._read(r, index, ns)
        if op == OP_IRQ:
            return self._irq(r, ns)
        if op == OP_ARRIVE:
            return self._arrive_now(r, index, ns)
        if op == OP_RSTPDN:
            r.emu.reset()  # the power-on state: fault knobs cleared, tags where they lie
            return None
        if op == OP_TAKE:
            r.emu.take()
            return None
        raise ValueError("unknown bus request %r" % op)

    def _write(self, r: _Reader, index: int, ns: float, payload: bytes) -> None:
        """Host frame bytes for a reader: its answer is ready after its processing time."""
        e = r.emu
        before = e.total_us
        self._faults(r, payload)
        e.receive(payload)
        self._fields()
        e.end_transaction()
        if e.total_us != before:  # an answer was queued: ready after its processing time
            r.ready_ns = ns + 1000.0 * e.last_us
        cmd, params = command(payload)
        if self.trace is not None and len(self.trace) < TRACE_MAX:
            self.trace.append((ns, index, cmd))
        if e.log:
            self._count_polls(r, cmd, params)
        if cmd >= 0:
            r.last_cmd = cmd

    def _count_polls(self, r: _Reader, cmd: int, params: bytes) -> None:
        """The InListPassiveTargets the reader just took that were polls (see place())."""
        e = r.emu
        n = bytes(e.log).count(CMD_LIST)
        if n and cmd == CMD_LIST:
            # The scanner's two-tag check before it reads a card (MaxTg 2 right after a
            # MaxTg 1 poll) is no poll: a place() that counted it would lift the card in
            # the middle of its read. A focus reader's poll lists two tags itself
            # (MaxTg 2 after MaxTg 2): that one is a poll; so is a reader set waiting for
            # its card (MaxTg 2 after RFConfiguration: table/irqwait.py).
            two = params[:1] == b"\x02"
            if two and r.last_list == 1 and r.last_cmd == CMD_LIST:
                n -= 1
            r.last_list = 2 if two else 1
        r.polls += n
        e.log = bytearray()
        self._cond.notify_all()

    def _read(self, r: _Reader, index: int, ns: float) -> bytes:
        """The reader's status and pending frame (not taken); not ready while it works on a
        command: when it will be (bus.mjs answers its polls until then, or until anything else
        reaches it). Not while a tag waits to land at a bus request (arm())."""
        f = self._peek(r, ns)
        if f is None:
            if r.emu.ready() and self._armed is None:  # (an answer queued, not yet ready)
                return _BUSY_REPLY.pack(2, r.ready_ns)
            return b"\x00"
        if f != ACK and self.trace is not None and len(self.trace) < TRACE_MAX:
            self.trace.append((ns, index, -1))
        return b"\x01" + f

    def _arrive_now(self, r: _Reader, index: int, ns: float) -> bytes:
        """The card staged for the reader comes into its field now; its IRQ line after."""
        e = r.emu
        if r.staged is not None:
            tag, card = r.staged
            r.staged = None
            before = e.total_us
            e.remove()
            e.place(tag)  # a pending InListPassiveTarget (retries 0xFF) answers now
            r.tag = tag
            self.cards[index] = card
            if e.total_us != before:
                r.ready_ns = ns + 1000.0 * e.last_us
            self._cond.notify_all()
        return self._irq(r, ns)

    @staticmethod
    def _faults(r: _Reader, payload: bytes) -> None:
        """Arm a read failure for this command, and count the field switched off after one."""
        cmd, params = command(payload)
        if cmd < 0:
            return
        if r._after_fail:
            r._after_fail = False
            if cmd == CMD_RFCONFIG and params[:2] == b"\x01\x00":
                r.rf_off_after_fail += 1
        if cmd == CMD_EXCHANGE and r.fail_reads:
            if r.fail_reads > 0:
                r.fail_reads -= 1
            r.emu.error_frames = 1  # ACK, then the PN532's error frame (UM0701-02 6.2.1.5)
            r.failed_reads += 1
            r._after_fail = True

    def _fields(self) -> None:
        on = [i for i, r in enumerate(self.readers) if r.emu.rf]
        if len(on) > self.fields_max:
            self.fields_max = len(on)
        if len(on) > 1 and len(self.fields_over) < 16:
            self.fields_over.append(on)

    def fail_reads(self, zone: str | int, n: int = -1) -> None:
        """Answer a zone's next n tag reads (InDataExchange; -1: all, 0: none again) with the
        PN532's error frame: the reader fails mid-read, its field on."""
        with self._cond:
            self.readers[self.index(zone)].fail_reads = n

    def fields(self, restart: bool = False) -> dict[str, Any]:
        """The RF fields: on now (reader indexes), the most on at once, the times several were,
        and per reader failed reads and the field-offs that came right after them. restart:
        count the most on at once (and when several were) from now on."""
        with self._cond:
            on = [i for i, r in enumerate(self.readers) if r.emu.rf]
            out = {"on": on, "max": self.fields_max, "over": list(self.fields_over),
                   "failed_reads": [r.failed_reads for r in self.readers],
                   "rf_off_after_fail": [r.rf_off_after_fail for r in self.readers]}
            if restart:
                self.fields_max = len(on)
                self.fields_over = []
            return out

    @staticmethod
    def _irq(r: _Reader, ns: float) -> bytes:
        """The reader's IRQ line as bus.mjs drives it: (1, -1) low now; (0, ns) high until then;
        (0, -1) high until something happens (a card, a command)."""
        e = r.emu
        if not e.ready():
            return _IRQ_REPLY.pack(0, -1.0)
        if e._out[0][0] == ACK or ns >= r.ready_ns - 1.0:  # (within a ns: the alarm's rounding)
            return _IRQ_REPLY.pack(1, -1.0)
        return _IRQ_REPLY.pack(0, r.ready_ns)

    def stage(self, zone: str | int, uid_hex: str, text: str | None, kind: int | str = 213) -> int:
        """Hold a tag ready to arrive on a zone's reader at an emulated time (Rp2Board.place_at);
        returns the reader's index."""
        i = self.index(zone)
        with self._cond:
            self.readers[i].staged = (self._tag(uid_hex, text, kind), (uid_hex, text, kind))
        return i

    @staticmethod
    def _peek(r: _Reader, ns: float) -> bytes | None:
        e = r.emu
        if not e.ready():
            return None
        f = e._out[0][0]
        if f != ACK and ns < r.ready_ns:
            return None  # still processing
        return bytes(f)

    # -- the table -------------------------------------------------------------------------

    def index(self, zone: str | int) -> int:
        """A reader's index from a zone name (or an index)."""
        if isinstance(zone, int):
            if not 0 <= zone < len(self.readers):
                raise ValueError("no reader %d on board %s" % (zone, self.board.name))
            return zone
        i = self.board.zone_reader.get(zone)
        if i is None:
            raise ValueError("no zone %r on board %s (zones: %s)" % (
                zone, self.board.name, ", ".join(sorted(self.board.zone_reader))))
        return int(i)

    @staticmethod
    def _tag(uid_hex: str, text: str | None, kind: int | str) -> Tag:
        if kind in ("bank", "classic"):
            return Tag(uid_hex[:8], kind=kind)
        if kind == "blank":
            return Tag(uid_hex, kind=213, blank=True)
        return Tag(uid_hex, kind=int(kind), text=text)

    def _wait(self, i: int, until: int, running: bool) -> bool:
        end = time.monotonic() + WAIT_S
        if running and self.stepper is not None:
            return self._step_until(lambda: self.readers[i].polls >= until or self.readers[i].dead, end)
        while running and self.readers[i].polls < until and not self.readers[i].dead:
            left = end - time.monotonic()
            if left <= 0:
                return False
            self._cond.wait(min(left, 0.5))
        return True

    def _step_until(self, done: Callable[[], bool], end: float) -> bool:
        """Lockstep: let the standing chip run a step at a time until done() (False: not
        within WAIT_S of wall time). Called holding the lock, which each step lets go of."""
        stepper = self.stepper
        assert stepper is not None
        while not done():
            if time.monotonic() > end:
                return False
            self._cond.release()
            try:
                stepper()
            finally:
                self._cond.acquire()
        return True

    def waits(self, zone: str | int) -> bool:
        """True if the zone's reader may wait for its card by itself (its IRQ line wired: the
        seat to play's pad on any board, every zone in a timed game with "scan": "irq"): a card
        for it must come through Rp2Board's arrive op."""
        b = self.board
        i = self.index(zone)
        return bool(b.reader_irq) and b.reader_irq[i] is not None

    def _lift_seen(self, i: int, uid_hex: str | None = None) -> bool:
        """(Holding the lock.) Wait until the firmware has seen reader i's last tag lifted;
        with uid_hex, only if that tag is the one to be laid next: another is a swap, which the
        scanner sees as the lift and the new card. False if the lift went unseen for WAIT_S."""
        if uid_hex is not None and self.lifted.get(i) != uid_hex:
            return True
        return self._wait(i, self.lift_until.get(i, 0), True)

    def after_lift(self, i: int, uid_hex: str | None = None) -> None:
        """Wait until the firmware has seen the reader's last tag lifted (with uid_hex: only
        if that tag is laid again, as place() does)."""
        with self._cond:
            self._lift_seen(i, uid_hex)

    def seen(self, i: int) -> bool:
        """Wait until the firmware has had time to see the tag that just arrived on reader i:
        it is read and then polled until it is lifted."""
        with self._cond:
            return self._wait(i, self.readers[i].polls + PLACE_POLLS, True)

    def place(self, zone: str | int, uid_hex: str, text: str | None, kind: int | str = 213,
              wait: bool = True, running: bool = True) -> bool:
        """Lay a tag on a zone's reader; with wait, return once the firmware polled it enough
        to have seen it. Another tag than the one last taken off goes down at once, as a quick
        hand swaps cards: the scanner reports the swap as that lift, then this card
        (cardtable/table/scanner.py). The same tag again waits until its lift has been seen, or
        the firmware would see nothing happen (a lift not seen within WAIT_S is a ValueError,
        the tag not laid)."""
        i = self.index(zone)
        tag = self._tag(uid_hex, text, kind)
        with self._cond:
            if running and not self._lift_seen(i, uid_hex):
                raise ValueError("zone %s: the firmware did not poll its reader for %.0f s after its last card "
                                 "was lifted: the %s was not laid" % (zone, WAIT_S, text or "tag"))
            self.cards[i] = (uid_hex, text, kind)
            r = self.readers[i]
            r.emu.remove()
            r.emu.place(tag)
            r.tag = tag
            return self._wait(i, r.polls + PLACE_POLLS, running and wait)

    def arm(self, zone: str | int, uid_hex: str, text: str | None, delay_ns: float, kind: int | str = 213) -> None:
        """Lay a tag on a zone's reader delay_ns of emulated time after the chip's next bus
        request, without waiting for it (then `landed_ns` says when; `trace` from there, when
        set); a lift of that zone not yet seen by the firmware is waited for first."""
        i = self.index(zone)
        with self._cond:
            self._lift_seen(i)
            self.landed_ns = None
            self._armed = [i, self._tag(uid_hex, text, kind), float(delay_ns), None]
            self.cards[i] = (uid_hex, text, kind)

    def _land(self, ns: float) -> None:
        a = self._armed
        assert a is not None
        if a[3] is None:
            a[3] = ns + a[2]
        if ns < a[3]:
            return
        r = self.readers[a[0]]
        r.emu.remove()
        r.emu.place(a[1])
        r.tag = a[1]
        self.landed_ns = a[3]
        self._armed = None
        self._cond.notify_all()

    def lift(self, zone: str | int, wait: bool = True, running: bool = True) -> bool:
        """Take the tag off a zone's reader (wait: until the firmware has had time to notice)."""
        i = self.index(zone)
        with self._cond:
            old = self.cards.pop(i, None)
            had = old is not None
            if had:
                self.lifted[i] = old[0]
            r = self.readers[i]
            r.emu.remove()
            r.tag = None
            self.lift_until[i] = r.polls + LIFT_POLLS
            if had:
                self._wait(i, self.lift_until[i], running and wait)
            return had

    def kill(self, zone: str | int, dead: bool = True) -> None:
        """Cut (or mend) a reader's cable: it stops answering."""
        i = self.index(zone)
        with self._cond:
            self.readers[i].dead = dead
            self.readers[i].emu.mute = -1 if dead else 0
            self._cond.notify_all()

    def polls(self, zone: str | int) -> int:
        """How many times the firmware has polled a reader (InListPassiveTarget)."""
        return self.readers[self.index(zone)].polls

    def power_cycle(self) -> None:
        """The board's power came back: every PN532 restarts; the tags stay where they lie."""
        with self._cond:
            for i, old in enumerate(self.readers):
                r = self.readers[i] = _Reader()
                r.polls = old.polls
                r.dead = old.dead
                r.fail_reads = old.fail_reads
                r.failed_reads = old.failed_reads
                r.rf_off_after_fail = old.rf_off_after_fail
                r.emu.mute = -1 if old.dead else 0
                if i in self.cards:
                    r.tag = self._tag(*self.cards[i])
                    r.emu.place(r.tag)
            self._cond.notify_all()

    def cards_by_zone(self) -> dict[str, str | None]:
        """What lies on each zone: {zone: text}."""
        zones = {int(i): z for z, i in self.board.zone_reader.items()}
        return {zones.get(i, str(i)): c[1] for i, c in sorted(self.cards.items())}

    def stats(self) -> dict[str, Any]:
        return {"requests": self.requests, "served_s": round(self.served_s, 3),
                "polls": [r.polls for r in self.readers]}


__all__ = ["Readers"]
