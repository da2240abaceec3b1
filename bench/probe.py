"""Bench probe for MicroPython: rules cost and heap per action, boot heap, PN532 driver CPU.

Run by bench/device.py through tools/mpy/run.mjs with ``--step step N``: each step is one
top-level call from JavaScript, and the WebAssembly port collects garbage only between such
calls, so a step ends with gc.collect() and the next step reads gc.mem_alloc() after it.
Inside a step nothing is collected, which makes gc.mem_alloc() differences exact byte counts.

On a Pico (firmware lib on the board): ``mpremote run bench/probe.py`` runs the default plan
(every game, one seed, 300 actions, then the driver) and loops the steps itself; save the
output and summarise it with ``python bench/device.py --summarize FILE``.

Usage: probe.py boot MOD,MOD,... [BOARD]  (BOARD: load and drop it as main.py's boot does; the
                                           rp2 board's image: bench/rp2.py. The wasm bench's
                                           boot goes through main.py's staged boot: bootprobe.py)
       probe.py replay NAME SEATS FOLDER SEED,... MAXACT [MOD,...]  (actions in FOLDER/SEED.jsonl)
       probe.py state NAME SEATS FOLDER SEED,... MAXACT [MOD,...]  (replay: the largest state only)
       probe.py game NAME SEATS SEED,... MAXACT [MOD,...]  (bots on the device)
       probe.py driver [BOARDS_DIR]
Output: one record per line, '@' followed by JSON; everything else is noise.
"""
import gc
import json
import sys

try:
    from js import performance

    _now = performance.now  # ms as a float, microsecond resolution (ticks_us is ms-coarse here)

    def stamp():
        return _now()

    def ns(a, b):
        return int((b - a) * 1000000)

    WASM = True
except ImportError:
    import time

    stamp = time.ticks_us

    def ns(a, b):
        return time.ticks_diff(b, a) * 1000

    WASM = False

alloc = gc.mem_alloc


def emit(obj):
    print("@" + json.dumps(obj))


def mem_info():
    """Print the port's heap summary; the host reads 'GC: total: N' from it (gc.mem_free()
    is meaningless in wasm, whose heap could grow in split areas were it not capped)."""
    import micropython

    micropython.mem_info()


def _stamp_cost():
    """Bytes one stamp() allocates (a boxed float in wasm, nothing with ticks_us)."""
    a = alloc()
    stamp()
    stamp()
    stamp()
    stamp()
    return (alloc() - a) // 4


STAMP = _stamp_cost()


def _modules(arg):
    return [m for m in arg.split(",") if m] if arg else []


def import_each(mods, failed, sizes=None):
    """Import the modules one per step (wasm collects only between steps); records failures.

    Yields after each module; ``failed`` gets {module: error} for those that do not import
    here (e.g. ones that need ``machine``), ``sizes`` the heap each import kept (with the
    modules it pulled in that were not loaded yet). Returns the largest heap in use during an
    import (what was held before it plus everything it allocated), relative to the start.
    """
    gc.collect()
    yield
    base = alloc()
    peak = 0
    for m in mods:
        before = alloc()
        try:
            __import__(m)
        except Exception as e:  # noqa: BLE001 - any failure is reported, not fatal
            failed[m] = "%s: %s" % (type(e).__name__, e)
        peak = max(peak, alloc() - base)
        gc.collect()
        yield
        if sizes is not None:
            sizes[m] = alloc() - before
    return peak


# -- boot: heap taken by the firmware's modules ------------------------------------------------

CONFIG = "cardtable.table.config"


def boot_plan(mods, board=None):
    gc.collect()
    yield
    base = alloc()
    failed = {}
    sizes = {}
    cut = mods.index(CONFIG) + 1 if board and CONFIG in mods else len(mods)
    peak = yield from import_each(mods[:cut], failed, sizes)
    if board and CONFIG in mods:  # as main() does: the board right after its config module
        peak = max(peak, (yield from _board_check(board, base, failed, sizes)))
        rest = alloc() - base
        peak = max(peak, rest + (yield from import_each(mods[cut:], failed, sizes)))
    used = alloc()
    emit({"k": "boot", "base": base, "peak": peak, "retained": used - base, "used": used,
          "modules": sizes, "failed": failed, "wasm": WASM})
    mem_info()


def _board_check(name, base, failed, sizes):
    """Load the board as main.py does at boot (table/config imports its checker, validates and
    unloads it), then drop it: what the check leaves behind (interned names) is boot heap too.
    Returns the heap in use right after the load (checker and its garbage included)."""
    before = alloc()
    peak = 0
    try:
        from cardtable.table import config

        config.load_board(name, "/boards")
        peak = alloc() - base
    except Exception as e:  # noqa: BLE001 - reported, not fatal
        failed["board " + name] = "%s: %s" % (type(e).__name__, e)
    gc.collect()
    yield
    sizes["board " + name + " (checked, dropped)"] = alloc() - before
    return peak


# -- game: per-action cost, allocation and retained state --------------------------------------

class Bots:
    """Actions of a seeded game chosen by the random bots (the default plan on a board)."""

    def __init__(self, name, seats, seed):
        from cardtable import games
        from cardtable.rng import Random

        self.game = games.load(name, seats=seats)
        self.game.keep_history = False  # as the table keeps it: the actions are in the journal
        self.rng = Random(seed)

    def next(self):
        return self.game.bot_action(self.rng)

    def close(self):
        self.game = self.rng = None


def untag(x):
    """An action from its JSON form, in which a tuple is {"()": [items]}."""
    if isinstance(x, list):
        return [untag(v) for v in x]
    if isinstance(x, dict):
        if len(x) == 1 and "()" in x:
            return tuple([untag(v) for v in x["()"]])
        return {k: untag(v) for k, v in x.items()}
    return x


class Replay:
    """The actions of a seeded game as the host's bots played it: one JSON action per line.

    The device does not pay for the bots' move generation (a Forty-Fives discard has hundreds
    of legal choices), nor for decoding card codes (a deal of eight Nerts decks in record
    form makes ~70 KB of garbage, more than the heap has free with the firmware loaded)."""

    def __init__(self, name, seats, path):
        from cardtable import games

        self.f = open(path)
        self.obj = None
        self.game = games.load(name, seats=seats)
        self.game.keep_history = False  # as the table keeps it: the actions are in the journal

    def fetch(self):
        """Read the next line (in a step of its own); False at the end."""
        line = self.f.readline()
        if not line.strip():
            return False
        self.obj = json.loads(line)
        return True

    def next(self):
        obj = self.obj
        self.obj = None
        return untag(obj)

    def close(self):
        self.f.close()
        self.game = self.f = None


def game_plan(name, sources, maxact, boot, lean=False):
    """sources: (seed, function making the action source) per seeded game. lean: no per-action
    rows, only each game's largest state in its end record (a whole game on a slow chip)."""
    from cardtable import games

    failed = {}
    yield from import_each(boot, failed)
    base0 = alloc()
    games.game_class(name)
    gc.collect()
    yield
    base1 = alloc()
    emit({"k": "module", "game": name, "bytes": base1 - base0, "used": base1,
          "boot_failed": failed, "stamp": STAMP})
    mem_info()
    cur = [None]  # the action source (and its game): only ever reached through this list
    base = [base1]  # what held counts from: base1 and the actions' own generator
    for seed, make in sources:
        try:
            _start(cur, make)
        except MemoryError:
            cur[0] = None
            gc.collect()
            yield
            emit({"k": "end", "game": name, "seed": seed, "actions": 0, "over": False, "oom": "start",
                  "held_last": 0, "freed_to": alloc() - base1})
            continue
        gc.collect()
        yield
        before = alloc()
        actions = _game_actions(cur, seed, maxact, lean, base)
        base[0] = base1 + alloc() - before  # the generator is the probe's, not the game's
        n, oom, held, peak, peak_at = yield from actions
        actions = None
        over = _over(cur)
        _stop(cur)
        gc.collect()
        yield
        # Once more: the collector is conservative, and a stale copy of a pointer can keep
        # the dropped game alive through one collection.
        gc.collect()
        yield
        emit({"k": "end", "game": name, "seed": seed, "actions": n, "over": over, "oom": oom,
              "held_last": held, "held_max": peak, "held_max_at": peak_at, "freed_to": alloc() - base1})


def _game_actions(cur, seed, maxact, lean, base):
    """Play the game's actions a step each until its end or maxact: (n, oom, held, peak, peak at)."""
    n = 0
    oom = None
    peak = peak_at = 0
    while True:
        held = alloc() - base[0]  # the game (and its action source) after a collection
        if held > peak:
            peak, peak_at = held, n
        if _over(cur) or n >= maxact:
            break
        try:
            if not _fetch(cur):
                break
            if not lean:
                gc.collect()
                yield
            a = _next(cur)
        except MemoryError:
            oom = "source"  # the bots or the action reader, not the rules
            break
        # the action in hand, its making's garbage collected before the rules run
        if not lean:
            gc.collect()
            yield
        try:
            if lean:
                _play(cur, a)
            else:
                print(_measure(cur, a, seed, n, held))
        except MemoryError:  # the heap is full: this game is as long as it can get
            oom = "rules"
            break
        n += 1
        a = None
        gc.collect()
        yield
    a = None
    return n, oom, held, peak, peak_at


# The game is reached only through `cur` and inside these functions: a MemoryError unwinding
# through the generator's own frame leaves what was on its value stack in stale slots, which
# the collector scans, and a game left there would stay alive after the run drops it.

def _start(cur, make):
    cur[0] = make()


def _over(cur):
    return cur[0].game.over


def _fetch(cur):
    src = cur[0]
    return src.fetch() if hasattr(src, "fetch") else True


def _next(cur):
    return cur[0].next()


def _stop(cur):
    cur[0].close()
    cur[0] = None


def _play(cur, a):
    """Check and apply one action, as the table does."""
    g = cur[0].game
    reason = g.check(a)
    if reason:
        raise AssertionError("an illegal action in the seeded game %r: %s" % (a, reason))
    g.apply(a)


def _measure(cur, a, seed, n, held):
    """Check, apply and report one action; returns its '@a' line."""
    g = cur[0].game
    m0 = alloc()
    t0 = stamp()
    reason = g.check(a)
    t1 = stamp()
    g.apply(a)
    t2 = stamp()
    m1 = alloc()
    v0 = alloc()
    t3 = stamp()
    text = json.dumps(g.view(None))
    t4 = stamp()
    v1 = alloc()
    if reason:
        raise AssertionError("an illegal action in the seeded game %r: %s" % (a, reason))
    return "@a %d %d %s %d %d %d %d %d %d %d" % (
        seed, n, a[1], ns(t0, t1), ns(t1, t2), m1 - m0 - 3 * STAMP, ns(t3, t4),
        v1 - v0 - 2 * STAMP, len(text), held)


def bot_sources(name, seats, seeds):
    return [(seed, lambda seed=seed: Bots(name, seats, seed)) for seed in seeds]


def replay_sources(name, seats, seeds, folder):
    return [(seed, lambda seed=seed: Replay(name, seats, "%s/%d.jsonl" % (folder, seed))) for seed in seeds]


# -- driver: CPU of one poll of the real PN532 driver on a bus that answers at once ------------

def _frame(data):
    """A PN532 normal information frame around data (TFI first)."""
    n = len(data)
    s = 0
    for b in data:
        s += b
    return bytes((0, 0, 0xFF, n, (-n) & 0xFF)) + bytes(data) + bytes(((-s) & 0xFF, 0))


_ACK = b"\x00\x00\xff\x00\xff\x00"
_UID = b"\x04\x11\x22\x33\x44\x55\x66"
# Page 3 onwards of an NTAG213 holding the card code "AS": CC, then the NDEF text TLV.
_PAGES = b"\xe1\x10\x12\x00\x03\x09\xd1\x01\x05\x54\x02\x65\x6e\x41\x53\xfe"


def _answers(tag):
    return {
        0x4A: _frame(b"\xd5\x4b\x01\x01\x00\x44\x00\x07" + _UID) if tag else _frame(b"\xd5\x4b\x00"),
        0x32: _frame(b"\xd5\x33"),
        0x52: _frame(b"\xd5\x53\x00"),
        0x40: _frame(b"\xd5\x41\x00" + _PAGES),
    }


def _padded(frame, n, head, conv):
    out = bytearray(n)
    for i in range(len(head)):
        out[i] = head[i]
    for i in range(min(len(frame), n - len(head))):
        out[len(head) + i] = conv[frame[i]]
    return bytes(out)


class FakeI2C:
    """machine.I2C-like: the PN532 at 0x24 answers every command at once; muxes just accept."""

    def __init__(self, tag):
        same = bytes(range(256))
        self.tag = tag
        self.frames = {False: {}, True: {}}
        for tagged in (False, True):
            for cmd, f in _answers(tagged).items():
                self.frames[tagged][cmd] = {n: _padded(f, n, b"\x01", same) for n in (7, 10, 23, 27, 65)}
        self.ack = {n: _padded(_ACK, n, b"\x01", same) for n in (7, 65)}
        self.cur = None
        self.k = 0

    def writeto(self, addr, buf):
        if addr != 0x24:
            return
        self.cur = self.frames[self.tag][buf[6]]
        self.k = 0

    def readfrom_into(self, addr, buf):
        n = len(buf)
        if n == 1:
            buf[0] = 1
            return
        src = self.ack if self.k == 0 else self.cur
        self.k += 1
        buf[:] = src[n]


class FakeSPI:
    """machine.SPI-like, LSB-first bytes as the PN532 sends them; chip select ignored."""

    def __init__(self, tag, rev):
        self.tag = tag
        self.rev = rev
        self.dw, self.sr, self.dr = rev[1], rev[2], rev[3]
        self.frames = {False: {}, True: {}}
        for tagged in (False, True):
            for cmd, f in _answers(tagged).items():
                self.frames[tagged][cmd] = {n: _padded(f, n, b"", rev) for n in (6, 9, 22, 26, 64)}
        self.ack = {n: _padded(_ACK, n, b"", rev) for n in (6, 64)}
        self.mode = 0
        self.cur = None
        self.k = 0

    def write(self, buf):
        if len(buf) == 1:
            self.mode = buf[0]
            return
        self.cur = self.frames[self.tag][self.rev[buf[6]]]
        self.k = 0

    def readinto(self, buf):
        if self.mode == self.sr:
            buf[0] = 0x80
            return
        src = self.ack if self.k == 0 else self.cur
        self.k += 1
        buf[:] = src[len(buf)]


class Pin:
    def __init__(self):
        self.v = 1

    def value(self, v=None):
        if v is None:
            return self.v
        self.v = v


def _time_polls(readers, bus, tag, read, n):
    """Median ns and bytes allocated per poll over n polls (alternating readers)."""
    bus.tag = tag
    ts0 = [0] * n
    ts1 = [0] * n
    uid = text = None
    a0 = alloc()
    for i in range(n):
        r = readers[i & 1]
        t0 = stamp()
        uid = r.poll()
        if read:
            text = r.read_text()
        r.release()
        ts1[i] = stamp()
        ts0[i] = t0
    a1 = alloc()
    if (uid is not None) != tag or (read and text != "AS"):
        raise AssertionError("fake bus answered wrongly")
    times = sorted([ns(ts0[i], ts1[i]) for i in range(n)])
    return times[n // 2], (a1 - a0) // n - 2 * STAMP


def driver_plan(boards_dir):
    gc.collect()
    yield
    from cardtable.drivers.mux import Mux
    from cardtable.drivers.pn532_i2c import PN532I2C

    gc.collect()
    yield
    from cardtable.drivers.pn532_spi import PN532SPI, REV

    gc.collect()
    yield
    n = 200
    i2c = FakeI2C(False)
    peers = []
    mux = Mux(i2c, 0x70, peers)
    i2c_readers = [PN532I2C(i2c, mux=mux, channel=c, retries=1) for c in (0, 1)]
    spi = FakeSPI(False, REV)
    spi_readers = [PN532SPI(spi, Pin(), retries=1) for _ in (0, 1)]
    out = {"k": "driver", "polls": n}
    for bus_name, readers, bus in (("i2c", i2c_readers, i2c), ("spi", spi_readers, spi)):
        res = {}
        for kind, tag, read in (("empty", False, False), ("tag", True, False), ("read", True, True)):
            gc.collect()
            yield
            t, a = _time_polls(readers, bus, tag, read, n)
            res[kind] = {"ns": t, "alloc_per_poll": a}
        out[bus_name] = res
    out["step"] = None
    try:
        yield from _controller_steps(boards_dir, n, out)
    except MemoryError:
        out["step_error"] = "MemoryError"
    except Exception as e:  # noqa: BLE001 - the controller is optional here
        out["step_error"] = "%s: %s" % (type(e).__name__, e)
    gc.collect()
    yield
    emit(out)


def _controller_steps(boards_dir, n, out):
    """Median ns of an idle controller.step() with fake readers (no PN532 driver)."""
    gc.collect()
    yield
    from cardtable.hw_sim import SimHal
    from cardtable.table import config
    from cardtable.table.controller import Controller

    gc.collect()
    yield
    board = config.load_board("pico-i2c-4seat", boards_dir)
    gc.collect()
    yield
    hal = SimHal(board)
    ctl = Controller(board, "nexus", hal)
    gc.collect()
    yield
    for _ in range(20):
        hal.clock.advance(5)
        ctl.step()
    hal.serial.take()
    gc.collect()
    yield
    ts0 = [0] * n
    ts1 = [0] * n
    a0 = alloc()
    for i in range(n):
        hal.clock.advance(5)
        t0 = stamp()
        ctl.step()
        ts1[i] = stamp()
        ts0[i] = t0
    a1 = alloc()
    times = sorted([ns(ts0[i], ts1[i]) for i in range(n)])
    out["step"] = {"ns": times[n // 2], "alloc_per_step": (a1 - a0) // n - 2 * STAMP,
                   "board": board.name, "readers": len(board.readers)}


# -- plans ---------------------------------------------------------------------------------------

def default_plan():
    """Without arguments (e.g. on a Pico): every game briefly, then the driver."""
    from cardtable import games

    for name in games.GAMES:  # every registered game
        try:
            seats = games.game_class(name).SEATS[1]
        except ImportError as e:
            emit({"k": "skip", "game": name, "error": str(e)})
            continue
        games.unload(name)  # so that game_plan measures what importing it keeps
        gc.collect()
        yield
        yield from game_plan(name, bot_sources(name, seats, (1,)), 300, ())
        games.unload(name)
        gc.collect()
        yield
    yield from driver_plan("boards")


def make_plan(argv):
    if len(argv) < 2:
        return default_plan()
    mode = argv[1]
    if mode == "boot":
        return boot_plan(_modules(argv[2] if len(argv) > 2 else ""), argv[3] if len(argv) > 3 else None)
    if mode == "game":  # bots on the device
        seeds = tuple(int(s) for s in argv[4].split(","))
        boot = _modules(argv[6]) if len(argv) > 6 else []
        return game_plan(argv[2], bot_sources(argv[2], int(argv[3]), seeds), int(argv[5]), boot)
    if mode == "replay":  # actions written by the host: FOLDER/SEED.jsonl
        seeds = tuple(int(s) for s in argv[5].split(","))
        boot = _modules(argv[7]) if len(argv) > 7 else []
        return game_plan(argv[2], replay_sources(argv[2], int(argv[3]), seeds, argv[4]), int(argv[6]), boot)
    if mode == "state":  # as replay, but only the largest state of each game (no per-action rows)
        seeds = tuple(int(s) for s in argv[5].split(","))
        boot = _modules(argv[7]) if len(argv) > 7 else []
        return game_plan(argv[2], replay_sources(argv[2], int(argv[3]), seeds, argv[4]), int(argv[6]), boot,
                         lean=True)
    if mode == "driver":
        return driver_plan(argv[2] if len(argv) > 2 else "boards")
    raise SystemExit("probe.py: unknown mode %r" % mode)


PLAN = make_plan(sys.argv)


def step(i):
    """One step of the plan (called from JavaScript); ends the run when the plan is done."""
    try:
        next(PLAN)
    except StopIteration:
        emit({"k": "done", "steps": i})
        sys.exit(0)


if sys.platform != "webassembly":  # a board: nothing calls step() from outside
    for _ in PLAN:
        pass
    emit({"k": "done"})
