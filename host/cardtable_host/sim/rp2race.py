"""Nerts races on the rp2 board: two seats lay the same card of their decks on two foundations N
ms apart in emulated time (Rp2Board.place_at), the table (pico-nerts-6, "scan": "irq") times
each at its reader's IRQ edge; which one did the rules keep? (bench/race.py's rp2 part.) The
board runs in lockstep (sim/rp2lockstep.py): each race starts at the emulated instant of the
line before it, whatever the machine's load.

Each card laid in a race is also timed from its landing to the LED frame that shows its
verdict, both on the emulated clock (`verdict_frame`): the first frame latched after the landing
in which its foundation's LED shows accepted green or rejected red (table/feedback.py; a card
displaced later by an earlier play was accepted at its verdict: green). Before each race the
chip runs on until neither pad's LED still flashes an earlier verdict, so the new one changes
what a player sees."""
from __future__ import annotations

import time
from typing import Any, Sequence

BOARD = "pico-nerts-6"
SUITS = "SHDC"
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
PADS = ("f1", "f2", "f3", "f4", "f5")  # the racers' read pads (f0: the aces)
ROUND_START_NS = 1e9  # emulated time the round is given to start after the press
WAIT_S = 120.0  # wall time for one race's verdicts (the emulated chip is slow on a busy machine)
VERDICT_COLOURS = {(0, 64, 0): "accepted", (96, 0, 0): "rejected"}  # table/feedback.py's COLOURS
FRAME_STEPS = 100  # emulated steps (2 ms each) a verdict's LED frame may come after its line
DARK_STEP_NS = 100e6  # the chip runs on by this much while a pad's LED flashes an earlier verdict
DARK_MAX_NS = 3e9  # and at most this much (the longest flash is 1.5 s)


def _outcome(link: Any, cards: tuple[str, str], timeout: float) -> str | None:
    """The card the rules kept of the two (None: no answer for both in time)."""
    kept: dict[str, bool] = {}
    deadline = time.monotonic() + timeout
    while len(kept) < 2:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        msg = link.next(left)
        if msg is None:
            return None
        if msg.get("type") == "event":
            for ev in msg.get("events") or ():
                if ev.get("ev") == "center" and ev.get("card") in cards:
                    kept[ev["card"]] = True
                elif ev.get("ev") == "displaced" and ev.get("card") in cards:
                    kept[ev["card"]] = False
        elif msg.get("type") == "verdict":
            card = ((msg.get("action") or {}).get("card"))
            if card in cards:
                kept[card] = False
    won = [c for c in cards if kept.get(c)]
    return won[0] if len(won) == 1 else None


def verdict_frame(board: Any, land_ns: float, led: int, steps: int = FRAME_STEPS) -> tuple[float, str] | None:
    """The first LED frame latched at or after land_ns in which LED `led` shows a verdict:
    (its emulated ns, "accepted" | "rejected"); None if none came within `steps` steps of the
    standing chip (lockstep; steps=0 for a free-running chip: the frames latched so far)."""
    for k in range(steps + 1):
        frames = board._request({"op": "led_frames", "since": land_ns})["frames"]
        for ns, pixels in frames:
            name = VERDICT_COLOURS.get(tuple(pixels[led])) if led < len(pixels) else None
            if name is not None:
                return float(ns), name
        if k < steps:
            board.step()
    return None


def dark(board: Any, leds: Sequence[int]) -> None:
    """Let the standing chip run on until none of leds flashes a verdict (an earlier race's)."""
    waited = 0.0
    while any(tuple(board.pixels()[i]) in VERDICT_COLOURS for i in leds):
        if waited >= DARK_MAX_NS:
            raise RuntimeError("the LEDs %s still flash a verdict after %g s" % (list(leds), waited / 1e9))
        board.run_for(DARK_STEP_NS)
        waited += DARK_STEP_NS


def _timed(board: Any, plays: Sequence[tuple[str, str]], at: Sequence[float], kept: str | None,
           leds: dict[str, int]) -> list[dict[str, Any]]:
    """Each play (zone, card) landed at `at` (order: 0 the earlier): its verdict's LED frame, ms
    after the landing."""
    out = []
    for order, ((zone, card), land) in enumerate(zip(plays, at)):
        row: dict[str, Any] = {"zone": zone, "card": card, "order": order, "land_ns": land,
                               "kept": None if kept is None else card == kept}
        seen = verdict_frame(board, land, leds[zone])
        if seen is not None:
            row.update(led_ns=seen[0], led=seen[1], ms=round((seen[0] - land) / 1e6, 3))
        out.append(row)
    return out


def races(per_apart: int, aparts: Sequence[int], image: str | None = None) -> dict[str, Any]:
    """per_apart races at each of aparts ms; per N: races, earlier_won, ordered_right; "plays":
    each card laid in a race, its landing and its LED verdict on the emulated clock."""
    from cardtable.table import config
    from cardtable_host.sim.rp2board import FROZEN_UF2, STOCK_UF2, Rp2Board, rp2_dir, stale_image
    from cardtable_host.sim.table import _boards_dir

    if image is None:
        image = str(FROZEN_UF2) if FROZEN_UF2.exists() and not stale_image(FROZEN_UF2) else str(rp2_dir() / STOCK_UF2)
    source = "frozen image" if image == str(FROZEN_UF2) else "stock image + .mpy"
    out: dict[str, Any] = {"board": BOARD, "image": source, "by_apart": {}, "plays": []}
    leds = config.load_board(BOARD, str(_boards_dir())).zone_led
    plan = [(d, k) for d in aparts for k in range(per_apart)]
    b = Rp2Board(BOARD, game="nerts", speed=0, image=image, lockstep=True)
    b.start(timeout=Rp2Board.BOOT_S)
    try:
        with b.lockstep_link(timeout=30, lock=False) as link:
            b.press("n0")  # the round starts: the foundations wait for their cards
            b.run_for(ROUND_START_NS)
            n = 0
            for s, suit in enumerate(SUITS):
                if n >= len(plan):
                    break
                ace = "A%s#0" % suit
                b.place("f0", ace)
                b.lift("f0")
                for rank in RANKS:
                    if n >= len(plan):
                        break
                    apart, k = plan[n]
                    n += 1
                    # seats 1 and 2 race for the next card of the pile; the earlier alternates
                    first, second = (1, 2) if k % 2 == 0 else (2, 1)
                    pads = PADS[(n + s) % len(PADS)], PADS[(n + s + 2) % len(PADS)]
                    cards = ("%s%s#%d" % (rank, suit, first), "%s%s#%d" % (rank, suit, second))
                    dark(b, [leds[z] for z in pads])
                    link.drain()
                    at = b.place_at([(pads[0], cards[0], 0.0), (pads[1], cards[1], float(apart))])
                    kept = _outcome(link, cards, WAIT_S)
                    out["plays"] += [dict(r, apart=apart) for r in _timed(b, list(zip(pads, cards)), at, kept, leds)]
                    row = out["by_apart"].setdefault(str(apart), {"races": 0, "earlier_won": 0, "unanswered": 0})
                    if kept is None:
                        row["unanswered"] += 1
                    else:
                        row["races"] += 1
                        row["earlier_won"] += kept == cards[0]
                    for z in pads:  # the winner goes onto its pile, the loser back to its owner
                        b.lift(z)
            out["irq"] = b.irq_stats()
    finally:
        b.close()
    for row in out["by_apart"].values():
        row["ordered_right"] = round(row["earlier_won"] / row["races"], 4) if row["races"] else None
        row["source"] = source
    return out
