"""`cardtable doctor` on the virtual board: a healthy table, a reader cut off, and no table."""
from __future__ import annotations

import json
import time

import pytest
from hostsupport import need_node, cardtable

pytest.importorskip("termios")  # ptys are POSIX only

from cardtable_host.commands import doctor  # noqa: E402
from cardtable_host.sim.board import VirtualBoard  # noqa: E402

need_node()




def test_doctor_finds_a_dead_reader_and_sees_it_mended() -> None:
    with VirtualBoard("pico-spi-4seat", game="fortyfives") as vb:
        healthy = cardtable("doctor", "--port", vb.port, "--sample", "0.5")
        assert healthy.returncode == 0, healthy.stdout + healthy.stderr
        assert "healthy: every reader answers" in healthy.stdout
        assert "board pico-spi-4seat on %s: firmware 0.1.0 (protocol 1), layout fortyfives" % vb.port in healthy.stdout
        rows = [line for line in healthy.stdout.splitlines() if line.startswith("  s") or line.startswith("  c ")]
        assert len(rows) == 5 and all(row.endswith("PN532 firmware 1.6") for row in rows), rows

        vb.kill_reader("s2")  # the cable to seat 2's reader comes off
        time.sleep(0.5)
        sick = cardtable("doctor", "--port", vb.port, "--sample", "0.5", "--json")
        assert sick.returncode == 1, sick.stdout + sick.stderr
        rep = json.loads(sick.stdout)
        s2 = [r for r in rep["readers"] if r["zone"] == "s2"][0]
        assert s2["up"] is False and s2["role"] == "play 2" and s2["polls_per_s"] == 0
        assert [r["fw"] for r in rep["readers"]] == ["1.6"] * 5  # what each said when it last started
        others = [r for r in rep["readers"] if r["zone"] != "s2"]
        assert len(others) == 4 and all(r["up"] and r["polls_per_s"] > 0 for r in others)
        assert rep["problems"][0].startswith("reader s2 (play 2) is down: ")
        text = cardtable("doctor", "--port", vb.port, "--sample", "0.2")
        assert "DOWN" in text.stdout and "1 problem:" in text.stdout

        vb.revive_reader("s2")
        deadline = time.monotonic() + 15  # the table retries a dead reader every 2 s
        while True:
            back = cardtable("doctor", "--port", vb.port, "--sample", "0.3", "--json")
            if back.returncode == 0 or time.monotonic() > deadline:
                break
        assert back.returncode == 0, back.stdout
        assert json.loads(back.stdout)["ok"] is True


def test_doctor_on_a_board_without_the_table_says_so() -> None:
    with VirtualBoard("pico-i2c-2seat", repl=True) as vb:  # MicroPython at its prompt, no table
        r = cardtable("doctor", "--port", vb.port)
        assert r.returncode == 1, r.stdout + r.stderr
        assert "at the MicroPython REPL: the table is not running" in r.stdout
        assert "`cardtable doctor --restart` starts the table again" in r.stdout
        assert vb.mode == "repl"  # looking changed nothing
        pulled = cardtable("pull", "--list", "--port", vb.port)
        assert pulled.returncode == 2  # as its help says: the board does not answer
        assert "no answer to hello" in pulled.stderr and "`cardtable doctor` looks" in pulled.stderr
        assert "the board is at the MicroPython REPL" in pulled.stderr  # seen, not waited out

        r = cardtable("doctor", "--port", vb.port, "--restart", "--sample", "0.2")
        assert r.returncode == 0, r.stdout + r.stderr
        assert "the table is running again" in r.stdout and "healthy" in r.stdout
        assert vb.mode == "table"


def test_doctor_sees_maintenance_mode() -> None:
    with VirtualBoard("pico-i2c-2seat", game="nexus") as vb:
        from mpremote.transport_serial import SerialTransport

        t = SerialTransport(vb.port)
        t.enter_raw_repl(soft_reset=False)
        t.fs_writefile("maintenance", b"a flash stopped half-way\n")
        t.close()
        vb.reset()  # the table stays off
        r = cardtable("doctor", "--port", vb.port, "--json")
        assert r.returncode == 1, r.stdout + r.stderr
        rep = json.loads(r.stdout)
        assert rep["maintenance"] is True and not rep["ok"]
        assert rep["stopped"].startswith("in maintenance mode: the table is off")
        assert any("`cardtable flash` finishes the flash" in p for p in rep["problems"])

        # --restart finishes the flash (doctor calls flash's function) and the table runs again
        r = cardtable("doctor", "--port", vb.port, "--restart", "--sample", "0.2")
        assert r.returncode == 0, r.stdout + r.stderr
        assert "finishing the flash (cardtable flash)" in r.stdout and "healthy" in r.stdout, r.stdout
        assert vb.mode == "table"


def test_diagnose_names_journal_flash_and_heap_trouble() -> None:
    hello = {"board": "b", "fw": "0.1.0", "proto": 1, "layout": "nexus", "game": {"game": "nexus"}}
    reader = {"zone": "s0", "up": True, "polls": 10, "failures": 0, "card": False}
    first = {"readers": [reader], "steps": 0, "link": {"errors": 0}}
    second = {"readers": [dict(reader, polls=30, failures=2, error="checksum", fw="1.6")],
              "journal": {"number": 3, "seq": 10, "bytes": 900, "dropped": 17, "error": None},
              "flash_free": 4096, "heap_free": 2000, "steps": 100, "link": {"errors": 1}}
    rep = doctor.diagnose(hello, {"zones": {"s0": "play 0"}}, first, second, 2.0)
    assert rep["ok"] is False and rep["readers"][0]["polls_per_s"] == 10.0
    assert rep["readers"][0]["fw"] == "1.6"
    assert rep["problems"] == [
        "reader s0 (play 0) failed 2 of its polls in 2 s (checksum)",
        "journal: 17 bytes of a torn last line were cut off at boot (a power cut mid-write; "
        "the actions before it are safe)",
        "flash: only 4096 bytes free; pull the games and let the board drop old ones",
        "heap: only 2000 bytes free",
    ]
