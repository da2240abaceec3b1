"""Hidden information stays hidden (issue 15, defect 10): every game is played on the virtual
board by bots, and no card a spectator has not been shown yet - another seat's hand before it
is played, a face-down discard, the kitty, the second Nexus indicator in round 1, the stock
and deck order, face-down Nerts cards - appears in any line the link carries or the monitor
prints. One hand per game (Nexus and NEXUS-Fairies: their one deal)."""
from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hostsupport import need_node

from cardtable import games
from cardtable_host.sim.choice import board_for

pytest.importorskip("termios")  # ptys are POSIX only

need_node()

# seeds as the simulator's, picked for short hands; any other game plays with seed 1
SEEDS = {"california-jacks": 171, "fortyfives": 26, "nonesuch": 254, "nerts": 46}
# game -> (board, seed): every registered game, on the board the simulator picks for it
GAMES = {g: (board_for(g), SEEDS.get(g, 1)) for g in games.GAMES}
RULES = {"nerts": {"target": 10}}  # one short hand; every other game by its own rules
_SPLIT = re.compile(r"[\s,;:()\[\]{}'\"=]+")


def _strings(obj: Any) -> list[str]:
    """Every string inside a JSON value."""
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in _strings(v)] + [k for k in obj if isinstance(k, str)]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return []


class Watcher:
    """Follows the game with every card known (the bots' shadow) and checks what a spectator
    is told against the cards no spectator view has shown so far."""

    def __init__(self, game_id: str) -> None:
        from cardtable.cards import deck
        from cardtable import games

        cls = games.game_class(game_id)
        fam = deck(cls.DECK)
        self.codes = {fam.fmt(c) for c in cls.CARDS}
        self.digits = game_id == "fairies"  # its cards are numbers: words of text are not checked
        self.seen: set[str] = set()
        self.raw: list[tuple[str, bool]] = []  # link lines not yet checked, and if queued
        self.leaks: list[str] = []
        self.done = False
        self.lines = 0

    def show(self, view: Any) -> None:
        self.seen.update(s for s in _strings(view) for s in _SPLIT.split(s) if s in self.codes)

    def hidden_in(self, tokens: list[str]) -> list[str]:
        return [t for t in tokens if t in self.codes and t not in self.seen]

    def check(self, shadow: Any, model: Any, msg: dict[str, Any]) -> None:
        from cardtable_host.commands.monitor import table_lines

        if shadow is not None:
            self.show(shadow.view(None))
        while self.raw:  # the link's lines up to this message's own (answers came between)
            line, queued = self.raw.pop(0)
            self.lines += 1
            try:
                obj = json.loads(line)
                tokens = [t for s in _strings(obj) for t in _SPLIT.split(s)]
            except ValueError:
                tokens = _SPLIT.split(line)
            bad = self.hidden_in(tokens)
            if bad:
                self.leaks.append("link: %s in %s" % (bad, line[:300]))
            if queued:
                break
        before = model.added
        model.feed(msg)
        said = [t for t, _ in list(model.log)[max(0, len(model.log) - (model.added - before)):]]
        for line in said + table_lines(model.view):
            tokens = [t for t in _SPLIT.split(line) if not (self.digits and t.isdigit())]
            bad = self.hidden_in(tokens)
            if bad:
                self.leaks.append("monitor: %s in %r" % (bad, line))
        for ev in msg.get("events") or ():
            if ev.get("ev") in ("hand", "over"):
                self.done = True


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_no_hidden_card_reaches_a_spectator(game_id: str) -> None:
    from cardtable_host.board.link import Link
    from cardtable_host.serve.model import Model
    from cardtable_host.sim.board import VirtualBoard
    from cardtable_host.sim.bots import Bots
    from cardtable_host.sim.table import VirtualTable

    board, seed = GAMES[game_id]
    w = Watcher(game_id)

    class Recording(Link):
        def _line(self, raw: bytes) -> None:
            before = self._queue.qsize()
            super()._line(raw)
            w.raw.append((raw.decode("utf-8", "replace"), self._queue.qsize() > before))

    model = Model()
    with VirtualBoard(board, game=game_id, period_ms=0) as vb:
        table = VirtualTable(vb, board, game_id)
        with Recording(vb.port, timeout=15) as link:
            bots = Bots(link, table, seed=seed, mistakes=False,
                        on_message=lambda msg, before: w.check(bots.shadow, model, msg))
            hello = link.hello()
            model.feed(hello)
            bots.new_game(RULES.get(game_id), hello=hello)
            bots.run(max_actions=3000, until=lambda: w.done)
            bots.settle(0.2)
            assert w.done, "the hand did not end"
            assert not bots.divergences, bots.divergences
    assert w.lines > 20
    assert not w.leaks, "\n".join(w.leaks[:10])
