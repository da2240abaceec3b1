"""Helpers shared by the host tests that run the `cardtable` command or the virtual board."""
from __future__ import annotations

import os
import struct
import subprocess
import sys

import pytest


def need_node(module: bool = True) -> None:
    """Skip (the whole module, or the calling test) when the virtual board cannot run."""
    from cardtable_host.sim.board import node_binary

    try:
        node_binary()
    except Exception as e:  # noqa: BLE001
        pytest.skip("the virtual board needs Node.js: %s" % e, allow_module_level=module)


def cardtable(*args: str, env: dict[str, str] | None = None,
              timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run `cardtable ARGS` as a user would, without colour."""
    return subprocess.run([sys.executable, "-m", "cardtable_host.cli", *args], capture_output=True,
                          text=True, timeout=timeout, env=dict(env or os.environ, NO_COLOR="1"))


def make_uf2(payload: bytes, base: int = 0x10000000, chunk: int = 256) -> bytes:
    """A UF2 image writing payload at base, `chunk` bytes a block (as the SDK's elf2uf2 does)."""
    from cardtable_host import uf2

    n = (len(payload) + chunk - 1) // chunk
    out = b""
    for i in range(n):
        data = payload[i * chunk:(i + 1) * chunk]
        head = struct.pack("<8I", uf2.MAGIC0, uf2.MAGIC1, 0x2000, base + i * chunk, len(data), i, n, 0xE48BFF56)
        out += head + data.ljust(476, b"\0") + struct.pack("<I", uf2.MAGIC_END)
    return out
