"""A Nerts race on the rp2 board (pico-nerts-6, "scan": "irq"): the firmware on the emulated
RP2040 arms the foundations' PN532s, each reader's IRQ line falls on the emulated GPIO at the
emulated time its PN532 answers a card, and two plays laid 50 ms apart in emulated time are
judged by those edges: the earlier kept, the later refused "too late", their times 50 ms apart;
each card's verdict shows on its foundation's LED (green kept, red refused) soon after it landed,
timed on the emulated clock as bench/race.py times every play of its races.

About 8 s of wall time here (a boot, three cards; load 5 on the 2 cores, 2026-11-29).
"""
from __future__ import annotations

from typing import Any

import pytest
from hostsupport import need_node

pytest.importorskip("termios")  # ptys are POSIX only

from cardtable.table import config  # noqa: E402
from cardtable_host.board.link import Link  # noqa: E402
from cardtable_host.sim.rp2board import Rp2Board, missing  # noqa: E402
from cardtable_host.sim.rp2race import verdict_frame  # noqa: E402
from cardtable_host.sim.table import _boards_dir  # noqa: E402

need_node()
_why = missing()
if _why:
    pytest.skip("the rp2 board cannot run here: %s" % _why, allow_module_level=True)

BOOT_S = 240
WAIT_S = 120
# a verdict's LED frame comes within this of the card landing, on the emulated clock (the PN532's
# activation, the IRQ edge, the READ, check(): ~20 ms here, up to ~95 ms behind another play's
# journal flush in bench/race.py); a card found by the round robin instead of at its edge (the
# model's polled Nerts: p50 119 ms) or a frame left for a later loop step would come later
VERDICT_MS = 100.0


def _said(link: Link, cards: tuple[str, ...], timeout: float) -> dict[str, dict[str, Any]]:
    """The accepted event or the verdict for each of cards, by card."""
    out: dict[str, dict[str, Any]] = {}
    while len(out) < len(cards):
        msg = link.wait_for(lambda m: m.get("type") in ("event", "verdict"), timeout)
        assert msg is not None, "no answer for %s within %g s (have %s)" % (cards, timeout, out)
        card = (msg.get("action") or {}).get("card")
        if card in cards:
            out[card] = msg
    return out


def test_two_plays_50_ms_apart_are_judged_by_their_irq_edges() -> None:
    b = Rp2Board("pico-nerts-6", game="nerts", speed=0)
    b.start(timeout=BOOT_S)
    try:
        with Link(b.port, timeout=30, lock=False) as link:
            b.press("n0")  # the round starts
            link.wait_for(lambda m: m.get("type") == "event", WAIT_S)
            b.place("f0", "AS#0")  # through its IRQ line: the pad waits for its card
            assert _said(link, ("AS#0",), WAIT_S)["AS#0"]["type"] == "event"
            b.lift("f0")
            fields = b.readers.fields() if b.readers is not None else {}
            assert set(range(6)) <= set(fields["on"]), fields  # the foundations wait, fields on
            edges = b.irq_stats()["edges"]
            at = b.place_at([("f4", "2S#2", 0.0), ("f2", "2S#1", 50.0)])
            assert at[1] - at[0] == 50_000_000
            said = _said(link, ("2S#2", "2S#1"), WAIT_S)
            assert b.irq_stats()["edges"] >= edges + 2
            leds = config.load_board("pico-nerts-6", str(_boards_dir())).zone_led
            # (the chip runs free: both verdicts' frames were latched before their lines came)
            shown = [verdict_frame(b, land, leds[z], steps=0) for land, z in zip(at, ("f4", "f2"))]
    finally:
        b.close()
    first, late = said["2S#2"], said["2S#1"]
    assert first["type"] == "event", first  # the earlier play is kept
    assert late["type"] == "verdict" and late["reason"].startswith("too late"), late
    gap = late["action"]["t"] - first["action"]["t"]
    assert 49 <= gap <= 51, (first, late)  # timed at the edges, 50 ms apart on the emulated clock
    # each card's foundation LED showed its verdict: the kept one green, the refused one red
    assert [s and s[1] for s in shown] == ["accepted", "rejected"], shown
    for land, s in zip(at, shown):
        assert s is not None
        assert 0 < (s[0] - land) / 1e6 < VERDICT_MS, (land, shown)
