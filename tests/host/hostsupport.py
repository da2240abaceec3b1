"""Helpers shared by the host tests that run the `cardtable` command or the virtual board."""
from __future__ import annotations

import contextlib
import json
import os
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def need_node(module: bool = True) -> None:
    """Skip (the whole module, or the calling test) when the virtual board cannot run."""
    from cardtable_host.sim.board import node_binary

    try:
        node_binary()
    except Exception as e:  # noqa: BLE001
        pytest.skip("the virtual board needs Node.js: %s" % e, allow_module_level=module)


def command(*args: str) -> list[str]:
    """The command line of `cardtable ARGS`, on this Python."""
    return [sys.executable, "-m", "cardtable_host.cli", *args]


def cardtable(*args: str, env: dict[str, str] | None = None,
              timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run `cardtable ARGS` as a user would, without colour."""
    return subprocess.run(command(*args), capture_output=True, text=True, timeout=timeout,
                          env=dict(env or os.environ, NO_COLOR="1"))


SimRun = tuple[subprocess.Popen[bytes], Path]


def start_sim(base: Path, game: str, *args: str, env: dict[str, str] | None = None) -> SimRun:
    """`cardtable sim GAME --bots all ARGS --json --record BASE.jsonl` in the background, its
    output in BASE.out and BASE.err (files: it never waits for a reader)."""
    with open(base.with_suffix(".out"), "wb") as out, open(base.with_suffix(".err"), "wb") as err:
        proc = subprocess.Popen(command("sim", game, "--bots", "all", *args, "--json",
                                        "--record", str(base.with_suffix(".jsonl"))),
                                stdout=out, stderr=err, env=dict(env or os.environ, NO_COLOR="1"))
    return proc, base


@contextlib.contextmanager
def sims(out: Path, games: dict[str, list[str]]) -> Iterator[dict[str, SimRun]]:
    """start_sim for every game at once (game -> its arguments); whatever still runs at the
    end is killed."""
    runs = {game: start_sim(out / game, game, *args) for game, args in games.items()}
    try:
        yield runs
    finally:
        for proc, _ in runs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def sim_messages(run: SimRun, timeout: float) -> list[dict[str, Any]]:
    """The JSON messages of a started sim, once it has ended (with status 0: else its stderr)."""
    proc, base = run
    proc.wait(timeout=timeout)
    assert proc.returncode == 0, base.with_suffix(".err").read_text()[-3000:]
    return [json.loads(line) for line in base.with_suffix(".out").read_text().splitlines() if line.strip()]


def make_uf2(payload: bytes, base: int = 0x10000000, chunk: int = 256) -> bytes:
    """A UF2 image writing payload at base, `chunk` bytes a block (as the SDK's elf2uf2 does)."""
    from cardtable_host.board import uf2

    n = (len(payload) + chunk - 1) // chunk
    out = b""
    for i in range(n):
        data = payload[i * chunk:(i + 1) * chunk]
        head = struct.pack("<8I", uf2.MAGIC0, uf2.MAGIC1, 0x2000, base + i * chunk, len(data), i, n, 0xE48BFF56)
        out += head + data.ljust(476, b"\0") + struct.pack("<I", uf2.MAGIC_END)
    return out


@contextlib.contextmanager
def club_tournament(tmp_path: Path) -> Iterator[tuple[Any, dict[str, str], Any, Any]]:
    """Four teams of two on two tables, with its own Mosquitto and its director running:
    (tournament, credentials, broker, director); both stopped at the end."""
    from cardtable_host.tournament import broker as brokers
    from cardtable_host.tournament.director import Director
    from cardtable_host.tournament.tourney import create

    teams = [{"name": "Team %d" % i, "players": ["P%dA" % i, "P%dB" % i]} for i in range(1, 5)]
    tour = create(tmp_path / "t", teams, 2)
    creds = brokers.write_config(tour.dir / "broker", tour.id, 2)
    b = brokers.LocalBroker(tour.dir / "broker").start()
    try:
        d = Director(tour, "127.0.0.1", b.port, creds["director"]).start()
        try:
            yield tour, creds, b, d
        finally:
            d.stop()
    finally:
        b.stop()
