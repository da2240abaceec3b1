"""Forty-Fives game records (tests/fixtures/fortyfives) through the record reader and referee."""
import json

from playout import refereeing
import support
from support import raises, stepped

from cardtable import record, referee
from cardtable.games import load
from cardtable.rng import Random


def fixture(name):
    return support.fixture("fortyfives", name)


HAND1_TRICKS = [1, 1, 0, 1, 3]


def test_a_legal_record_scores_as_counted_by_hand():
    # Hand 1, dealer 0: seat 1 bids 20 and names hearts, takes the kitty AH 6H 2D, discards
    # 3S 4S 2D 6H and draws KH; seat 2 discards 2S 10D, draws 7S 10C; seat 3 discards 8C,
    # draws 5C. Tricks: 5H (seat 1), AH (seat 1; seat 3 keeps back the JH, privileged over
    # the A of hearts), 8D won by seat 0's KD, KH (seat 1), JH over 9H (seat 3).
    # Seats 1&3: 4 tricks + the 5H bonus = 25 >= 20, made: +25. Seats 0&2: 5.
    # Hand 2, dealer 1: all pass, seat 1 is stuck at 15 and names spades; seat 3 discards
    # 2H 3H (draws 2C 3D), seat 1 keeps 2S 7C (draws 4D 5D 6D). Seat 2 wins all five tricks
    # (AS, 5S, JS, KD, QD): seats 0&2 take 25 + the 5S bonus = 30; seats 1&3 took 0 < 15: -15.
    # Totals: seats 0&2 5 + 30 = 35; seats 1&3 25 - 15 = 10. Nobody has 120: not over.
    out = referee.referee(fixture("legal.jsonl"))
    assert out["ok"] and out["rejected"] == [] and out["revokes"] == []
    assert out["tricks"] == HAND1_TRICKS + [2, 2, 2, 2, 2]
    assert out["scores"] == [35, 10, 35, 10]
    assert not out["over"] and out["winner"] is None


def test_an_illegal_record_names_each_rejected_line():
    # Line 3 bids before seat 1; line 5 does not beat 20; line 10 has the bidder keep 6 cards;
    # line 17 withholds the 4H from the 5 of trumps (nobody may renege when the 5 is led);
    # line 27 throws a club while holding diamonds. None is applied: the hand ends as in the
    # legal record.
    out = referee.referee(fixture("illegal.jsonl"))
    assert not out["ok"]
    assert out["rejected"] == [
        {"line": 3, "seat": 2, "reason": "not your turn: seat 1 is to bid"},
        {"line": 5, "seat": 2, "reason": "a bid must be higher than 20"},
        {"line": 10, "seat": 1, "reason": "keep 1 to 5 cards: discard 3 to 7"},
        {"line": 17, "seat": 3, "reason": "must follow trumps"},
        {"line": 27, "seat": 0, "reason": "must follow diamonds"},
    ]
    assert out["tricks"] == HAND1_TRICKS and out["scores"] == [5, 25, 5, 25]


def test_a_malformed_record_names_the_line():
    err = raises(record.RecordError, referee.referee, fixture("malformed.jsonl"))
    assert err.line == 30 and "11H" in err.message


def test_unseen_hands_revoke_is_reported_on_the_lines_that_prove_it():
    # Only the kitty was seen. Seat 1 discards the 2D and 3 unseen cards, seat 2 two unseen.
    # In trick 3 seat 0 throws the 4C to the 8D; its 6D (line 27) proves the revoke in trick 3,
    # and its KD (line 31) proves the same one offence again: it is counted once. Seat 3's JH
    # after showing out of trumps to the AH is no revoke: the jack is privileged over the A of
    # hearts. Seats 1&3 take every trick: 30.
    out = referee.referee(fixture("unseen-revoke.jsonl"))
    assert out["rejected"] == [] and not out["ok"]
    assert out["revokes"] == [
        {"ev": "revoke", "seat": 0, "hand": 1, "trick": 3, "card": "6D", "line": 27, "revoked_line": 23},
    ]
    assert out["tricks"] == [1, 1, 1, 1, 3] and out["scores"] == [0, 30, 0, 30]


def test_discards_read_and_write_with_and_without_a_count():
    g = load("fortyfives")
    for obj in ({"seat": 1, "act": "discard", "cards": ["2D"], "n": 4},
                {"seat": 3, "act": "discard", "cards": ["8C", "10h"]},
                {"seat": 0, "act": "discard", "cards": []}):
        a = record.decode(g, obj, 2)
        back = record.encode(g, a)
        assert back["cards"] == [c.upper() for c in obj["cards"]]
        assert back.get("n") == obj.get("n")
    assert record.decode(g, {"seat": 1, "act": "trump", "suit": "h"}, 2) == (1, "trump", 2)
    err = raises(record.RecordError, record.decode, g, {"seat": 1, "act": "bid"}, 4)
    assert err.line == 4


@stepped
def test_a_whole_game_to_120_round_trips_through_the_record():
    # Bots play a game to 120; the record written from it referees to the same result.
    g = load("fortyfives", dealer=1)
    rng = Random(45)
    while not g.over:
        g.apply(g.bot_action(rng))
        yield
    lines = [json.dumps(record.header(g))]
    for a in g.history:
        lines.append(json.dumps(record.encode(g, a)))
        yield
    assert json.loads(lines[0]) == {"game": "fortyfives", "seats": 4, "dealer": 1, "rules": {}}
    scores, winner, tricks, hands = g.scores, g.winner, g.trick_winners, g.hand_no
    g = None                                       # room for the replay on a 192 KB heap
    yield
    out = yield from refereeing(lines)
    assert out["ok"] and out["over"]
    assert out["scores"] == scores and out["winner"] == winner
    assert out["tricks"] == tricks and len(tricks) == 5 * hands
    assert max(scores) >= 120
