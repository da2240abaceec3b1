"""`cardtable serve --delay` and `--reveal` (issue 31): the overlay's feed runs that many
seconds behind the table while the table page stays live; the hands the deal pad read reach the
archive's pages and download only as --reveal allows."""
from __future__ import annotations

import json
import time

import pytest
from hostsupport import need_node
from servesupport import Serve, Viewer

pytest.importorskip("aiohttp")
pytest.importorskip("termios")
need_node()

DELAY = 1.5


def test_the_overlay_shows_each_play_no_sooner_than_the_delay_after_the_table(tmp_path) -> None:
    with Serve("--sim", "fortyfives", "--bot-delay", "0.05", "--delay", str(DELAY), "--http", "127.0.0.1:0",
               "--archive", str(tmp_path), "--players", "Ann,Bob,Cy,Di", "-q") as s:
        live = Viewer(s.url)
        s.wait_for(lambda: len(live.messages) > 5, 60, "the table live")
        ov = Viewer(s.url, path="ws/overlay")
        s.wait_for(lambda: sum(1 for m in ov.messages if m.get("type") == "state") >= 10, 90, "ten plays on the overlay")
        joined = ov.times[0]
        ov.close()  # first: the table's viewer has every play the overlay showed
        live.close()
    assert ov.messages[0]["type"] == "snapshot"
    # Each message carries "t", when serve took it from the board (CLOCK_MONOTONIC, which this
    # process shares): the table's viewers are sent it then, so the overlay's lateness is timed
    # from it, not from when this test's own viewer thread got round to reading the table's copy.
    assert live.messages[0]["type"] == "snapshot"
    since = live.messages[0]["n"]  # the table's viewer has every message after its snapshot's
    taken = {m["n"]: m["t"] for m in live.messages[1:]}
    first = ov.messages[0]["n"]
    if first in taken:  # where the overlay starts: a state serve took at least DELAY seconds before
        assert joined - taken[first] >= DELAY - 0.05, (joined - taken[first])
    late = []
    for m, t in zip(ov.messages[1:], ov.times[1:]):
        assert m["type"] == "state" and m.get("reading"), m
        if m["n"] > since:
            assert taken.get(m["n"]) == m["t"], m["n"]  # the very message the table was sent
        late.append(t - m["t"])
    assert len(late) >= 9, late
    # no play shows on the overlay before DELAY s have passed since the table showed it (the
    # timer's own granularity aside), and none lingers much longer
    assert min(late) >= DELAY - 0.05, late
    assert max(late) < DELAY + 2, late


def _deal_lines(text: str) -> list[dict]:
    return [o for o in map(json.loads, text.splitlines()[1:]) if o.get("act") == "deal"]


@pytest.mark.parametrize("reveal", ["never", "hand"])
def test_the_hands_the_deal_pad_read_reach_the_archive_only_as_reveal_allows(tmp_path, reveal: str) -> None:
    with Serve("--sim", "fortyfives", "--bot-delay", "0", "--deal-pad", "--no-mistakes", "--seed", "26", "--rule",
               "target=25", "--reveal", reveal, "--http", "127.0.0.1:0", "--archive", str(tmp_path), "-q") as s:
        s.wait_for(lambda: s.json("archive.json"), 300, "the game in the archive")
        stored = (tmp_path / s.json("archive.json")[0]["file"]).read_text(encoding="utf-8")
        status, download = s.get("archive/1.jsonl")
        pages = {p: s.get(p)[1] for p in ("archive/1.json", "archive/1/referee.json", "archive.json")}
        assert status == 200
        assert s.json("archive/1/referee.json")["verdict"] == ["Every action was legal."]
    dealt = {c for o in _deal_lines(stored) for h in o["hands"] for c in h}
    assert len(dealt) >= 20  # the table knew the hands: the deal pad read them
    shown = [p["dealt"] for p in json.loads(pages["archive/1/referee.json"])["played"]]
    if reveal == "never":
        assert all(set(o) == {"act"} or "hands" not in o for o in _deal_lines(download)), download[:400]
        assert '"hands"' not in download and '"stock"' not in download and '"kitty"' not in download
        discards = [o for o in map(json.loads, download.splitlines()[1:]) if o.get("act") == "discard"]
        assert discards and all(o["cards"] == [] and o["n"] >= 0 for o in discards), discards[:3]
        # the replay's words and views say no discarded card
        steps = json.loads(pages["archive/1.json"])["steps"]
        assert not [w for st in steps for w in st["words"] if "discards" in w and "face down" not in w
                    and "discards nothing" not in w]
        assert shown and all(d is None for d in shown)
    else:  # the game is over: every hand of it is over, the whole record is the referee's
        assert _deal_lines(download) == _deal_lines(stored)
        assert shown and all(d is not None and len(d) == 4 for d in shown)  # the page shows the hands dealt
