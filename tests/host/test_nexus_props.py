"""Nexus property tests (CPython only): any seed, any option mix, the invariants hold."""
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from cardtable import games
from cardtable.cards import standard as std
from cardtable.games.nexus import Nexus, honour
from cardtable.rng import Random

OPTIONS = st.fixed_dictionaries({
    "up2_hidden": st.booleans(),
    "round2_leader": st.sampled_from(["nondealer", "winner"]),
    "joker_bonus": st.integers(0, 6),
})


def _deal_with_jokers_up(rng, jokers):
    """A random deal whose indicators hold the given number of jokers (0, 1 or 2)."""
    rest = [c for c in Nexus.CARDS if c < std.LJ]
    rng.shuffle(rest)
    up = [std.LJ, std.BJ][:jokers] + rest[:2 - jokers]
    rest = rest[2 - jokers:] + [std.LJ, std.BJ][jokers:]
    rng.shuffle(rest)
    if jokers == 1 and rng.below(2):
        up.reverse()
    return (None, "deal", {"up": up, "kitty": rest[0:4], "hands": [rest[4:13], rest[13:22]],
                           "hands2": [rest[22:31], rest[31:40]]})


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(1, 2**30), dealer=st.integers(0, 1), rules=OPTIONS,
       jokers=st.integers(0, 2), undo_at=st.integers(1, 36))
def test_any_game_conserves_cards_and_scores_and_undoes_exactly(seed, dealer, rules, jokers,
                                                                undo_at):
    rng = Random(seed)
    g = games.load("nexus", seats=2, dealer=dealer, rules=rules)
    deal = _deal_with_jokers_up(rng, jokers)
    g.apply(deal)
    while not g.over:
        a = g.bot_action(rng)
        if len(g.history) == undo_at:
            before = g.dump()
            g.apply(a)
            g.undo()
            assert g.dump() == before
        g.apply(a)
        spectator = json.dumps(g.view(None))
        for c in g.hands[0] + g.hands[1]:
            assert '"%s"' % std.fmt(c) not in spectator
    assert sorted(g.won[0] + g.won[1]) == list(Nexus.CARDS)
    assert sum(g.scores) == 18 + rules["joker_bonus"] * jokers
    assert g.scores == [sum(1 for c in g.won[s] if honour(c)) + g.bonus[s] for s in (0, 1)]
    assert g.bonus[1 - dealer] == 0
    # the same game with nothing but the indicators seen is accepted play by play
    u = games.load("nexus", seats=2, dealer=dealer, rules=rules)
    u.apply((None, "deal", {"up": deal[2]["up"]}))
    for a in g.history[1:]:
        assert u.check(a) is None
        u.apply(a)
    assert u.scores == g.scores and u.trick_winners == g.trick_winners and u.revokes == []
