"""`cardtable pull` then `cardtable referee`: the downloaded journals judge as the board did."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hostsupport import need_node, cardtable

pytest.importorskip("termios")  # ptys are POSIX only

from cardtable_host.commands import pull  # noqa: E402
from cardtable_host.board.link import Link  # noqa: E402
from cardtable_host.sim.board import VirtualBoard  # noqa: E402

need_node()




def test_pull_then_referee_reproduces_the_boards_scores(tmp_path: Path) -> None:
    from cardtable_host.sim.bots import Bots
    from cardtable_host.sim.table import VirtualTable

    with VirtualBoard("pico-spi-4seat", game="fortyfives") as vb:
        with Link(vb.port, timeout=10) as link:
            link.hello()
            link.drain()
            bots = Bots(link, VirtualTable(vb, "pico-spi-4seat", "fortyfives"), seed=1)
            number = bots.new_game()["number"]
            bots.run(max_actions=3000)  # a whole game, careless plays included (the board rejects them)
            assert bots.over
            view = link.state()["view"]
        r = cardtable("pull", "--port", vb.port, "-o", str(tmp_path), "--json")
        assert r.returncode == 0, r.stdout + r.stderr
        pulled = json.loads(r.stdout)
        ours = [g for g in pulled["games"] if g["number"] == number]
        assert ours and ours[0]["status"] == "new" and ours[0]["game"] == "fortyfives"
        path = ours[0]["file"]
        assert os.path.basename(path) == "%04d-fortyfives.jsonl" % number

        judged = cardtable("referee", "--json", path)
        verdict = json.loads(judged.stdout)
        assert judged.returncode == 0 and verdict["ok"], judged.stdout  # the journal holds only accepted plays
        assert verdict["scores"] == view["scores"] and verdict["over"] is True
        assert verdict["winner"] is not None and verdict["winner"] % 2 == view["winner"] % 2

        again = cardtable("pull", "--port", vb.port, "-o", str(tmp_path), "--game", str(number))
        assert again.returncode == 0 and "unchanged" in again.stdout

        listed = cardtable("pull", "--port", vb.port, "--list", "--json")
        assert listed.returncode == 0, listed.stdout + listed.stderr
        entry = [g for g in json.loads(listed.stdout)["games"] if g["number"] == number][0]
        assert entry["game"] == "fortyfives" and entry["over"] is True
        assert entry["actions"] == len(Path(path).read_text().splitlines()) - 1
        text = cardtable("pull", "--port", vb.port, "--list").stdout
        assert [line for line in text.splitlines() if line.split()[:2] == [str(number), "fortyfives"]
                and line.endswith("(over)")], text


def test_pull_follows_a_game_in_progress(tmp_path: Path) -> None:
    with VirtualBoard("pico-i2c-2seat", game="california-jacks") as vb:
        vb.place("c", "9S")  # the cut card: deals the first hand, spades are trump
        vb.lift("c")
        first = cardtable("pull", "--port", vb.port, "-o", str(tmp_path), "--current", "--json")
        assert first.returncode == 0, first.stdout + first.stderr
        entry = json.loads(first.stdout)["games"][0]
        assert entry["status"] == "new" and entry["current"] and entry["lines"] == 2
        with Link(vb.port) as link:
            leader = link.state()["view"]["turn"][0]
        vb.place("s%d" % leader, "KH")  # a lead from the hand the table did not see dealt
        vb.lift("s%d" % leader)
        with Link(vb.port) as link:
            view = link.state()["view"]
        assert view["trick"] == [[leader, "KH"]]
        second = cardtable("pull", "--port", vb.port, "-o", str(tmp_path), "--current")
        assert second.returncode == 0 and "3 lines, updated (being played)" in second.stdout
        assert "judge one with:  cardtable referee %s" % entry["file"] in second.stdout
        judged = json.loads(cardtable("referee", "--json", entry["file"]).stdout)
        assert judged["ok"] and judged["scores"] == view["scores"] and judged["over"] is False
        listed = cardtable("pull", "--port", vb.port, "--list")
        assert listed.returncode == 0 and "(being played)" in listed.stdout
        row = [line for line in listed.stdout.splitlines() if "(being played)" in line][0]
        assert row.split()[1:3] == ["california-jacks", "2"]  # the game, and its actions so far
        missing = cardtable("pull", "--port", vb.port, "-o", str(tmp_path), "--game", "99")
        assert missing.returncode == 2 and "the board has no game 99" in missing.stderr


def test_a_different_game_under_the_same_number_is_kept_beside(tmp_path: Path) -> None:
    old = ['{"game": "nexus", "seats": 2, "dealer": 0, "rules": {}}']
    new = ['{"seq": 0, "game": "fortyfives", "seats": 4, "dealer": 0, "rules": {}}']
    assert pull.save(str(tmp_path), "0001-nexus.jsonl", old) == (str(tmp_path / "0001-nexus.jsonl"), "new")
    path, what = pull.save(str(tmp_path), "0001-nexus.jsonl", new)
    assert what == "kept-both" and path.endswith("0001-nexus.1.jsonl")
    assert (tmp_path / "0001-nexus.jsonl").read_text() == old[0] + "\n"  # never overwritten
    assert pull.save(str(tmp_path), "0001-nexus.jsonl", new)[1] == "unchanged"
    problem = pull.check(['{"game": "nexus", "seats": 2}', '{"seq": 1, "act": "deal", "crc": "00000000"}'])
    assert problem is not None and problem.startswith("line 2: checksum mismatch")
