# host only: never imported on the board (simulated hardware: tools/firmware/boardfiles.py)
"""Simulated hardware: every hal interface in memory, easy to drive from a test or the virtual board."""
# ``SimHal(board)`` gives a table with a fake reader per zone; ``SimHal(board, emu=pn532_emu)``
# puts an emulated PN532 (``cardtable.sim.pn532_emu``, passed in: the board never has it) behind
# the real drivers on simulated buses instead.
# Either way: ``place(zone, code)``, ``lift(zone)``, ``press(button)``, ``turn(encoder, steps)``,
# ``kill(zone)``/``revive(zone)``, ``serial.feed(bytes)`` and ``serial.lines()``; the clock moves
# only when told (``clock.advance(ms)``, or ``ms_per_step`` per ``tick()``).
from cardtable import hal
from cardtable.compat import ticks_add

EIO = 5


class TagGone(OSError):
    """The tag left the field during a read (the driver's TagError, status 0x01)."""

    status = 1


class NoCardCode(ValueError):
    """The tag carries no card code (the driver's NdefError)."""


class SimClock(hal.Clock):
    """A clock that moves only when told; sleeping moves it."""

    def __init__(self, start=0):
        self.now = start

    def ticks_ms(self):
        return self.now

    def ticks_us(self):
        return (self.now * 1000) & 0x3FFFFFFF

    def sleep_ms(self, ms):
        self.advance(ms)

    def advance(self, ms):
        self.now = ticks_add(self.now, ms)


class MemFile:
    """A file in MemStorage: binary read/write/append with flush as the commit point."""

    def __init__(self, store, path, mode):
        self.store = store
        self.path = path
        self.mode = mode
        self.pos = 0
        self.closed = False
        if "r" in mode:
            if path not in store.files:
                raise OSError(2)
            self.data = store.files[path]
        else:
            if "w" in mode or path not in store.files:
                store.files[path] = bytearray()
            self.data = store.files[path]
            self.pos = len(self.data)

    def read(self, n=-1):
        d = self.data
        end = len(d) if n < 0 else min(len(d), self.pos + n)
        out = bytes(d[self.pos:end])
        self.pos = end
        return out

    def write(self, b):
        if self.store.fail_writes:
            raise OSError(28)  # ENOSPC
        self.data.extend(b)
        self.store.written += len(b)
        return len(b)

    def flush(self):
        self.store.flushes += 1

    def close(self):
        self.closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class MemStorage(hal.Storage):
    """A flat in-memory filesystem; directories are name prefixes."""

    def __init__(self, capacity=1 << 20):
        self.files = {}
        self.dirs = {"": True}
        self.capacity = capacity
        self.fail_writes = False
        self.written = 0
        self.flushes = 0

    def open(self, path, mode):
        if "b" not in mode:
            raise ValueError("binary modes only")
        return MemFile(self, path, mode)

    def listdir(self, path):
        path = path.rstrip("/")
        if path not in self.dirs:
            raise OSError(2)
        pre = path + "/" if path else ""
        out = []
        for name in list(self.files) + list(self.dirs):
            if name and name.startswith(pre) and "/" not in name[len(pre):]:
                out.append(name[len(pre):])
        return out

    def remove(self, path):
        if path not in self.files:
            raise OSError(2)
        del self.files[path]

    def rename(self, src, dst):
        if src not in self.files:
            raise OSError(2)
        self.files[dst] = self.files.pop(src)

    def mkdir(self, path):
        if path in self.dirs:
            raise OSError(17)
        self.dirs[path] = True

    def size(self, path):
        f = self.files.get(path)
        return -1 if f is None else len(f)

    def free(self):
        used = 0
        for k in self.files:
            used += len(self.files[k])
        return self.capacity - used


class SimPixels(hal.Pixels):
    """LEDs as a list of (r, g, b); `shown` is what the last show() displayed."""

    def __init__(self, n):
        self.n = n
        self.buf = [(0, 0, 0)] * n
        self.shown = [(0, 0, 0)] * n
        self.shows = 0

    def set(self, i, rgb):
        self.buf[i] = rgb

    def show(self):
        for i in range(self.n):  # in place: a real show() allocates nothing either
            self.shown[i] = self.buf[i]
        self.shows += 1


class SimBuzzer(hal.Buzzer):
    """Remembers every tone it was asked for: `tones` holds the frequencies, 0 = silence."""

    def __init__(self):
        hal.Buzzer.__init__(self)
        self.tones = []
        self.patterns = []

    def tone(self, freq):
        self.tones.append(freq)

    def play(self, pattern, now):
        self.patterns.append(pattern)
        hal.Buzzer.play(self, pattern, now)


class SimInputs(hal.Inputs):
    """Button presses and encoder turns queued from outside."""

    def __init__(self):
        self.queue = []

    def press(self, name):
        self.queue.append((hal.BUTTON, name))

    def turn(self, name, steps):
        self.queue.append((hal.TURN, name, steps))

    def next(self):
        if self.queue:
            return self.queue.pop(0)
        return None


class SimSerial(hal.Serial):
    """The one byte-fed serial of the simulated tables: host bytes go in with feed(); what the
    device writes goes to out (a stream: the virtual board's stdout) or, without one, is kept
    for lines()/take()."""

    def __init__(self, out=None):
        self.inbox = bytearray()
        self._rd = 0
        self.sink = out
        self.out = bytearray()

    def feed(self, data):
        if isinstance(data, str):
            data = data.encode()
        if self._rd:
            self.inbox = self.inbox[self._rd:]
            self._rd = 0
        self.inbox.extend(data)

    def waiting(self):
        """Host bytes the device has not read yet."""
        return len(self.inbox) - self._rd

    def read_byte(self):
        if self._rd >= len(self.inbox):
            return -1
        b = self.inbox[self._rd]
        self._rd += 1
        return b

    def write(self, data):
        if isinstance(data, str):
            data = data.encode()
        if self.sink is not None:
            self.sink.write(data)
        else:
            self.out.extend(data)

    def take(self):
        """Everything written since the last take(), as bytes."""
        out = bytes(self.out)
        self.out = bytearray()
        return out

    def lines(self):
        """The complete lines written since the last call, as str (a partial line waits)."""
        data = bytes(self.out)
        cut = data.rfind(b"\n") + 1
        self.out = bytearray(data[cut:])
        return [ln for ln in data[:cut].decode().split("\n") if ln]


class SimWatchdog(hal.Watchdog):
    """Counts feeds; remembers when it was started."""

    def __init__(self):
        self.feeds = 0
        self.started = 0

    def start(self, ms):
        self.started = ms

    def feed(self):
        self.feeds += 1


class SimReader:
    """A fake PN532 reader with the driver's API: a card is (uid bytes, text or None)."""

    def __init__(self):
        self.card = None
        self.dead = False
        self.script = None  # a list of True/False: per poll, is the card seen (flicker)
        self.polls = 0
        self.inits = 0
        self.reads = 0
        self.field = False
        self._sel = False
        self.extra = None  # a second tag on the pad: (uid, text)
        self.tear = False  # the next read loses the card halfway (snatched away)

    def init(self):
        self.inits += 1
        if self.dead:
            raise OSError(EIO)
        return (0x32, 1, 6, 7)

    def poll(self):
        if self.dead:
            raise OSError(EIO)
        self.polls += 1
        self.field = True
        self._sel = False
        seen = self.card is not None
        if self.script:
            seen = seen and self.script.pop(0)
        if not seen:
            return None
        self._sel = True
        return self.card[0]

    def read_text(self):
        if self.dead:
            raise OSError(EIO)
        if not self._sel:
            raise TagGone(EIO)
        if self.tear:
            self.tear = False
            self.card = None
            raise TagGone(EIO)
        self.reads += 1
        text = self.card[1]
        if text is None:
            raise NoCardCode("no NDEF text record: not a card of this table")
        return text

    def targets(self):
        """How many tags answer in the field (the driver's targets())."""
        if self.dead:
            raise OSError(EIO)
        self._sel = self.card is not None
        return (self.card is not None) + (self.extra is not None)

    def write_text(self, text):
        if self.dead:
            raise OSError(EIO)
        if not self._sel:
            raise TagGone(EIO)
        if len(self.card[0]) != 7:
            raise NoCardCode("not an NFC Forum Type 2 tag")
        self.card = (self.card[0], text)

    def release(self):
        if self.dead:
            raise OSError(EIO)
        self.field = False
        self._sel = False

    def stats(self):
        return {"polls": self.polls}


def uid_for(text, zone=""):
    """A stable 7-byte NTAG-like UID for a card code (so one card keeps one UID)."""
    h = 5381
    for ch in text:
        h = (((h & 0xFFFFF) * 33) ^ ord(ch)) & 0xFFFFFFF
    return bytes((0x04, h & 255, (h >> 8) & 255, (h >> 16) & 255, (h >> 24) & 15, 0x80, 0x01))


class SimBusFree:
    """free(cut) for a simulated I2C bus: the real bus clear on its FakePins (cut: the
    muxes' RESET pulsed instead); rstpdn() pulses the bus's shared RSTPDN (rst) if wired."""

    def __init__(self, fake, scl, sda, reset, rst=None, clock=None):
        self.fake = fake
        self.scl = scl
        self.sda = sda
        self.reset = reset
        self.rst = rst
        self.clock = clock

    def rstpdn(self):
        """Pulse the shared RSTPDN line: every PN532 on the bus restarts."""
        hal.pulse_rstpdn((self.rst,), self.clock)
        return self.fake

    def __call__(self, cut=False):
        from cardtable.drivers import busclear

        if not cut:
            busclear.clear(self.scl, self.sda)
        elif self.reset is not None:
            busclear.pulse(self.reset)
        return self.fake


def emulated(board, emu, clock=None):
    """Real PN532 drivers on simulated buses, one emulated PN532 per reader.

    emu is the pn532_emu module (or busfault: readers that can hold SDA low). As on the Pico,
    every chip select, mux RESET and RSTPDN is driven high before a bus exists (they start
    low: RP2040 pins come out of reset pulled down), RSTPDN is pulsed, IRQ pins are read
    where wired and each I2C bus clears itself when a reader holds SDA. Returns (readers,
    emulators, pins by GP) in board.readers order.
    """
    buses = {}
    pins = {}
    emus = []
    muxes = {}

    def make_pin(gp):
        p = pins.get(gp)
        if p is None:
            p = pins[gp] = emu.FakePin(0)
        return p

    for gp in hal.outputs(board):
        make_pin(gp).value(1)
    for i in range(len(board.readers)):
        e = emu.PN532Emu()
        emus.append(e)
        if board.reader_rst and board.reader_rst[i] is not None:
            e.watch_reset(make_pin(board.reader_rst[i]))
        shared = board.buses[board.readers[i][0]].get("rst")
        if shared is not None:  # the bus's one RSTPDN line, to every reader on it
            e.watch_reset(make_pin(shared))
        if board.reader_irq and board.reader_irq[i] is not None:
            pins[board.reader_irq[i]] = e.irq()
    clock = clock or SimClock()
    hal.reset_readers(board, make_pin, clock)
    frees = {}
    streams = {}
    for i in range(len(board.readers)):
        bus_name, mux_addr, ch, cs = board.readers[i]
        kind = board.buses[bus_name]["kind"]
        e = emus[i]
        if kind == "i2c":
            bus = buses.get(bus_name)
            if bus is None:
                bus = buses[bus_name] = emu.FakeI2C()
                scl, sda = emu.FakePin(1), emu.FakePin(1)
                gp = board.buses[bus_name].get("reset")
                reset = make_pin(gp) if gp is not None else None
                if hasattr(bus, "wire"):  # the busfault emulator: the bus sees its pins
                    bus.wire(scl, sda, reset)
                gp = board.buses[bus_name].get("rst")
                frees[bus_name] = SimBusFree(bus, scl, sda, reset,
                                             make_pin(gp) if gp is not None else None, clock)
            mux = None
            if mux_addr is not None:
                mux = muxes.get((bus_name, mux_addr))
                if mux is None:
                    mux = muxes[(bus_name, mux_addr)] = bus.add_mux(mux_addr)
            bus.attach(e, mux=mux, channel=ch or 0)
        elif kind == "spi":
            bus = buses.get(bus_name)
            if bus is None:
                bus = buses[bus_name] = emu.FakeSPI()
            bus.attach(e, make_pin(cs))
        else:
            streams[bus_name] = emu.Stream(e)
            buses[bus_name] = streams[bus_name]
    readers = hal.make_readers(board, buses, make_pin, timeout_ms=5, make_irq=pins.get,
                               frees=frees)
    return readers, emus, pins


class SimHal(hal.Hal):
    """A whole simulated table for a board: fake (or emulated) readers, LEDs, buttons, link."""

    def __init__(self, board, emu=None, storage=None, clock=None):
        self.board = board
        self.emu = emu
        clock = clock or SimClock()
        self.pins = {}
        if emu is None:
            readers = [SimReader() for _ in board.readers]
            self.emus = None
        else:
            readers, self.emus, self.pins = emulated(board, emu, clock)
        hal.Hal.__init__(self, clock, storage or MemStorage(),
                         SimPixels(board.led_count), SimBuzzer(), SimInputs(), SimSerial(),
                         readers, SimWatchdog())
        self._tags = {}

    def _reader(self, zone):
        i = self.board.zone_reader.get(zone)
        if i is None:
            raise ValueError("no zone %r on board %s" % (zone, self.board.name))
        return i

    def place(self, zone, text, uid=None):
        """Put a tag holding text (a card code; None = a foreign tag) on a zone's reader."""
        i = self._reader(zone)
        if uid is None:
            uid = uid_for(text or "foreign:" + zone)
        if self.emus is None:
            self.readers[i].card = (uid, text)
        else:
            e = self.emus[i]
            e.remove()
            if text is None:
                tag = self.emu.Tag(uid[:4], kind="bank")
            else:
                tag = self.emu.Tag(uid, text=text)
            e.place(tag)
            self._tags[zone] = tag

    def lift(self, zone):
        """Take whatever lies on a zone away."""
        i = self._reader(zone)
        if self.emus is None:
            self.readers[i].card = None
            self.readers[i].extra = None
        else:
            self.emus[i].remove()

    def stack(self, zone, text, uid=None):
        """Lay a second tag on a zone's reader, over the one lying there."""
        i = self._reader(zone)
        if uid is None:
            uid = uid_for(text or "foreign:" + zone)
        if self.emus is None:
            self.readers[i].extra = (uid, text)
        else:
            self.emus[i].place(self.emu.Tag(uid, text=text))

    def tear(self, zone):
        """The next read on a zone's reader loses its tag halfway (a card snatched away)."""
        i = self._reader(zone)
        if self.emus is None:
            self.readers[i].tear = True
        else:
            self.emus[i].vanish_after = 0

    def kill(self, zone):
        """The zone's reader stops answering (a loose cable)."""
        i = self._reader(zone)
        if self.emus is None:
            self.readers[i].dead = True
        else:
            self.emus[i].mute = -1

    def revive(self, zone):
        """The zone's reader answers again."""
        i = self._reader(zone)
        if self.emus is None:
            self.readers[i].dead = False
        else:
            self.emus[i].mute = 0

    def press(self, button):
        """Press (and release) a button."""
        self.inputs.press(button)

    def turn(self, encoder, steps):
        """Turn an encoder by steps (negative: back)."""
        self.inputs.turn(encoder, steps)

    def fields_on(self):
        """How many readers have their RF field on right now."""
        n = 0
        if self.emus is None:
            for r in self.readers:
                if r.field:
                    n += 1
        else:
            for e in self.emus:
                if e.rf:
                    n += 1
        return n
