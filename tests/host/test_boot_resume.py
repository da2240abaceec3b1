"""The table boots into a game of any length (issue 15, defect 3), and a board that cannot
start says why in its own words, through `cardtable sim` and `cardtable doctor`."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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


def _resumes_and_ends(link: Any, g: Any, last: tuple) -> dict:
    """The board is at the long game's last action; playing it ends the game: its view."""
    from cardtable import record

    hello = link.hello()
    assert hello["seq"] == 1907 and hello["game"]["game"] == LONG_GAME
    assert link.state()["view"] == json.loads(json.dumps(g.view(None)))
    r = link.act(record.encode(g, last))  # the game goes on: its last play ends it
    g.apply(last)
    assert r["seq"] == 1908 and g.over
    view = link.state()["view"]
    assert view == json.loads(json.dumps(g.view(None)))
    return view


def test_a_game_of_the_longest_seeded_length_reboots_and_resumes_exactly(tmp_path: Path) -> None:
    from cardtable_host.board.link import Link
    from cardtable_host.sim.board import VirtualBoard

    g, last = _long_game(tmp_path)
    with VirtualBoard("pico-i2c-2seat", flash_dir=tmp_path, game=LONG_GAME, install=True) as vb:
        assert vb.mode == "table"
        with Link(vb.port, timeout=60) as link:
            _resumes_and_ends(link, g, last)
        assert vb.reset() == "table"  # and once more from power-up, the whole game
        with Link(vb.port, timeout=60) as link:
            assert link.hello()["seq"] == 1908
            view = link.state()["view"]
            assert view == json.loads(json.dumps(g.view(None))) and view["over"] is True
            st = vb.status()
            assert st["heap_over"] == 0, st  # within a Pico's heap all along


def test_the_longest_game_reboots_and_resumes_exactly_on_the_rp2_board(tmp_path: Path) -> None:
    """The same game on the frozen image on the emulated RP2040 (issue 16): its journal written
    to the chip's littlefs at the REPL, then a power-up replays it. ~1.5 min of wall time on a
    busy 2-core machine, ~8 with two more emulated chips running (the replay at boot is ~11 s of
    the chip's own clock)."""
    from cardtable_host.board.link import Link
    from cardtable_host.sim.rp2board import Rp2Board, missing

    if missing():
        pytest.skip("the rp2 board cannot run: %s" % missing())
    (tmp_path / "journal").mkdir()
    g, last = _long_game(tmp_path / "journal")
    journal = (tmp_path / "journal" / "games" / "0001.jsonl").read_bytes()
    with Rp2Board("pico-i2c-2seat", flash_dir=tmp_path / "flash", game=LONG_GAME, speed=0, repl=True) as b:
        b.put_journal(journal)  # checks the size written
        assert b.reset(timeout=900) == "table"  # power-up: the whole journal replayed on the chip
        st = b.status()
        assert st["boots"] == 2, st
        with Link(b.port, timeout=60) as link:
            view = _resumes_and_ends(link, g, last)
            assert view["over"] is True


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
