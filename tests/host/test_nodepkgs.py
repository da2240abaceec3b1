"""The virtual boards' Node packages: an installed cardtable installs the pinned ones with npm
into the user's cache folder on first use, saying so, and says what to install without npm."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from cardtable_host.sim import nodepkgs

REPO = Path(__file__).resolve().parents[2]


def test_the_pins_are_the_repositorys() -> None:
    assert nodepkgs.PINS == json.loads((REPO / "package.json").read_text())["dependencies"]


def test_a_checkout_uses_its_own_node_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    said: list[str] = []
    if not (REPO / "node_modules" / "rp2040js").is_dir():
        pytest.skip("this checkout has no node_modules: `make setup` runs npm ci")
    assert nodepkgs.node_modules(said.append) == REPO / "node_modules"
    assert said == [] and not (tmp_path / "cardtable").exists()


def test_without_npm_it_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv(nodepkgs.ENV_NPM, raising=False)
    with pytest.raises(nodepkgs.NodePackagesError) as e:
        nodepkgs.node_modules(print, checkout=None)
    msg = str(e.value)
    assert "sudo apt-get install nodejs npm" in msg
    assert "npm install --prefix %s" % nodepkgs.cache_folder() in msg
    assert "@micropython/micropython-webassembly-pyscript@1.27.0 rp2040js@1.4.1" in msg


def test_first_use_installs_into_the_cache_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    said: list[str] = []
    modules = nodepkgs.node_modules(said.append, checkout=None)
    assert modules.is_relative_to(tmp_path / "cardtable" / "node")
    assert nodepkgs.micropython_mjs(modules).is_file()
    assert json.loads((modules / "rp2040js" / "package.json").read_text())["version"] == "1.4.1"
    assert said[0].startswith("cardtable: installing the WebAssembly MicroPython 1.27.0 and rp2040js 1.4.1 with npm into ")
    said.clear()
    assert nodepkgs.node_modules(said.append, checkout=None) == modules
    assert said == []  # once


def test_the_rp2_chip_imports_rp2040js_from_the_folder_named(tmp_path: Path) -> None:
    """An installed cardtable's rp2 board finds rp2040js in the cache (a bare import would not)."""
    import subprocess

    if shutil.which("node") is None or not (REPO / "node_modules" / "rp2040js").is_dir():
        pytest.skip("node and the checkout's node_modules (make setup) are needed")
    cache = tmp_path / "node_modules"
    shutil.copytree(REPO / "node_modules" / "rp2040js", cache / "rp2040js")
    entry = cache / "rp2040js" / "dist" / "esm" / "index.js"
    entry.write_text(entry.read_text() + "\nglobalThis.rp2040jsFrom = 'the cache';\n")
    chip = (REPO / "host" / "cardtable_host" / "sim" / "rp2" / "chip.mjs").as_uri()
    probe = "import(%r).then((m) => console.log(globalThis.rp2040jsFrom || 'the checkout', typeof m.Chip))" % chip
    env = {k: v for k, v in os.environ.items() if k != "CARDTABLE_NODE_MODULES"}
    named = subprocess.run(["node", "-e", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                           env=dict(env, CARDTABLE_NODE_MODULES=str(cache)))
    assert named.stdout.strip() == "the cache function", named.stderr
    own = subprocess.run(["node", "-e", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env)
    assert own.stdout.strip() == "the checkout function", own.stderr
