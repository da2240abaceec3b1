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
from cardtable_host.link import Link  # noqa: E402
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


def test_each_fault_has_its_named_outcome_on_the_link_and_the_led() -> None:
    led = json.loads((BOARDS / (BOARD + ".json")).read_text())["zones"]["c"]["led"]
    with VirtualBoard(BOARD, game="california-jacks") as vb, Link(vb.port) as link:
        table = VirtualTable(vb, BOARD, "california-jacks")
        link.hello()
        link.drain()

        # a card snatched away in the middle of its read: torn, lay it again
        vb.knob("c", "vanish_after", 0)
        table.lay("c", "9S")
        torn = fault(link, "torn", zone="c")
        assert "lay it again" in torn["msg"]
        assert vb.pixels()[led] == COLOURS["misread"]
        table.lift("c")

        # two tags on one pad: laid together (the board paused between the two), one fault
        vb.set_period(2000)
        table.lay("c", "9S", wait=False)
        vb.stack("c", "KH", wait=False)
        vb.set_period(1)
        two = fault(link, "two_tags", zone="c")
        assert "two tags" in two["msg"]
        assert vb.pixels()[led] == COLOURS["unknown"]
        assert link.wait_for(lambda m: m.get("type") == "fault" and m.get("kind") == "two_tags", 1) is None
        table.lift("c")

        # a foreign tag: a bank card
        table.lay_tag("c", FOREIGN["bank"])
        fault(link, "tag", zone="c")
        assert vb.pixels()[led] == COLOURS["unknown"]
        table.lift("c")

        state = link.state()
        assert state["seq"] == 0 and state["view"]["phase"] == "deal"  # nothing was played

        # the reader stops answering: amber until it answers again
        vb.kill_reader("c")
        down = fault(link, "reader", zone="c")
        assert "stopped answering" in down["msg"]
        assert vb.pixels()[led] == COLOURS["fault"]
        vb.revive_reader("c")
        fault(link, "reader", zone="c", cleared=True, timeout=15)
        assert vb.pixels()[led] != COLOURS["fault"]

        table.lay("c", "9S")  # and the table plays on: the cut card deals the hand
        deal = link.wait_for(lambda m: m.get("type") == "event" and m.get("from") == "zone c", 10)
        assert deal is not None and deal["action"] == {"act": "deal", "up": ["9S"]}
