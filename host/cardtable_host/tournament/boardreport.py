"""A table reporter's game on the virtual board: the table's firmware on MicroPython
(WebAssembly), bots laying cards on its readers; the record is the board's own journal."""
from __future__ import annotations

import time
from typing import Any

from cardtable_host.board.link import Link
from cardtable_host.tournament.reporter import Reporter
from cardtable_host.sim.board import VirtualBoard
from cardtable_host.sim.bots import Bots, SimError
from cardtable_host.sim.table import VirtualTable
from cardtable_host.sim.choice import board_for, pick_layout
from cardtable_host.sim.play import MAX_ACTIONS


def play_virtual(rep: Reporter, game_id: str, seed: int) -> dict[str, Any]:
    """Play a scheduled game on a fresh virtual board; report it like any other (the payload)."""
    board = board_for("fortyfives")
    layout = pick_layout("fortyfives", board, None, None)
    g = rep.tour.game(game_id)
    names = [rep.tour.team_name(t) for t in g["teams"]]
    rep.status = {"table": rep.table, "state": "playing", "round": g["round"], "game": game_id,
                  "teams": names, "scores": [0, 0], "dealer": 0, "hand": 1}
    rep._publish_status()

    hands = [0]

    def on_message(_msg: dict[str, Any], _before: Any) -> None:
        shadow = bots.shadow
        if shadow is not None and len(shadow.results) != hands[0]:  # a hand ended
            hands[0] = len(shadow.results)
            rep.status.update(scores=[shadow.score[0], shadow.score[1]], hand=hands[0] + 1, dealer=shadow.dealer)
            rep._publish_status()

    bots: Any = None
    with VirtualBoard(board, layout=layout, period_ms=0) as vb:
        link = Link(vb.port, timeout=10)
        try:
            bots = Bots(link, VirtualTable(vb, board, layout), seed=seed, mistakes=False, on_message=on_message)
            hello = link.hello()
            link.drain()
            bots.new_game({}, hello=hello)
            while not bots.over:
                if not bots.step():
                    bots.pump(0.05)
                if bots.actions > MAX_ACTIONS:
                    raise SimError("stopped after %d bot actions" % MAX_ACTIONS)
            bots.settle(0.1)
            scores = [bots.scores[0], bots.scores[1]] if bots.scores else [0, 0]
            answers = answer_at_table(link, VirtualTable(vb, board, layout), [
                rep.confirm(g, name, scores) for name in names])
            lines = link.log()
        finally:
            link.close()
    return rep.finish(game_id, lines, scores, answers=answers)


def answer_at_table(link: Link, table: VirtualTable, agree: list[bool], timeout: float = 20) -> list[int]:
    """Each team presses its agree (or dispute) button on the table; the board's answers
    once it has both (its ``agree``: 1 agreed, 2 disputed per team)."""
    for team, yes in enumerate(agree):
        button = table.button("%s %d" % ("agree" if yes else "dispute", team))
        if button is None:
            raise SimError("the table has no %s button for team %d" % ("agree" if yes else "dispute", team))
        table.vb.press(button)
        deadline = time.monotonic() + timeout
        while True:
            msg = link.next(max(0.0, deadline - time.monotonic()))
            if msg is not None and msg.get("type") == "agree" and msg.get("team") == team:
                break
            if time.monotonic() > deadline:
                raise SimError("the board did not take team %d's answer" % team)
    got = link.state().get("agree")
    if not (isinstance(got, list) and all(got)):
        raise SimError("the board does not hold both teams' answers: %r" % (got,))
    return list(got)
