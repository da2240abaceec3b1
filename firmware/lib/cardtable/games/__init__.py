"""The games: a registry from game id to rules module, and ``load`` to start one.

Every game has the same shape (``games/base.py``): ``turn``, ``check``, ``apply``, ``legal``,
``undo``, ``scores``, ``over``, ``winner``, ``view``.
"""
from cardtable.games.base import IllegalAction  # noqa: F401

# How many zones a zone role takes on a table (registry entries below).
SEAT = 0  # one per seat: "play 2"
ONE = 1  # exactly one: "kitty"
MANY = 2  # one or more: "foundation"

# game id -> (module, class name, seats (fewest, most), zone roles ((role, how many), ...),
# button meanings, per-seat button verbs ("nerts 3" is seat 3's call), encoder verbs, deal pad
# (whether a deal pad may read the deal)): what a board file is checked against without
# importing every game; each class reads its seats here. Modules are imported only when loaded.
GAMES = {
    "nexus": ("cardtable.games.nexus", "Nexus", (2, 2), (("play", SEAT), ("indicator", ONE)),
              (), (), (), True),
    "fairies": ("cardtable.games.fairies", "Fairies", (2, 2),
                (("nexus", ONE), ("sow", ONE), ("parade", SEAT)), ("at up", "at down"), (),
                ("at",), True),
    "nonesuch": ("cardtable.games.nonesuch", "Nonesuch", (3, 4), (("play", SEAT), ("up", ONE)),
                 ("bid some", "bid most", "bid none",
                  "suit M", "suit S", "suit W", "suit L", "suit Y", "suit K"), (), (), True),
    "nerts": ("cardtable.games.nerts", "Nerts", (2, 8), (("foundation", MANY), ("left", SEAT)),
              (), ("nerts",), (), False),
    "california-jacks": ("cardtable.games.caljacks", "CaliforniaJacks", (2, 2),
                         (("play", SEAT), ("up", ONE)), (), (), (), True),
    "fortyfives": ("cardtable.games.fortyfives", "FortyFives", (4, 4),
                   (("play", SEAT), ("kitty", ONE)),
                   ("bid 15", "bid 20", "bid 25", "bid 30", "pass",
                    "trump C", "trump D", "trump H", "trump S"), (), (), True),
}
# the fields of an entry after module and class name
E_SEATS, E_ROLES, E_BUTTONS, E_SEAT_BUTTONS, E_ENCODERS, E_DEAL_PAD = 2, 3, 4, 5, 6, 7

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
