"""Nonesuch game records (tests/fixtures/nonesuch) through the record reader and the referee."""
import json

from playout import refereeing
import support
from support import raises, stepped

from cardtable import record, referee
from cardtable.games import load
from cardtable.rng import Random


def fixture(name):
    return support.fixture("nonesuch", name)


# legal.jsonl, worked by hand. Four players, dealer 0; the up card is the Cave (7 Waves/Wyrms).
# Bids from the dealer's left: seat 1 SOME, seat 2 MOST, seat 3 SOME, seat 0 NONE. Seat 3 shows
# the Excuse, takes the Cave and names Wyrms trump. Trumps are the cards carrying Wyrms.
#  1. s1 CS  (Suns)   3SK 9MS 5SW      no trump: Crown of Suns     -> s1
#  2. s1 CL  (Leaves) 6LK 4WL 7ML      no trump: Crown of Leaves   -> s1
#  3. s1 AK  (Knots)  2MK 4YK CK       4YK follows Knots, only trump (trumps broken) -> s3
#  4. s3 8YK (Wyrms)  3LY AS CY        trumps 8, 3, 10             -> s2
#  5. s2 CM  (Moons)  5ML 3MW 6MW      Crown of Moons              -> s2
#  6. s2 8MS (Suns)   2SY 7SK AM       the seed's example: 2SY follows Suns, only trump -> s3
#  7. s3 CW  (Waves)  AW 2WL 4MS       Crown of Waves              -> s3
#  8. s3 7WY (Waves)  8WL AL AY        trumps 7 and 1              -> s3
#  9. s3 5YK (Knots)  9WY 9LK 6SY      trumps 5, 9, 6              -> s0
# Tricks: s0 1, s1 2, s2 2, s3 4. Points: s0 NONE with a trick -1; s1 SOME +2; s2 MOST with 2
# of the 5 needed (4 players) -3; s3 SOME +4. Scores [-1, 2, -3, 4]; nobody has 31: not over.
WORKED_TRICKS = [1, 1, 3, 2, 2, 3, 3, 3, 0]
WORKED_SCORES = [-1, 2, -3, 4]


def test_a_legal_record_scores_as_counted_by_hand():
    out = referee.referee(fixture("legal.jsonl"))
    assert out["ok"] and out["rejected"] == [] and out["revokes"] == []
    assert out["tricks"] == WORKED_TRICKS and out["scores"] == WORKED_SCORES
    assert not out["over"] and out["winner"] is None


def test_an_illegal_record_names_the_rejected_lines():
    # Line 8: seat 3 names Suns, not a suit of the Cave; line 9 names Wyrms. Line 11: seat 2
    # plays the Huntress (Moons) to the Crown of Suns while holding the Painter (3 Suns/Knots);
    # line 12 plays the Painter. The rest is the legal record.
    out = referee.referee(fixture("illegal.jsonl"))
    assert not out["ok"]
    assert out["rejected"] == [
        {"line": 8, "seat": 3, "reason": "trump is waves or wyrms, the suits of the up card"},
        {"line": 11, "seat": 2, "reason": "must follow suns"}]
    assert out["tricks"] == WORKED_TRICKS and out["scores"] == WORKED_SCORES


def test_a_malformed_record_names_the_line():
    err = raises(record.RecordError, referee.referee, fixture("malformed.jsonl"))
    assert err.line == 11 and "4MW" in err.message


def test_unseen_hands_revokes_are_reported_on_the_lines_that_prove_them():
    # Only the up card was seen. Seat 0 plays the Mill (8 Waves/Leaves) to the Crown of Suns in
    # trick 1, so shows out of Suns; then plays the Castle (7 Suns/Knots) in trick 6 (line 31)
    # and the Discovery (5 Suns/Waves) in trick 8 (line 38): one revoke, in trick 1, proven at
    # line 31 (the Discovery proves the same offence again: it is not counted twice).
    # Every play is accepted and the tricks fall as in the legal record.
    out = referee.referee(fixture("unseen-revoke.jsonl"))
    assert out["rejected"] == [] and not out["ok"]
    assert out["revokes"] == [
        {"ev": "revoke", "seat": 0, "hand": 1, "trick": 1, "card": "7SK", "line": 31, "revoked_line": 12}]
    assert out["tricks"] == WORKED_TRICKS and out["scores"] == WORKED_SCORES


def test_records_name_the_suit_only_when_leading_and_read_back():
    # The record of a lead carries "suit"; a follow does not; bids and the trump choice are words
    # and letters.
    lines = fixture("legal.jsonl")
    g, actions = record.load(lines)
    for lineno, action in actions:
        g.apply(action)
        assert json.loads(lines[lineno - 1]) == record.encode(g, action)
    objs = [json.loads(t) for t in lines if t.strip()]
    assert objs[7] == {"seat": 3, "act": "trump", "suit": "Y"}
    assert objs[36] == {"seat": 3, "act": "play", "card": "7WY", "suit": "W"}
    assert "suit" not in objs[37] and objs[37]["card"] == "8WL"


@stepped
def test_a_simulated_game_round_trips_through_the_record():
    # Bots play a game (to 15, set in the header); the record written from it replays to the
    # same result, with the hands shown or left out.
    for seats, seed in ((3, 4), (4, 5)):
        g = load("nonesuch", seats=seats, rules={"target": 15})
        rng = Random(seed)
        while not g.over:
            if g.phase == "bid":
                g.apply((g.turn[0], "bid", "some"))
            else:
                g.apply(g.bot_action(rng))
            yield
        lines = [json.dumps(record.header(g))]
        hidden = [lines[0]]
        for a in g.history:
            obj = record.encode(g, a)
            lines.append(json.dumps(obj))
            if a[1] == "deal":
                obj = {"act": "deal", "up": obj["up"]}
            hidden.append(json.dumps(obj))
            if len(lines) % 20 == 0:
                yield
        assert '"target": 15' in lines[0]
        out = yield from refereeing(lines)
        assert out["ok"] and out["scores"] == g.scores and out["winner"] == g.winner
        assert out["tricks"] == g.trick_winners and out["over"] and max(g.scores) >= 15
        lines = None
        out = yield from refereeing(hidden)
        assert out["ok"] and out["scores"] == g.scores and out["tricks"] == g.trick_winners
