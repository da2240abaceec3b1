"""Seeded random play-outs and the invariants every game shares (both runtimes)."""
import json

from cardtable import games
from cardtable.rng import Random


def play(name, seed, seats=None, rules=None, max_actions=20000, each=None):
    """Play a seeded game to its end with random bots; each(g, action, events) after every action."""
    g = games.load(name, seats=seats, rules=rules)
    rng = Random(seed)
    n = 0
    while not g.over and n < max_actions:
        a = g.bot_action(rng)
        ev = g.apply(a)
        n += 1
        if each is not None:
            each(g, a, ev)
    return g


def hidden_codes_absent(g, view, hidden):
    """True if no code of a hidden card appears in the JSON of a view."""
    text = json.dumps(view)
    for c in hidden:
        if '"%s"' % g.card_code(c) in text:
            return False
    return True


def check_undo(g, rng):
    """Apply a random action, undo it, and require the exact state back."""
    if g.over:
        return
    before = json.dumps(g.dump())
    a = g.bot_action(rng)
    g.apply(a)
    assert g.undo() == a
    assert json.dumps(g.dump()) == before, "undo did not restore the state after %r" % (a,)
