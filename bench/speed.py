"""CPython side: per-action cost of check+apply, and seeded full games per second."""

from __future__ import annotations

import json
import time
from typing import Any

from benchlib import summary


def per_action(name: str, seats: int, seeds: tuple[int, ...], max_actions: int,
               repeats: int = 3) -> dict[str, Any]:
    """Time check() and apply() of every action of seeded random games (the same actions as
    on MicroPython: the seeded xorshift bots choose identically on both runtimes).

    The games are played `repeats` times and each action keeps its least time, so a slice
    of time taken by another process does not count. Also measured: the state report the
    controller sends after each accepted action (json of the spectator view) and the
    journal line each action costs on flash.
    """
    from cardtable import games, record
    from cardtable.rng import Random

    clock = time.perf_counter_ns
    tick = _clock_read_ns(clock)  # taken off every interval

    best: list[list[float]] = []  # per action: check, apply, view (us)
    journal: list[int] = []
    lengths: list[int] = []
    for rep in range(repeats):
        k = 0
        for seed in seeds:
            g = games.load(name, seats=seats)
            rng = Random(seed)
            n = 0
            while not g.over and n < max_actions:
                a = g.bot_action(rng)
                t0 = clock()
                reason = g.check(a)
                t1 = clock()
                g.apply(a)
                t2 = clock()
                json.dumps(g.view(None))
                t3 = clock()
                if reason:
                    raise AssertionError(f"{name}: the bot chose an illegal action {a!r}: {reason}")
                row = [max(t1 - t0 - tick, 0) / 1000, max(t2 - t1 - tick, 0) / 1000,
                       max(t3 - t2 - tick, 0) / 1000]
                if rep == 0:
                    best.append(row)
                    journal.append(len(record.format_line(record.encode(g, a), n + 1)))
                else:
                    best[k] = [min(x, y) for x, y in zip(best[k], row)]
                n += 1
                k += 1
            if rep == 0:
                lengths.append(n)
    return _figures(seats, best, journal, lengths)


def _figures(seats: int, best: list[list[float]], journal: list[int], lengths: list[int]) -> dict[str, Any]:
    """per_action's figures from the actions' least times, journal lines and game lengths."""
    return {
        "seats": seats,
        "actions": len(best),
        "check_us": summary([r[0] for r in best], 2),
        "apply_us": summary([r[1] for r in best], 2),
        "action_us": summary([r[0] + r[1] for r in best], 2),
        "view_us": summary([r[2] for r in best], 2),
        "journal_line_bytes": summary(journal, 0),
        "journal_game_bytes": max(sum(journal[i:i + k]) for i, k in _spans(lengths)),
        "game_lengths": lengths,
    }


def _clock_read_ns(clock: Any) -> int:
    """What one read of the clock costs (ns, the median of 1000)."""
    reads = []
    for _ in range(1000):
        a = clock()
        b = clock()
        reads.append(b - a)
    reads.sort()
    return reads[len(reads) // 2]


def _spans(lengths: list[int]) -> list[tuple[int, int]]:
    out = []
    i = 0
    for k in lengths:
        out.append((i, k))
        i += k
    return out


def throughput(name: str, seats: int, seconds: float, max_actions: int) -> dict[str, Any]:
    """Seeded random full games (deal, bots' legal moves, every check and apply) per CPU second.

    Process time, not wall time, so other load on the machine does not count. A game that
    reaches max_actions without ending is stopped there and counted as `capped`.
    """
    from cardtable import games
    from cardtable.rng import Random

    t0 = time.process_time()
    n_games = actions = capped = 0
    seed = 1
    while True:
        g = games.load(name, seats=seats)
        rng = Random(seed)
        n = 0
        while not g.over and n < max_actions:
            g.apply(g.bot_action(rng))
            n += 1
        actions += n
        n_games += 1
        capped += 0 if g.over else 1
        seed += 1
        spent = time.process_time() - t0
        if spent >= seconds:
            break
    return {
        "seats": seats,
        "games": n_games,
        "capped": capped,
        "max_actions": max_actions,
        "cpu_s": round(spent, 3),
        "games_per_s": round(n_games / spent, 2),
        "actions_per_s": round(actions / spent),
        "mean_actions": round(actions / n_games, 1),
    }
