"""A running `cardtable serve` seen as a link: how `cardtable monitor` follows a served table.

``RemoteLink`` has the calls the monitor makes on a serial Link (next, hello, state, config,
command, log, up, close): messages come from serve's spectator WebSocket, commands go to its
scorekeeper endpoint with the secret serve left for this user in the runtime folder.
"""
from __future__ import annotations

import asyncio
import json
import queue
import threading
import urllib.error
import urllib.request
from typing import Any

from cardtable_host.board.link import CommandError, LinkDown, LinkError

MONITOR_TYPES = ("hello", "state", "event", "verdict", "fault", "link")


class RemoteLink:
    """The table served by `cardtable serve` at url (secret: the scorekeeper's, or None)."""

    def __init__(self, url: str, secret: str | None = None, timeout: float = 5.0) -> None:
        self.url = url if url.endswith("/") else url + "/"
        self.port = "cardtable serve at %s" % self.url
        self.secret = secret
        self.timeout = timeout
        self.ws_up = False
        self._board_up = False
        self.noise: list[str] = []
        self._queue: queue.Queue[dict[str, Any]] = queue.Queue()
        self._closed = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._snap = self._get("snapshot.json")  # LinkDown now if serve does not answer
        self._thread = threading.Thread(target=self._run, name="cardtable-serve-client", daemon=True)
        self._thread.start()

    # -- the spectator feed -------------------------------------------------------------

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._follow())
        except asyncio.CancelledError:  # close() cancels the feed: its normal end
            pass

    async def _follow(self) -> None:
        import aiohttp

        ws_url = "ws" + self.url[4:] + "ws"
        first = True
        while not self._closed.is_set():
            try:
                async with aiohttp.ClientSession() as session:
                    async with session.ws_connect(ws_url, heartbeat=20) as ws:
                        async for msg in ws:
                            if self._closed.is_set():
                                return
                            if msg.type != aiohttp.WSMsgType.TEXT:
                                continue
                            self._take(json.loads(msg.data), first)
                            first = False
            except (aiohttp.ClientError, OSError, ValueError, asyncio.TimeoutError):
                pass
            if self.ws_up:
                self.ws_up = False
                self._queue.put({"type": "link", "up": False})
            await asyncio.sleep(0.5)

    def _take(self, msg: dict[str, Any], first: bool) -> None:
        if msg.get("type") == "snapshot":
            self._snap = msg
            was = self.ws_up
            self.ws_up = True
            if not was and not first:
                self._queue.put({"type": "link", "up": True})
            if not msg.get("connected"):
                self._queue.put({"type": "link", "up": False})
            self._board_up = bool(msg.get("connected"))
            return
        kind = msg.get("type")
        board_up = bool(msg.get("connected"))
        if board_up and not self._board_up:
            self._queue.put({"type": "link", "up": True})  # serve has the board again: re-sync
        self._board_up = board_up
        if kind not in MONITOR_TYPES or kind == "link":
            if kind == "link" and not board_up:
                self._queue.put({"type": "link", "up": False})
            return
        out = {k: v for k, v in msg.items() if k not in ("n", "t", "lines", "connected", "status")}
        self._queue.put(out)

    @property
    def up(self) -> bool:
        """True while serve answers and has the board."""
        return self.ws_up and self._board_up

    def next(self, timeout: float | None = None) -> dict[str, Any] | None:
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    # -- asking serve -------------------------------------------------------------------

    def _get(self, path: str) -> dict[str, Any]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=self.timeout) as r:
                return dict(json.loads(r.read().decode("utf-8")))
        except (urllib.error.URLError, OSError, ValueError) as e:
            raise LinkDown("cardtable serve at %s does not answer: %s" % (self.url, e)) from None

    def hello(self, timeout: float | None = None) -> dict[str, Any]:
        self._snap = self._get("snapshot.json")
        hello = self._snap.get("hello")
        if not self._snap.get("connected"):
            raise LinkError("serve is waiting for the board: %s" % self._snap.get("status"))
        if not hello:
            raise LinkError("the served board has not said hello yet")
        return dict(hello)

    def state(self) -> dict[str, Any]:
        return {"seq": self._snap.get("seq"), "view": self._snap.get("view")}

    def config(self) -> dict[str, Any]:
        return {"board": self._snap.get("board"), "layout": self._snap.get("layout")}

    def log(self, timeout: float = 30) -> list[str]:
        raise LinkError("serve keeps the journal: what happened while away is in the table page's log")

    def command(self, cmd: str, timeout: float | None = None, **fields: Any) -> dict[str, Any]:
        """A scorekeeper's command through serve (needs the secret)."""
        if cmd == "state":
            self._snap = self._get("snapshot.json")
            return {"type": "ok", **self.state()}
        if self.secret is None:
            raise CommandError(cmd, "only the scorekeeper may: this monitor has no secret for serve", {})
        body = json.dumps(dict(fields, cmd=cmd)).encode()
        req = urllib.request.Request(self.url + "control", data=body, method="POST", headers={
            "Content-Type": "application/json", "X-Cardtable-Secret": self.secret})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout if timeout is None else timeout) as r:
                reply = dict(json.loads(r.read().decode("utf-8")))
        except urllib.error.HTTPError as e:
            try:
                reply = dict(json.loads(e.read().decode("utf-8")))
            except ValueError:
                reply = {"error": "HTTP %d" % e.code}
            if e.code in (400, 403, 409):
                raise CommandError(cmd, str(reply.get("error")), reply) from None
            raise LinkError("serve: %s" % reply.get("error")) from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            raise LinkDown("cardtable serve at %s does not answer: %s" % (self.url, e)) from None
        return reply

    def close(self) -> None:
        self._closed.set()
        if self._loop.is_running():
            for task in asyncio.all_tasks(self._loop):
                self._loop.call_soon_threadsafe(task.cancel)
        self._thread.join(2)
