"""`cardtable flash` on the rp2 board (an emulated RP2040 booting the frozen image): the build hash
in its hello matches the image's, and files the image would shadow are refused."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostsupport import cardtable

from cardtable_host.board import uf2

rp2board = pytest.importorskip("cardtable_host.sim.rp2board", reason="no rp2 board in this checkout")

REPO = Path(__file__).resolve().parents[2]


def current_image() -> tuple[Path, str]:
    """The built image and its build hash; skips unless it is this checkout's."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("cardtable_fw_build", REPO / "tools" / "firmware" / "build.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    why = rp2board.missing()
    if why:
        pytest.skip("the rp2 board cannot run: %s" % why)
    try:
        want = build.build_hash()
    except build.BuildError as e:
        pytest.skip(str(e))
    got = uf2.image_version(build.IMAGE) if build.IMAGE.exists() else None
    if got is None or got[1] != want:
        pytest.skip("build/firmware/cardtable-pico.uf2 is not this checkout's: run `make firmware`")
    return build.IMAGE, want


def test_flash_on_the_emulated_pico_checks_the_build_in_its_hello(tmp_path: Path) -> None:
    image, bhash = current_image()
    with rp2board.Rp2Board(board="pico-i2c-2seat", flash_dir=tmp_path, game="california-jacks",
                           image=image, speed=0) as b:
        r = cardtable("flash", "--port", b.port, "--json", timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        report = json.loads(r.stdout.strip().splitlines()[-1])
        assert report["platform"] == "rp2" and report["image"]["build"] == bhash
        assert report["hello"]["build"] == bhash and report["hello"]["fw"] == report["image"]["version"]
        assert report["copied"] == [] and report["unchanged"] == len(list((REPO / "firmware" / "boards").glob("*.json")))

        r = cardtable("flash", "--port", b.port, "--mpy", timeout=300)
        assert r.returncode == 2, r.stdout + r.stderr
        assert ("the board runs the cardtable image (build %s): its frozen firmware would shadow copied "
                "files" % bhash) in r.stderr
