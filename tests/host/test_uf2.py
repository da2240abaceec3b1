"""UF2 images and the BOOTSEL drive: reading an image's build, finding RPI-RP2, copying onto it."""
from __future__ import annotations

from pathlib import Path

import pytest
from hostsupport import make_uf2

from cardtable_host.board import uf2

INFO = "UF2 Bootloader v3.0\nModel: Raspberry Pi RP2\nBoard-ID: RPI-RP2\n"


def fake_drive(tmp_path: Path, info: str = INFO) -> Path:
    drive = tmp_path / "RPI-RP2"
    drive.mkdir()
    (drive / "INDEX.HTM").write_text("<html>raspberrypi.com/device/RP2</html>")
    (drive / uf2.INFO_FILE).write_text(info)
    return drive


def test_build_is_read_across_block_boundaries(tmp_path: Path) -> None:
    stamp = b"0.2.1 build 0123456789ab\0"
    # the stamp straddles the first two 256-byte blocks, behind other binary info strings
    payload = b"\x00" * 240 + stamp + b"MicroPython v1.27.0\0" + bytes(range(256)) * 3
    path = tmp_path / "fw.uf2"
    path.write_bytes(make_uf2(payload))
    assert uf2.flash_bytes(path.read_bytes()) == payload
    assert uf2.image_version(path) == ("0.2.1", "0123456789ab")
    plain = tmp_path / "stock.uf2"
    plain.write_bytes(make_uf2(b"MicroPython v1.27.0\0" * 40))
    assert uf2.image_version(plain) is None


def test_a_file_that_is_no_uf2_is_refused(tmp_path: Path) -> None:
    with pytest.raises(uf2.Uf2Error, match="512-byte blocks"):
        uf2.flash_bytes(b"\0" * 700)
    bad = bytearray(make_uf2(b"x" * 600))
    bad[512 + 508] ^= 1  # the second block's end magic
    with pytest.raises(uf2.Uf2Error, match="bad block at byte 512"):
        uf2.flash_bytes(bytes(bad))


def test_bootsel_drive_is_told_by_its_info_file(tmp_path: Path) -> None:
    drive = fake_drive(tmp_path)
    assert uf2.is_bootsel_drive(drive)
    other = tmp_path / "other"
    other.mkdir()
    (other / uf2.INFO_FILE).write_text("UF2 Bootloader v1.0\nModel: Adafruit Feather M0\nBoard-ID: SAMD21G18A-Feather\n")
    assert not uf2.is_bootsel_drive(other)
    assert not uf2.is_bootsel_drive(tmp_path / "nowhere")


def test_find_drives_reads_the_mount_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    drive = fake_drive(tmp_path)
    usb_stick = tmp_path / "stick"
    usb_stick.mkdir()
    monkeypatch.setattr(uf2, "_mount_points", lambda: [usb_stick, drive, drive])
    assert uf2.find_drives() == [drive]


def test_copy_lands_whole_and_the_drive_going_away_is_seen(tmp_path: Path) -> None:
    drive = fake_drive(tmp_path)
    image = tmp_path / "cardtable-pico.uf2"
    image.write_bytes(make_uf2(b"0.1.0 build 00000000abcd\0" + b"\x5a" * 100000))
    dest = uf2.copy_to_drive(image, drive)
    assert dest == drive / "cardtable-pico.uf2" and dest.read_bytes() == image.read_bytes()
    assert not uf2.wait_gone(drive, 0.3)  # the bootrom has not rebooted yet
    (drive / uf2.INFO_FILE).unlink()  # ... now it has: the drive is gone
    assert uf2.wait_gone(drive, 0.3)
