"""Teaching mode: the cards a seat's page marks are exactly legal()'s, and every other card's
reason is check()'s, for every game at seeded random states (both runtimes)."""
from cardtable import games
from cardtable.games import teach
from cardtable.rng import Random

from support import scaled, stepped

STATES = 60  # states judged per game and seed


def judge(g, seat, got):
    """Compare teach.marks for seat with legal() and check(), asked here one by one."""
    hand = g.view(seat).get("hand")
    verb = teach.card_verb(g)
    if hand is None or verb is None:
        assert got is None, (g.ID, seat, got)
        return 0, 0
    may = [a[2] for a in g.legal(seat) if a[1] == verb]
    assert [m[0] for m in got] == [c for c in hand if c is not None], (g.ID, got, hand)
    marked = unmarked = 0
    for code, why in got:
        c = g.deck.parse(code)
        if c in may:
            assert why is None, (g.ID, seat, code, why)
            marked += 1
        else:
            action = (seat, verb, c) + (None,) * (len(g.VERBS[verb]) - 1)
            reason = g.check(action)
            # the game agrees: legal() leaves it out because check() refuses it, in these words
            assert isinstance(reason, str) and reason, (g.ID, seat, code, reason)
            assert why == reason, (g.ID, seat, code, why, reason)
            unmarked += 1
    return marked, unmarked


def walk(name, seed, total):
    """Play a seeded random game of name a while, judging every seat's marks at each state
    (a generator: MicroPython collects its garbage at each yield)."""
    cls = games.game_class(name)
    rng = Random(seed)
    g = games.load(name, seats=getattr(cls, "DEMO_SEATS", cls.SEATS[0]))
    for _ in range(scaled(STATES)):
        if g.over:
            break
        for seat in range(g.seats):
            m, u = judge(g, seat, teach.marks(g, seat))
            total[0] += m
            total[1] += u
            yield
        g.apply(g.bot_action(rng))
        yield
    g = None
    yield


@stepped
def test_marks_are_legal_and_reasons_are_check_for_every_game():
    seen = {}
    for name in games.GAMES:
        total = [0, 0]
        for seed in (1, 7, 23):
            yield from walk(name, seed, total)
        seen[name] = total + [teach.card_verb(games.game_class(name))]
        games.unload(name)  # one game's rules in memory at a time, as on a Pico
        yield
    # every game with a hand the table knows had cards both marked and refused, with reasons
    for name in games.GAMES:
        if seen[name][2] is not None and name != "nerts":  # (a Nerts player holds no hand)
            assert seen[name][0] > 0 and seen[name][1] > 0, (name, seen[name])


@stepped
def test_a_follow_rule_reason_is_the_games_words():
    # Forty-Fives, known hands: a seat that holds the led suit is told to follow it
    rng = Random(5)
    g = games.load("fortyfives")
    found = None
    for _ in range(400):
        if g.over:
            break
        if g.phase == "play" and g.trick:
            seat = g.turn[0]
            for code, why in teach.marks(g, seat) or []:
                if why and why.startswith("must follow"):
                    found = why
        if found:
            break
        g.apply(g.bot_action(rng))
        yield
    assert found and found.startswith("must follow "), found
