"""Faults at the table on the virtual board (the firmware on MicroPython, real drivers, emulated
PN532s): a reader that stops answering, a card torn away mid-read, two tags on one pad, a
foreign tag. Each has its named `fault` on the link and its colour on the zone's LED, plays
nothing, and the table plays on (hardware/README.md, "Faults at the table")."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostsupport import need_node

pytest.importorskip("termios")  # ptys are POSIX only

from cardtable.table.feedback import COLOURS  # noqa: E402
from cardtable_host.board.link import Link  # noqa: E402
from cardtable_host.sim.board import VirtualBoard  # noqa: E402
from cardtable_host.sim.table import FOREIGN, VirtualTable  # noqa: E402

need_node()

BOARD = "pico-i2c-2seat"
BOARDS = Path(__file__).resolve().parents[2] / "firmware" / "boards"


def fault(link: Link, kind: str, timeout: float = 10, **match: object) -> dict:
    msg = link.wait_for(lambda m: m.get("type") == "fault" and m.get("kind") == kind
                        and all(m.get(k) == v for k, v in match.items()), timeout)
    assert msg is not None, "no %s fault %s within %g s" % (kind, match, timeout)
    return msg


def test_each_fault_mid_game_has_its_named_outcome_on_the_link_and_the_led() -> None:
    zones = json.loads((BOARDS / (BOARD + ".json")).read_text())["zones"]
    with VirtualBoard(BOARD, game="california-jacks") as vb, Link(vb.port) as link:
        table = VirtualTable(vb, BOARD, "california-jacks")
        link.hello()
        link.drain()
        table.lay("c", "9S")  # the cut card deals the hand: the game is on
        assert link.wait_for(lambda m: m.get("type") == "event" and m.get("from") == "zone c", 10)
        table.lift("c")
        leader = link.state()["view"]["turn"][0]
        zone = table.zone("play", leader)
        led = zones[zone]["led"]

        # the leader's card snatched away in the middle of its read: torn, lay it again
        vb.knob(zone, "vanish_after", 0)
        table.lay(zone, "QH")
        torn = fault(link, "torn", zone=zone)
        assert "lay it again" in torn["msg"]
        assert vb.pixels()[led] == COLOURS["misread"]
        table.lift(zone)

        # two tags on one pad: laid together (the board paused between the two), one fault
        vb.set_period(2000)
        table.lay(zone, "QH", wait=False)
        vb.stack(zone, "KH", wait=False)
        vb.set_period(1)
        two = fault(link, "two_tags", zone=zone)
        assert "two tags" in two["msg"]
        assert vb.pixels()[led] == COLOURS["unknown"]
        assert link.wait_for(lambda m: m.get("type") == "fault" and m.get("kind") == "two_tags", 1) is None
        table.lift(zone)

        # a foreign tag: a bank card
        table.lay_tag(zone, FOREIGN["bank"])
        fault(link, "tag", zone=zone)
        assert vb.pixels()[led] == COLOURS["unknown"]
        table.lift(zone)

        # the reader stops answering mid-game: amber until it answers again
        vb.kill_reader(zone)
        down = fault(link, "reader", zone=zone)
        assert "stopped answering" in down["msg"]
        assert vb.pixels()[led] == COLOURS["fault"]
        vb.revive_reader(zone)
        fault(link, "reader", zone=zone, cleared=True, timeout=15)
        shown = vb.pixels()[led]
        state = link.state()
        assert state["seq"] == 1 and state["view"]["turn"] == [leader]  # nothing was played
        assert shown == COLOURS["turn"]  # the leader's pad again

        table.lay(zone, "QH")  # and the game goes on: the card laid properly is the lead
        play = link.wait_for(lambda m: m.get("type") == "event" and m.get("from") == "zone " + zone, 10)
        assert play is not None and play["action"] == {"seat": leader, "act": "play", "card": "QH"}
