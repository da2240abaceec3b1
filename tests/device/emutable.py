"""Tables on emulated PN532 readers for the device tests (test_tag, test_bus_fault): a module of
its own, so a test file that uses them does not keep another test file's code in the heap."""
import sys

from support import MICROPYTHON

from simtable import collect, only_game, table

EMULATING = not MICROPYTHON or __import__("cardtable").__file__.endswith(".mpy")
EXTRA = ("cardtable.sim.pn532_emu", "cardtable.drivers.ndef", "cardtable.drivers.pn532",
         "cardtable.drivers.mux", "cardtable.drivers.pn532_i2c", "cardtable.table.remote")


def emulated(board_name, layout, module="cardtable.sim.pn532_emu", extra=EXTRA):
    """A table on emulated PN532s where they fit beside the package (see test_main_loop.py;
    a file using it goes in tools/mpy/test_mpy.py's EMULATED, which gives the emulators their
    heap), else on fake readers; and the emulator module (None: fake readers). module: the emulator
    (cardtable.sim.busfault for readers that can hold the bus); extra: modules to load
    first, while the heap is emptiest."""
    yield from only_game(layout)
    emu = None
    if EMULATING:
        for name in extra + (module,):  # the emulator first: the biggest module to compile
            if name not in sys.modules:
                __import__(name)
                collect()
                yield
        emu = sys.modules[module]
    t = yield from table(board_name, layout, emu=emu, budget=1)  # a reader per step, as on the board
    tidy(t)  # the garbage of the table's first step (every reader's init) goes before the test's
    collect()
    yield
    return t, emu


def tidy(t):
    """Forget the emulators' own logs: they are no part of the table's heap."""
    for e in t.hal.emus or ():
        e.frames = []
        e.log = bytearray()


def idle(t, steps):
    for _ in range(steps):
        t.run(1)
        tidy(t)
        yield


def until(t, zone, present):
    """Step until the scanner has seen a tag come on (or go off) zone's reader."""
    i = t.board.zone_reader[zone]
    for _ in range(60):
        if t.ctl.scanner.present(i) == present:
            break
        yield from idle(t, 1)
    assert t.ctl.scanner.present(i) == present, zone
    yield from idle(t, 1)


def lay(t, zone, code=None, uid=None):
    """Lay a tag on a zone (code None: a foreign one) until the table has read it."""
    t.hal.place(zone, code, uid)
    yield from until(t, zone, True)
