"""Nonesuch property tests (CPython only): any seed, seats, up card and option mix, one hand."""
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from cardtable import games
from cardtable.cards import decktet as dk
from cardtable.games.nonesuch import Nonesuch
from cardtable.games.trick import OUT
from cardtable.rng import Random

OPTIONS = st.fixed_dictionaries({
    "trump_broken_by": st.sampled_from(["any", "ruff"]),
    "trump_lead_suit": st.sampled_from(["either", "trump"]),
    "reveal_before_bids": st.booleans(),
    "most_penalty": st.sampled_from(["short", "taken"]),
    "some_zero_points": st.integers(-2, 0),
})


def _deal(rng, seats, up):
    """A random deal with the given up card."""
    rest = [c for c in Nonesuch.CARDS if c != up]
    rng.shuffle(rest)
    k = 36 // seats
    return (None, "deal", {"hands": [rest[i * k:(i + 1) * k] for i in range(seats)], "up": [up]})


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(1, 2**30), seats=st.integers(3, 4), up=st.integers(0, 36),
       rules=OPTIONS, undo_at=st.integers(1, 48), hidden=st.sets(st.integers(0, 3)))
def test_any_hand_conserves_cards_scores_by_its_bids_and_replays_unseen(seed, seats, up, rules,
                                                                         undo_at, hidden):
    rng = Random(seed)
    g = games.load("nonesuch", seats=seats, dealer=seed % seats, rules=rules)
    deal = _deal(rng, seats, up)
    g.apply(deal)
    events = []
    while not g.dealing:
        a = g.bot_action(rng)
        if len(g.history) == undo_at:
            before = g.dump()
            g.apply(a)
            assert g.undo() == a and g.dump() == before
        events.extend(g.apply(a))
        spectator = json.dumps(g.view(None))
        for h in g.hands:
            for c in h:
                assert '"%s"' % dk.fmt(c) not in spectator
    # every card once: the tricks, plus the Excuse discarded (or left up)
    taken = sorted(sum(g.won, []))
    assert taken == sorted(c for c in Nonesuch.CARDS if c != dk.EXCUSE)
    hand = [e for e in events if e["ev"] == "hand"][0]
    assert sum(hand["tricks"]) == 36 // seats
    assert hand["points"] == [g.points_for(g.bids[s], hand["tricks"][s]) for s in range(seats)]
    assert g.scores == hand["points"]
    if up == dk.EXCUSE:
        assert g.trump == -1 and g.excuse_seat == -1
    else:
        # trump is a suit of the up card, which the Excuse holder took and played
        assert dk.has_suit(up, g.trump) and up in taken and g.where[dk.EXCUSE] == OUT
    # the same hand with the hidden seats unseen is accepted play by play, with the same result
    u = games.load("nonesuch", seats=seats, dealer=seed % seats, rules=rules)
    piles = {"up": [up], "hands": [None if s in hidden else h
                                    for s, h in enumerate(deal[2]["hands"])]}
    u.apply((None, "deal", piles))
    for a in g.history[1:]:
        assert u.check(a) is None, a
        u.apply(a)
    assert u.scores == g.scores and u.trick_winners == g.trick_winners and u.revokes == []
