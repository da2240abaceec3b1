"""Undo by consent from the scorekeeper's page, in Debian's headless Chromium: the scorekeeper
asks, for Ann, to undo the last action; it waits, shown on the scorekeeper's page and as a
question on Bob's own page (a phone), until Bob agrees there; asked for the table, the
scorekeeper's override (a second, explicit action) carries it. The audit - what was undone,
who asked, who agreed, when - is on the scorekeeper's page and, per game, on the archive's
pages. Screenshots (desktop and 390 x 844) in build/artifacts/."""
from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from browsersupport import ARTIFACTS, chromium, need_chromium, wait
from hostsupport import need_node
from servesupport import Serve, seats

pytest.importorskip("aiohttp")
need_node()
need_chromium()

BOT_DELAY = 12  # seconds between the bots' actions: a window for each ask and its answer


def shot(driver: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    driver.save_screenshot(str(path))
    print("screenshot: %s" % path)
    assert path.stat().st_size > 10000


def narrow(driver: Any) -> int:
    """The page's width at 390 px: it must not scroll sideways."""
    return int(driver.execute_script("return document.documentElement.scrollWidth"))


def ask_for(desk: Any, who: str) -> None:
    """The scorekeeper asks, for who (a seat's value or "table"), to undo the last action."""
    desk.execute_script("const s = document.getElementById('undofor'); s.value = arguments[0];"
                        "document.getElementById('undoasked').click();", who)


def agreed_by_bob(s: Serve, desk: Any, phone: Any) -> bool:
    """Asked for Ann on the scorekeeper's page; pending until Bob agrees on his page. False if
    the bots moved on first (the ask is void: try again)."""
    seq = s.next_action(BOT_DELAY * 3)
    ask_for(desk, "0")
    wait(desk, "return document.getElementById('undopending').innerText.includes('waiting for Bob')", 20, "the ask")
    pending = desk.execute_script("return document.getElementById('undopending').innerText")
    assert pending.startswith("Ann (through the scorekeeper) asks to undo "), pending
    asked = wait(phone, "const t = document.getElementById('undobox').innerText;"
                        "return t.includes('asks to undo') && document.getElementById('agreeundo').offsetParent && t", 20,
                 "the question on Bob's page")
    assert asked.startswith("Ann (through the scorekeeper) asks to undo ") and asked.endswith(": do you agree?")
    assert seats(s)["undos"] == []  # asked, not agreed: nothing is undone
    shot(desk, "consent-scorekeeper-asked-desktop.png")
    shot(phone, "consent-seat-agree-phone.png")
    if (s.json("snapshot.json").get("seq") or 0) != seq:
        return False
    phone.execute_script("document.getElementById('asked').textContent = '';"
                         "document.getElementById('agreeundo').click()")
    said = wait(phone, "const t = document.getElementById('asked').textContent; return t && t", 20, "the answer")
    if said == "refused: the table moved on: ask again":
        return False
    assert said == "undone", said
    return True


def overridden(s: Serve, desk: Any) -> bool:
    """Asked for the table; carried by the scorekeeper's override. False if the bots moved on first."""
    s.next_action(BOT_DELAY * 3)
    ask_for(desk, "table")
    wait(desk, "return document.getElementById('undopending').innerText.startsWith('The scorekeeper (for the table) asks to undo ')"
               " && document.getElementById('undooverride').offsetParent", 20, "the table's ask")
    assert "waiting for Ann or Bob to agree" in desk.execute_script("return document.getElementById('undopending').innerText")
    desk.execute_script("document.getElementById('undosaid').textContent = '';"
                        "document.getElementById('undooverride').click()")
    said = wait(desk, "const t = document.getElementById('undosaid').textContent; return t && t", 20, "the override's answer")
    if said == "refused: the table moved on: ask again":
        return False
    assert said == "undone", said
    return True


def test_undo_asked_on_the_scorekeepers_page(tmp_path: Path) -> None:
    with Serve("--sim", "nexus", "--bot-delay", str(BOT_DELAY), "--no-mistakes", "--http", "127.0.0.1:0",
               "--archive", str(tmp_path), "--table", "Club night", "--players", "Ann,Bob", "-q") as s, \
            chromium(1200, 900) as desk, chromium(390, 844) as phone:
        phone.set_window_size(390, 844)
        desk.get(s.url + "#secret=" + s.secret)
        wait(desk, "return document.querySelectorAll('#undofor option').length === 3", 60, "the undo's choices")
        assert desk.execute_script("return [...document.querySelectorAll('#undofor option')].map(o => o.textContent)") \
            == ["Ann", "Bob", "the table"]
        phone.get(seats(s)["seats"][1]["url"])
        wait(phone, "return document.querySelector('#badge').textContent === 'live'", 60, "Bob's page")
        assert any(agreed_by_bob(s, desk, phone) for _ in range(3)), "the bots moved on every time"
        audit = wait(desk, "return [...document.querySelectorAll('#undoaudit li')].map(l => l.innerText)"
                           ".filter(t => t.includes('agreed by Bob'))", 20, "the audit")
        assert " asked by Ann (through the scorekeeper), agreed by Bob at " in audit[0], audit
        assert any(overridden(s, desk) for _ in range(3)), "the bots moved on every time"
        lines = wait(desk, "const l = [...document.querySelectorAll('#undoaudit li')].map(l => l.innerText);"
                           "return l.length === 2 && l", 20, "both undos in the audit")
        assert "asked by the scorekeeper (for the table), by the scorekeeper's override at " in lines[1], lines
        kept = seats(s)["undos"]
        assert [(u["asked"], u["agreed"]) for u in kept] == [("Ann (through the scorekeeper)", "Bob"),
                                                             ("the scorekeeper (for the table)", "the scorekeeper's override")]
        assert all(u["undone"].startswith(("Ann ", "Bob ")) and u["at"] for u in kept), kept
        assert not any(re.search(r"\b(10|[2-9AJQK])[CDHS]\b", u["undone"]) for u in kept), kept  # J♠, not JS
        assert lines[0].startswith(kept[0]["undone"]) and lines[1].startswith(kept[1]["undone"])
        # Bob's page on a wide screen, asked again (left unanswered: the bots move on)
        phone.set_window_size(1200, 900)
        s.next_action(BOT_DELAY * 3)
        ask_for(desk, "0")
        wait(phone, "return document.getElementById('agreeundo').offsetParent", 20, "the question on a wide screen")
        assert phone.execute_script("return document.getElementById('asked').textContent") == ""  # not the last answer
        shot(phone, "consent-seat-agree-desktop.png")
        desk.execute_script("document.getElementById('undoask').scrollIntoView()")
        shot(desk, "consent-scorekeeper-audit-desktop.png")
        desk.set_window_size(390, 844)
        desk.execute_script("document.getElementById('undoask').scrollIntoView()")
        shot(desk, "consent-scorekeeper-audit-phone.png")
        assert narrow(desk) <= 390
        _archive_pages(s, tmp_path, desk, kept)


def _archive_pages(s: Serve, folder: Path, driver: Any, kept: list[dict[str, Any]]) -> None:
    """A finished game whose record keeps these undos (as serve archives it): the archive's list
    and the game's page show each, in words."""
    from cardtable import games, record
    from cardtable.rng import Random

    from cardtable_host.serve.archive import Archive

    g = games.load("nexus", seats=2)
    rng = Random(4)
    while not g.over:
        g.apply(g.bot_action(rng))
    Archive(folder).save(record.dump(g), {"table": "Club night", "players": ["Ann", "Bob"],
                                          "start": "2026-11-28T20:00:00Z", "end": "2026-11-28T20:40:00Z", "undos": kept})
    for width, height in ((1200, 900), (390, 844)):
        driver.set_window_size(width, height)
        driver.get(s.url + "archive")
        cell = wait(driver, "const c = document.querySelector('td[data-label=\"Undone\"]'); return c && c.innerText", 30,
                    "the archive's list")
        assert kept[0]["undone"] in cell and "asked by Ann (through the scorekeeper), agreed by Bob" in cell, cell
        assert "asked by the scorekeeper (for the table), by the scorekeeper's override" in cell, cell
        shot(driver, "consent-archive-%d.png" % width)
        driver.get(s.url + "archive/1")
        box = wait(driver, "const u = document.querySelectorAll('#undos li'); return u.length === 2 && "
                           "document.getElementById('undos').innerText", 30, "the game's undos")
        assert kept[1]["undone"] in box and "agreed by Bob" in box, box
        driver.execute_script("document.getElementById('undos').parentNode.scrollIntoView()")
        shot(driver, "consent-archive-game-%d.png" % width)
        text = driver.execute_script("return document.body.innerText")
        assert "seat 0" not in text and "seat 1" not in text
        if width == 390:
            assert narrow(driver) <= 390
