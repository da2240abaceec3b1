"""The table boots into a game of any length (issue 15, defect 3), and a board that cannot
start says why in its own words, through `cardtable sim` and `cardtable doctor`."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostsupport import cardtable, need_node

pytest.importorskip("termios")  # ptys are POSIX only

need_node()

# California Jacks, seed 3: the seeded bot game `cardtable sim california-jacks --seed 3`
# plays, 1908 actions (the README's seeded games are a few hundred); before the fix a
# 151-line journal already failed to boot.
LONG_GAME, LONG_SEED = "california-jacks", 3


def _long_game(flash: Path) -> tuple[object, tuple]:
    """Journal the seeded game on the board's flash as the table writes it, all but the last
    action; returns (the game, as CPython replayed it, the last action)."""
    from cardtable import games, record
    from cardtable.hal import FileStorage
    from cardtable.journal import Journal
    from cardtable.rng import Random

    g = games.load(LONG_GAME)
    g.keep_history = False
    rng = Random(LONG_SEED)
    actions = []
    while not g.over:
        a = g.bot_action(rng)
        g.apply(a)
        actions.append(a)
    assert len(actions) == 1908
    g = games.load(LONG_GAME)
    g.keep_history = False
    j = Journal(FileStorage(str(flash)))
    j.start(record.header(g))
    for a in actions[:-1]:
        j.append(record.encode(g, a))
        g.apply(a)
    j.close()
    return g, actions[-1]


def test_a_game_of_the_longest_seeded_length_reboots_and_resumes_exactly(tmp_path: Path) -> None:
    from cardtable import record

    from cardtable_host.link import Link
    from cardtable_host.sim.board import VirtualBoard

    g, last = _long_game(tmp_path)
    with VirtualBoard("pico-i2c-2seat", flash_dir=tmp_path, game=LONG_GAME, install=True) as vb:
        assert vb.mode == "table"
        with Link(vb.port, timeout=20) as link:
            hello = link.hello()
            assert hello["seq"] == 1907 and hello["game"]["game"] == LONG_GAME
            assert link.state()["view"] == json.loads(json.dumps(g.view(None)))
            r = link.act(record.encode(g, last))  # the game goes on: its last play ends it
            g.apply(last)
            assert r["seq"] == 1908 and g.over
            assert link.state()["view"] == json.loads(json.dumps(g.view(None)))
        assert vb.reset() == "table"  # and once more from power-up, the whole game
        with Link(vb.port, timeout=20) as link:
            assert link.hello()["seq"] == 1908
            view = link.state()["view"]
            assert view == json.loads(json.dumps(g.view(None))) and view["over"] is True
            st = vb.status()
            assert st["heap_over"] == 0, st  # within a Pico's heap all along


def _broken_flash(flash: Path) -> None:
    """A board whose flash holds a half-copied module: its table cannot start."""
    from cardtable_host.sim.board import VirtualBoard

    with VirtualBoard("pico-i2c-2seat", flash_dir=flash, game="california-jacks"):
        pass
    (flash / "lib" / "cardtable" / "journal.mpy").write_bytes(b"M\x06half a file")


def test_sim_and_doctor_say_why_the_board_cannot_start_in_its_own_words(tmp_path: Path) -> None:
    from cardtable_host.sim.board import VirtualBoard

    _broken_flash(tmp_path)
    r = cardtable("sim", "california-jacks", "--flash", str(tmp_path), "-q", timeout=60)
    assert r.returncode == 1
    assert ("cardtable sim: the board did not start the table (repl); the board said: "
            "ValueError: incompatible .mpy file") in r.stderr, r.stderr
    with VirtualBoard("pico-i2c-2seat", flash_dir=tmp_path, game="california-jacks") as vb:
        assert vb.mode == "repl"
        r = cardtable("doctor", "--port", vb.port, timeout=60)
        assert r.returncode == 1
        assert ("board on %s: at the MicroPython REPL: the table failed to start: ValueError: "
                "incompatible .mpy file" % vb.port) in r.stdout, r.stdout + r.stderr
        # the words were read at the REPL, not by restarting anything: it is still there
        assert vb.mode == "repl"
