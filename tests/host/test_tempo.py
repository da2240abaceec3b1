"""Tempo from a record's times: each action's time since its seat's turn began, per seat and per
hand (median, slowest, a histogram), as `cardtable referee --tempo` prints it."""
from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
from pathlib import Path

from cardtable_host.serve import tempo

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "fortyfives" / "legal.jsonl"


def timed(path: Path, seed: int) -> tuple[list[str], list[int]]:
    lines = [x for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    rng = random.Random(seed)
    times, t = [], 0
    for _ in lines[1:]:
        times.append(t)
        t += rng.choice((300, 1500, 4000, 7000, 12000, 45000, 90000))
    head = json.loads(lines[0])
    head["times"] = times
    return [json.dumps(head)] + lines[1:], times


def test_each_action_is_timed_from_the_action_that_made_it_the_seats_turn(tmp_path) -> None:
    lines, times = timed(FIXTURE, 3)
    # Forty-Fives: one seat acts at a time, so a seat's turn begins with the line before its action
    objs = [json.loads(x) for x in lines[1:]]
    want = [(o["seat"], times[i] - times[i - 1]) for i, o in enumerate(objs) if "seat" in o]
    fig = tempo.figures(lines)
    assert fig is not None
    for row in fig["seats"]:
        ms = [m for s, m in want if s == row["seat"]]
        assert row["actions"] == len(ms)
        assert row["median_ms"] == int(statistics.median(ms))
        assert row["slowest_ms"] == max(ms)
        assert sum(row["histogram"]) == len(ms)
        assert row["histogram"][5] == sum(1 for m in ms if m >= 60000)
        assert row["histogram"][0] == sum(1 for m in ms if m < 2000)
    assert sum(r["actions"] for r in fig["hands"]) == len(want)
    # the command prints the same figures
    path = tmp_path / "timed.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "cardtable_host.cli", "referee", "--tempo", str(path)],
                         capture_output=True, text=True, env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    text = out.stdout
    for row in fig["seats"]:
        line = [x for x in text.splitlines() if x.strip().startswith("seat %d " % row["seat"])][0]
        assert "median %7s" % tempo.seconds(row["median_ms"]) in line and "slowest %7s" % tempo.seconds(row["slowest_ms"]) in line
        assert tempo.histogram_words(row["histogram"]) in line
    assert "hand 1" in text
    js = json.loads(subprocess.run([sys.executable, "-m", "cardtable_host.cli", "referee", "--tempo", "--json", str(path)],
                                   capture_output=True, text=True).stdout)
    assert js == json.loads(json.dumps(fig))


def test_a_record_without_times_says_so(tmp_path) -> None:
    out = subprocess.run([sys.executable, "-m", "cardtable_host.cli", "referee", "--tempo", str(FIXTURE)],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "keeps no times" in out.stderr
    bad = tmp_path / "bad.jsonl"
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    head["times"] = ["soon"]
    bad.write_text("\n".join([json.dumps(head)] + lines[1:]) + "\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "cardtable_host.cli", "referee", "--tempo", str(bad)],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "\"times\" must be a list of whole ms" in out.stderr


def test_seconds_are_tenths_half_up_as_the_page_shows_them() -> None:
    # the archive page (web/tempo.js) rounds half up; "%.1f" would print 1250 ms as "1.2 s"
    assert [tempo.seconds(ms) for ms in (1150, 1249, 1249.5, 1250, 60000, 0)] == \
        ["1.2 s", "1.2 s", "1.2 s", "1.3 s", "60.0 s", "0.0 s"]
    assert tempo.seconds(None) == "-"
