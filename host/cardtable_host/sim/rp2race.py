"""Nerts races on the rp2 board: two seats lay the same card of their decks on two foundations N
ms apart in emulated time (Rp2Board.place_at), the table (pico-nerts-6, "scan": "irq") times
each at its reader's IRQ edge; which one did the rules keep? (bench/race.py's rp2 part.) The
board runs in lockstep (sim/rp2lockstep.py): each race starts at the emulated instant of the
line before it, whatever the machine's load."""
from __future__ import annotations

import time
from typing import Any, Sequence

BOARD = "pico-nerts-6"
SUITS = "SHDC"
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
PADS = ("f1", "f2", "f3", "f4", "f5")  # the racers' read pads (f0: the aces)
ROUND_START_NS = 1e9  # emulated time the round is given to start after the press
WAIT_S = 120.0  # wall time for one race's verdicts (the emulated chip is slow on a busy machine)


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


def races(per_apart: int, aparts: Sequence[int], image: str | None = None) -> dict[str, Any]:
    """per_apart races at each of aparts ms; per N: races, earlier_won, ordered_right."""
    from cardtable_host.sim.rp2board import FROZEN_UF2, STOCK_UF2, Rp2Board, rp2_dir, stale_image

    if image is None:
        image = str(FROZEN_UF2) if FROZEN_UF2.exists() and not stale_image(FROZEN_UF2) else str(rp2_dir() / STOCK_UF2)
    source = "frozen image" if image == str(FROZEN_UF2) else "stock image + .mpy"
    out: dict[str, Any] = {"board": BOARD, "image": source, "by_apart": {}}
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
                    link.drain()
                    b.place_at([(pads[0], cards[0], 0.0), (pads[1], cards[1], float(apart))])
                    kept = _outcome(link, cards, WAIT_S)
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
