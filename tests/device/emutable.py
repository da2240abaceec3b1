"""Tables on emulated PN532 readers for the device tests (test_tag, test_bus_fault): a module of
its own, so a test file that uses them does not keep another test file's code in the heap."""
import json
import sys

from support import MICROPYTHON

from simtable import BOARDS, collect, only_game, room_for_board, table, use_board

EMULATING = not MICROPYTHON or __import__("cardtable").__file__.endswith(".mpy")
EXTRA = ("cardtable.sim.pn532_emu", "cardtable.drivers.ndef", "cardtable.drivers.pn532",
         "cardtable.drivers.mux", "cardtable.drivers.pn532_i2c", "cardtable.table.remote")
WAIT = ("cardtable.drivers.pn532_wait", "cardtable.table.irqwait")  # readers that wait on IRQ ("scan": "irq")
IRQ_TABLE = tuple([m for m in EXTRA if m != "cardtable.table.remote"]) + WAIT  # ... and no tag command


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


def nerts_three_seats():
    """pico-nerts-6 cut down to three players (three foundations, their IRQ lines, three "left"
    pads): six emulated PN532s fit the WebAssembly heap beside the Nerts rules, twelve do not."""
    yield from room_for_board()
    from cardtable.table import config

    with open(BOARDS + "/pico-nerts-6.json") as f:
        cfg = json.load(f)
    zones = ("f0", "f2", "f4", "l0", "l1", "l2")
    cfg["readers"] = [cfg["readers"][cfg["zones"][z]["reader"]] for z in zones]
    cfg["zones"] = {z: dict(cfg["zones"][z], reader=i) for i, z in enumerate(zones)}
    cfg["buttons"] = {n: cfg["buttons"][n] for n in ("n0", "n1", "n2")}
    lay = cfg["layouts"]["nerts"]
    lay["seats"] = [0, 1, 2]
    lay["zones"] = {z: lay["zones"][z] for z in zones}
    lay["buttons"] = {n: lay["buttons"][n] for n in cfg["buttons"]}
    cfg["board"] = "nerts-3"
    b = config.validate(cfg)
    cfg = lay = None
    collect()
    yield
    use_board("nerts-3", b)
