"""Put the firmware image on a Pico: onto its BOOTSEL drive (RPI-RP2) or with picotool, then
wait for the serial port of the MicroPython it boots."""
from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import subprocess
import time
from pathlib import Path
from typing import Any, Callable, NamedTuple

from cardtable_host.board import boardfind, portlock, uf2
from cardtable_host.errors import CardtableError

REPO = Path(__file__).resolve().parents[3]
BOOTSEL_TIMEOUT = 20.0  # from machine.bootloader() to a mounted drive, or a drive gone after a copy
PORT_TIMEOUT = 30.0  # from the copy to the booted image's serial port


class InstallError(CardtableError):
    """A failure with advice; status is the exit status."""


class Image(NamedTuple):
    path: Path
    version: str
    build: str


@functools.cache
def build_tool() -> Any:
    """tools/firmware/build.py, loaded as a module (once)."""
    path = REPO / "tools" / "firmware" / "build.py"
    spec = importlib.util.spec_from_file_location("cardtable_fw_build", path)
    if spec is None or spec.loader is None or not path.exists():
        raise InstallError("tools/firmware/build.py is missing: flash runs from a checkout of the repository", 2)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def given_image(path: Path) -> Image:
    """The image a user named (--uf2): it must be a cardtable image."""
    if not path.is_file():
        raise InstallError("no file %s" % path, 2)
    try:
        ver = uf2.image_version(path)
    except (uf2.Uf2Error, OSError) as e:
        raise InstallError("%s: %s" % (path, e), 2)
    if ver is None:
        raise InstallError("%s is not a cardtable image (its binary info names no cardtable build); "
                           "for stock MicroPython flash it yourself, then `cardtable flash --mpy`" % path, 2)
    return Image(path, ver[0], ver[1])


def checkout_image(say: Callable[[str], None]) -> Image | None:
    """This checkout's image, built or taken from the cache (`make firmware`); None when it is
    not built and cannot be (no ARM toolchain here)."""
    tool = build_tool()
    if not tool.IMAGE.exists() and tool.missing_tools():
        return None
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            info = tool.build()
    except tool.BuildError as e:
        raise InstallError(str(e), e.status)
    finally:
        for line in out.getvalue().splitlines():
            say("  " + line)
    return Image(tool.IMAGE, str(info["version"]), str(info["build"]))


def drive(named: str | None) -> Path | None:
    """The RPI-RP2 drive: the one named (--drive), else the one mounted now, else None."""
    if named:
        p = Path(named)
        if not uf2.is_bootsel_drive(p):
            raise InstallError("%s is not a Pico's BOOTSEL drive (no %s naming %s)" % (p, uf2.INFO_FILE, uf2.BOARD_ID), 2)
        return p
    found = uf2.find_drives()
    if len(found) > 1:
        raise InstallError("%d Picos are in BOOTSEL mode (%s): plug in one at a time, or name one with --drive"
                           % (len(found), ", ".join(str(p) for p in found)), 2)
    return found[0] if found else None


def load(image: Image, to: Path | None, say: Callable[[str], None]) -> str:
    """Write the image to a Pico in BOOTSEL mode: onto its drive, else with picotool, else onto a
    drive mounted within BOOTSEL_TIMEOUT. Returns how ("drive PATH" or "picotool")."""
    if to is None:
        tool = uf2.picotool_loader()
        if tool is not None:
            say("loading %s with picotool ..." % image.path.name)
            _picotool_load(tool, image.path)
            return "picotool"
        to = _wait_drive()
    say("copying %s (%d KB) to %s ..." % (image.path.name, image.path.stat().st_size // 1024, to))
    try:
        uf2.copy_to_drive(image.path, to)
    except OSError as e:
        raise InstallError("copying the image to %s failed: %s; unplug the Pico, hold BOOTSEL, plug it in "
                           "and run `cardtable flash` again" % (to, e))
    if not uf2.wait_gone(to, BOOTSEL_TIMEOUT):
        raise InstallError("the Pico did not restart after the copy (%s is still there): is %s a whole "
                           "UF2 image? unplug the Pico and try again" % (to, image.path.name))
    return "drive %s" % to


def _wait_drive() -> Path:
    end = time.monotonic() + BOOTSEL_TIMEOUT
    while time.monotonic() < end:
        found = uf2.find_drives()
        if found:
            return found[0]
        time.sleep(0.25)
    raise InstallError("the Pico is in BOOTSEL mode but no RPI-RP2 drive was mounted within %g s and there "
                       "is no picotool: mount the drive (or install picotool) and run `cardtable flash` "
                       "again, or drag the image onto the drive yourself" % BOOTSEL_TIMEOUT)


def _picotool_load(tool: str, path: Path) -> None:
    end = time.monotonic() + BOOTSEL_TIMEOUT
    while True:
        proc = subprocess.run([tool, "load", "-x", str(path)], capture_output=True, text=True)
        if proc.returncode == 0:
            return
        if time.monotonic() > end:  # the device may take a moment to show up in BOOTSEL mode
            raise InstallError("picotool load failed: %s" % (proc.stderr or proc.stdout).strip())
        time.sleep(0.5)


def wait_port(port: str | None, timeout: float = PORT_TIMEOUT) -> tuple[str, portlock.Hold]:
    """The serial port of the freshly booted Pico (--port, or the one Pico), held for flash."""
    end = time.monotonic() + timeout
    why = "no board appeared"
    while time.monotonic() < end:
        try:
            return boardfind.claim("flash", port)
        except CardtableError as e:  # not there yet, or held a moment by the system (ModemManager)
            why = str(e)
        time.sleep(0.25)
    raise InstallError("the image is on the Pico, but its serial port did not come back within %g s (%s); "
                       "run `cardtable flash` again to copy the board files" % (timeout, why))
