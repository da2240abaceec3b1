"""Nonesuch: seeded random play-outs for 3 and 4 players, with the invariants checked after every
action, and the same games replayed with the hands unseen."""
import json

from nonesuch_util import new
from support import MICROPYTHON, stepped

from cardtable.cards import decktet as dk
from cardtable.games.nonesuch import Nonesuch
from cardtable.games.trick import OUT, PLAYED, UP
from cardtable.rng import Random

# Options that change the play but not the scoring, for every other game.
VARIANT = {"trump_broken_by": "ruff", "trump_lead_suit": "trump", "reveal_before_bids": True}


# -- random play-outs ----------------------------------------------------------------------
def bot(g, rng):
    """A random legal action; bids are mostly 'some' so that games reach the target."""
    if g.dealing:
        return g.random_deal(rng)
    seat = g.turn[rng.below(len(g.turn))]
    acts = g.legal(seat)
    if g.phase == "bid":
        x = rng.below(10)
        return acts[0] if x < 7 else acts[1] if x < 9 else acts[2]
    return acts[rng.below(len(acts))]


def expected_points(n, bid, taken):
    """The seed's scoring, written out again: some / most (6 or 5) / none (12 or 9)."""
    tricks = 36 // n
    half = 6 if n == 3 else 5
    if bid == "some":
        return taken
    if bid == "most":
        return 2 * taken if taken >= half else taken - half
    return tricks if taken == 0 else -taken


def expected_winner(plays, named, trump):
    """Highest trump, else highest card of the named suit; asserts there is no tie."""
    trumps = [(dk.rank(c), s) for s, c in plays if trump >= 0 and dk.has_suit(c, trump)]
    pool = trumps or [(dk.rank(c), s) for s, c in plays if dk.has_suit(c, named)]
    pool.sort()
    assert len(pool) == 1 or pool[-1][0] != pool[-2][0]
    return pool[-1][1]


def check_state(g):
    """Cards conserved, counts consistent, views free of hidden cards."""
    if not g.hand_no:
        return
    n = g.seats
    seen = []
    for s in range(n):
        assert g.held[s] == len(g.hands[s])
        for c in g.hands[s]:
            assert g.where[c] == s + 1
        seen.extend(g.hands[s])
    for s, c in g.trick:
        assert g.where[c] == PLAYED
        seen.append(c)
    for s in range(n):
        seen.extend(g.won[s])
        assert len(g.won[s]) == n * g.tricks_taken()[s]
    seen.extend(c for c in Nonesuch.CARDS if g.where[c] in (UP, OUT))
    assert sorted(seen) == list(Nonesuch.CARDS)
    assert sum(g.tricks_taken()) == len(g.hand_tricks) <= g.tricks_per_hand
    hidden = [['"%s"' % g.card_code(c) for c in h] for h in g.hands]
    text = json.dumps(g.view(None))
    for codes in hidden:
        for code in codes:
            assert code not in text
    for seat in range(n):
        text = json.dumps(g.view(seat))
        for other in range(n):
            if other != seat:
                for code in hidden[other]:
                    assert code not in text


# Undo replays the whole game; the WebAssembly MicroPython collects garbage only between steps,
# so there the undo check stays in the first few hands (about 250 bytes per replayed action).
UNDO_LIMIT = 150 if MICROPYTHON else 100000


def playout(n, seed, rules=None, undo_every=25):
    """Play one game with the bot, checking every rule invariant; yields after each action."""
    g = new(n, dealer=seed % n, rules=rules)
    rng = Random(seed)
    named = -1
    dealers = []
    last_scores = [0] * n
    while not g.over:
        action = bot(g, rng)
        if action[1] == "play" and not g.trick:
            named = action[3] if action[3] is not None else dk.suits(action[2])[0]
        before = g.dump() if rng.below(undo_every) == 0 and len(g.history) < UNDO_LIMIT else None
        bids = list(g.bids)
        trump = g.trump
        evs = g.apply(action)
        if before is not None:
            assert g.undo() == action and g.dump() == before
            evs = g.apply(action)
        for e in evs:
            if e["ev"] == "deal":
                dealers.append(e["dealer"])
            elif e["ev"] == "trick":
                leader, plays, winner = g.hand_tricks[-1]
                assert winner == e["seat"] == expected_winner(plays, named, trump)
            elif e["ev"] == "hand":
                assert sum(e["tricks"]) == 36 // n
                for s in range(n):
                    assert e["points"][s] == expected_points(n, bids[s], e["tricks"][s])
                    assert e["scores"][s] == last_scores[s] + e["points"][s]
                last_scores = list(e["scores"])
            assert e["ev"] != "revoke"
        check_state(g)
        yield g
    assert dealers == [(seed + i) % n for i in range(len(dealers))]
    top = max(g.scores)
    assert top >= 31 and g.scores.count(top) == 1 and g.winner == g.scores.index(top)
    assert len(g.trick_winners) == len(dealers) * (36 // n)


def replay_hidden(g, known_seat=None):
    """Replay g's history with every hand (but known_seat's) unseen: all of it must pass."""
    n = 0
    h = new(g.seats, g.first_dealer, g.rules)
    for action in g.history:
        if action[1] == "deal":
            piles = dict(action[2])
            hands = piles["hands"]
            piles["hands"] = [hands[s] if s == known_seat else None for s in range(g.seats)]
            action = (None, "deal", piles)
        assert h.check(action) is None, (action, h.check(action))
        h.apply(action)
        n += 1
        if n % 20 == 0:
            yield
    assert h.scores == g.scores and h.trick_winners == g.trick_winners
    assert h.over and h.winner == g.winner and h.revokes == []


def _playouts(n, seeds):
    for seed in seeds:
        g = None
        for g in playout(n, seed, VARIANT if seed % 2 else None):
            yield
        yield from replay_hidden(g)
        yield from replay_hidden(g, known_seat=seed % n)


@stepped
def test_random_playouts_three_players():
    yield from _playouts(3, range(1, 11))


@stepped
def test_random_playouts_four_players():
    yield from _playouts(4, range(11, 21))


@stepped
def test_the_games_own_bots_finish_a_game():
    # `cardtable sim nonesuch` and the demo play with the game's own bot_action: with random
    # bids seed 5 ran 930 hands without anyone reaching 31 (and out of the table's heap).
    for n, seed in ((4, 5), (3, 3), (4, 3)):
        g = Nonesuch(seats=n)
        rng = Random(seed)
        hands = 0
        while not g.over:
            for e in g.apply(g.bot_action(rng)):
                hands += e["ev"] == "hand"
            assert hands <= 60, "seed %d, %d seats: no winner after 60 hands %s" % (seed, n, g.scores)
            yield
        assert max(g.scores) >= 31 and g.winner == g.scores.index(max(g.scores))
