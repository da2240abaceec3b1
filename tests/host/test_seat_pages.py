"""The players' own seat pages (`/seat/N?token=...`): over whole games of every game whose hands
the table knows (dealt across the deal pad on the virtual board), seat N's socket carries the
board's view for seat N - exactly the game's view(seat) at that journal line - and never a card
of another seat's hand the spectators have not been shown; a spectator never gets a seat's
hand; a wrong, old, revoked or other seat's token is refused (401) with the same words whatever
the seat; tokens differ per seat and per game."""
from __future__ import annotations

import asyncio
import json
import re
import threading
import urllib.error
import urllib.request
from typing import Any

import pytest
from hostsupport import need_node
from servesupport import Serve, Viewer

pytest.importorskip("aiohttp")
pytest.importorskip("termios")
need_node()

# every game with a deal pad (the table knows the hands), with targets that end a whole game soon
KNOWN = {"nexus": [], "fairies": [], "california-jacks": ["--rule", "target=2"],
         "fortyfives": ["--rule", "target=20"], "nonesuch": ["--rule", "target=3"]}
PLAYERS = "Ann,Bob,Cy,Di"
_SPLIT = re.compile(r"[\s,;:()\[\]{}'\"=×]+")


class SeatSocket:
    """A seat page's WebSocket on its own thread: every message it got, and how it closed."""

    def __init__(self, url: str) -> None:
        self.url = url.replace("http://", "ws://").replace("?", "/ws?", 1)
        self.messages: list[dict[str, Any]] = []
        self.close_code: int | None = None
        self.status: int | None = None
        self.sent: list[Any] = []
        self._out: list[Any] = []
        self._stop = threading.Event()
        self._t = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)
        self._t.start()

    def send(self, item: Any) -> None:
        self._out.append(item)

    async def _run(self) -> None:
        import aiohttp

        async with aiohttp.ClientSession() as s:
            try:
                ws = await s.ws_connect(self.url)
            except aiohttp.WSServerHandshakeError as e:
                self.status = e.status
                self.close_code = -1
                return
            async with ws:
                while not self._stop.is_set():
                    while self._out:
                        item = self._out.pop(0)
                        await (ws.send_bytes(item) if isinstance(item, bytes) else ws.send_str(item))
                    try:
                        msg = await ws.receive(timeout=0.2)
                    except asyncio.TimeoutError:
                        continue
                    if msg.type != aiohttp.WSMsgType.TEXT:
                        break
                    self.messages.append(json.loads(msg.data))
                self.close_code = ws.close_code

    def close(self) -> None:
        self._stop.set()
        self._t.join(10)


def codes_of(s: Serve) -> dict[str, Any]:
    req = urllib.request.Request(s.url + "seats.json", headers={"X-Cardtable-Secret": s.secret})
    with urllib.request.urlopen(req, timeout=20) as r:
        return json.loads(r.read().decode())


def post_seats(s: Serve, body: Any, secret: str | None) -> tuple[int, dict[str, Any]]:
    h = {"Content-Type": "application/json"}
    if secret is not None:
        h["X-Cardtable-Secret"] = secret
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(s.url + "seats", data=data, headers=h, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, json.loads(r.read().decode())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read().decode())


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=20) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def strings(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in strings(v)] + [k for k in obj if isinstance(k, str)]
    if isinstance(obj, list):
        return [s for v in obj for s in strings(v)]
    return []


def replay(record_text: str) -> dict[int, Any]:
    """The game after each journal line of a record: seq -> (view per seat, spectator view,
    each seat's secret cards)."""
    from cardtable import record

    lines = [json.loads(x) for x in record_text.splitlines() if x.strip()]
    g = record.game_from_header(dict(lines[0]), 1)
    out = {}
    for seq, obj in enumerate(lines[1:], 1):
        g.apply(record.decode(g, obj, seq + 1))
        public = set(strings(g.view(None)))
        hands = [set(g.codes(h)) - public for h in getattr(g, "hands")]
        out[seq] = ([json.loads(json.dumps(g.view(s))) for s in range(g.seats)], public, hands)
    return out


@pytest.mark.parametrize("game_id", sorted(KNOWN))
def test_a_seat_page_carries_its_own_seat_alone_over_a_whole_game(game_id: str, tmp_path) -> None:
    with Serve("--sim", game_id, "--deal-pad", "--bot-delay", "0.1", "--wait-viewers", "1", "--http", "127.0.0.1:0",
               "--archive", str(tmp_path), "-q", "--players", PLAYERS, *KNOWN[game_id]) as s:
        # the bots start once a spectator has the page; a tenth of a second between actions lets
        # each seat page follow the game under load (a page shows the latest view, not every line)
        spectator = Viewer(s.url)
        s.wait_for(lambda: (s.json("snapshot.json").get("seq") or 0) >= 1, 120, "the deal")
        seats = codes_of(s)["seats"]
        assert len(seats) == s.json("snapshot.json")["hello"]["game"]["seats"]
        tokens = [x["url"].split("token=")[1] for x in seats]
        assert len(set(tokens)) == len(tokens)
        assert all(x["qr"].startswith("<svg") for x in seats)
        socks = [SeatSocket(x["url"]) for x in seats]
        s.wait_for(lambda: s.json("archive.json"), 900, "the whole game to end and be archived")
        s.wait_for(lambda: all(any((m.get("view") or {}).get("over") for m in k.messages) for k in socks),
                   60, "every seat page to see the game over")
        for k in socks:
            k.close()
        spectator.close()
        status, rec = s.get("archive/1.jsonl")
        assert status == 200
    after = replay(rec)
    leaks, judged, hands_seen = [], 0, 0
    for seat, k in enumerate(socks):
        assert k.messages, "seat %d's page got nothing" % seat
        for m in k.messages:
            assert m["type"] == "seat" and m["seat"] == seat
            seq = m.get("seq")
            if not isinstance(seq, int) or seq not in after:
                continue
            views, public, hands = after[seq]
            # exactly the game's view for this seat at that line: the one projection
            assert m["view"] == views[seat], (game_id, seat, seq)
            judged += 1
            hands_seen += bool(m["view"].get("hand"))
            found = set(strings(m))
            if game_id != "fairies":  # Fairies cards are numbers: words of text are not split
                found |= {t for x in strings(m) for t in _SPLIT.split(x)}
            others = set().union(*(h for o, h in enumerate(hands) if o != seat))
            bad = sorted(found & others)
            if bad:
                leaks.append("seat %d at line %d: %s in %s" % (seat, seq, bad, json.dumps(m)[:1500]))
            assert m["name"] == PLAYERS.split(",")[seat]
    assert judged > 20 and hands_seen > 10, (judged, hands_seen)
    assert not leaks, "\n".join(leaks[:10])
    # a spectator never gets a seat's hand
    spied = 0
    for m in spectator.messages:
        view = m.get("view") or {}
        assert "hand" not in view and "my_discards" not in view, m
        seq = m.get("seq")
        if isinstance(seq, int) and seq in after:
            secret = set().union(*after[seq][2])
            assert not set(strings(view)) & secret, (seq, sorted(set(strings(view)) & secret))
            spied += 1
    assert spied > 10


def test_tokens_are_refused_alike_per_seat_and_per_game(tmp_path) -> None:
    with Serve("--sim", "fortyfives", "--deal-pad", "--bot-delay", "0.5", "--http", "127.0.0.1:0", "--games", "0",
               "--archive", str(tmp_path), "-q", "--players", PLAYERS) as s:
        s.wait_for(lambda: (s.json("snapshot.json").get("seq") or 0) >= 2, 120, "the game to start")
        codes = codes_of(s)
        urls = [x["url"] for x in codes["seats"]]
        tok = [u.split("token=")[1] for u in urls]
        assert len(urls) == 4 and len(set(tok)) == 4
        # a seat's own code opens its page
        assert fetch(urls[1])[0] == 200
        base = s.url + "seat/"
        refusals = {fetch(u) for u in (base + "1", base + "1?token=", base + "1?token=nope", base + "1?token=" + tok[0],
                                       base + "9?token=" + tok[0], base + "x?token=" + tok[0],
                                       base + "4?token=" + tok[1], base + "1?token=" + "A" * 5000)}
        assert len(refusals) == 1 and next(iter(refusals))[0] == 401, refusals  # the same words for all
        assert "seat" not in next(iter(refusals))[1].replace("a seat's code", "")
        # the scorekeeper's codes and changes need the secret
        assert fetch(s.url + "seats.json")[0] == 403
        assert post_seats(s, {"cmd": "revoke", "seat": 1}, None)[0] == 403
        assert post_seats(s, {"cmd": "revoke", "seat": 1}, "wrong")[0] == 403
        assert post_seats(s, b"not json", s.secret)[0] == 400
        assert post_seats(s, {"cmd": "revoke", "seat": 17}, s.secret)[0] == 400
        assert post_seats(s, {"cmd": "frobnicate", "seat": 1}, s.secret)[0] == 400
        # the seat socket: refused without its code; with it, reads only; hostile input ends cleanly
        bad = SeatSocket(base + "2?token=" + tok[3])
        s.wait_for(lambda: bad.close_code is not None, 20, "the wrong code's socket to be refused")
        assert bad.status == 401
        two = SeatSocket(urls[2])
        two.send("undo")
        s.wait_for(lambda: any(m.get("type") == "seat" for m in two.messages) and
                   any(m.get("type") == "refused" for m in two.messages), 30, "seat 2's view and a refusal")
        assert any((m.get("view") or {}).get("hand") for m in two.messages if m.get("type") == "seat")
        two.send("x" * 100000)  # too big: the socket is closed, serve goes on
        s.wait_for(lambda: two.close_code is not None, 20, "the huge message to end the socket")
        # revoke: seat 1's old code is refused, its open page closed, a new code works
        one = SeatSocket(urls[1])
        s.wait_for(lambda: one.messages, 30, "seat 1's page")
        assert post_seats(s, {"cmd": "revoke", "seat": 1}, s.secret) == (200, {"ok": True})
        s.wait_for(lambda: one.close_code is not None, 20, "seat 1's page to be closed")
        assert one.close_code == 4001
        assert fetch(urls[1])[0] == 401
        again = codes_of(s)["seats"]
        assert again[1]["url"] != urls[1] and fetch(again[1]["url"])[0] == 200
        assert [x["url"] for i, x in enumerate(again) if i != 1] == [u for i, u in enumerate(urls) if i != 1]
        # a new game: every old code is refused, the new ones differ
        game = codes_of(s)["game"]
        assert s.control({"cmd": "new"}, secret=s.secret)[0] == 200
        new = s.wait_for(lambda: (lambda c: c if c["game"] != game else None)(codes_of(s)), 60, "new codes")
        assert all(fetch(x["url"])[0] == 401 for x in again)
        fresh = [x["url"].split("token=")[1] for x in new["seats"]]
        assert not set(fresh) & set(tok + [x["url"].split("token=")[1] for x in again])
        assert all(fetch(x["url"])[0] == 200 for x in new["seats"])
        assert s.proc.poll() is None
