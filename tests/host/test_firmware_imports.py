"""The firmware imports nothing from the host package (issue 21): the simulated hardware the
device tests and the virtual board run on MicroPython (the PN532 emulator) lives in the device
package's cardtable.sim, which never goes to a board (not frozen, not flashed, not in mip)."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
HOST = "cardtable_host"


def host_imports(source: str) -> list[str]:
    """The cardtable_host modules a source imports (import, from-import or __import__("..."))."""
    out: list[str] = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__" \
                and node.args and isinstance(node.args[0], ast.Constant):
            names = [str(node.args[0].value)]
        out += [n for n in names if n == HOST or n.startswith(HOST + ".")]
    return out


def offenders(folder: Path) -> list[str]:
    return ["%s: %s" % (p.relative_to(ROOT), m) for p in sorted(folder.rglob("*.py"))
            if "__pycache__" not in p.parts for m in host_imports(p.read_text(encoding="utf-8"))]


def test_no_file_under_firmware_imports_the_host_package() -> None:
    assert (FIRMWARE / "main.py").is_file()
    assert offenders(FIRMWARE) == []


def test_the_two_runtime_tests_import_nothing_from_the_host_package() -> None:
    # tools/mpy/run.mjs gives MicroPython the device package alone
    for folder in ("tests/rules", "tests/device"):
        assert offenders(ROOT / folder) == []


def test_the_scan_catches_every_form_of_import() -> None:
    src = ("import cardtable_host\nfrom cardtable_host.sim import board\n"
           "def f():\n    import cardtable_host.board.link as l\n    __import__('cardtable_host.sim.pty')\n"
           "from cardtable.sim import pn532_emu\nimport cardtable_hostile\n")
    assert host_imports(src) == ["cardtable_host", "cardtable_host.sim", "cardtable_host.board.link",
                                 "cardtable_host.sim.pty"]


def test_the_simulated_hardware_never_goes_to_a_board() -> None:
    sys.path.insert(0, str(ROOT / "tools" / "firmware"))
    try:
        from boardfiles import board_files
    finally:
        sys.path.pop(0)
    package = FIRMWARE / "lib" / "cardtable"
    sim = sorted(p.name for p in (package / "sim").glob("*.py"))
    assert {"__init__.py", "pn532_emu.py", "busfault.py"} <= set(sim)
    shipped = [p.relative_to(package).as_posix() for p in board_files(package)]
    assert "hw_sim.py" not in shipped and not [p for p in shipped if p.startswith("sim/")]
