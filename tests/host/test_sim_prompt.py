"""The sim> prompt (issue 15, defects 4 and 6): a missing argument is a usage line, never a lost
game; the bidding games are played in a player's words, the prompt saying whose turn it is and
what the player may do, and the bots' lines never run on after the prompt."""
from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time

import pytest
from hostsupport import need_node

pytest.importorskip("termios")  # ptys are POSIX only

need_node()


class Sim:
    """`cardtable sim ARGS` with the person's keyboard on a pipe."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "cardtable_host.cli", "sim", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True,
                                     env=dict(os.environ, NO_COLOR="1"))
        self.out = ""
        self.at = 0  # until() looks from here on

    def until(self, text: str, timeout: float = 40) -> str:
        """Wait for text (after what was waited for last); the output up to it."""
        assert self.proc.stdout is not None
        end = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while text not in self.out[self.at:]:
            assert time.monotonic() < end, "no %r in:\n%s" % (text, self.out[self.at:])
            r, _, _ = select.select([fd], [], [], 0.2)
            if r:
                data = os.read(fd, 65536)
                assert data, "the simulator ended:\n" + self.out
                self.out += data.decode()
        i = self.out.index(text, self.at) + len(text)
        said, self.at = self.out[self.at:i], i
        return said

    def type(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def quit(self) -> int:
        self.type("quit")
        try:
            return self.proc.wait(timeout=30)
        finally:
            self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def test_a_command_without_its_argument_says_how_to_use_it_and_the_game_goes_on() -> None:
    sim = Sim("nexus", "--bots", "1", "--seed", "1")
    try:
        sim.until("seat 1 plays LJ")
        for word, usage in (("lift", "lift ZONE"), ("press", "press WHAT"), ("turn", "turn ENCODER STEPS"),
                            ("kill", "kill ZONE"), ("revive", "revive ZONE"), ("place s0", "place ZONE CARD"),
                            ("turn at 2x", "STEPS must be a whole number"), ("bid", "bid N")):
            sim.type(word)
            sim.until("usage: " + usage)
        sim.type("play 5S")  # the game was not lost: seat 0 follows trumps
        sim.until("seat 0 plays 5S")
        assert sim.quit() == 0
        assert "Traceback" not in sim.out and "IndexError" not in sim.out, sim.out
    finally:
        sim.close()


def test_a_person_bids_names_trump_and_discards_in_words() -> None:
    sim = Sim("fortyfives", "--bots", "3", "--seed", "26", "--no-mistakes", "--delay", "0")
    try:
        sim.until("seat 0, your turn: pass; bid 20 | 25 | 30")
        sim.type("buttons")  # by what they do, not k0..k8 alone
        assert re.search(r"bid 20 +\(button k1\)", sim.until("trump S"))
        sim.type("bid 20")
        sim.until("seat 0 bids 20")
        sim.until("seat 0, your turn: trump C | D | H | S")
        sim.type("trump S")
        sim.until("seat 0 names spades trump")
        said = sim.until("seat 0, your turn: discard 3 to 7 of your cards")
        assert re.search(r"seat [123] discards \d cards? face down", said), said
        sim.type("hand")
        sim.until("seat 0: ")
        hand = sim.until("\n").split()
        assert len(hand) == 8, hand
        sim.type("discard %s" % " ".join(hand[:3]))
        sim.until("seat 0 discards 3 cards face down")
        sim.until("seat 0, your turn: play ")  # the bidder leads
        assert sim.quit() == 0
        # the prompt's line is never continued by a bot's action
        assert not re.search(r"sim> [^\n]*seat [123] ", sim.out), sim.out
        for code in hand[:3]:  # the person's own discards are face down for the table too
            assert "discards %s" % code not in sim.out
    finally:
        sim.close()


def test_a_button_is_named_by_what_it_does() -> None:
    from cardtable_host.narrate import source_words

    buttons = {"k4": "pass", "k1": "bid 20"}
    assert source_words("button k4", buttons) == "pass button"
    assert source_words("button k1", buttons) == "bid 20 button"
    assert source_words("zone s1", buttons) == "zone s1"
    assert source_words("button k9", buttons) == "button k9"  # a button the layout does not know


def test_a_card_played_again_is_told_not_silently_ignored() -> None:
    sim = Sim("nexus", "--bots", "1", "--seed", "1")
    try:
        sim.until("seat 1 plays LJ")
        sim.type("play 5S")
        sim.until("seat 0 plays 5S")
        sim.until("seat 0, your turn")  # the bots wait for seat 0 now
        sim.type("play 5S")  # the card just played, laid again
        said = sim.until("the table took no play of 5S")
        assert "seat 0 plays 5S" not in said
        assert sim.quit() == 0
    finally:
        sim.close()


class _Table:
    """A table whose buttons only record what was asked for."""

    def __init__(self) -> None:
        from types import SimpleNamespace

        self.asked: list[str] = []
        self.layout = SimpleNamespace(buttons={})

    def button(self, meaning: str) -> None:
        self.asked.append(meaning)
        return None


def test_suits_are_taken_by_name_as_for_trump() -> None:
    from types import SimpleNamespace

    from cardtable import games
    from cardtable_host.sim import simprompt

    pressed: list[str] = []
    table = _Table()
    bots = SimpleNamespace(table=table, shadow=games.load("nonesuch"), seats=4, bots={1, 2, 3},
                           link=SimpleNamespace(press=pressed.append), settle=lambda t: None)
    prompt = simprompt.People(bots, SimpleNamespace(json=False, prompting=False, line=print), None)
    for said in ("waves", "W", "w", "Waves"):
        prompt.run("suit %s" % said)
    assert pressed == ["suit W"] * 4
    with pytest.raises(ValueError) as e:
        prompt.run("suit spades")
    assert "not a suit of the nonesuch deck" in str(e.value) and "waves" in str(e.value)
    assert pressed == ["suit W"] * 4  # nothing pressed for a suit the deck does not have
