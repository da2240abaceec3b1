"""Undo by consent from the seat pages: an undo asked by one side does not happen until the other
side agrees on their page (a partner's or one's own agreement is refused); with it, it does; each
undo, who asked and who agreed, is on the scorekeeper's page and in the archived record. The
director's call flags the table on the scorekeeper's page."""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from hostsupport import need_node
from servesupport import Serve, Viewer, ask, seats

pytest.importorskip("aiohttp")
need_node()

BOT_DELAY = 1.0  # seconds between the bots' actions: each ask is made right after one


def test_an_undo_needs_the_other_sides_consent(tmp_path) -> None:
    with Serve("--sim", "nexus", "--bot-delay", str(BOT_DELAY), "--no-mistakes", "--http", "127.0.0.1:0", "--archive", str(tmp_path),
               "--players", "Ann,Bob", "-q", "--wait-viewers", "1") as s:
        v = Viewer(s.url)
        s.wait_for(lambda: (s.json("snapshot.json").get("seq") or 0) >= 3, 120, "a few actions")
        ann, bob = [x["url"] for x in seats(s)["seats"]]
        # a wrong code asks nothing
        assert ask(ann.split("?")[0] + "?token=nope", {"do": "undo"})[0] == 401
        assert ask(ann, {"do": "fly"})[0] == 400
        # asked, not agreed: nothing is undone, and once the table moves on the ask is void
        for _ in range(6):  # ask right after a bot action (the next one voids the ask)
            seq = s.next_action(30)
            assert ask(ann, {"do": "undo"})[0] == 200
            status, answer = ask(ann, {"do": "agree"})
            if answer.get("error") != "no undo is asked":  # (else the bots moved on meanwhile)
                break
        assert status == 409 and "the other side must agree" in answer["error"]
        s.wait_for(lambda: s.json("snapshot.json")["seq"] > seq, 60, "the table to move on")
        assert not any("undone" in m for m in v.messages)
        assert ask(bob, {"do": "agree"})[1].get("error") in ("no undo is asked", "the table moved on: ask again")
        # asked and agreed by the other side: undone
        done = None
        for _ in range(6):  # ask and agree between two of the bots' actions
            s.next_action(30)
            assert ask(ann, {"do": "undo"})[0] == 200
            pending = seats(s)["undo"]  # the line asked to be undone
            status, answer = ask(bob, {"do": "agree"})
            if status == 200:
                done = pending["seq"]
                break
        assert done is not None, answer
        s.wait_for(lambda: any("undone" in m for m in v.messages), 30, "the undo")
        audit = seats(s)["undos"]
        assert len(audit) == 1 and audit[0]["asked"] == "Ann" and audit[0]["agreed"] == "Bob"
        assert audit[0]["line"] == done and audit[0]["undone"].startswith(("Ann ", "Bob ")), audit
        # the director's call flags the table on the scorekeeper's page
        assert ask(bob, {"do": "director"})[0] == 200
        assert seats(s)["director"]["name"] == "Bob"
        s.wait_for(lambda: s.json("archive.json"), 600, "the game to end and be archived")
        status, rec = s.get("archive/1.jsonl")
        v.close()
    head = json.loads(rec.splitlines()[0])
    assert head["undos"] == audit, head.get("undos")


def keeper(s: Serve, body: Any, secret: str | None = None) -> tuple[int, dict[str, Any]]:
    """The scorekeeper's POST /seats (with the secret unless told another)."""
    req = urllib.request.Request(s.url + "seats", data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json",
                                          "X-Cardtable-Secret": s.secret if secret is None else secret})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read().decode())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read().decode())


def test_the_scorekeepers_undo_is_asked_then_agreed_overridden_or_withdrawn(tmp_path) -> None:
    with Serve("--sim", "nexus", "--bot-delay", "600", "--http", "127.0.0.1:0", "--archive", str(tmp_path),
               "--players", "Ann,Bob", "-q") as s:
        s.wait_for(lambda: (s.json("snapshot.json").get("seq") or 0) >= 1, 60, "the deal")
        ann = seats(s)["seats"][0]["url"]
        # refused: no secret, a wrong one, no such seat, nothing asked to override or withdraw
        assert keeper(s, {"cmd": "override"}, secret="nope")[0] == 403
        assert keeper(s, {"cmd": "undo", "for": "table"}, secret="")[0] == 403
        for bad in (7, -1, "Ann", None, True, 0.5):
            status, answer = keeper(s, {"cmd": "undo", "for": bad})
            assert status == 400 and "\"for\" must be the seat asking" in answer["error"], (bad, answer)
        assert keeper(s, {"cmd": "override"}) == (409, {"ok": False, "error": "no undo is asked: ask for one first"})
        assert keeper(s, {"cmd": "withdraw"})[0] == 409
        # asked for Ann: pending, Ann's own agreement refused, withdrawn: nothing undone
        assert keeper(s, {"cmd": "undo", "for": 0})[0] == 200
        pending = seats(s)["undo"]
        assert pending["asked"] == "Ann (through the scorekeeper)" and pending["agree"] == "Bob", pending
        status, answer = ask(ann, {"do": "agree"})
        assert status == 409 and "the other side must agree" in answer["error"]
        assert keeper(s, {"cmd": "withdraw"})[0] == 200
        assert seats(s)["undo"] is None and seats(s)["undos"] == []
        # asked for the table: either side may agree
        assert keeper(s, {"cmd": "undo", "for": "table"})[0] == 200
        assert seats(s)["undo"]["agree"] == "Ann or Bob"
        assert seats(s)["undo"]["what"] == pending["what"]  # the last action still, not the story's note
        assert seats(s)["undos"] == []
