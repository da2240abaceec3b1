"""Games on the rp2 board: the firmware image on the emulated RP2040, hw_rp2 driving its readers.

`cardtable sim GAME --board rp2 --bots all` plays one whole Forty-Fives game (to 60: three
hands, 90 actions, a side set below zero in one of them; the game to 120 took 150 actions and
most of this file's CPU) and one hand of every other game (Nerts: one round; target=1 ends a
game at its first scored hand), the bots
laying tagged cards on PN532s behind emulated TCA9548A muxes (and on SPI for the SPI board),
and the scores the host read off the serial link are the scores `cardtable referee` gives for
the journal pulled from the board's littlefs over the same link.

The games run two at a time (a chip each, a core each), the longest first so that the two
cores finish together; each game's wall time and the CPU time of all six are printed (-s)
for the CI budget. Measured on the 2-core development machine (2026-11-29 13:35, alone): 83 s
of CPU, 46 s of wall time; Fairies (48 actions, 23 s) and Nonesuch (86 actions, 20 s) the
longest, Nerts (six players, 73 actions) 15 s.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostsupport import cardtable, need_node, start_sim

pytest.importorskip("termios")  # ptys are POSIX only
need_node()

from cardtable import games  # noqa: E402
from cardtable_host.sim.rp2board import missing  # noqa: E402

if missing():
    pytest.skip("the rp2 board cannot run: %s" % missing(), allow_module_level=True)

# game -> (board, seed, extra arguments) as measured, the longest first; any other registered
# game follows on the rp2 board with seed 1 and its own rules
TUNED = {
    "fairies": ("rp2", 1, []),
    "nonesuch": ("rp2:pico-spi-4seat", 254, ["--rule", "target=1"]),  # PN532s on SPI
    "fortyfives": ("rp2", 26, ["--rule", "target=60"]),  # a whole game of three hands, one of them set
    # one round, six players: seed 46's has every kind of play (a deal, centre plays, moves,
    # draws, a Nerts call, the count) in 73 actions (seed 120's took 184 and a third of the CPU)
    "nerts": ("rp2", 46, ["--rule", "target=1"]),
    "california-jacks": ("rp2", 171, ["--rule", "target=1"]),
    "nexus": ("rp2", 1, []),  # one deal is the game
}
GAMES = {**TUNED, **{g: ("rp2", 1, []) for g in games.GAMES if g not in TUNED}}
AT_ONCE = 2
TIMEOUT = 1500


def _children_cpu() -> float:
    """CPU seconds of the finished child processes (each sim and its chip)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[int, Path, float]]]:
    """Every game played, AT_ONCE at a time: game -> (exit code, output base, wall seconds)."""
    out = tmp_path_factory.mktemp("rp2games")
    env = dict(os.environ, NO_COLOR="1", CARDTABLE_RP2_SPEED="0")
    todo = list(GAMES.items())
    running: dict[str, tuple[subprocess.Popen[bytes], Path, float]] = {}
    done: dict[str, tuple[int, Path, float]] = {}
    began, cpu0 = time.monotonic(), _children_cpu()
    try:
        while todo or running:
            while todo and len(running) < AT_ONCE:
                game, (board, seed, extra) = todo.pop(0)
                proc, base = start_sim(out / game, game, "--board", board, "--seed", str(seed), *extra, env=env)
                running[game] = (proc, base, time.monotonic())
            for game, (proc, base, t0) in list(running.items()):
                if proc.poll() is not None:
                    done[game] = (proc.returncode, base, time.monotonic() - t0)
                    del running[game]
                elif time.monotonic() - t0 > TIMEOUT:
                    proc.kill()
                    proc.wait()
                    done[game] = (-9, base, time.monotonic() - t0)
                    del running[game]
            time.sleep(0.2)
        print("\nrp2 games: %.0f s wall, %.0f s CPU" % (time.monotonic() - began, _children_cpu() - cpu0))
        yield done
    finally:
        for proc, _, _ in running.values():
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_rp2_board_plays_and_the_link_agrees_with_the_referee(game: str, runs: dict[str, tuple[int, Path, float]]) -> None:
    code, base, wall = runs[game]
    stdout = base.with_suffix(".out").read_text()
    assert code == 0, "%s (%.0f s)\n%s" % (code, wall, base.with_suffix(".err").read_text()[-3000:])
    messages = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    result = [m for m in messages if m.get("type") == "result"][-1]
    assert result["over"] is True

    events = [m for m in messages if m.get("type") == "event"]
    finals = [ev for m in events for ev in m["events"] if ev.get("ev") == "over"]
    assert len(finals) == 1 and finals[0]["scores"] == result["scores"]
    plays = [m for m in events if str(m.get("from", "")).startswith("zone ")]
    assert plays, "no card was laid on a reader"  # read by hw_rp2's PN532 drivers on the chip

    lines = base.with_suffix(".jsonl").read_text().splitlines()
    assert json.loads(lines[0])["game"] == game and len(lines) == len(events) + 1
    ref = cardtable("referee", "--json", str(base.with_suffix(".jsonl")))
    assert ref.returncode == 0, ref.stdout + ref.stderr
    verdict = json.loads(ref.stdout)
    assert verdict["ok"] and verdict["over"]
    assert verdict["scores"] == result["scores"] and verdict["winner"] == result["winner"]
    print("%s on the rp2 board: %d actions in %.0f s" % (game, result["actions"], wall))
