"""NEXUS-Fairies property tests (CPython only): deck tables, scoring and play driven by hypothesis."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardtable import games
from cardtable.cards import fairies as fc
from cardtable.games.fairies import (DEFAULT_VALUES, deck_table, parse_value, read_values,
                                     score_parade, value_text, values_from_tags)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "fairies"

values = st.one_of(st.integers(-9, 9).map(lambda n: "%+d" % n if n else "0"),
                   st.sampled_from(["x2", "swap", "zero", "mushrooms"]))


@given(values)
def test_value_text_round_trips(v: str) -> None:
    assert value_text(parse_value(v)) == v


@given(st.lists(st.tuples(st.booleans(), values), min_size=1, max_size=12))
def test_parade_score_is_sum_times_product(cards: list[tuple[bool, str]]) -> None:
    # Build a parade from distinct cards: Mushrooms from 31 up, numbers from 1 up.
    table: list = [None] * 37
    parade = []
    nums, mush = iter(range(1, 31)), iter(range(31, 37))
    for is_m, v in cards:
        c = next(mush, None) if is_m else next(nums)
        if c is None:
            continue
        table[c] = parse_value(v)
        parade.append(c)
    mushrooms = sum(1 for c in parade if c > 30)
    expect_sum = sum(mushrooms if table[c][2] else table[c][0] for c in parade)
    expect_mult = 1
    for c in parade:
        expect_mult *= {"x2": 2, "swap": -1, "zero": 0}.get(value_text(table[c]), 1)
    assert score_parade(parade, table) == expect_sum * expect_mult
    # Order inside a parade never matters.
    assert score_parade(list(reversed(parade)), table) == score_parade(parade, table)


@given(st.dictionaries(st.sampled_from([fc.fmt(c) for c in range(1, 37)]), values, max_size=10))
def test_any_override_is_accepted_iff_it_meets_the_constraints(over: dict[str, str]) -> None:
    texts = list(DEFAULT_VALUES)
    for code, v in over.items():
        texts[fc.parse(code) - 1] = v
    ok = (texts.count("x2") >= 2 and texts.count("swap") >= 2 and texts.count("zero") == 1
          and texts.count("mushrooms") >= 2)
    if ok:
        assert len(deck_table(over)) == 37
        assert games.load("fairies", rules={"values": over}).table == deck_table(over)
    else:
        with pytest.raises(ValueError, match="bad deck table: the seed needs"):
            deck_table(over)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**16), st.lists(st.integers(0, 10**6), min_size=60, max_size=60),
       st.booleans())
def test_chosen_play_keeps_the_books(seed: int, picks: list[int], double: bool) -> None:
    from cardtable.rng import Random
    g = games.load("fairies", rules={"double_ended": double})
    g.apply(g.random_deal(Random(seed)))
    for i, pick in enumerate(picks):
        if g.over:
            break
        choices = g.legal(g.turn[0])
        a = choices[pick % len(choices)]
        if i % 7 == 3:
            before = json.dumps(g.dump())
            g.apply(a)
            g.undo()
            assert json.dumps(g.dump()) == before
        g.apply(a)
        n, held = len(g.nexus), g.held
        if not g.over:
            assert (n % 2 == 1) == (g.turn == (0,))
            assert n + sum(held) == 13 + 2 * g.refills
        seen = [c for c in g.nexus + g.parade + g.deck_cards + g.hands[0] + g.hands[1]]
        for zone in g.zones:
            for p in zone:
                seen.extend(p)
        assert sorted(seen) == list(range(1, 37))


def test_read_values_file() -> None:
    values = read_values(str(FIXTURES / "deck.json"))
    assert values["12"] == "x2" and len(values) == 36
    g = games.load("fairies", rules={"values": values})
    assert g.table[12] == (0, 2, 0)


def test_read_values_rejects_a_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "deck.json"
    bad.write_text(json.dumps({"1": "zero", "2": "zero"}))
    with pytest.raises(ValueError, match="exactly 1 zero card, this table has 3"):
        read_values(str(bad))
    bad.write_text(json.dumps(["1", "+2"]))
    with pytest.raises(ValueError, match="JSON object"):
        read_values(str(bad))


def test_tags_of_a_whole_deck() -> None:
    table = json.loads((FIXTURES / "deck.json").read_text())
    tags = ["%s:%s" % (code.lower(), v.upper()) for code, v in table.items()]
    assert values_from_tags(tags) == table
    assert values_from_tags(tags[:5] + ["7", "M3"]) == {k: table[k] for k in list(table)[:5]}
