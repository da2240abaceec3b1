"""The archive of finished games: one game record (JSON Lines, DESIGN section 3) per file.

Each record's header carries the occasion (record.OCCASION: table, players, start, end).
Files are numbered in the order the games ended: ``0001-fortyfives.jsonl``.
"""
from __future__ import annotations

import calendar
import json
import os
import re
import threading
import time
from pathlib import Path
from typing import Any

from cardtable import record
from cardtable import referee as rules_referee

from cardtable.games import words as game_words

from cardtable_host.narrate import action_text, event_text
from cardtable_host.serve.grid import Refereed, glyph_text, header_names, result_words, verdict_words

REVEALS = ("hand", "game", "never")  # when spectators may see the hands the deal pad read
_NAME = re.compile(r"^(\d{4,})-([a-z0-9-]+)\.jsonl$")


def default_dir() -> Path:
    """Where serve keeps the archive: the user's data folder's archive/ (config/dirs.py)."""
    from cardtable_host.config.dirs import data_dir

    return data_dir() / "archive"


def iso(t: float) -> str:
    """A time as ISO 8601 UTC text, to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def _seconds(head: dict[str, Any]) -> int | None:
    """How long a game took, from its header's start and end (ISO 8601 UTC), or None."""
    try:
        t0 = time.strptime(head["start"], "%Y-%m-%dT%H:%M:%SZ")
        t1 = time.strptime(head["end"], "%Y-%m-%dT%H:%M:%SZ")
    except (KeyError, TypeError, ValueError):
        return None
    return max(0, calendar.timegm(t1) - calendar.timegm(t0))


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


def public_lines(lines: list[str]) -> list[str]:
    """A record as spectators may see it: each action line through its game's public()."""
    if not lines:
        return lines
    try:
        game = record.game_from_header(json.loads(lines[0]), 1)
    except (ValueError, KeyError, TypeError, record.RecordError):
        return lines[:1]
    out = lines[:1]
    for i, text in enumerate(lines[1:], 2):
        if not text.strip():
            continue
        try:
            obj = record.parse_line(text, i)
        except record.RecordError:
            continue
        obj.pop("seq", None)
        out.append(json.dumps(game.public(obj)))
    return out


def undo_audit(head: dict[str, Any]) -> list[dict[str, Any]]:
    """A record's undos as the pages show them: each action taken back in words, who asked, who
    agreed (or the scorekeeper's override), when (ISO 8601 or None); what is not that is left out."""
    out = []
    for u in head.get("undos") or ():
        if not isinstance(u, dict) or not all(isinstance(u.get(k), str) for k in ("undone", "asked", "agreed")):
            continue
        out.append({"undone": u["undone"][:200], "asked": u["asked"][:100], "agreed": u["agreed"][:100],
                    "at": u["at"] if isinstance(u.get("at"), str) and len(u["at"]) <= 40 else None,
                    "line": u["line"] if type(u.get("line")) is int else None})
    return out


class Archive:
    """A folder of finished games' records."""

    def __init__(self, folder: str | os.PathLike[str], reveal: str = "hand") -> None:
        self.reveal = reveal  # "never": the pages and the download show only what spectators saw
        self.dir = Path(folder).absolute()
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
            try:
                with open(tmp, "w", encoding="utf-8") as f:
                    f.write("".join(line + "\n" for line in lines))
                os.replace(tmp, path)
            except OSError:
                try:  # a full disk: no half-written file left behind
                    tmp.unlink()
                except OSError:
                    pass
                raise
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
        """A game's record lines; with reveal "never", only what a spectator was shown of each
        (a deal's face-up piles, face-down cards counted)."""
        p = self.path(number)
        if p is None:
            return None
        lines = p.read_text(encoding="utf-8").splitlines()
        return lines if self.reveal != "never" else public_lines(lines)

    def record_text(self, number: int) -> str | None:
        """The record as the download gives it (public lines only with reveal "never")."""
        lines = self.lines(number)
        return None if lines is None else "".join(line + "\n" for line in lines)

    def games(self) -> list[dict[str, Any]]:
        """Each archived game: number, file, header (with the occasion) and the result."""
        out = []
        for n, p in reversed(self._files()):
            try:
                lines = p.read_text(encoding="utf-8").splitlines()
                head = json.loads(lines[0])
                ref = Refereed(lines, header_names(head))
            except (OSError, ValueError, IndexError, record.RecordError):
                continue
            verdict = ref.result
            out.append({"number": n, "file": p.name, "header": head, "actions": len(lines) - 1,
                        "ok": verdict["ok"], "scores": verdict["scores"], "winner": verdict["winner"],
                        "over": verdict["over"], "title": game_words.title(ref.game),
                        "players": [game_words.who(ref.game, s) for s in range(ref.game.seats)],
                        "result": result_words(ref.game, verdict),
                        "problems": len(verdict["rejected"]) + len(verdict["revokes"]),
                        "seconds": _seconds(head), "undos": undo_audit(head)})
        return out

    def verdict(self, number: int) -> dict[str, Any] | None:
        """The referee's verdict on a game (as `cardtable referee --json`)."""
        lines = self.lines(number)
        return None if lines is None else rules_referee.referee(lines)

    def refereed(self, number: int) -> dict[str, Any] | None:
        """A game as a referee reads it: the result and verdict in words, the score sheet, each
        hand's trick grid (the one `cardtable referee --hand N --json` gives) and what each seat
        played in each hand."""
        lines = self.lines(number)
        if lines is None:
            return None
        head = json.loads(lines[0])
        ref = Refereed(lines, header_names(head))
        g = ref.game
        grids = ref.grids()
        played = []
        for gr in grids:
            cards: list[list[str]] = [[] for _ in range(g.seats)]
            for row in gr["tricks"]:
                for s, c in enumerate(row["cells"]):
                    if c is not None:
                        cards[s].append(c["card"])
            played.append({"hand": gr["hand"], "cards": cards, "dealt": ref.dealt.get(gr["hand"])})
        return {"number": number, "title": game_words.title(g), "header": head,
                "players": [game_words.who(g, s) for s in range(g.seats)],
                "sides": [g.side(k) for k in game_words.sides(g)], "teams": bool(g.TEAMS),
                "result": result_words(g, ref.result), "ok": ref.result["ok"],
                "verdict": [glyph_text(g, w) for w in verdict_words(g, ref.result, ref.tricks)],
                "sheet": ref.sheet,
                "grids": grids, "played": played, "seconds": _seconds(head), "undos": undo_audit(head)}

    def replay(self, number: int) -> dict[str, Any] | None:
        """The game step by step: after each action, its words and the spectator view."""
        lines = self.lines(number)
        if lines is None:
            return None
        game, actions = record.load(lines)
        head = json.loads(lines[0])
        names = header_names(head)
        game.names = [n or p for n, p in zip(names + [""] * game.seats, game_words.place_names(game.seats))]
        steps: list[dict[str, Any]] = [{"line": 1, "words": ["the game begins"], "view": game.view(None),
                                        "trick": 0, "reading": game_words.reading(game, game.view(None))}]
        tricks = 0
        for lineno, action, reason, events in rules_referee.replay(game, actions):
            words = [action_text(game, action)]
            if reason:
                words[0] += " \u2014 refused: %s" % game_words.name_seats(game, reason)
            for ev in events:
                if ev.get("ev") == "trick":
                    tricks += 1
                said = event_text(ev, game) if ev.get("ev") not in ("deal", "play", action[1]) else None
                if said:
                    words.append(said)
            view = game.view(None)
            words = [glyph_text(game, w) for w in words]
            steps.append({"line": lineno, "words": words, "view": view, "trick": tricks,
                          "rejected": bool(reason), "reading": game_words.reading(game, view)})
        return {"number": number, "header": head, "steps": steps}
