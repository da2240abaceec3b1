"""The web side of `cardtable serve`: pages, the spectators' WebSocket, the archive and the
scorekeeper's controls, on aiohttp (one maintained library for HTTP and WebSockets).

Spectators only read: the pages, /overlay and /ws take no command (what a browser sends on
the socket is answered with a refusal and changes nothing). POST /control is the
scorekeeper's, and needs the secret `serve` printed (compared in constant time).
"""
from __future__ import annotations

import asyncio
import hmac
import json
import struct
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable

from aiohttp import WSMsgType, web

from cardtable_host.serve.archive import Archive
from cardtable_host.serve.hub import Hub

PAGES = Path(__file__).resolve().with_name("web")
SLOW_BYTES = 4 << 20  # unsent bytes a viewer may fall behind before it is let go (it reconnects)
SECRET_HEADER = "X-Cardtable-Secret"
REFUSED = json.dumps({"type": "refused", "msg": "spectators only read: this socket takes no commands"})
COMMANDS = ("undo", "act", "press", "new", "state", "unplug", "replug")  # the scorekeeper's (the
# last two: a virtual board's USB cable, pulled and plugged back, to show spectators a lost board)
FANOUT_KEPT = 10000  # broadcasts whose fan-out time /stats.json summarises (the latest)
Control = Callable[[dict[str, Any]], dict[str, Any]]


def text_frame(text: str) -> bytes:
    """One unmasked, unfragmented WebSocket text frame (RFC 6455 section 5.2): the same bytes
    serve every viewer, since a server's frames carry no mask."""
    data = text.encode("utf-8")
    n = len(data)
    if n < 126:
        head = struct.pack("!BB", 0x81, n)
    elif n < 65536:
        head = struct.pack("!BBH", 0x81, 126, n)
    else:
        head = struct.pack("!BBQ", 0x81, 127, n)
    return head + data


class Viewers:
    """The open spectator sockets, each message written to all of them at once (event loop).

    A message is framed once, on the board's thread, and the same bytes are written to every
    viewer's transport in one pass of the event loop, with no await: no viewer waits for
    another, nor for a slow one to drain; messages that queued while the loop was busy go out
    together, one write per viewer. A viewer whose unsent bytes pass SLOW_BYTES is let go (its
    page reconnects and starts again from a snapshot). Each message's time from reaching serve
    to its last viewer's write is kept (`fanout_ms`), and each pass's time and CPU time.
    """

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.socks: dict[web.WebSocketResponse, tuple[Any, int]] = {}  # socket -> (transport, snapshot's n)
        self.fanout: deque[float] = deque(maxlen=FANOUT_KEPT)  # seconds per broadcast, latest last
        self.writing: deque[float] = deque(maxlen=FANOUT_KEPT)  # of which writing to the viewers
        self.cpu: deque[float] = deque(maxlen=FANOUT_KEPT)  # the CPU time of that writing
        self.broadcasts = 0
        self.deliveries = 0
        self.loop: asyncio.AbstractEventLoop | None = None
        self._pending: list[tuple[int, float, bytes]] = []
        self._pending_lock = threading.Lock()
        self._flush_due = False

    def publish(self, n: int, t: float, text: str) -> None:
        """Message n, taken from the board at t (the board's thread): framed here, once, and
        written on the event loop with any others that queued behind it."""
        frame = text_frame(text)
        with self._pending_lock:
            self._pending.append((n, t, frame))
            if self._flush_due:
                return
            self._flush_due = True
        if self.loop is not None:
            try:
                self.loop.call_soon_threadsafe(self.flush)
            except RuntimeError:
                pass  # the server is stopping

    def flush(self) -> None:
        """Write every message waiting to every viewer (the event loop's thread): one write per
        viewer however many queued while the loop was busy."""
        with self._pending_lock:
            batch, self._pending = self._pending, []
            self._flush_due = False
        if not batch:
            return
        start, cpu = time.monotonic(), time.thread_time()
        whole = b"".join(frame for _n, _t, frame in batch)
        slow = []
        for sock, (transport, since) in self.socks.items():
            if sock.closed or transport.is_closing() or transport.get_write_buffer_size() > SLOW_BYTES:
                slow.append(sock)
                continue
            if since < batch[0][0]:
                transport.write(whole)
                self.deliveries += len(batch)
            else:  # the snapshot it started from has some of them already
                fresh = [frame for n, _t, frame in batch if n > since]
                if fresh:
                    transport.write(b"".join(fresh))
                    self.deliveries += len(fresh)
        done = time.monotonic()
        self.broadcasts += len(batch)
        self.fanout.extend(done - t for _n, t, _f in batch)
        self.writing.append(done - start)
        self.cpu.append(time.thread_time() - cpu)
        for sock in slow:
            self._let_go(sock)

    def join(self, sock: web.WebSocketResponse, transport: Any) -> None:
        """Start sending to sock: a snapshot now, then every later message (no await between)."""
        n, text = self.hub.snapshot_text()
        transport.write(text_frame(text))
        self.socks[sock] = (transport, n)

    def leave(self, sock: web.WebSocketResponse) -> None:
        self.socks.pop(sock, None)

    def _let_go(self, sock: web.WebSocketResponse) -> None:
        self.leave(sock)
        if not sock.closed:
            asyncio.get_running_loop().create_task(sock.close(message=b"too far behind: reconnect"))

    def stats(self) -> dict[str, Any]:
        """The fan-out figures: viewers, the last message's number, messages, deliveries, and
        serve's own delay (ms)."""
        def ms(kept: deque[float]) -> dict[str, Any]:
            xs = sorted(kept)

            def pct(p: float) -> float | None:
                return round(xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] * 1000, 2) if xs else None

            return {"of": len(xs), "p50": pct(50), "p99": pct(99), "max": pct(100)}

        return {"viewers": len(self.socks), "last": self.hub.sent, "broadcasts": self.broadcasts,
                "deliveries": self.deliveries,
                "fanout_ms": ms(self.fanout), "writing_ms": ms(self.writing), "writing_cpu_ms": ms(self.cpu)}


def scorekeeper_ok(request: web.Request, secret: str) -> bool:
    """The request carries the scorekeeper's secret (compared in constant time)."""
    given = request.headers.get(SECRET_HEADER, "")
    if not given and request.headers.get("Authorization", "").startswith("Bearer "):
        given = request.headers["Authorization"][7:]
    return hmac.compare_digest(given.encode(), secret.encode())


def make_app(hub: Hub, archive: Archive, secret: str, control: Control | None,
             drawing: Callable[[], tuple[str, dict[str, Any]] | None], seats: Any = None) -> web.Application:
    """The aiohttp application of one table (seats: the players' own pages, a seats.SeatRoom)."""
    app = web.Application(client_max_size=64 * 1024)
    viewers = Viewers(hub)
    app["viewers"] = viewers

    async def on_startup(app: web.Application) -> None:
        viewers.loop = asyncio.get_running_loop()
        app["hub_sub"] = hub.subscribe(viewers.publish)[0]
        if seats is not None:
            seats.start(viewers.loop)

    async def on_cleanup(app: web.Application) -> None:
        hub.unsubscribe(app["hub_sub"])
        if seats is not None:
            seats.stop()

    app.on_startup.append(on_startup)
    app.on_cleanup.append(on_cleanup)

    def page(name: str) -> Callable[[web.Request], Any]:
        # web/head.html is every page's head up to its own <title> (which the page file begins with)
        text = (PAGES / "head.html").read_text(encoding="utf-8") + (PAGES / name).read_text(encoding="utf-8")

        async def handler(request: web.Request) -> web.StreamResponse:
            return web.Response(text=text, content_type="text/html", headers={"Cache-Control": "no-cache"})
        return handler

    async def ws(request: web.Request) -> web.StreamResponse:
        sock = web.WebSocketResponse(heartbeat=20, max_msg_size=4096, compress=False)
        await sock.prepare(request)
        if request.transport is None or request.transport.is_closing():
            return sock
        viewers.join(sock, request.transport)
        hub.viewer_joined()
        try:
            async for msg in sock:
                if msg.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                    await sock.send_str(REFUSED)  # spectators only read
                elif msg.type == WSMsgType.ERROR:
                    break
        except (ConnectionError, RuntimeError):
            pass
        finally:
            viewers.leave(sock)
        return sock

    async def snapshot(request: web.Request) -> web.StreamResponse:
        return web.json_response(dict(hub.snapshot(), viewers=len(viewers.socks)))

    async def stats(request: web.Request) -> web.StreamResponse:
        return web.json_response(viewers.stats())

    async def layout(request: web.Request) -> web.StreamResponse:
        found = drawing()
        if found is None:
            raise web.HTTPNotFound(text="no layout drawing for this board")
        if request.path.endswith(".svg"):
            return web.Response(text=found[0], content_type="image/svg+xml")
        return web.json_response(found[1])

    def number(request: web.Request) -> int:
        try:
            return int(request.match_info["n"])
        except ValueError:
            raise web.HTTPNotFound(text="no such game") from None

    async def games(request: web.Request) -> web.StreamResponse:
        return web.json_response(await asyncio.to_thread(archive.games))

    async def game_record(request: web.Request) -> web.StreamResponse:
        n = number(request)
        path = archive.path(n)
        if path is None:
            raise web.HTTPNotFound(text="no game %d in the archive" % n)
        return web.FileResponse(path, headers={
            "Content-Type": "application/jsonl; charset=utf-8",
            "Content-Disposition": 'attachment; filename="%s"' % path.name})

    def archived(read: Callable[[int], Any]) -> Callable[[web.Request], Any]:
        """A JSON page of an archived game: read(n) of the game the path names."""
        async def handler(request: web.Request) -> web.StreamResponse:
            n = number(request)
            found = await asyncio.to_thread(read, n)
            if found is None:
                raise web.HTTPNotFound(text="no game %d in the archive" % n)
            return web.json_response(found)
        return handler

    async def do_control(request: web.Request) -> web.StreamResponse:
        if not scorekeeper_ok(request, secret):
            return web.json_response({"ok": False, "error": "the scorekeeper's secret is needed "
                                      "(printed when cardtable serve started)"}, status=403)
        try:
            cmd = await request.json()
        except ValueError:
            return web.json_response({"ok": False, "error": "the body must be a JSON object"}, status=400)
        if not isinstance(cmd, dict) or cmd.get("cmd") not in COMMANDS:
            return web.json_response({"ok": False, "error": "cmd must be one of %s" % ", ".join(COMMANDS)},
                                     status=400)
        if control is None:
            return web.json_response({"ok": False, "error": "no board to control"}, status=503)
        reply = await asyncio.to_thread(control, cmd)
        return web.json_response(reply, status=200 if reply.get("ok") else int(reply.get("status", 409)))

    app.router.add_get("/", page("table.html"))
    app.router.add_get("/overlay", page("overlay.html"))
    app.router.add_get("/archive", page("archive.html"))
    app.router.add_get("/archive/{n:\\d+}", page("game.html"))
    app.router.add_get("/archive.json", games)
    app.router.add_get("/archive/{n:\\d+}.jsonl", game_record)
    app.router.add_get("/archive/{n:\\d+}.json", archived(archive.replay))
    app.router.add_get("/archive/{n:\\d+}/verdict.json", archived(archive.verdict))
    app.router.add_get("/ws", ws)
    app.router.add_get("/snapshot.json", snapshot)
    app.router.add_get("/stats.json", stats)
    app.router.add_get("/layout.svg", layout)
    app.router.add_get("/layout.json", layout)
    app.router.add_post("/control", do_control)
    if seats is not None:
        from cardtable_host.serve import seats as seat_pages

        seats.archive_lines = archive.lines
        seats.control = control
        seat_pages.add_routes(app, seats, lambda request: scorekeeper_ok(request, secret))
    app.router.add_static("/static/", PAGES)
    return app


class Server:
    """The web server on its own thread and event loop."""

    def __init__(self, app: web.Application, host: str, port: int) -> None:
        self.app = app
        self.host = host
        self.port = port
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self._run, name="cardtable-web", daemon=True)

    def start(self) -> str:
        """Listen; the page's address (OSError if the address cannot be had)."""
        self._thread.start()
        self._ready.wait(30)
        if self._error is not None:
            raise self._error
        host = self.host if ":" not in self.host else "[%s]" % self.host
        return "http://%s:%d/" % (host, self.port)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self._setup())
        except BaseException as e:  # noqa: BLE001 - handed to start()
            if self._runner is not None:
                self.loop.run_until_complete(self._runner.cleanup())
            self._error = e
            self._ready.set()
            return
        self._ready.set()
        self.loop.run_forever()

    async def _setup(self) -> None:
        self._runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, reuse_address=True)
        await site.start()
        server = getattr(site, "_server", None)
        socks = getattr(server, "sockets", None) or []
        if socks:
            self.port = socks[0].getsockname()[1]

    def stop(self) -> None:
        if not self._thread.is_alive():
            return

        async def down() -> None:
            if self._runner is not None:
                await self._runner.cleanup()

        fut = asyncio.run_coroutine_threadsafe(down(), self.loop)
        try:
            fut.result(5)
        except Exception:  # noqa: BLE001 - going away regardless
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)
