"""`make test`: pytest on every core and one more, the MicroPython runner beside it at the lowest CPU priority.

The runner (tools/mpy/test_mpy.py) gets only the CPU that pytest leaves idle (pytest's workers
wait on emulated boards, browsers, brokers and sockets for a good part of the run), then the
whole machine once pytest is done; its report is printed after pytest's. The exit status is
pytest's, else the runner's. Arguments go to pytest; naming tests (tests/...) runs those alone,
without the runner.

First the set-up a fresh machine needs (`--setup-only` stops after it): the Debian packages of
tools/system-packages.txt (installed when this user is root or has sudo without a password; else
it stops before any test with the one command to run) and the firmware image (`make firmware`,
cached by its inputs' hash). At the end pytest lists every skipped test with its reason
(tests/conftest.py); a skipped capability (rp2, browser, broker, image, ...) fails the run unless
CARDTABLE_ALLOW_SKIP names it.

pytest-xdist hands its workers a test file at a time (`--dist loadfile`: a file's module
fixtures, such as one rp2 board serving several tests, are built once) in collection order
(`--no-loadscope-reorder`): tests/conftest.py puts the longest files first, so that no
whole-game rp2 run starts last and leaves the other core idle (xdist's own order, the files
with the most tests first, did that). Set CARDTABLE_CPU_LOG=FILE to have each file's CPU
seconds written there and the heaviest listed at the end.

Both, and every `cardtable` the tests start, keep their Python bytecode in build/pycache
(PYTHONPYCACHEPREFIX), also where PYTHONDONTWRITEBYTECODE is set: without it each pytest worker
rewrote every test module's asserts again (~5 s of CPU each) and each `cardtable` compiled its
modules again (about half of its start).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
# One worker more than there are cores: a good part of the suite waits on browsers, brokers,
# sockets and two-minute soaks (on the 2-core machine, the files' wall seconds added up were
# 2,461 against 1,467 of CPU), and the extra worker runs a file meanwhile.
WORKERS = str((os.cpu_count() or 1) + 1)
PYTEST = ["-m", "pytest", "-n", WORKERS, "--dist", "loadfile", "--no-loadscope-reorder"]
RUNNER = REPO_ROOT / "tools" / "mpy" / "test_mpy.py"
FIRMWARE = REPO_ROOT / "tools" / "firmware" / "build.py"
sys.path.insert(0, str(REPO_ROOT / "tools"))
import system_packages  # noqa: E402  (tools/ is no package)


def _lowest_priority() -> None:
    os.nice(19)


def _environment() -> dict[str, str]:
    """This environment with bytecode cached under build/ (unless a cache prefix is set)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("PYTHONPYCACHEPREFIX", str(REPO_ROOT / "build" / "pycache"))
    return env


def setup(say=print) -> int:
    """The system packages and the firmware image; 0 when the tests can start, else 2 (said why)."""
    rc = system_packages.ensure(say=say)
    if rc:
        say("make test: stopped before the tests: the set-up above is missing")
        return rc
    if "image" in system_packages.allowed_skips():
        return 0
    build = subprocess.run([sys.executable, str(FIRMWARE)], cwd=REPO_ROOT)
    if build.returncode:
        say("make test: stopped before the tests: the firmware image did not build (above); "
            "%s=image runs the tests without it" % system_packages.ALLOW_ENV)
        return 2
    return 0


def main(argv: list[str]) -> int:
    setup_only = "--setup-only" in argv
    argv = [a for a in argv if a != "--setup-only"]
    rc = setup()
    if rc or setup_only:
        return rc
    env = _environment()
    if any(a.startswith("tests") for a in argv):  # `make test ARGS=tests/host/x.py`: those alone
        print("make test: only the tests named (%s); the MicroPython runner is not started"
              % " ".join(a for a in argv if a.startswith("tests")), flush=True)
        return subprocess.call([sys.executable, *PYTEST, *argv], cwd=REPO_ROOT, env=env)
    with tempfile.TemporaryFile("w+", encoding="utf-8") as report:
        runner = subprocess.Popen([sys.executable, str(RUNNER)], cwd=REPO_ROOT, stdout=report, env=env,
                                  stderr=subprocess.STDOUT, text=True, preexec_fn=_lowest_priority)
        try:
            rc = subprocess.call([sys.executable, *PYTEST, *argv], cwd=REPO_ROOT, env=env)
            if runner.poll() is None:
                print("\nthe MicroPython runner (tools/mpy/test_mpy.py) is finishing ...", flush=True)
            t0 = time.monotonic()
            mrc = runner.wait()
        finally:
            if runner.poll() is None:
                runner.kill()
                runner.wait()
        report.seek(0)
        print("\n" + report.read().rstrip())
        print("(the MicroPython runner ended %.0f s after pytest)" % (time.monotonic() - t0))
    return rc or mrc


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
