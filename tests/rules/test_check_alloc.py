"""check() of a legal card play allocates nothing on MicroPython (issue 35): the table checks
every card a player lays, and garbage there brings the collector's pause closer to a verdict."""
import gc

from support import MICROPYTHON, stepped

from cardtable import games
from cardtable.rng import Random

# the verbs that lay one card, per game: what a player does most.
PLAYS = {"nexus": "play", "california-jacks": "play", "fortyfives": "play", "fairies": "sow",
         "nerts": "center", "nonesuch": "play"}


def allocated(fn, *args):
    """Bytes fn(*args) allocates (MicroPython: exact, nothing is collected inside one call)."""
    a = gc.mem_alloc()
    fn(*args)
    return gc.mem_alloc() - a


@stepped
def test_checking_a_legal_play_allocates_nothing():
    for name in PLAYS:
        g = games.load(name, seats=games.game_class(name).SEATS[0])
        rng = Random(3)
        checked = n = 0
        while not g.over and n < 200:
            a = g.bot_action(rng)
            if a[1] == PLAYS[name] and g.check(a) is None:
                checked += 1
                if MICROPYTHON:
                    got = allocated(g.check, a)
                    assert got == 0, "%s: check(%r) allocated %d bytes" % (name, a, got)
            g.apply(a)
            n += 1
            yield
        assert checked, "%s: no legal %s in 200 actions" % (name, PLAYS[name])
        g = None
        games.unload(name)
        yield
