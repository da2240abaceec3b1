"""A player's own seat page on a phone (390 x 844, Debian's headless Chromium): the scorekeeper's
page shows a QR code per seat; seat 1's page shows Bob's hand, whose turn in names, the trick and
the score, and in teaching mode frames the cards the board's legal() allows and writes check()'s
reason under every other card. Screenshots in build/artifacts/."""
from __future__ import annotations

from pathlib import Path

import pytest
from browsersupport import ARTIFACTS, chromium, need_chromium, wait
from hostsupport import need_node
from servesupport import Serve

pytest.importorskip("aiohttp")
need_node()
need_chromium()


@pytest.fixture()
def phone():
    with chromium(390, 844) as driver:
        driver.set_page_load_timeout(30)
        driver.set_window_size(390, 844)  # headless Chromium opens no narrower than 500 px
        yield driver


def shot(driver, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    driver.save_screenshot(str(path))
    print("screenshot: %s" % path)
    assert path.stat().st_size > 10000
    return path


def test_seat_page_with_teaching_on_a_phone(phone, tmp_path) -> None:
    with Serve("--sim", "fortyfives", "--deal-pad", "--bot-delay", "0.5", "--http", "127.0.0.1:0", "--archive", str(tmp_path),
               "--table", "Club night", "--players", "Ann,Bob,Cy,Di", "--teach", "1", "-q") as s:
        # the scorekeeper's page: a QR code per seat, with the players' names
        phone.get(s.url + "#secret=" + s.secret)
        wait(phone, "return document.querySelectorAll('#seatqr .seatcode svg').length === 4", 60, "four seat codes")
        names = phone.execute_script("return [...document.querySelectorAll('#seatqr .seatname')].map(e => e.textContent)")
        assert names == ["Ann", "Bob", "Cy", "Di"]
        phone.execute_script("document.querySelector('#seatcodes').scrollIntoView()")
        shot(phone, "seat-scorekeeper-codes.png")
        url = phone.execute_script("return document.querySelectorAll('#seatqr .seatcode a')[1].href")
        assert "/seat/1?token=" in url
        # Bob's own page
        phone.get(url)
        wait(phone, "return document.querySelector('#badge').textContent === 'live'", 60, "live")
        wait(phone, "return document.querySelectorAll('#hand .card').length >= 1", 120, "Bob's hand")
        assert phone.execute_script("return document.querySelector('#who').textContent").startswith("Bob")
        # teaching: wait for Bob to be asked to play with cards framed and others refused
        wait(phone, "return document.querySelectorAll('#hand .slot.legal').length >= 1 && "
                    "document.querySelectorAll('#hand .slot.illegal').length >= 1", 600,
             "a trick where some of Bob's cards may be played and some not")
        got = phone.execute_script("""
            const m = Seat.state.msg;
            return {teach: m.teach, hand: m.words.hand, turn: document.querySelector('#turn').textContent,
                    slots: [...document.querySelectorAll('#hand .slot')].map(s => [s.querySelector('.card').dataset.code,
                      s.classList.contains('legal'), (s.querySelector('.why') || {}).textContent || null]),
                    width: document.documentElement.scrollWidth, text: document.body.innerText};""")
        shot(phone, "seat-teaching-phone.png")
        assert phone.execute_script("return innerWidth") == 390
        assert got["width"] <= 390, "the seat page scrolls sideways on a phone (%d px)" % got["width"]
        assert [c for c, _l, _w in got["slots"]] == got["hand"]
        teach = dict((code, why) for code, why in got["teach"])
        for code, legal, why in got["slots"]:
            assert legal == (teach[code] is None), (code, legal, teach)
            assert why == teach[code], (code, why, teach[code])  # the game's own words, as check() said
        reasons = [w for _c, legal, w in got["slots"] if not legal]
        assert all(r and r[0].islower() for r in reasons), reasons
        # words, not arrays; names, not seat numbers
        text = got["text"]
        assert "Your hand" in text and "The trick" in text and "Score" in text
        assert "Ann & Cy" in text and "Bob & Di" in text
        assert "[" not in text and "seat 1" not in text
        # the hand shown is the board's view for seat 1 (its own hand; test_seat_pages proves no other)
        assert phone.execute_script("return Seat.state.msg.view.hand") == got["hand"]


def test_tempo_slow_play_note_and_the_archives_figures(phone, tmp_path) -> None:
    import json
    import urllib.request

    from cardtable_host.serve import tempo

    with Serve("--sim", "nexus", "--bot-delay", "1.2", "--http", "127.0.0.1:0", "--archive", str(tmp_path),
               "--players", "Ann,Bob", "-q") as s:
        phone.get(s.url + "#secret=" + s.secret)
        wait(phone, "return document.querySelector('#slowset')", 30, "the slow-play threshold")
        phone.execute_script("document.querySelector('#slowlimit').value = '1'")
        phone.find_element("id", "slowset").click()
        wait(phone, "return document.querySelector('#slowsaid').textContent.includes('after 1 s')", 20, "the threshold set")
        note = wait(phone, "const n = document.querySelector('#slownote');"
                           "return n.offsetParent && n.textContent", 60, "a slow-play note")
        assert note.startswith("slow play: ") and ("Ann has had the turn" in note or "Bob has had the turn" in note), note
        assert "(the limit is 1 s)" in note
        phone.execute_script("window.scrollTo(0, 0)")
        shot(phone, "tempo-slow-note-phone.png")
        # without the secret the threshold cannot be set
        req = urllib.request.Request(s.url + "tempo", data=b'{"seconds": 5}', method="POST",
                                     headers={"Content-Type": "application/json"})
        try:
            urllib.request.urlopen(req, timeout=10)
            raise AssertionError("the threshold was set without the secret")
        except urllib.error.HTTPError as e:
            assert e.code == 403
        s.wait_for(lambda: s.json("archive.json"), 600, "the game in the archive")
        status, rec = s.get("archive/1.jsonl")
        fig = tempo.figures([x for x in rec.splitlines() if x.strip()])
        assert fig is not None and fig["seats"], "the archive kept no times"
        phone.get(s.url + "archive/1")
        rows = wait(phone, "const t = document.querySelectorAll('#tempo table');"
                           "return t.length === 2 && [...t].map(x => [...x.querySelectorAll('tr')].slice(1)"
                           ".map(r => [...r.children].map(c => c.textContent)))", 30, "the tempo tables")
        phone.execute_script("document.querySelector('#tempo').scrollIntoView()")
        shot(phone, "tempo-archive-phone.png")
    names = ["Ann", "Bob"]
    want_seats = [[names[r["seat"]], str(r["actions"]), tempo.seconds(r["median_ms"]), tempo.seconds(r["slowest_ms"]),
                   tempo.histogram_words(r["histogram"])] for r in fig["seats"]]
    want_hands = [["hand %d" % r["hand"], str(r["actions"]), tempo.seconds(r["median_ms"]),
                   tempo.seconds(r["slowest_ms"]), tempo.histogram_words(r["histogram"])] for r in fig["hands"]]
    assert rows == [want_seats, want_hands]
    # the bots wait 1.2 s between actions: every seat's median is at least that
    assert all(r["median_ms"] >= 1000 for r in fig["seats"]), fig
    json.dumps(fig)


STUB = """
window.__said = []; window.__buzz = [];
Object.defineProperty(window, 'speechSynthesis', {value: {speak: (u) => window.__said.push(u.text), cancel: () => {}}});
navigator.vibrate = (p) => { window.__buzz.push(p); return true; };
"""


def test_a_seat_page_speaks_its_own_verdicts(phone, tmp_path) -> None:
    phone.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": STUB})
    with Serve("--sim", "fortyfives", "--deal-pad", "--bot-delay", "1", "--no-mistakes", "--http", "127.0.0.1:0",
               "--archive", str(tmp_path), "--players", "Ann,Bob,Cy,Di", "-q") as s:
        import json
        import urllib.request

        req = urllib.request.Request(s.url + "seats.json", headers={"X-Cardtable-Secret": s.secret})
        with urllib.request.urlopen(req, timeout=20) as r:
            urls = [x["url"] for x in json.loads(r.read().decode())["seats"]]
        phone.get(urls[1])
        hand = wait(phone, "return Seat.state.msg && Seat.state.msg.view && Seat.state.msg.view.hand", 120, "Bob's hand")
        assert phone.execute_script("return window.__said") == []  # nothing said on opening
        card = next(c for c in ("2C", "3D", "4H", "5S", "6C", "7D") if c not in hand)
        status, reply = s.control({"cmd": "act", "action": {"seat": 1, "act": "play", "card": card}}, secret=s.secret)
        assert status == 409 and not reply["ok"]
        said = wait(phone, "return window.__said.length && window.__said", 30, "Bob's verdict said aloud")
        spoken = phone.execute_script("return Seat.state.msg.verdict.spoken")
        from cardtable_host.serve.speech import card_words

        assert said == [spoken] and spoken.startswith("Bob, %s: " % card_words(card)), (said, spoken)
        assert reply["error"].split(":")[0].replace("seat 1", "Bob") in spoken
        assert phone.execute_script("return window.__buzz") == [[200, 100, 200]]
        # another seat's verdict is not Bob's: his page says nothing more
        s.control({"cmd": "act", "action": {"seat": 3, "act": "play", "card": card}}, secret=s.secret)
        s.control({"cmd": "act", "action": {"seat": 1, "act": "bid", "bid": 17}}, secret=s.secret)
        said = wait(phone, "return window.__said.length === 2 && window.__said", 30, "Bob's second verdict")
        assert said[1].startswith("Bob: "), said
        assert len(phone.execute_script("return window.__said")) == 2


def test_a_seat_page_says_its_hand_and_the_trick_when_its_say_button_is_pressed(phone, tmp_path) -> None:
    # issue 33: the seat's say button (pressed here by the scorekeeper's `press`, as the button
    # would be: test_seat_buttons presses the virtual board's own) is answered on its page alone
    phone.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": STUB})
    with Serve("--sim", "fortyfives", "--deal-pad", "--bot-delay", "2", "--no-mistakes", "--http", "127.0.0.1:0",
               "--archive", str(tmp_path), "--players", "Ann,Bob,Cy,Di", "-q") as s:
        import json
        import urllib.request

        from cardtable_host.serve.speech import hand_said

        req = urllib.request.Request(s.url + "seats.json", headers={"X-Cardtable-Secret": s.secret})
        with urllib.request.urlopen(req, timeout=20) as r:
            urls = [x["url"] for x in json.loads(r.read().decode())["seats"]]
        s.wait_for(lambda: (s.json("snapshot.json").get("view") or {}).get("phase") not in (None, "deal"), 120,
                   "the deal across the pad")
        assert s.control({"cmd": "press", "button": "say 1"}, secret=s.secret)[0] == 200  # before the page opens
        phone.get(urls[1])
        wait(phone, "return Seat.state.msg && Seat.state.msg.say && Seat.state.msg.view.hand", 60, "Bob's page")
        assert phone.execute_script("return window.__said") == []  # a press answered before it opened: not said
        assert s.control({"cmd": "press", "button": "say 1"}, secret=s.secret)[0] == 200
        said = wait(phone, "return window.__said.length && window.__said", 30, "Bob's hand said")
        m = phone.execute_script("return Seat.state.msg")
        assert said == [m["say"]["text"]] and m["say"]["n"] == 2, (said, m.get("say"))
        assert said[0].startswith(hand_said(None, m["view"]["hand"], "Bob") + " "), said
        assert " The trick: " in said[0] or " No card on the trick yet." in said[0]
        assert phone.execute_script("return document.querySelector('#asked').textContent") == said[0]
        phone.execute_script("document.querySelector('#asked').scrollIntoView()")
        shot(phone, "seat-say-phone.png")
        phone.set_window_size(1280, 900)
        shot(phone, "seat-say-desktop.png")
        # another seat's page asked nothing: Ann's opens and says nothing of Bob's
        phone.get(urls[0])
        wait(phone, "return Seat.state.msg && Seat.state.msg.view", 60, "Ann's page")
        assert phone.execute_script("return window.__said") == [] and phone.execute_script("return Seat.state.msg.say") is None
