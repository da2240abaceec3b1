"""The web side of `cardtable serve`: pages, the spectators' WebSocket, the archive and the
scorekeeper's controls, on aiohttp (one maintained library for HTTP and WebSockets).

Spectators only read: the pages, /overlay and /ws take no command (what a browser sends on
the socket is answered with a refusal and changes nothing). POST /control is the
scorekeeper's, and needs the secret `serve` printed (compared in constant time).
"""
from __future__ import annotations

import asyncio
import json
import logging
import struct
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable

from aiohttp import WSMsgType, web

from cardtable_host.serve import netguard
from cardtable_host.serve.archive import Archive
from cardtable_host.serve.hub import Hub

PAGES = Path(__file__).resolve().with_name("web")
SLOW_BYTES = 4 << 20  # unsent bytes a viewer may fall behind before it is let go (it reconnects)
SECRET_HEADER = "X-Cardtable-Secret"
log = logging.getLogger("cardtable.serve")
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


class Delayed:
    """The overlay's feed, `seconds` behind the table (a stream shows what the room saw then):
    each state message is written to the overlay's sockets once it is that old, and a new one
    starts from the last state that old (event loop, but publish on the board's thread)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.socks: set[web.WebSocketResponse] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.current: tuple[int, str] | None = None  # the newest state old enough to show

    def publish(self, n: int, t: float, text: str) -> None:
        """Message n of the table, taken at t (monotonic): states wait their turn, the rest go."""
        if '"type": "state"' not in text[:80] or self.loop is None:
            return
        try:
            self.loop.call_soon_threadsafe(self._later, n, t, text)
        except RuntimeError:
            pass  # the server is stopping

    def _later(self, n: int, t: float, text: str) -> None:
        # on the loop, after the live viewers' write of the same message (queued before this):
        # the overlay shows it `seconds` after the table page got it
        assert self.loop is not None
        self.loop.call_later(self.seconds, self._show, n, text)

    def _show(self, n: int, text: str) -> None:
        self.current = (n, text)
        for sock in list(self.socks):
            if sock.closed:
                self.socks.discard(sock)
            else:
                asyncio.ensure_future(self._send(sock, text))

    async def _send(self, sock: web.WebSocketResponse, text: str) -> None:
        try:
            await sock.send_str(text)
        except (ConnectionError, RuntimeError):
            self.socks.discard(sock)

    def snapshot(self) -> str:
        """Where a new overlay starts: the last state old enough, shaped as a snapshot."""
        if self.current is None:
            return json.dumps({"type": "snapshot", "n": 0, "reading": None, "view": None, "connected": True})
        n, text = self.current
        msg = json.loads(text)
        return json.dumps({"type": "snapshot", "n": n, "reading": msg.get("reading"), "view": msg.get("view"),
                           "names": msg.get("names"), "connected": msg.get("connected")})


def scorekeeper_ok(request: web.Request, secret: str) -> bool:
    """The request carries the scorekeeper's secret (compared in constant time)."""
    given = request.headers.get(SECRET_HEADER, "")
    if not given and request.headers.get("Authorization", "").startswith("Bearer "):
        given = request.headers["Authorization"][7:].strip()
    return bool(given) and netguard.secret_matches(given, secret)


async def _refuse_all(sock: web.WebSocketResponse) -> None:
    """A spectator's socket until it closes: everything it sends is refused (spectators only read)."""
    try:
        async for msg in sock:
            if msg.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                await sock.send_str(REFUSED)
            elif msg.type == WSMsgType.ERROR:
                break
    except (ConnectionError, RuntimeError):
        pass


def _page_text(name: str) -> str:
    # web/head.html is every page's head up to its own <title> (which the page file begins with)
    return (PAGES / "head.html").read_text(encoding="utf-8") + (PAGES / name).read_text(encoding="utf-8")


def _page(name: str) -> Callable[[web.Request], Any]:
    """A handler that answers with one of the pages."""
    text = _page_text(name)

    async def handler(request: web.Request) -> web.StreamResponse:
        return web.Response(text=text, content_type="text/html", headers={"Cache-Control": "no-cache"})
    return handler


def _number(request: web.Request) -> int:
    """The archived game's number the path names (404 if none)."""
    try:
        return int(request.match_info["n"])
    except ValueError:
        raise web.HTTPNotFound(text="no such game") from None


class TableApp:
    """One table's handlers: its pages, the spectators' and the overlay's sockets, the archive's
    pages and the scorekeeper's control."""

    def __init__(self, hub: Hub, archive: Archive, secret: str, control: Control | None,
                 drawing: Callable[[], tuple[str, dict[str, Any]] | None], overlay_delay: float,
                 seats: Any) -> None:
        self.hub = hub
        self.archive = archive
        self.secret = secret
        self.control = control
        self.drawing = drawing
        self.seats = seats
        self.viewers = Viewers(hub)
        self.delayed = Delayed(overlay_delay) if overlay_delay > 0 else None
        self.subscribed: list[int] = []  # the hub's ids of the feeds above, while serving
        self.game_page = _page("game.html")
        self.missing = _page_text("missing.html")

    # -- life ------------------------------------------------------------------------------

    async def on_startup(self, app: web.Application) -> None:
        self.viewers.loop = asyncio.get_running_loop()
        self.subscribed.append(self.hub.subscribe(self.viewers.publish)[0])
        if self.delayed is not None:
            self.delayed.loop = self.viewers.loop
            self.subscribed.append(self.hub.subscribe(self.delayed.publish)[0])
        if self.seats is not None:
            self.seats.start(self.viewers.loop)

    async def on_cleanup(self, app: web.Application) -> None:
        while self.subscribed:
            self.hub.unsubscribe(self.subscribed.pop())
        if self.seats is not None:
            self.seats.stop()

    async def on_shutdown(self, app: web.Application) -> None:
        for sock in list(self.viewers.socks) + (list(self.delayed.socks) if self.delayed is not None else []):
            self.viewers.leave(sock)  # the pages reconnect to the next server
            await sock.close(code=1001, message=b"server going away")

    # -- the spectators' -------------------------------------------------------------------

    async def ws(self, request: web.Request) -> web.StreamResponse:
        sock = web.WebSocketResponse(heartbeat=20, max_msg_size=4096, compress=False)
        await sock.prepare(request)
        if request.transport is None or request.transport.is_closing():
            return sock
        self.viewers.join(sock, request.transport)
        self.hub.viewer_joined()
        log.info("a spectator connected from %s (%d so far)", request.remote, self.hub.joined)
        try:
            await _refuse_all(sock)
        finally:
            self.viewers.leave(sock)
        return sock

    async def overlay_ws(self, request: web.Request) -> web.StreamResponse:
        delayed = self.delayed
        if delayed is None:
            return await self.ws(request)
        sock = web.WebSocketResponse(heartbeat=20, max_msg_size=4096, compress=False)
        await sock.prepare(request)
        await sock.send_str(delayed.snapshot())
        delayed.socks.add(sock)
        try:
            await _refuse_all(sock)
        finally:
            delayed.socks.discard(sock)
        return sock

    async def snapshot(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(dict(self.hub.snapshot(), viewers=len(self.viewers.socks)))

    async def stats(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(self.viewers.stats())

    async def layout(self, request: web.Request) -> web.StreamResponse:
        found = self.drawing()
        if found is None:
            raise web.HTTPNotFound(text="no layout drawing for this board")
        if request.path.endswith(".svg"):
            return web.Response(text=found[0], content_type="image/svg+xml")
        return web.json_response(found[1])

    # -- the archive -----------------------------------------------------------------------

    async def archived_page(self, request: web.Request) -> web.StreamResponse:
        n = _number(request)
        if await asyncio.to_thread(self.archive.path, n) is None:
            return web.Response(text=self.missing.replace("{n}", str(n)), status=404, content_type="text/html",
                                headers={"Cache-Control": "no-cache"})
        return await self.game_page(request)

    async def games(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(await asyncio.to_thread(self.archive.games))

    async def game_record(self, request: web.Request) -> web.StreamResponse:
        n = _number(request)
        path = self.archive.path(n)
        text = None if path is None else await asyncio.to_thread(self.archive.record_text, n)
        if path is None or text is None:
            raise web.HTTPNotFound(text="no game %d in the archive" % n)
        return web.Response(text=text, headers={
            "Content-Type": "application/jsonl; charset=utf-8",
            "Content-Disposition": 'attachment; filename="%s"' % path.name})

    @staticmethod
    def archived(read: Callable[[int], Any]) -> Callable[[web.Request], Any]:
        """A JSON page of an archived game: read(n) of the game the path names."""
        async def handler(request: web.Request) -> web.StreamResponse:
            n = _number(request)
            found = await asyncio.to_thread(read, n)
            if found is None:
                raise web.HTTPNotFound(text="no game %d in the archive" % n)
            return web.json_response(found)
        return handler

    # -- the scorekeeper's -----------------------------------------------------------------

    async def do_control(self, request: web.Request) -> web.StreamResponse:
        given = request.headers.get(SECRET_HEADER, "")
        if not given and request.headers.get("Authorization", "").startswith("Bearer "):
            given = request.headers["Authorization"][7:].strip()
        if not given:
            log.warning("refused a control request from %s: no secret", request.remote)
            return web.json_response({"ok": False, "error": "the scorekeeper's secret is needed "
                                      "(printed when cardtable serve started)"}, status=403)
        if not netguard.secret_matches(given, self.secret):
            log.warning("refused a control request from %s: a wrong secret", request.remote)
            return web.json_response({"ok": False, "error": "wrong secret: the scorekeeper's secret is "
                                      "the one printed when cardtable serve started"}, status=403)
        try:
            cmd = await netguard.read_body(request)
        except netguard.BadBody as e:
            return web.json_response({"ok": False, "error": str(e)}, status=400)
        if not isinstance(cmd, dict) or cmd.get("cmd") not in COMMANDS:
            return web.json_response({"ok": False, "error": "cmd must be one of %s" % ", ".join(COMMANDS)},
                                     status=400)
        if self.control is None:
            return web.json_response({"ok": False, "error": "no board to control"}, status=503)
        reply = await asyncio.to_thread(self.control, cmd)
        log.info("control %r from %s: %s", cmd.get("cmd"), request.remote,
                 "done" if reply.get("ok") else "refused: %s" % reply.get("error"))
        return web.json_response(reply, status=200 if reply.get("ok") else int(reply.get("status", 409)))

    def add_routes(self, app: web.Application) -> None:
        """Every route of the table's app (the seat pages' too, with a SeatRoom)."""
        r = app.router
        r.add_get("/", _page("table.html"))
        r.add_get("/overlay", _page("overlay.html"))
        r.add_get("/archive", _page("archive.html"))
        r.add_get("/archive/{n:\\d+}", self.archived_page)
        r.add_get("/archive.json", self.games)
        r.add_get("/archive/{n:\\d+}.jsonl", self.game_record)
        r.add_get("/archive/{n:\\d+}.json", self.archived(self.archive.replay))
        r.add_get("/archive/{n:\\d+}/verdict.json", self.archived(self.archive.verdict))
        r.add_get("/archive/{n:\\d+}/referee.json", self.archived(self.archive.refereed))
        r.add_get("/ws", self.ws)
        r.add_get("/ws/overlay", self.overlay_ws)
        r.add_get("/snapshot.json", self.snapshot)
        r.add_get("/stats.json", self.stats)
        r.add_get("/layout.svg", self.layout)
        r.add_get("/layout.json", self.layout)
        r.add_post("/control", self.do_control)
        if self.seats is not None:
            from cardtable_host.serve import seats as seat_pages

            self.seats.archive_lines = self.archive.lines
            self.seats.control = self.control
            seat_pages.add_routes(app, self.seats, lambda request: scorekeeper_ok(request, self.secret))
        r.add_static("/static/", PAGES)


def make_app(hub: Hub, archive: Archive, secret: str, control: Control | None,
             drawing: Callable[[], tuple[str, dict[str, Any]] | None],
             names: set[str] | None = None, allowed: set[str] | None = None,
             overlay_delay: float = 0.0, seats: Any = None) -> web.Application:
    """The aiohttp application of one table; names: the host names it answers to (Host), by
    default loopback's; allowed: origins besides the page's own that may use it; the overlay's
    feed overlay_delay seconds behind; seats: the players' own pages (a seats.SeatRoom). The
    secret is never empty (ValueError)."""
    if not secret:
        raise ValueError("the scorekeeper's secret cannot be empty")
    app = web.Application(client_max_size=64 * 1024,
                          middlewares=[netguard.guard(names if names is not None else netguard.host_names("127.0.0.1"),
                                                       allowed)])
    table = TableApp(hub, archive, secret, control, drawing, overlay_delay, seats)
    app.on_startup.append(table.on_startup)
    app.on_shutdown.append(table.on_shutdown)
    app.on_cleanup.append(table.on_cleanup)
    table.add_routes(app)
    return app


class Server:
    """The web server on its own thread and event loop."""

    def __init__(self, app: web.Application, host: str, port: int, gate: netguard.Gate | None = None) -> None:
        self.app = app
        self.host = host
        self.port = port
        self.gate = gate or netguard.Gate()
        self._listener: asyncio.AbstractServer | None = None
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
        self._runner = web.AppRunner(self.app, access_log=None, handle_signals=False, keepalive_timeout=30)
        await self._runner.setup()
        make = self._runner.server
        assert make is not None
        gate = self.gate
        self._listener = await asyncio.get_running_loop().create_server(
            lambda: netguard.Guarded(make, gate), self.host or None, self.port, reuse_address=True)
        socks = self._listener.sockets or []
        if socks:
            self.port = socks[0].getsockname()[1]

    def stop(self) -> None:
        if not self._thread.is_alive():
            return

        async def down() -> None:
            if self._listener is not None:
                self._listener.close()
            if self._runner is not None:
                await self._runner.cleanup()

        fut = asyncio.run_coroutine_threadsafe(down(), self.loop)
        try:
            fut.result(5)
        except Exception:  # noqa: BLE001 - going away regardless
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)
