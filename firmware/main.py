"""Boot entry of the card table: frozen into the cardtable image, or /main.py on a stock MicroPython."""
# In the image `make firmware` builds (firmware/manifest.py), this file and the package are
# frozen: MicroPython runs a frozen main.py at boot ahead of the filesystem's, and ``.frozen``
# comes before /lib on sys.path, so a /main.py or /lib/cardtable left on the flash is ignored.
# The flash keeps only what changes: /boards, /config.json, the journals, /maintenance. On a
# stock MicroPython, `cardtable flash` copies this file as /main.py beside /lib and /boards.
#
# Reads /config.json (``{"board": "pico-i2c-4seat", "layout": "fortyfives"}``; a missing file
# or key takes DEFAULT_BOARD and the board's first layout), builds the rp2 hal and the
# controller - which resumes the newest journaled game exactly where it was - and calls
# step() forever. The watchdog starts only after WDT_AFTER healthy steps, so a hang resets
# the board into its journal instead of losing the game.
#
# - While the loop referees, Ctrl-C (0x03) is data on the link (kbd_intr(-1)): a stray byte in a
#   line cannot stop the table (while the journal is replayed at boot the link is not read,
#   and Ctrl-C interrupts at once). A line of nothing but Ctrl-C (mpremote sends ``\r\x03`` then
#   ``\r\x01`` to connect; at a terminal, Ctrl-C then Enter) stops the loop and leaves the
#   REPL, where Ctrl-C works again (cardtable/link.py, Stop). A started watchdog cannot be
#   stopped, so a timer feeds it while the REPL is in use; a soft reset (Ctrl-D) ends that
#   timer, and the watchdog then resets the board within 8 s.
# - Maintenance mode: if the file /maintenance exists, or the board's first button (by name)
#   is held at power-up, nothing starts and no watchdog runs, so mpremote can copy files at
#   leisure. ``mpremote rm :maintenance`` and a reset bring the table back.
# - An error escaping step() is reported on the link as a fault and the loop goes on; after
#   MAX_ERRORS in a row the board resets, and the journal brings the game back.
# - A table that cannot start prints why (as MicroPython prints an exception) and keeps those
#   words in /boot-error.txt, where `cardtable doctor` reads them at the REPL; the file goes
#   once the table has run WDT_AFTER healthy steps.
#
# Off the board (the WebAssembly port) nothing runs by itself: the host calls step(i), whose
# first calls boot the table on simulated hardware (the virtual board), one import per call.
import sys

DEFAULT_BOARD = "pico-i2c-4seat"
BOARDS = "boards"
CONFIG = "config.json"
MAINTENANCE = "maintenance"
BOOT_ERROR = "boot-error.txt"  # why the table last failed to start, in the board's words
WDT_MS = 8000
WDT_AFTER = 200
MAX_ERRORS = 20


def load_board(cfg, boards_dir=BOARDS, storage=None):
    """The board config cfg names (DEFAULT_BOARD if it names none); storage: where the image
    keeps its check of the board file (table/checkedboard.py)."""
    name = cfg.get("board") or DEFAULT_BOARD
    if storage is not None:
        from cardtable.table import checkedboard

        return checkedboard.load("%s/%s.json" % (boards_dir, name), storage)
    from cardtable.table import config

    return config.load_board(name, boards_dir)


def build(cfg, make_hal, boards_dir=BOARDS, stop=None, board=None):
    """The controller for config cfg; make_hal(board) gives the hal (rp2 or simulated).

    stop(hal, board), if given, is asked before anything starts; True returns None.
    board: the loaded board, if the caller has it already (else load_board(cfg)).
    """
    if board is None:
        board = load_board(cfg, boards_dir)
    layout = cfg.get("layout")
    if layout not in board.layouts:
        layout = sorted(board.layouts)[0]
    hal = make_hal(board)
    if stop is not None and stop(hal, board):
        return None
    from cardtable.table.controller import Controller

    # stepwise: the journal is replayed a few lines per step, so a game of any length resumes
    return Controller(board, layout, hal, config=cfg, config_path=CONFIG, stepwise=True)


def maintenance(storage, hal=None, board=None):
    """True if the maintenance flag file exists or the first button is held."""
    if storage.size(MAINTENANCE) >= 0:
        return True
    if hal is not None and board is not None and board.buttons:
        try:
            return hal.inputs.held(sorted(board.buttons)[0])
        except AttributeError:
            return False
    return False


def kbd_intr(c):
    """MicroPython's keyboard interrupt character (-1: none); nothing off a MicroPython."""
    try:
        import micropython

        micropython.kbd_intr(c)
    except (ImportError, AttributeError):
        pass


def run(ctl, wdt=None, steps=-1):
    """Call ctl.step() forever (or `steps` times), Ctrl-C as data once the game is back;
    KeyboardInterrupt (the link's Stop: a line of nothing but Ctrl-C) ends it, with Ctrl-C an
    interrupt again."""
    try:
        _run(ctl, wdt, steps)
    finally:
        kbd_intr(3)


def _run(ctl, wdt, steps):
    from cardtable import link

    errors = 0
    n = 0
    intr = 0
    while n != steps:
        n += 1
        # While the journal is replayed the link is not read: Ctrl-C interrupts at once, as
        # mpremote expects; once the table referees it is data.
        c = 3 if getattr(ctl, "replaying", False) else -1
        if c != intr:
            kbd_intr(c)
            intr = c
        try:
            ctl.step()
            errors = 0
        except Exception as e:  # noqa: BLE001 - the table must outlive a bug
            errors += 1
            try:
                ctl.link.send(link.fault("error", "%s: %s" % (type(e).__name__, e)))
            except Exception:  # noqa: BLE001
                pass
            if errors >= MAX_ERRORS:
                from cardtable import hw_rp2

                hw_rp2.reset()
        if ctl.steps == WDT_AFTER:
            if wdt is not None:
                wdt.start(WDT_MS)  # late: boot, resume and the first polls are behind us
            try:
                ctl.hal.storage.remove(BOOT_ERROR)  # the table runs: an old failure is over
            except OSError:
                pass


def boot_failed(storage, e):
    """Print why the table cannot start (an exception, or a sentence) and keep it in BOOT_ERROR."""
    if isinstance(e, str):
        text = e + "\n"
    else:
        import io

        buf = io.StringIO()
        if hasattr(sys, "print_exception"):
            sys.print_exception(e, buf)  # as MicroPython shows it: the traceback, then the error
        else:  # CPython: the last line alone
            buf.write("%s: %s\n" % (type(e).__name__, e))
        text = buf.getvalue()
    sys.stdout.write(text)
    try:
        f = storage.open(BOOT_ERROR, "wb")
        try:
            f.write(text.encode())
        finally:
            f.close()
    except OSError:
        pass


# The package's modules in an order that compiles from source in a small heap (link, the
# biggest to lex, first); the simulated boot (cardtable.simboot.Boot) imports them one per step,
# and loads the board config after _BOARD_AFTER: its checker compiles (and goes again) while the
# heap is emptiest.
_MODULES = ("cardtable.link", "cardtable.record", "cardtable.games", "cardtable.table.config",
            "cardtable.hal", "cardtable.table.commands", "cardtable.journal",
            "cardtable.table.scanner", "cardtable.table.feedback", "cardtable.hw_sim",
            "cardtable.table.inputs", "cardtable.table.controller")
_BOARD_AFTER = "cardtable.table.commands"


def booting(storage=None, boards_dir=BOARDS, emu=True):
    """The table on simulated hardware (cardtable.simboot.Boot, the virtual board's staged boot;
    emu: the PN532 emulator module, True for cardtable.sim's where it is present, None for fake
    readers), built over several steps: a generator that returns the controller (a board or a
    config it cannot start raises ValueError). On the WebAssembly port the collector runs only
    between the host's calls, so each import or load is a step of its own."""
    import gc

    from cardtable import simboot  # host only: a board never gets here

    gc.collect()
    yield
    boot = simboot.Boot(sys.modules[__name__], storage, boards_dir, _emulator if emu is True else emu)
    st = boot.step()
    while st == simboot.MORE:
        gc.collect()
        yield
        st = boot.step()
    if st == simboot.STOPPED:
        raise ValueError(boot.note)
    return boot.ctl


def _emulator():
    """The PN532 emulator of the simulated hardware (cardtable.sim), or None where it is absent
    (a board's flash and image leave it out)."""
    try:
        from cardtable.sim import pn532_emu
    except ImportError:
        return None
    return pn532_emu


_table = []  # the controller, once booted
_boot = []  # the booting() generator until then


def step(i):
    """One step of the simulated table, for a host that drives the loop itself: the first
    steps boot it (``node tools/mpy/run.mjs --lib firmware:/ --step step N firmware/main.py``)."""
    if _table:
        _table[0].step()
        return
    if not _boot:
        _boot.append(booting())
    try:
        next(_boot[0])
    except StopIteration as done:
        _table.append(done.value)
        _boot.clear()


def main():
    from cardtable import hw_rp2
    from cardtable.hal import FileStorage
    from cardtable.table.controller import load_config

    storage = FileStorage("")
    cfg = load_config(storage, CONFIG)
    if maintenance(storage):
        print("cardtable: maintenance mode (/%s exists): the table is off" % MAINTENANCE)
        return
    try:
        ctl = build(cfg, lambda board: hw_rp2.Rp2Hal(board, storage),
                    stop=lambda hal, board: maintenance(storage, hal, board),
                    board=load_board(cfg, storage=storage))
    except ValueError as e:  # a board config the firmware cannot run
        boot_failed(storage, "cardtable: cannot start: %s" % e)
        return
    except Exception as e:  # noqa: BLE001 - said, kept, then MicroPython's REPL as ever
        boot_failed(storage, e)
        return
    if ctl is None:
        print("cardtable: maintenance mode (button held at power-up): the table is off")
        return
    try:
        run(ctl, ctl.hal.wdt)
    except KeyboardInterrupt:
        ctl.hal.wdt.keep_fed()
        print("cardtable: stopped by Ctrl-C; the REPL is yours")


if __name__ == "__main__" and sys.platform == "rp2":
    main()
