"""A whole tournament evening on one machine: the director's service and a reporter per table,
every round through the broker (used by `cardtable tournament demo` and the tests)."""
from __future__ import annotations

import threading
from typing import Any, Callable

from cardtable_host.tournament import mqttwire
from cardtable_host.tournament.broker import DIRECTOR, table_user
from cardtable_host.tournament.director import Director
from cardtable_host.errors import CardtableError
from cardtable_host.tournament.reporter import Reporter
from cardtable_host.tournament.tourney import Tournament

# hook(stage, round number, the evening): stage is "start", "during" (games under way) or "end"
Hook = Callable[[str, int, "Evening"], None]


class Evening:
    """The director and the tables of one tournament, connected to one broker."""

    def __init__(self, tour: Tournament, host: str, port: int, creds: dict[str, str],
                 seed: int = 1, pace: float = 0.0,
                 on_game: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.tour = tour
        self.seed = seed
        self.pace = pace
        self.on_game = on_game
        self.director = Director(tour, host, port, creds[DIRECTOR])
        self.tables = {n: Reporter(tour, n, host, port, creds[table_user(n)], pace=pace)
                       for n in range(1, tour.state["tables"] + 1)}

    def start(self) -> "Evening":
        self.director.start()
        for r in self.tables.values():
            r.start()
        return self

    def stop(self) -> None:
        for r in self.tables.values():
            r.stop()
        self.director.stop()

    def play_round(self, rnd: dict[str, Any], hook: Hook | None = None, timeout: float = 120.0) -> None:
        """Every game of a round, sitting by sitting, each table in its own thread."""
        n = rnd["round"]
        if hook:
            hook("start", n, self)
        sittings = sorted({g["sitting"] for g in rnd["games"]})
        for s in sittings:
            here = [g for g in rnd["games"] if g["sitting"] == s]
            errors: list[BaseException] = []

            def play(g: dict[str, Any]) -> None:
                try:
                    k = int(g["id"].rsplit("g", 1)[1])
                    p = self.tables[g["table"]].play(g["id"], self.seed * 1000 + n * 50 + k)
                    if self.on_game:
                        self.on_game(p)
                except BaseException as e:  # reported in the main thread
                    errors.append(e)

            threads = [threading.Thread(target=play, args=(g,), daemon=True) for g in here]
            for t in threads:
                t.start()
            if hook and s == sittings[0]:
                hook("during", n, self)
            for t in threads:
                t.join()
            if errors:
                raise errors[0]
            if hook and s == sittings[-1]:
                hook("end", n, self)
            ids = [g["id"] for g in here]
            if not mqttwire.wait_for(lambda: all(self.tour.result_recorded(i) for i in ids), timeout, 0.05):
                missing = [i for i in ids if not self.tour.result_recorded(i)]
                raise CardtableError("the director did not get %s within %.0f s" % (", ".join(missing), timeout))

    def run(self, hook: Hook | None = None) -> dict[str, Any]:
        """Every round; the director's final snapshot."""
        for rnd in self.tour.state["rounds"]:
            self.play_round(rnd, hook)
        mqttwire.wait_for(lambda: all(r.pending() == 0 for r in self.tables.values()), 10)
        # the final standings once the referee has read every record (a few seconds behind)
        mqttwire.wait_for(lambda: not self.director.refereeing, 60, 0.05)
        with self.director.lock:
            return self.director.snapshot()
