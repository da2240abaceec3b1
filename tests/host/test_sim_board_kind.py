"""`cardtable sim --board`: a board config name, or `rp2` / `rp2:NAME` for the emulated RP2040."""
from __future__ import annotations

from hostsupport import cardtable

from cardtable_host.sim.choice import board_for, board_kind


def test_rp2_selects_the_emulated_chip_with_the_games_board_or_a_named_one() -> None:
    assert board_kind("rp2", "nerts") == ("rp2", "pico-nerts-6")
    assert board_kind("rp2:pico-spi-4seat", "fortyfives") == ("rp2", "pico-spi-4seat")
    assert board_kind("pico-i2c-2seat", "nexus") == ("wasm", "pico-i2c-2seat")
    assert board_kind(None, "fortyfives") == ("wasm", "pico-i2c-4seat")


def test_an_unknown_board_after_rp2_is_a_clear_error() -> None:
    r = cardtable("sim", "fortyfives", "--board", "rp2:no-such-board")
    assert r.returncode == 2
    assert "no-such-board" in r.stderr and "Traceback" not in r.stderr


def test_each_game_is_simulated_on_the_smallest_shipped_board_that_plays_it() -> None:
    assert [board_for(g) for g in ("nexus", "california-jacks", "fairies", "fortyfives",
                                   "nonesuch", "nerts")] == [
        "pico-i2c-2seat", "pico-i2c-2seat", "pico-i2c-2seat", "pico-i2c-4seat",
        "pico-i2c-4seat", "pico-nerts-6"]


def test_sim_takes_a_game_alias_and_suggests_one_for_a_near_miss() -> None:
    r = cardtable("sim", "44s")
    assert r.returncode == 2 and "did you mean fortyfives?" in r.stderr and "Traceback" not in r.stderr
    r = cardtable("sim", "45s", "--board", "rp2:no-such-board")  # resolved to fortyfives first
    assert r.returncode == 2 and "no-such-board" in r.stderr and "unknown game" not in r.stderr
