"""`cardtable flash` and the image, without a board: a stock Pico sent to BOOTSEL and back (faked
at the serial level), the build checks, images that are not ours."""
from __future__ import annotations

import hashlib
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hostsupport import cardtable, make_uf2

from cardtable_host.board import imageinstall, uf2
from cardtable_host.board import flashing as flash
from cardtable_host.errors import CardtableError

BUILD = "0123456789ab"


class FakePico:
    """A Pico on a serial port, as flash's Board sees it: stock MicroPython until the image lands
    on its BOOTSEL drive, then the image's build. Its flash is a dict."""

    def __init__(self, drive: Path, image: Path) -> None:
        self.drive = drive
        self.image = image
        self.build: str | None = None
        self.files: dict[str, bytes] = {"main.py": b"old", "lib/cardtable/rng.mpy": b"M",
                                        "games/0001.jsonl": b"{}\n", "config.json": b'{"board": "pico-i2c-2seat"}'}
        self.events: list[str] = []
        self.in_bootsel = False

    def board(self, port: str) -> Any:
        pico = self

        class Board:
            TransportError = OSError

            def __init__(self) -> None:
                assert not pico.in_bootsel, "the port is gone while the Pico is in BOOTSEL mode"
                self.port = port
                pico.events.append("open")

            def enter(self) -> None:
                pass

            def info(self) -> dict[str, Any]:
                return {"name": "micropython", "version": [1, 27, 0], "mpy": 6, "platform": "rp2",
                        "free": 1 << 20, "build": pico.build}

            def survey(self, paths: list[str]) -> dict[str, Any]:
                files = {p: [len(d), hashlib.sha256(d).hexdigest()] for p, d in pico.files.items() if p in paths}
                tree = [p for p in pico.files if p.startswith(flash.OURS)]
                return {"files": files, "tree": tree}

            def read_config(self) -> dict[str, Any]:
                import json
                return dict(json.loads(pico.files["config.json"]))

            def bootloader(self) -> None:
                pico.events.append("bootloader")
                pico.in_bootsel = True
                threading.Thread(target=pico.bootrom, daemon=True).start()

            def mkdirs(self, paths: list[str]) -> None:
                pass

            def write(self, path: str, data: bytes, progress: Any = None) -> None:
                pico.files[path] = data

            def remove(self, paths: list[str]) -> None:
                for p in paths:
                    pico.files.pop(p, None)

            def reset_and_hello(self) -> dict[str, Any]:
                pico.events.append("reset")
                return {"type": "hello", "fw": "0.1.0", "build": pico.build or "source", "proto": 1,
                        "board": "pico-i2c-2seat", "layout": "nexus", "game": None, "seq": 0}

            def close(self) -> None:
                pico.events.append("close")

        return Board()

    def claim(self, command: str, port: str | None) -> tuple[str, Any]:
        """boardfind.claim: the port of the Pico while it runs MicroPython, held."""
        if self.in_bootsel:
            raise CardtableError("no board found")
        self.events.append("claim")
        return "/dev/ttyACM0", self

    def release(self) -> None:
        self.events.append("release")

    def bootrom(self) -> None:
        """BOOTSEL mode: the drive shows; a whole UF2 written to it reboots into the image."""
        (self.drive / uf2.INFO_FILE).write_text("Board-ID: RPI-RP2\n")
        landed = self.drive / self.image.name
        end = time.monotonic() + 30
        while time.monotonic() < end:
            if landed.exists() and landed.read_bytes() == self.image.read_bytes():
                self.events.append("uf2")
                self.build = uf2.image_version(landed)[1]  # type: ignore[index]
                (self.drive / uf2.INFO_FILE).unlink()
                self.in_bootsel = False
                return
            time.sleep(0.02)


def test_a_stock_pico_on_serial_is_sent_to_bootsel_given_the_image_and_checked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    image = tmp_path / "cardtable-pico.uf2"
    image.write_bytes(make_uf2(b"0.1.0 build %s\0" % BUILD.encode() + bytes(2000)))
    drive = tmp_path / "RPI-RP2"
    drive.mkdir()
    pico = FakePico(drive, image)
    monkeypatch.setattr(flash, "Board", pico.board)
    monkeypatch.setattr(flash.boardfind, "claim", pico.claim)
    monkeypatch.setattr(uf2, "_mount_points", lambda: [drive])  # the desktop mounts RPI-RP2 there
    monkeypatch.setattr(uf2, "picotool_loader", lambda: None)
    monkeypatch.setattr(uf2, "wait_gone", lambda d, t: not uf2.is_bootsel_drive(d) or
                        (time.sleep(0.5) or not uf2.is_bootsel_drive(d)))
    args = flash.FlashOptions(uf2=str(image), json=True)
    report: dict[str, Any] = {}
    said: list[str] = []
    assert flash.flash_board(args, report, said.append) == 0, said
    # the port is let go while the Pico is away, and claimed again when it is back
    assert pico.events[:6] == ["claim", "open", "bootloader", "close", "release", "uf2"]
    assert pico.events[6:8] == ["claim", "open"]
    assert pico.events[-3:] == ["reset", "close", "release"]
    assert report["installed"] == "drive %s" % drive and report["hello"]["build"] == BUILD
    # the image's flash: board files, config, journals; the old firmware files are gone
    assert "main.py" not in pico.files and "lib/cardtable/rng.mpy" not in pico.files
    assert "games/0001.jsonl" in pico.files and "boards/pico-i2c-4seat.json" in pico.files
    assert "the board runs stock (no cardtable image): installing the cardtable image 0.1.0 build %s" % BUILD in said

    # flashed again: the board runs that build already, so no BOOTSEL, only the files (none changed)
    pico.events.clear()
    report = {}
    assert flash.flash_board(args, report, said.append) == 0
    assert "bootloader" not in pico.events and report["copied"] == [] and report["hello"]["build"] == BUILD


def test_hello_must_name_the_build_that_was_flashed() -> None:
    image = flash.imageinstall.Image(Path("cardtable-pico.uf2"), "0.1.0", "0123456789ab")
    flash.check_build({"build": "0123456789ab"}, image.build)
    flash.check_build({"build": "source"}, None)
    with pytest.raises(flash.FlashError, match="the board says build source but the image is build "
                                               "0123456789ab: the image did not take"):
        flash.check_build({"build": "source"}, image.build)
    with pytest.raises(flash.FlashError, match="a frozen cardtable image shadows them"):
        flash.check_build({"build": "0123456789ab"}, None)


def test_files_onto_a_board_running_the_image_are_refused() -> None:
    with pytest.raises(flash.FlashError, match="runs the cardtable image .build 0123456789ab.: its frozen"):
        flash._mpy_files({"build": "0123456789ab"}, None, ((1, 27, 0), (6, 3), ""), print)  # type: ignore[arg-type]


def test_a_file_that_is_no_cardtable_image_is_refused(tmp_path: Path) -> None:
    stock = tmp_path / "RPI_PICO.uf2"
    stock.write_bytes(make_uf2(b"MicroPython v1.27.0\0" * 30))
    drive = tmp_path / "drive"
    drive.mkdir()
    r = cardtable("flash", "--uf2", str(stock), "--drive", str(drive))
    assert r.returncode == 2
    assert "is not a Pico's BOOTSEL drive" in r.stderr
    (drive / "INFO_UF2.TXT").write_text("Board-ID: RPI-RP2\n")
    r = cardtable("flash", "--uf2", str(stock), "--drive", str(drive))
    assert r.returncode == 2
    assert "is not a cardtable image" in r.stderr and not (drive / stock.name).exists()


def test_picotool_that_talks_usb_loads_the_image(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "picotool.log"
    tool = bin_dir / "picotool"
    # a picotool built with libusb lists `load`; one built without (as `make firmware`'s) does not
    tool.write_text('#!/bin/sh\nif [ "$1" = help ]; then printf "COMMANDS:\\n    info   Display\\n%%s" "$LOAD"; '
                    'exit 0; fi\necho "$@" >> %s\n' % log)
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", "%s:/usr/bin:/bin" % bin_dir)
    monkeypatch.setenv("LOAD", "")
    assert uf2.picotool_loader() is None
    monkeypatch.setenv("LOAD", "    load   Load the program / memory range stored in a file onto the device.\n")
    assert uf2.picotool_loader() == str(tool)
    image = imageinstall.Image(tmp_path / "cardtable-pico.uf2", "0.1.0", BUILD)
    image.path.write_bytes(make_uf2(b"0.1.0 build %s\0" % BUILD.encode()))
    said: list[str] = []
    assert imageinstall.load(image, None, said.append) == "picotool"
    assert log.read_text().split() == ["load", "-x", str(image.path)]


def test_dry_run_with_a_pico_in_bootsel_changes_nothing(tmp_path: Path) -> None:
    image = tmp_path / "cardtable-pico.uf2"
    image.write_bytes(make_uf2(b"0.1.0 build %s\0" % BUILD.encode()))
    drive = tmp_path / "RPI-RP2"
    drive.mkdir()
    (drive / uf2.INFO_FILE).write_text("Board-ID: RPI-RP2\n")
    r = cardtable("flash", "--uf2", str(image), "--drive", str(drive), "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "a Pico is in BOOTSEL mode (%s): would install the cardtable image 0.1.0 build %s" % (drive, BUILD) in r.stdout
    assert sorted(p.name for p in drive.iterdir()) == [uf2.INFO_FILE]
