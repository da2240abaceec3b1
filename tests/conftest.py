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


# -- the heaviest test files first ---------------------------------------------------------------
# `make test` runs a test file to a worker (xdist --dist loadfile), handing the files out in the
# order collected: a heavy file collected last runs alone at the end while the other worker idles.
# So the files are collected heaviest first, by tests/weights.json (seconds per file, measured by
# `CARDTABLE_TEST_WEIGHTS=write make test-py`; a file it does not name counts as light).
WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights.json")


def _weights():
    import json

    try:
        with open(WEIGHTS) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def pytest_collection_modifyitems(session, config, items):
    w = _weights()
    items.sort(key=lambda item: -w.get(item.nodeid.split("::")[0], 0.0))  # stable: a file's tests keep their order


_took = {}


def pytest_runtest_logreport(report):
    if os.environ.get("CARDTABLE_TEST_WEIGHTS") == "write":
        f = report.nodeid.split("::")[0]
        _took[f] = _took.get(f, 0.0) + report.duration


def pytest_sessionfinish(session, exitstatus):
    if _took and not hasattr(session.config, "workerinput"):  # the controller has every report
        import json

        with open(WEIGHTS, "w") as f:
            json.dump({k: round(v, 1) for k, v in sorted(_took.items(), key=lambda kv: -kv[1])}, f, indent=0)
            f.write("\n")
