"""What a person reads: no Python reprs in demo, referee and rules output; aliases; score sheets."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from cardtable import games

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
REPR = re.compile(r"\{'|\['|\bNone\b")


def cardtable(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "cardtable_host.cli", *args],
                          capture_output=True, text=True, timeout=300, env=env)


def test_demo_of_every_game_prints_no_python_repr() -> None:
    names = list(games.GAMES)
    assert len(names) == 6
    p = cardtable("demo", *names, "--seed", "5")
    assert p.returncode == 0, p.stderr
    bad = [ln for ln in p.stdout.splitlines() if REPR.search(ln)]
    assert not bad, bad[:5]
    for name in names:
        assert "== %s," % name in p.stdout
    # no action printed twice: no event echoes the action line above it
    assert not re.search(r"^\s+(bid|pass|sow|excuse|center|trump|play): ", p.stdout, re.M)
    # a score sheet after each hand, totals as the game keeps them
    assert p.stdout.count("total") >= 6
    assert "\x1b[" not in p.stdout and "\u2665" not in p.stdout     # NO_COLOR: plain codes


@pytest.mark.parametrize("name", ["nexus", "fortyfives", "nonesuch"])
def test_referee_names_the_revoking_line_and_the_line_that_proves_it(name: str) -> None:
    p = cardtable("referee", os.path.join(FIXTURES, name, "unseen-revoke.jsonl"))
    assert p.returncode == 1
    m = re.search(r"line (\d+): seat (\d) revoked in trick (\d+) of hand (\d+); line (\d+) "
                  r"proves it", p.stdout)
    assert m, p.stdout
    assert int(m.group(1)) < int(m.group(5))
    # the trick grid of the disputed hand marks leader, winner and the revoke
    assert "> led, * won, ! revoked" in p.stdout
    grid = p.stdout.split("> led, * won, ! revoked", 1)[1]
    assert "!" in grid and ">" in grid and "*" in grid
    assert not [ln for ln in p.stdout.splitlines() if REPR.search(ln)]


def test_referee_trick_option_shows_one_trick_with_its_lines() -> None:
    path = os.path.join(FIXTURES, "nexus", "unseen-revoke.jsonl")
    p = cardtable("referee", path, "--hand", "1", "--trick", "2")
    assert re.search(r"trick 2, seat 0: \S+ at line \d+", p.stdout), p.stdout
    p = cardtable("referee", path, "--hand", "9")
    assert p.returncode == 2 and "no hand 9" in p.stderr


@pytest.mark.parametrize("alias,gid", [("45s", "fortyfives"), ("forty-fives", "fortyfives"),
                                       ("cal-jacks", "california-jacks")])
def test_rules_accepts_aliases(alias: str, gid: str) -> None:
    p = cardtable("rules", alias, "--json")
    assert p.returncode == 0 and '"game": "%s"' % gid in p.stdout


def test_rules_suggests_a_near_miss_and_speaks_to_players() -> None:
    p = cardtable("rules", "fortyfivs")
    assert p.returncode == 2 and "did you mean fortyfives?" in p.stderr
    for name in games.GAMES:
        text = cardtable("rules", name).stdout
        for word in ("research/", "rules-decisions", "``", "Verbs:", "Deal piles"):
            assert word not in text, (name, word)
    fairies = cardtable("rules", "fairies").stdout
    assert "Meditation Example" in fairies and "Scoring Examples" in fairies
