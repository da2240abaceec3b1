"""UF2 images and the RP2040's BOOTSEL drive: what an image is, where RPI-RP2 is mounted, copying."""
from __future__ import annotations

import os
import re
import sys
import shutil
import struct
import subprocess
import time
from pathlib import Path

# UF2 (github.com/microsoft/uf2): 512-byte blocks, a 32-byte header, two start magics, one end.
MAGIC0 = 0x0A324655
MAGIC1 = 0x9E5D5157
MAGIC_END = 0x0AB16F30
FLAG_NOT_MAIN_FLASH = 0x1
FLASH_BASE = 0x10000000
INFO_FILE = "INFO_UF2.TXT"
BOARD_ID = "RPI-RP2"  # INFO_UF2.TXT's "Board-ID: RPI-RP2-..." on an RP2040 in BOOTSEL mode
# The binary info string tools/firmware/usermod writes: "<version> build <12 hex>".
_VERSION_RE = re.compile(rb"(\d+\.\d+\.\d+[0-9A-Za-z.+-]*) build ([0-9a-f]{12})\0")


class Uf2Error(ValueError):
    """A file that is not a UF2 image for the RP2040's flash."""


def flash_bytes(data: bytes) -> bytes:
    """The flash contents a UF2 image writes, from its first block's address (gaps as 0xFF)."""
    if not data or len(data) % 512:
        raise Uf2Error("not a UF2 image: %d bytes is not a whole number of 512-byte blocks" % len(data))
    blocks: list[tuple[int, bytes]] = []
    for off in range(0, len(data), 512):
        m0, m1, flags, addr, size = struct.unpack_from("<5I", data, off)
        (end,) = struct.unpack_from("<I", data, off + 508)
        if m0 != MAGIC0 or m1 != MAGIC1 or end != MAGIC_END or size > 476:
            raise Uf2Error("not a UF2 image: bad block at byte %d" % off)
        if not flags & FLAG_NOT_MAIN_FLASH:
            blocks.append((addr, data[off + 32:off + 32 + size]))
    if not blocks:
        raise Uf2Error("the UF2 image writes nothing to flash")
    start = min(a for a, _ in blocks)
    if start < FLASH_BASE:
        raise Uf2Error("the UF2 image writes below the flash (0x%08x)" % start)
    out = bytearray(b"\xff" * (max(a + len(b) for a, b in blocks) - start))
    for a, b in blocks:
        out[a - start:a - start + len(b)] = b
    return bytes(out)


def image_version(path: Path) -> tuple[str, str] | None:
    """(version, build hash) a cardtable image carries in its binary info; None for other images."""
    m = _VERSION_RE.search(flash_bytes(path.read_bytes()))
    return (m.group(1).decode(), m.group(2).decode()) if m else None


def is_bootsel_drive(path: Path) -> bool:
    """True if path is the RP2040 bootrom's mass-storage drive (its INFO_UF2.TXT says RPI-RP2)."""
    try:
        info = (path / INFO_FILE).read_text(errors="replace")
    except OSError:
        return False
    return bool(re.search(r"^Board-ID:\s*" + BOARD_ID, info, re.M))


def _windows_volumes() -> list[tuple[Path, str]]:
    """Each drive letter's root and volume label (Windows; empty elsewhere)."""
    if sys.platform != "win32":
        return []
    import ctypes

    k32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
    mask = k32.GetLogicalDrives()
    out = []
    for i in range(26):
        if mask & (1 << i):
            root = "%s:\\" % chr(ord("A") + i)
            label = ctypes.create_unicode_buffer(261)
            if k32.GetVolumeInformationW(ctypes.c_wchar_p(root), label, 261, None, None, None, None, 0):
                out.append((Path(root), label.value))
    return out


def _volumes_dir() -> Path:
    return Path("/Volumes")


def _mount_points() -> list[Path]:
    """Where an RPI-RP2 drive may be: every mount point, the desktops' media folders, macOS's
    /Volumes/RPI-RP2* (a second one is "RPI-RP2 1"), and Windows's drives labelled RPI-RP2."""
    points = [root for root, label in _windows_volumes() if label.upper() == BOARD_ID]
    try:
        points += sorted(p for p in _volumes_dir().iterdir() if p.name.startswith(BOARD_ID))
    except OSError:
        pass
    try:
        lines = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        lines = []
    # /proc/mounts escapes spaces in paths as \040
    points += [Path(ln.split()[1].replace("\\040", " ")) for ln in lines if len(ln.split()) > 1]
    user = os.environ.get("USER") or os.environ.get("LOGNAME") or ""
    for base in ("/media/" + user, "/run/media/" + user, "/media", "/Volumes"):
        points.append(Path(base) / BOARD_ID)
    return points


def find_drives() -> list[Path]:
    """Mounted RPI-RP2 drives (a Pico plugged in with BOOTSEL held)."""
    seen: list[Path] = []
    for p in _mount_points():
        if p not in seen and is_bootsel_drive(p):
            seen.append(p)
    return seen


def copy_to_drive(image: Path, drive: Path) -> Path:
    """Copy the image onto the drive, as dragging it there would; the Pico reboots into it.

    The bootrom resets the chip once the last block is written, so the drive may vanish before
    the copy is closed: an error after every byte was written counts as done.
    """
    dest = drive / image.name
    size = image.stat().st_size
    written = 0
    try:
        with image.open("rb") as src, dest.open("wb") as out:
            while True:
                chunk = src.read(64 * 1024)
                if not chunk:
                    break
                out.write(chunk)
                written += len(chunk)
            out.flush()
            os.fsync(out.fileno())
    except OSError:
        if written < size:
            raise
    return dest


def wait_gone(drive: Path, timeout: float) -> bool:
    """Wait for the drive to go away (the Pico left BOOTSEL mode); False if it is still there."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if not is_bootsel_drive(drive):
            return True
        time.sleep(0.1)
    return not is_bootsel_drive(drive)


def picotool_loader() -> str | None:
    """A picotool on PATH that can load a device over USB (built with libusb), or None."""
    tool = shutil.which("picotool")
    if tool is None:
        return None
    try:
        out = subprocess.run([tool, "help"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return tool if re.search(r"^\s+load\s", out, re.M) else None
