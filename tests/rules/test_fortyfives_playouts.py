"""Forty-Fives seeded random play-outs with invariants (the rules' own examples are in
test_fortyfives.py; a file of its own, as MicroPython compiles each test file in the table's heap)."""
import json

from support import MICROPYTHON, stepped

from cardtable.cards import standard as std
from cardtable.rng import Random
from test_fortyfives import new


# -- seeded random play-outs --------------------------------------------------------------
# MicroPython (WebAssembly) collects garbage only between top-level calls, so the generator
# tests yield every hand (or every action where an action allocates a lot).
GAMES = 30 if MICROPYTHON else 200


def conserved(g):
    """Every card accounted for exactly once (a fully seen game), in the piles of dump()."""
    d = g.dump()
    seen = []
    for h in d["hands"]:
        seen.extend(h)
    for w in d["won"]:
        seen.extend(w)
    for s, c in d["trick"]:
        seen.append(c)
    for x in d["discards"]:
        seen.extend(x)
    if d["kitty"] is not None and d["kitty_left"]:
        seen.extend(d["kitty"])
    if d["stock"] is not None:
        seen.extend(d["stock"][len(d["stock"]) - d["stock_left"]:])
    assert len(seen) == 52 and len(set(seen)) == 52, sorted(seen)
    assert [len(h) for h in d["hands"]] == d["held"]


def check_hand(g, ev, before):
    """A hand's scoring follows from its tricks: 30 with a trump played, else 25."""
    tricks = g.hand_tricks
    assert len(tricks) == 5
    any_trump = False
    for t in tricks:
        for s, c in t[1]:
            if g.is_trump(c):
                any_trump = True
    took = ev["took"]
    assert sum(took) == (30 if any_trump else 25)
    assert (ev["bonus"] is not None) == any_trump
    bt = ev["bidder"] % 2
    made = took[bt] >= ev["bid"]
    assert ev["made"] == made
    want = [0, 0]
    want[bt] = took[bt] if made else -ev["bid"]
    want[1 - bt] = took[1 - bt]
    assert g.score == [before[0] + want[0], before[1] + want[1]]


def bot_actions(g, rng):
    """Yield (action, events) while seeded bots play g to its end."""
    while not g.over:
        a = g.bot_action(rng)
        yield a, g.apply(a)


@stepped
def test_random_playouts_keep_the_invariants():
    hands = 0
    for n in range(GAMES):
        g = new(dealer=n % 4)
        before = [0, 0]
        for a, events in bot_actions(g, Random(1000 + n)):
            if a[1] in ("deal", "trump") or g.phase == "play" and a[1] == "discard" \
                    or len(g.trick) == 2:
                conserved(g)
            for e in events:
                if e["ev"] == "trick":
                    assert len(g.hand_tricks) == e["trick"]
                    assert sum(len(w) for w in g.won) == 4 * e["trick"]
                if e["ev"] == "hand":
                    check_hand(g, e, before)
                    conserved(g)
                    before = list(g.score)
                    hands += 1
            assert g.scores[0] == g.scores[2] and g.scores[1] == g.scores[3]
            yield
        # 120 wins; when both sides reach it in the same hand the bidders win
        bt = g.results[-1]["bidder"] % 2
        assert g.score[g.winner] >= 120 and g.score[1 - g.winner] < 120 or g.winner == bt
        assert len(g.trick_winners) == 5 * len(g.results)
        yield
    assert hands >= (300 if MICROPYTHON else 2000), hands


def hidden_codes(g):
    return [['"%s"' % std.fmt(c) for c in h] for h in g.hands]


@stepped
def test_random_views_never_show_hidden_cards():
    for n in range(2 if MICROPYTHON else 20):
        g = new(dealer=n % 4)
        for a, events in bot_actions(g, Random(2000 + n)):
            hidden = hidden_codes(g)
            spectator = json.dumps(g.view(None))
            for s in range(4):
                for code in hidden[s]:
                    assert code not in spectator
            if g.kitty is not None and g.kitty_left:
                for c in g.kitty:
                    assert '"%s"' % std.fmt(c) not in spectator
            if g.stock is not None:
                for c in g.stock[len(g.stock) - g.stock_left:]:
                    assert '"%s"' % std.fmt(c) not in spectator
            for s in range(4):
                mine = json.dumps(g.view(s))
                for o in range(4):
                    if o != s:
                        for code in hidden[o]:
                            assert code not in mine
            if g.phase == "play":
                seat = g.turn[0]
                assert sorted(g.view(seat)["hand"]) == sorted(std.fmt(c) for c in g.hands[seat])
            yield


@stepped
def test_undo_restores_the_exact_state():
    # Undo replays the whole game, so MicroPython checks the first hands of a few games.
    rng = Random(77)
    for n in range(4 if MICROPYTHON else 20):
        g = new(dealer=n % 4)
        while not g.over and (not MICROPYTHON or g.hand_no < 3):
            before = json.dumps(g.dump())
            a = g.bot_action(rng)
            g.apply(a)
            if rng.below(10) == 0:
                assert g.undo() == a
                assert json.dumps(g.dump()) == before
                g.apply(a)
            yield


def hidden_action(a, hide, rng):
    """Action a as the table sees it when it cannot see the hands of seats hide: the deal
    shows only the other hands (and maybe not the kitty or stock), some discards go unseen."""
    if a[1] == "deal":
        piles = a[2]
        p = {"hands": [None if s in hide else piles["hands"][s] for s in range(4)]}
        if rng.below(2):
            p["kitty"] = piles["kitty"]
        if rng.below(2):
            p["stock"] = piles["stock"]
        return (None, "deal", p)
    if a[1] == "discard" and a[0] in hide and rng.below(2):
        return (a[0], "discard", (), len(a[2]))
    return a


@stepped
def test_random_games_replayed_with_hidden_hands_are_accepted():
    rng = Random(9)
    for n in range(3 if MICROPYTHON else 30):
        g = new(dealer=n % 4)
        for a, events in bot_actions(g, Random(3000 + n)):
            yield
        h = new(dealer=g.first_dealer)
        hide = ()
        for a in g.history:
            if a[1] == "deal":
                hide = [s for s in range(4) if rng.below(2)] or [rng.below(4)]
            b = hidden_action(a, hide, rng)
            reason = h.check(b)
            assert reason is None, (b, reason)
            h.apply(b)
            yield
        assert h.revokes == []
        assert h.trick_winners == g.trick_winners
        assert h.scores == g.scores and h.winner == g.winner and h.over


def honest_card(h, seat, real):
    """A card of seat's real hand that keeps every obligation (h does not know the hand)."""
    cards = [c for c in real if h.where[c] == 0]
    if not h.trick:
        return cards[0]
    for c in cards:
        ok = True
        for holds, allowed, why_not in h.follow_rules(seat):
            if allowed(c):
                break
            for x in cards:
                if holds(x):
                    ok = False
        if ok:
            return c
    raise AssertionError("no honest card")


@stepped
def test_random_revokes_are_proven_later_with_hidden_hands():
    # In random fully seen hands, a seat that could follow a plain lead shows out instead;
    # replayed with hidden hands the table accepts it and reports the revoke, naming that
    # trick, as soon as the seat plays the card it held back.
    rng = Random(11)
    found = 0
    for n in range(4 if MICROPYTHON else 40):
        g = new(dealer=n % 4)
        g.apply(g.random_deal(rng))
        while g.phase != "play":
            g.apply(g.bot_action(rng))
        setup_len = len(g.history)
        while g.phase == "play":
            g.apply(g.bot_action(rng))
            if len(g.trick) != 1 or g.led == 4:
                continue
            seat = g.turn[0]
            follow = [c for c in g.hands[seat] if std.suit(c) == g.led and not g.is_trump(c)]
            other = [c for c in g.hands[seat] if std.suit(c) != g.led and not g.is_trump(c)]
            if follow and other:
                break
        else:
            yield
            continue
        h = new(dealer=g.first_dealer)
        for i in range(len(g.history)):
            a = g.history[i]
            if a[1] == "deal":
                a = (None, "deal", {})
            elif a[1] == "discard":
                a = (a[0], "discard", (), len(a[2]))
            h.apply(a)
        h.apply((seat, "play", other[0]))
        trick_no = len(h.hand_tricks) + 1
        while h.turn[0] != seat:
            s = h.turn[0]
            h.apply((s, "play", honest_card(h, s, g.hands[s])))
        events = h.apply((seat, "play", follow[0]))
        rv = [e for e in events if e["ev"] == "revoke"]
        assert rv == [{"ev": "revoke", "seat": seat, "hand": 1, "trick": trick_no,
                       "card": std.fmt(follow[0])}]
        assert len(h.revokes) == 1
        found += 1
        yield
    assert found >= (1 if MICROPYTHON else 10), found
