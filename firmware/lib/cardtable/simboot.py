# host only: never imported on the board (simulated hardware: tools/firmware/boardfiles.py)
"""The table on simulated hardware (cardtable.hw_sim) booted one stage per call, as main.py boots it."""
# Shared by main.py's step mode (booting), the virtual board
# (host/cardtable_host/sim/vboard/boardglue.py) and the bench's boot heap (bench/probe.py). Its
# own module: the device tests that build a table on hw_sim without it keep its code out of
# their heap. It imports nothing itself: the stages do, so the bench counts each module where
# the boot loads it (and importing this one loads no real module ahead of its stage).

# The table on simulated hardware, booted one stage per call: main.py's step mode (booting),
# the virtual board (host/cardtable_host/sim/vboard/boardglue.py) and the bench share it. The WebAssembly port
# collects garbage only between the host's calls, so each import or load is a stage of its own.
# The stages import main.py's _MODULES in its order, the config and the board loaded after its
# _BOARD_AFTER (see there), then the drivers behind emulated readers, the game, the table.
MORE = 0  # Boot.step(): another stage follows
DONE = 1  # the table runs (Boot.ctl)
STOPPED = 2  # main.py would not start the table (Boot.note says why: maintenance, a bad board)


class Boot:
    """Boot main.py's table on simulated hardware, one stage per step(): main is firmware/main.py
    (its build, load_board, maintenance), emu the PN532 emulator module (or a function giving it;
    None: fake readers), out the serial's stream (None: kept for lines()), dead the readers whose
    cable is cut. table False: only the stages a Pico's boot shares (no simulated hardware, no
    game, no table: the bench's boot heap); the last of them returns DONE, with ctl None."""

    def __init__(self, main, storage=None, boards_dir="boards", emu=None, out=None, dead=(), table=True):
        self.main = main
        self.storage = storage
        self.boards_dir = boards_dir
        self.emu = emu
        self.out = out
        self.dead = dead
        self.ctl = None
        self.note = ""
        self.last = ""  # the stage run last, e.g. "import cardtable.journal"
        self.plan = [("emu",)] if callable(emu) else []  # type: list[tuple]
        for name in main._MODULES:
            if table or name != "cardtable.hw_sim":
                self.plan.append(("import", name))
            if name == main._BOARD_AFTER:
                self.plan.append(("config",))
                self.plan.append(("board",))
        if table:
            self.plan.append(("game",))
            self.plan.append(("build",))
        self.i = 0

    def step(self):
        """Run the next stage: MORE, DONE or STOPPED (an error raises)."""
        st = self.plan[self.i]
        self.i += 1
        self.last = " ".join(st)
        kind = st[0]
        main = self.main
        if kind == "emu":
            self.emu = self.emu()
        elif kind == "import":
            __import__(st[1])
        elif kind == "config":
            from cardtable import hal
            from cardtable.table.commands import load_config

            if self.storage is None:
                self.storage = hal.FileStorage("")
            self.cfg = load_config(self.storage, main.CONFIG)
            if main.maintenance(self.storage):
                self.note = "cardtable: maintenance mode (/%s exists): the table is off" % main.MAINTENANCE
                return STOPPED
        elif kind == "board":
            try:
                self.board = main.load_board(self.cfg, self.boards_dir)
            except ValueError as e:
                self.note = "cardtable: cannot start: %s" % e
                return STOPPED
            if self.emu is not None:  # the drivers behind the emulated readers, one a stage
                kinds = [b["kind"] for b in self.board.buses.values()]
                self.then(["cardtable.drivers." + name
                           for name in ("ndef", "pn532", "mux", "pn532_i2c", "pn532_spi", "pn532_uart")
                           if name[:6] != "pn532_" or name[6:] in kinds])
        elif kind == "game":
            from cardtable import games

            b = self.board
            lay = b.layouts.get(self.cfg.get("layout")) or b.layouts[sorted(b.layouts)[0]]
            __import__(games.GAMES[lay.game][0])
        else:
            self.ctl = main.build(self.cfg, self._hal, stop=self._stop, board=self.board)
            if self.ctl is None:
                self.note = "cardtable: maintenance mode (button held at power-up): the table is off"
                return STOPPED
            return DONE
        return MORE if self.i < len(self.plan) else DONE

    def then(self, names):
        """Import these modules next, one a stage (the readers' drivers after the board)."""
        at = self.i
        for name in names:
            self.plan.insert(at, ("import", name))
            at += 1

    def _hal(self, board):
        from cardtable import hal
        from cardtable.hw_sim import SimHal, SimSerial

        h = SimHal(board, emu=self.emu, storage=self.storage, clock=hal.Clock())
        h.serial = SimSerial(self.out)
        for i in self.dead:
            if h.emus and i < len(h.emus):
                h.emus[i].mute = -1
        return h

    def _stop(self, h, board):
        return self.main.maintenance(self.storage, h, board)
