"""Hidden information stays hidden through `cardtable serve`: every game is played by bots on
the virtual board, and no card a spectator has not been shown - another seat's hand before it
is played, face-down discards, the kitty, the second Nexus indicator in round 1, stock and deck
order, face-down Nerts cards - appears in any WebSocket message, page, overlay or line of a
`cardtable monitor` following serve. What a spectator has been shown is what the board's
spectator views (state messages) showed up to that message's journal line; one hand per game."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from typing import Any

import pytest
from hostsupport import need_node
from servesupport import Serve, Viewer, ended_hand

from cardtable import games
from cardtable.table.configcheck import facts

pytest.importorskip("aiohttp")
pytest.importorskip("termios")
need_node()

# every registered game, with the extra arguments some need for one short hand
EXTRA = {"nerts": ["--rule", "target=10", "--seed", "46"]}  # (seed 46: a round of 73 actions)
GAMES = {g: EXTRA.get(g, []) for g in games.GAMES}
# the games a deal pad may deal (the table knows every hand), again with the deal pad; seeds for
# short hands (others play seed 1)
PAD_SEEDS = {"california-jacks": 171, "fortyfives": 26}
DEAL_PAD = [g for g in games.GAMES if facts(g)[-1]]
CASES = [(g, a) for g, a in sorted(GAMES.items())] + [
    (g, ["--deal-pad", "--seed", str(PAD_SEEDS.get(g, 1)), *EXTRA.get(g, [])]) for g in sorted(DEAL_PAD)]
_SPLIT = re.compile(r"[\s,;:()\[\]{}'\"=×]+")


def strings(obj: Any) -> list[str]:
    """Every string inside a JSON value (keys too)."""
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in strings(v)] + [k for k in obj if isinstance(k, str)]
    if isinstance(obj, list):
        return [s for v in obj for s in strings(v)]
    return []


def card_codes(game_id: str) -> set[str]:
    from cardtable import games
    from cardtable.cards import deck

    cls = games.game_class(game_id)
    fam = deck(cls.DECK)
    return {fam.fmt(c) for c in cls.CARDS}


_GLYPH = re.compile("(10|[2-9AJQK])([\u2663\u2666\u2665\u2660])")
_SUIT = {"\u2663": "C", "\u2666": "D", "\u2665": "H", "\u2660": "S"}


def reading_cards(rd: Any) -> list[str]:
    """The cards the page's reading of the view shows (at the seats, in rows, the last trick)."""
    if not isinstance(rd, dict):
        return []
    out = [st["card"] for st in rd.get("seats") or () if st.get("card")]
    out += [c for row in rd.get("rows") or () for c in row.get("cards") or ()]
    return out + [p[1] for p in rd.get("last_trick") or ()]


def reading_words(rd: Any) -> list[str]:
    """The reading's words (names, facts, counts), its cards left out."""
    if not isinstance(rd, dict):
        return []
    rd = dict(rd, seats=[dict(st, card=None) for st in rd.get("seats") or ()],
              rows=[dict(row, cards=[]) for row in rd.get("rows") or ()], last_trick=[])
    return strings(rd)


def tokens(text: str, digits: bool) -> list[str]:
    """The words of text, a card told with its suit glyph ('10♥', as the pages say it) as its code."""
    text = _GLYPH.sub(lambda m: m.group(1) + _SUIT[m.group(2)], text)
    return [t for t in _SPLIT.split(text) if t and (digits or not t.isdigit())]


def monitor_showed_a_hand_end(said: list[str]) -> bool:
    """True once the monitor's status lines show the game over or a second hand."""
    hands = {m.group(1) for line in said if (m := re.match(r"-- \S+ hand (\d+)", line))}
    return len(hands) >= 2 or any(line.startswith("-- ") and "GAME OVER" in line for line in said)


@pytest.mark.parametrize("game_id,extra", CASES, ids=[g + (" deal pad" if "--deal-pad" in a else "") for g, a in CASES])
def test_no_hidden_card_reaches_a_page_a_socket_or_the_monitor(game_id: str, extra: list[str], tmp_path) -> None:
    codes = card_codes(game_id)
    digits = game_id != "fairies"  # Fairies cards are numbers: words of text are not checked
    with Serve("--sim", game_id, "--bot-delay", "0", "--no-mistakes", "--wait-viewers", "2", "--http",
               "127.0.0.1:0", "--archive", str(tmp_path), "-q", *extra) as s:
        v = Viewer(s.url)
        mon = subprocess.Popen([sys.executable, "-m", "cardtable_host.cli", "monitor", "--plain", "--port", s.port],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        said: list[str] = []
        threading.Thread(target=lambda: [said.append(line) for line in mon.stdout], daemon=True).start()
        s.wait_for(lambda: v.has(ended_hand), 300, "a hand to end")
        # the monitor follows on its own: it is judged once it has shown a hand's end too
        s.wait_for(lambda: monitor_showed_a_hand_end(list(said)), 120,
                   "the monitor to show a hand's end (it said %r)" % said[-5:])
        if "--deal-pad" in extra and game_id != "fairies":  # (one hand: Fairies scores only at the end)
            s.wait_for(lambda: v.has(lambda m: m.get("type") == "reveal"), 60, "the hands of the hand over shown")
        pages = {p: s.get(p)[1] for p in ("", "overlay", "archive", "snapshot.json", "layout.json", "archive.json",
                                          "stats.json")}
        mon.terminate()
        mon.wait(10)
        # The bots play on: the pages and the monitor may show plays whose messages are still on
        # their way to the viewer. It reads on until it has the state of the board as of now.
        now = s.json("snapshot.json")["seq"]
        s.wait_for(lambda: v.has(lambda m: "view" in m and isinstance(m.get("seq"), int) and m["seq"] >= now),
                   60, "the viewer to catch up with line %s" % now)
        v.close()
    msgs = list(v.messages)
    assert msgs and msgs[0]["type"] == "snapshot"
    # serve --reveal hand (the default) shows the hands the deal pad read once each hand is over:
    # every reveal the viewer got came after its hand was scored
    scored: set[int] = set()
    all_revealed: set[str] = set()
    early = []
    for m in msgs:
        scored.update(ev["hand"] for ev in m.get("events") or () if isinstance(ev, dict) and ev.get("ev") == "hand")
        if m.get("type") == "reveal":
            if m["hand"] not in scored:
                early.append(m["hand"])
            all_revealed.update(c for hand in m["hands"] for c in hand)
    # the bots play on while the pages are fetched: the viewer may close between a line's event
    # and the state that shows it, so the messages after the last view cannot be judged
    while "view" not in msgs[-1]:
        msgs.pop()
    # what spectators were shown, by journal line
    shown: dict[int, set[str]] = {}
    for m in msgs:
        view = m.get("view")
        if view is not None and isinstance(m.get("seq"), int):
            shown.setdefault(m["seq"], set()).update(t for x in strings(view) for t in _SPLIT.split(x) if t in codes)
    leaks = []
    seq = msgs[0].get("seq") or 0
    ended: set[int] = set()  # hands scored so far
    revealed: set[str] = set()  # cards of the hands serve --reveal hand showed once a hand was over
    for raw, m in zip(v.raw, msgs):
        seq = m["seq"] if isinstance(m.get("seq"), int) else seq
        ended.update(ev["hand"] for ev in m.get("events") or () if isinstance(ev, dict) and ev.get("ev") == "hand")
        if m.get("type") == "reveal":
            if m["hand"] not in ended:
                leaks.append("socket: the hands of hand %s before it was over: %s" % (m["hand"], raw[:300]))
            revealed.update(c for hand in m["hands"] for c in hand)
            continue
        allowed = revealed.union(*(cards for s_, cards in shown.items() if s_ <= seq))
        found = [t for x in strings({k: val for k, val in m.items() if k not in ("lines", "log", "reading")})
                 for t in _SPLIT.split(x)]
        found += reading_cards(m.get("reading")) + [t for x in reading_words(m.get("reading")) for t in tokens(x, digits)]
        found += [t for text, _ in (m.get("lines") or []) + (m.get("log") or []) for t in tokens(text, digits)]
        bad = sorted({t for t in found if t in codes and t not in allowed})
        if bad:
            leaks.append("socket: %s in %s" % (bad, raw[:300]))
    everything = all_revealed.union(*shown.values())
    for name, text in pages.items():
        if name.endswith(".json"):  # its strings (a number is no card), the story's lines as words
            obj = json.loads(text)
            objs = obj if isinstance(obj, list) else [obj]
            found = [t for o in objs for x in strings({k: v for k, v in o.items() if k not in ("log", "reading")})
                     for t in _SPLIT.split(x)]
            found += [t for o in objs for x in reading_words(o.get("reading")) + [ln[0] for ln in o.get("log") or ()]
                      for t in tokens(x, digits)]
            found += [c for o in objs for c in reading_cards(o.get("reading"))]
        else:
            found = tokens(text, digits)
        bad = sorted({t for t in found if t in codes and t not in everything})
        if bad:
            leaks.append("page /%s: %s" % (name, bad))
    for line in said:
        bad = sorted({t for t in tokens(line, digits) if t in codes and t not in everything})
        if bad:
            leaks.append("monitor: %s in %r" % (bad, line))
    assert len(msgs) > 20 and len(said) > 5, (len(msgs), said)
    assert not early, "the hands of hands %s were shown before those hands were over" % early
    assert not leaks, "\n".join(leaks[:12])
    json.dumps(msgs)  # every message was JSON
