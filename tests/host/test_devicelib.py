"""An installed cardtable's virtual board gets the device package from the user's cache folder:
compiled with mpy-cross (or copied as .py) once, under the hash of the package's contents."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cardtable_host.sim import devicelib

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the device package (as site-packages holds it) and an empty cache folder."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    pkg = tmp_path / "site" / "cardtable"
    shutil.copytree(REPO / "firmware" / "lib" / "cardtable", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    (pkg / "__pycache__").mkdir()
    (pkg / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"host bytecode")
    return pkg


def test_the_package_is_compiled_into_the_cache_once(package: Path, tmp_path: Path) -> None:
    lib = devicelib.device_lib(True, package)
    assert lib.is_relative_to(tmp_path / "cache" / "cardtable" / "device")
    sources = sorted(p.relative_to(package.parent).with_suffix(".mpy").as_posix()
                     for p in package.rglob("*.py") if "__pycache__" not in p.parts)
    assert sorted(p.relative_to(lib).as_posix() for p in lib.rglob("*") if p.is_file()) == sources
    assert (lib / "cardtable" / "sim" / "pn532_emu.mpy").read_bytes()[:1] == b"M"  # an .mpy file
    stamp = (lib / "cardtable" / "referee.mpy").stat().st_mtime_ns
    assert devicelib.device_lib(True, package) == lib
    assert (lib / "cardtable" / "referee.mpy").stat().st_mtime_ns == stamp  # not made again
    assert [p.name for p in lib.parents[1].iterdir()] == [lib.parent.name]  # no leftovers


def test_a_changed_package_gets_its_own_build(package: Path) -> None:
    first = devicelib.device_lib(True, package)
    (package / "version.py").write_text((package / "version.py").read_text() + "\n# changed\n")
    assert devicelib.device_lib(True, package) != first


def test_the_sources_way_copies_the_python_files(package: Path) -> None:
    lib = devicelib.device_lib(False, package)
    assert (lib / "cardtable" / "referee.py").read_text() == (package / "referee.py").read_text()
    assert not list(lib.rglob("*.mpy")) and not list(lib.rglob("__pycache__"))


def test_a_module_mpy_cross_refuses_is_named(package: Path, tmp_path: Path) -> None:
    (package / "broken.py").write_text("def f(:\n")
    with pytest.raises(devicelib.DeviceLibError, match="cardtable/broken.py"):
        devicelib.device_lib(True, package)
    assert [p.name for p in (tmp_path / "cache" / "cardtable" / "device").iterdir()] == []  # nothing half-made
