"""The rp2 board's instruction decode by table (host/cardtable_host/sim/rp2/dispatch.mjs) runs the
firmware image exactly as rp2040js's own decode does: two chips on one image, one on each,
stepped an instruction at a time through the whole boot up to USB, hold the same PC, registers,
flags and cycle count after every instruction."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hostsupport import need_node

need_node()

from cardtable_host.sim.board import node_binary  # noqa: E402
from cardtable_host.sim.rp2board import bootrom_path, default_image, missing  # noqa: E402

CHECK = Path(__file__).with_name("rp2_dispatch_check.mjs")


def test_the_table_decode_runs_the_boot_as_the_chain_does_instruction_for_instruction() -> None:
    if missing():
        pytest.skip("the rp2 board cannot run: %s" % missing())
    r = subprocess.run([node_binary(), str(CHECK), str(bootrom_path()), str(default_image()), "20000000"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["tabled"] and not out["chainTabled"], out  # the table is what the board runs on
    assert out["differ"] is None, out
    # the boot ran to its wait for the USB host: millions of instructions, hundreds of kinds
    assert out["waiting"] and out["instructions"] > 1_000_000 and out["kinds"] > 300, out
