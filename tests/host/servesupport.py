"""Helpers for the `cardtable serve` tests: a serve process, its page's address, a viewer."""
from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Callable

PAGE_LINE = re.compile(r"^table page: (http://127\.0\.0\.1:\d+/)$")


class Serve:
    """`cardtable serve ARGS` (or another command that serves, e.g. run) running; .url, .secret,
    .port (the board's) once it listens."""

    def __init__(self, *args: str, env: dict[str, str] | None = None, timeout: float = 90,
                 command: str = "serve") -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "cardtable_host.cli", command, *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=dict(env or os.environ, NO_COLOR="1"), start_new_session=True)
        self.lines: list[str] = []
        self.err: list[str] = []
        self.url = ""
        self.secret = ""
        self.port = ""
        self._lock = threading.Lock()
        threading.Thread(target=self._read, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._read, args=(self.proc.stderr, self.err), daemon=True).start()
        deadline = time.monotonic() + timeout
        while not (self.url and self.secret) and time.monotonic() < deadline:
            if self.proc.poll() is not None:
                time.sleep(0.2)
                raise AssertionError("serve ended (%s): %s" % (self.proc.returncode, "\n".join(self.err + self.lines)))
            with self._lock:
                for line in self.lines:
                    m = PAGE_LINE.match(line)
                    if m:
                        self.url = m.group(1)
                    if line.startswith("scorekeeper secret: "):
                        self.secret = line.split(": ", 1)[1]
                    m2 = re.search(r"board: (\S+)$", line)
                    if m2:
                        self.port = m2.group(1)
            time.sleep(0.05)
        assert self.url, "no 'table page:' line: %s" % "\n".join(self.err + self.lines)

    def _read(self, stream: Any, into: list[str]) -> None:
        for line in stream:
            with self._lock:
                into.append(line.rstrip("\n"))

    def out(self) -> str:
        with self._lock:
            return "\n".join(self.lines)

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=20) as r:
                return r.status, r.read().decode("utf-8")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode("utf-8")

    def json(self, path: str) -> Any:
        status, text = self.get(path)
        assert status == 200, (path, status, text)
        return json.loads(text)

    def control(self, cmd: dict[str, Any], secret: str | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
        h = {"Content-Type": "application/json"}
        if secret is not None:
            h["X-Cardtable-Secret"] = secret
        h.update(headers or {})
        req = urllib.request.Request(self.url + "control", data=json.dumps(cmd).encode(), headers=h, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read().decode())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read().decode())

    def wait_for(self, pred: Callable[[], Any], timeout: float = 120, what: str = "") -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = pred()
            if got:
                return got
            if self.proc.poll() is not None:
                raise AssertionError("serve ended: %s" % "\n".join(self.err[-20:]))
            time.sleep(0.1)
        raise AssertionError("timed out waiting for %s; serve said:\n%s" % (what, "\n".join((self.lines + self.err)[-30:])))

    def next_action(self, timeout: float) -> int:
        """Wait for the bots' next action (an ask made now has a whole bot delay); its seq."""
        seq = self.json("snapshot.json").get("seq") or 0
        self.wait_for(lambda: (self.json("snapshot.json").get("seq") or 0) > seq, timeout, "the bots' next action")
        return self.json("snapshot.json")["seq"]

    def stop(self) -> int:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        return self.proc.returncode

    def __enter__(self) -> "Serve":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


class Viewer:
    """A spectator's WebSocket on its own thread: every message it got, in order."""

    def __init__(self, url: str, send: list[Any] | None = None, path: str = "ws") -> None:
        self.url = "ws" + url[4:] + path
        self.messages: list[dict[str, Any]] = []
        self.times: list[float] = []  # when each message came (time.monotonic())
        self.raw: list[str] = []
        self.closed = False
        self.send = send or []
        self._stop = threading.Event()
        self._t = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)
        self._t.start()

    async def _run(self) -> None:
        import aiohttp

        async with aiohttp.ClientSession() as s:
            async with s.ws_connect(self.url) as ws:
                for item in self.send:
                    if isinstance(item, bytes):
                        await ws.send_bytes(item)
                    else:
                        await ws.send_str(item)
                while not self._stop.is_set():
                    try:
                        msg = await ws.receive(timeout=0.2)
                    except asyncio.TimeoutError:
                        continue
                    if msg.type != aiohttp.WSMsgType.TEXT:
                        break
                    self.times.append(time.monotonic())
                    self.raw.append(msg.data)
                    self.messages.append(json.loads(msg.data))
        self.closed = True

    def has(self, pred: Callable[[dict[str, Any]], bool]) -> bool:
        return any(pred(m) for m in list(self.messages))

    def close(self) -> None:
        self._stop.set()
        self._t.join(5)


def ended_hand(m: dict[str, Any]) -> bool:
    """A message that says a hand (or the game) is scored."""
    return m.get("type") == "event" and any(isinstance(e, dict) and e.get("ev") in ("hand", "over")
                                            for e in m.get("events") or ())


def seats(s: "Serve") -> dict[str, Any]:
    """The scorekeeper's seats.json: each seat's page address and token."""
    req = urllib.request.Request(s.url + "seats.json", headers={"X-Cardtable-Secret": s.secret})
    with urllib.request.urlopen(req, timeout=20) as r:
        return json.loads(r.read().decode())


def ask(url: str, body: Any) -> tuple[int, dict[str, Any]]:
    """POST body as JSON to url: the status and the answer (its text when it is not JSON)."""
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read().decode())
    except urllib.error.HTTPError as e:
        text = e.read().decode()
        return e.code, json.loads(text) if text.startswith("{") else {"text": text}
