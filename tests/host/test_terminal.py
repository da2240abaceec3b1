"""The terminal: colour as no-color.org says (a non-empty NO_COLOR turns it off, set but empty
does not; FORCE_COLOR and --color turn it on), and `rules` at the terminal's width with option
values spelt as in a record."""
from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

from cardtable_host.term import use_colour


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("env, tty, on", [
    ({}, True, True),
    ({}, False, False),
    ({"NO_COLOR": ""}, True, True),       # set but empty: no-color.org says colour stays
    ({"NO_COLOR": "1"}, True, False),
    ({"FORCE_COLOR": "1"}, False, True),
    ({"FORCE_COLOR": ""}, False, False),
    ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, True, False),
])
def test_colour_follows_no_color_and_force_color(env: dict[str, str], tty: bool, on: bool,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert use_colour(Tty() if tty else io.StringIO()) is on


def cardtable(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    e = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS")}
    e.update(env)
    return subprocess.run([sys.executable, "-m", "cardtable_host.cli", *args], capture_output=True,
                          text=True, timeout=120, env=e)


def test_color_option_colours_a_pipe_over_no_color() -> None:
    plain = cardtable("demo", "nexus", "--quiet", NO_COLOR="1")
    assert plain.returncode == 0 and "\x1b[" not in plain.stdout
    assert "\x1b[" not in cardtable("demo", "nexus", "--quiet").stdout  # a pipe: no colour
    forced = cardtable("--color", "demo", "nexus", "--quiet", NO_COLOR="1")
    assert forced.returncode == 0 and "\x1b[1m== nexus" in forced.stdout
    assert "\x1b[" in cardtable("demo", "nexus", "--quiet", FORCE_COLOR="1").stdout


@pytest.mark.parametrize("game", ["nexus", "fairies", "fortyfives", "nonesuch", "nerts", "california-jacks"])
def test_rules_fit_the_terminal_and_spell_values_as_a_record(game: str) -> None:
    r = cardtable("rules", game, COLUMNS="80", NO_COLOR="1")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert max(map(len, lines)) <= 80, max(lines, key=len)
    assert "…" not in r.stdout  # nothing cut short
    table = [ln for ln in lines if ln.count("|") >= 2]
    assert table and not any(w in ln.split("|")[1] + ln.split("|")[2] for ln in table
                             for w in ("True", "False", "None"))
    wide = cardtable("rules", game, COLUMNS="160", NO_COLOR="1").stdout.splitlines()
    assert len(wide) < len(lines) and max(map(len, wide)) <= 160


def test_nexus_options_read_as_json() -> None:
    out = cardtable("rules", "nexus", COLUMNS="100", NO_COLOR="1").stdout
    row = next(ln for ln in out.splitlines() if ln.startswith("up2_hidden"))
    assert [c.strip() for c in row.split("|")][:2] == ["up2_hidden", "true"]
    assert "false: both indicators visible" in row


def test_the_directors_replays_show_as_a_bar() -> None:
    import re
    import threading

    from cardtable_host.commands.tournament import watch_replays
    from cardtable_host.progress import Progress

    class Director:
        lock = threading.Lock()
        hashes = {"r1g1": "a", "r1g2": "b", "r1g3": "c"}
        refereeing = {"r1g3": "path"}

    out = io.StringIO()
    stop = threading.Event()
    bar = Progress(1, "replays", stream=out, enabled=True)
    ticks = []

    def tick() -> None:  # stop once the bar has been drawn twice
        while len(ticks) < 2:
            if "2/3" in out.getvalue():
                ticks.append(1)
                Director.refereeing = {}
                while "3/3" not in out.getvalue():
                    threading.Event().wait(0.01)
                ticks.append(1)
        stop.set()

    threading.Thread(target=tick, daemon=True).start()
    watch_replays(Director(), stop, bar, every=0.01)
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())
    assert "2/3 1 waiting for the referee" in re.sub(r" +", " ", screen)
    assert "3/3 all refereed" in re.sub(r" +", " ", screen)
