"""`cardtable doctor --bringup` on the rp2 board: the frozen firmware on the emulated RP2040
walks through every zone of pico-i2c-2seat with scripted placements, and names a dead reader
and a stuck LED chain (test_doctor.py's maker). About a minute: one boot, six reads."""
from __future__ import annotations

import pytest
from hostsupport import need_node

pytest.importorskip("termios")  # ptys are POSIX only

from cardtable_host.sim.rp2board import Rp2Board, missing  # noqa: E402
from test_doctor import check_bringup, scripted_bringup  # noqa: E402

need_node()
_why = missing()
if _why:
    pytest.skip("the rp2 board cannot run here: %s" % _why, allow_module_level=True)

BOOT_S = 240


def test_bringup_on_the_rp2_board() -> None:
    b = Rp2Board("pico-i2c-2seat", layout="nexus", speed=0)
    b.start(timeout=BOOT_S)
    try:
        b.kill_reader("t1")  # (a tap pad is polled rarely: the walk may come to it first)
        rc, out, laid, asked = scripted_bringup(b, wait_s=120, two=False)  # (no tag stacking here)
        check_bringup(rc, out, laid, asked, seen_down="t1" not in laid, two=False)
    finally:
        b.close()
