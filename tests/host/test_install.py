"""A wheel installed in a clean venv, run from outside the checkout, does every command that
needs no source tree: the firmware's boot and board files come with it as package data.
(About a minute: a wheel build, a venv and the dependencies from pip's cache or PyPI.)"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "nexus" / "legal.jsonl"


def pip(*args: str, cwd: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", *args],
                       cwd=cwd, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        pytest.fail("pip %s failed:\n%s" % (args[0], r.stdout + r.stderr))


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin folder of a fresh venv holding cardtable from a wheel built from this checkout."""
    root = tmp_path_factory.mktemp("install")
    src = root / "src"  # a copy, so the build's own folders stay out of the checkout
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info")
    src.mkdir()
    for name in ("pyproject.toml", "setup.py"):
        shutil.copy(REPO / name, src / name)
    for name in ("firmware", "host"):
        shutil.copytree(REPO / name, src / name, ignore=skip)
    pip("wheel", "--no-deps", "-w", str(root / "dist"), str(src), cwd=root)
    wheel = next((root / "dist").glob("cardtable-*.whl"))
    venv.EnvBuilder(with_pip=False).create(root / "venv")
    bin_dir = root / "venv" / ("Scripts" if os.name == "nt" else "bin")
    python = next(p for p in (bin_dir / "python", bin_dir / "python.exe") if p.exists())
    pip("--python", str(python), "install", str(wheel), cwd=root)
    return bin_dir


def run(bin_dir: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    more = env or {}
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CARDTABLE_FIRMWARE")}
    env.update(more)
    away = bin_dir.parent.parent  # outside the checkout
    return subprocess.run([str(bin_dir / "cardtable"), *args], cwd=away, capture_output=True,
                          text=True, timeout=300, env=dict(env, NO_COLOR="1"))


@pytest.mark.parametrize("args, says", [
    (("--help",), "referee"),
    (("referee", str(FIXTURE)), "nexus: all legal"),
    (("rules", "fortyfives"), "Forty-Fives"),
    (("demo", "nexus", "--quiet"), "game over"),
    (("flash", "--help"), "else pico-"),  # the default board, read from the shipped main.py
])
def test_the_installed_wheel_runs_outside_the_checkout(installed: Path, args: tuple[str, ...],
                                                       says: str) -> None:
    r = run(installed, *args)
    assert r.returncode == 0, r.stdout + r.stderr
    assert says in r.stdout.replace("\n", " ").replace("  ", " ")


def test_the_installed_package_has_no_checkout_paths(installed: Path) -> None:
    probe = ("import cardtable, cardtable_host.board.flashing as f; "
             "print(f.FIRMWARE); print(sorted(p.name for p in (f.FIRMWARE / 'boards').glob('*.json')))")
    r = subprocess.run([str(installed / "python"), "-c", probe], cwd=installed, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    where, boards = r.stdout.splitlines()
    assert not where.startswith(str(REPO)) and where.endswith("cardtable_firmware"), where
    shipped = sorted(p.name for p in (REPO / "firmware" / "boards").glob("*.json"))
    assert boards == str(shipped)


def every_command() -> list[tuple[str, ...]]:
    """Every command and subcommand, as words on a command line (from the parser itself)."""
    import argparse

    from cardtable_host import cli

    out: list[tuple[str, ...]] = []

    def walk(p: argparse.ArgumentParser, words: tuple[str, ...]) -> None:
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, sub in a.choices.items():
                    out.append(words + (name,))
                    walk(sub, words + (name,))
    walk(cli.build_parser(), ())
    return out


def test_every_command_says_its_help_from_the_wheel(installed: Path) -> None:
    commands = every_command()
    assert ("tournament", "demo") in commands and ("completion",) in commands
    for words in commands:
        r = run(installed, *words, "--help")
        assert r.returncode == 0 and r.stdout.startswith("usage: cardtable " + " ".join(words)), (words, r.stderr)


def test_the_wheel_runs_a_tournament_evening(installed: Path, tmp_path: Path) -> None:
    r = run(installed, "tournament", "demo", "--teams", "4", "--tables", "2", "--dir", str(tmp_path / "t"), "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    import json

    final = json.loads(r.stdout)
    assert final["standings"], final


def test_the_wheel_draws_into_a_folder(installed: Path, tmp_path: Path) -> None:
    r = run(installed, "draw", "--out", str(tmp_path / "d"))
    assert r.returncode == 0, r.stdout + r.stderr
    shipped = sorted(p.stem for p in (REPO / "firmware" / "boards").glob("*.json"))
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == shipped
    for name in shipped:
        assert "GP" in (tmp_path / "d" / name / "wiring.md").read_text()


def test_the_wheel_prints_a_completion_script(installed: Path) -> None:
    r = run(installed, "completion", "bash")
    assert r.returncode == 0, r.stderr
    assert "complete -o filenames -F _cardtable_complete cardtable" in r.stdout
    assert "tournament" in r.stdout


def _virtual_board_js(bin_dir: Path) -> bool:
    return any(bin_dir.parent.glob("lib/python3*/site-packages/cardtable_host/**/board.mjs")) or any(
        bin_dir.parent.glob("Lib/site-packages/cardtable_host/**/board.mjs"))


@pytest.fixture(scope="module")
def with_node(installed: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment for a virtual board from the wheel: Node on PATH, an empty cache folder."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed: the virtual boards run on Node")
    if not _virtual_board_js(installed):
        pytest.skip("the wheel carries no virtual board JavaScript yet (board.mjs: the sim branch "
                    "moves it into cardtable_host/sim)")
    return {"XDG_CACHE_HOME": str(tmp_path_factory.mktemp("cache"))}


def test_the_wheel_simulates_a_game_installing_its_node_packages_once(installed: Path, with_node: dict[str, str]) -> None:
    r = run(installed, "sim", "nexus", "--delay", "0", "--quiet", env=with_node)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "cardtable: installing the WebAssembly MicroPython" in r.stderr
    assert "result:" in r.stdout
    r = run(installed, "sim", "fortyfives", "--delay", "0", "--quiet", env=with_node)
    assert r.returncode == 0 and "installing" not in r.stderr, r.stdout + r.stderr


@pytest.mark.parametrize("args", [("run", "--http", "127.0.0.1:0"), ("serve", "--sim", "fortyfives", "--http", "127.0.0.1:0")])
def test_the_wheel_serves_the_simulated_table(installed: Path, with_node: dict[str, str], args: tuple[str, ...]) -> None:
    import signal
    import threading
    import time

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CARDTABLE_FIRMWARE")}
    proc = subprocess.Popen([str(installed / "cardtable"), *args], cwd=installed.parent.parent, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=dict(env, NO_COLOR="1", **with_node),
                            start_new_session=True)
    said: list[str] = []
    threading.Thread(target=lambda: said.extend(proc.stdout or ()), daemon=True).start()
    deadline = time.monotonic() + 180
    try:
        while not any(line.startswith("table page: http://") for line in said):
            assert proc.poll() is None and time.monotonic() < deadline, "".join(said)
            time.sleep(0.1)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(60)
    assert proc.returncode in (0, 143), "".join(said)


def test_enroll_with_a_reader_names_the_extra_to_install(installed: Path) -> None:
    r = run(installed, "enroll", "--port", "/dev/null", "--game", "fortyfives")
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.strip() == ("cardtable enroll: --port needs Adafruit's PN532 driver, an optional "
                                "part of cardtable: pip install 'cardtable[enroll]'")
