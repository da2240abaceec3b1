"""The table page in a browser: its update time per board message over a whole game and its
total weight. `cardtable serve --sim fortyfives` plays a seeded game with bots while Debian's
headless Chromium (Selenium, chromium-driver) shows `/` at 1280x900.

Update time: a script added before the page's own (Chrome DevTools' addScriptToEvaluateOnNewDocument;
the page itself is unchanged) wraps every WebSocket's onmessage handler and times, with
performance.now(), the handler (parse, state, redraw) plus the style and layout it leaves
(forced by reading the layout at the end). Weight: the bytes the document and every file it
loads took on the wire (Resource Timing's transferSize, each file once) and their bodies
(encodedBodySize); files fetched again later (polling) are reported apart.
Figures, not tests: `make bench` reports them (aims: p99 under 16 ms, weight under 200 KB).
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

WIDTH, HEIGHT = 1280, 900
PAGE_LINE = re.compile(r"^table page: (http://127\.0\.0\.1:\d+/)$")

# Runs before the page's scripts: every WebSocket's onmessage handler timed into window.__benchTimes
# as [handler ms, handler + style/layout ms, message bytes, snapshot?].
TIMER = r"""
(() => {
  const times = window.__benchTimes = [];
  const WS = window.WebSocket;
  window.WebSocket = class extends WS {
    set onmessage(fn) {
      super.onmessage = (e) => {
        const t0 = performance.now();
        try { return fn.call(this, e); }
        finally {
          const t1 = performance.now();
          document.body && document.body.getBoundingClientRect();
          const t2 = performance.now();
          const data = typeof e.data === "string" ? e.data : "";
          times.push([t1 - t0, t2 - t0, data.length, data.startsWith('{"type": "snapshot"') || data.startsWith('{"type":"snapshot"')]);
        }
      };
    }
    get onmessage() { return super.onmessage; }
  };
})();
"""

WEIGHT = """
const nav = performance.getEntriesByType("navigation")[0];
const res = performance.getEntriesByType("resource");
return [nav, ...res].filter(Boolean).map(e => [e.name, e.initiatorType || "document", e.transferSize || 0,
                                                 e.encodedBodySize || 0, e.decodedBodySize || 0]);
"""


class _Serve:
    """`cardtable serve ARGS` running in its own session; .url once it listens."""

    def __init__(self, *args: str, timeout: float = 90) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "cardtable_host.cli", "serve", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=dict(os.environ, NO_COLOR="1"), start_new_session=True)
        self.lines: list[str] = []
        for stream in (self.proc.stdout, self.proc.stderr):
            threading.Thread(target=self._read, args=(stream,), daemon=True).start()
        self.url = ""
        deadline = time.monotonic() + timeout
        while not self.url and time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("serve ended (%s): %s" % (self.proc.returncode, "\n".join(self.lines)[-2000:]))
            for line in list(self.lines):
                m = PAGE_LINE.match(line)
                if m:
                    self.url = m.group(1)
            time.sleep(0.05)
        if not self.url:
            self.stop()
            raise RuntimeError("no 'table page:' line: %s" % "\n".join(self.lines)[-2000:])

    def _read(self, stream: Any) -> None:
        for line in stream:
            self.lines.append(line.rstrip("\n"))

    def stop(self) -> None:
        """End the serve process (its PID's session) and wait for it."""
        if self.proc.poll() is None:
            with _quiet():
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                with _quiet():
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)


class _quiet:
    """Ignore a process already gone."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, *_: Any) -> bool:
        return kind is not None and issubclass(kind, ProcessLookupError)


def _driver() -> Any:
    """Debian's headless Chromium at WIDTHxHEIGHT through chromium-driver."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_bin = shutil.which("chromedriver")
    if not (binary and driver_bin):
        raise RuntimeError("Chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)")
    opts = Options()
    opts.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=%d,%d" % (WIDTH, HEIGHT)):
        opts.add_argument(arg)
    return webdriver.Chrome(service=Service(driver_bin), options=opts)


def _pct(xs: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of xs."""
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, int(round(p / 100 * len(s) + 0.5)) - 1))]


def measure(seed: int = 7, bot_delay: float = 0.05, timeout: float = 600) -> dict[str, Any]:
    """One whole seeded game of Forty-fives shown on `/`: update times and the page's weight."""
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="cardtable-bench-pages-") as tmp:
        serve = _Serve("--sim", "fortyfives", "--bot-delay", str(bot_delay), "--seed", str(seed),
                       "--http", "127.0.0.1:0", "--players", "Ann,Bob,Cy,Di", "--archive", tmp, "-q")
        try:
            driver = _driver()
            try:
                driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": TIMER})
                driver.get(serve.url)
                deadline = time.monotonic() + timeout
                over = ""
                while time.monotonic() < deadline:
                    over = driver.execute_script(
                        "const o = document.getElementById('over');"
                        "return o && !o.classList.contains('hidden') ? o.textContent : '';")
                    if over:
                        break
                    time.sleep(0.25)
                if not over:
                    raise RuntimeError("the game did not end within %d s" % timeout)
                time.sleep(0.5)  # the last messages after the verdict
                times = driver.execute_script("return window.__benchTimes")
                weight = driver.execute_script(WEIGHT)
            finally:
                driver.quit()
        finally:
            serve.stop()
    updates = [t for t in times if not t[3]]
    if not updates:
        raise RuntimeError("no board message reached the page")
    first: dict[str, list[Any]] = {}
    for w in weight:
        first.setdefault(w[0], w)
    load = list(first.values())  # each file once: what opening the page costs; the rest is polling
    total = [t[1] for t in updates]
    script = [t[0] for t in updates]
    return {
        "seconds": round(time.monotonic() - t0, 1),
        "window": "%dx%d" % (WIDTH, HEIGHT),
        "bot_delay": bot_delay,
        "over": over,
        "messages": len(updates),
        "snapshots": len(times) - len(updates),
        "update_ms": {"p50": round(_pct(total, 50), 2), "p99": round(_pct(total, 99), 2),
                      "max": round(max(total), 2)},
        "script_ms": {"p50": round(_pct(script, 50), 2), "p99": round(_pct(script, 99), 2),
                      "max": round(max(script), 2)},
        "message_bytes_max": max(t[2] for t in updates),
        "resources": [{"name": n.rsplit("/", 1)[-1] or "/", "type": k, "transfer": tr, "encoded": enc,
                       "decoded": dec} for n, k, tr, enc, dec in load],
        "weight_kb": round(sum(w[2] for w in load) / 1024, 1),
        "body_kb": round(sum(w[3] for w in load) / 1024, 1),
        "polled_kb": round((sum(w[2] for w in weight) - sum(w[2] for w in load)) / 1024, 1),
        "polls": len(weight) - len(load),
        "load": [round(x, 2) for x in os.getloadavg()],
    }


def missing() -> str:
    """Why the browser cannot run here ("" when Selenium, Chromium and chromium-driver are all installed)."""
    try:
        import selenium.webdriver  # noqa: F401
    except ImportError:
        return "Selenium is not installed (make setup)"
    if not ((shutil.which("chromium") or shutil.which("chromium-browser")) and shutil.which("chromedriver")):
        return "Chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
    return ""


def section(quick: bool = False) -> dict[str, Any]:
    """The figures for `make bench` (--quick: the bots play faster), or why they were skipped."""
    why = missing()
    if why:
        return {"skipped": why}
    return measure(bot_delay=0.01 if quick else 0.05)


def report(res: dict[str, Any]) -> str:
    """The section's lines for `make bench`."""
    if "error" in res or "skipped" in res:
        return "\nTable page in Chromium: %s\n" % res.get("error", "skipped: %s" % res.get("skipped"))
    u, s = res["update_ms"], res["script_ms"]
    return "\n".join([
        "", "Table page in Chromium (%s, a whole seeded game of Forty-fives, bots %g s apart; %.1f s; load %s):"
        % (res["window"], res["bot_delay"], res["seconds"], " ".join("%.2f" % x for x in res["load"])),
        "  update per message  p50 %.2f ms, p99 %.2f ms, max %.2f ms over %d messages (aim: p99 under 16 ms)%s"
        % (u["p50"], u["p99"], u["max"], res["messages"], "" if u["p99"] < 16 else "  OVER"),
        "  of which script     p50 %.2f ms, p99 %.2f ms, max %.2f ms (the rest: style and layout)"
        % (s["p50"], s["p99"], s["max"]),
        "  page weight         %.1f KB on the wire (%.1f KB of bodies) in %d files (aim: under 200 KB)%s"
        % (res["weight_kb"], res["body_kb"], len(res["resources"]), "" if res["weight_kb"] < 200 else "  OVER"),
        "  polled later        %.1f KB in %d fetches of files already loaded, over the game"
        % (res["polled_kb"], res["polls"]),
    ]) + "\n"


if __name__ == "__main__":
    print(report(section()))
