"""Nexus game records (tests/fixtures/nexus) through the record reader and the referee."""
import json

from playout import refereeing
import support
from support import raises, stepped

from cardtable import record, referee
from cardtable.games import load
from cardtable.rng import Random


def fixture(name):
    return support.fixture("nexus", name)


WORKED_TRICKS = [0, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1]


def test_a_legal_record_scores_as_counted_by_hand():
    # Dealer 0; indicators 8C (round 1: clubs) and LJ (round 2: the BJ alone is trump, +4 to
    # the dealer). Round 1: seat 0 takes AS KS AD KD (4), seat 1 trumps the QS with the JC and
    # takes QC KC (4). Round 2: seat 0 takes AH KH (2); seat 1 takes QD JD JS, QH+BJ, AC, JH (7)
    # and the last trick, so the kitty 5C 6C 7C 8S 8C LJ (1). Seat 0: 4 + 2 + 4 = 10;
    # seat 1: 4 + 7 + 1 = 12, and wins the one-deal game.
    out = referee.referee(fixture("legal.jsonl"))
    assert out["ok"] and out["rejected"] == [] and out["revokes"] == []
    assert out["tricks"] == WORKED_TRICKS
    assert out["scores"] == [10, 12] and out["over"] and out["winner"] == 1


def test_an_illegal_record_names_the_rejected_line():
    # Line 10: seat 0 plays the 9C to the 5D while holding the AD and KD; the play is not
    # applied and seat 0's next line plays the AD, so the deal ends as the legal record.
    out = referee.referee(fixture("illegal.jsonl"))
    assert not out["ok"]
    assert out["rejected"] == [{"line": 10, "seat": 0, "reason": "must follow diamonds"}]
    assert out["tricks"] == WORKED_TRICKS and out["scores"] == [10, 12] and out["winner"] == 1


def test_a_malformed_record_names_the_line():
    err = raises(record.RecordError, referee.referee, fixture("malformed.jsonl"))
    assert err.line == 8 and "11S" in err.message


def test_unseen_hands_revoke_is_reported_on_the_line_that_proves_it():
    # Only the indicators were seen. Seat 1 plays the 7S to the AD in trick 2 (no diamond),
    # then the 5D in trick 5 (line 12): a revoke in trick 2 of hand 1, proven there.
    out = referee.referee(fixture("unseen-revoke.jsonl"))
    assert out["rejected"] == [] and not out["ok"]
    assert out["revokes"] == [{"ev": "revoke", "seat": 1, "hand": 1, "trick": 2, "card": "5D",
                               "line": 12, "revoked_line": 6}]
    assert out["tricks"] == [0, 0, 0, 0, 0] and out["scores"] == [5, 0] and not out["over"]


def test_a_record_hides_nothing_it_was_not_given():
    # The deal line of a record written from a game carries every pile, round 2 included, and
    # reads back to the same action.
    g = load("nexus")
    g.apply(g.random_deal(Random(5)))
    line = record.dump(g)[1]
    obj = json.loads(line)
    assert sorted(obj) == ["act", "hands", "hands2", "kitty", "up"]
    assert len(obj["hands2"]) == 2 and len(obj["hands2"][0]) == 9
    assert record.decode(g, obj, 2) == g.history[0]


@stepped
def test_a_simulated_match_round_trips_through_the_record():
    # Bots play a match; the record written from the game replays to the same result, with
    # the hands, the round 2 hands and the kitty shown or left out.
    g = load("nexus", rules={"match_points": 30})
    rng = Random(8)
    while not g.over:
        g.apply(g.bot_action(rng))
        yield
    lines = record.dump(g)
    out = yield from refereeing(lines)
    assert out["ok"] and out["scores"] == g.scores and out["winner"] == g.winner
    assert out["tricks"] == g.trick_winners and len(out["tricks"]) == 18 * len(g.deals)
    assert len(g.deals) >= 2
    hidden = []
    for line in lines:
        if '"deal"' in line:
            up = json.loads(line)["up"]
            line = json.dumps({"act": "deal", "up": up, "hands": [None, None]})
        hidden.append(line)
    out = yield from refereeing(hidden)
    assert out["ok"] and out["scores"] == g.scores and out["tricks"] == g.trick_winners
