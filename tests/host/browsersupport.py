"""Helpers shared by the tests that drive a page in Debian's headless Chromium (Selenium)."""
from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ARTIFACTS = Path(__file__).resolve().parents[2] / "build" / "artifacts"  # screenshots CI keeps


def need_chromium() -> None:
    """Skip the calling module unless Selenium, Chromium and chromium-driver are installed."""
    pytest.importorskip("selenium.webdriver")
    if not (_chromium() and shutil.which("chromedriver")):
        pytest.skip("Chromium and chromium-driver are not installed (apt-get install chromium "
                    "chromium-driver; .ci/run does)", allow_module_level=True)


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@contextlib.contextmanager
def chromium(width: int, height: int) -> Iterator[Any]:
    """A headless Chromium window of that size, driven by Selenium; quit at the end."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    opts.binary_location = _chromium()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=%d,%d" % (width, height)):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
    try:
        yield driver
    finally:
        driver.quit()


def wait(driver: Any, js: str, timeout: float = 60, what: str = "") -> Any:
    """What the script js returns once it is truthy; AssertionError with the page's text after timeout s."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = driver.execute_script(js)
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError("timed out waiting for %s; the page says: %s" % (
        what, driver.execute_script("return document.body.innerText")[:2000]))
