"""The archive of finished games: one game record (JSON Lines, DESIGN section 3) per file.

Each record's header carries the occasion (record.OCCASION: table, players, start, end).
Files are numbered in the order the games ended: ``0001-fortyfives.jsonl``.
"""
from __future__ import annotations

import json
import os
import re
import threading
import time
from pathlib import Path
from typing import Any

from cardtable import record
from cardtable import referee as rules_referee

from cardtable_host.narrate import action_text, event_text

_NAME = re.compile(r"^(\d{4,})-([a-z0-9-]+)\.jsonl$")


def default_dir() -> Path:
    """Where serve keeps the archive: $XDG_DATA_HOME/cardtable/archive (~/.local/share/...)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "cardtable" / "archive"


def iso(t: float) -> str:
    """A time as ISO 8601 UTC text, to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def clean(journal: list[str]) -> list[str]:
    """A journal's lines as a plain record: checksums checked, sequence numbers dropped."""
    out = []
    for i, text in enumerate(journal):
        if not text.strip():
            continue
        obj = record.parse_line(text, i + 1)
        obj.pop("seq", None)
        out.append(json.dumps(obj))
    return out


class Archive:
    """A folder of finished games' records."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.dir = Path(folder)
        self.dir.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def save(self, journal: list[str], occasion: dict[str, Any], checked: bool = True) -> int:
        """Store a finished game (its journal lines) with the occasion in its header; its number.

        checked=False keeps the lines after the header as they came (a journal's checksums and
        sequence numbers too, which the referee reads), for a caller whose referee reads every
        line afterwards anyway: a record of 300 lines is stored in a fraction of the time.
        """
        if checked:
            lines = clean(journal)
        else:
            lines = [text for text in journal if text.strip()]
            lines[:1] = clean(lines[:1])
        if not lines:
            raise record.RecordError(1, "the journal is empty")
        head = json.loads(lines[0])
        for k in record.OCCASION:
            if occasion.get(k) not in (None, "", []):
                head[k] = occasion[k]
        record.game_from_header(dict(head), 1)  # the header stays one the referee reads
        lines[0] = json.dumps(head)
        with self._lock:
            number = max([n for n, _ in self._files()] + [0]) + 1
            path = self.dir / ("%04d-%s.jsonl" % (number, head["game"]))
            tmp = path.with_suffix(".tmp")
            tmp.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
            os.replace(tmp, path)
        return number

    def _files(self) -> list[tuple[int, Path]]:
        out = []
        for p in self.dir.iterdir():
            m = _NAME.match(p.name)
            if m:
                out.append((int(m.group(1)), p))
        return sorted(out)

    def path(self, number: int) -> Path | None:
        for n, p in self._files():
            if n == number:
                return p
        return None

    def lines(self, number: int) -> list[str] | None:
        p = self.path(number)
        return None if p is None else p.read_text(encoding="utf-8").splitlines()

    def games(self) -> list[dict[str, Any]]:
        """Each archived game: number, file, header (with the occasion) and the result."""
        out = []
        for n, p in reversed(self._files()):
            try:
                lines = p.read_text(encoding="utf-8").splitlines()
                head = json.loads(lines[0])
                verdict = rules_referee.referee(lines)
            except (OSError, ValueError, IndexError, record.RecordError):
                continue
            out.append({"number": n, "file": p.name, "header": head, "actions": len(lines) - 1,
                        "ok": verdict["ok"], "scores": verdict["scores"], "winner": verdict["winner"],
                        "over": verdict["over"]})
        return out

    def verdict(self, number: int) -> dict[str, Any] | None:
        """The referee's verdict on a game (as `cardtable referee --json`)."""
        lines = self.lines(number)
        return None if lines is None else rules_referee.referee(lines)

    def replay(self, number: int) -> dict[str, Any] | None:
        """The game step by step: after each action, its words and the spectator view."""
        lines = self.lines(number)
        if lines is None:
            return None
        game, actions = record.load(lines)
        head = json.loads(lines[0])
        steps: list[dict[str, Any]] = [{"line": 1, "words": ["the game begins"], "view": game.view(None),
                                        "trick": 0}]
        tricks = 0
        for lineno, action, reason, events in rules_referee.replay(game, actions):
            words = [action_text(game, action)]
            if reason:
                words[0] += "  REJECTED: %s" % reason
            for ev in events:
                if ev.get("ev") == "trick":
                    tricks += 1
                said = event_text(ev, game) if ev.get("ev") not in ("deal", "play", action[1]) else None
                if said:
                    words.append(said)
            steps.append({"line": lineno, "words": words, "view": game.view(None), "trick": tricks,
                          "rejected": bool(reason)})
        return {"number": number, "header": head, "steps": steps}
