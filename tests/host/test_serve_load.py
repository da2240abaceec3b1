"""200 spectators on one served table while bots play on the virtual board (bench/serveload.py):
every viewer gets every message, p99 from the board's message reaching serve to each viewer's
copy under 100 ms, and serve's memory flat over the soak ($CARDTABLE_SOAK_S seconds, default
120; `make soak` runs thirty minutes and prints the figures). The delay is judged only when
the machine was not already busy with other programs (CI has it to itself)."""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest
from hostsupport import need_node

pytest.importorskip("aiohttp")
need_node()

BENCH = Path(__file__).resolve().parents[2] / "bench" / "serveload.py"
FLAT_KIB = 8 * 1024  # growth allowed after warm-up: allocator noise, not a leak


def test_two_hundred_viewers_get_every_message_fast_and_memory_stays_flat() -> None:
    spec = importlib.util.spec_from_file_location("cardtable_bench_serveload", BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    busy = os.getloadavg()[0] > (os.cpu_count() or 1)  # before the run: other programs' load
    r = mod.run(viewers=200, seconds=float(os.environ.get("CARDTABLE_SOAK_S", "120")), delay=0.1)
    print({k: v for k, v in r.items() if k != "rss_samples"})
    assert r["messages"] > 100, r
    assert not r["errors"] and r["lost"] == 0 and r["behind"] == 0, r
    assert r["deliveries"] >= 200 * (r["messages"] - 5)
    assert r["rss_kib_last"] - r["rss_kib_first"] < FLAT_KIB, r["rss_samples"]
    if busy and r["p99_ms"] >= 100:
        pytest.skip("p99 %.1f ms, but other programs kept every core busy (load %.1f on %d cores): "
                    "delays are only measured on a machine to itself" % (
                        r["p99_ms"], os.getloadavg()[0], os.cpu_count() or 1))
    assert r["p99_ms"] < 100, "p99 %.1f ms from the board's message to a viewer" % r["p99_ms"]
