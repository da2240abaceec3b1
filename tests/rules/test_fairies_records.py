"""NEXUS-Fairies game records (tests/fixtures/fairies) through the record reader and the referee."""
import json

import support
from support import raises, stepped

from cardtable import record, referee
from cardtable.games import load
from cardtable.rng import Random


def fixture(name):
    return support.fixture("fairies", name)


# The fixtures' game: the Meditation Example deal (Nexus 8 24 13 9 28 M1 25, Bella's Parade 19),
# Alice (seat 0) holding 3 17 M2 and Bella 6 21 30, the deck 14 2 27 M3 11 5 22 16 1 29 M4 12 7
# 20 4 M5 18 10 26 15 M6 23. Seven meditates, Bella sows the 21 at 1, Alice the 3 on top, then
# meditates until the deck is empty after 16 moves. With the provisional default values
# (8 = -3, 24 = +1, 9 = -1, 28 = -3, M1 = mushrooms, 25 = swap, 5 = +3, 19 = -3, 13 = +3,
# 3 = +2, 11 = +1, 21 = +3, 1 = +1, 29 = +3) the Score Zones hold:
#   Alice: [8 24] = -3 + 1 = -2; [9 28 M1 25] = (-1 - 3 + 1 + 0) x -1 = 3; [5] = 3: total 4.
#   Bella: [19] = -3; [13] = 3; [3 11 21] = 2 + 1 + 3 = 6; [1 29] = 1 + 3 = 4: total 10.
# The Active Parade [4] (-2) does not score. Bella wins.
LEGAL_ZONES = [[["8", "24"], ["9", "28", "M1", "25"], ["5"]],
               [["19"], ["13"], ["3", "11", "21"], ["1", "29"]]]


def zones(g):
    return [[g.codes(p) for p in z] for z in g.zones]


def test_a_legal_record_scores_as_counted_by_hand():
    out = referee.referee(fixture("legal.jsonl"))
    assert out["ok"] and out["rejected"] == [] and out["revokes"] == []
    assert out["scores"] == [4, 10] and out["over"] and out["winner"] == 1
    assert "tricks" not in out
    g, actions = record.load(fixture("legal.jsonl"))
    for _, a in actions:
        g.apply(a)
    assert zones(g) == LEGAL_ZONES and g.codes(g.parade) == ["4"]


def test_header_values_change_the_scores():
    # Header rules carry printed values (DESIGN section 3's example plus 24 = +3, 25 = x2):
    # Alice [8 24] = -3 + 3 = 0; [9 28 M1 25] = (-1 - 3 + 1) x 2 = -6; [5] = 3: total -3.
    # Bella's parades hold none of the changed cards: 10.
    out = referee.referee(fixture("legal-values.jsonl"))
    assert out["ok"] and out["scores"] == [-3, 10] and out["winner"] == 1


def test_an_illegal_record_names_the_rejected_lines():
    # Line 6: Alice meditates out of turn. Line 12: Alice sows the 6, which the scanned deal put
    # in Bella's hand. Neither is applied, so the game ends as the legal record.
    out = referee.referee(fixture("illegal.jsonl"))
    assert not out["ok"]
    assert out["rejected"] == [
        {"line": 6, "seat": 0, "reason": "not your turn: seat 1 is to play"},
        {"line": 12, "seat": 0, "reason": "the 6 is in seat 1's hand (seen in the deal)"}]
    assert out["scores"] == [4, 10] and out["over"] and out["winner"] == 1


def test_a_malformed_record_names_the_line():
    err = raises(record.RecordError, referee.referee, fixture("malformed.jsonl"))
    assert err.line == 7 and "bad Fairies card '31'" in err.message


def test_a_record_of_an_unseen_deal_is_refereed_the_same():
    # Only the Nexus and the Parade were scanned; a meditate on a refilled (unseen) Nexus card
    # names the card it resolved.
    lines = fixture("unseen.jsonl")
    assert '"card": "11"' in lines[12] and "hands" not in lines[1]
    out = referee.referee(lines)
    assert out["ok"] and out["scores"] == [4, 10] and out["winner"] == 1


def test_unseen_record_card_seen_twice_is_rejected():
    lines = fixture("unseen.jsonl")
    # Line 13 claims the unseen top card was the 8, which the table saw in the deal's Nexus and
    # put in Alice's Score Zone on move 3. (Later lines then fail too: the move never happened.)
    lines[12] = lines[12].replace('"11"', '"8"')
    out = referee.referee(lines)
    assert out["rejected"][0] == {"line": 13, "seat": 0,
                                  "reason": "the 8 is in a Score Zone (seen in the deal)"}


def test_unseen_record_meditate_must_name_an_unseen_card():
    lines = fixture("unseen.jsonl")
    lines[12] = '{"seat": 0, "act": "meditate"}'
    out = referee.referee(lines)
    assert out["rejected"][0] == {"line": 13, "seat": 0, "reason":
                                  "the table has not seen the top card of the Nexus: show it"}


def test_bad_header_values_are_malformed():
    lines = fixture("legal.jsonl")
    lines[0] = json.dumps({"game": "fairies", "seats": 2, "rules": {"values": {"5": "zero"}}})
    err = raises(record.RecordError, referee.referee, lines)
    assert err.line == 1 and "exactly 1 zero card" in err.message
    lines[0] = json.dumps({"game": "fairies", "seats": 2, "rules": {"values": {"5": "x3"}}})
    err = raises(record.RecordError, referee.referee, lines)
    assert err.line == 1 and "the 5: bad card value 'x3'" in err.message
    lines = fixture("legal.jsonl")
    lines[4] = '{"seat": 0, "act": "meditate", "end": "middle"}'
    err = raises(record.RecordError, referee.referee, lines)
    assert err.line == 5 and "top" in err.message


@stepped
def test_random_games_round_trip_through_records():
    for seed in range(12):
        rules = {"double_ended": True} if seed % 3 == 0 else {}
        g = load("fairies", rules=rules)
        rng = Random(500 + seed)
        while not g.over:
            g.apply(g.bot_action(rng))
            yield
        lines = record.dump(g)
        yield
        out = referee.referee(lines)
        assert out["ok"] and out["over"] and out["scores"] == g.scores
        assert out["winner"] == g.winner
        yield
        h, actions = record.load(lines)
        assert h.rules["double_ended"] == (seed % 3 == 0)
        assert [a for _, a in actions] == g.history
        yield
