"""The rp2 board never runs a stale image: build/firmware/cardtable-pico.uf2 is used only when its
build hash is this checkout's (tools/firmware/build.py's hash of the frozen files); after a
change to the tree it refuses with one line naming `make firmware`. No chip is started here.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardtable_host import cli
from cardtable_host.board import uf2
from cardtable_host.board.imageinstall import build_tool
from cardtable_host.sim import rp2board
from cardtable_host.sim.board import BoardError

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def current() -> Path:
    """The checkout's image, skipping unless it is built and current."""
    tool = build_tool()
    try:
        want = tool.build_hash()
    except tool.BuildError as e:
        pytest.skip("no MicroPython sources to hash: %s" % e)
    got = uf2.image_version(tool.IMAGE) if tool.IMAGE.exists() else None
    if got is None or got[1] != want:
        pytest.skip("build/firmware/cardtable-pico.uf2 is not this checkout's: run `make firmware`")
    return Path(tool.IMAGE)


def edit_a_frozen_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if firmware/lib/cardtable/rng.py had been edited since the image was built (the
    checkout itself is not touched: the build tool reads a different digest for it)."""
    tool = build_tool()
    real = tool.sha256_file
    rng = REPO / "firmware" / "lib" / "cardtable" / "rng.py"
    monkeypatch.setattr(tool, "sha256_file", lambda p: "edited" if Path(p) == rng else real(p))


def test_the_current_image_is_taken(current: Path) -> None:
    assert rp2board.default_image() == current
    assert rp2board.stale_image(current) is None
    b = rp2board.Rp2Board(None)
    assert b.image == current and b.check_build


def test_a_changed_tree_is_refused_in_one_line_naming_make_firmware(current: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    built = uf2.image_version(current)
    assert built is not None
    edit_a_frozen_file(monkeypatch)
    want = build_tool().build_hash()
    assert want != built[1]
    why = rp2board.stale_image(current)
    assert why == ("build/firmware/cardtable-pico.uf2 is build %s, not this checkout's build %s: "
                   "run `make firmware`" % (built[1], want))
    b = rp2board.Rp2Board(None)
    with pytest.raises(BoardError) as e:
        b.start()
    assert str(e.value) == why
    assert not b.alive  # no chip was started, nothing installed
    assert b._flash_tmp is None


def test_sim_on_the_rp2_board_says_so_and_exits_1(current: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    edit_a_frozen_file(monkeypatch)
    assert cli.main(["sim", "nexus", "--board", "rp2", "--json"]) == 1
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and err.startswith("cardtable sim: build/firmware/cardtable-pico.uf2 is build ")
    assert "run `make firmware`" in err
    # --json: the same error as the one object on stdout, as every command gives it
    assert json.loads(out) == {"ok": False, "error": err.strip()[len("cardtable sim: "):], "status": 1}


def test_an_image_named_on_purpose_is_not_checked(tmp_path: Path, current: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # bench and tests name their image (a stock one, an old build to compare): taken as given
    edit_a_frozen_file(monkeypatch)
    b = rp2board.Rp2Board(None, image=current)
    assert not b.check_build
    stock = rp2board.rp2_dir() / rp2board.STOCK_UF2
    if stock.exists():
        assert rp2board.stale_image(stock) is None  # no cardtable build in it: nothing to compare


def test_one_variable_names_the_shared_folder_for_the_build_and_the_rp2_board(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDTABLE_SHARED", str(tmp_path))
    assert rp2board.rp2_dir() == tmp_path / "rp2"
    assert build_tool().tarball() == tmp_path / "rp2" / "micropython-1.27.0-rp2-src.tar.xz"
    if not (REPO / "node_modules" / "rp2040js").is_dir():
        pytest.skip("rp2040js is not installed")
    why = rp2board.missing()
    assert why == "%s is missing (set CARDTABLE_SHARED to the folder holding rp2/)" % (
        tmp_path / "rp2" / rp2board.BOOTROM)
