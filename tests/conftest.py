"""pytest setup: tests import their shared helpers as `support`, as they do on MicroPython.

Each test session (each xdist worker, each concurrent `make test`) gets a runtime folder of its
own, so the board-port lock files of one never refuse another's virtual boards."""
import atexit
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

_RUNTIME = tempfile.mkdtemp(prefix="cardtable-tests-run-")
os.environ["XDG_RUNTIME_DIR"] = _RUNTIME
atexit.register(shutil.rmtree, _RUNTIME, True)
