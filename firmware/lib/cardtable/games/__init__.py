"""The games: a registry from game id to rules module, and ``load`` to start one.

Every game has the same shape (``games/base.py``): ``turn``, ``check``, ``apply``, ``legal``,
``undo``, ``scores``, ``over``, ``winner``, ``view``.
"""
from cardtable.games.base import IllegalAction  # noqa: F401

# game id -> (module, class name); modules are imported only when a game is loaded.
GAMES = {
    "nexus": ("cardtable.games.nexus", "Nexus"),
    "fairies": ("cardtable.games.fairies", "Fairies"),
    "nonesuch": ("cardtable.games.nonesuch", "Nonesuch"),
    "nerts": ("cardtable.games.nerts", "Nerts"),
    "california-jacks": ("cardtable.games.caljacks", "CaliforniaJacks"),
    "fortyfives": ("cardtable.games.fortyfives", "FortyFives"),
}

# other names players use for a game -> its id
ALIASES = {
    "45s": "fortyfives", "45": "fortyfives", "forty-fives": "fortyfives",
    "forty-five": "fortyfives", "fortyfive": "fortyfives", "auction-45s": "fortyfives",
    "cal-jacks": "california-jacks", "caljacks": "california-jacks",
    "california-jack": "california-jacks", "california": "california-jacks",
    "nexus-fairies": "fairies", "fairy": "fairies", "none-such": "nonesuch", "nertz": "nerts",
}


def game_id(name):
    """The game id for a name or a common alias ('45s', 'Cal Jacks'); the name itself if unknown."""
    if not isinstance(name, str):
        return name
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    return key if key in GAMES else ALIASES.get(key, name)


def game_class(name):
    """The rules class of a game id (or alias); raises ValueError naming the games there are."""
    try:
        modname, clsname = GAMES[game_id(name)]
    except KeyError:
        raise ValueError("unknown game %r: the games are %s" % (name, ", ".join(sorted(GAMES))))
    mod = __import__(modname, None, None, [clsname])
    return getattr(mod, clsname)


def unload(name):
    """Forget a game's rules module so its memory can be reclaimed (one game at a time on a Pico)."""
    import sys

    modname = GAMES[name][0]
    if modname in sys.modules:
        del sys.modules[modname]
    pkg = sys.modules[__name__]
    short = modname.rsplit(".", 1)[1]
    if hasattr(pkg, short):
        delattr(pkg, short)


def available():
    """Ids of the games whose rules module is present, in registry order."""
    out = []
    for name in GAMES:
        try:
            game_class(name)
        except ImportError:
            continue
        unload(name)
        out.append(name)
    return out


def load(name, seats=None, dealer=0, rules=None):
    """A new game state: ``load("fortyfives", seats=4, dealer=0, rules={...})``."""
    cls = game_class(name)
    return cls(cls.SEATS[0] if seats is None else seats, dealer, rules)
