"""Verdicts and tricks spoken aloud: `cardtable serve --speak` has the host say every refused
card and every trick through Debian's espeak-ng, in words with names ("Bob, the ten of
diamonds: you must follow clubs"; "Ann wins the trick"), one announcement after another (a
queue: none cuts another), in the language --speak-lang names. The seat pages speak their own
seat's verdicts with the browser's speech synthesis, in the same words (`verdict_words`).

A seat's `say` button (the trick games; the link's `say` message) asks the table for that seat's
hand and the trick. The hand is hidden information: said aloud through the room's loudspeaker it
would be told to every player. So the loudspeaker says the trick alone (it is on the table for
all to see), and the hand and the trick go to that seat's own page, which its phone says to its
player alone (`say_words`, serve/seats.py). Only where the scorekeeper opts in (`serve
--speak-hands`: a loudspeaker only that player hears, an earpiece) does espeak-ng say the hand."""
from __future__ import annotations

import json
import queue
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable

RANKS = {"A": "ace", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
         "8": "eight", "9": "nine", "10": "ten", "J": "jack", "Q": "queen", "K": "king"}
_STANDARD = re.compile(r"^(10|[2-9AJQK])([CDHS])(#\d+)?$")
_SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
_YOU = ("must ", "may ", "cannot ", "can ", "have ", "do not ", "hold ")


def card_words(code: Any) -> str:
    """A card said aloud: '10D' is 'the ten of diamonds'; another deck's card its code."""
    m = _STANDARD.match(str(code))
    if not m:
        return "the %s" % code
    return "the %s of %s" % (RANKS[m.group(1)], _SUITS[m.group(2)])


def named(text: str, names: list[str]) -> str:
    """'seat 1' said as the player's name."""
    def one(m: re.Match[str]) -> str:
        i = int(m.group(1))
        return names[i] if i < len(names) and names[i] else "seat %d" % i
    return re.sub(r"\bseat (\d+)\b", one, text)


def verdict_words(msg: dict[str, Any], names: list[str]) -> str:
    """A refused action aloud: 'Bob, the ten of diamonds: you must follow clubs'."""
    seat = msg.get("seat")
    who = names[seat] if isinstance(seat, int) and seat < len(names) and names[seat] else (
        "seat %s" % seat if seat is not None else "the table")
    raw = msg.get("action")
    action: dict[str, Any] = raw if isinstance(raw, dict) else {}
    reason = named(str(msg.get("reason") or "refused"), names)
    if reason.startswith(_YOU):
        reason = "you " + reason
    card = action.get("card")
    if card is not None:
        return "%s, %s: %s" % (who, card_words(card), reason)
    return "%s: %s" % (who, reason)


def event_words(msg: dict[str, Any], names: list[str]) -> list[str]:
    """What the table says of an accepted action: each trick's winner."""
    out = []
    for ev in msg.get("events") or ():
        if isinstance(ev, dict) and ev.get("ev") == "trick" and isinstance(ev.get("seat"), int):
            s = ev["seat"]
            out.append("%s wins the trick" % (names[s] if s < len(names) and names[s] else "seat %d" % s))
    return out


def card_said(g: Any, code: Any) -> str:
    """A card of g's deck said aloud: 'the ten of diamonds', the Decktet's 'the Painter'."""
    if _STANDARD.match(str(code)) or g is None or getattr(g.deck, "name", None) is None:
        return card_words(code)
    try:
        return "the " + str(g.deck.name(g.deck.parse(str(code))))
    except (ValueError, KeyError, TypeError, IndexError):
        return card_words(code)


def _who(names: list[str], s: Any) -> str:
    return names[s] if isinstance(s, int) and 0 <= s < len(names) and names[s] else "seat %s" % s


def hand_said(g: Any, hand: Any, name: str) -> str:
    """A seat's hand aloud, for that seat alone: 'Bob, your hand, 3 cards: spades: ace, four;
    hearts: ten.' (a standard deck by suit; another deck card by card)."""
    if not isinstance(hand, list):
        return "%s, the table does not know your hand: it knows a hand dealt over the deal pad." % name
    if not hand:
        return "%s, your hand is empty." % name
    head = "%s, your hand, %s: " % (name, "one card" if len(hand) == 1 else "%d cards" % len(hand))
    suits: dict[str, list[str]] = {}
    for code in hand:
        m = _STANDARD.match(str(code))
        if m is None:
            return head + ", ".join(card_said(g, c) for c in hand) + "."
        suits.setdefault(_SUITS[m.group(2)], []).append(RANKS[m.group(1)])
    return head + "; ".join("%s: %s" % (suit, ", ".join(ranks)) for suit, ranks in suits.items()) + "."


def trick_said(g: Any, view: Any, names: list[str]) -> str:
    """The trick aloud, as everyone at the table sees it: 'The trick: Ann, the ten of diamonds;
    Bob, the jack of diamonds. Trump: hearts. Cy is to play.'"""
    if not isinstance(view, dict):
        return "The table has no game yet."
    if "trick" not in view:
        out = "There is no trick in this game."
    else:
        trick = [p for p in view.get("trick") or [] if isinstance(p, list) and len(p) == 2]
        out = ("The trick: %s." % "; ".join("%s, %s" % (_who(names, p[0]), card_said(g, p[1])) for p in trick)
               if trick else "No card on the trick yet.")
    if isinstance(view.get("trump"), str) and view["trump"] and g is not None:
        from cardtable.games import words

        out += " Trump: %s." % words.suit_words(g, view["trump"])
    if view.get("over"):
        return out + " The game is over."
    if g is not None:
        from cardtable.games import words

        turn = named(words.turn_words(g, view), names)
        if turn:
            out += " %s%s." % (turn[0].upper(), turn[1:])
    return out


def say_words(g: Any, view: Any, seat: int, names: list[str], hand: bool = True) -> str:
    """What a seat's say button is answered: its hand (from that seat's own view: for its page
    alone, or for --speak-hands) and the trick."""
    tail = trick_said(g, view, names)
    if not hand:
        return "%s asks for the trick. %s" % (_who(names, seat), tail)
    mine = view.get("hand") if isinstance(view, dict) else None
    return "%s %s" % (hand_said(g, mine, _who(names, seat)), tail)


def check_language(lang: str) -> None:
    """OSError unless espeak-ng is installed and has a voice for lang."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise OSError("--speak needs espeak-ng (apt-get install espeak-ng)")
    r = subprocess.run([exe, "-v", lang, "-q", "x"], capture_output=True, text=True, timeout=20)
    if r.returncode != 0 or r.stderr.strip():
        raise OSError("--speak-lang %s: espeak-ng has no such voice (espeak-ng --voices lists them)" % lang)


class Announcer:
    """Speaks the table's verdicts and tricks through espeak-ng, one at a time, in order, and
    answers a seat's say button with the trick (its hand too only when hands: --speak-hands).

    to: a folder to render each announcement into (NNNN.wav, and said.jsonl: each text with
    when it began and ended) instead of the loudspeaker.
    """

    def __init__(self, names: Callable[[], list[str]], lang: str = "en", to: str | None = None,
                 game: Callable[[], Any] | None = None, view: Callable[[int | None], Any] | None = None,
                 hands: bool = False) -> None:
        exe = shutil.which("espeak-ng")
        if exe is None:
            raise OSError("--speak needs espeak-ng (apt-get install espeak-ng)")
        self.exe = exe
        self.names = names
        self.lang = lang
        self.to = Path(to) if to else None
        if self.to is not None:
            self.to.mkdir(parents=True, exist_ok=True)
        self.said = 0
        self.game = game or (lambda: None)  # the game (its deck's names, its words for whose turn)
        self.view = view or (lambda seat: None)  # the spectators' view (None) or a seat's (asks the board)
        self.hands = hands  # --speak-hands: the loudspeaker says a seat's hand too (opted in)
        self._q: queue.Queue[str | int | None] = queue.Queue(maxsize=200)
        self._thread = threading.Thread(target=self._run, name="cardtable-speak", daemon=True)
        self._thread.start()

    def heard(self, _n: int, _t: float, text: str) -> None:
        """A hub message (any thread): a verdict or a trick is queued to be said."""
        try:
            msg = json.loads(text)
        except ValueError:
            return
        names = self.names()
        if msg.get("type") == "verdict":
            self.say(verdict_words(msg, names))
        elif msg.get("type") == "event" and "action" in msg:
            for line in event_words(msg, names):
                self.say(line)
        elif msg.get("type") == "say" and isinstance(msg.get("seat"), int):
            self.say(msg["seat"])  # worded on the speaker's thread: a hand is asked of the board

    def words_for(self, seat: int) -> str:
        """A say button's answer through the loudspeaker: the trick; the hand too if opted in."""
        view = self.view(seat if self.hands else None)
        return say_words(self.game(), view, seat, self.names(), hand=self.hands)

    def say(self, text: str | int) -> None:
        try:
            self._q.put_nowait(text)
        except queue.Full:
            pass  # hundreds behind: the table moves faster than it can be said

    def stop(self) -> None:
        self._q.put(None)
        self._thread.join(30)

    def _run(self) -> None:
        while True:
            item = self._q.get()
            if item is None:
                return
            try:
                text = item if isinstance(item, str) else self.words_for(item)
            except Exception:  # noqa: BLE001 - the board gone mid-ask: nothing to say
                continue
            start = time.time()
            cmd = [self.exe, "-v", self.lang]
            wav = None
            if self.to is not None:
                wav = self.to / ("%04d.wav" % (self.said + 1))
                cmd += ["-w", str(wav)]
            try:
                subprocess.run(cmd + ["--", text], capture_output=True, timeout=60)
            except (OSError, subprocess.SubprocessError):
                continue
            self.said += 1
            if self.to is not None:
                with open(self.to / "said.jsonl", "a", encoding="utf-8") as f:
                    f.write(json.dumps({"n": self.said, "text": text, "wav": wav.name if wav else None,
                                        "start": start, "end": time.time()}) + "\n")
