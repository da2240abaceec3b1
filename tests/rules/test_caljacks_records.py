"""California Jacks records through the referee, checked against an independent count."""
import json

import support
from playout import refereeing
from support import stepped

from cardtable import record

_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_ORDER = {"A": 14, "J": 11, "Q": 12, "K": 13}
_POINTS = {"10": 10, "A": 4, "K": 3, "Q": 2, "J": 1}


def _rank(code):
    return code[:-1]


def _strength(code):
    r = _rank(code)
    return _ORDER.get(r) or int(r)


def count_by_hand(lines):
    """Tricks, High/Low/Jack/Game and void penalties worked out from the record text alone."""
    head = json.loads(lines[0])
    penalty = head["rules"].get("void_penalty", 1)
    scores = [0, 0]
    winners = []
    dealer = head["dealer"]
    hand = None
    for line in lines[1:]:
        if not line.strip():
            continue
        obj = json.loads(line)
        if obj["act"] == "deal":
            if hand:
                dealer = 1 - dealer
            trump = obj["stock"][0][-1]
            hand = {"trump": trump, "won": [[], []], "trick": []}
            continue
        seat, card = obj["seat"], obj["card"]
        trick = hand["trick"]
        if trick:
            led = trick[0][1][-1]
            if card[-1] != led and card[-1] != hand["trump"]:
                scores[seat] -= penalty          # could neither follow nor trump
        trick.append((seat, card))
        if len(trick) == 2:
            led = trick[0][1][-1]
            best = max(trick, key=lambda p: (p[1][-1] == hand["trump"], p[1][-1] == led, _strength(p[1])))
            winners.append(best[0])
            hand["won"][best[0]] += [c for _, c in trick]
            hand["trick"] = []
            if sum(len(w) for w in hand["won"]) == 52:
                t = hand["trump"]
                took = [set(w) for w in hand["won"]]
                order = []
                for code in ("A" + t, "2" + t, "J" + t):
                    order.append(0 if code in took[0] else 1)
                pts = [sum(_POINTS.get(_rank(c), 0) for c in w) for w in hand["won"]]
                if pts[0] != pts[1]:
                    order.append(0 if pts[0] > pts[1] else 1)
                first = None
                for s in order:
                    scores[s] += 1
                    if first is None and scores[s] >= head["rules"].get("target", 10):
                        first = s                # the first to reach it in count order wins
                        if head["rules"].get("end_count") == "count_out":
                            return winners, scores, s
                if first is not None:
                    return winners, scores, first
    return winners, scores, None


@stepped
def test_a_legal_record_scores_as_the_rules_say():
    lines = support.fixture("california-jacks", "legal.jsonl")
    winners, scores, winner = count_by_hand(lines)
    r = yield from refereeing(lines)
    assert r["ok"] and r["rejected"] == [] and r["revokes"] == []
    assert r["tricks"] == winners and r["scores"] == scores
    assert r["over"] and r["winner"] == winner


@stepped
def test_a_legal_record_in_the_count_out_variant():
    lines = support.fixture("california-jacks", "legal.jsonl")
    head = json.loads(lines[0])
    head["rules"]["end_count"] = "count_out"
    lines = [json.dumps(head)] + lines[1:]
    winners, scores, winner = count_by_hand(lines)
    r = yield from refereeing(lines)
    assert r["ok"] and r["tricks"] == winners and r["scores"] == scores
    assert r["over"] and r["winner"] == winner and sorted(scores)[-1] == 1


@stepped
def test_an_illegal_play_is_rejected_with_a_reason_and_refereeing_goes_on():
    lines = support.fixture("california-jacks", "illegal.jsonl")
    r = yield from refereeing(lines)
    assert r["rejected"] == [{"line": 4, "seat": 0, "reason": "must follow spades"}]
    legal = support.fixture("california-jacks", "legal.jsonl")
    good = yield from refereeing(legal)
    assert r["scores"] == good["scores"] and r["tricks"] == good["tricks"]


def test_a_malformed_line_is_named():
    lines = support.fixture("california-jacks", "malformed.jsonl")
    try:
        record.load(lines)
    except record.RecordError as e:
        assert e.line == 10 and "bad card code '1H'" in str(e)
    else:
        raise AssertionError("the malformed record was accepted")
