"""The pages of `cardtable serve` in a real browser: Debian's headless Chromium driven by
Selenium (chromium-driver), a Forty-Fives game and a Nerts race on the virtual board, with
screenshots of the table page kept in build/artifacts/ (CI keeps them)."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from browsersupport import ARTIFACTS, chromium, need_chromium, wait
from hostsupport import need_node
from servesupport import Serve

pytest.importorskip("aiohttp")
need_node()

need_chromium()


@pytest.fixture()
def browser():
    with chromium(1100, 1000) as driver:
        driver.set_page_load_timeout(30)
        yield driver


def shot(driver, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    driver.save_screenshot(str(path))
    print("screenshot: %s" % path)
    assert path.stat().st_size > 10000
    return path


def test_fortyfives_table_page_overlay_and_archive_in_chromium(browser, tmp_path) -> None:
    with Serve("--sim", "fortyfives", "--delay", "0.15", "--http", "127.0.0.1:0", "--archive", str(tmp_path),
               "--table", "Club night", "--players", "Ann,Bob,Cy,Di", "--rule", "target=25", "-q") as s:
        browser.get(s.url)
        wait(browser, "return document.querySelector('#badge').textContent === 'live'", 60, "live")
        wait(browser, "return document.querySelectorAll('#drawing svg #live text.livecard').length >= 2", 120,
             "two cards of a trick on the drawing")
        text = browser.execute_script("return document.body.innerText")
        assert "Club night" in text and "Forty-Fives" in text
        names = browser.execute_script("return [...document.querySelectorAll('#felt .seat .name')].map(e => e.textContent)")
        assert names == ["Ann", "Bob", "Cy", "Di"], names
        # suit glyphs in red and black on the drawing
        colours = browser.execute_script(
            "return [...document.querySelectorAll('#live text.livecard')].map(t => [t.textContent, t.getAttribute('fill')])")
        for face, fill in colours:
            assert fill == ("#c8102e" if face[-1] in "\u2665\u2666" else "#111"), colours
        assert any(face[-1] in "\u2663\u2660\u2665\u2666" for face, _ in colours)
        shot(browser, "serve-fortyfives-table.png")
        # a phone's width: the page still shows the table and the drawing
        browser.set_window_size(390, 844)
        time.sleep(0.5)
        width = browser.execute_script("return document.documentElement.scrollWidth")
        assert width <= 400, "the page scrolls sideways on a phone (%d px)" % width
        shot(browser, "serve-fortyfives-phone.png")
        browser.set_window_size(1100, 1000)
        # the spectator page offers no controls without the secret
        assert not browser.execute_script("return document.querySelector('#scorekeeper').offsetParent")
        browser.get(s.url + "overlay")
        wait(browser, "return document.querySelector('#ovscores').textContent.includes('Ann & Cy')", 30, "overlay scores")
        assert browser.execute_script("return getComputedStyle(document.body).backgroundColor") in (
            "rgba(0, 0, 0, 0)", "transparent")
        # the game ends; the archive lists it, replays it, shows the verdict
        s.wait_for(lambda: s.json("archive.json"), 300, "the game in the archive")
        browser.get(s.url + "archive")
        wait(browser, "return document.querySelectorAll('#games a').length >= 2", 30, "the archive list")
        assert "Club night" in browser.execute_script("return document.body.innerText")
        browser.get(s.url + "archive/1")
        wait(browser, "return document.querySelector('#verdictbox').textContent.includes('legal')", 30, "verdict")
        wait(browser, "return document.querySelector('#where').textContent.includes('Before the first')", 30, "replay")
        browser.find_element("id", "nexttrick").click()
        where = browser.execute_script("return document.querySelector('#where').textContent")
        assert "1 trick played" in where, where
        browser.find_element("id", "last").click()
        assert "Game over" in browser.execute_script("return document.querySelector('#centre').textContent")
        shot(browser, "serve-fortyfives-replay.png")


def test_nerts_race_table_page_in_chromium(browser, tmp_path) -> None:
    with Serve("--sim", "nerts", "--delay", "0.05", "--http", "127.0.0.1:0", "--archive", str(tmp_path),
               "--rule", "target=10", "-q") as s:
        browser.get(s.url)
        wait(browser, "return document.querySelector('#badge').textContent === 'live'", 60, "live")
        wait(browser, "return document.querySelectorAll('#live text.livecard').length >= 3", 120,
             "cards on the centre's foundation zones")
        wait(browser, "return [...document.querySelectorAll('#rows .rowlabel')].some(s => s.textContent.startsWith('centre'))",
             30, "the centre piles")
        text = browser.execute_script("return document.body.innerText")
        assert "Nerts" in text and "everyone plays at once" in text
        assert browser.execute_script("return document.querySelectorAll('#felt.ring .seat').length") == 6
        shot(browser, "serve-nerts-table.png")
    if os.environ.get("CI"):
        print("screenshots in %s" % ARTIFACTS)
