"""Nerts game records (tests/fixtures/nerts) through the record reader and the referee."""
from playout import playing, refereeing
import support
from support import raises, stepped

from cardtable import record, referee


def fixture(name):
    return support.fixture("nerts", name)


def test_a_legal_record_scores_as_counted_by_hand():
    # Seed scoring, seat 1 calls Nerts. Centre cards: seat 0 AS AD 3S = 3, seat 1 2S AS = 2,
    # seat 2 AH 2H 2S = 3. Nerts left: seat 0 4, seat 2 7, the caller 0.
    # Seat 0: 3 - 4 = -1; seat 1: 2 + 10 = 12; seat 2: 3 - 7 = -4. 12 >= target 10: seat 1 wins.
    out = referee.referee(fixture("legal.jsonl"))
    assert out["ok"] and out["rejected"] == [] and out["revokes"] == []
    assert out["scores"] == [-1, 12, -4]
    assert out["over"] and out["winner"] == 1


def test_an_illegal_record_names_each_rejected_line():
    # Line 5 loses the race for the 2♠ slot; line 6 plays another seat's card; line 9 comes
    # after the call. Seat 0: 1 - 5 = -4; seat 1: 1 + 10 = 11; seat 2: 1 - 8 = -7.
    out = referee.referee(fixture("illegal.jsonl"))
    assert not out["ok"]
    assert out["rejected"] == [
        {"line": 5, "seat": 2, "reason": "too late: 2\u2660 pile already at 2"},
        {"line": 6, "seat": 0, "reason": "the AH#1 is seat 1's card"},
        {"line": 9, "seat": 0, "reason": "too late: seat 1 called Nerts at t=6000"},
    ]
    assert out["scores"] == [-4, 11, -7] and out["over"] and out["winner"] == 1


def test_a_late_arriving_earlier_play_wins_the_slot():
    # Line 5 (t=880) reaches the table after line 4 (t=900) took the 2♣ slot: the earlier t
    # wins and seat 1's 2♣ is handed back; the 3♣ then goes on seat 0's 2♣, so seat 1's 2♣ is
    # too late on line 7. Seat 0: 2 + 10 = 12; seat 1: 1 - 6 = -5.
    game, actions = record.load(fixture("late.jsonl"))
    events = {}
    for line, action, reason, evs in referee.replay(game, actions):
        events[line] = evs
    assert events[5][0] == {"ev": "displaced", "seat": 1, "card": "2C#1", "by": 0}
    out = referee.referee(fixture("late.jsonl"))
    assert out["rejected"] == [{"line": 7, "seat": 1, "reason": "too late: 2\u2663 pile already at 3"}]
    assert out["scores"] == [12, -5] and out["over"] and out["winner"] == 0


def test_a_malformed_record_names_the_line():
    err = raises(record.RecordError, referee.referee, fixture("malformed.jsonl"))
    assert err.line == 4 and "'t'" in err.message


@stepped
def test_a_simulated_race_round_trips_through_the_record():
    # Bots race with known layouts; the record written from the game replays to the same
    # scores, with and without the layouts.
    g = yield from playing("nerts", 11, seats=3, rules={"target": 15})
    lines = record.dump(g)
    out = yield from refereeing(lines)
    assert out["ok"] and out["scores"] == g.scores and out["winner"] == g.winner
    hidden = []
    for line in lines:
        if '"deal"' in line:
            line = '{"act": "deal"}'
        hidden.append(line)
    lines = None
    out = yield from refereeing(hidden)
    assert out["ok"] and out["scores"] == g.scores
