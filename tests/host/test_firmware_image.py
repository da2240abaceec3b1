"""The frozen firmware image (`make firmware`): picotool's binary info, its UF2, its build hash."""
from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path

import pytest

from cardtable import version
from cardtable_host.board import uf2

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "firmware" / "lib" / "cardtable"


def _build_tool():
    spec = importlib.util.spec_from_file_location("cardtable_fw_build", REPO / "tools" / "firmware" / "build.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


build = _build_tool()


def _image() -> tuple[Path, str]:
    """The built image and this checkout's build hash; skips when the image is not this checkout's."""
    try:
        want = build.build_hash()
    except build.BuildError as e:
        pytest.skip("no MicroPython sources to hash: %s" % e)
    if not build.IMAGE.exists():
        pytest.skip("the firmware image is not built: run `make firmware`")
    got = uf2.image_version(build.IMAGE)
    if got is None or got[1] != want:
        pytest.skip("build/firmware/cardtable-pico.uf2 is not this checkout's (build %s, the sources "
                    "say %s): run `make firmware`" % (got and got[1], want))
    return build.IMAGE, want


def frozen_names(host_only: bool = False) -> set[str]:
    """Every module of the device package the board imports (with host_only: those it never
    imports, which stay out), as the frozen list names them (cardtable/table/config)."""
    mark = "# host only: never imported on the board"
    names = set()
    for p in PACKAGE.rglob("*.py"):
        if (mark in p.read_text()[:600]) != host_only:
            continue
        rel = p.relative_to(PACKAGE.parent).with_suffix("").as_posix()
        names.add(rel[:-len("/__init__")] if rel.endswith("/__init__") else rel)
    return names


def test_picotool_shows_name_version_build_and_the_frozen_package() -> None:
    image, bhash = _image()
    tool = build.cached_picotool()
    if tool is None:
        pytest.skip("no picotool: `make firmware` builds one")
    out = subprocess.run([str(tool), "info", "-a", str(image)], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    assert re.search(r"^ name:\s+cardtable$", out, re.M), out
    assert re.search(r"^ version:\s+%s build %s$" % (re.escape(version.VERSION), bhash), out, re.M), out
    assert re.search(r"^ build attributes:.*\bcardtable build %s$" % bhash, out, re.M), out
    listed = re.search(r"^ frozen modules:(.*?)^ binary start", out, re.M | re.S)
    assert listed, out
    frozen = {m.strip() for m in listed.group(1).replace("\n", ",").split(",") if m.strip()}
    # all the device package, the boot entry, the build stamp and the port's own modules
    assert frozen_names() <= frozen, sorted(frozen_names() - frozen)
    assert "cardtable/games/words" in frozen_names(host_only=True)
    assert not frozen_names(host_only=True) & frozen  # the words for people stay on the host
    assert {"main", "cardtable/_build", "_boot", "neopixel"} <= frozen


def test_image_carries_the_build_hash_the_hello_will_report() -> None:
    image, bhash = _image()
    assert uf2.image_version(image) == (version.VERSION, bhash)
    gen = (build.GEN / "cardtable" / "_build.py").read_text()
    assert 'BUILD = "%s"' % bhash in gen and 'VERSION = "%s"' % version.VERSION in gen
    # and a stock MicroPython image is no cardtable image
    stock = build.shared_dir() / "rp2" / "RPI_PICO-v1.27.0.uf2"
    if stock.exists():
        assert uf2.image_version(stock) is None


def test_build_hash_follows_every_frozen_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tar_sha = "0" * 64
    before = build.inputs_hash(tar_sha)
    assert build.inputs_hash("1" * 64) != before  # another MicroPython source
    inputs = build.frozen_inputs()
    for must in (build.MANIFEST, REPO / "firmware" / "main.py", PACKAGE / "games" / "nerts.py",
                 PACKAGE / "table" / "controller.py", REPO / "tools" / "firmware" / "build.py",
                 REPO / "tools" / "firmware" / "boardfiles.py"):
        assert must in inputs
    # a changed frozen file changes the hash (read through a copy: the checkout is not touched)
    real = build.sha256_file
    monkeypatch.setattr(build, "sha256_file",
                        lambda p: "x" if p == PACKAGE / "rng.py" else real(p))
    assert build.inputs_hash(tar_sha) != before


def test_source_install_reports_build_source() -> None:
    # the frozen image's cardtable/_build is generated at build time, never in the checkout
    assert not (PACKAGE / "_build.py").exists()
    assert version.BUILD == "source"


def test_missing_toolchain_is_named_with_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        build.tarball_sha()
    except build.BuildError as e:
        pytest.skip(str(e))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # an empty cache: the image must be built
    monkeypatch.setattr(build.shutil, "which",
                        lambda name: None if name.startswith("arm-none-eabi") else "/usr/bin/" + name)
    with pytest.raises(build.BuildError) as err:
        build.build()
    assert err.value.status == 2
    msg = str(err.value)
    assert "missing arm-none-eabi-gcc, arm-none-eabi-g++" in msg
    assert "apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib cmake" in msg
    assert not list(tmp_path.rglob("*.uf2"))


def test_the_cache_keeps_the_newest_images(tmp_path: Path) -> None:
    import os

    for i in range(5):
        p = tmp_path / ("%d.uf2" % i)
        p.write_bytes(b"x")
        os.utime(p, (1000 + i, 1000 + (i * 7) % 5))  # last used: 0, 3, 1, 4, 2 (newest)
    build.prune(tmp_path, keep=2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["2.uf2", "4.uf2"]


def test_the_frozen_manifest_leaves_the_simulated_hardware_out() -> None:
    # what firmware/manifest.py freezes (its package list), and, when the image is built, what
    # picotool says is frozen in it: hw_sim and the PN532 emulator are for the host's tests and
    # the virtual board; a board never imports them
    import sys

    sys.path.insert(0, str(REPO / "tools" / "firmware"))
    try:
        from boardfiles import package_files
    finally:
        sys.path.pop(0)
    listed = package_files(str(PACKAGE))
    assert "hw_sim.py" not in listed and not [p for p in listed if p.startswith("sim/")], listed
    assert "table/controller.py" in listed and "hal.py" in listed  # the list is the package's
    manifest = build.MANIFEST.read_text()
    assert 'package("cardtable", files=package_files("lib/cardtable")' in manifest
    assert "hw_sim" not in manifest
    assert {"cardtable/hw_sim", "cardtable/sim/pn532_emu", "cardtable/sim"} <= frozen_names(host_only=True)
    image, _ = _image()
    tool = build.cached_picotool()
    if tool is None:
        pytest.skip("no picotool: `make firmware` builds one")
    out = subprocess.run([str(tool), "info", "-a", str(image)], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    listed_frozen = re.search(r"^ frozen modules:(.*?)^ binary start", out, re.M | re.S)
    assert listed_frozen, out
    frozen = {m.strip() for m in listed_frozen.group(1).replace("\n", ",").split(",") if m.strip()}
    assert "cardtable/table/controller" in frozen
    assert "cardtable/hw_sim" not in frozen and not [m for m in frozen if m.startswith("cardtable/sim")]
