"""The pages people read (issue 31), in Debian's headless Chromium through Selenium: the live
table with the players' names at their places, verdicts at the seat that then go, the score
sheet, the archive a referee reads (its trick grid the one `cardtable referee --hand N --json`
gives), every game's pages free of program literals and never wider than a phone. The board is
the rules engine playing a seeded game into the real Hub and web app (pagesupport). Screenshots
go to build/artifacts/pages/."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from browsersupport import ARTIFACTS, chromium, need_chromium, wait
from pagesupport import LITERALS, SEAT_NUMBER, FakeBoard, PageServer

from cardtable import games, record

pytest.importorskip("aiohttp")
need_chromium()

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SHOTS = ARTIFACTS / "pages"
NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]


@pytest.fixture(scope="module")
def browser():
    with chromium(1280, 900) as driver:
        driver.set_page_load_timeout(30)
        yield driver


def shot(driver: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SHOTS / name))


def text(driver: Any) -> str:
    return driver.execute_script("return document.body.innerText")


def fits(driver: Any) -> bool:
    return driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")


def readable(driver: Any, where: str) -> None:
    """No program literal and no seat number where names are known, in what the page shows."""
    body = text(driver)
    bad = [ln for ln in body.splitlines() if LITERALS.search(ln) or SEAT_NUMBER.search(ln)]
    assert not bad, "%s shows %s" % (where, bad[:5])


def phone(driver: Any, url: str, where: str, ready: str) -> None:
    """At 390 x 844 the page does not scroll sideways."""
    driver.set_window_size(390, 844)
    driver.get(url)
    wait(driver, ready, 30, where)
    time.sleep(0.3)
    assert fits(driver), "%s scrolls sideways on a phone: %s > %s" % (
        where, driver.execute_script("return document.documentElement.scrollWidth"),
        driver.execute_script("return window.innerWidth"))
    shot(driver, (where.replace("/", "_").strip("_") or "table") + "-390.png")
    driver.set_window_size(1280, 900)


def record_lines(board: FakeBoard) -> list[str]:
    """The game so far as a record (header, then one action per line)."""
    return [json.dumps(record.header(board.g))] + [json.dumps(record.encode(board.g, a))
                                                   for a in board.g.history]


def seat_names(driver: Any) -> list[str]:
    return driver.execute_script(
        "return [...document.querySelectorAll('#felt .seat')].sort((a, b) => a.dataset.seat - b.dataset.seat)"
        ".map(s => s.querySelector('.name').textContent)")


def test_the_table_names_every_player_at_their_place_and_in_the_story(browser, tmp_path) -> None:
    with PageServer(tmp_path, players=NAMES[:4], driver=browser) as ps:
        board = FakeBoard(ps.hub, "fortyfives", seed=3)
        board.until(lambda: board.g.phase == "play" and len(board.g.trick) == 2)
        browser.get(ps.url)
        wait(browser, "return document.querySelectorAll('#felt .seat').length === 4", 30, "four seats")
        assert seat_names(browser) == NAMES[:4]
        # South at the bottom, West on the left, North at the top, East on the right
        at = browser.execute_script(
            "return [...document.querySelectorAll('#felt .seat')].map(s => {const r = s.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]})")
        assert at[0][1] > at[2][1] and at[1][0] < at[3][0], at
        # the trick's two cards as faces in front of the seats that played them
        played = browser.execute_script("return [...document.querySelectorAll('#felt .played .cardface')]"
                                        ".map(c => c.getAttribute('aria-label'))")
        assert len(played) == 2 and all(" of " in p for p in played), played
        turn = board.g.turn[0]
        assert browser.execute_script("return document.querySelector('#felt .seat.turn .name').textContent") \
            == NAMES[turn]
        body = text(browser)
        # names in the headline, the facts (bids, contract), the teams and the story
        assert "Ann & Cy" in body and "Bob & Di" in body
        bidder = board.g.bidder
        assert "Contract: %s bid %d" % (NAMES[bidder], board.g.bid) in body, body[:600]
        assert "%s is to play" % NAMES[turn] in browser.execute_script(
            "return document.querySelector('#headline').textContent")
        log = browser.execute_script("return document.querySelector('#log').innerText")
        assert any("%s plays" % n in log for n in NAMES[:4]) and "wins the bid" in log, log
        readable(browser, "/")
        shot(browser, "table-1280.png")
        # the trick closes: its winner is marked
        board.until(lambda: not board.g.trick and board.g.hand_tricks)
        winner = board.g.leader
        wait(browser, "return document.querySelector('#felt .wonby')", 20, "the trick's winner marked")
        won_at = browser.execute_script("return document.querySelector('#felt .cardface.won').getAttribute('aria-label')")
        last = {s: c for s, c in board.g.view(None)["last_trick"]}
        rank = last[winner][:-1]
        assert won_at.startswith({"A": "ace", "K": "king", "Q": "queen", "J": "jack"}.get(rank, rank)), (won_at, last)
        phone(browser, ps.url, "/", "return document.querySelectorAll('#felt .seat').length === 4")
        # the game ends: the result and final score in words; the score sheet names the teams
        board.finish()
        wait(browser, "return !document.querySelector('#over').classList.contains('hidden')", 30, "game over")
        over = browser.execute_script("return document.querySelector('#over').textContent")
        w = board.g.winner
        assert over.startswith("Game over: %s & %s win" % (NAMES[w], NAMES[w + 2])), over
        assert str(board.g.score[w]) in over
        assert browser.execute_script("return document.querySelector('#verdict').textContent") == over
        browser.find_element("css selector", "[data-tab=sheetpane]").click()
        heads = browser.execute_script("return [...document.querySelectorAll('#sheet th')].map(t => t.textContent)")
        assert heads[:3] == ["Hand", "Ann & Cy", "Bob & Di"], heads
        rows = browser.execute_script("return document.querySelectorAll('#sheet tbody tr').length")
        assert rows == board.g.hand_no, (rows, board.g.hand_no)
        assert browser.execute_script("return document.querySelectorAll('#graph svg polyline').length") == 2
        readable(browser, "/ score sheet")
        shot(browser, "sheet-1280.png")


def _verdict_at(driver: Any, seat: int) -> str:
    return driver.execute_script(
        "const v = document.querySelector('#felt .seat[data-seat=\"%d\"] .seatverdict'); return v ? v.textContent : ''"
        % seat)


def test_a_refused_card_shows_at_its_seat_in_names_and_goes_when_that_seat_plays(browser, tmp_path) -> None:
    with PageServer(tmp_path, players=NAMES[:4], driver=browser) as ps:
        board = FakeBoard(ps.hub, "fortyfives", seed=5)
        board.until(lambda: board.g.phase == "play" and not board.g.trick and board.g.held[0] >= 3)
        browser.get(ps.url)
        wait(browser, "return document.querySelectorAll('#felt .seat').length === 4", 30, "four seats")
        leader = board.g.turn[0]
        late = (leader + 1) % 4
        board.refuse(late, "2C", "not your turn: seat %d is to play" % leader)
        said = "%s: not your turn \u2014 %s is to play" % (NAMES[late], NAMES[leader])
        wait(browser, "return document.querySelector('#felt .seat[data-seat=\"%d\"] .seatverdict')" % late, 10, "verdict")
        assert _verdict_at(browser, late).startswith(said), _verdict_at(browser, late)
        assert browser.execute_script("return document.querySelector('#verdict').getAttribute('aria-live')") == "assertive"
        assert browser.execute_script("return document.querySelector('#verdict').textContent").startswith(said)
        shot(browser, "verdict-1280.png")
        # the leader plays: the refused seat's verdict stays (it has not played yet)
        board.step()
        wait(browser, "return document.querySelectorAll('#felt .played .cardface:not(.past)').length === 1", 10, "a lead")
        assert _verdict_at(browser, late).startswith(said)
        # the refused seat plays, accepted: its verdict goes at once
        assert board.g.turn == (late,)
        board.step()
        wait(browser, "return document.querySelectorAll('#felt .seatverdict').length === 0", 3, "the verdict gone")
        # a verdict nobody answers goes by itself after a few seconds
        other = (late + 2) % 4
        board.refuse(other, "3D", "not your turn: seat %d is to play" % board.g.turn[0])
        wait(browser, "return document.querySelectorAll('#felt .seatverdict').length === 1", 10, "a verdict")
        t0 = time.monotonic()
        wait(browser, "return document.querySelectorAll('#felt .seatverdict').length === 0", 15, "it goes")
        assert time.monotonic() - t0 > 2
        # ... and when the trick moves on
        board.refuse(other, "3D", "not your turn")
        wait(browser, "return document.querySelectorAll('#felt .seatverdict').length === 1", 10, "a verdict")
        board.until(lambda: not board.g.trick)
        wait(browser, "return document.querySelectorAll('#felt .seatverdict').length === 0", 3, "gone with the trick")


def _play(board: FakeBoard, steps: int) -> None:
    for _ in range(steps):
        if board.g.over:
            return
        board.step()


@pytest.mark.parametrize("game", sorted(games.GAMES))
def test_every_game_reads_in_words_on_every_page_and_fits_a_phone(browser, tmp_path, game: str) -> None:
    lo, hi = games.seat_range(game)
    seats = min(hi, 6)
    with PageServer(tmp_path, players=NAMES[:seats], driver=browser) as ps:
        board = FakeBoard(ps.hub, game, seats=seats, seed=7)
        _play(board, 60)
        browser.get(ps.url)
        wait(browser, "return document.querySelectorAll('#felt .seat').length === %d" % seats, 30, "the seats")
        assert seat_names(browser) == NAMES[:seats]
        readable(browser, "/ (%s)" % game)
        shot(browser, "%s-table-1280.png" % game)
        for tab in ("sheetpane", "boardpane"):
            browser.find_element("css selector", "[data-tab=%s]" % tab).click()
            readable(browser, "/ %s (%s)" % (tab, game))
        phone(browser, ps.url, "/%s" % game, "return document.querySelectorAll('#felt .seat').length")
        browser.get(ps.url + "overlay")
        wait(browser, "return document.querySelector('#ovnames') && document.querySelector('#ovnames').textContent", 30,
             "the overlay")
        readable(browser, "/overlay (%s)" % game)
        shot(browser, "%s-overlay-1280.png" % game)
        _play(board, 4000)
        ps.archive.save(record_lines(board), {"table": "Club night", "players": NAMES[:seats],
                                              "start": "2026-11-28T19:00:00Z", "end": "2026-11-28T19:42:00Z"})
        browser.get(ps.url + "archive")
        wait(browser, "return document.querySelectorAll('#games a').length >= 1", 30, "the archive list")
        readable(browser, "/archive (%s)" % game)
        assert "42 min" in text(browser) and ", ".join(NAMES[:seats]) in text(browser)
        phone(browser, ps.url + "archive", "/archive_%s" % game, "return document.querySelectorAll('#games a').length")
        browser.get(ps.url + "archive/1")
        wait(browser, "return document.querySelector('#where').textContent && "
                      "document.querySelector('#verdictbox').textContent", 30, "the game's page")
        readable(browser, "/archive/1 (%s)" % game)
        shot(browser, "%s-archive-1280.png" % game)
        phone(browser, ps.url + "archive/1", "/archive_1_%s" % game,
              "return document.querySelector('#verdictbox').textContent")


def test_an_unknown_game_is_a_page_in_words_with_404(browser, tmp_path) -> None:
    with PageServer(tmp_path, driver=browser) as ps:
        import urllib.error
        import urllib.request
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(ps.url + "archive/99", timeout=10)
        assert e.value.code == 404
        browser.get(ps.url + "archive/99")
        assert "No game 99 in the archive" in text(browser)
        readable(browser, "/archive/99")


def _referee_json(path: Path, hand: int) -> dict[str, Any]:
    r = subprocess.run([sys.executable, "-m", "cardtable_host.cli", "referee", "--json", "--hand", str(hand), str(path)],
                       capture_output=True, text=True, timeout=60, env=dict(os.environ, NO_COLOR="1"))
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def _dom_grid(driver: Any, k: int) -> list[list[str]]:
    return driver.execute_script(
        "const t = document.querySelectorAll('#grids table.grid')[%d];"
        "return [[...t.querySelectorAll('thead th')].map(x => x.textContent)].concat("
        "[...t.querySelectorAll('tbody tr')].map(r => [...r.children].map(c => c.textContent)))" % k)


def _expected_rows(grid: dict[str, Any]) -> list[list[str]]:
    glyph = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
    rows = [["Trick"] + grid["columns"]]
    for row in grid["tricks"]:
        cells = [str(row["trick"])]
        for c in row["cells"]:
            if c is None:
                cells.append("")
                continue
            code = c["card"]
            face = code[:-1] + glyph[code[-1]] if code[-1] in glyph else code
            cells.append(("\u25b8" if c["led"] else "") + face + (" \u2605" if c["won"] else "")
                         + (" revoke" if c["revoke"] else ""))
        rows.append(cells)
    return rows


def test_the_archive_trick_grid_is_the_referees_and_a_revoke_names_both_lines(browser, tmp_path) -> None:
    with PageServer(tmp_path, driver=browser) as ps:
        src = FIXTURES / "fortyfives" / "unseen-revoke.jsonl"
        head, *rest = src.read_text(encoding="utf-8").splitlines()
        h = json.loads(head)
        h["players"] = NAMES[:4]
        path = ps.archive.dir / "0001-fortyfives.jsonl"
        path.write_text("\n".join([json.dumps(h)] + rest) + "\n", encoding="utf-8")
        served = json.loads(_get(ps.url + "archive/1/referee.json"))
        browser.get(ps.url + "archive/1")
        wait(browser, "return document.querySelectorAll('#grids table.grid').length", 30, "the grids")
        for k, grid in enumerate(served["grids"]):
            cli = _referee_json(path, grid["hand"])["grid"]
            assert grid == cli
            assert _dom_grid(browser, k) == _expected_rows(cli)
        assert any(c and c["revoke"] for g in served["grids"] for r in g["tricks"] for c in r["cells"])
        verdict = browser.execute_script("return document.querySelector('#verdictbox').innerText")
        rv = _referee_json(path, 1)["revokes"][0]
        said = "at line %d %s played" % (rv["revoked_line"], NAMES[rv["seat"]])
        assert "Revoke: " in verdict and said in verdict and "line %d proves it" % rv["line"] in verdict, verdict
        readable(browser, "/archive/1 (a revoke)")
        shot(browser, "revoke-1280.png")


def _get(url: str) -> str:
    import urllib.request
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode("utf-8")


def _zone_status(driver: Any) -> dict[str, str]:
    return dict(driver.execute_script(
        "return [...document.querySelectorAll('#zonestatus tbody tr')].map(r => [r.children[0].textContent,"
        " r.children[2].textContent])"))


def test_the_board_tab_tells_each_pads_read_status_from_the_faults(browser, tmp_path) -> None:
    with PageServer(tmp_path, players=NAMES[:4], driver=browser, board=("pico-i2c-4seat", "fortyfives")) as ps:
        board = FakeBoard(ps.hub, "fortyfives", seed=3)
        board.until(lambda: board.g.phase == "play" and len(board.g.trick) == 1)
        browser.get(ps.url)
        wait(browser, "return document.querySelectorAll('#zonestatus tbody tr').length >= 5", 30, "the pads")
        browser.find_element("css selector", "[data-tab=boardpane]").click()
        seat = board.g.trick[0][0]
        assert _zone_status(browser)["s%d" % seat].startswith("card read"), _zone_status(browser)
        board.fault("reader", "s1", "zone s1: reader 1 (s1) stopped answering: no ACK")
        board.fault("two_tags", "s2", "zone s2: two tags on one pad: nothing is played; lay one card")
        board.fault("tag", "s3", "zone s3: a tag that is no card (04a1b2c3)")
        board.fault("reader", "c", "zone c: reader 4 (c) stopped answering: SDA is held low and stays low")
        wait(browser, "return document.querySelectorAll('#zonestatus tr.bad').length === 4", 10, "four pads in trouble")
        st = _zone_status(browser)
        assert (st["s1"], st["s2"], st["s3"], st["c"]) == (
            "reader down", "two tags on one pad", "tag not enrolled", "bus stuck"), st
        faults = browser.execute_script("return document.querySelector('#faults').innerText")
        assert "reader down at pad s1" in faults and "bus stuck at pad c" in faults, faults
        readable(browser, "/ board")
        shot(browser, "board-1280.png")
        board.fault("reader", "s1", "zone s1: reader 1 answers again", cleared=True)
        wait(browser, "return !document.querySelector('#faults').innerText.includes('pad s1')", 10, "the fault cleared")
        assert _zone_status(browser)["s1"] == "reader answers again"
