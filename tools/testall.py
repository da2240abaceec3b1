"""`make test`: pytest on every core, the MicroPython runner beside it at the lowest CPU priority.

The runner (tools/mpy/test_mpy.py) gets only the CPU that pytest leaves idle (pytest's workers
wait on emulated boards, browsers, brokers and sockets for a good part of the run), then the
whole machine once pytest is done; its report is printed after pytest's. The exit status is
pytest's, else the runner's. Arguments go to pytest.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
PYTEST = ["-m", "pytest", "-n", "auto", "--dist", "loadfile"]
RUNNER = REPO_ROOT / "tools" / "mpy" / "test_mpy.py"


def _lowest_priority() -> None:
    os.nice(19)


def main(argv: list[str]) -> int:
    with tempfile.TemporaryFile("w+", encoding="utf-8") as report:
        runner = subprocess.Popen([sys.executable, str(RUNNER)], cwd=REPO_ROOT, stdout=report,
                                  stderr=subprocess.STDOUT, text=True, preexec_fn=_lowest_priority)
        try:
            rc = subprocess.call([sys.executable, *PYTEST, *argv], cwd=REPO_ROOT)
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
