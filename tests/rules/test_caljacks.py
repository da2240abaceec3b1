"""California Jacks: the seed rules (rules-decisions.md section 5) and play-out invariants."""
import json

from cardtable import games, record
from cardtable.cards import standard as std
from cardtable.rng import Random

from playout import check_undo, hidden_codes_absent, play, playing, refereeing
from support import raises, scaled, stepped

P = std.parse


def cards(text):
    return [P(c) for c in text.split()]


def stacked(rules=None, seen=True, dealer=0):
    """Dealer 0; seat 0 has clubs-poor diamonds, seat 1 clubs and hearts; trump spades (9S cut)."""
    g = games.load("california-jacks", dealer=dealer, rules=rules)
    h0 = cards("2C 3D 4D 5D 6D 7D")
    h1 = cards("KC 8H 9H 10H JH QH")
    used = set(h0 + h1 + [P("9S")])
    stock = [P("9S")] + [c for c in std.DECK if c not in used]
    g.apply((None, "deal", {"hands": [h0, h1] if seen else [None, None], "stock": stock}))
    return g


def test_trump_is_the_cut_card_and_non_dealer_leads():
    # C1: the cut card becomes the first face-up stock card and names trump.
    g = stacked()
    assert g.view()["trump"] == "S" and g.view()["stock_top"] == "9S"
    # "The non-dealer leads."
    assert g.turn == (1,)
    assert g.check((0, "play", P("2C"))) == "not your turn: seat 1 is to play"


def test_seed_must_follow_suit():
    g = stacked()
    g.apply((1, "play", P("KC")))
    # "must play same suit if he can"
    assert g.check((0, "play", P("3D"))) == "must follow clubs"
    assert g.check((0, "play", P("2C"))) is None


def test_seed_must_trump_when_void_and_penalty_when_neither():
    g = stacked()
    g.apply((1, "play", P("KC")))
    g.apply((0, "play", P("2C")))            # seat 1 wins, draws 9S; seat 0 draws the next card
    assert P("9S") in g.hands[1]
    g.apply((1, "play", P("8H")))
    held = g.hands[0]
    has_trump = any(std.suit(c) == std.SPADES for c in held)
    has_heart = any(std.suit(c) == std.HEARTS for c in held)
    off = [c for c in held if std.suit(c) not in (std.SPADES, std.HEARTS)][0]
    if has_heart:
        assert g.check((0, "play", off)) == "must follow hearts"
    elif has_trump:
        assert g.check((0, "play", off)) == "cannot follow hearts, so must trump"
    else:
        before = g.scores[0]
        ev = g.apply((0, "play", off))
        # "If he can't do that either, he loses one point."
        assert g.scores[0] == before - 1
        assert ev[0]["ev"] == "penalty"


def test_void_in_the_suit_led_a_player_holding_a_trump_must_trump_and_is_not_penalised():
    # Seed: "If he can't follow suit, he must play a trump if he can"; only a player who can do
    # neither loses a point.
    g = games.load("california-jacks")
    h0 = cards("2C 3D 4D 5D 6D 2S")
    h1 = cards("KH 8H 9H 10H JH QH")
    used = set(h0 + h1 + [P("9S")])
    stock = [P("9S")] + [c for c in std.DECK if c not in used]
    g.apply((None, "deal", {"hands": [h0, h1], "stock": stock}))
    g.apply((1, "play", P("8H")))
    assert g.check((0, "play", P("3D"))) == "cannot follow hearts, so must trump"
    assert g.check((0, "play", P("2C"))) == "cannot follow hearts, so must trump"
    assert [a[2] for a in g.legal(0)] == [P("2S")]
    ev = g.apply((0, "play", P("2S")))
    assert [e["ev"] for e in ev if e["ev"] == "penalty"] == [] and g.scores == [0, 0]
    assert g.trick_winners == [0]


def test_void_penalty_applies_at_once_and_variant_removes_it():
    for rules, loss in (({}, 1), ({"void_penalty": 0}, 0)):
        g = games.load("california-jacks", rules=rules)
        h0 = cards("2D 3D 4D 5D 6D 7D")
        h1 = cards("KC 8C 9C 10C JC QC")
        used = set(h0 + h1 + [P("9S")])
        stock = [P("9S")] + [c for c in std.DECK if c not in used]
        g.apply((None, "deal", {"hands": [h0, h1], "stock": stock}))
        g.apply((1, "play", P("KC")))
        g.apply((0, "play", P("2D")))
        assert g.scores == [-loss, 0]


def test_standard_variant_may_trump_instead_of_following():
    g = games.load("california-jacks", rules={"may_trump_instead_of_following": True})
    h0 = cards("2C 3S 4D 5D 6D 7D")
    h1 = cards("KC 8H 9H 10H JH QH")
    used = set(h0 + h1 + [P("9S")])
    g.apply((None, "deal", {"hands": [h0, h1], "stock": [P("9S")] + [c for c in std.DECK if c not in used]}))
    g.apply((1, "play", P("KC")))
    assert g.check((0, "play", P("3S"))) is None          # trumps although holding a club
    assert g.check((0, "play", P("4D"))) == "must follow clubs or trump"
    g.apply((0, "play", P("3S")))
    assert g.trick_winners == [0]                         # the trump wins


def test_winner_draws_first_then_loser_and_draws_are_public():
    g = stacked()
    g.apply((1, "play", P("KC")))
    ev = g.apply((0, "play", P("2C")))
    draws = [(e["seat"], e["card"]) for e in ev if e["ev"] == "draw"]
    # "The winner of the trick takes the top card of the stock, the loser the next."
    assert draws[0] == (1, "9S") and draws[1][0] == 0
    assert g.view()["draws"] == [[1, "9S"], [0, draws[1][1]]]
    assert g.view()["stock_left"] == 38


def test_card_seen_twice_and_card_in_another_hand_with_unknown_hands():
    g = stacked(seen=False)
    g.apply((1, "play", P("KC")))
    g.apply((0, "play", P("2C")))
    # seat 1 drew the 9S face up: the table knows seat 0 cannot play it
    assert g.check((1, "play", P("KC"))) == "the KC was already played"
    g.apply((1, "play", P("8H")))
    assert g.check((0, "play", P("9S"))) == "the 9S is in seat 1's hand"


def test_revoke_is_caught_when_proven_naming_the_trick():
    # Known hands: the revoke is refused at once.
    g = stacked()
    g.apply((1, "play", P("KC")))
    assert g.check((0, "play", P("3D"))) == "must follow clubs"
    # Unknown hands: accepted (seat 0 might be void), and proven when the club turns up.
    g = stacked(seen=False)
    g.apply((1, "play", P("KC")))
    g.apply((0, "play", P("3D")))
    assert g.revokes == []
    g.apply((1, "play", P("8H")))
    ev = g.apply((0, "play", P("2C")))
    rv = [e for e in ev if e["ev"] == "revoke"]
    assert rv == [{"ev": "revoke", "seat": 0, "hand": 1, "trick": 1, "card": "2C"}]


def _stacked_scoring(rules=None):
    """A hand where seat 1 wins every trick: all of High, Low, Jack and Game."""
    g = games.load("california-jacks", rules=rules)
    rng = Random(5)
    g.apply(g.random_deal(rng))
    return g


@stepped
def test_high_low_jack_game_and_card_points():
    g = yield from playing("california-jacks", 11, rules={"void_penalty": 0, "target": 1000}, max_actions=53)
    # one whole hand: 1 deal + 52 plays
    assert g.hand_no == 1 and g.phase == "deal"
    taken = [set(w) for w in g.won]
    trump = g.trump
    pts = (0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 10, 1, 2, 3)
    count = [sum(pts[std.rank(c)] for c in w) for w in g.won]
    assert count[0] + count[1] == 80
    expect = [0, 0]
    for c in (std.card(std.ACE, trump), std.card(2, trump), std.card(std.JACK, trump)):
        expect[0 if c in taken[0] else 1] += 1
    if count[0] != count[1]:
        expect[0 if count[0] > count[1] else 1] += 1
    assert g.scores == expect


@stepped
def test_tie_for_game_scores_nobody_or_the_non_dealer():
    # C4: 40-40 scores Game for nobody; the variant gives it to the non-dealer.
    for rules, want in (({}, None), ({"game_tie": "non-dealer"}, 1)):
        found = False
        for seed in range(400):
            g = yield from playing("california-jacks", seed,
                                   rules=dict(rules, void_penalty=0, target=1000), max_actions=53)
            ev = g.won
            pts = (0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 10, 1, 2, 3)
            count = [sum(pts[std.rank(c)] for c in w) for w in ev]
            if count[0] == count[1]:
                taken = [set(w) for w in ev]
                hlj = [0, 0]
                for c in (std.card(std.ACE, g.trump), std.card(2, g.trump), std.card(std.JACK, g.trump)):
                    hlj[0 if c in taken[0] else 1] += 1
                if want is not None:
                    hlj[want] += 1
                assert g.scores == hlj
                found = True
                break
        assert found, "no 40-40 hand in 400 seeds"


@stepped
def test_points_count_high_low_jack_game_in_order_to_the_target():
    # With target 1, whoever takes High wins even if the other takes Low, Jack and Game.
    for seed in range(40):
        g = yield from playing("california-jacks", seed, rules={"target": 1, "void_penalty": 0})
        high = [s for s in (0, 1) if std.card(std.ACE, g.trump) in g.won[s]][0]
        assert g.over and g.winner == high and g.scores[high] >= 1


def hand_events(g, a, events, out):
    for e in events:
        if e["ev"] == "hand":
            out.append((list(g.scores), e))


@stepped
def test_every_point_of_the_last_hand_is_scored():
    # C5 default: every point won in the last hand scores; High, Low, Jack, Game only decide
    # the winner when both reach the target in the same hand.
    both = 0
    for seed in range(scaled(12)):
        hands = []
        before = [0, 0]
        g = yield from playing("california-jacks", seed, rules={"target": 3, "void_penalty": 0},
                               each=lambda g, a, ev: hand_events(g, a, ev, hands))
        assert g.over
        for scores, e in hands:
            pts = e["points"]
            got = [0, 0]
            first = None
            for name in ("high", "low", "jack", "game"):
                s = pts[name]
                if s is not None:
                    got[s] += 1
                    if first is None and before[s] + got[s] >= 3:
                        first = s, name
            assert scores == [before[0] + got[0], before[1] + got[1]]
            assert "counted_out" not in e and "uncounted" not in e
            before = scores
        assert g.winner == first[0] and max(g.scores) >= 3
        if min(g.scores) >= 3:
            both += 1
            assert hands[-1][1]["decided_on"] == first[1]
        else:
            assert "decided_on" not in hands[-1][1]
    assert both, "no seed where both reach the target in the last hand"


@stepped
def test_count_out_variant_stops_at_the_point_that_reaches_the_target():
    for seed in range(scaled(12)):
        hands = []
        g = yield from playing("california-jacks", seed,
                               rules={"target": 3, "void_penalty": 0, "end_count": "count_out"},
                               each=lambda g, a, ev: hand_events(g, a, ev, hands))
        scores, e = hands[-1]
        before = hands[-2][0] if len(hands) > 1 else [0, 0]
        names = ("high", "low", "jack", "game")
        stop = names.index(e["counted_out"])
        got = [0, 0]
        for name in names[:stop + 1]:
            if e["points"][name] is not None:
                got[e["points"][name]] += 1
        assert scores == [before[0] + got[0], before[1] + got[1]]
        assert e["uncounted"] == [n for n in names[stop + 1:] if e["points"][n] is not None]
        assert g.winner == e["points"][e["counted_out"]] and g.scores[g.winner] == 3
        assert g.scores[1 - g.winner] < 3


@stepped
def test_dealer_alternates():
    g = yield from playing("california-jacks", 3, rules={"void_penalty": 0, "target": 1000}, max_actions=54)
    assert g.hand_no == 2 and g.dealer == 1 and g.turn == (0,)


def test_options_are_checked():
    e = raises(ValueError, games.load, "california-jacks", rules={"void_penalti": 1})
    assert "unknown rule option 'void_penalti'" in str(e)
    e = raises(ValueError, games.load, "california-jacks", rules={"target": "10"})
    assert "takes a int" in str(e)
    raises(ValueError, games.load, "california-jacks", rules={"game_tie": "dealer"})
    e = raises(ValueError, games.load, "california-jacks", rules={"end_count": "first"})
    assert str(e) == "rule option 'end_count' is 'all' or 'count_out', not 'first'"


@stepped
def test_random_playouts_keep_every_invariant():
    # Hundreds of hands: cards conserved, 26 tricks, 80 card points, views hide hands, undo exact.
    for seed in range(scaled(200)):
        rng = Random(seed + 1000)

        def each(g, a, events):
            for e in events:
                if e["ev"] == "hand":
                    assert sum(e["card_points"]) == 80
                    assert len(g.hand_tricks) == 26
                    allwon = g.won[0] + g.won[1]
                    assert sorted(allwon) == list(std.DECK)
            if g.phase == "play":
                seen = [c for s in (0, 1) for c in g.hands[s]]
                assert len(set(seen)) == len(seen)
                gone = sum(len(w) for w in g.won) + len(g.trick)
                assert gone + len(seen) + g.stock_left == 52
                drawn = [c for _, c in g.draws]       # drawn from the face-up stock: public (C6)
                secret = [[c for c in g.hands[s] if c not in drawn] for s in (0, 1)]
                assert hidden_codes_absent(g, g.view(None), secret[0] + secret[1])
                for s in (0, 1):
                    assert hidden_codes_absent(g, g.view(s), secret[1 - s])
                    assert sorted(g.view(s)["hand"]) == sorted(g.codes(g.hands[s]))
            if rng.below(25) == 0:
                check_undo(g, rng)

        yield from playing("california-jacks", seed, rules={"void_penalty": seed % 2},
                           max_actions=53 * 3, each=each)


@stepped
def test_unknown_hands_referee_agrees_with_scanned_deal():
    # The same games refereed without the hands: nothing rejected, same scores and tricks.
    for seed in range(scaled(30)):
        g = yield from playing("california-jacks", seed, rules={"void_penalty": 0})
        hidden = [json.dumps(record.header(g))]
        for a in g.history:
            obj = record.encode(g, a)
            if a[1] == "deal":
                obj["hands"] = [None, None]
            hidden.append(json.dumps(obj))
            yield
        scores, tricks = g.scores, g.trick_winners
        g = None
        r = yield from refereeing(hidden)
        assert r["ok"], r["rejected"][:2]
        assert r["scores"] == scores and r["tricks"] == tricks


def _known_hands_cut_card_only(rules=None):
    """Both hands dealt where the table saw them, the stock not scanned: only the cut card."""
    g = games.load("california-jacks", rules=rules)
    h0 = cards("2C 3D 4D 5D 6D 7D")
    h1 = cards("KC 8H 9H 10H JH QH")
    g.apply((None, "deal", {"hands": [h0, h1], "up": [P("9S")]}))
    return g


def test_a_known_hand_cannot_play_a_card_it_does_not_hold():
    # Issue 30 (19): the table knows both hands; the AC is somewhere in the unseen stock.
    g = _known_hands_cut_card_only()
    assert g.known == [True, True]
    assert g.check((1, "play", P("AC"))) == "you do not hold the AC"
    assert g.check((1, "play", P("2C"))) == "you do not hold the 2C"   # seat 0's
    assert g.check((1, "play", P("9S"))) == "you do not hold the 9S"   # the cut card
    assert g.check((1, "play", P("KC"))) is None


def test_a_known_hand_that_draws_an_unseen_card_is_partly_known():
    # Issue 30 (18): "The person who wins ... takes the top card of the deck (the one that's
    # visible). Whoever lost then takes the next card": the stock was not scanned, so the
    # loser's card is unseen, and from then on the table cannot know its whole hand.
    g = _known_hands_cut_card_only()
    g.apply((1, "play", P("KC")))
    ev = g.apply((0, "play", P("2C")))
    assert [(e["seat"], e["card"]) for e in ev if e["ev"] == "draw"] == [(1, "9S"), (0, None)]
    assert g.known == [False, True] and g.held == [6, 6]
    assert sorted(g.hands[0]) == sorted(cards("3D 4D 5D 6D 7D"))   # what it still knows
    assert g.check((1, "play", P("AC"))) == "you do not hold the AC"  # seat 1 saw its draw
    g.apply((1, "play", P("8H")))
    # seat 0 holds no heart the table saw; its unseen card may be the AC: it may lay it
    assert g.check((0, "play", P("AC"))) is None
    # the cards the table saw elsewhere are still not seat 0's
    assert g.check((0, "play", P("KC"))) == "the KC was already played"
    assert g.check((0, "play", P("9S"))) == "the 9S is in seat 1's hand"
    ev = g.apply((0, "play", P("AC")))
    assert ev[0] == {"ev": "penalty", "seat": 0, "points": -1,
                     "reason": "could neither follow nor trump"}
    # both drew unseen cards now; what the table saw of each hand still counts
    assert g.known == [False, False] and g.held == [6, 6] and g.turn == (1,)
    assert g.check((1, "play", P("AD"))) is None      # seat 1 may hold it now
    g.apply((1, "play", P("AD")))
    assert g.check((0, "play", P("QC"))) == "must follow diamonds"   # it holds the 3D
    assert g.check((0, "play", P("2C"))) == "the 2C was already played"


@stepped
def test_known_hands_with_an_unseen_stock_play_out_as_the_scanned_game():
    # Issue 30 (18): seeded games replayed with both hands seen but only the cut card of the
    # stock: every action is accepted, the tricks and scores are the scanned game's, and at
    # each step the table's knowledge is true: the cards it places in a hand are there, a hand
    # is fully known only until it draws an unseen card.
    for seed in range(scaled(20)):
        g = yield from playing("california-jacks", seed, rules={"void_penalty": seed % 2},
                               max_actions=600)  # (a game with the penalty may go on and on)
        h = games.load("california-jacks", rules={"void_penalty": seed % 2})
        truth = None
        for a in g.history:
            if a[1] == "deal":
                truth = games.load("california-jacks", rules={"void_penalty": seed % 2},
                                   dealer=h.dealer)
                truth.apply(a)
                a = (None, "deal", {"hands": a[2]["hands"], "up": [a[2]["stock"][0]]})
                unseen = [False, False]
            else:
                for e in truth.apply(a):
                    if e["ev"] == "draw" and e["card"] != "%s" % truth.card_code(truth.up):
                        unseen[e["seat"]] = True
            why = h.check(a)
            assert why is None, (seed, a, why)
            h.apply(a)
            if h.phase == "play":
                for s in (0, 1):
                    assert h.held[s] == truth.held[s]
                    assert all(c in truth.hands[s] for c in h.hands[s]), (seed, s)
                    assert h.known[s] == (not unseen[s]), (seed, s, h.known, unseen)
            yield
        assert (h.over, h.scores, h.winner) == (g.over, g.scores, g.winner), seed
        assert h.trick_winners == g.trick_winners and h.revokes == []
