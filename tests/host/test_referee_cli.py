"""`cardtable referee` on every game's fixtures: exit codes, --json, line-numbered errors."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
GAMES = sorted(d for d in os.listdir(FIXTURES) if os.path.isdir(os.path.join(FIXTURES, d)))


def referee(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cardtable_host.cli", "referee", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("game", GAMES)
def test_legal_records_exit_0_with_scores(game: str) -> None:
    p = referee("--json", os.path.join(FIXTURES, game, "legal.jsonl"))
    assert p.returncode == 0, p.stdout + p.stderr
    r = json.loads(p.stdout)
    assert r["ok"] and r["game"] == game and isinstance(r["scores"], list)


@pytest.mark.parametrize("game", GAMES)
def test_illegal_records_exit_1_naming_line_and_reason(game: str) -> None:
    p = referee("--json", os.path.join(FIXTURES, game, "illegal.jsonl"))
    assert p.returncode == 1, p.stdout + p.stderr
    r = json.loads(p.stdout)
    assert not r["ok"] and r["rejected"]
    for rej in r["rejected"]:
        assert isinstance(rej["line"], int) and rej["reason"] and " " in rej["reason"]
    human = referee(os.path.join(FIXTURES, game, "illegal.jsonl"))
    assert human.returncode == 1 and "REJECTED: " + r["rejected"][0]["reason"] in human.stdout


@pytest.mark.parametrize("game", GAMES)
def test_malformed_records_exit_2_naming_the_line(game: str) -> None:
    p = referee(os.path.join(FIXTURES, game, "malformed.jsonl"))
    assert p.returncode == 2
    assert "malformed.jsonl: line " in p.stderr


def test_a_missing_file_and_stdin() -> None:
    p = referee("no-such-file.jsonl")
    assert p.returncode == 2 and "cannot read" in p.stderr
    legal = open(os.path.join(FIXTURES, "california-jacks", "legal.jsonl")).read()
    p = subprocess.run([sys.executable, "-m", "cardtable_host.cli", "referee", "--json", "-"],
                       input=legal, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and json.loads(p.stdout)["ok"]


def test_an_undo_line_takes_back_the_action_before_it(tmp_path) -> None:
    head = '{"game": "california-jacks", "seats": 2, "dealer": 0, "rules": {}}'
    deal = ('{"act": "deal", "hands": [["2C","3D","4D","5D","6D","7D"], '
            '["KC","8H","9H","10H","JH","QH"]], "up": ["9S"]}')
    wrong = '{"seat": 0, "act": "play", "card": "2C"}'  # seat 1 leads: not seat 0's turn
    lines = [head, deal, wrong, '{"act": "undo"}', '{"seat": 1, "act": "play", "card": "KC"}']
    rec = tmp_path / "undo.jsonl"
    rec.write_text("\n".join(lines) + "\n")
    p = referee("--json", str(rec))
    assert p.returncode == 0, p.stdout + p.stderr
    rec.write_text("\n".join(lines[:3] + lines[4:]) + "\n")  # the same without the undo line
    assert referee("--json", str(rec)).returncode == 1


@pytest.mark.parametrize("game, first, then", [("fortyfives", (23, 27), 31),
                                               ("nonesuch", (12, 31), 38)])
def test_a_revoke_is_one_offence_proven_once_named_by_both_lines(game: str, first: tuple[int, int],
                                                                  then: int) -> None:
    # Issue 30 (11): the seat held back two cards of the suit it showed out of; the first one it
    # plays proves the revoke, the second proves the same offence again and is not counted.
    path = os.path.join(FIXTURES, game, "unseen-revoke.jsonl")
    p = referee(path)
    assert p.returncode == 1, p.stdout + p.stderr
    assert p.stdout.lower().count("revoke proven") == 1, p.stdout
    assert "%s: 0 rejected, 1 revoke\n" % game in p.stdout
    assert "  line %d: seat 0 revoked in trick" % first[0] in p.stdout
    assert "; line %d proves it: " % first[1] in p.stdout
    assert "line %d proves it" % then not in p.stdout
    r = json.loads(referee("--json", path).stdout)
    assert [(rv["revoked_line"], rv["line"]) for rv in r["revokes"]] == [first]


def _record(tmp_path, lines: list[str]) -> str:
    rec = tmp_path / "record.jsonl"
    rec.write_text("\n".join(lines) + "\n")
    return str(rec)


_HEAD = '{"game": "california-jacks", "seats": 2, "dealer": 0}'
_DEAL = '{"act": "deal", "up": ["9S"]}'


def test_a_record_beyond_the_referees_limits_is_refused_naming_the_limit(tmp_path) -> None:
    # Issue 30 (13): a record of endless rejected actions, of too many actions or too many
    # bytes costs the referee no more than its limits: exit 2, the limit named.
    from cardtable import record
    from cardtable import referee as rules_referee

    wrong = '{"seat": 0, "act": "play", "card": "2C"}'  # seat 1 is to lead
    p = referee(_record(tmp_path, [_HEAD, _DEAL] + [wrong] * (rules_referee.MAX_REJECTED + 5)))
    assert p.returncode == 2, p.stderr[-300:]
    n = rules_referee.MAX_REJECTED
    assert "line %d: more than %d rejected actions: the referee's limit" % (n + 3, n) in p.stderr
    assert p.stdout.count("REJECTED") <= n, "it stopped at the limit"
    p = referee("--json", _record(tmp_path, [_HEAD, _DEAL] + [wrong] * (n + 5)))
    assert p.returncode == 2 and json.loads(p.stdout)["line"] == n + 3
    # many actions, all legal to read (each undo takes back the one before)
    lines = [_HEAD, _DEAL] + ['{"seat": 1, "act": "play", "card": "KC"}', '{"act": "undo"}'] \
        * (record.MAX_LINES // 2 + 1)
    p = referee("--quiet", _record(tmp_path, lines))
    m = record.MAX_LINES
    assert p.returncode == 2 and "line %d: more than %d actions: the referee's limit" % (m + 2, m) \
        in p.stderr, p.stderr[-300:]
    big = tmp_path / "big.jsonl"
    with open(big, "w") as f:
        f.write(_HEAD + "\n" + _DEAL + "\n")
        f.write(" " * (rules_referee.MAX_BYTES) + "\n")
    p = referee(str(big))
    assert p.returncode == 2 and "larger than %d MB: the referee's limit" % (
        rules_referee.MAX_BYTES >> 20) in p.stderr, p.stderr


def test_a_key_given_twice_in_a_line_is_refused_with_the_line(tmp_path) -> None:
    # Issue 30 (13): JSON takes the last of two equal keys silently; a record may not say
    # two things in one line.
    twice = '{"seat": 1, "act": "play", "card": "KC", "card": "2C"}'
    p = referee(_record(tmp_path, [_HEAD, _DEAL, twice]))
    assert p.returncode == 2 and "line 3: the key 'card' is given twice" in p.stderr, p.stderr
    p = referee(_record(tmp_path, ['{"game": "nexus", "game": "california-jacks", "seats": 2}', _DEAL]))
    assert p.returncode == 2 and "line 1: the key 'game' is given twice" in p.stderr, p.stderr
    nested = '{"act": "deal", "hands": [null, null], "up": ["9S"], "up": ["8S"]}'
    p = referee(_record(tmp_path, [_HEAD, nested]))
    assert p.returncode == 2 and "line 2: the key 'up' is given twice" in p.stderr, p.stderr
