"""`cardtable config`: each setting of cardtable.toml in force here, and where it came from."""
from __future__ import annotations

import argparse
import json

from cardtable_host.config import settings

DESCRIPTION = """\
Settings a club would otherwise type every night live in cardtable.toml: the user's config
folder's (%s), ./cardtable.toml, or the file --config names, each later one winning; the
command line wins over all of them. This prints each setting, its value and the file it came
from (--json: the same as JSON).

  port = "/dev/ttyACM0"            board = "pico-i2c-4seat"       table = "Club night"
  players = ["Ann", "Bob", "Cy", "Di"]                            http = "0.0.0.0:8719"
  archive = "~/cardtable-games"    broker = "192.168.1.10:1883"   secret_file = "~/.secret"

example:  cardtable config
          cardtable --config club.toml config --json
""" % settings.user_file()


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the settings as JSON")


def run(args: argparse.Namespace) -> int:
    found = settings.load(getattr(args, "config", None))
    if args.json:
        print(json.dumps({k: ({"value": found[k].value, "from": found[k].source} if k in found else None)
                          for k in settings.OPTIONS}, indent=1))
        return 0
    files = [str(p) for p, _ in settings.candidates(getattr(args, "config", None))]
    print("settings files, later ones winning: %s" % ", ".join(files))
    width = max(map(len, settings.OPTIONS))
    for key in settings.OPTIONS:
        s = found.get(key)
        print("%-*s  %s" % (width, key, "%s  (from %s)" % (s.value, s.source) if s else "-  (not set)"))
    return 0
