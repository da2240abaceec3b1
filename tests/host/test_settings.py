"""cardtable.toml: the settings a club would otherwise type every night, from the user's config
folder, ./cardtable.toml or --config FILE; the command line wins; `cardtable config` says each
value and its file; a malformed file is one clear line naming the file and the line."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cardtable_host import cli
from cardtable_host.config import settings


def cardtable(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, XDG_CONFIG_HOME=str(home), NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "cardtable_host.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    """A working folder and a config home with a user's cardtable.toml."""
    home, work = tmp_path / "home", tmp_path / "work"
    (home / "cardtable").mkdir(parents=True)
    work.mkdir()
    (home / "cardtable" / "cardtable.toml").write_text(
        'port = "/dev/ttyACM9"\ntable = "Home table"\nplayers = ["Ann", "Bob", "Cy", "Di"]\n')
    return work, home


def test_config_says_each_value_and_its_file(places: tuple[Path, Path]) -> None:
    work, home = places
    (work / "cardtable.toml").write_text('table = "Club night"\nhttp = "0.0.0.0:8719"\n')
    (work / "tonight.toml").write_text('http = "127.0.0.1:9000"\narchive = "~/games"\n')
    r = cardtable("config", "--json", "--config", "tonight.toml", cwd=work, home=home)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    user = str(home / "cardtable" / "cardtable.toml")
    assert got["port"] == {"value": "/dev/ttyACM9", "from": user}
    assert got["players"] == {"value": "Ann,Bob,Cy,Di", "from": user}
    assert got["table"] == {"value": "Club night", "from": str((work / "cardtable.toml").resolve())}
    assert got["http"] == {"value": "127.0.0.1:9000", "from": str((work / "tonight.toml").resolve())}
    assert got["archive"]["value"] == os.path.expanduser("~/games")
    assert got["broker"] is None
    r = cardtable("config", cwd=work, home=home)
    lines = {ln.split()[0]: ln for ln in r.stdout.splitlines()[1:]}
    assert lines["table"].split() == ["table", "Club", "night", "(from", "%s)" % (work / "cardtable.toml").resolve()]
    assert lines["broker"].split() == ["broker", "-", "(not", "set)"]


def test_the_command_line_wins(places: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    work, home = places
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.chdir(work)
    parser = cli.build_parser("serve", full=False)
    settings.apply(parser, settings.load(None))
    args = parser.parse_args(["serve", "--sim", "nexus"])
    assert (args.port, args.table, args.players) == ("/dev/ttyACM9", "Home table", "Ann,Bob,Cy,Di")
    args = parser.parse_args(["serve", "--table", "Back room", "--port", "/dev/ttyACM0"])
    assert (args.port, args.table, args.players) == ("/dev/ttyACM0", "Back room", "Ann,Bob,Cy,Di")
    # the tournament's --table is a table number: a table name never becomes its default
    parser = cli.build_parser("tournament", full=False)
    settings.apply(parser, settings.load(None))
    args = parser.parse_args(["tournament", "report", "club", "--table", "2"])
    assert args.table == 2


@pytest.mark.parametrize("text, says", [
    ('port = "/dev/ttyACM0"\nplayers = [Ann]\n', "tonight.toml, line 2, column 12: Invalid value"),
    ('port = "/dev/ttyACM0"\nprot = "x"\n', "tonight.toml, line 2: unknown setting 'prot'"),
    ('table = 3.5\n', "tonight.toml, line 1: table must be a string"),
])
def test_a_malformed_file_is_one_line_naming_the_line(places: tuple[Path, Path], text: str, says: str) -> None:
    work, home = places
    (work / "tonight.toml").write_text(text)
    r = cardtable("--config", "tonight.toml", "rules", "nexus", cwd=work, home=home)
    assert r.returncode == 2
    assert r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and says in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_a_missing_config_file_is_named(places: tuple[Path, Path]) -> None:
    work, home = places
    r = cardtable("config", "--config", "nowhere.toml", cwd=work, home=home)
    assert r.returncode == 2 and r.stderr.strip() == "cardtable config: --config nowhere.toml: no such file"
