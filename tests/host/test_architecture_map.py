"""ARCHITECTURE.md stays true to the tree: it names every room, and every path it names exists."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAP = ROOT / "ARCHITECTURE.md"
HOST = ROOT / "host" / "cardtable_host"
DEVICE = ROOT / "firmware" / "lib" / "cardtable"
# where a path the map names may start: the root, a top folder, the host and device packages
BASES = (ROOT, ROOT / "firmware", ROOT / "tools", ROOT / "tests", ROOT / "tests" / "host", HOST,
         HOST / "serve" / "web", DEVICE, DEVICE / "games")


def named_paths(text: str) -> list[str]:
    """The file and folder paths in backticks: those with a slash or a file suffix."""
    out = []
    for tok in re.findall(r"`([^`\s]+)`", text):
        tok = tok.replace(".../", "").split("(")[0]
        if "<" in tok or "*" in tok or tok.startswith("/") or not re.fullmatch(r"[\w./-]+", tok):
            continue
        if "/" in tok or re.search(r"\.(py|md|html|js|json)$", tok):
            out.append(tok)
    return out


def test_the_map_names_every_room() -> None:
    text = MAP.read_text(encoding="utf-8")
    rooms = [p for p in HOST.iterdir() if (p / "__init__.py").is_file()]
    rooms += [p for p in DEVICE.iterdir() if (p / "__init__.py").is_file()]
    missing = [p.relative_to(ROOT).as_posix() for p in rooms if "%s/" % p.name not in text]
    assert not missing, "rooms ARCHITECTURE.md does not name: %s" % missing


def test_every_path_the_map_names_exists() -> None:
    paths = named_paths(MAP.read_text(encoding="utf-8"))
    assert "firmware/lib/cardtable/table/controller.py" in paths or "table/controller.py" in paths
    gone = [p for p in paths if not any((base / p.rstrip("/")).exists() for base in BASES)]
    assert not gone, "ARCHITECTURE.md names paths that are not there: %s" % gone
