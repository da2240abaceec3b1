"""The commands that need no serial port start where POSIX's terminal and user modules do not
exist (Windows): fcntl, termios, pty, tty, pwd and grp are made unimportable before cardtable
is imported. pyserial is imported first: it picks its own backend (serialwin32 on Windows)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
REPO = Path(__file__).resolve().parents[2]
POSIX_ONLY = ("fcntl", "termios", "pty", "tty", "pwd", "grp")

# The command runs in-process after the POSIX-only modules are poisoned.
RUNNER = """\
import sys
import serial, serial.tools.list_ports
for name in %r:
    sys.modules[name] = None
from cardtable_host import cli
sys.exit(cli.main(sys.argv[1:]))
""" % (POSIX_ONLY,)


def without_posix(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, NO_COLOR="1")
    import pwd  # this test runs on POSIX: the user the command runs as, named as Windows names it

    env.setdefault("USERNAME", pwd.getpwuid(os.getuid()).pw_name)  # getpass reads it on Windows
    return subprocess.run([sys.executable, "-c", RUNNER, *args], capture_output=True, text=True,
                          timeout=300, env=env, cwd=cwd)


@pytest.mark.parametrize("args, says", [
    (("--help",), "referee"),
    (("referee", str(FIXTURES / "nexus" / "legal.jsonl")), "all legal"),
    (("rules", "fortyfives"), "Forty-Fives"),
    (("demo", "nexus", "--quiet"), "game over"),
    (("pull", "--help"), "journals"),
    (("doctor", "--help"), "reader"),
    (("completion", "bash"), "_cardtable_complete"),
])
def test_starts_without_posix_terminal_modules(args: tuple[str, ...], says: str) -> None:
    r = without_posix(*args)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    assert says in r.stdout


def test_every_command_says_its_help_without_posix_modules() -> None:
    from test_install import every_command

    for words in every_command():
        r = without_posix(*words, "--help")
        assert r.returncode == 0 and "Traceback" not in r.stderr, (words, r.stderr[-600:])
        assert r.stdout.startswith("usage: cardtable " + " ".join(words)), (words, r.stdout[:200])


def test_a_tournament_evening_and_a_drawing_without_posix_modules(tmp_path: Path) -> None:
    r = without_posix("tournament", "demo", "--teams", "4", "--tables", "2", "--dir", str(tmp_path / "t"), "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["standings"]
    r = without_posix("draw", "--out", str(tmp_path / "d"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "d" / "pico-i2c-4seat" / "wiring.md").is_file()


def test_sim_says_it_needs_linux_or_macos() -> None:
    r = without_posix("sim", "nexus", "--delay", "0")
    assert r.returncode != 0
    assert "Traceback" not in r.stderr, r.stderr
    assert "needs Linux or macOS" in r.stderr, r.stderr


def test_only_the_pseudo_terminal_needs_posix_modules() -> None:
    """Every host module imports without them but sim/pty.py (`sim`'s pseudo-terminal): `run`
    with a board plugged in, `serve`, `flash` and the tournament never reach for tty or pwd."""
    probe = RUNNER.split("from cardtable_host")[0] + """\
import importlib, pkgutil
import cardtable_host
for m in pkgutil.walk_packages(cardtable_host.__path__, "cardtable_host."):
    try:
        importlib.import_module(m.name)
    except ImportError as e:
        print(m.name, e)
"""
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    failed = dict(line.split(" ", 1) for line in r.stdout.splitlines())
    assert set(failed) == {"cardtable_host.sim.pty"}, failed


def test_help_imports_no_command_module() -> None:
    """`cardtable --help` lists every command from the command table without importing them."""
    probe = ("import sys\nfrom cardtable_host import cli\ntry:\n    cli.main(['--help'])\n"
             "except SystemExit:\n    pass\nprint(sorted(m for m in sys.modules if m in map(cli.command_module, cli.COMMANDS)))")
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    from cardtable_host import cli

    for name in cli.COMMANDS:
        assert re.search(r"^    %s\b" % name, r.stdout, re.M), name
    assert r.stdout.strip().splitlines()[-1] == "[]", r.stdout


def test_the_folders_come_from_platformdirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import platformdirs

    from cardtable_host.serve import archive
    from cardtable_host.config import dirs

    monkeypatch.setattr(platformdirs, "user_data_path", lambda app, appauthor=None: tmp_path / "data" / app)
    assert archive.default_dir() == tmp_path / "data" / "cardtable" / "archive"
    assert dirs.cache_dir().name == "cardtable"


def test_flash_finds_the_bootsel_drive_by_its_label_on_windows_and_macos(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from cardtable_host.board import uf2

    def drive(name: str) -> Path:
        d = tmp_path / name
        d.mkdir()
        (d / uf2.INFO_FILE).write_text("UF2 Bootloader v3.0\nModel: Raspberry Pi RP2\nBoard-ID: RPI-RP2\n")
        return d

    pico, stick = drive("E"), tmp_path / "F"
    stick.mkdir()
    monkeypatch.setattr(uf2, "_windows_volumes", lambda: [(stick, "USB STICK"), (pico, "RPI-RP2")])
    monkeypatch.setattr(uf2, "_volumes_dir", lambda: tmp_path / "none")
    assert uf2.find_drives() == [pico]
    volumes = tmp_path / "Volumes"
    volumes.mkdir()
    mac = drive("Volumes/RPI-RP2 1")
    monkeypatch.setattr(uf2, "_windows_volumes", lambda: [])
    monkeypatch.setattr(uf2, "_volumes_dir", lambda: volumes)
    assert uf2.find_drives() == [mac]
