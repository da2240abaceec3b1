"""The games: a registry from game id to rules module, and ``load`` to start one."""
# Every game has the same shape (``games/base.py``): ``turn``, ``check``, ``apply``, ``legal``,
# ``undo``, ``scores``, ``over``, ``winner``, ``view``. (One docstring line: MicroPython keeps
# docstrings of a .py module in the heap.) The rules' IllegalAction is in games/base.py: the
# registry imports nothing, so a board file is checked without loading the rules.

# game id -> (module, class name, table facts). The facts are what a board file is checked
# against without importing every game; each game class reads its seats here. One string per
# game ("a tuple per fact" keeps ~1 KB more in the Pico's heap): "seats|zone roles|button
# meanings|per-seat button verbs|encoder verbs|deal pad", lists comma-separated; a zone role is
# "role*" (one zone per seat), "role+" (one or more) or "role" (exactly one); "nerts" as a
# per-seat verb makes buttons "nerts 0", "nerts 1", ...; "say" (the trick games: a seat's button
# asks the host to say that seat's hand and the trick, table/inputs.py); "deal" if a deal pad
# may read the deal.
# table/configcheck.py reads them. Modules are imported only when a game is loaded.
GAMES = {
    "nexus": ("cardtable.games.nexus", "Nexus", "2|play*,indicator||say||deal"),
    "fairies": ("cardtable.games.fairies", "Fairies", "2|nexus,sow,parade*|at up,at down||at|deal"),
    "nonesuch": ("cardtable.games.nonesuch", "Nonesuch", "3-4|play*,up|bid some,bid most,bid none,"
                 "suit M,suit S,suit W,suit L,suit Y,suit K|say||deal"),
    "nerts": ("cardtable.games.nerts", "Nerts", "2-8|foundation+,left*||nerts||"),
    "california-jacks": ("cardtable.games.caljacks", "CaliforniaJacks", "2|play*,up||say||deal"),
    "fortyfives": ("cardtable.games.fortyfives", "FortyFives", "4|play*,kitty|bid 15,bid 20,"
                   "bid 25,bid 30,pass,trump C,trump D,trump H,trump S,agree 0,agree 1,"
                   "dispute 0,dispute 1|say||deal"),
}

# other names players use for a game -> its id
ALIASES = {
    "45s": "fortyfives", "45": "fortyfives", "forty-fives": "fortyfives",
    "forty-five": "fortyfives", "fortyfive": "fortyfives", "auction-45s": "fortyfives",
    "cal-jacks": "california-jacks", "caljacks": "california-jacks",
    "california-jack": "california-jacks", "california": "california-jacks",
    "nexus-fairies": "fairies", "fairy": "fairies", "none-such": "nonesuch", "nertz": "nerts",
}


def seat_range(name):
    """(fewest, most) players of a game, from its registry entry (its class's SEATS)."""
    lo, _, hi = GAMES[name][2].split("|", 1)[0].partition("-")
    return int(lo), int(hi or lo)


def game_id(name):
    """The game id for a name or a common alias ('45s', 'Cal Jacks'); the name itself if unknown."""
    if not isinstance(name, str):
        return name
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    return key if key in GAMES else ALIASES.get(key, name)


def game_class(name):
    """The rules class of a game id (or alias); raises ValueError naming the games there are."""
    try:
        modname, clsname = GAMES[game_id(name)][:2]
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
