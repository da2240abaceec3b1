"""The link under hypothesis (CPython only): any bytes, any JSON-shaped command, every line
answered with its id, no crash, the game unchanged by what was refused (linkfuzz.Harness)."""
import json
import os
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "device"))

import linkfuzz  # noqa: E402
from simtable import built, table  # noqa: E402

from cardtable.link import COMMANDS  # noqa: E402


def _build(board, layout):
    from cardtable.hw_sim import MemStorage

    return built(table(board, layout, storage=MemStorage(), history=False))


@pytest.fixture(scope="module")
def harness():
    return linkfuzz.Harness(_build("pico-i2c-4seat", "fortyfives"))


SCALAR = (st.none() | st.booleans() | st.integers() | st.integers(-2**70, 2**70)
          | st.floats(allow_nan=True) | st.text(max_size=12)
          | st.sampled_from(["AS", "10H", "pass", "bid 20", "trump H", "s0", "kitty", "fortyfives"]))
VALUE = st.recursive(SCALAR, lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=12)
FIELDS = st.sampled_from(list(linkfuzz.KEYS))
COMMAND = st.fixed_dictionaries(
    {"cmd": st.sampled_from(COMMANDS) | st.text(max_size=6) | VALUE},
    optional={"id": st.integers() | st.text(max_size=8) | VALUE,
              "action": st.fixed_dictionaries({"act": st.sampled_from(["play", "bid", "deal", "discard", "trump"]) | VALUE},
                                              optional={"seat": st.integers(-2, 5) | VALUE,
                                                        "card": VALUE, "bid": VALUE, "cards": VALUE})}
).flatmap(lambda d: st.dictionaries(FIELDS, VALUE, max_size=3).map(lambda extra: {**extra, **d}))

CHECKS = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))


def _check(h):
    assert h.crashes == [], h.crashes[:3]
    assert h.changed == [], h.changed[:3]


@CHECKS
@given(line=st.binary(max_size=1400))
def test_any_bytes_get_one_error_or_answer(harness, line):
    harness.feed(line.replace(b"\n", b" ").replace(b"\r", b" "))
    _check(harness)


@CHECKS
@given(cmd=COMMAND)
def test_any_json_command_gets_exactly_one_answer_with_its_id(harness, cmd):
    harness.feed(json.dumps(cmd).encode())
    _check(harness)


@CHECKS
@given(seed=st.integers(0, 2**30), text=st.text(max_size=200))
def test_any_text_in_a_mutated_command_gets_one_answer(harness, seed, text):
    from cardtable.rng import Random

    rng = Random(seed)
    line = linkfuzz.mutate(rng, rng.choice(linkfuzz.VALID).encode())
    at = rng.below(len(line) + 1)
    harness.feed((line[:at] + text.encode("utf-8", "surrogatepass") + line[at:]).replace(b"\n", b" ").replace(b"\r", b" "))
    _check(harness)


def test_ctrl_c_alone_on_a_line_is_the_deliberate_stop_not_a_crash(harness):
    # hypothesis found it: a line of nothing but Ctrl-C leaves the table for the REPL (a
    # KeyboardInterrupt), which took the test's worker down with it
    harness.feed(b"\x03\x03")
    harness.feed(b"\x03 ")  # not Ctrl-C alone: an ordinary bad line
    harness.feed(json.dumps({"cmd": "hello", "id": 7}).encode())
    _check(harness)
