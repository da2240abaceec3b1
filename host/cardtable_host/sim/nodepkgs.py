"""The pinned Node packages the virtual boards run on: the WebAssembly MicroPython (the
WebAssembly board) and rp2040js (the rp2 board).

A checkout has them in its node_modules (`make setup` runs `npm ci`). An installed cardtable
installs them with npm into the user's cache folder the first time a virtual board starts,
saying so on one line; without npm the error says exactly what to install.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Callable

from cardtable_host.config.dirs import cache_dir

CHECKOUT = Path(__file__).resolve().parents[3]
# The same pins as the repository's package.json (tests/host/test_nodepkgs.py checks).
PINS = {"@micropython/micropython-webassembly-pyscript": "1.27.0", "rp2040js": "1.4.1"}
MICROPYTHON = "@micropython/micropython-webassembly-pyscript"
ENV_NPM = "CARDTABLE_NPM"  # the npm binary to use (default: npm on PATH)


class NodePackagesError(RuntimeError):
    """The Node packages are missing and cannot be installed here; the message says what to do."""


def _complete(modules: Path) -> bool:
    return all((modules / name / "package.json").is_file() for name in PINS)


def cache_folder() -> Path:
    """Where an installed cardtable keeps them: the cache folder, one folder per set of pins."""
    key = hashlib.sha256(json.dumps(PINS, sort_keys=True).encode()).hexdigest()[:12]
    return cache_dir() / "node" / key


def node_modules(say: Callable[[str], None] = print, checkout: Path | None = CHECKOUT) -> Path:
    """The node_modules folder holding the pinned packages: the checkout's, else the cache's,
    installed there now (one progress line) if it is not yet."""
    if checkout is not None and _complete(checkout / "node_modules"):
        return checkout / "node_modules"
    folder = cache_folder()
    modules = folder / "node_modules"
    if _complete(modules):
        return modules
    npm = os.environ.get(ENV_NPM) or shutil.which("npm")
    wanted = " ".join("%s@%s" % kv for kv in PINS.items())
    if not npm:
        raise NodePackagesError(
            "the virtual boards need Node.js 20 or later with npm (the WebAssembly MicroPython and "
            "rp2040js come from npm): install Node.js and npm (Debian: sudo apt-get install nodejs "
            "npm), then run again; or install them yourself: npm install --prefix %s %s" % (folder, wanted))
    folder.parent.mkdir(parents=True, exist_ok=True)
    say("cardtable: installing the WebAssembly MicroPython %s and rp2040js %s with npm into %s "
        "(once) ..." % (PINS[MICROPYTHON], PINS["rp2040js"], folder))
    tmp = Path(tempfile.mkdtemp(prefix="install-", dir=folder.parent))
    try:
        r = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--no-save", "--no-package-lock",
                            "--prefix", str(tmp), *("%s@%s" % kv for kv in PINS.items())],
                           capture_output=True, text=True, timeout=900)
        if r.returncode or not _complete(tmp / "node_modules"):
            tail = "\n".join((r.stdout + r.stderr).strip().splitlines()[-8:])
            raise NodePackagesError("npm could not install %s (exit %d):\n%s\ninstall them yourself: "
                                    "npm install --prefix %s %s" % (wanted, r.returncode, tail, folder, wanted))
        try:
            tmp.rename(folder)
        except OSError:
            if not _complete(modules):  # not another cardtable's install finishing first
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    say("cardtable: installed into %s" % folder)
    return modules


def micropython_mjs(modules: Path) -> Path:
    """The WebAssembly MicroPython's entry module in a node_modules folder."""
    return modules / MICROPYTHON / "micropython.mjs"
