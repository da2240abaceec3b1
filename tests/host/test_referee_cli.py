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
