"""Which board and layout a simulated game plays on: the shipped board with a layout for the
game, the kind of virtual board (WebAssembly or the emulated RP2040), the layout, the rules
and the seed."""
from __future__ import annotations

import json
from typing import Any

from cardtable import games

RP2 = "rp2"  # --board rp2: the emulated RP2040 (host/cardtable_host/sim/rp2board.py)
IDLE_PERIOD_MS = 2  # the board's loop while people play or watch: light on the CPU


def parse_rules(items: list[str]) -> dict[str, Any]:
    """--rule NAME=VALUE items as a dict (VALUE parsed as JSON, else taken as text)."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ValueError("--rule %r: expected NAME=VALUE" % item)
        try:
            out[name] = json.loads(value)
        except ValueError:
            out[name] = value
    return out


def board_for(game: str) -> str:
    """The board a game is simulated on by default: of the shipped boards (firmware/boards) with
    a layout for it, the one with the fewest seats (the first by name among equals, so the I2C
    default build before SPI)."""
    from cardtable_host.sim.table import _boards_dir
    from cardtable.table import config

    d = str(_boards_dir())
    fits = []
    for name in config.board_names(d):
        b = config.load_board(name, d)
        if b.layouts_for(game):
            fits.append((b.seat_count, name))
    if not fits:
        raise ValueError("no shipped board has a layout for %s" % game)
    return min(fits)[1]


def board_kind(arg: str | None, game: str) -> tuple[str, str]:
    """--board's value as (virtual board kind, board config): 'rp2', 'rp2:NAME' or a config NAME."""
    if arg == RP2 or (arg or "").startswith(RP2 + ":"):
        return RP2, (arg or "")[len(RP2) + 1:] or board_for(game)
    return "wasm", arg or board_for(game)


def pick_layout(game: str, board_name: str, layout: str | None, seats: int | None,
                deal_pad: bool = False) -> str:
    """The layout of board_name that plays game (with that many seats; with a deal pad, or
    without one unless deal_pad)."""
    from cardtable_host.sim.table import _boards_dir
    from cardtable.table import config

    b = config.load_board(board_name, str(_boards_dir()))
    if layout:
        lay = b.layout(layout)
        if lay.game != game:
            raise ValueError("layout %r of %s plays %s, not %s" % (layout, board_name, lay.game, game))
        if deal_pad and not lay.zone("deal"):
            raise ValueError("layout %r of %s has no deal pad (a zone with the role 'deal')"
                             % (layout, board_name))
        return layout
    names = b.layouts_for(game)
    if seats is not None:
        names = [n for n in names if len(b.layouts[n].seats) == seats]
    if deal_pad:
        names = [n for n in names if b.layouts[n].zone("deal")]
    else:  # a layout without a deal pad if there is one (Forty-Fives then deals itself)
        names = [n for n in names if not b.layouts[n].zone("deal")] or names
    if not names:
        raise ValueError("board %s has no layout for %s%s%s" % (
            board_name, game, "" if seats is None else " with %d seats" % seats,
            " with a deal pad" if deal_pad else ""))
    return game if game in names else names[0]


def prepare(game: str, board: str | None, layout: str | None, seats: int | None,
            rule_items: list[str], seed: int | None,
            deal_pad: bool = False) -> tuple[str, str, dict[str, Any], int]:
    """(board, layout, rules, seed) for simulating game; ValueError or OSError if it cannot be."""
    board_name = board or board_for(game)
    rules = parse_rules(rule_items)
    chosen = pick_layout(game, board_name, layout, seats, deal_pad)
    cls = games.game_class(game)
    cls.check_rules(rules)
    # The game's SIM_SEED: a bot game that ends at a watchable length (every action the board
    # keeps for undo takes heap).
    return board_name, chosen, rules, seed if seed is not None else getattr(cls, "SIM_SEED", 1)
