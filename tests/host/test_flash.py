"""`cardtable flash` against the virtual board over its pty: copy, hello, re-run, recover."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hostsupport import make_uf2, need_node, cardtable

pytest.importorskip("termios")  # ptys are POSIX only

import serial  # noqa: E402

from cardtable_host.board import flashing as flash  # noqa: E402
from cardtable_host.board.link import Link  # noqa: E402
from cardtable_host.sim.board import VirtualBoard  # noqa: E402

need_node()




def bare_board(tmp_path: Path) -> VirtualBoard:
    """A Pico with MicroPython and no table firmware yet: only its config and board file."""
    flash_dir = tmp_path / "flash"
    (flash_dir / "boards").mkdir(parents=True)
    (flash_dir / "config.json").write_text('{"board": "pico-i2c-2seat"}')
    # The board file is there from the start because the virtual board wires its emulated
    # buses at power-on from it (without it, the table it restarts into after the flash
    # has no readers); flash finds it unchanged and copies everything else.
    shutil.copy(flash.FIRMWARE / "boards" / "pico-i2c-2seat.json", flash_dir / "boards")
    return VirtualBoard(board=None, flash_dir=flash_dir, repl=True)


def firmware_paths() -> list[str]:
    flash.build()
    return sorted(flash.local_files())


def test_flash_then_hello_then_only_what_changed(tmp_path: Path) -> None:
    paths = firmware_paths()
    assert "lib/cardtable/games/words.mpy" not in paths  # host only: the board never imports it
    assert "lib/cardtable/games/base.mpy" in paths
    with bare_board(tmp_path) as vb:
        first = cardtable("flash", "--port", vb.port, "--layout", "california-jacks")
        assert first.returncode == 0, first.stdout + first.stderr
        assert "%d files to copy" % (len(paths) - 1) in first.stdout
        assert ("the table says hello: firmware 0.1.0, protocol 1, board pico-i2c-2seat, "
                "layout california-jacks, california-jacks") in first.stdout
        with Link(vb.port) as link:
            assert link.hello()["game"]["game"] == "california-jacks"
            assert link.config()["layout"] == "california-jacks"
            # a file spoiled on the board, one the firmware no longer has, and a game journal
            link.send_raw(b"\x03")
            time.sleep(0.3)
        from mpremote.transport_serial import SerialTransport

        t = SerialTransport(vb.port)
        t.enter_raw_repl(soft_reset=False)
        t.fs_writefile("lib/cardtable/rng.mpy", b"not bytecode")
        t.fs_writefile("lib/cardtable/stale.py", b"raise ImportError('old firmware')\n")
        t.exec("import os\ntry:\n os.mkdir('games')\nexcept OSError:\n pass")
        t.fs_writefile("games/0000.jsonl", b'{"game": "nexus", "seats": 2}\n')
        t.close()

        look = cardtable("flash", "--port", vb.port, "--dry-run", "--json")
        assert look.returncode == 0, look.stdout + look.stderr
        plan = json.loads(look.stdout)
        assert plan["dry_run"] and plan["copied"] == ["lib/cardtable/rng.mpy"]
        assert plan["hello"]["layout"] == "california-jacks"  # the table runs again afterwards
        vb.sync()
        assert (tmp_path / "flash" / "lib" / "cardtable" / "rng.mpy").read_bytes() == b"not bytecode"

        again = cardtable("flash", "--port", vb.port, "--json")
        assert again.returncode == 0, again.stdout + again.stderr
        report = json.loads(again.stdout)
        assert report["ok"] and report["copied"] == ["lib/cardtable/rng.mpy"]
        assert report["removed"] == ["lib/cardtable/stale.py"]
        assert report["unchanged"] == len(paths) - 1
        assert report["config"] == {"board": "pico-i2c-2seat", "layout": "california-jacks"}
        assert report["hello"]["layout"] == "california-jacks"

        with Link(vb.port) as link:
            link.hello()
            assert [g["number"] for g in link.games()][:2] == [0, 1]  # journals are never touched
        vb.sync()
        assert (tmp_path / "flash" / "games" / "0000.jsonl").read_bytes() == b'{"game": "nexus", "seats": 2}\n'

        # another layout: the table would resume its california-jacks game; the layout asked for wins
        other = cardtable("flash", "--port", vb.port, "--layout", "nexus", "--json")
        assert other.returncode == 0, other.stdout + other.stderr
        report = json.loads(other.stdout)
        assert report["copied"] == [] and report["config"]["layout"] == "nexus"
        assert report["hello"]["layout"] == "nexus" and report["hello"]["game"]["game"] == "nexus"


def test_copy_failed_half_way_then_rerun_finishes(tmp_path: Path) -> None:
    paths = firmware_paths()
    with bare_board(tmp_path) as vb:
        lib = tmp_path / "flash" / "lib"
        proc = subprocess.Popen([sys.executable, "-m", "cardtable_host.cli", "flash", "--port",
                                 vb.stable_port], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the cable comes out after about ten files
            if lib.exists() and sum(1 for p in lib.rglob("*.mpy")) >= 10:
                break
            time.sleep(0.05)
        vb.unplug()
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 1, out + err
        assert "copy failed at lib/" in err and "run `cardtable flash` again to finish" in err
        assert (tmp_path / "flash" / "maintenance").exists()  # the table will not start half-flashed

        vb.replug()
        again = cardtable("flash", "--port", vb.stable_port, "--json")
        assert again.returncode == 0, again.stdout + again.stderr
        report = json.loads(again.stdout)
        assert 0 < len(report["copied"]) < len(paths) - 10  # only what the first run did not finish
        assert report["hello"]["board"] == "pico-i2c-2seat"
        assert not (tmp_path / "flash" / "maintenance").exists()


def test_busy_board_is_refused(tmp_path: Path) -> None:
    with bare_board(tmp_path) as vb:
        with serial.Serial(vb.port, 115200, exclusive=True):  # e.g. a serial terminal holds it
            r = cardtable("flash", "--port", vb.port)
        assert r.returncode == 2
        assert "cardtable flash: the table's port is in use by " in r.stderr
        assert ", pid %d\n" % os.getpid() in r.stderr  # the program that holds it, named


def test_no_board_found_says_what_to_do() -> None:
    from cardtable_host.board import boardfind

    if boardfind.picos():
        pytest.skip("a real Pico is plugged in")
    env = {k: v for k, v in os.environ.items() if k != boardfind.ENV}
    r = cardtable("flash", env=env)
    assert r.returncode == 2
    assert "no board found: plug the Pico in by USB" in r.stderr
    r = cardtable("flash", "--port", "E6613852", env=env)  # a serial number nobody has
    assert r.returncode == 2 and "no serial port or board serial number E6613852" in r.stderr


def test_wrong_micropython_is_refused_with_advice() -> None:
    ok = {"name": "micropython", "version": [1, 27, 0], "mpy": 774}
    flash.check_version(ok, (1, 27, 0), (6, 3))  # the pinned pair passes
    with pytest.raises(flash.FlashError, match="runs MicroPython 1.22.2 but the firmware is built .* for 1.27") as e:
        flash.check_version({"name": "micropython", "version": [1, 22, 2], "mpy": 6 | 2 << 8}, (1, 27, 0), (6, 3))
    assert e.value.status == 2
    flash.check_version({"name": "micropython", "version": [1, 22, 2], "mpy": 6 | 2 << 8}, (1, 27, 0), (6, 3),
                        any_version=True)
    with pytest.raises(flash.FlashError, match="loads .mpy v5; this mpy-cross writes v6.3"):
        flash.check_version({"name": "micropython", "version": [1, 18, 0], "mpy": 5}, (1, 27, 0), (6, 3),
                            any_version=True)
    with pytest.raises(flash.FlashError, match="runs circuitpython 9.0.0, not MicroPython"):
        flash.check_version({"name": "circuitpython", "version": [9, 0, 0]}, (1, 27, 0), (6, 3))


def test_plan_copies_changed_and_removes_only_our_stale_files() -> None:
    local = {"main.py": b"main", "lib/cardtable/a.mpy": b"A", "boards/x.json": b"{}"}
    remote = {"main.py": [4, flash.sha256(b"main")], "lib/cardtable/a.mpy": [1, flash.sha256(b"B")],
              "boards/x.json": None}
    tree = ["/lib/cardtable/a.mpy", "/lib/cardtable/old.py", "/boards/y.json", "/lib/other/keep.py"]
    copy, remove, same = flash.plan(local, remote, tree)
    assert copy == ["lib/cardtable/a.mpy", "boards/x.json"] and same == 1
    assert remove == ["boards/y.json", "lib/cardtable/old.py"]  # never another library's files


def test_bad_layout_is_refused_before_touching_the_board() -> None:
    with pytest.raises(flash.FlashError, match="board pico-i2c-2seat has no layout 'nerts'"):
        flash.new_config({"board": "pico-i2c-2seat"}, None, "nerts")
    assert flash.new_config({"board": "pico-i2c-2seat", "layout": "nexus"}, "pico-i2c-4seat", None) == \
        {"board": "pico-i2c-4seat"}  # a new board drops the old board's layout


def test_bootsel_drive_gets_the_image_then_the_board_files(tmp_path: Path) -> None:
    # A Pico held in BOOTSEL: its RPI-RP2 drive. Once the UF2 is written the "Pico" reboots: the
    # drive goes and a serial port comes (the virtual board, whose flash has the files of an
    # earlier .mpy install and a journal). The virtual board cannot run a UF2, so flash stops
    # at the REPL (--no-reset) instead of asking for the image's hello.
    image = tmp_path / "cardtable-pico.uf2"
    image.write_bytes(make_uf2(b"0.1.0 build 0123456789ab\0" + os.urandom(3000)))
    drive = tmp_path / "RPI-RP2"
    drive.mkdir()
    (drive / "INFO_UF2.TXT").write_text("UF2 Bootloader v3.0\nModel: Raspberry Pi RP2\nBoard-ID: RPI-RP2\n")
    tty = tmp_path / "ttyACM0"
    vb = bare_board(tmp_path)
    flashed = tmp_path / "flash"
    (flashed / "lib" / "cardtable").mkdir(parents=True)
    (flashed / "lib" / "cardtable" / "rng.mpy").write_bytes(b"M\x06")
    (flashed / "main.py").write_text("print('old main')\n")
    (flashed / "games").mkdir()
    (flashed / "games" / "0001.jsonl").write_text('{"game": "nexus", "seats": 2}\n')
    got: list[bytes] = []

    def pico() -> None:
        deadline = time.monotonic() + 60
        landed = drive / image.name
        while time.monotonic() < deadline:
            if landed.exists() and landed.stat().st_size == image.stat().st_size:
                got.append(landed.read_bytes())
                (drive / "INFO_UF2.TXT").unlink()  # rebooted: the drive is gone
                vb.start()
                tty.symlink_to(vb.port)
                return
            time.sleep(0.05)

    t = threading.Thread(target=pico, daemon=True)
    t.start()
    try:
        r = cardtable("flash", "--drive", str(drive), "--port", str(tty), "--uf2", str(image),
                      "--layout", "california-jacks", "--no-reset", "--json")
    finally:
        t.join(5)
        vb.close()
    assert r.returncode == 0, r.stdout + r.stderr
    assert got == [image.read_bytes()]
    report = json.loads(r.stdout)
    assert report["installed"] == "drive %s" % drive
    assert report["image"]["build"] == "0123456789ab"
    # the image leaves the board files, the config and the journals to the flash; the old
    # main.py and .mpy files (the frozen ones shadow them) are removed
    assert sorted(p.name for p in (flashed / "boards").iterdir()) == sorted(
        p.name for p in (flash.FIRMWARE / "boards").glob("*.json"))
    assert sorted(report["removed"]) == ["lib/cardtable/rng.mpy", "main.py"]
    assert not (flashed / "main.py").exists() and not list((flashed / "lib").rglob("*.mpy"))
    assert (flashed / "games" / "0001.jsonl").exists()
    assert json.loads((flashed / "config.json").read_text())["layout"] == "california-jacks"
    assert not (flashed / "maintenance").exists()


def test_a_board_that_says_nothing_after_the_reset_fails_in_time() -> None:
    """The hang after a long game: a read with no deadline waited for ever at 'resetting'."""
    import threading

    master, slave = os.openpty()  # a board that takes every byte and answers nothing
    try:
        board = flash.Board(os.ttyname(slave))
        failed: list[BaseException] = []

        def reset() -> None:
            try:
                board.reset_and_hello(timeout=1.0)
            except BaseException as e:  # noqa: BLE001 - kept for the assertion
                failed.append(e)

        t = threading.Thread(target=reset, daemon=True)
        t.start()
        t.join(timeout=10)
        assert not t.is_alive(), "reset_and_hello is still waiting"
        assert isinstance(failed[0], flash.FlashError)
        assert "did not say hello within 1 s after the reset; it said:\n  (nothing)" in str(failed[0])
        board.close()
    finally:
        os.close(master)
        os.close(slave)


def test_a_refused_flash_leaves_the_table_running() -> None:
    with VirtualBoard("pico-i2c-2seat", game="nexus") as vb:
        r = cardtable("flash", "--port", vb.port, "--layout", "nerts")
        assert r.returncode == 2, r.stdout + r.stderr
        assert ("cardtable flash: board pico-i2c-2seat has no layout 'nerts': its layouts are "
                "california-jacks, fairies, nexus (nothing was changed: the table is running again)") in r.stderr
        assert vb.mode == "table"
        with Link(vb.port) as link:
            assert link.hello()["layout"] == "nexus"
