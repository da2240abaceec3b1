"""Helpers shared by the host tests that run the `cardtable` command or the virtual board."""
from __future__ import annotations

import os
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
