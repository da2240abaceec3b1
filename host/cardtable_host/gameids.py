"""Game names as people type them: ids, common aliases, and a "did you mean" for near misses."""
from __future__ import annotations

import difflib

from cardtable import games


def resolve(name: str) -> str:
    """The game id for name ('45s' -> 'fortyfives'); ValueError with a suggestion if unknown."""
    gid = games.game_id(name)
    if gid in games.GAMES:
        return gid
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    names = list(games.GAMES) + list(games.ALIASES)
    near = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
    hint = " (did you mean %s?)" % games.game_id(near[0]) if near else ""
    raise ValueError("unknown game %r%s: the games are %s"
                     % (name, hint, ", ".join(sorted(games.GAMES))))
