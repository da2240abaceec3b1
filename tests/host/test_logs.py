"""Logs for the long runs (--log FILE): serve logs verdicts, faults, connections, refused and
taken controls and results; the tournament each result, correction and refusal. A log never
holds a secret (the scorekeeper's, a broker password) or a card no spectator was shown."""
from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path

import pytest
from hostsupport import need_node
from servesupport import Serve, Viewer

from cardtable_host.config import logs

SECRET = "s3cret-Of-The-Scorekeeper"


def _codes(game_id: str) -> set[str]:
    from cardtable import games
    from cardtable.cards import deck

    cls = games.game_class(game_id)
    return {deck(cls.DECK).fmt(c) for c in cls.CARDS}


def test_serve_logs_what_spectators_see_and_never_the_secret(tmp_path: Path) -> None:
    pytest.importorskip("aiohttp")
    pytest.importorskip("termios")
    need_node(module=False)
    log = tmp_path / "serve.log"
    env = dict(os.environ, CARDTABLE_SERVE_SECRET=SECRET)
    with Serve("--sim", "nexus", "--seed", "1", "--delay", "0", "--wait-viewers", "1", "--http", "127.0.0.1:0",
               "--archive", str(tmp_path / "archive"), "--log", str(log), "-q", env=env) as s:
        v = Viewer(s.url)
        assert s.control({"cmd": "state"}, secret="wrong")[0] == 403
        assert s.control({"cmd": "state"})[0] == 403  # no secret at all
        status, _ = s.control({"cmd": "state"}, secret=SECRET)
        s.wait_for(lambda: log.exists() and "game archived as number" in log.read_text(), 300,
                   "the game to end and be archived")
        s.wait_for(lambda: v.has(lambda m: any("game archived" in ln[0] for ln in m.get("lines") or [])), 60,
                   "the viewer to see the archive note")
        v.close()
    text = log.read_text()
    assert SECRET not in text
    assert "a spectator connected from 127.0.0.1" in text
    assert text.count("refused a control request from 127.0.0.1") == 2
    assert "a wrong secret" in text and "no secret" in text
    assert "control 'state' from 127.0.0.1: %s" % ("done" if status == 200 else "refused") in text
    # the bots' mistakes, as the page words them (the refused card shown as a card: A♠)
    assert re.search(r"WARNING cardtable\.serve: refused: (North|South): .*\(\S+\)", text)
    assert "game over" in text.lower() or "wins" in text
    # every card the log names was shown to spectators (the viewer's state messages)
    shown: set[str] = set()
    codes = _codes("nexus")
    for m in v.messages:
        if m.get("view") is not None:
            shown.update(t for t in re.split(r"[^0-9A-Za-z]+", json.dumps(m["view"])) if t in codes)
    plain = re.sub(r"(10|[2-9AJQK])([\u2660\u2665\u2666\u2663])",
                   lambda m: m.group(1) + "SHDC"["\u2660\u2665\u2666\u2663".index(m.group(2))], text)
    named = {t for t in re.split(r"[^0-9A-Za-z#]+", plain) if t in codes}
    assert named and named <= shown, sorted(named - shown)


def test_tournament_entries_are_logged_without_the_record_or_passwords(tmp_path: Path) -> None:
    from cardtable_host.tournament.tourney import Tournament

    tour = Tournament.__new__(Tournament)
    tour.dir = tmp_path  # only append() is used: it needs the folder
    log = tmp_path / "t.log"
    handler = logs.open_log(str(log))
    logs.hide("broker-pa55word")
    try:
        tour.append({"kind": "result", "game": "r1g1", "table": 1, "scores": [120, 95], "winner": 0,
                     "hash": "ab", "record": str(tmp_path / "archive" / "0001.jsonl"),
                     "lines": ['{"act": "deal", "hands": [["5H", "JH"]]}']})
        tour.append({"kind": "correction", "game": "r1g1", "scores": [120, 100], "before": [120, 95],
                     "by": "Mary", "reason": "hand 3 miscounted"})
        tour.append({"topic": "t/table/2/result", "game": "r1g2", "why": "bad hash; pw broker-pa55word"},
                    "refused.jsonl")
        logging.getLogger("cardtable.tournament").info("connected with broker-pa55word")
    finally:
        logs.close_log(handler)
    text = log.read_text()
    lines = text.splitlines()
    assert len(lines) == 4
    assert 'INFO cardtable.tournament: result: {' in lines[0] and '"scores": [120, 95]' in lines[0]
    assert "0001.jsonl" not in text and "5H" not in text and "hands" not in text  # never the record
    assert '"by": "Mary"' in lines[1] and '"reason": "hand 3 miscounted"' in lines[1]
    assert lines[2].split()[1:4] == ["WARNING", "cardtable.tournament:", "refused:"]
    assert "broker-pa55word" not in text and "[secret]" in lines[2] and lines[3].endswith("connected with [secret]")


def test_a_log_rotates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(logs, "MAX_BYTES", 2000)
    log = tmp_path / "r.log"
    handler = logs.open_log(str(log))
    try:
        for i in range(200):
            logging.getLogger("cardtable.serve").info("line %d of a long evening", i)
    finally:
        logs.close_log(handler)
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == ["r.log", "r.log.1", "r.log.2", "r.log.3"]
    assert all(p.stat().st_size <= 2100 for p in tmp_path.iterdir())
    assert "line 199 of a long evening" in log.read_text()
