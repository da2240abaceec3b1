"""The referee in a process of its own, so that replaying records never slows the director's
service: a record's path in on each line of stdin, its verdict (JSON) out on a line of stdout.

    python -m cardtable_host.tournament.refworker
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from cardtable import record
from cardtable import referee as rules_referee

NICE = 5  # below the director's service: counting results comes first


def verdict(path: str) -> dict[str, Any]:
    """The referee's verdict on the record at path, or {"error": why} if it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        return dict(rules_referee.referee(lines))
    except OSError as e:
        return {"error": "cannot read the record: %s" % (e.strerror or e)}
    except (record.RecordError, IndexError, ValueError) as e:
        return {"error": "the record is not valid: %s" % e}


class Worker:
    """A running referee process (restarted if it dies); verdict(path) asks it."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None

    def verdict(self, path: str) -> dict[str, Any]:
        for _attempt in range(2):
            if self.proc is None or self.proc.poll() is not None:
                self.proc = subprocess.Popen([sys.executable, "-m", "cardtable_host.tournament.refworker"],
                                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
            assert self.proc.stdin is not None and self.proc.stdout is not None
            try:
                self.proc.stdin.write(path + "\n")
                self.proc.stdin.flush()
                line = self.proc.stdout.readline()
            except (BrokenPipeError, OSError):
                line = ""
            if line:
                return dict(json.loads(line))
            self.close()
        return verdict(path)  # the process will not run: referee here

    def close(self) -> None:
        if self.proc is not None:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None


def main() -> int:
    try:
        os.nice(NICE)
    except (OSError, AttributeError):
        pass
    try:
        for line in sys.stdin:
            path = line.rstrip("\n")
            if path:
                print(json.dumps(verdict(path)), flush=True)
    except (BrokenPipeError, KeyboardInterrupt):
        pass  # the director's service went away: so does its referee
    return 0


if __name__ == "__main__":
    sys.exit(main())
