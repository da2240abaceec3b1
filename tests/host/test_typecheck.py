"""The firmware type-checks against the MicroPython rp2 stubs, and the check really checks.

The stubs (micropython-rp2-rpi_pico-stubs, the Pico's MicroPython 1.27 API) are installed into
the git-ignored typings/ on first use; mypy runs with tools/typecheck/mypy.ini from the
repository root, where they replace CPython's typeshed.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "tools" / "typecheck" / "mypy.ini"
TYPINGS = REPO / "typings"
STUBS = "micropython-rp2-rpi_pico-stubs==1.27.0.post1"
MARKER = TYPINGS / "micropython_rp2_rpi_pico_stubs-1.27.0.post1.dist-info"


def stubs() -> Path:
    """typings/ with the pinned stubs, installed if missing."""
    if not MARKER.is_dir():
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
               "--no-user", "--upgrade", "--target", str(TYPINGS), STUBS]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
        if proc.returncode != 0 or not MARKER.is_dir():
            pytest.fail("cannot install the MicroPython stubs (%s) into typings/: %s\n"
                        "install them by hand: %s" % (STUBS, proc.stderr.strip()[-800:], " ".join(cmd)))
    return TYPINGS


def mypy(*files: str, cache: Path | None = None) -> subprocess.CompletedProcess[str]:
    stubs()
    cmd = [sys.executable, "-m", "mypy", "--config-file", str(CONFIG), "--no-error-summary"]
    if cache is not None:
        cmd += ["--cache-dir", str(cache)]
    return subprocess.run(cmd + list(files), capture_output=True, text=True, cwd=REPO)


def test_the_firmware_type_checks_against_the_rp2_stubs():
    proc = mypy()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (TYPINGS / "machine.pyi").is_file() and (TYPINGS / "neopixel.pyi").is_file()


def test_a_wrong_call_is_caught(tmp_path: Path):
    """The canary: wrong calls inside untyped functions, as the firmware's are, must fail."""
    canary = tmp_path / "canary.py"
    canary.write_text(textwrap.dedent("""\
        import machine
        import time

        from cardtable import hal


        def bring_up(board):
            spi = machine.SPI(0)
            spi.write(b"\\x01", 3)
            led = machine.Pinn(25)
            t = time.monotonic()
            return hal.make_readers(board), led, t
        """))
    proc = mypy(str(canary), cache=tmp_path / "cache")
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert 'Too many arguments for "write" of "SPI"' in out  # the rp2 stubs' SPI.write
    assert 'Module has no attribute "Pinn"' in out
    assert 'Module has no attribute "monotonic"' in out  # CPython's time is not the board's
    assert 'Missing positional arguments "buses", "make_pin" in call to "make_readers"' in out
