"""A simulated table for the device tests (both runtimes): board, hal, controller, and a log of
what the device said. Everything heavy is set up step by step from generators, because the
WebAssembly MicroPython collects garbage only between the steps of a `stepped` test."""
import json
import sys

from support import MICROPYTHON

# link first: its docstring (the protocol) is one 3.7 kB string to lex, best done in an empty heap
MODULES = ("cardtable.link", "cardtable.record", "cardtable.games", "cardtable.table.config",
           "cardtable.journal", "cardtable.table.scanner", "cardtable.table.feedback",
           "cardtable.hal", "cardtable.hw_sim", "cardtable.table.inputs",
           "cardtable.table.commands", "cardtable.table.controller")


def _boards_dir():
    try:
        return __file__.replace("\\", "/").rsplit("/", 1)[0] + "/../../firmware/boards"
    except NameError:
        return "firmware/boards"


BOARDS = _boards_dir()


def collect():
    """Ask for a garbage collection; the WebAssembly port runs it as the next step starts."""
    if MICROPYTHON:
        import gc

        gc.collect()


def collecting(gen):
    """Run a generator, asking for a collection before each of its yields reaches the runner."""
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            return stop.value
        collect()
        yield


def built(gen):
    """Run a step-wise build (such as table()) to its end at once: what it returns."""
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            return stop.value


def loading(extra=()):
    """Import the table's modules one per step (each .py compiles in its own step); the
    extra ones first, while the heap is emptiest (big modules need room to compile)."""
    for name in tuple(extra) + MODULES:
        if name not in sys.modules:
            __import__(name)
            collect()
            yield


_board = [None, None]  # the last board loaded and its name: the Pico loads one per boot


def board(name):
    """A board config, loaded in a step of its own (validation makes a lot of garbage), with
    room for compiling the checker from source: on MicroPython the table's modules and the
    games' rules are unloaded first if they are in (they are imported again after it, as on
    the board; the rules that were in come back before this returns)."""
    if _board[0] == name:
        return _board[1]
    _board[0] = _board[1] = None
    rules = yield from rules_out()
    yield from room_for_board()
    from cardtable.table import config

    b = config.load_board(name, BOARDS)  # (and unloads the checker)
    _board[0], _board[1] = name, b
    collect()
    yield
    for mod in rules:  # back, each in a step of its own (as only_game loads it)
        __import__(mod)
        collect()
        yield
    return b


def rules_out():
    """On MicroPython, unload the games' rules modules (a Pico loads its board before its game,
    in a heap as empty as at boot); the names of those it unloaded, to import again after."""
    if not MICROPYTHON or "cardtable.games" not in sys.modules:
        return ()
    from cardtable import games

    gone = [games.GAMES[g][0] for g in games.GAMES if games.GAMES[g][0] in sys.modules]
    if gone:  # (and what they import: the rules' base, the cards)
        for mod in [m for m in sys.modules if m.startswith(("cardtable.games.", "cardtable.cards"))]:
            unload(mod)
        collect()
        yield
    return gone


def use_board(name, b):
    """Make board(name) give b, a board a test built itself (config.validate)."""
    _board[0], _board[1] = name, b


def room_for_board():
    """On MicroPython, unload the table's modules but the games and the board config, so a
    board loads in a heap as empty as the Pico's at boot (the checker compiles from source)."""
    if MICROPYTHON:
        keep = ("cardtable.games", "cardtable.table.config")
        gone = [m for m in MODULES if m in sys.modules and m not in keep]
        if gone:
            for m in gone:
                unload(m)
            collect()
            yield
    if "cardtable.table.config" not in sys.modules:
        __import__("cardtable.table.config")
        collect()
        yield


def unload(name):
    """Forget a module (and its name in its package) so the collector can free it."""
    if name in sys.modules:
        del sys.modules[name]
        pkg, _, short = name.rpartition(".")
        parent = sys.modules.get(pkg)
        if parent is not None and hasattr(parent, short):
            delattr(parent, short)


def only_game(game):
    """Make game's rules module the only one loaded: on the Pico a table runs one game at a
    time, and a test process that played several would hold them all in the heap. On
    MicroPython a rules module not loaded yet is imported with the table's modules unloaded
    (they are imported again after it, each small): compiling a big one from source needs room."""
    if "cardtable.games" not in sys.modules:
        __import__("cardtable.games")
        collect()
        yield
    from cardtable import games

    keep = games.GAMES[game][0]
    if not MICROPYTHON:
        return
    others = [games.GAMES[g][0] for g in games.GAMES if games.GAMES[g][0] != keep]
    if keep in sys.modules:
        if [m for m in others if m in sys.modules]:
            for name in others:
                unload(name)
            collect()
            yield
        return
    for name in others:
        unload(name)
    for name in MODULES:
        if name != "cardtable.games":
            unload(name)
    unload("main")
    collect()
    yield  # the collector frees them before the next import
    __import__(keep)
    collect()
    yield


def scratch():
    """An empty directory for a test's files: (path, object to keep alive while it is used)."""
    if MICROPYTHON:
        import os

        n = 0
        while True:
            d = "scratch%d" % n  # in the working directory (MEMFS in CI)
            try:
                os.mkdir(d)
                return d, None
            except OSError:
                n += 1
    import tempfile

    keep = tempfile.TemporaryDirectory()
    return keep.name, keep


def table(board_name, layout, storage=None, rules=None, emu=None, budget=None, game=None,
          history=True):
    """A Table, built over a few steps: t = yield from table(...); game defaults to layout.

    history=True asks the controller to keep the game's actions in memory, so tests can look
    at them; the board itself (main.py) keeps them only in its journal."""
    game = game or layout
    yield from only_game(game)  # first: a big rules module needs the most room to compile
    b = yield from board(board_name)
    yield from loading()
    hal = sim_hal(b, storage, emu)  # the readers' setup in a step of its own, then the controller
    collect()
    yield
    t = Table(b, layout, rules=rules, budget=budget, history=history, hal=hal)
    hal = None
    collect()
    yield
    t.run(1)
    return t


def sim_hal(b, storage=None, emu=None):
    """(storage, what keeps it, SimHal) for board b: in a scratch directory if no storage."""
    from cardtable.hal import FileStorage
    from cardtable.hw_sim import SimHal

    keep = None
    if storage is None:
        root, keep = scratch()
        storage = FileStorage(root)
    return storage, keep, SimHal(b, emu=emu, storage=storage)


class Table:
    """A simulated table and its controller; collects what the device says."""

    def __init__(self, b, layout, storage=None, rules=None, emu=None, budget=None, history=True,
                 hal=None):
        from cardtable.table.controller import Controller

        storage, self._keep, self.hal = hal or sim_hal(b, storage, emu)
        self.board = b
        self.ctl = Controller(b, layout, self.hal, rules=rules, history=history,
                              budget=len(b.readers) if budget is None else budget)
        self.said = []  # every message but state and event (those are counted)
        self.events = 0
        self.states = 0
        self.last_state = None

    def run(self, n, ms=10):
        collect()  # (the test runner does not ask for one between steps by itself)
        for _ in range(n):
            self.hal.clock.advance(ms)
            self.ctl.step()
            self.listen()

    def listen(self):
        for line in self.hal.serial.lines():
            if '"type": "state"' in line:
                self.states += 1  # big: kept as text, parsed only when asked for
                self.last_state = line
                continue
            msg = json.loads(line)
            if msg["type"] == "event":
                self.events += 1
            else:
                self.said.append(msg)

    def put(self, zone, code, uid=None):
        """Lay a card on a zone until it is read, then take it away."""
        self.hal.place(zone, code, uid)
        self.run(3)
        self.hal.lift(zone)
        self.run(4)

    def tap(self, seat):
        """A player taps any card on its tap pad."""
        self.put(self.zone("tap", seat), "AS", uid=b"\x04\x70\x61\x70\x00\x00" + bytes((seat,)))

    def press(self, button):
        self.hal.press(button)
        self.run(1)

    def zone(self, role, seat=None):
        return self.ctl.layout.zone(role, seat)

    def button(self, meaning):
        lay = self.ctl.layout
        for name in lay.buttons:
            m = lay.buttons[name]
            if m[1] is None and m[0] == meaning or "%s %s" % m == meaning:
                return name
        return None

    def kinds(self, kind):
        return [m for m in self.said if m["type"] == kind]

    def led(self, zone):
        return self.hal.pixels.shown[self.board.zone_led[zone]]

    def send(self, obj, steps=2):
        """Send a host command; the answers that carry its id."""
        self.hal.serial.feed(json.dumps(obj) + "\n")
        self.run(steps)
        return [m for m in self.said if m.get("id") == obj.get("id")]

    def state(self):
        return json.loads(self.last_state)


def firmware_dir():
    try:
        return __file__.replace("\\", "/").rsplit("/", 1)[0] + "/../../firmware"
    except NameError:
        return "firmware"


def main_module():
    """firmware/main.py, imported as the module `main`."""
    if "main" not in sys.modules:
        sys.path.insert(0, firmware_dir())
        try:
            __import__("main")
        finally:
            sys.path.pop(0)
        yield
    return sys.modules["main"]


def journal_lines(store, number=1):
    """The text lines of a journal file, as `cardtable pull` would fetch them."""
    from cardtable.journal import Journal

    rd = Journal(store).reader(number)
    out = []
    line = rd.next()
    while line is not None:
        out.append(line[0])
        line = rd.next()
    rd.close()
    return out
