"""The director's page in Debian's headless Chromium (Selenium): tables live, the standings
as games finish, the next round's pairings; the director's credential required."""
from __future__ import annotations

import shutil
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("aiohttp")
webdriver = pytest.importorskip("selenium.webdriver")

from cardtable_host import broker as brokers  # noqa: E402
from cardtable_host.directorweb import run_in_thread  # noqa: E402
from cardtable_host.evening import Evening  # noqa: E402
from cardtable_host.tourney import create  # noqa: E402

ARTIFACTS = Path(__file__).resolve().parents[2] / "build" / "artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
if not (CHROMIUM and CHROMEDRIVER):
    pytest.skip("Chromium and chromium-driver are not installed (apt-get install chromium "
                "chromium-driver; .ci/run does)", allow_module_level=True)
if not shutil.which("mosquitto_passwd"):
    pytest.skip("Mosquitto is not installed", allow_module_level=True)


def wait(driver, js: str, timeout: float = 30, what: str = ""):  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = driver.execute_script(js)
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError("timed out waiting for %s; page: %s" % (what, driver.execute_script(
        "return document.body.innerText")[:1500]))


def test_director_page_follows_the_evening(tmp_path: Path) -> None:
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

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
    opts = Options()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1200,900"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    try:
        driver.get(base + "login?key=" + creds["director"])
        wait(driver, "return document.querySelectorAll('#next tbody tr').length == 2", what="round 2 pairings")
        ev.play_round(tour.state["rounds"][0])
        # round 1 over: the standings show two wins, the tables their final scores, round 2 next
        wait(driver, "return [...document.querySelectorAll('#standings tbody tr')]"
                     ".filter(r => r.cells[3].textContent == '1').length == 2", what="round 1 standings")
        tables = driver.execute_script("return [...document.querySelectorAll('#tables tbody tr')]"
                                       ".map(r => [...r.cells].map(c => c.textContent))")
        assert len(tables) == 2 and all(t[5] == "finished" and t[1] == "1" for t in tables)
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
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / "tournament-director.png"))
    finally:
        driver.quit()
        stop()
        ev.stop()
        b.stop()
