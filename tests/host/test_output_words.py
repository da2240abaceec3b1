"""What a person reads: no Python reprs in demo, referee and rules output; aliases; score sheets."""
from __future__ import annotations

import os
import re
from typing import Callable

import pytest

from cardtable import games

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
REPR = re.compile(r"\{'|\['|\bNone\b")


class Run:
    """What one in-process `cardtable` command printed, and its exit status."""

    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


@pytest.fixture
def cardtable(capsys: pytest.CaptureFixture[str],
              monkeypatch: pytest.MonkeyPatch) -> Callable[..., Run]:
    """Run a `cardtable` command in this process (NO_COLOR set) and capture its output."""
    from cardtable_host.cli import main

    monkeypatch.setenv("NO_COLOR", "1")

    def run(*args: str) -> Run:
        capsys.readouterr()
        code = main(list(args))
        out, err = capsys.readouterr()
        return Run(code, out, err)

    return run


def test_demo_of_every_game_prints_no_python_repr(cardtable: Callable[..., Run]) -> None:
    names = list(games.GAMES)
    assert names and names == games.available()  # every registered game is here to demo
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


# the games with a revoke fixture (tests/fixtures/GAME/unseen-revoke.jsonl)
REVOKE_FIXTURES = sorted(n for n in games.GAMES if os.path.exists(os.path.join(FIXTURES, n, "unseen-revoke.jsonl")))


@pytest.mark.parametrize("name", REVOKE_FIXTURES)
def test_referee_names_the_revoking_line_and_the_line_that_proves_it(
        name: str, cardtable: Callable[..., Run]) -> None:
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


def test_referee_trick_option_shows_one_trick_with_its_lines(cardtable: Callable[..., Run]) -> None:
    path = os.path.join(FIXTURES, "nexus", "unseen-revoke.jsonl")
    p = cardtable("referee", path, "--hand", "1", "--trick", "2")
    assert re.search(r"trick 2, seat 0: \S+ at line \d+", p.stdout), p.stdout
    p = cardtable("referee", path, "--hand", "9")
    assert p.returncode == 2 and "no hand 9" in p.stderr
    p = cardtable("referee", os.path.join(FIXTURES, "nerts", "legal.jsonl"), "--trick", "1")
    assert p.returncode == 2 and "nerts has no tricks to show" in p.stderr


def test_suit_glyphs_red_and_black_only_where_colour_is_on() -> None:
    from cardtable_host.term import card_glyph, paint, style_cards

    assert card_glyph("10H") == "\x1b[31m10\u2665\x1b[0m"
    assert card_glyph("AS#2") == "\x1b[39mA\u2660#2\x1b[0m"
    assert card_glyph("8MS") == "8MS" and card_glyph("BJ") == "BJ"
    # a red card inside a cyan line: the line's colour comes back after the card
    line = paint("seat 0 draws %s now" % card_glyph("KD"), "cyan", True)
    assert line.endswith("\x1b[0m\x1b[36m now\x1b[0m")
    g = games.load("fortyfives")
    style_cards(g, True)
    assert "\u2665" in g.action_words({"seat": 1, "act": "play", "card": "5H"})
    style_cards(g, False)
    assert g.action_words({"seat": 1, "act": "play", "card": "5H"}) == "seat 1 plays 5H"
    n = games.load("nonesuch")
    style_cards(n, True)                 # Decktet cards have no glyphs: plain codes
    assert n.card_style is None


@pytest.mark.parametrize("alias,gid", [("45s", "fortyfives"), ("forty-fives", "fortyfives"),
                                       ("cal-jacks", "california-jacks")])
def test_rules_accepts_aliases(alias: str, gid: str, cardtable: Callable[..., Run]) -> None:
    p = cardtable("rules", alias, "--json")
    assert p.returncode == 0 and '"game": "%s"' % gid in p.stdout


def test_rules_suggests_a_near_miss_and_speaks_to_players(cardtable: Callable[..., Run]) -> None:
    p = cardtable("rules", "fortyfivs")
    assert p.returncode == 2 and "did you mean fortyfives?" in p.stderr
    for name in games.GAMES:
        text = cardtable("rules", name).stdout
        for word in ("research/", "rules-decisions", "``", "Verbs:", "Deal piles"):
            assert word not in text, (name, word)
    fairies = cardtable("rules", "fairies").stdout
    assert "Meditation Example" in fairies and "Scoring Examples" in fairies
