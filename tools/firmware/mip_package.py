"""Write firmware/package.json: the device package in MicroPython's `mip` format.

`mpremote mip install github:OWNER/REPO/firmware` (or the local path firmware/package.json)
then copies firmware/lib/cardtable to the board's /lib, as MicroPython libraries ship (all but
the modules marked host only: boardfiles.py).
Run it after adding or removing a file of the package (a test says when it is stale).
usage: python3 tools/firmware/mip_package.py [--check]
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from boardfiles import board_files  # noqa: E402

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
PACKAGE = FIRMWARE / "lib" / "cardtable"
OUT = FIRMWARE / "package.json"


def package_json() -> str:
    """The package.json text for the package as it is in the checkout."""
    ver = re.search(r'^VERSION = "([^"]+)"', (PACKAGE / "version.py").read_text(), re.M)
    files = [p.relative_to(FIRMWARE / "lib").as_posix() for p in board_files(PACKAGE)]
    # dest is relative to mip's target (/lib), src to this file
    urls = ",\n".join("  " + json.dumps([f, "lib/" + f]) for f in files)
    return '{\n "urls": [\n%s\n ],\n "version": %s\n}\n' % (urls, json.dumps(ver.group(1) if ver else "0"))


def main(argv: list[str]) -> int:
    text = package_json()
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text() != text:
            print("firmware/package.json is stale: run python3 tools/firmware/mip_package.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
