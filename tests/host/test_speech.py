"""`cardtable serve --speak`: espeak-ng says every refused card and every trick, with names, one
announcement after another. In the test it renders each to a WAV file (--speak-to): sox measures
each longer than 0.3 s, the texts are the verdicts and tricks in words, in order, none overlapping."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from hostsupport import need_node
from servesupport import Serve, Viewer

from cardtable_host.serve.speech import card_words, event_words, verdict_words

pytest.importorskip("aiohttp")
need_node()
NAMES = ["Ann", "Bob", "Cy", "Di"]


def test_words_with_names() -> None:
    v = {"type": "verdict", "seat": 1, "action": {"seat": 1, "act": "play", "card": "10D"}, "reason": "must follow clubs"}
    assert verdict_words(v, NAMES) == "Bob, the ten of diamonds: you must follow clubs"
    v = {"type": "verdict", "seat": 2, "action": {"seat": 2, "act": "play", "card": "AS"},
         "reason": "not your turn: seat 0 is to play"}
    assert verdict_words(v, NAMES) == "Cy, the ace of spades: not your turn: Ann is to play"
    assert verdict_words({"seat": 3, "action": {"act": "bid", "bid": 17}, "reason": "bids are 15 to 30"}, NAMES) == \
        "Di: bids are 15 to 30"
    assert event_words({"events": [{"ev": "play", "seat": 3}, {"ev": "trick", "seat": 0, "trick": 1}]}, NAMES) == \
        ["Ann wins the trick"]
    assert card_words("QH") == "the queen of hearts" and card_words("5MS") == "the 5MS"


def test_serve_speaks_verdicts_and_tricks_one_after_another(tmp_path) -> None:
    if not (shutil.which("espeak-ng") and shutil.which("soxi")):
        pytest.skip("espeak-ng and sox are not installed")
    out = tmp_path / "said"
    with Serve("--sim", "fortyfives", "--delay", "0.3", "--http", "127.0.0.1:0", "--archive", str(tmp_path / "a"),
               "--players", ",".join(NAMES), "--speak", "--speak-to", str(out), "-q", "--wait-viewers", "1") as s:
        v = Viewer(s.url)

        def said() -> list[dict]:
            p = out / "said.jsonl"
            return [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines()] if p.exists() else []

        def wanted() -> list[str]:
            texts = []
            for m in list(v.messages):
                if m.get("type") == "verdict":
                    texts.append(verdict_words(m, NAMES))
                elif m.get("type") == "event" and "action" in m:
                    texts.extend(event_words(m, NAMES))
            return texts

        s.wait_for(lambda: any(", the " in x["text"] for x in said()) and
                   any(x["text"].endswith("wins the trick") for x in said()), 600, "a refused card and a trick said")
        got = said()
        v.close()
    want = wanted()
    texts = [x["text"] for x in got]
    assert texts == want[:len(texts)], (texts, want[:len(texts)])
    assert any(t.endswith("wins the trick") for t in texts) and any(", the " in t for t in texts), texts
    for a, b in zip(got, got[1:]):
        assert b["start"] >= a["end"], "announcement %d began before %d ended" % (b["n"], a["n"])
    for x in got:
        secs = float(subprocess.run(["soxi", "-D", str(out / x["wav"])], capture_output=True, text=True,
                                    check=True).stdout)
        assert secs > 0.3, (x, secs)
