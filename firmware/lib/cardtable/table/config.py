"""Board configs (firmware/boards/*.json) as the running table sees them: Board and Layout."""
# Loading checks the file with table/configcheck.py, imported for that and unloaded again,
# so the checks and their messages do not stay in the heap while the table runs.
# The types live in table/boardtypes.py: configcheck builds them without importing this module.
import sys

from cardtable.table.boardtypes import Board, ConfigError, Layout, forget, reader_label  # noqa: F401

CHECK = "cardtable.table.configcheck"
BUSCHECK = "cardtable.table.buscheck"
INTMATH = "cardtable.table.intmath"
GEOMCHECK = "cardtable.table.geomcheck"


def unload_check():
    """Forget configcheck, buscheck, geomcheck and intmath (and their names in the package) so
    the collector can free them."""
    for mod in (CHECK, BUSCHECK, INTMATH, GEOMCHECK):
        forget(mod)


def _check(fn, *args):
    # A caller that imported configcheck itself keeps it; otherwise it goes after the call.
    had = CHECK in sys.modules
    from cardtable.table import configcheck

    try:
        return getattr(configcheck, fn)(*args)
    finally:
        if not had:
            unload_check()


def load(path):
    """Load and validate the board file at path; raises ConfigError."""
    return _check("load", path)


def load_board(name, boards_dir="boards"):
    """Load firmware/boards/<name>.json (boards_dir is 'boards' on the device)."""
    return load("%s/%s.json" % (boards_dir, name))


def board_names(boards_dir="boards"):
    """Names of the board files in boards_dir, sorted."""
    import os

    return sorted([n[:-5] for n in os.listdir(boards_dir) if n.endswith(".json")])


def validate(cfg, source="<board>", expect_name=None):
    """Check a board config dict and return a Board; raises ConfigError listing every problem."""
    return _check("validate", cfg, source, expect_name)
