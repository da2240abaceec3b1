"""`cardtable run --board rp2`: the demo table served from the emulated RP2040 - the firmware
image itself on rp2040js, the bots' cards read by hw_rp2's drivers over the chip's I2C bus,
the page fed from its USB serial. Costs ~20-60 s of wall time (boot, the deal, a few plays)."""
from __future__ import annotations

import os

import pytest
from hostsupport import cardtable, need_node
from servesupport import Serve, Viewer

pytest.importorskip("aiohttp")
pytest.importorskip("termios")
need_node()

from cardtable_host.sim.rp2board import FROZEN_UF2, missing, stale_image  # noqa: E402

if missing():
    pytest.skip("the rp2 board cannot run: %s" % missing(), allow_module_level=True)


def children(pid: int) -> list[str]:
    """The command lines of pid's child processes (Linux /proc)."""
    if not os.path.isdir("/proc"):
        pytest.skip("no /proc to find the chip's process in")
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                if ppid == pid:
                    with open("/proc/%s/cmdline" % d, "rb") as f:
                        out.append(f.read().replace(b"\0", b" ").decode())
            except (OSError, ValueError, IndexError):
                pass
    return out


def test_run_board_rp2_serves_the_demo_table_from_the_emulated_chip(tmp_path) -> None:
    if not FROZEN_UF2.exists() or stale_image(FROZEN_UF2):
        pytest.skip("build/firmware/cardtable-pico.uf2 is not this checkout's: run `make firmware`")
    with Serve("nexus", "--board", "rp2", "--seed", "1", "--http", "127.0.0.1:0", command="run",
               env=dict(os.environ, XDG_DATA_HOME=str(tmp_path)), timeout=300) as s:
        assert s.lines[0] == ("cardtable: the demo table on the emulated RP2040 "
                              "(cardtable serve --sim nexus --board rp2)"), s.lines
        watcher = Viewer(s.url)
        s.wait_for(lambda: watcher.has(lambda m: m.get("type") == "event"
                                       and str(m.get("from", "")).startswith("zone ")), 300,
                   "a card laid on a reader, refereed by the chip")
        snap = s.json("snapshot.json")
        assert snap["board"] == "pico-i2c-2seat" and snap["layout"] == "nexus"
        # the chip behind the page: rp2040js running this checkout's image, not the WebAssembly port
        chips = [c for c in children(s.proc.pid) if "sim/rp2/board.mjs" in c]
        assert len(chips) == 1 and str(FROZEN_UF2) in chips[0], chips
        watcher.close()
    assert s.proc.returncode in (0, 143), s.err


def test_a_board_and_a_port_together_are_refused() -> None:
    r = cardtable("run", "--board", "rp2", "--port", "/dev/ttyACM9")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "give one of them" in r.stderr


def test_serve_board_without_sim_is_refused() -> None:
    r = cardtable("serve", "--board", "rp2", "--http", "127.0.0.1:0")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--sim GAME" in r.stderr
