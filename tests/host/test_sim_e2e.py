"""End to end: `cardtable sim GAME --bots all` plays every game to its end on the virtual
board, and the scores the host read off the serial link are the scores `cardtable referee`
gives for the journal pulled from the board over the same link.

The six games run at once (each is a Node process running MicroPython plus a Python
process with the bots), seeds picked for games of a few hundred actions at most.
"""
from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostsupport import SimRun, cardtable, command, need_node, sim_messages, sims

from cardtable import games
from cardtable.games.trick import TrickGame

pytest.importorskip("termios")  # ptys are POSIX only


need_node()

# game -> (seed, extra arguments) where seed 1 and none would not do; actions in brackets as
# measured (nexus 37, fairies 48 with seed 1).
TUNED = {
    "california-jacks": (171, []),  # 159
    "fortyfives": (26, []),  # 150
    "nonesuch": (254, []),  # 214
    "nerts": (207, ["--rule", "target=40"]),  # six players, first to 40: two rounds, 219
}
GAMES = {g: TUNED.get(g, (1, [])) for g in games.GAMES}  # every registered game
TIMEOUT = 200


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, SimRun]]:
    """Every game's `cardtable sim` started at once; each test waits for its own."""
    with sims(tmp_path_factory.mktemp("sim"),
              {game: ["--seed", str(seed), *extra] for game, (seed, extra) in GAMES.items()}) as procs:
        yield procs


@pytest.mark.parametrize("game", sorted(GAMES))
def test_sim_plays_to_the_end_and_the_link_agrees_with_the_referee(game: str, runs: dict[str, SimRun]) -> None:
    messages = sim_messages(runs[game], TIMEOUT)
    rec = runs[game][1].with_suffix(".jsonl")
    start = messages[0]
    assert start["type"] == "sim" and start["port"].startswith("/dev/pts/") and start["game"] == game
    result = [m for m in messages if m.get("type") == "result"][-1]
    assert result["over"] is True
    heap = result["heap"]  # the table never kept more alive than a Pico's heap (+ the emulators')
    assert heap["steps_over"] == 0 and 0 < heap["live_max"] <= heap["budget"], heap

    # What the host read off the link: events with the board's rulings, scored hand by hand.
    events = [m for m in messages if m.get("type") == "event"]
    assert events and all(m.get("seq") for m in events)
    finals = [ev for m in events for ev in m["events"] if ev.get("ev") == "over"]
    assert len(finals) == 1 and finals[0]["scores"] == result["scores"]
    plays = [m for m in events if str(m.get("from", "")).startswith("zone ")]
    assert plays, "no card was laid on a reader"
    if issubclass(games.game_class(game), TrickGame):  # the bots slip in trick games (sim/bots.py)
        verdicts = [m for m in messages if m.get("type") == "verdict"]
        assert verdicts and all(v["reason"] for v in verdicts)  # the bots' slips, refused

    # The journal pulled over the link, refereed on the host.
    lines = rec.read_text().splitlines()
    assert json.loads(lines[0])["game"] == game and len(lines) == len(events) + 1
    ref = cardtable("referee", "--json", str(rec))
    assert ref.returncode == 0, ref.stdout + ref.stderr
    verdict = json.loads(ref.stdout)
    assert verdict["ok"] and verdict["over"]
    assert verdict["scores"] == result["scores"]
    assert verdict["winner"] == result["winner"]


def test_a_person_takes_a_seat_and_the_board_referees_the_typed_plays(tmp_path: Path) -> None:
    port_file = tmp_path / "port"
    proc = subprocess.Popen(command("sim", "nexus", "--bots", "1", "--seed", "1", "--port-file", str(port_file)),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, NO_COLOR="1"))
    assert proc.stdin is not None and proc.stdout is not None
    seen = [""]
    fd = proc.stdout.fileno()

    def until(text: str, timeout: float = 30) -> None:
        import select
        import time

        end = time.monotonic() + timeout
        while text not in seen[0]:
            assert time.monotonic() < end, "no %r in:\n%s" % (text, seen[0])
            r, _, _ = select.select([fd], [], [], 0.2)
            if r:
                data = os.read(fd, 65536)
                assert data, "the simulator ended:\n" + seen[0]
                seen[0] += data.decode()

    try:
        until("seat 1 plays LJ")  # the bot at seat 1 leads the little joker (a trump)
        assert port_file.read_text().strip().startswith("/dev/pts/")
        proc.stdin.write("play 8C\n")  # seat 0 holds spades: a club does not follow trumps
        proc.stdin.flush()
        until("REJECTED: must follow trumps")
        proc.stdin.write("play 5S\n")
        proc.stdin.flush()
        until("seat 0 plays 5S")
        until("wins trick 1")
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
