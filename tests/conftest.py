"""pytest setup: tests import their shared helpers as `support`, as they do on MicroPython.

Each test session (each xdist worker, each concurrent `make test`) gets a runtime folder of its
own, so the board-port lock files of one never refuse another's virtual boards.

At the end every skipped test is listed with its reason. A skip that leaves out a whole
capability (the rp2 board, the pages in a browser, the broker, the firmware image, Node) fails
the run unless CARDTABLE_ALLOW_SKIP names that capability (comma-separated); the summary says
which were allowed."""
from __future__ import annotations

import atexit
import os
import re
import shutil
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

_RUNTIME = tempfile.mkdtemp(prefix="cardtable-tests-run-")
os.environ["XDG_RUNTIME_DIR"] = _RUNTIME
atexit.register(shutil.rmtree, _RUNTIME, True)

ALLOW_ENV = "CARDTABLE_ALLOW_SKIP"
# A skip reason naming one of these leaves out a whole capability.
CAPABILITIES = (
    ("rp2", re.compile(r"rp2 board|rp2040js", re.I)),
    ("browser", re.compile(r"chromium|selenium", re.I)),
    ("broker", re.compile(r"mosquitto", re.I)),
    ("image", re.compile(r"make firmware|firmware image|cardtable-pico\.uf2|picotool|MicroPython sources", re.I)),
    ("node", re.compile(r"\bnode\b|wasm package|npm ci", re.I)),
)

README_SKIP = "README line not run:"
_skips: list[tuple[str, str]] = []


def capability(reason: str) -> str | None:
    """The capability a skip reason leaves out, or None for an ordinary skip (a README line that
    needs a board says so in the README: tests/host/test_readme.py)."""
    if reason.startswith(README_SKIP):
        return None
    for name, pattern in CAPABILITIES:
        if pattern.search(reason):
            return name
    return None


def allowed() -> set[str]:
    """The capabilities CARDTABLE_ALLOW_SKIP lets be skipped."""
    return {w.strip() for w in os.environ.get(ALLOW_ENV, "").split(",") if w.strip()}


def pytest_collectreport(report: pytest.CollectReport) -> None:
    _note(report)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _note(report)


_config: list[pytest.Config] = []


def pytest_configure(config: pytest.Config) -> None:
    _config[:] = [config]
    if hasattr(config, "workerinput"):
        config.workeroutput["cardtable_skips"] = _skips  # type: ignore[attr-defined]


def _distributed() -> bool:
    """True in an xdist controller: its workers send their skips when they end (xdist passes on
    only one of several module skips with the same reason)."""
    return bool(_config) and _config[0].pluginmanager.has_plugin("dsession")


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # type: ignore[no-untyped-def]
    _skips.extend(tuple(s) for s in getattr(node, "workeroutput", {}).get("cardtable_skips", ()))


def _note(report: pytest.TestReport | pytest.CollectReport) -> None:
    """Keep a skip's test id and reason."""
    if report.skipped and not hasattr(report, "wasxfail") and not _distributed():
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        _skips.append((report.nodeid, reason.removeprefix("Skipped: ")))


def _blocked() -> list[tuple[str, str, str]]:
    ok = allowed()
    out = []
    for nodeid, reason in sorted(set(_skips)):
        cap = capability(reason)
        if cap is not None and cap not in ok:
            out.append((nodeid, reason, cap))
    return out


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if hasattr(session.config, "workerinput"):
        return  # an xdist worker: the controller judges
    if _blocked() and exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:  # type: ignore[no-untyped-def]
    tr = terminalreporter
    log = os.environ.get(CPU_LOG_ENV)
    if log and os.path.exists(log) and not hasattr(config, "workerinput"):
        tr.section("CPU per test file (%s)" % CPU_LOG_ENV)
        for line in cpu_log_lines(log):
            tr.write_line(line)
    if not _skips:
        return
    ok = allowed()
    tr.section("skipped tests (%d)" % len(set(_skips)))
    for nodeid, reason in sorted(set(_skips)):
        cap = capability(reason)
        tag = "" if cap is None else ("  [%s: allowed by %s]" % (cap, ALLOW_ENV) if cap in ok
                                      else "  [%s: NOT ALLOWED]" % cap)
        tr.write_line("%s: %s%s" % (nodeid, reason, tag))
    blocked = _blocked()
    if blocked:
        caps = sorted({c for _, _, c in blocked})
        tr.write_line("FAILED: a whole capability was skipped (%s): install what it needs "
                      "(python3 tools/system_packages.py) or allow it with %s=%s"
                      % (", ".join(caps), ALLOW_ENV, ",".join(caps)), red=True, bold=True)
    allowed_caps = sorted({c for _, r in _skips if (c := capability(r)) is not None and c in ok})
    if allowed_caps:
        tr.write_line("capabilities skipped as %s allows: %s" % (ALLOW_ENV, ", ".join(allowed_caps)))


# -- the longest files first ----------------------------------------------------------------------
# `make test` hands pytest-xdist's workers a file at a time in collection order
# (tools/testall.py: --dist loadfile --no-loadscope-reorder; xdist's own reorder puts the files
# with the most tests first, which are the cheap parametrized ones, and left the whole-game rp2
# runs to start near the end, alone on one core). These files go first, the longest first (wall
# and CPU seconds measured with CARDTABLE_CPU_LOG below: `make test` on the 2-core machine,
# 2026-11-29, a clean clone's `.ci/run`, three workers); the rest keep their order.
HEAVY_FIRST: tuple[str, ...] = (
    "tests/host/test_serve_load.py",  # 122 s wall, 52 s CPU
    "tests/host/test_rp2_games.py",  # 108 s wall, 91 s CPU
    "tests/host/test_seat_browser.py",  # 100 s wall, 26 s CPU
    "tests/host/test_rp2_powercut.py",  # 88 s wall, 34 s CPU
    "tests/host/test_rp2_powercut_replay_1.py",  # 70 s wall, 36 s CPU
    "tests/host/test_rp2_board.py",  # 52 s wall, 30 s CPU
    "tests/host/test_rp2_powercut_replay_3.py",  # 51 s wall, 29 s CPU
    "tests/host/test_rp2_powercut_replay_2.py",  # 50 s wall, 28 s CPU
    "tests/host/test_rp2_powercut_replay_4.py",  # 46 s wall, 28 s CPU
    "tests/host/test_seat_undo.py",  # 42 s wall, 11 s CPU
    "tests/host/test_serve_hidden.py",  # 42 s wall, 33 s CPU
    "tests/host/test_seat_pages.py",  # 42 s wall, 23 s CPU
    "tests/host/test_seat_consent.py",  # 40 s wall, 8 s CPU
    "tests/host/test_types.py",  # 40 s wall, 30 s CPU
    "tests/host/test_boot_resume.py",  # 38 s wall, 28 s CPU
    "tests/host/test_pages_browser.py",  # 34 s wall, 10 s CPU
    "tests/host/test_serve.py",  # 33 s wall, 9 s CPU
    "tests/host/test_rp2_lockstep.py",  # 28 s wall, 24 s CPU
    "tests/host/test_words_every_game.py",  # 27 s wall, 16 s CPU
    "tests/host/test_install.py",  # 25 s wall, 18 s CPU
    "tests/host/test_drawings.py",  # 25 s wall, 17 s CPU
    "tests/host/test_rp2_pins.py",  # 24 s wall, 15 s CPU
    "tests/host/test_sim_dealpad.py",  # 23 s wall, 24 s CPU
    "tests/host/test_flash.py",  # 21 s wall, 9 s CPU
    "tests/device/test_board_config.py",  # 21 s wall, 14 s CPU
)


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {path: i for i, path in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))  # (stable: the rest keep their order)


# -- CPU per test file ----------------------------------------------------------------------------
# CARDTABLE_CPU_LOG=FILE: each test file's CPU seconds (user+sys of the pytest process and of the
# child processes it reaped: boards, chips, browsers, cardtable commands) and wall seconds, one
# JSON line per file appended to FILE (every xdist worker appends its own); the slowest files
# are listed at the end. Module fixtures end inside the file's last test, so their teardown
# counts there; session fixtures count in the last file of their worker.
CPU_LOG_ENV = "CARDTABLE_CPU_LOG"
_cpu_start: dict[str, tuple[float, float]] = {}


def _cpu_now() -> float:
    import resource

    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # type: ignore[no-untyped-def]
    log = os.environ.get(CPU_LOG_ENV)
    path = item.nodeid.split("::")[0]
    if log and path not in _cpu_start:
        import time

        _cpu_start[path] = (_cpu_now(), time.monotonic())
    yield
    if log and (nextitem is None or nextitem.nodeid.split("::")[0] != path):
        import json
        import time

        cpu0, wall0 = _cpu_start[path]
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps({"file": path, "cpu_s": round(_cpu_now() - cpu0, 1),
                                "wall_s": round(time.monotonic() - wall0, 1)}) + "\n")


def cpu_log_lines(log: str, top: int = 25) -> list[str]:
    """The slowest files of a CPU log by CPU seconds, and the total."""
    import json

    rows: dict[str, dict[str, float]] = {}
    with open(log, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            rows[r["file"]] = r
    ranked = sorted(rows.values(), key=lambda r: -r["cpu_s"])
    out = ["%7.1f s CPU %7.1f s wall  %s" % (r["cpu_s"], r["wall_s"], r["file"]) for r in ranked[:top]]
    out.append("%7.1f s CPU in %d files (%s)" % (sum(r["cpu_s"] for r in ranked), len(ranked), log))
    return out
