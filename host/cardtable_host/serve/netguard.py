"""What serve's web server lets in: known Host names and Origins only, a cap on connections,
a deadline for a request's head, and request bodies that are small, plain JSON.

A page open in the same browser at another site may not read the table (its Origin is not
the table's), and a name of the attacker's that resolves to this machine (DNS rebinding) is
refused by its Host header before it reaches the archive or the controls.
"""
from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import socket
from typing import Any, Awaitable, Callable, Iterable
from urllib.parse import urlsplit

from aiohttp import web

from cardtable_host.tournament.safejson import depth

MAX_CONNECTIONS = 1000  # open connections (viewers included) before new ones are turned away
HEAD_S = 10.0  # seconds a new connection has to send a whole request head
BODY_S = 10.0  # seconds a request's body may take to arrive
MAX_DEPTH = 8  # nesting of a scorekeeper's command: {"cmd": "act", "action": {...}} is 2
LOOPBACK = ("127.0.0.1", "::1", "localhost")
WILDCARD = ("0.0.0.0", "::", "")
BUSY = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
        b"Connection: close\r\nContent-Length: 31\r\n\r\ntoo many connections: try later")


class BadBody(ValueError):
    """A request body that is not a small JSON object of plain values."""


def lan_addresses() -> list[str]:
    """This machine's addresses others on its network may reach (no loopback), best first."""
    found: list[str] = []
    for family, probe in ((socket.AF_INET, ("192.0.2.1", 9)), (socket.AF_INET6, ("2001:db8::1", 9))):
        try:  # the address a packet out would leave from: a UDP "connect" sends nothing
            with socket.socket(family, socket.SOCK_DGRAM) as s:
                s.connect(probe)
                found.append(s.getsockname()[0])
        except OSError:
            pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, type=socket.SOCK_STREAM):
            found.append(str(info[4][0]))
    except OSError:
        pass
    out: list[str] = []
    for a in found:
        try:
            ip = ipaddress.ip_address(a.split("%")[0])
        except ValueError:
            continue
        if ip.is_loopback or ip.is_unspecified or ip.is_link_local or a in out:
            continue
        out.append(a)
    return out


def is_loopback(host: str) -> bool:
    """True if a server bound to host is reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_host(host: str) -> str:
    """A host as it is written in a URL (an IPv6 address in brackets)."""
    return "[%s]" % host if ":" in host else host


def host_names(bound: str, extra: Iterable[str] = ()) -> set[str]:
    """The names the server answers to: loopback, the address it is bound to (every address
    of this machine, and its name, when bound to all), and the names the user allowed."""
    names: set[str] = set(LOOPBACK)
    if bound in WILDCARD:
        names.update(lan_addresses())
        host = socket.gethostname()
        names.update({host, host + ".local", socket.getfqdn()})
    else:
        names.add(bound)
    for e in extra:
        names.add(allowed_name(e))
    return {n.lower().strip("[]") for n in names if n}


def allowed_name(text: str) -> str:
    """The host of an --allow-origin value: a bare name or address, or an origin URL."""
    if "://" in text:
        return (urlsplit(text).hostname or "").lower()
    parsed = urlsplit("//" + text)
    return (parsed.hostname or text).lower()


def _hostname(value: str) -> str | None:
    """The host name of a Host header's value (no port), None if it is not one."""
    try:
        parsed = urlsplit("//" + value)
        parsed.port  # noqa: B018 - raises ValueError on a port that is not a number
    except ValueError:
        return None
    return (parsed.hostname or "").lower() or None


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def origins(extra: Iterable[str]) -> set[str]:
    """The origins (scheme://host[:port]) the user allowed besides the page's own."""
    out = set()
    for e in extra:
        if "://" in e:
            parts = urlsplit(e)
            out.add("%s://%s" % (parts.scheme.lower(), parts.netloc.lower()))
    return out


def guard(names: set[str], allowed: set[str] | None = None) -> Callable[..., Awaitable[web.StreamResponse]]:
    """A middleware that refuses (403) a request whose Host names no allowed host (an address
    is allowed: a rebinding attack needs a name of its own), or whose Origin is neither the
    page's own (same scheme, host and port) nor one the user allowed."""
    allowed = allowed or set()

    @web.middleware
    async def middleware(request: web.Request,
                         handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
        given = request.headers.get("Host", "")
        host = _hostname(given)
        if host is None or host not in names and not _is_address(host):
            return web.Response(status=403, text="this table is not served under that name (Host): open it "
                                "by its address, or start serve with --allow-origin")
        origin = request.headers.get("Origin")
        if origin is not None:
            own = {"http://" + given.lower(), "https://" + given.lower()}
            if origin.lower().rstrip("/") not in own | allowed:
                return web.Response(status=403, text="pages from another site may not use this table (Origin)")
        return await handler(request)
    return middleware


def _refuse_constant(name: str) -> Any:
    raise BadBody("%s is not a number a table can take" % name)


def parse_body(data: bytes) -> Any:
    """A request body as JSON, or BadBody: UTF-8, no NaN or Infinity, nested MAX_DEPTH deep at most."""
    try:
        text = data.decode("utf-8")
        value = json.loads(text, parse_constant=_refuse_constant)
    except UnicodeDecodeError:
        raise BadBody("the body must be UTF-8 text") from None
    except RecursionError:
        raise BadBody("the body is nested too deep (at most %d levels)" % MAX_DEPTH) from None
    except BadBody:
        raise
    except ValueError as e:
        raise BadBody("the body must be JSON (%s)" % e) from None
    if depth(value, MAX_DEPTH) > MAX_DEPTH:
        raise BadBody("the body is nested too deep (at most %d levels)" % MAX_DEPTH)
    return value


async def read_body(request: web.Request) -> Any:
    """The request's body as parse_body reads it; BadBody if it is not, or is too slow."""
    try:
        data = await asyncio.wait_for(request.read(), BODY_S)
    except asyncio.TimeoutError:
        raise BadBody("the body did not arrive in %g s" % BODY_S) from None
    except web.HTTPRequestEntityTooLarge:
        raise BadBody("the body is too large") from None
    return parse_body(data)


def secret_matches(given: str, secret: str) -> bool:
    """True if the given secret is the scorekeeper's (constant time; any text, even not UTF-8)."""
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), secret.encode("utf-8"))


class Guarded(asyncio.Protocol):
    """One connection of the server, handed on to aiohttp's handler, with a deadline for its
    first request's head and a place in the count of open connections."""

    def __init__(self, make: Callable[[], Any], gate: "Gate") -> None:
        self._make = make
        self._gate = gate
        self._inner: Any = None
        self._transport: Any = None
        self._timer: asyncio.TimerHandle | None = None
        self._tail = b""

    def connection_made(self, transport: Any) -> None:
        self._transport = transport
        if not self._gate.enter():  # said, then closed once the client stops (or in 2 s): a
            transport.write(BUSY)   # close with its request unread would reset the answer away
            if transport.can_write_eof():
                transport.write_eof()
            self._timer = asyncio.get_running_loop().call_later(2.0, self._too_slow)
            return
        self._inner = self._make()
        self._inner.connection_made(transport)
        self._timer = asyncio.get_running_loop().call_later(self._gate.head_s, self._too_slow)

    def _too_slow(self) -> None:
        self._timer = None
        if self._transport is not None and not self._transport.is_closing():
            self._transport.abort()

    def data_received(self, data: bytes) -> None:
        if self._inner is None:
            return
        if self._timer is not None:
            seen = self._tail + data
            if b"\r\n\r\n" in seen or b"\n\n" in seen:
                self._timer.cancel()
                self._timer = None
            self._tail = seen[-3:]
        self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return False if self._inner is None else self._inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._inner is not None:
            self._gate.leave()
            self._inner.connection_lost(exc)
            self._inner = None

    def pause_writing(self) -> None:
        if self._inner is not None:
            self._inner.pause_writing()

    def resume_writing(self) -> None:
        if self._inner is not None:
            self._inner.resume_writing()


class Gate:
    """The count of open connections and the limits on them."""

    def __init__(self, max_connections: int = MAX_CONNECTIONS, head_s: float = HEAD_S) -> None:
        self.max = max_connections
        self.head_s = head_s
        self.open = 0
        self.turned_away = 0

    def enter(self) -> bool:
        if self.open >= self.max:
            self.turned_away += 1
            return False
        self.open += 1
        return True

    def leave(self) -> None:
        self.open -= 1
