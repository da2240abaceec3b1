"""MicroPython side of host/cardtable_host/sim/vboard/board.mjs: boot firmware/main.py's table on simulated hardware.

Every function here is one top-level call from JavaScript, so the garbage of each is
collected before the next (the WebAssembly port collects only between top-level calls).
Functions return a status (OK, or FAILED with the exception kept for report()); none raises.
The table is booted by main.py's staged boot (cardtable.simboot.Boot: main.build with the
simulated hal, cardtable.hw_sim.SimHal, over emulated PN532s, cardtable.sim.pn532_emu, passed
in), files on the MEMFS root (cardtable.hal.FileStorage), real time, and the board's USB serial
(hw_sim.SimSerial) fed by JS, writing to this process's stdout.
"""
import gc
import sys

OK = 0
FAILED = 1
MORE = 2
STOPPED = 3  # main.py would not start the table (maintenance mode, bad config)

# Tidy the emulators' debugging logs every this many steps, so they do not fill the heap.
_TIDY_EVERY = 64
_FRAMES_KEEP = 2

S = {"exc": None, "ctl": None, "stages": None, "emu": None, "note": "", "steps": 0, "peak": 0,
     "live_max": 0, "budget": 0, "over": 0, "collected": True}
_POLLS = []  # InListPassiveTarget commands each reader's emulator has answered


def _guard(fn, *args):
    try:
        r = fn(*args)
        return OK if r is None else r
    except BaseException as e:  # noqa: B036 - reported by report() in the next call
        S["exc"] = e
        return FAILED


def report():
    """Print the pending exception (traceback) to stdout, as a board prints a crash."""
    e = S["exc"]
    S["exc"] = None
    if e is not None:
        sys.print_exception(e, sys.stdout)
    return OK


def boot_report(stopped):
    """The table did not start: say why as main.py does (and keep it for cardtable doctor)."""
    e = S["note"] if stopped else S["exc"]
    S["exc"] = None
    if not e:
        return OK
    try:
        from cardtable.hal import FileStorage
        import main

        if stopped and not e.startswith("cardtable: cannot start"):
            print(e)  # maintenance mode: nothing failed
        else:
            main.boot_failed(FileStorage(""), e)
    except BaseException:  # noqa: B036 - main.py itself failed: say what we have
        if stopped:
            print(e)
        else:
            sys.print_exception(e, sys.stdout)
    return OK


def note():
    """Why the table did not start (STOPPED), as main.py would print it."""
    return S["note"]


# -- the flash filesystem, as a Pico's ----------------------------------------------------

# The WebAssembly port's files raise OSError with Emscripten's errno values (ENOENT is 44);
# MicroPython and mpremote expect the standard ones, as a Pico's littlefs gives them.
_ERRNO = {44: 2, 20: 17, 31: 21, 54: 20, 55: 39, 28: 22, 2: 13, 63: 1, 8: 9, 51: 28, 29: 5,
          10: 16, 6: 11, 48: 12, 75: 18, 37: 36}


def _fixed(fn):
    def call(*args):
        try:
            return fn(*args)
        except OSError as e:
            n = e.args[0] if e.args else None
            if n in _ERRNO:
                raise OSError(_ERRNO[n])
            raise

    return call


def shim_vfs():
    """Standard errno values from open() and os; os.ilistdir() with sizes (mpremote's ls)."""
    import builtins
    import os

    if getattr(os, "_cardtable_shim", False):
        return OK
    builtins.open = _fixed(builtins.open)
    for name in ("stat", "listdir", "mkdir", "remove", "rmdir", "rename", "chdir", "statvfs"):
        if hasattr(os, name):
            setattr(os, name, _fixed(getattr(os, name)))
    raw = _fixed(os.ilistdir)
    _RAW_ILISTDIR.append(raw)
    stat = os.stat

    def ilistdir(path=""):
        base = path if path.endswith("/") or not path else path + "/"
        for e in raw(path):
            size = 0
            if e[1] == 0x8000:
                try:
                    size = stat(base + e[0])[6]
                except OSError:
                    pass
            yield (e[0], e[1], 0, size)

    os.ilistdir = ilistdir
    os.statvfs = _pico_statvfs
    os._cardtable_shim = True
    return OK


# A Pico's flash filesystem: littlefs in 4 KiB blocks, 1408 KiB on RPI_PICO
# (MICROPY_HW_FLASH_STORAGE_BYTES), not the host's disk under MEMFS.
_BLOCK = 4096
_BLOCKS = 1408 * 1024 // _BLOCK


def _blocks_used(path, raw, stat, skip=None):
    """littlefs's use, about: a metadata pair per directory, whole blocks per file."""
    n = 2
    base = path if path.endswith("/") else path + "/"
    for e in raw(path):
        p = base + e[0]
        if p == "/.sim" or p == skip:
            continue
        if e[1] == 0x4000:
            n += _blocks_used(p, raw, stat)
        else:
            try:
                n += (stat(p)[6] + _BLOCK - 1) // _BLOCK
            except OSError:
                pass
    return n


def _pico_statvfs(path="/"):
    import os

    raw = _RAW_ILISTDIR[0]
    if S.get("ctl") is None or S.get("repl"):  # at the REPL (mpremote copies files): all of it
        used = _blocks_used("/", raw, os.stat)
    else:  # the table writes only its journals: the rest is counted once
        if S.get("fw_blocks") is None:
            S["fw_blocks"] = _blocks_used("/", raw, os.stat, "/games")
        try:
            games = _blocks_used("/games", raw, os.stat)
        except OSError:
            games = 0
        used = S["fw_blocks"] + games
    free = _BLOCKS - used
    free = free if free > 0 else 0
    return (_BLOCK, _BLOCK, _BLOCKS, free, free, 0, 0, 0, 0, 255)


_RAW_ILISTDIR = []


# -- boot -------------------------------------------------------------------------------


def preset_dead(readers):
    """Readers (comma-separated indexes) whose cable is cut when the table boots."""
    S["dead"] = [int(r) for r in readers.split(",") if r]
    return OK


def begin(emu, board_kinds):
    """Plan the boot: emu is 1 if pn532_emu is importable (board_kinds, e.g. 'i2c,spi': the
    boot finds them in the board config itself)."""
    S["stages"] = _emu if emu else None
    S["boot"] = None
    return OK


def _emu():
    import pn532_emu

    return pn532_emu


def _host_only(name):
    """cardtable.<name> of the simulated hardware: from the flash where it is there, else the
    copy the board put beside this glue (`cardtable flash` keeps host-only modules off a board)."""
    full = "cardtable." + name
    try:
        return __import__(full, None, None, (name,))
    except ImportError:
        pass
    import cardtable

    mod = __import__("_sim_" + name)
    sys.modules[full] = mod
    setattr(cardtable, name, mod)
    return mod


def stage_name():
    """The boot stage run last, e.g. 'import cardtable.journal'."""
    boot = S.get("boot")
    if boot is None:
        return "import main" if S.get("main") is not None else "done"
    return boot.last or "done"


def stage():
    """Run the next boot stage: MORE, OK (the table runs), STOPPED or FAILED."""
    return _guard(_stage)


def _stage():
    # main.py and its simulated hardware first (cardtable.simboot.Boot, main.py's staged boot),
    # then one Boot stage a call
    boot = S.get("boot")
    if boot is None:
        if S.get("main") is None:
            import main

            S["main"] = main
            gc.collect()
            return MORE
        _host_only("hw_sim")
        simboot = _host_only("simboot")
        S["simboot"] = simboot
        boot = S["boot"] = simboot.Boot(S["main"], None, "boards", S["stages"], sys.stdout.buffer,
                                       S.get("dead", ()))
        gc.collect()
        return MORE
    sim = S["simboot"]
    st = boot.step()
    S["storage"] = boot.storage
    if st == sim.MORE:
        if boot.last == "emu":
            S["emu"] = boot.emu
        if boot.last == "board":
            S["board"] = boot.board
        gc.collect()
        return MORE
    if st == sim.STOPPED:
        S["note"] = boot.note
        return STOPPED
    S["board"] = boot.board
    S["emu"] = boot.emu
    S["ctl"] = ctl = boot.ctl
    S["steps"] = 0
    del _POLLS[:]
    if ctl.hal.emus:
        for _ in ctl.hal.emus:
            _POLLS.append(0)
    gc.collect()
    return OK


# -- running ----------------------------------------------------------------------------


# The board's USB CDC receive buffer, as a Pico's: the serial input holds at most this many
# bytes not read yet; JS keeps the rest (flow control), so no line of any length reaches the
# heap whole (the table's LineReader refuses and drops a line over LINE_MAX as it arrives).
SERIAL_ROOM = 256


def feed(hexdata):
    """Bytes from the host (hex text) into the board's serial input, as many as there is room
    for: how many it took."""
    from binascii import unhexlify

    ctl = S["ctl"]
    if ctl is None:
        return 0
    ser = ctl.hal.serial
    data = unhexlify(hexdata)
    k = min(len(data), SERIAL_ROOM - ser.waiting())
    if k <= 0:
        return 0
    ser.feed(data[:k] if k < len(data) else data)
    return k


def step(n):
    """n turns of main.py's loop (main.run), then housekeeping; MORE while the table has work
    under way (Controller.busy) or host bytes wait to be read."""
    return _guard(_step, n)


def set_stickers(on):
    """on=1: while the table enrolls through a zone, a person keeps laying fresh stickers there."""
    S["stickers"] = on
    S["sticker_n"] = 0
    return OK


def _sticker(ctl):
    """A fresh blank sticker on the zone being enrolled, once the one there holds a code."""
    i = ctl.board.zone_reader.get(ctl.enroll)
    if i is None or not ctl.hal.emus:
        return
    e = ctl.hal.emus[i]
    for tag in e.field:
        try:
            tag.text()
        except ValueError:  # NdefError: an empty sticker lies there, waiting for its code
            return
    S["sticker_n"] += 1
    e.remove()
    e.place(S["emu"].Tag("04%012x" % (0x5C1C0000000 + S["sticker_n"]), kind=213))


def set_budget(n):
    """The heap a Pico would have for the table (bytes); 0: no check."""
    S["budget"] = n
    return OK


def _step(n):
    ctl = S["ctl"]
    if S["collected"]:
        _measure(ctl, gc.mem_alloc())  # the collection asked for ran as this call began
    S["main"].run(ctl, ctl.hal.wdt, n)
    S["steps"] += n
    if S.get("stickers") and ctl.enroll is not None:
        _sticker(ctl)
    emus = ctl.hal.emus
    if emus and S["steps"] % _TIDY_EVERY < n:
        _tidy(emus)
    used = gc.mem_alloc()
    if used > S["peak"]:
        S["peak"] = used
    # Collect once the heap holds more than the budget, as a Pico collects once its heap is
    # full; below it, what is alive is no more than the budget either, and a collection after
    # every step took over half the board's CPU.
    S["collected"] = not S["budget"] or used > S["budget"]
    if S["collected"]:
        gc.collect()  # runs as the next call begins: the next step measures what is alive
    return MORE if ctl.busy() or ctl.hal.serial.waiting() else OK


def _measure(ctl, live):
    """Count what is alive against the budget: a fault on the link the first time it is over."""
    if live > S["live_max"]:
        S["live_max"] = live
    if S["budget"] and live > S["budget"]:
        S["over"] += 1
        if S["over"] == 1:
            from cardtable import link

            ctl.link.send(link.fault("error", "virtual board: the table holds %d bytes of heap, "
                                     "more than a Pico's %d" % (live, S["budget"])))


def _tidy(emus):
    """Count each emulator's polls from its command log, then cut the log short."""
    for i in range(len(emus)):
        e = emus[i]
        log = e.log
        c = 0
        for b in log:
            if b == 0x4A:
                c += 1
        _POLLS[i] += c
        if log:
            e.log = bytearray()
        if len(e.frames) > _FRAMES_KEEP:
            e.frames = e.frames[-_FRAMES_KEEP:]


def polls(reader):
    """How many times the firmware has polled a reader (InListPassiveTarget) so far."""
    ctl = S["ctl"]
    if ctl is None or not ctl.hal.emus:
        return 0
    c = _POLLS[reader]
    for b in ctl.hal.emus[reader].log:
        if b == 0x4A:
            c += 1
    return c


def interrupt():
    """Ctrl-C: the loop stops as main.py's does (the watchdog kept fed for the REPL)."""
    ctl = S["ctl"]
    S["repl"] = True  # the files may change now: statvfs looks at all of them again
    if ctl is not None:
        try:
            ctl.hal.wdt.keep_fed()
        except AttributeError:
            pass
    print("cardtable: stopped by Ctrl-C; the REPL is yours")
    return OK


# -- the table: cards, buttons, readers -------------------------------------------------


def _reader(zone):
    b = S["board"]
    i = b.zone_reader.get(zone)
    if i is None:
        raise ValueError("no zone %r on board %s" % (zone, b.name))
    return i


def place(zone, uid_hex, text, kind):
    """Lay a tag on a zone's reader: kind 213/215/216 (NTAG), 'bank', 'classic' or 'blank'."""
    return _guard(_place, zone, uid_hex, text, kind)


def stack(zone, uid_hex, text):
    """Lay a second NTAG over the tag on a zone's reader (two tags on one pad)."""
    return _guard(_place, zone, uid_hex, text, 213, True)


def _place(zone, uid_hex, text, kind, keep=False):
    ctl = S["ctl"]
    if ctl is None or not ctl.hal.emus:
        return OK
    emu = S["emu"]
    i = _reader(zone)
    e = ctl.hal.emus[i]
    if not keep:
        e.remove()
    if kind == "bank" or kind == "classic":
        tag = emu.Tag(uid_hex[:8], kind=kind)
    elif kind == "blank":
        tag = emu.Tag(uid_hex, kind=213, blank=True)
    else:
        tag = emu.Tag(uid_hex, kind=int(kind), text=text)
    e.place(tag)
    return OK


def lift(zone):
    return _guard(_lift, zone)


def _lift(zone):
    ctl = S["ctl"]
    if ctl is not None and ctl.hal.emus:
        ctl.hal.emus[_reader(zone)].remove()
    return OK


def press(button):
    return _guard(_press, button)


def _press(button):
    ctl = S["ctl"]
    if ctl is not None:
        if button not in S["board"].buttons:
            raise ValueError("no button %r on board %s" % (button, S["board"].name))
        ctl.hal.press(button)
    return OK


def turn(encoder, steps):
    return _guard(_turn, encoder, steps)


def _turn(encoder, steps):
    ctl = S["ctl"]
    if ctl is not None:
        ctl.hal.turn(encoder, steps)
    return OK


def dead(reader, on):
    """Cut (on=1) or mend (on=0) a reader's cable."""
    return _guard(_dead, reader, on)


def _dead(reader, on):
    ctl = S["ctl"]
    if ctl is not None and ctl.hal.emus:
        ctl.hal.emus[reader].mute = -1 if on else 0
    return OK


def knob(reader, name, value):
    """Set a fault knob of a reader's emulated PN532 (pn532_emu.PN532Emu: vanish_after, ...)."""
    return _guard(_knob, reader, name, value)


def _knob(reader, name, value):
    ctl = S["ctl"]
    if ctl is not None and ctl.hal.emus:
        setattr(ctl.hal.emus[reader], name, value)
    return OK


def zone_reader(zone):
    """The reader index of a zone, -1 if the board has no such zone."""
    b = S.get("board")
    if b is None:
        return -1
    i = b.zone_reader.get(zone)
    return -1 if i is None else i


def pixels():
    """The colours the LEDs show, as 'r,g,b;r,g,b;...'."""
    ctl = S["ctl"]
    if ctl is None:
        return ""
    return ";".join(["%d,%d,%d" % c for c in ctl.hal.pixels.shown])


def heap():
    """Bytes of heap in use (after the collection at this call's start, if one was due)."""
    return gc.mem_alloc()


def heap_stats():
    """'live_max,peak,over': the most live heap at a step's start after a collection, the
    most in use at a step's end (live and garbage), and steps that began over the budget."""
    return "%d,%d,%d" % (S["live_max"], S["peak"], S["over"])
