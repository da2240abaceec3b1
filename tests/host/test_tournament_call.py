"""A player's call for the director, in a tournament, over a real Mosquitto: a seat page's
"call the director" button at a served table reaches the director's page ("Table 1 calls the
director: P1A (Team 1 v Team 2)", the schedule's names) and stays there until the director
clears it (the retained call goes from the broker too); hostile calls (huge, not JSON, not a
call, another table's number) are refused and logged, and the director goes on counting."""
from __future__ import annotations

import json
import shutil
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from cardtable_host.tournament import mqttwire
from cardtable_host.tournament.director import Director
from cardtable_host.tournament.reporter import Reporter
from hostsupport import club_tournament

if not (shutil.which("mosquitto_passwd") and (shutil.which("mosquitto") or Path("/usr/sbin/mosquitto").exists())):
    pytest.skip("Mosquitto is not installed (apt-get install mosquitto; .ci/run does)", allow_module_level=True)


@pytest.fixture
def tournament(tmp_path: Path):  # type: ignore[no-untyped-def]
    with club_tournament(tmp_path) as running:
        yield running


def refused(tour: Any) -> list[dict[str, Any]]:
    path = tour.dir / "refused.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def heard(tour: Any, t1: Reporter, timeout: float) -> bool:
    """Table 1 sends something not a call; whether the director refused it within timeout."""
    before = len(refused(tour))
    t1.c.publish(t1.topic("call"), b"[%d]" % time.monotonic_ns(), qos=1).wait_for_publish(5)
    return mqttwire.wait_for(lambda: len(refused(tour)) > before, timeout)


def restarted(tour: Any, creds: dict[str, str], port: int, t1: Reporter) -> Director:
    """A new director's service, once it has had whatever the broker keeps for table 1's call.
    A first message heard may have waited in its session from before; a second one, sent after
    that, comes after its subscription's kept call (one connection, in order)."""
    d = Director(tour, "127.0.0.1", port, creds["director"]).start()
    if not any(heard(tour, t1, 0.5) for _ in range(40)) or not heard(tour, t1, 10):
        d.stop()
        raise AssertionError("the new director never heard table 1")
    return d


def test_hostile_calls_are_refused_and_a_true_one_shows_until_cleared(tournament) -> None:  # type: ignore[no-untyped-def]
    tour, creds, b, d = tournament
    t1 = Reporter(tour, 1, "127.0.0.1", b.port, creds["table1"]).start()
    try:
        g1 = next(g for g in tour.state["rounds"][0]["games"] if g["table"] == 1)
        where = t1.topic("call")
        good = {"table": 1, "seat": 2, "who": "whoever", "game": g1["id"], "t": time.time()}
        hostile = [
            b"x" * (mqttwire.MAX_CALL + 1),  # too large for a call
            json.dumps(dict(good, who="A" * 500_000)).encode(),  # huge, under the broker's limit
            b"{not json", b"\xff\xfe", b"[1, 2]", b'{"a": {"b": {"c": 1}}}',
            json.dumps(dict(good, table=2)).encode(),  # another table's number, under its own topic
            json.dumps(dict(good, seat="north")).encode(),
            json.dumps(dict(good, who=["Ann"])).encode(),
            b'{"table": 1, "seat": 0, "who": "Ann", "game": null, "t": NaN}',
        ]
        for raw in hostile:
            t1.c.publish(where, raw, qos=1).wait_for_publish(5)
        assert mqttwire.wait_for(lambda: len(refused(tour)) >= len(hostile), 15), refused(tour)
        whys = [r["why"] for r in refused(tour)]
        assert all(w.startswith("a call for the director: ") for w in whys), whys
        text = " | ".join(whys)
        for said in ("too large", "not JSON", "not UTF-8", "not a JSON object", "nested more than 2 deep",
                     "must name its own table (1)", "\"seat\" must be", "\"who\" must be a name", "\"t\" must be"):
            assert said in text, (said, text)
        assert d.calls == {}  # nothing hostile shows on the page
        # the director goes on: a true call shows, with the schedule's names
        t1.call_director(2, "the board's south", g1["id"])
        assert mqttwire.wait_for(lambda: 1 in d.calls, 10)
        names = [tour.team_name(t) for t in g1["teams"]]
        assert d.calls[1]["who"] == tour.seat_players(g1)[2] and d.calls[1]["teams"] == names
        # ... and still counts results
        t1.play(g1["id"], 7)
        assert mqttwire.wait_for(lambda: g1["id"] in tour.outcomes(), 15)
        assert d.handler_errors == 0
        # the call stays until the director clears it: a restarted director's service shows it
        d.stop()
        d2 = restarted(tour, creds, b.port, t1)
        try:
            assert d2.calls.get(1, {}).get("who") == tour.seat_players(g1)[2]
            assert d2.clear_call(1) and d2.calls == {}
            assert not d2.clear_call(1)
        finally:
            d2.stop()
        d3 = restarted(tour, creds, b.port, t1)  # cleared on the broker too: gone for good
        try:
            assert d3.calls == {}
        finally:
            d3.stop()
    finally:
        t1.stop()


def test_the_seat_pages_button_reaches_the_directors_page(tournament, tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("aiohttp")
    from browsersupport import chromium, need_chromium, wait
    from hostsupport import need_node
    from servesupport import Serve

    from cardtable_host.board.link import Link
    from cardtable_host.sim.board import VirtualBoard
    from cardtable_host.tournament.directorweb import run_in_thread

    need_node()
    need_chromium()
    tour, creds, b, d = tournament
    g = next(x for x in tour.state["rounds"][0]["games"] if x["table"] == 1)
    caller = tour.seat_players(g)[1]
    names = " v ".join(tour.team_name(t) for t in g["teams"])
    stop, port = run_in_thread(d, creds["director"], 0)
    base = "http://127.0.0.1:%d/" % port
    try:
        with VirtualBoard("pico-i2c-4seat", layout="fortyfives", period_ms=0) as vb:
            link = Link(vb.stable_port, timeout=10)
            try:
                link.new("fortyfives", seats=4, dealer=0, layout="fortyfives")
            finally:
                link.close()
            with Serve("--port", vb.stable_port, "--http", "127.0.0.1:0", "--archive", str(tmp_path / "archive"),
                       "--tournament", str(tour.dir), "--tournament-table", "1",
                       "--broker", "127.0.0.1:%d" % b.port, "-q") as s:
                req = urllib.request.Request(s.url + "seats.json", headers={"X-Cardtable-Secret": s.secret})
                with urllib.request.urlopen(req, timeout=20) as r:
                    seat1 = json.loads(r.read().decode())["seats"][1]["url"]
                with chromium(1200, 900) as driver:
                    driver.set_page_load_timeout(30)
                    driver.set_window_size(390, 844)
                    driver.get(seat1)
                    wait(driver, "return document.querySelector('#badge').textContent === 'live'", 60, "the seat page")
                    driver.execute_script("document.getElementById('director').click()")
                    wait(driver, "return document.getElementById('asked').textContent === 'the director is called'",
                         30, "the seat page's answer")
                    assert mqttwire.wait_for(lambda: 1 in d.calls, 15), s.out()
                    _directors_page(driver, base, creds["director"], "Table 1 calls the director: %s (%s)" % (caller, names))
                    assert d.calls == {}
    finally:
        stop()


def _directors_page(driver: Any, base: str, password: str, shown: str) -> None:
    """The director's page, on a desktop and on a phone: the call at the top, in words, until cleared."""
    from browsersupport import ARTIFACTS, wait

    driver.get(base + "login?key=" + password)
    for width, height, name in ((1200, 900, "director-call-desktop.png"), (390, 844, "director-call-phone.png")):
        driver.set_window_size(width, height)
        wait(driver, "return document.querySelector('#calls .call') !== null", 30, "the call")
        got = driver.execute_script(
            "const c = document.querySelector('#calls .call'); const r = c.getBoundingClientRect();"
            "return {text: c.innerText, top: r.top, width: document.documentElement.scrollWidth,"
            " inner: innerWidth};")
        assert got["text"].startswith(shown), got
        assert got["top"] < 200, "the call is not at the top of the page"
        assert got["width"] <= got["inner"], "the director's page scrolls sideways (%s)" % got
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / name))
        assert (ARTIFACTS / name).stat().st_size > 10000
    # it stays until the director clears it
    seen = driver.execute_script("return document.body.dataset.updated")
    for _ in range(2):  # two updates of the page later
        wait(driver, "return document.body.dataset.updated !== %s" % json.dumps(seen), 20, "an update")
        seen = driver.execute_script("return document.body.dataset.updated")
    assert driver.execute_script("return document.querySelectorAll('#calls .call').length") == 1
    driver.execute_script("document.querySelector('#calls .call button').click()")
    wait(driver, "return document.querySelectorAll('#calls .call').length === 0", 20, "the call cleared")
    assert driver.execute_script("return document.querySelectorAll('#calls .call').length") == 0
