"""Verdicts and tricks spoken aloud: `cardtable serve --speak` has the host say every refused
card and every trick through Debian's espeak-ng, in words with names ("Bob, the ten of
diamonds: you must follow clubs"; "Ann wins the trick"), one announcement after another (a
queue: none cuts another), in the language --speak-lang names. The seat pages speak their own
seat's verdicts with the browser's speech synthesis, in the same words (`verdict_words`)."""
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


def check_language(lang: str) -> None:
    """OSError unless espeak-ng is installed and has a voice for lang."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise OSError("--speak needs espeak-ng (apt-get install espeak-ng)")
    r = subprocess.run([exe, "-v", lang, "-q", "x"], capture_output=True, text=True, timeout=20)
    if r.returncode != 0 or r.stderr.strip():
        raise OSError("--speak-lang %s: espeak-ng has no such voice (espeak-ng --voices lists them)" % lang)


class Announcer:
    """Speaks the table's verdicts and tricks through espeak-ng, one at a time, in order.

    to: a folder to render each announcement into (NNNN.wav, and said.jsonl: each text with
    when it began and ended) instead of the loudspeaker.
    """

    def __init__(self, names: Callable[[], list[str]], lang: str = "en", to: str | None = None) -> None:
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
        self._q: queue.Queue[str | None] = queue.Queue(maxsize=200)
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

    def say(self, text: str) -> None:
        try:
            self._q.put_nowait(text)
        except queue.Full:
            pass  # hundreds behind: the table moves faster than it can be said

    def stop(self) -> None:
        self._q.put(None)
        self._thread.join(30)

    def _run(self) -> None:
        while True:
            text = self._q.get()
            if text is None:
                return
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
