"""Viewers of `cardtable serve` under load: many WebSocket spectators on one table while bots
play on the virtual board; the delay from the board's message reaching serve to each viewer's
copy of it, messages lost, and serve's memory over the run.

    python bench/serveload.py --viewers 200 --seconds 1800     # make soak: thirty minutes

Every hub message carries its number "n" and the time serve took it from the board "t" (first,
so a viewer reads them without parsing the whole message); viewers and serve share the clock.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Callable, TypeVar

HEAD = re.compile(r'^\{"n": (\d+), "t": ([0-9.]+)')
PAGE = re.compile(r"^table page: (http://\S+/)$")
HARNESS_NICE = 10  # the viewers' priority below serve's
SERVE_NICE = -5  # serve's, above other programs' where allowed: their load is not serve's delay
T = TypeVar("T")


def rss_kib(pid: int) -> int:
    """A process's resident memory in KiB (Linux)."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _first() -> None:
    """serve (and the virtual board it runs, which stands for a Pico) ahead of other programs,
    where this harness may raise a priority (root: CI); otherwise as it is."""
    try:
        os.setpriority(os.PRIO_PROCESS, 0, SERVE_NICE)
    except (OSError, AttributeError):
        pass


def _board_as_itself(pid: int) -> None:
    """The virtual board serve started (node, the firmware on MicroPython) back to the usual
    priority: it stands for a Pico, which has a processor of its own (Linux)."""
    try:
        children = [c for c in os.listdir("/proc") if c.isdigit() and _parent(c) == pid]
        for c in children:
            for tid in os.listdir("/proc/%s/task" % c):
                os.setpriority(os.PRIO_PROCESS, int(tid), 0)
    except (OSError, AttributeError):
        pass


def _parent(pid: str) -> int:
    try:
        with open("/proc/%s/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def start_serve(game: str, delay: float, archive: str, viewers: int) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "cardtable_host.cli", "serve", "--sim", game, "--games", "0",
                             "--delay", str(delay), "--http", "127.0.0.1:0", "--archive", archive, "-q",
                             "--wait-viewers", str(viewers)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_first)
    assert proc.stdout is not None
    for line in proc.stdout:
        m = PAGE.match(line.strip())
        if m:
            _board_as_itself(proc.pid)
            return proc, m.group(1)
    raise RuntimeError("serve did not start: %s" % proc.stderr.read() if proc.stderr else "")


class Viewer:
    """One spectator: the numbers it got and each message's delay."""

    def __init__(self) -> None:
        self.first = -1
        self.got: list[int] = []
        self.delays: list[float] = []
        self.error = ""


async def watch(url: str, v: Viewer, session: Any) -> None:
    """Follow the table until cancelled, noting each message's number and delay."""
    import aiohttp

    try:
        async with session.ws_connect("ws" + url[4:] + "ws", max_msg_size=1 << 20) as ws:
            async for msg in ws:
                now = time.time()
                if msg.type != aiohttp.WSMsgType.TEXT:
                    v.error = "closed: %s" % msg.type
                    return
                m = HEAD.match(msg.data)
                if m is None:
                    if v.first < 0 and msg.data.startswith('{"type": "snapshot"'):
                        v.first = json.loads(msg.data)["n"]
                    continue
                n = int(m.group(1))
                if n > v.first:
                    v.got.append(n)
                    v.delays.append(now - float(m.group(2)))
            v.error = "the server closed the socket"
    except (aiohttp.ClientError, OSError) as e:
        v.error = str(e)


def humble(work: Callable[[], T]) -> T:
    """work() on a thread of its own at a lower priority (Linux: a thread is niced alone), so
    that this harness's many clients, which stand for many phones, do not take serve's CPU."""
    box: list[Any] = []

    def run() -> None:
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), HARNESS_NICE)
        except (OSError, AttributeError):
            pass  # not Linux: the same priority as serve
        try:
            box.append((True, work()))
        except BaseException as e:  # noqa: BLE001 - raised again on the caller's thread
            box.append((False, e))

    t = threading.Thread(target=run, name="serveload-viewers")
    t.start()
    t.join()
    ok, value = box[0]
    if not ok:
        raise value
    return value  # type: ignore[no-any-return]


def percentile(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


async def _run(url: str, pid: int, viewers: int, seconds: float, samples: list[tuple[float, int]],
               stats: dict[str, Any]) -> list[Viewer]:
    import aiohttp

    vs = [Viewer() for _ in range(viewers)]
    start = time.time()
    until = start + seconds
    conn = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=conn) as session:
        tasks = [asyncio.create_task(watch(url, v, session)) for v in vs]
        while time.time() < until:
            samples.append((time.time() - start, rss_kib(pid)))
            await asyncio.sleep(min(5.0, seconds / 20, max(0.0, until - time.time())))
        async with session.get(url + "stats.json") as r:
            stats.update(await r.json())
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return vs


def run(viewers: int = 200, seconds: float = 120, game: str = "fortyfives", delay: float = 0.05) -> dict[str, Any]:
    """Figures of one load run: latency percentiles (ms), messages, losses, memory (KiB)."""
    with tempfile.TemporaryDirectory(prefix="cardtable-soak-") as archive:
        proc, url = start_serve(game, delay, archive, viewers)
        samples: list[tuple[float, int]] = []
        stats: dict[str, Any] = {}
        try:
            vs = humble(lambda: asyncio.run(_run(url, proc.pid, viewers, seconds, samples, stats)))
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(20)
    delays = [d for v in vs for d in v.delays]
    lost = 0
    short = 0
    last = max((v.got[-1] for v in vs if v.got), default=0)
    for v in vs:
        if v.got:
            lost += sum(b - a - 1 for a, b in zip(v.got, v.got[1:]) if b > a + 1)
            short += 1 if last - v.got[-1] > 5 else 0  # fell behind: missing the latest messages
    warm = [kib for t, kib in samples if t >= seconds * 0.25]
    return {
        "viewers": viewers, "seconds": seconds, "game": game, "bot_delay_s": delay,
        "messages": max((len(v.got) for v in vs), default=0), "deliveries": len(delays),
        "p50_ms": round(percentile(delays, 50) * 1000, 2), "p99_ms": round(percentile(delays, 99) * 1000, 2),
        "max_ms": round(max(delays, default=float("nan")) * 1000, 2),
        "serve_p50_ms": stats["fanout_ms"]["p50"], "serve_p99_ms": stats["fanout_ms"]["p99"],
        "serve_max_ms": stats["fanout_ms"]["max"], "serve_writing_p99_ms": stats["writing_ms"]["p99"],
        "serve_writing_cpu_p99_ms": stats["writing_cpu_ms"]["p99"], "serve_broadcasts": stats["broadcasts"],
        "serve_deliveries": stats["deliveries"],
        "lost": lost, "behind": short, "errors": [v.error for v in vs if v.error][:5],
        "rss_kib_first": warm[0] if warm else None, "rss_kib_last": warm[-1] if warm else None,
        "rss_kib_max": max(warm) if warm else None,
        "rss_samples": samples,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--viewers", type=int, default=200)
    p.add_argument("--seconds", type=float, default=1800)
    p.add_argument("--game", default="fortyfives")
    p.add_argument("--delay", type=float, default=0.05, help="seconds between bot actions")
    p.add_argument("--json", metavar="FILE", help="also write the figures to FILE")
    args = p.parse_args(argv)
    r = run(args.viewers, args.seconds, args.game, args.delay)
    print("%d viewers, %.0f s of %s: %d messages each, %d deliveries" % (
        r["viewers"], r["seconds"], r["game"], r["messages"], r["deliveries"]))
    print("serve's own delay, board message -> written to every viewer: p50 %.1f ms, p99 %.1f ms, max %.1f ms" % (
        r["serve_p50_ms"], r["serve_p99_ms"], r["serve_max_ms"]))
    print("  of which writing to the %d viewers: p99 %.1f ms (CPU time p99 %.1f ms)" % (
        r["viewers"], r["serve_writing_p99_ms"], r["serve_writing_cpu_p99_ms"]))
    print("delay board message -> read by a viewer (this harness's %d clients included): p50 %.1f ms, p99 %.1f ms, "
          "max %.1f ms" % (r["viewers"], r["p50_ms"], r["p99_ms"], r["max_ms"]))
    print("lost %d, viewers behind %d, errors %s" % (r["lost"], r["behind"], r["errors"] or "none"))
    print("serve's memory after warm-up: first %s KiB, last %s KiB, most %s KiB" % (
        r["rss_kib_first"], r["rss_kib_last"], r["rss_kib_max"]))
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(r, f, indent=1)
    return 0 if r["lost"] == 0 and not r["errors"] and r["serve_p99_ms"] < 100 else 1


if __name__ == "__main__":
    sys.exit(main())
