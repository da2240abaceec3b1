"""main.py end to end: the controller built as main.py builds it, on the real PN532 drivers over
simulated buses with an emulated PN532 per zone, stepped a few hundred times by main.run()."""
import sys

from support import MICROPYTHON, stepped

from simtable import BOARDS, board, collect, loading, main_module, only_game, scratch


def _emulating():
    """True where the PN532 emulator fits beside the package: everywhere but MicroPython running
    the package from .py sources, which takes ~25 KB more heap than the .mpy build a board gets;
    the emulator (always .py) then does not fit in 192 KB too, and fake readers stand in. (In
    .mpy mode tools/mpy/test_mpy.py gives the emulators their own share on top of the 192 KB:
    a real board's readers are not in its heap.)"""
    if not MICROPYTHON:
        return True
    import cardtable

    return cardtable.__file__.endswith(".mpy")


EMULATING = _emulating()
EXTRA = (("cardtable.sim.pn532_emu",) if EMULATING else ()) + (
    "cardtable.drivers.ndef", "cardtable.drivers.pn532", "cardtable.drivers.mux",
    "cardtable.drivers.pn532_i2c")


def emulator():
    if not EMULATING:
        return None
    from cardtable.sim import pn532_emu

    return pn532_emu


def heap_in_use():
    """Bytes of heap the live objects take (MicroPython; after the last step's collection)."""
    if not MICROPYTHON:
        return 0
    import gc

    return gc.mem_alloc()


def steps(ctl, n, said=None, ms=5):
    """n steps through main.run, the clock moving ms per step; yields so the GC can run.

    said (a dict) counts the device's messages by type; hello lines are kept whole.
    """
    main = sys.modules["main"]
    done = 0
    while done < n:
        k = min(4, n - done)  # a few steps per top-level call: the emulators make garbage
        main.run(ctl, ctl.hal.wdt, k)
        for e in ctl.hal.emus or ():
            e.frames = []  # the emulators' own logs are no part of the table's heap
            e.log = bytearray()
        ctl.hal.clock.advance(ms * k)
        assert ctl.hal.fields_on() == 0  # each reader's field is off again after its poll
        for line in ctl.hal.serial.lines():
            if said is not None:
                kind = line.split('"type": "', 1)[1].split('"', 1)[0]
                said[kind] = said.get(kind, 0) + 1
                if kind == "hello":
                    said["hello_line"] = line
        done += k
        collect()
        yield


def booted(storage, cfg):
    """A controller on emulated readers, as main.py builds it on the board: the board config
    first (its checker compiles and goes again while the heap is emptiest), then the rest."""
    emu = emulator()
    yield from only_game(cfg["layout"])
    for name in EXTRA:  # the emulator first: the biggest module to compile
        if name not in sys.modules:
            __import__(name)
            collect()
            yield
    main = yield from main_module()
    b = yield from board(cfg["board"])  # on the board this is part of build(); here a step
    yield from loading(EXTRA)
    from cardtable.hw_sim import SimHal
    from cardtable.table.controller import load_config, save_config

    save_config(storage, cfg, main.CONFIG)
    cfg = load_config(storage, main.CONFIG)
    ctl = main.build(cfg, lambda b: SimHal(b, emu=emu, storage=storage), BOARDS, board=b)
    collect()
    yield
    while ctl._replay is not None:  # the journal comes back a few lines per step, as on the board
        ctl.step()
        collect()
        yield
    return ctl


@stepped
def test_main_builds_the_table_and_its_loop_plays_a_game():
    yield from only_game("california-jacks")  # first, in an empty heap
    from cardtable.hal import FileStorage

    root, keep = scratch()
    store = FileStorage(root)
    ctl = yield from booted(store, {"board": "pico-i2c-2seat", "layout": "california-jacks"})
    hal = ctl.hal
    assert ctl.layout.name == "california-jacks" and ctl.scanner.n == 7
    if EMULATING:
        assert [e.max_retries for e in hal.emus] == [1] * 7  # polls are bounded on every reader
        assert type(hal.readers[0]).__name__ == "PN532I2C"
    said = {}
    yield from steps(ctl, 20, said)
    base = heap_in_use()
    hal.place("c", "9S")  # the cut card deals the hand
    yield from steps(ctl, 40, said)
    hal.lift("c")
    g = ctl.game
    assert g.phase == "play" and g.turn == (1,)
    plays = (("s1", "KH"), ("s0", "QH"), ("s1", "2C"), ("s0", "3C"), ("s0", "4S"), ("s1", "5S"))
    for zone, code in plays:
        hal.place(zone, code)
        yield from steps(ctl, 40, said)
        hal.lift(zone)
        yield from steps(ctl, 40, said)
    assert ctl.journal.seq == 7 and g.history == []  # journaled on flash, not kept in memory
    assert g.trick_winners == [1, 0, 1] and g.turn == (1,)
    assert ctl.steps > 500 and hal.wdt.started == 8000 and hal.wdt.feeds == ctl.steps
    assert said.get("event") == 7 and said.get("state") == 8, said  # 8: one at boot
    assert "fault" not in said and "verdict" not in said, said
    assert store.size("games/0001.jsonl") == ctl.journal.size and ctl.journal.seq == 7
    used = heap_in_use()
    if MICROPYTHON:
        print("heap in use: %d bytes with the game under way, %d before it (%s; test harness%s"
              " included)" % (used, base, "emulated PN532s" if EMULATING else "fake readers",
                              " and emulator" if EMULATING else ""))
        # a step's garbage needs room too: 16 KB free of the run's heap, the Pico's 192 KB plus
        # what tools/mpy/test_mpy.py adds to it: in the .mpy run the share of the emulated PN532s
        # (EMULATED: 20 KB for the emulator and 1 KB a reader; a real board's readers are not in
        # its heap), in the .py run the source compiler's room (SOURCE_ALLOWANCE, 40 KB: the
        # modules compiled from source sit in this heap, frozen in flash on the board)
        heap = 192 * 1024 + ((20 + ctl.scanner.n) * 1024 if EMULATING else 40 * 1024)
        assert used < heap - 16 * 1024, (used, heap)
    assert keep is keep


@stepped
def test_a_reboot_resumes_the_game_from_the_journal():
    yield from only_game("california-jacks")
    from cardtable.hal import FileStorage

    root, keep = scratch()
    store = FileStorage(root)
    cfg = {"board": "pico-i2c-2seat", "layout": "california-jacks"}
    ctl = yield from booted(store, cfg)
    ctl.hal.place("c", "9S")
    yield from steps(ctl, 40)
    ctl.hal.lift("c")
    ctl.hal.place("s1", "KH")
    yield from steps(ctl, 40)
    view = ctl.game.view(None)
    ctl = None
    yield
    ctl2 = yield from booted(store, cfg)  # power back: a new controller on the same flash
    assert ctl2.game.view(None) == view and ctl2.journal.seq == 2
    said = {}
    yield from steps(ctl2, 1, said)
    assert said["hello"] == 1 and '"seq": 2' in said["hello_line"]
    assert keep is keep


@stepped
def test_maintenance_mode_starts_nothing():
    yield from only_game("california-jacks")
    from cardtable.hal import FileStorage

    emu = emulator()
    main = yield from main_module()
    root, keep = scratch()
    store = FileStorage(root)
    f = store.open(main.MAINTENANCE, "wb")
    f.close()
    made = []

    def make_hal(board):
        from cardtable.hw_sim import SimHal  # as on the board: after the board is loaded

        made.append(SimHal(board, emu=emu, storage=store))
        return made[0]

    b = yield from board("pico-i2c-2seat")  # on the board this is part of build(); here a step

    ctl = main.build({"board": "pico-i2c-2seat"}, make_hal, BOARDS, board=b,
                     stop=lambda hal, board: main.maintenance(store, hal, board))
    assert ctl is None
    if EMULATING:
        assert [len(e.log) for e in made[0].emus] == [0] * 7  # no reader was even woken
    else:
        assert [r.inits for r in made[0].readers] == [0] * 7
    assert store.size("games") < 0 and made[0].serial.take() == b""
    assert keep is keep


def test_an_error_in_a_step_is_reported_and_the_loop_goes_on():
    main = None
    for _ in main_module():
        pass
    main = sys.modules["main"]

    class Link:
        def __init__(self):
            self.sent = []

        def send(self, msg):
            self.sent.append(msg)

    class Flaky:
        """A table whose every third step hits a bug."""

        def __init__(self):
            self.steps = 0
            self.link = Link()

        def step(self):
            self.steps += 1
            if self.steps % 3 == 0:
                raise KeyError("no such zone")

    ctl = Flaky()
    main.run(ctl, None, 9)
    assert ctl.steps == 9
    faults = ctl.link.sent
    assert len(faults) == 3 and faults[0]["type"] == "fault" and faults[0]["kind"] == "error"
    assert "KeyError" in faults[0]["msg"] and "no such zone" in faults[0]["msg"]
