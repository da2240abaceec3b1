"""Viewers of `cardtable serve` under load: many WebSocket spectators on one table while bots
play on the virtual board; the delay from the board's message reaching serve to each viewer
having it, over every (message, viewer), messages lost, and serve's memory over the run.

    python bench/serveload.py --viewers 200 --seconds 1800     # make soak: thirty minutes

Every hub message carries its number "n" and the time serve took it from the board "t"
(CLOCK_MONOTONIC, first in the message); the viewers (bench/viewers.py, spread over a few
processes) read the clock as each read returns and compare. The viewers stand for phones, each
with a processor of its own: each process of them, like serve, is a session of its own (Linux
shares the processor between sessions first), and where this harness may raise a priority
(root: CI) serve and the viewers run above other programs, so that a machine busy with other
work counts against them less; the load average is reported with the figures.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

PAGE = re.compile(r"^table page: (http://\S+/)$")
VIEWERS = Path(__file__).resolve().with_name("viewers.py")
PROCS = 2  # viewer processes: one a core here
NICE = -5  # serve's and the viewers', above other programs' where allowed (and their sessions')


def rss_kib(pid: int) -> int:
    """A process's resident memory in KiB (Linux)."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _ahead() -> None:
    """This new process and its session ahead of other programs where this harness may raise a
    priority (root: CI); otherwise as they are (Linux)."""
    try:
        os.setpriority(os.PRIO_PROCESS, 0, NICE)
    except (OSError, AttributeError):
        pass
    try:
        with open("/proc/self/autogroup", "w") as f:  # the session's share (sched(7): autogroup)
            f.write("%d" % NICE)
    except OSError:
        pass


def cpu_s(pid: int) -> float:
    """A process's CPU time so far, user and system, in seconds (Linux; 0 once it is gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _board_as_itself(pid: int) -> None:
    """The virtual board serve started (node, the firmware on MicroPython) back to the usual
    priority: it stands for a Pico, which has a processor of its own (Linux)."""
    try:
        for c in children(pid):
            for tid in os.listdir("/proc/%d/task" % c):
                os.setpriority(os.PRIO_PROCESS, int(tid), 0)
    except (OSError, AttributeError):
        pass


def children(pid: int) -> list[int]:
    """The processes pid started (Linux)."""
    return [int(c) for c in os.listdir("/proc") if c.isdigit() and _parent(c) == pid]


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
                            preexec_fn=_ahead)
    assert proc.stdout is not None
    for line in proc.stdout:
        m = PAGE.match(line.strip())
        if m:
            _board_as_itself(proc.pid)
            return proc, m.group(1)
    raise RuntimeError("serve did not start: %s" % proc.stderr.read() if proc.stderr else "")


def start_viewers(url: str, viewers: int, procs: int) -> list[subprocess.Popen[str]]:
    """viewers spectators over procs processes (bench/viewers.py), once all follow the table."""
    counts = [viewers // procs + (1 if i < viewers % procs else 0) for i in range(procs)]
    ps = [subprocess.Popen([sys.executable, str(VIEWERS), url, str(c)], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, text=True, preexec_fn=_ahead, start_new_session=True)
          for c in counts if c]
    for p in ps:
        assert p.stdout is not None
        line = p.stdout.readline()
        if line.strip() != "ready":
            raise RuntimeError("the viewers did not connect: %r" % line)
    return ps


def stop_viewers(ps: list[subprocess.Popen[str]], last: int) -> list[dict[str, Any]]:
    """Each process's figures once its viewers have message last (or gave up waiting)."""
    out = []
    for p in ps:
        assert p.stdin is not None
        p.stdin.write("stop %d\n" % last)
        p.stdin.flush()
    for p in ps:
        assert p.stdout is not None
        out.append(json.loads(p.stdout.readline() or "{}"))
        p.wait(20)
    return out


def percentile(hist: dict[int, int], p: float, bin_s: float) -> float:
    """The p-th percentile (ms) of a histogram of delays: the top of the bin it falls in."""
    total = sum(hist.values())
    if not total:
        return float("nan")
    rank = max(1, -(-total * p // 100))
    seen = 0
    for b in sorted(hist):
        seen += hist[b]
        if seen >= rank:
            return (b + 1) * bin_s * 1000
    return float("nan")


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=20) as r:
        return json.loads(r.read().decode())


def _merged(got: list[dict[str, Any]]) -> tuple[dict[int, int], float, list[dict[str, Any]]]:
    """The viewer processes' reports as one: (delay histogram, its bin in s, every viewer's figures)."""
    hist: dict[int, int] = {}
    bin_s = 0.0
    figures: list[dict[str, Any]] = []
    for g in got:
        bin_s = g.get("bin_s", bin_s)
        for b, k in g.get("hist", ()):
            hist[b] = hist.get(b, 0) + k
        figures += g.get("viewers", [])
    return hist, bin_s, figures


def run(viewers: int = 200, seconds: float = 120, game: str = "fortyfives", delay: float = 0.05,
        procs: int = PROCS) -> dict[str, Any]:
    """Figures of one load run: delays (ms) over every (message, viewer), losses, memory (KiB)."""
    samples: list[tuple[float, int]] = []
    loads: list[float] = []
    with tempfile.TemporaryDirectory(prefix="cardtable-soak-") as archive:
        proc, url = start_serve(game, delay, archive, viewers)
        ps: list[subprocess.Popen[str]] = []
        try:
            ps = start_viewers(url, viewers, procs)
            who = {"serve": [proc.pid], "board": children(proc.pid), "viewers": [p.pid for p in ps]}
            cpu0 = {k: sum(cpu_s(x) for x in pids) for k, pids in who.items()}
            start = time.monotonic()
            until = start + seconds
            while time.monotonic() < until:
                samples.append((round(time.monotonic() - start, 1), rss_kib(proc.pid)))
                loads.append(os.getloadavg()[0])
                time.sleep(min(5.0, seconds / 20, max(0.0, until - time.monotonic())))
            stats = _get(url + "stats.json")
            cpu = {k: round(sum(cpu_s(x) for x in pids) - cpu0[k], 2) for k, pids in who.items()}
            got = stop_viewers(ps, stats["last"])
        finally:
            for p in ps:
                if p.poll() is None:
                    p.kill()
                    p.wait(5)
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(20)
    hist, bin_s, figures = _merged(got)
    last = stats["last"]
    lost = sum(b - a + 1 for f in figures for a, b in zip(f["missed"][::2], f["missed"][1::2]))
    behind = sum(1 for f in figures if f["last"] < last)
    lost += sum(last - f["last"] for f in figures if f["last"] < last)
    errors = [f["error"] for f in figures if f["error"]]
    if len(figures) < viewers:
        errors.append("%d viewers told nothing" % (viewers - len(figures)))
    warm = [kib for t, kib in samples if t >= seconds * 0.25]
    return {
        "viewers": viewers, "viewer_processes": len(got), "seconds": seconds, "game": game,
        "bot_delay_s": delay, "messages": last - min((f["first"] for f in figures), default=last),
        "deliveries": sum(hist.values()),
        "expected_deliveries": sum(max(last, f["last"]) - f["first"] for f in figures),
        "p50_ms": round(percentile(hist, 50, bin_s), 2), "p99_ms": round(percentile(hist, 99, bin_s), 2),
        "max_ms": round(percentile(hist, 100, bin_s), 2),
        "serve_p50_ms": stats["fanout_ms"]["p50"], "serve_p99_ms": stats["fanout_ms"]["p99"],
        "serve_max_ms": stats["fanout_ms"]["max"], "serve_writing_p99_ms": stats["writing_ms"]["p99"],
        "serve_writing_cpu_p99_ms": stats["writing_cpu_ms"]["p99"], "serve_broadcasts": stats["broadcasts"],
        "serve_deliveries": stats["deliveries"],
        "cpu_s": cpu, "lost": lost, "behind": behind, "errors": errors[:5],
        "load_avg": [round(min(loads), 2), round(sum(loads) / len(loads), 2), round(max(loads), 2)] if loads else None,
        "rss_kib_first": warm[0] if warm else None, "rss_kib_last": warm[-1] if warm else None,
        "rss_kib_max": max(warm) if warm else None,
        "rss_samples": samples,
    }


def report(r: dict[str, Any]) -> str:
    """The figures of a run in words."""
    return "\n".join([
        "%d viewers (%d processes), %.0f s of %s: %d messages, %d of %d deliveries" % (
            r["viewers"], r["viewer_processes"], r["seconds"], r["game"], r["messages"], r["deliveries"],
            r["expected_deliveries"]),
        "delay board message at serve -> in each viewer's hands, over every (message, viewer): "
        "p50 %.1f ms, p99 %.1f ms, max %.1f ms" % (r["p50_ms"], r["p99_ms"], r["max_ms"]),
        "  serve's part, board message -> written to the last viewer: p50 %.1f ms, p99 %.1f ms, max %.1f ms"
        % (r["serve_p50_ms"], r["serve_p99_ms"], r["serve_max_ms"]),
        "  writing to the %d viewers: p99 %.1f ms (CPU time p99 %.1f ms)" % (
            r["viewers"], r["serve_writing_p99_ms"], r["serve_writing_cpu_p99_ms"]),
        "lost %d, viewers behind %d, errors %s" % (r["lost"], r["behind"], r["errors"] or "none"),
        "serve's memory after warm-up: first %s KiB, last %s KiB, most %s KiB" % (
            r["rss_kib_first"], r["rss_kib_last"], r["rss_kib_max"]),
        "CPU seconds over the run: serve %(serve).1f, its virtual board %(board).1f, the viewers %(viewers).1f"
        % r["cpu_s"],
        "load average during the run (min, mean, max over %d cores): %s" % (os.cpu_count() or 0, r["load_avg"]),
    ])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--viewers", type=int, default=200)
    p.add_argument("--seconds", type=float, default=1800)
    p.add_argument("--game", default="fortyfives")
    p.add_argument("--delay", type=float, default=0.05, help="seconds between bot actions")
    p.add_argument("--json", metavar="FILE", help="also write the figures to FILE")
    p.add_argument("--procs", type=int, default=PROCS, help="processes the viewers are spread over")
    args = p.parse_args(argv)
    r = run(args.viewers, args.seconds, args.game, args.delay, args.procs)
    print(report(r))
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(r, f, indent=1)
    return 0 if r["lost"] == 0 and not r["errors"] and r["p99_ms"] < 100 else 1


if __name__ == "__main__":
    sys.exit(main())
