"""Bots playing a simulated game out: their seats, delay seconds apart, until it is over."""
from __future__ import annotations

import time
from typing import Any

from cardtable_host.sim.bots import Bots, SimError
from cardtable_host.sim.simprompt import People

MAX_ACTIONS = 50000


def play_out(bots: Bots, delay: float, people: People | None = None,
             stop: Any = None) -> None:
    """The bots play their seats until the game is over (or the people quit, or stop() is
    true), delay seconds apart; SimError if they go on for ever."""
    last = 0.0
    while not bots.over:
        if people is not None:
            people.poll()
            if people.quit:
                break
        if stop is not None and stop():
            break
        if bots.bot_turn():
            due = last + delay
            while time.monotonic() < due:  # waiting, the table still answers (stop: e.g. serve's commands)
                bots.settle(max(0.0, min(0.1, due - time.monotonic())))
                if stop is not None and stop():
                    return
            if not bots.bot_turn():
                continue  # what came in while waiting (an undo) changed whose turn it is
            bots.step()
            last = time.monotonic()
            if bots.actions > MAX_ACTIONS:
                raise SimError("stopped after %d bot actions" % MAX_ACTIONS)
        else:
            bots.pump(0.05)
    bots.settle(0.1)
