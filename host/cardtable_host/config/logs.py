"""Logs for the long runs (`serve`, `tournament direct`, `tournament report` with --log FILE):
the standard logging, to a file rotated at 5 MB (three old ones kept).

What is logged is what a spectator or a director may know: serve logs the lines its live page
shows (verdicts, faults, plays as spectators see them, results), the viewers who connect and
the control requests it refuses or takes; the director logs each result, correction, forfeit,
dispute and refusal it writes; a table's host each result it sends. A secret given to hide()
(the scorekeeper's, the broker's passwords) is replaced by [secret] in every line, whatever
logged it.
"""
from __future__ import annotations

import json
import logging
import logging.handlers
from typing import Any

ROOT = "cardtable"
MAX_BYTES = 5 * 1024 * 1024
BACKUPS = 3
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

_secrets: set[str] = set()


class _Hide(logging.Filter):
    """Replaces every secret in a record's message (after its arguments are filled in)."""

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        for s in _secrets:
            msg = msg.replace(s, "[secret]")
        record.msg, record.args = msg, None
        return True


def hide(secret: str) -> None:
    """Never write secret into a log."""
    if secret:
        _secrets.add(secret)


def open_log(path: str | None) -> logging.Handler | None:
    """Log cardtable's records at INFO and above to path (rotated); None when path is None."""
    if not path:
        return None
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS,
                                                   encoding="utf-8")
    handler.setFormatter(logging.Formatter(FORMAT, "%Y-%m-%dT%H:%M:%S"))
    handler.addFilter(_Hide())
    root = logging.getLogger(ROOT)
    root.setLevel(logging.INFO)
    root.addHandler(handler)
    return handler


def close_log(handler: logging.Handler | None) -> None:
    if handler is not None:
        logging.getLogger(ROOT).removeHandler(handler)
        handler.close()


_LEVEL = {"verdict": logging.WARNING, "fault": logging.WARNING}


def hub_logger(name: str = "serve") -> Any:
    """A hub subscriber (send(n, t, text)) logging each published message's lines: what the
    live page shows spectators, and nothing more."""
    log = logging.getLogger("%s.%s" % (ROOT, name))

    def send(_n: int, _t: float, text: str) -> None:
        try:
            msg = json.loads(text)
        except ValueError:
            return
        kind = msg.get("type")
        if kind == "link":
            log.info("board %s", "connected" if msg.get("up") else "disconnected")
        for line in msg.get("lines") or []:
            if isinstance(line, list) and line and isinstance(line[0], str):
                log.log(_LEVEL.get(str(kind), logging.INFO), "%s", line[0].strip())
    return send


# What of a tournament log entry (results.jsonl, refused.jsonl) a log line says: never the
# record itself (its deal holds cards no spectator saw), nor a password.
_ENTRY_KEYS = ("kind", "game", "table", "round", "teams", "scores", "before", "winner", "how", "by",
               "reason", "late", "disputed_by", "confirmed", "topic", "why", "verdict")


def log_entry(entry: dict[str, Any], file: str) -> None:
    """Log a tournament entry as it is written (a result, forfeit, correction, dispute, refusal)."""
    log = logging.getLogger(ROOT + ".tournament")
    said = {k: entry[k] for k in _ENTRY_KEYS if k in entry}
    level = logging.WARNING if file.startswith("refused") or entry.get("kind") == "dispute" else logging.INFO
    log.log(level, "%s %s", "refused:" if file.startswith("refused") else (entry.get("kind") or "entry") + ":",
            json.dumps(said, sort_keys=True))
