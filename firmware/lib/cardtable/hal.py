"""The small hardware interfaces the table runs on, and readers built from a board config."""
# Each interface is a tiny base class: ``hw_rp2`` implements it on a Raspberry Pi Pico and
# ``hw_sim`` in memory (tests, the virtual board). Rules never touch these; the controller does.
#
# - Clock:   ``ticks_ms()``, ``ticks_us()`` (wrapping, compare with ``ticks_diff``), ``sleep_ms(ms)``.
# - Storage: ``open(path, mode)`` with binary modes "rb", "wb", "ab" giving a file with
#   ``read(n)`` (b"" at the end), ``write(b)``, ``flush()`` (the commit point on littlefs),
#   ``close()``; ``listdir``, ``remove``, ``rename`` (replaces the target), ``mkdir``,
#   ``size(path)`` (-1 if missing) and ``free()`` (bytes, -1 if unknown). Errors are OSError.
#   FileStorage is it over the running Python's own files (littlefs on the Pico).
# - Pixels:  ``n`` LEDs; ``set(i, rgb)`` with rgb a (r, g, b) tuple of 0..255; ``show()``.
# - Buzzer:  ``tone(freq)`` (0 = silent); ``play(pattern, now)`` starts ((freq, ms), ...) and
#   ``update(now)`` advances it without blocking.
# - Inputs:  ``next()`` returns the next input event or None: (BUTTON, name) for a press,
#   (TURN, name, steps) for an encoder.
# - Serial:  ``read_byte()`` returns a byte or -1 without blocking; ``write(data)``.
# - Watchdog: ``start(ms)``, ``feed()``, ``keep_fed()`` (from a timer, once the loop stopped).
# - Hal:     holds one of each plus ``readers`` (PN532-like: ``init()``, ``poll()`` -> UID or
#   None, ``read_text()``, ``release()``; errors are OSError), ``mem_free()`` and
#   ``on_falling(pin, fn)`` (a reader's IRQ line).
from cardtable.compat import ticks_add, ticks_diff
from cardtable.compat import ticks_ms as _ticks_ms
from cardtable.compat import ticks_us as _ticks_us

BUTTON = 1
TURN = 2


class Clock:
    """Milliseconds that wrap; real time by default."""

    def ticks_ms(self):
        return _ticks_ms()

    def ticks_us(self):
        return _ticks_us()

    def sleep_ms(self, ms):
        try:
            from time import sleep_ms
        except ImportError:  # CPython
            from time import sleep

            sleep(ms / 1000)
            return
        sleep_ms(ms)


class Storage:
    """Files on the board's flash (paths relative to the filesystem root)."""

    def open(self, path, mode):
        raise NotImplementedError

    def listdir(self, path):
        raise NotImplementedError

    def remove(self, path):
        raise NotImplementedError

    def rename(self, src, dst):
        raise NotImplementedError

    def mkdir(self, path):
        raise NotImplementedError

    def size(self, path):
        raise NotImplementedError

    def free(self):
        return -1


class FileStorage(Storage):
    """Storage on the running Python's own filesystem under root: littlefs on the Pico,
    MEMFS in WebAssembly, a directory on CPython."""

    def __init__(self, root=""):
        import os

        self.os = os
        self.root = root.rstrip("/")

    def _p(self, path):
        return self.root + "/" + path if self.root else path

    def open(self, path, mode):
        return open(self._p(path), mode)

    def listdir(self, path):
        return self.os.listdir(self._p(path) or ".")

    def remove(self, path):
        self.os.remove(self._p(path))

    def rename(self, src, dst):
        getattr(self.os, "replace", self.os.rename)(self._p(src), self._p(dst))

    def mkdir(self, path):
        self.os.mkdir(self._p(path))

    def size(self, path):
        try:
            return self.os.stat(self._p(path))[6]
        except OSError:
            return -1

    def free(self):
        try:
            st = self.os.statvfs(self.root or "/")
        except (AttributeError, OSError):
            return -1
        return st[0] * st[3]


class Pixels:
    """A chain of RGB LEDs (one per zone, some per button)."""

    n = 0

    def set(self, i, rgb):
        raise NotImplementedError

    def show(self):
        raise NotImplementedError


class Buzzer:
    """A piezo: plays a pattern of (freq Hz, ms) steps in the background of step()."""

    def __init__(self):
        self._pat = ()
        self._i = 0
        self._until = 0
        self.busy = False

    def tone(self, freq):
        """Sound freq Hz until the next call (0: silence)."""

    def play(self, pattern, now):
        """Start pattern ((freq, ms), ...) at tick now, replacing any pattern playing."""
        self._pat = pattern
        self._i = 0
        self.busy = bool(pattern)
        if pattern:
            self.tone(pattern[0][0])
            self._until = ticks_add(now, pattern[0][1])
        else:
            self.tone(0)

    def update(self, now):
        """Move to the next step of the pattern when its time is up."""
        if not self.busy:
            return
        if ticks_diff(now, self._until) < 0:
            return
        self._i += 1
        if self._i >= len(self._pat):
            self.busy = False
            self.tone(0)
            return
        freq, ms = self._pat[self._i]
        self.tone(freq)
        self._until = ticks_add(now, ms)


class Inputs:
    """Buttons and rotary encoders, debounced; next() hands out one event at a time."""

    def next(self):
        return None


class Serial:
    """The host link's byte pipe (USB CDC on the Pico)."""

    def read_byte(self):
        return -1

    def write(self, data):
        raise NotImplementedError


class Watchdog:
    """Resets the board when step() stops feeding it; a no-op until started."""

    def start(self, ms):
        """Start it: from now on a gap of ms between feeds resets the board."""

    def feed(self):
        pass

    def keep_fed(self):
        """Feed it from a timer from now on (the loop has stopped for the REPL)."""


class Hal:
    """One of each interface plus the board's readers."""

    def __init__(self, clock, storage, pixels, buzzer, inputs, serial, readers, wdt=None):
        self.clock = clock
        self.storage = storage
        self.pixels = pixels
        self.buzzer = buzzer
        self.inputs = inputs
        self.serial = serial
        self.readers = readers
        self.wdt = wdt or Watchdog()

    def on_falling(self, pin, fn):
        """Call fn(pin) at each falling edge of an input pin, from a hard interrupt where the
        port has them: fn must not allocate."""
        pin.irq(handler=fn, trigger=pin.IRQ_FALLING, hard=True)

    def mem_free(self):
        """Free heap in bytes, -1 where the port cannot say (WebAssembly grows its heap)."""
        import sys

        if sys.implementation.name != "micropython" or sys.platform == "webassembly":
            return -1
        import gc

        return gc.mem_free()


# RSTPDN: low resets the PN532. Adafruit's PN532 driver holds it low 400 ms and waits 10 ms
# after; we do the same, for every reader at once, so boot takes the pulse only once.
RST_LOW_MS = 400
RST_WAKE_MS = 10


def outputs(board):
    """GP numbers the firmware drives high from the start: every SPI chip select (RP2040 pins
    come out of reset pulled down, which selects every reader: all would drive MISO), every
    mux RESET and every RSTPDN, a reader's own or a bus's shared line (both active low)."""
    out = []
    for rec in board.readers:
        if rec[3] is not None:
            out.append(rec[3])
    for name in board.buses:
        for key in ("reset", "rst"):
            gp = board.buses[name].get(key)
            if gp is not None:
                out.append(gp)
    for gp in board.reader_rst:
        if gp is not None:
            out.append(gp)
    return out


def rstpdn_pins(board):
    """GP numbers of every RSTPDN line: each reader's own and each bus's shared one."""
    out = [gp for gp in board.reader_rst if gp is not None]
    for name in board.buses:
        gp = board.buses[name].get("rst")
        if gp is not None:
            out.append(gp)
    return out


def pulse_rstpdn(pins, clock):
    """Hold these RSTPDN Pins low RST_LOW_MS together, then give the PN532s RST_WAKE_MS."""
    for p in pins:
        p.value(0)
    clock.sleep_ms(RST_LOW_MS)
    for p in pins:
        p.value(1)
    clock.sleep_ms(RST_WAKE_MS)


def reset_readers(board, pin, clock):
    """Pulse every RSTPDN line wired, all at once; pin(gp) gives its Pin."""
    rst = [pin(gp) for gp in rstpdn_pins(board)]
    if rst:
        pulse_rstpdn(rst, clock)
    return len(rst)


def make_readers(board, buses, make_pin, timeout_ms=50, retries=1, make_irq=None, frees=None):
    """PN532 drivers for board.readers over buses (name -> machine.I2C/SPI/UART-like object).

    make_pin(gp) gives a Pin-like chip select, make_irq(gp) a Pin-like input for a reader's
    P70_IRQ (None: waits read the status over the bus). frees maps an I2C bus's name to a
    free() that clears it when a reader holds it (drivers.i2cbus.GuardedI2C). Readers behind
    muxes on one bus share a peer list, so selecting one channel turns every other mux off.
    """
    out = []  # type: list
    muxes = {}
    peers = {}
    guarded = {}
    for i in range(len(board.readers)):
        bus_name, mux_addr, ch, cs = board.readers[i]
        bus = buses[bus_name]
        kind = board.buses[bus_name]["kind"]
        gp = board.reader_irq[i] if board.reader_irq else None
        irq = make_irq(gp) if make_irq is not None and gp is not None else None
        if kind == "i2c":
            from cardtable.drivers.pn532_i2c import PN532I2C

            if frees is not None and bus_name in frees:
                g = guarded.get(bus_name)
                if g is None:
                    from cardtable.drivers.i2cbus import GuardedI2C

                    g = guarded[bus_name] = GuardedI2C(bus, frees[bus_name], bus_name)
                    peers[bus_name] = g.muxes
                bus = g
            mux = None
            if mux_addr is not None:
                key = (bus_name, mux_addr)
                mux = muxes.get(key)
                if mux is None:
                    from cardtable.drivers.mux import Mux

                    mux = Mux(bus, mux_addr, peers.setdefault(bus_name, []))
                    muxes[key] = mux
            out.append(PN532I2C(bus, mux=mux, channel=ch or 0, timeout_ms=timeout_ms,
                                retries=retries, irq=irq))
        elif kind == "spi":
            from cardtable.drivers.pn532_spi import PN532SPI

            out.append(PN532SPI(bus, make_pin(cs), timeout_ms=timeout_ms, retries=retries,
                                irq=irq))
        else:
            from cardtable.drivers.pn532_uart import PN532UART

            out.append(PN532UART(bus, timeout_ms=timeout_ms, retries=retries, irq=irq))
    return out
