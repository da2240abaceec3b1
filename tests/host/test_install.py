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


def run(bin_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CARDTABLE_FIRMWARE")}
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


def test_enroll_with_a_reader_names_the_extra_to_install(installed: Path) -> None:
    r = run(installed, "enroll", "--port", "/dev/null", "--game", "fortyfives")
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.strip() == ("cardtable enroll: --port needs Adafruit's PN532 driver, an optional "
                                "part of cardtable: pip install 'cardtable[enroll]'")
