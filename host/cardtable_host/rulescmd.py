"""`cardtable rules GAME`: a game's rules as refereed, its options, verbs and deal piles."""
from __future__ import annotations

import argparse
import json
import sys

from cardtable import games

HELP = "show a game's rules, rule options (with defaults) and record verbs"
DESCRIPTION = """\
Prints the rules module's own summary: how the table referees the game, the table of rule
options (seed-literal default and the standard variant), the verbs of its records and the
piles of its deal. Without a game, lists the games.

example:  cardtable rules fortyfives
          cardtable rules nexus --json
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", nargs="?", help="game id")
    p.add_argument("--json", action="store_true", help="options, verbs and piles as JSON")


def run(args: argparse.Namespace) -> int:
    if not args.game:
        for name in games.GAMES:
            print(name)
        return 0
    try:
        cls = games.game_class(args.game)
    except (ValueError, ImportError) as e:
        print("cardtable rules: %s" % e, file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"game": cls.ID, "seats": list(cls.SEATS), "options": cls.OPTIONS,
                          "verbs": {k: list(v) for k, v in cls.VERBS.items()},
                          "piles": list(cls.PILES)}, indent=2))
    else:
        print(sys.modules[cls.__module__].__doc__)
    return 0
