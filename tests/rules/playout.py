"""Seeded random play-outs and the invariants every game shares (both runtimes).

MicroPython's WebAssembly port collects garbage only between top-level calls, so play-outs are
generators that yield after every action; tests use them from ``stepped`` tests with
``g = yield from playing(...)``.
"""
import json

from cardtable import games, record, referee
from cardtable.rng import Random


def playing(name, seed, seats=None, rules=None, max_actions=20000, each=None):
    """Play a seeded game with random bots, yielding after each action; returns the game."""
    g = games.load(name, seats=seats, rules=rules)
    rng = Random(seed)
    n = 0
    while not g.over and n < max_actions:
        a = g.bot_action(rng)
        ev = g.apply(a)
        n += 1
        if each is not None:
            each(g, a, ev)
        yield
    return g


def play(name, seed, seats=None, rules=None, max_actions=20000, each=None):
    """The same play-out in one call (short games only on MicroPython)."""
    it = playing(name, seed, seats, rules, max_actions, each)
    while True:
        try:
            next(it)
        except StopIteration as stop:
            return stop.value


def refereeing(lines):
    """Referee record lines, yielding after each action; returns the verdict dict."""
    it = record.reading(lines)
    game = next(it)
    v = referee.Verdict(game)
    for step in referee.replay(game, it):
        v.add(*step)
        yield
    return v.result()


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
