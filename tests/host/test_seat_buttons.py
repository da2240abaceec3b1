"""The seat's buttons at the table (issue 33), through `cardtable serve` of a virtual board on a
port, its buttons pressed as players press them:

- a seat's say button: that seat's page is sent its hand and the trick in words to say (and no
  other page, no spectator, gets the hand); the loudspeaker (espeak-ng) says the trick alone,
  the hand only where the scorekeeper opted in (--speak-hands);
- a team's agree button while the game goes on: its consent to the undo a seat page asked. The
  asker's own side's press is not enough and nothing is undone; the other side's press undoes
  it, and the audit says who asked and who agreed at the table; their dispute refuses it."""
from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from hostsupport import need_node
from servesupport import Serve, Viewer, ask, seats

from cardtable import games
from cardtable_host.serve.speech import Announcer, hand_said, say_words

pytest.importorskip("aiohttp")
NAMES = ["Ann", "Bob", "Cy", "Di"]
LAYOUT = "fortyfives-dealt"  # pico-i2c-4seat: a deal pad, agree and dispute buttons, a say button per seat


def _need_speech() -> None:
    if not (shutil.which("espeak-ng") and shutil.which("soxi")):
        pytest.skip("espeak-ng and sox are not installed")


def deal_over_the_pad(vb: Any) -> list[list[str]]:
    """A new Forty-Fives game dealt card by card across the deal pad (before serve takes the
    port): the table knows every hand. Returns the hands dealt."""
    from cardtable.rng import Random
    from cardtable.table import dealpad
    from cardtable_host.board.link import Link
    from cardtable_host.sim.table import VirtualTable

    g = games.load("fortyfives")
    cards = Random(5).shuffle(list(g.CARDS))[:dealpad.total(g)]
    link = Link(vb.stable_port, timeout=10)
    try:
        link.new("fortyfives", seats=4, dealer=0, layout=LAYOUT)
        vt = VirtualTable(vb, "pico-i2c-4seat", LAYOUT)
        for c in cards:
            vt.lay(vt.zone("deal") or "d", g.card_code(c))
        deadline = time.monotonic() + 60
        while link.state()["view"].get("phase") == "deal":
            assert time.monotonic() < deadline, "the deal pad did not deal"
            time.sleep(0.1)
        return [sorted(link.state(s)["view"]["hand"]) for s in range(4)]
    finally:
        link.close()


def said(out: Path) -> list[dict[str, Any]]:
    p = out / "said.jsonl"
    return [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines()] if p.exists() else []


def notes(v: Viewer) -> list[str]:
    return [ln[0] for m in list(v.messages) if m.get("type") == "note" for ln in m.get("lines") or ()]


def test_say_button_hand_to_its_page_alone_trick_aloud_and_undo_agreed_at_the_table(tmp_path: Path) -> None:
    need_node()
    _need_speech()
    from cardtable_host.sim.board import VirtualBoard

    out = tmp_path / "said"
    with VirtualBoard("pico-i2c-4seat", layout=LAYOUT, period_ms=0) as vb:
        hands = deal_over_the_pad(vb)
        with Serve("--port", vb.stable_port, "--http", "127.0.0.1:0", "--archive", str(tmp_path / "a"),
                   "--players", ",".join(NAMES), "--speak", "--speak-to", str(out), "-q") as s:
            spectator = Viewer(s.url)
            urls = [x["url"] for x in seats(s)["seats"]]
            pages = [Viewer(s.url, path=u.split("/", 3)[3].replace("?", "/ws?", 1)) for u in urls]
            s.wait_for(lambda: all(p.messages and p.messages[-1].get("view") for p in pages), 30, "the seat pages")
            # -- say: Bob's button ---------------------------------------------------------------
            vb.press("say1")
            bob = s.wait_for(lambda: next((m for m in pages[1].messages if m.get("say")), None), 30,
                             "Bob's page to be sent his hand")
            assert sorted(bob["view"]["hand"]) == hands[1] and len(hands[1]) == 5
            assert bob["say"]["text"].startswith(hand_said(None, bob["view"]["hand"], "Bob") + " No card on the trick yet."), bob["say"]
            s.wait_for(lambda: any("asks for the trick" in x["text"] for x in said(out)), 60, "the trick said aloud")
            g = games.load("fortyfives")
            g.names = list(NAMES)
            view = s.json("snapshot.json")["view"]
            aloud = [x for x in said(out) if "asks for the trick" in x["text"]]
            assert [x["text"] for x in aloud] == [say_words(g, view, 1, NAMES, hand=False)], aloud
            assert aloud[0]["text"].startswith("Bob asks for the trick. No card on the trick yet.")
            secs = float(subprocess.run(["soxi", "-D", str(out / aloud[0]["wav"])], capture_output=True,
                                        text=True, check=True).stdout)
            assert secs > 0.3
            # the hand went to Bob's page alone: no other page, no spectator, not the loudspeaker
            assert not any("your hand" in x["text"] for x in said(out))
            for seat in (0, 2, 3):
                assert not any(m.get("say") for m in pages[seat].messages), seat
                assert not any('"%s"' % c in raw for raw in pages[seat].raw for c in hands[1]), seat
            assert any(m.get("type") == "say" and m.get("seat") == 1 for m in spectator.messages)
            assert not any('"%s"' % c in raw for raw in spectator.raw for c in hands[1])
            assert any("Bob asks to hear the hand and the trick" in ln[0] for m in spectator.messages
                       for ln in m.get("lines") or ())
            # -- undo by consent at the table -----------------------------------------------------
            vb.press("k4")  # West (Bob), first to bid, passes at the table
            s.wait_for(lambda: s.json("snapshot.json")["seq"] == 2, 30, "the pass")
            assert ask(urls[1], {"do": "undo"})[0] == 200
            assert seats(s)["undo"]["seq"] == 2
            vb.press("ok1")  # Bob's own side (West & East): not theirs to agree
            s.wait_for(lambda: "the other side must agree to Bob's undo, not Bob & Di" in notes(spectator), 30,
                       "the table to refuse Bob's side's agreement")
            assert not any("undone" in m for m in spectator.messages) and s.json("snapshot.json")["seq"] == 2
            assert seats(s)["undo"]["asked"] == "Bob"
            vb.press("ok0")  # the other side (South & North) agrees on its button
            s.wait_for(lambda: any("undone" in m for m in spectator.messages), 30, "the undo")
            audit = seats(s)["undos"]
            assert len(audit) == 1 and audit[0]["asked"] == "Bob" and audit[0]["agreed"] == "Ann & Cy at the table", audit
            assert audit[0]["line"] == 2 and audit[0]["undone"].startswith("Bob"), audit
            assert seats(s)["undo"] is None
            # asked again, and refused by the other side's dispute button: nothing undone
            vb.press("k4")
            s.wait_for(lambda: sum(1 for m in spectator.messages if m.get("type") == "event"
                                   and "action" in m) >= 2, 30, "the pass again")
            assert ask(urls[1], {"do": "undo"})[0] == 200
            vb.press("x0")
            s.wait_for(lambda: "Ann & Cy refuse Bob's undo at the table" in notes(spectator), 30, "the refusal")
            assert seats(s)["undo"] is None and len(seats(s)["undos"]) == 1
            assert sum(1 for m in spectator.messages if "undone" in m) == 1
            vb.press("ok0")  # nothing asked: the press says so
            s.wait_for(lambda: "Ann & Cy pressed agree at the table: no undo is asked" in notes(spectator), 30,
                       "the stray press told")
            for v in pages + [spectator]:
                v.close()


def test_serve_speak_hands_says_the_hand_through_the_loudspeaker(tmp_path: Path) -> None:
    need_node()
    _need_speech()
    from cardtable_host.sim.board import VirtualBoard

    out = tmp_path / "said"
    with VirtualBoard("pico-i2c-4seat", layout=LAYOUT, period_ms=0) as vb:
        hands = deal_over_the_pad(vb)
        with Serve("--port", vb.stable_port, "--http", "127.0.0.1:0", "--archive", str(tmp_path / "a"),
                   "--players", ",".join(NAMES), "--speak", "--speak-hands", "--speak-to", str(out), "-q") as s:
            url = seats(s)["seats"][2]["url"]
            cy = Viewer(s.url, path=url.split("/", 3)[3].replace("?", "/ws?", 1))
            s.wait_for(lambda: cy.messages and cy.messages[-1].get("view"), 30, "Cy's page")
            vb.press("say2")
            s.wait_for(lambda: any("your hand" in x["text"] for x in said(out)), 60, "Cy's hand said aloud")
            view = s.wait_for(lambda: next((m["view"] for m in cy.messages if m.get("say")), None), 30, "Cy's say")
            cy.close()
    g = games.load("fortyfives")
    g.names = list(NAMES)
    aloud = [x for x in said(out) if "your hand" in x["text"]]
    assert sorted(view["hand"]) == hands[2]
    assert [x["text"] for x in aloud] == [say_words(g, view, 2, NAMES)], aloud
    assert aloud[0]["text"].startswith("Cy, your hand, 5 cards: ")


def test_the_loudspeaker_says_a_hand_only_when_the_scorekeeper_opted_in(tmp_path: Path) -> None:
    _need_speech()
    g = games.load("fortyfives")
    g.names = list(NAMES)
    asked: list[Any] = []
    table = {"trick": [[0, "10D"]], "turn": [1], "phase": "play", "trump": "H"}

    def view(seat: int | None) -> dict[str, Any]:
        asked.append(seat)
        return dict(table, hand=["AS", "4S", "QC"]) if seat == 1 else dict(table)

    for hands in (False, True):
        out = tmp_path / str(hands)
        a = Announcer(lambda: list(NAMES), to=str(out), game=lambda: g, view=view, hands=hands)
        a.heard(1, 0.0, json.dumps({"type": "say", "seat": 1, "from": "button say1"}))
        a.stop()
        texts = [x["text"] for x in said(out)]
        assert asked[-1] == (1 if hands else None)  # the seat's own view is asked only when opted in
        tail = "The trick: Ann, the ten of diamonds. Trump: hearts. Bob is to play."
        if hands:
            assert texts == ["Bob, your hand, 3 cards: spades: ace, four; clubs: queen. " + tail], texts
        else:
            assert texts == ["Bob asks for the trick. " + tail], texts
        secs = float(subprocess.run(["soxi", "-D", str(out / said(out)[0]["wav"])], capture_output=True,
                                    text=True, check=True).stdout)
        assert secs > 0.3


def test_speak_hands_goes_with_speak(tmp_path: Path) -> None:
    from hostsupport import cardtable

    r = cardtable("serve", "--sim", "nexus", "--speak-hands", "--http", "127.0.0.1:0",
                  "--archive", str(tmp_path / "a"), timeout=60)
    assert r.returncode == 2 and r.stderr.strip() == "cardtable serve: --speak-hands goes with --speak", r.stderr


def test_say_words_for_other_decks_unknown_hands_and_games_without_tricks() -> None:
    from cardtable_host.serve.speech import card_said, trick_said

    assert hand_said(None, None, "Bob") == \
        "Bob, the table does not know your hand: it knows a hand dealt over the deal pad."
    assert hand_said(None, [], "Bob") == "Bob, your hand is empty."
    assert hand_said(None, ["QH"], "Bob") == "Bob, your hand, one card: hearts: queen."
    ns = games.load("nonesuch")
    ns.names = list(NAMES)
    assert hand_said(ns, ["3SK", "AM"], "Cy") == "Cy, your hand, 2 cards: the Painter, the Ace of Moons."
    assert card_said(ns, "5ML") == "the Forest" and card_said(ns, "zz") == "the zz"
    assert trick_said(ns, {"trick": [[2, "3SK"]], "turn": [3], "phase": "play"}, NAMES) == \
        "The trick: Cy, the Painter. Di is to play."
    nerts = games.load("nerts")
    assert trick_said(nerts, {"turn": [], "over": False}, NAMES) == "There is no trick in this game."
    assert trick_said(None, None, NAMES) == "The table has no game yet."
