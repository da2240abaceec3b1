"""`cardtable demo`: seeded games played out by bots in the terminal, move by move."""
from __future__ import annotations

import argparse
import time

from cardtable import games
from cardtable.rng import Random

from cardtable_host.errors import UsageError
from cardtable_host.gameids import resolve
from cardtable_host.narrate import ScoreSheet, action_text, event_text
from cardtable_host.term import paint, style_cards, use_colour

DESCRIPTION = """\
Bots play seeded games on the same rules code the table runs. Now and then a bot tries
an illegal card, so you see the referee reject it with its reason. The same seed gives
the same game on every machine (and on MicroPython).

Exit status: 0 the games were played, 2 an unknown game or a number of seats the game is
not played with, or a negative --delay; 130 Ctrl-C.

example:  cardtable demo                    # every game, one after another
          cardtable demo fortyfives --seed 7 --delay 0.2
"""

MAX_ACTIONS = 5000


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", nargs="*", help="game ids (default: every game)")
    p.add_argument("--seed", type=int, help="shuffle seed (default: a seed per game)")
    p.add_argument("--seats", type=int, help="number of players (default: the game's usual)")
    p.add_argument("--delay", type=float, default=None,
                   help="seconds between moves (default 0.01 on a terminal, else 0)")
    p.add_argument("--quiet", "-q", action="store_true", help="only hands and results")


def run(args: argparse.Namespace) -> int:
    names = args.game or games.available()
    if args.delay is not None and not args.delay >= 0:
        raise UsageError("--delay %g: the seconds between moves cannot be negative" % args.delay)
    if args.seats is not None and args.seats < 1:
        raise UsageError("--seats %d: a game needs at least one player" % args.seats)
    delay = args.delay if args.delay is not None else (0.01 if use_colour() else 0.0)
    for name in names:
        try:
            name = resolve(name)
            cls = games.game_class(name)  # its DEMO_SEED ends at a watchable length
            seats = args.seats or getattr(cls, "DEMO_SEATS", None)
            games.load(name, seats=seats)
        except (ValueError, ImportError) as e:
            raise UsageError(str(e)) from None
        seed = args.seed if args.seed is not None else getattr(cls, "DEMO_SEED", 1)
        play_one(name, seed, delay, args.quiet, seats)
    return 0


def _mistake(g, rng: Random):
    """Now and then, an illegal card a careless player might put down (trick games)."""
    hands = getattr(g, "hands", None)
    if hands is None or "play" not in g.VERBS or g.phase != "play" or rng.below(8):
        return None
    seat = g.turn[0]
    legal = g.legal(seat)
    pad = (None,) * (len(g.VERBS["play"]) - 1)      # optional fields, e.g. Nonesuch's named suit
    legal_cards = set(a[2] for a in legal)
    wrong = [(seat, "play", c) + pad for c in hands[seat] if c not in legal_cards]
    return wrong[rng.below(len(wrong))] if wrong else None


def play_one(name: str, seed: int, delay: float, quiet: bool, seats: int | None = None) -> None:
    """Play one seeded game to the end, printing each move and verdict, and a score sheet per hand."""
    g = games.load(name, seats=seats)
    colour = use_colour()
    style_cards(g, colour)
    sheet = ScoreSheet(g)
    rng = Random(seed)
    print(paint("== %s, %d players, seed %d ==" % (name, g.seats, seed), "bold"))
    n = 0
    while not g.over and n < MAX_ACTIONS:
        n += 1
        wrong = _mistake(g, rng)
        if wrong is not None:
            reason = g.check(wrong)
            if reason and not quiet:
                print("  %s  %s" % (action_text(g, wrong), paint("REJECTED: " + reason, "red")))
        action = g.bot_action(rng)
        text = action_text(g, action)
        events = g.apply(action)
        if not quiet and action[1] != "deal":
            print("  " + text)
        for ev in events:
            msg = event_text(ev, g)
            if msg and (not quiet or ev.get("ev") in ("hand", "over", "deal")):
                colour_of = "yellow" if ev.get("ev") in ("hand", "over") else "cyan"
                print("    " + paint(msg, colour_of))
            if sheet.add(ev):
                print(_indent(sheet.render(colour)))
        if delay:
            time.sleep(delay)
    if not g.over:
        print(paint("(stopped after %d actions: %s)" % (n, g.score_words(g.scores)), "dim"))
    elif len(sheet.rows) > 1:
        print(paint("the score sheet:", "bold"))
        print(_indent(sheet.render(colour, last=None)))
    print()


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())
