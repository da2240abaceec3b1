"""The user's settings file, cardtable.toml: the options a club would otherwise type every
night (port, board, table name, players, http address, archive, broker, secret file).

Read, in order, each overriding the one before: the user's config folder's cardtable.toml
(config/dirs.py), ./cardtable.toml, then the file given with --config. The command line wins
over all of them: a setting only changes an option's default.

    # cardtable.toml
    port = "/dev/ttyACM0"
    board = "pico-i2c-4seat"
    table = "Club night"
    players = ["Ann", "Bob", "Cy", "Di"]     # or "Ann,Bob,Cy,Di"
    http = "0.0.0.0:8719"
    archive = "~/cardtable-games"
    broker = "192.168.1.10:1883"
    secret_file = "~/.cardtable-secret"
"""
from __future__ import annotations

import argparse
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from cardtable_host.config.dirs import config_dir
from cardtable_host.errors import UsageError

FILE_NAME = "cardtable.toml"
# setting -> the option it gives a default to (in every command that has that option)
OPTIONS = {"port": "--port", "board": "--board", "table": "--table", "players": "--players",
           "http": "--http", "archive": "--archive", "broker": "--broker", "secret_file": "--secret-file"}
PATHS = ("archive", "secret_file")  # a leading ~ is the home folder


@dataclass(frozen=True)
class Setting:
    """A setting's value (as the command line would spell it) and the file it came from."""

    value: str
    source: str


def user_file() -> Path:
    """The user's own cardtable.toml, in the config folder."""
    return config_dir() / FILE_NAME


def candidates(explicit: str | None) -> list[tuple[Path, bool]]:
    """The files read, lowest first, each with whether it must exist."""
    out = [(user_file(), False), (Path(FILE_NAME), False)]
    if explicit:
        out.append((Path(explicit), True))
    return out


def _line_of(text: str, key: str) -> int:
    for n, line in enumerate(text.splitlines(), 1):
        if re.match(r"\s*%s\s*=" % re.escape(key), line):
            return n
    return 0


def _spelt(key: str, value: object, path: Path, text: str) -> str:
    """A TOML value as the command line spells the option."""
    if isinstance(value, list) and key == "players" and all(isinstance(v, str) for v in value):
        return ",".join(value)
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise UsageError("%s, line %d: %s must be %s" % (
            path, _line_of(text, key), key, "a list of names or a string" if key == "players" else "a string"))
    value = str(value)
    return os.path.expanduser(value) if key in PATHS else value


def read_file(path: Path) -> dict[str, str]:
    """One file's settings; a UsageError naming the file and line when it is malformed."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise UsageError("cannot read the settings file %s: %s" % (path, e.strerror or e)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        where = "line %s, column %s" % m.groups() if m else "?"
        why = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(e)) or "not TOML"
        raise UsageError("%s, %s: %s (the settings file is TOML: key = \"value\")" % (path, where, why)) from None
    out: dict[str, str] = {}
    for key, value in data.items():
        if key not in OPTIONS:
            raise UsageError("%s, line %d: unknown setting %r (known: %s)"
                             % (path, _line_of(text, key), key, ", ".join(OPTIONS)))
        out[key] = _spelt(key, value, path, text)
    return out


def load(explicit: str | None = None) -> dict[str, Setting]:
    """Every setting from the files that exist, the later file winning."""
    settings: dict[str, Setting] = {}
    for path, required in candidates(explicit):
        if not path.is_file():
            if required:
                raise UsageError("--config %s: no such file" % path)
            continue
        for key, value in read_file(path).items():
            settings[key] = Setting(value, str(path.resolve()))
    return settings


def config_option(words: list[str]) -> str | None:
    """The --config FILE named on a command line (before a `--`), or None."""
    for i, w in enumerate(words):
        if w == "--":
            break
        if w == "--config" and i + 1 < len(words):
            return words[i + 1]
        if w.startswith("--config="):
            return w.split("=", 1)[1]
    return None


def _parsers(p: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    out = [p]
    for a in p._actions:
        if isinstance(a, argparse._SubParsersAction):
            for sub in a.choices.values():
                out += _parsers(sub)
    return out


def apply(parser: argparse.ArgumentParser, settings: dict[str, Setting]) -> None:
    """Make each setting the default of its option, in every command that takes a string for it."""
    for p in _parsers(parser):
        for a in p._actions:
            for key, opt in OPTIONS.items():
                if key in settings and opt in a.option_strings and a.type in (None, str) and a.nargs is None:
                    p.set_defaults(**{a.dest: settings[key].value})
