"""Forty-Fives property tests (CPython only): any seed, any option mix, the invariants hold."""
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from cardtable import games
from cardtable.cards import standard as std
from cardtable.rng import Random

OPTIONS = st.fixed_dictionaries({
    "kitty": st.sampled_from(["bidder", "none"]),
    "min_keep": st.sampled_from([0, 1]),
    "highest_trump_bonus": st.booleans(),
    "renege": st.sampled_from(["led", "none"]),
    "may_trump_instead_of_following": st.booleans(),
    "lead": st.sampled_from(["bidder", "left_of_bidder"]),
    "all_pass": st.sampled_from(["stuck", "redeal"]),
    "dealer_hold": st.booleans(),
    "target": st.sampled_from([30, 60, 120, 125]),
    "thirty_for_sixty": st.booleans(),
    "min_bid_from_100": st.sampled_from([15, 20]),
    "defence_cap": st.sampled_from([0, 100]),
    "name_trump_first": st.booleans(),
    "rotate_dealer": st.booleans(),
})


def conserved(g):
    d = g.dump()
    seen = [c for h in d["hands"] for c in h] + [c for w in d["won"] for c in w]
    seen += [c for s, c in d["trick"]] + [c for x in d["discards"] for c in x]
    if d["kitty"] is not None and d["kitty_left"]:
        seen += d["kitty"]
    seen += d["stock"][len(d["stock"]) - d["stock_left"]:]
    assert sorted(seen) == sorted(std.fmt(c) for c in range(52))


def check_hand(g, ev, before, rules):
    played = [c for t in g.hand_tricks for s, c in t[1]]
    trump_played = any(g.is_trump(c) for c in played)
    took = ev["took"]
    assert sum(took) == (30 if trump_played and rules["highest_trump_bonus"] else 25)
    bt = ev["bidder"] % 2
    assert ev["made"] == (took[bt] >= ev["bid"])
    gain = [0, 0]
    if ev["made"]:
        gain[bt] = 60 if ev["bid"] == 30 and rules["thirty_for_sixty"] else took[bt]
    else:
        gain[bt] = -ev["bid"]
    dt = 1 - bt
    gain[dt] = took[dt]
    cap = rules["defence_cap"]
    if cap and before[dt] + gain[dt] > cap:
        gain[dt] = max(0, cap - before[dt])
    assert g.score == [before[0] + gain[0], before[1] + gain[1]]


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(1, 2**30), dealer=st.integers(0, 3), rules=OPTIONS,
       undo_at=st.integers(1, 120))
def test_any_game_keeps_the_invariants(seed, dealer, rules, undo_at):
    rng = Random(seed)
    g = games.load("fortyfives", seats=4, dealer=dealer, rules=rules)
    before = [0, 0]
    dealers = []
    while not g.over and len(g.history) < 3000:
        a = g.bot_action(rng)
        if len(g.history) == undo_at:
            state = json.dumps(g.dump())
            g.apply(a)
            assert g.undo() == a
            assert json.dumps(g.dump()) == state
        if a[1] == "deal":
            dealers.append(g.dealer)
        events = g.apply(a)
        if a[1] == "discard" and g.phase == "play":
            conserved(g)
            assert g.held == [5, 5, 5, 5]
            assert g.turn == ((g.bidder + (rules["lead"] == "left_of_bidder")) % 4,)
        for e in events:
            if e["ev"] == "hand":
                conserved(g)
                check_hand(g, e, before, rules)
                before = list(g.score)
        spectator = json.dumps(g.view(None))
        for h in g.hands:
            for c in h:
                assert '"%s"' % std.fmt(c) not in spectator
    # (with a defence cap and no bonus, random bots may need very long to finish)
    if g.over:
        bt = g.results[-1]["bidder"] % 2
        target = rules["target"]
        assert g.score[g.winner] >= target
        assert g.winner == bt or g.score[bt] < target
    else:
        assert max(g.score) < rules["target"]
    if rules["rotate_dealer"]:
        assert all(dealers[i + 1] == (dealers[i] + 1) % 4 for i in range(len(dealers) - 1))
    else:
        assert set(dealers) == {dealer}
    # the same game with no hand seen, and unseen discards, is accepted play by play
    u = games.load("fortyfives", seats=4, dealer=dealer, rules=rules)
    for a in g.history:
        if a[1] == "deal":
            a = (None, "deal", {})
        elif a[1] == "discard":
            a = (a[0], "discard", (), len(a[2]))
        assert u.check(a) is None, a
        u.apply(a)
    assert u.scores == g.scores and u.trick_winners == g.trick_winners and u.revokes == []
    assert u.winner == g.winner
