"""Many spectators of `cardtable serve` in one process, each timing every message as it gets it.

    python bench/viewers.py URL COUNT     # serveload.py starts a few of these (Linux: epoll)

Each viewer is a plain RFC 6455 client socket, all of them on one epoll loop: the moment a
read returns is taken at once (CLOCK_MONOTONIC, which every process of a Linux machine shares
with serve), then only the head of each message is read: serve puts its number "n" and the
time it took the board's message "t" first, so no viewer decodes the rest. Prints "ready" once
all follow the table; on "stop N" (stdin) waits for every viewer to have message N, then prints
its figures as one JSON line: each viewer's first and last number and the numbers it missed,
and a histogram of every (message, viewer) delay in BIN_S steps.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import re
import select
import socket
import sys
import time
from typing import Any
from urllib.parse import urlsplit

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455 section 1.3
HEAD = re.compile(rb'\{"n": (\d+), "t": ([0-9.]+)')
SNAP_N = re.compile(rb'"n": (\d+)')
BIN_S = 0.0001  # histogram step: 0.1 ms
STOP_WAIT_S = 10.0  # how long the last messages may take to arrive after "stop"
CONNECT_S = 30.0


class Spectator:
    """One viewer's socket: its frames, each message's number checked and its delay noted."""

    def __init__(self, host: str, port: int, path: str, hist: dict[int, int]) -> None:
        self.sock = socket.create_connection((host, port), timeout=CONNECT_S)
        self.hist = hist
        self.buf = b""
        self.first = -1  # the number of the last message the snapshot includes
        self.last = -1
        self.missed: list[int] = []  # numbers that never came: (from, to) pairs, flattened
        self.error = ""
        self._upgrade(host, port, path)
        self.sock.setblocking(False)

    def _upgrade(self, host: str, port: int, path: str) -> None:
        """The opening handshake (RFC 6455 section 4.1), checked; blocking."""
        key = base64.b64encode(os.urandom(16))
        self.sock.sendall(b"GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          b"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
                          % (path.encode(), host.encode(), port, key))
        buf = b""
        while b"\r\n\r\n" not in buf:
            more = self.sock.recv(4096)
            if not more:
                raise ConnectionError("serve closed the socket during the handshake")
            buf += more
        head, self.buf = buf.split(b"\r\n\r\n", 1)
        fields = {}
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            fields[name.strip().lower()] = value.strip()
        accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
        if not head.startswith(b"HTTP/1.1 101") or fields.get(b"sec-websocket-accept") != accept:
            raise ConnectionError("no WebSocket upgrade: %r" % head[:200])

    def read(self) -> bool:
        """Take what the socket has; False once it is closed."""
        try:
            data = self.sock.recv(1 << 16)
        except BlockingIOError:
            return True
        except OSError as e:
            self.fail("the socket failed: %s" % e)
            return False
        now = time.monotonic()
        if not data:
            self.fail("serve closed the socket")
            return False
        self.take(self.buf + data if self.buf else data, now)
        return True

    def take(self, buf: bytes, now: float) -> None:
        """Every whole frame in buf (a server's: unmasked); the rest kept for the next read."""
        i, size = 0, len(buf)
        while size - i >= 2:
            op, n = buf[i] & 0x0F, buf[i + 1] & 0x7F
            at = i + 2
            if n == 126:
                if size - at < 2:
                    break
                n, at = int.from_bytes(buf[at:at + 2], "big"), at + 2
            elif n == 127:
                if size - at < 8:
                    break
                n, at = int.from_bytes(buf[at:at + 8], "big"), at + 8
            if size - at < n:
                break
            i = at + n
            if op == 0x1:
                if n == 0 or buf[i - 1] != 0x7D:  # a whole JSON object ends with "}"
                    self.fail("a message cut short: %r" % buf[at:i][-80:])
                self._message(buf, at, now)
            elif op == 0x9:
                self._send(0xA, buf[at:i])  # a ping: serve's heartbeat wants its pong
            elif op == 0x8:
                self.fail("serve closed the socket: %r" % buf[at + 2:i])
        self.buf = buf[i:]

    def _message(self, buf: bytes, at: int, now: float) -> None:
        m = HEAD.match(buf, at)
        if m is None:
            if self.first < 0:
                s = SNAP_N.search(buf, at)
                if s is None:
                    self.fail("a first message without its number")
                    return
                self.first = self.last = int(s.group(1))
            return
        n = int(m.group(1))
        if n <= self.first:
            return  # the snapshot this viewer started from has it
        if n <= self.last:
            self.fail("message %d came after %d" % (n, self.last))
            return
        if n != self.last + 1:
            self.missed += (self.last + 1, n - 1)
        self.last = n
        b = int((now - float(m.group(2))) / BIN_S)
        self.hist[b] = self.hist.get(b, 0) + 1

    def _send(self, op: int, payload: bytes) -> None:
        """A client's frame, masked (RFC 6455 section 5.3); a control frame's small payload."""
        mask = os.urandom(4)
        body = bytes(b ^ mask[k % 4] for k, b in enumerate(payload))
        try:
            self.sock.send(bytes((0x80 | op, 0x80 | len(payload))) + mask + body)
        except OSError as e:
            self.fail("the socket failed: %s" % e)

    def fail(self, why: str) -> None:
        if not self.error:
            self.error = why

    def figures(self) -> dict[str, Any]:
        return {"first": self.first, "last": self.last, "missed": self.missed, "error": self.error}


def follow(url: str, count: int) -> dict[str, Any]:
    """count viewers of the table at url until "stop N" and all have N: their figures."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    hist: dict[int, int] = {}
    viewers = [Spectator(host, port, parts.path + "ws", hist) for _ in range(count)]
    ep = select.epoll()
    by_fd = {}
    for v in viewers:
        by_fd[v.sock.fileno()] = v
        ep.register(v.sock.fileno(), select.EPOLLIN)
        if v.buf:
            v.take(v.buf, time.monotonic())
    stdin = sys.stdin.fileno()
    ep.register(stdin, select.EPOLLIN)
    said_ready = False
    want, deadline = -1, time.monotonic() + CONNECT_S
    while True:
        if not said_ready and (all(v.first >= 0 or v.error for v in viewers) or time.monotonic() > deadline):
            for v in viewers:
                if v.first < 0:
                    v.fail("no snapshot within %d s" % CONNECT_S)
            print("ready", flush=True)
            said_ready = True
        if want >= 0 and (time.monotonic() > deadline or all(v.last >= want or v.error for v in viewers)):
            break
        for fd, _ev in ep.poll(1.0):
            got = by_fd.get(fd)
            if got is not None:
                if not got.read():
                    ep.unregister(fd)
                    del by_fd[fd]
            elif fd == stdin:
                line = sys.stdin.readline()
                want = int(line.split()[1]) if line.startswith("stop ") else 0
                deadline = time.monotonic() + STOP_WAIT_S
                ep.unregister(stdin)
    for v in viewers:
        v.sock.close()
    return {"viewers": [v.figures() for v in viewers], "hist": sorted(hist.items()), "bin_s": BIN_S}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("url", help="the table page's address, e.g. http://127.0.0.1:8080/")
    p.add_argument("count", type=int, help="how many viewers")
    args = p.parse_args(argv)
    print(json.dumps(follow(args.url, args.count)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
