"""The tables' status for the director, followed in a process of its own.

A status message comes after every hand from each table, and a bench's burst sends thousands
a second; parsed in the director's process they take the interpreter from the results, whose
standings must follow within a second. Only the latest status matters, and it is retained:
this process looks at every table's retained status every ``EVERY_S`` and prints the tables
whose status changed as one JSON line: ``{"n": raw status text, ...}``.

    python -m cardtable_host.tournament.tablewatch      (stdin: one JSON line: host, port, tid, user, password)
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from typing import Any, Callable

EVERY_S = 0.25  # the director's page is at most about this far behind the tables
NICE = 5  # below the director's service: counting results comes first


class TableWatch:
    """The watching process, started for a director; on_change(table, raw status) per update."""

    def __init__(self, host: str, port: int, tid: str, user: str, password: str,
                 on_change: Callable[[int, bytes], None]) -> None:
        self.args = {"host": host, "port": port, "tid": tid, "user": user, "password": password}
        self.on_change = on_change
        self.proc: subprocess.Popen[str] | None = None
        self._stopped = threading.Event()

    def start(self, timeout: float = 10.0) -> "TableWatch":
        """Start it; ConnectionError if it cannot follow the broker."""
        self._spawn()
        got = self._first_line(timeout)
        if got != "up":
            self.stop()
            raise ConnectionError(got or "the tables' status watcher did not start")
        threading.Thread(target=self._read, name="cardtable-tablewatch", daemon=True).start()
        return self

    def _spawn(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "cardtable_host.tournament.tablewatch"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(self.args) + "\n")
        self.proc.stdin.flush()

    def _first_line(self, timeout: float) -> str:
        assert self.proc is not None and self.proc.stdout is not None
        out: list[str] = []
        t = threading.Thread(target=lambda: out.append(self.proc.stdout.readline()), daemon=True)  # type: ignore[union-attr]
        t.start()
        t.join(timeout)
        return out[0].strip() if out else ""

    def _read(self) -> None:
        while not self._stopped.is_set():
            proc = self.proc
            assert proc is not None and proc.stdout is not None
            for line in proc.stdout:
                try:
                    changed = json.loads(line)
                except ValueError:
                    continue
                for table, raw in changed.items():
                    if table.isdigit():
                        self.on_change(int(table), raw.encode("utf-8"))
            if self._stopped.wait(1.0):
                return
            self._spawn()  # it died (the broker went away for good at its start): again
            if self._first_line(10.0) != "up":
                self._stop_proc()

    def stop(self) -> None:
        self._stopped.set()
        self._stop_proc()

    def _stop_proc(self) -> None:
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def main() -> int:
    from cardtable_host.tournament import mqttwire

    try:
        os.nice(NICE)
    except (OSError, AttributeError):
        pass
    a = json.loads(sys.stdin.readline())
    # the director holds this process's stdin: when it goes (even killed), so does its watcher
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    latest: dict[str, str] = {}
    seen: dict[str, str] = {}  # what the director was last told, per table
    lock = threading.Lock()
    c = mqttwire.client("cardtable-director-%s-tables-%d" % (a["tid"], os.getpid()), a["user"], a["password"])

    def on_message(_c: Any, _u: Any, msg: Any) -> None:
        parts = msg.topic.split("/")
        if len(parts) == 5 and parts[4] == "status" and parts[3].isdigit():
            with lock:
                latest[parts[3]] = msg.payload.decode("utf-8", "replace")

    topic = mqttwire.topic(a["tid"], "table", "+", "status")
    # Each look subscribes and at once unsubscribes: the broker sends every table's retained
    # status, the latest, and nothing of the thousands a second a burst may publish between
    # two looks (a subscription would have the broker send each, and this process read each).
    c.on_message = on_message
    c.on_subscribe = lambda *_a: c.unsubscribe(topic)
    try:
        mqttwire.connect(c, a["host"], int(a["port"]))
    except ConnectionError as e:
        print(str(e), flush=True)
        return 1
    print("up", flush=True)
    try:
        while True:
            c.subscribe(topic, 0)
            time.sleep(EVERY_S)
            with lock:
                changed = {k: v for k, v in latest.items() if seen.get(k) != v}
                seen.update(changed)
                latest.clear()
            if changed:
                print(json.dumps(changed), flush=True)
    except (BrokenPipeError, KeyboardInterrupt):
        return 0  # the director went away: so does its watcher


if __name__ == "__main__":
    sys.exit(main())
