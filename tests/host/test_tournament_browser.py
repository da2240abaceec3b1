"""The director's page in Debian's headless Chromium (Selenium): tables live, the standings
as games finish, the next round's pairings, a correction made on the page (audited, the
standings following); the director's credential required."""
from __future__ import annotations

import json
import shutil
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from browsersupport import ARTIFACTS, chromium, need_chromium, wait

pytest.importorskip("aiohttp")

from cardtable_host.tournament import broker as brokers  # noqa: E402
from cardtable_host.tournament.directorweb import run_in_thread  # noqa: E402
from cardtable_host.tournament.evening import Evening  # noqa: E402
from cardtable_host.tournament.tourney import create  # noqa: E402

need_chromium()
if not shutil.which("mosquitto_passwd"):
    pytest.skip("Mosquitto is not installed", allow_module_level=True)


def test_director_page_follows_the_evening(tmp_path: Path) -> None:
    teams = [{"name": "Team %d" % i, "players": ["P%dA" % i, "P%dB" % i]} for i in range(1, 5)]
    tour = create(tmp_path / "t", teams, 2, prizes=["$200 ($100 each)", "Wine Gift Baskets"])
    creds = brokers.write_config(tour.dir / "broker", tour.id, 2)
    b = brokers.LocalBroker(tour.dir / "broker").start()
    ev = Evening(tour, "127.0.0.1", b.port, creds, seed=2, pace=0.002).start()
    stop, port = run_in_thread(ev.director, creds["director"], 0)
    base = "http://127.0.0.1:%d/" % port
    with pytest.raises(urllib.error.HTTPError) as no:
        urllib.request.urlopen(base + "state.json")
    assert no.value.code == 403
    with pytest.raises(urllib.error.HTTPError):
        urllib.request.urlopen(base + "login?key=" + creds["table1"])
    try:
        with chromium(1200, 900) as driver:
            _follow(driver, base, tour, ev, creds)
    finally:
        stop()
        ev.stop()
        b.stop()


def _follow(driver, base: str, tour, ev, creds) -> None:  # type: ignore[no-untyped-def]
    """The director's page through the evening, then a correction made on it."""
    driver.get(base + "login?key=" + creds["director"])
    wait(driver, "return document.querySelectorAll('#next tbody tr').length == 2", what="round 2 pairings")
    ev.play_round(tour.state["rounds"][0])
    # round 1 over: the standings show two wins, the tables their final scores, round 2 next
    wait(driver, "return [...document.querySelectorAll('#standings tbody tr')]"
                 ".filter(r => r.cells[3].textContent == '1').length == 2", what="round 1 standings")
    # the tables' status: the director looks at it every quarter second (tablewatch)
    wait(driver, "const t = [...document.querySelectorAll('#tables tbody tr')]"
                 ".map(r => [...r.cells].map(c => c.textContent));"
                 "return t.length == 2 && t.every(r => r[5] == 'finished' && r[1] == '1')",
         what="both tables finished in round 1")
    nxt = driver.execute_script("return [...document.querySelectorAll('#next tbody tr')]"
                                ".map(r => r.cells[1].textContent)")
    want = [" v ".join(tour.team_name(t) for t in g["teams"]) for g in tour.state["rounds"][2]["games"]]
    assert sorted(nxt) == sorted(want)
    for rnd in tour.state["rounds"][1:]:
        ev.play_round(rnd)
    wait(driver, "return document.getElementById('progress').textContent.includes('evening is over')",
         what="the end")
    rows = driver.execute_script("return [...document.querySelectorAll('#standings tbody tr')]"
                                 ".map(r => [...r.cells].map(c => c.textContent))")
    expect = [[str(r[k]) for k in ("rank", "name", "played", "won", "lost", "points_for", "points_against")]
              for r in tour.standings()]
    assert rows == expect
    prizes = driver.execute_script("return document.getElementById('prizes').innerText")
    assert "First Place Team: $200 ($100 each)" in prizes and "Second Place Team: Wine Gift Baskets" in prizes
    # a correction from the page: the first game's scores the other way round, audited
    g = tour.state["rounds"][0]["games"][0]
    was = tour.outcomes()[g["id"]]["scores"]
    no_cookie = urllib.request.Request(base + "correct", data=json.dumps(
        {"game": g["id"], "scores": [0, 0]}).encode(), method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(no_cookie)
    assert refused.value.code == 403
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", "c-game")).select_by_value(g["id"])
    labels = [driver.find_element("id", "c-team%d" % i).text for i in (0, 1)]
    assert labels == [tour.team_name(t) for t in g["teams"]]
    for field, text in (("c-s0", str(was[1])), ("c-s1", str(was[0])), ("c-reason", "scores entered the wrong way round")):
        driver.find_element("id", field).send_keys(text)
    by = driver.find_element("id", "c-by")
    by.clear()
    by.send_keys("TD Ann")
    driver.find_element("css selector", "#correct button").click()
    wait(driver, "return document.getElementById('c-said').textContent.startsWith('corrected')", what="the answer")
    fixed = [e for e in tour.log() if e["kind"] == "correction"]
    assert len(fixed) == 1 and fixed[0]["game"] == g["id"] and fixed[0]["scores"] == [was[1], was[0]]
    assert fixed[0]["before"] == was and fixed[0]["by"] == "TD Ann" and fixed[0]["at"]
    assert fixed[0]["reason"] == "scores entered the wrong way round"
    expect = [[str(r[k]) for k in ("rank", "name", "played", "won", "lost", "points_for", "points_against")]
              for r in tour.standings()]
    assert expect != rows  # the winner changed hands
    table_js = "return [...document.querySelectorAll('#standings tbody tr')].map(r => [...r.cells].map(c => c.textContent))"
    end = time.monotonic() + 30
    while driver.execute_script(table_js) != expect and time.monotonic() < end:
        time.sleep(0.1)
    assert driver.execute_script(table_js) == expect
    wait(driver, "return document.getElementById('c-game').selectedOptions[0].textContent.endsWith('%d - %d')"
         % (was[1], was[0]), what="the corrected game in the list")
    # a correction the director's service refuses is answered on the page, and changes nothing
    said = driver.execute_async_script(
        "const done = arguments[0]; fetch('correct', {method: 'POST', body: JSON.stringify("
        "{game: 'no-such-game', scores: [1, 2]})}).then(r => r.json().then(j => done([r.status, j])))")
    assert said[0] == 400 and not said[1]["ok"] and "no game" in said[1]["error"]
    assert len([e for e in tour.log() if e["kind"] == "correction"]) == 1
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / "tournament-director.png"))


NO_SIDEWAYS = "return document.documentElement.scrollWidth <= window.innerWidth && document.body.scrollWidth <= window.innerWidth"


def test_director_page_on_a_phone_leading_then_places_and_its_health(tmp_path: Path) -> None:
    """At 390x844 nothing scrolls sideways; before the last game the page says who is leading
    (no places); a read-only folder is said on the page, as is when a result was last counted."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(
        "cardtable_bench_tournament_faults", Path(__file__).resolve().parents[2] / "bench" / "tournament_faults.py")
    assert spec and spec.loader
    drill = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = drill
    spec.loader.exec_module(drill)

    names = ["The Queen's Gambiteers", "Kings of Clubs Anonymous", "Jacks-of-all-Trumps", "Aces High Society"]
    teams = [{"name": n, "players": ["Maximilian %s" % n[:3], "Philomena %s" % n[-3:]]} for n in names]
    tour = create(tmp_path / "t", teams, 2, prizes=["$200 ($100 each)", "Wine Gift Baskets"])
    creds = brokers.write_config(tour.dir / "broker", tour.id, 2)
    b = brokers.LocalBroker(tour.dir / "broker").start()
    ev = Evening(tour, "127.0.0.1", b.port, creds, seed=2, pace=0.0).start()
    stop, port = run_in_thread(ev.director, creds["director"], 0)
    base = "http://127.0.0.1:%d/" % port
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        with chromium(500, 844) as phone:  # headless Chromium's narrowest window: a phone's width emulated
            phone.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                  {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
            phone.get(base + "login?key=" + creds["director"])
            wait(phone, "return document.getElementById('health').textContent.includes('no result counted')",
                 what="the health line")
            ev.play_round(tour.state["rounds"][0])
            wait(phone, "return document.getElementById('prizes').textContent.startsWith('Leading so far: ')",
                 what="who is leading")
            assert "Place" not in phone.execute_script("return document.body.innerText")
            assert wait(phone, "return document.getElementById('health').textContent.includes('last counted a result at')",
                        what="when it last counted")
            assert phone.execute_script("return window.innerWidth") == 390
            assert phone.execute_script(NO_SIDEWAYS), phone.execute_script(
                "return [document.documentElement.scrollWidth, window.innerWidth]")
            phone.save_screenshot(str(ARTIFACTS / "tournament-director-phone-leading.png"))
            # the archive read-only: a game of round 2 is kept, and the page says so
            g = tour.state["rounds"][1]["games"][0]
            with drill.read_only(tour.dir / "archive"):
                ev.tables[g["table"]].play(g["id"], 77)
                wait(phone, "return document.querySelector('#health .trouble')?.textContent.includes("
                            "'Cannot save to the tournament folder')", what="the storage error")
                text = phone.execute_script("return document.querySelector('#health .trouble').textContent")
                assert "1 result(s) kept" in text
                assert phone.execute_script(NO_SIDEWAYS)
                phone.save_screenshot(str(ARTIFACTS / "tournament-director-phone-storage-error.png"))
            wait(phone, "return !document.querySelector('#health .trouble')", what="the storage error gone")
            for rnd in tour.state["rounds"][1:]:
                ev.play_round(rnd)
            wait(phone, "return document.getElementById('prizes').textContent.includes('First Place Team')",
                 what="the places")
            assert "Leading" not in phone.execute_script("return document.getElementById('prizes').textContent")
            assert phone.execute_script(NO_SIDEWAYS)
            phone.save_screenshot(str(ARTIFACTS / "tournament-director-phone-over.png"))
        with chromium(1280, 900) as desk:
            desk.get(base + "login?key=" + creds["director"])
            wait(desk, "return document.getElementById('prizes').textContent.includes('First Place Team')",
                 what="the places")
            assert desk.execute_script(NO_SIDEWAYS)
            desk.save_screenshot(str(ARTIFACTS / "tournament-director-desktop.png"))
    finally:
        stop()
        ev.stop()
        b.stop()
