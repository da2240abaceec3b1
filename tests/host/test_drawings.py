"""`cardtable draw`: committed hardware docs match firmware/boards/; generation is repeatable."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cardtable.table import geomcheck
from cardtable_host.draw import drawings
from cardtable_host.errors import CardtableError, UsageError

BOARDS = drawings.BOARDS_DIR
HARDWARE = drawings.HARDWARE_DIR
SVG = "{http://www.w3.org/2000/svg}"


def _readme() -> str:
    return (HARDWARE / "README.md").read_text(encoding="utf-8")


def test_committed_drawings_are_up_to_date(capsys: pytest.CaptureFixture[str]) -> None:
    try:
        drawings.draw(check=True)
    except CardtableError as e:
        pytest.fail("stale hardware docs, run `cardtable draw`:\n%s%s" % (capsys.readouterr().out, e))


def test_generation_is_deterministic() -> None:
    first = drawings.generate(BOARDS, _readme())
    second = drawings.generate(BOARDS, _readme())
    assert first == second
    assert "pico-i2c-4seat/layout.svg" in first
    assert "pico-nerts-6/layout-nerts.svg" in first
    assert "README.md" in first


@pytest.fixture()
def copy(tmp_path: Path) -> tuple[Path, Path]:
    boards = tmp_path / "boards"
    hw = tmp_path / "hardware"
    shutil.copytree(BOARDS, boards)
    shutil.copytree(HARDWARE, hw)
    return boards, hw


def _edit(path: Path, change) -> None:
    cfg = json.loads(path.read_text(encoding="utf-8"))
    change(cfg)
    path.write_text(json.dumps(cfg, indent=1), encoding="utf-8")


def test_check_names_the_stale_files_and_draw_fixes_them(
        copy: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    boards, hw = copy
    assert drawings.draw(boards, hw, check=True) == 0
    capsys.readouterr()

    def move_kitty(cfg):
        cfg["zones"]["c"]["at"] = [450, 455]
    _edit(boards / "pico-spi-4seat.json", move_kitty)
    with pytest.raises(CardtableError, match=r"generated file\(s\) out of date: run `cardtable draw`") as stale:
        drawings.draw(boards, hw, check=True)
    assert stale.value.status == 1
    out = capsys.readouterr().out
    assert "stale: %s" % (hw / "pico-spi-4seat" / "layout.svg").as_posix() in out
    assert "stale: %s" % (hw / "pico-spi-4seat" / "wiring.md").as_posix() in out
    assert "pico-i2c-4seat" not in out  # other boards are untouched
    assert drawings.draw(boards, hw) == 0
    assert "450, 455" in (hw / "pico-spi-4seat" / "wiring.md").read_text(encoding="utf-8")
    assert drawings.draw(boards, hw, check=True) == 0


def test_check_catches_a_hand_edit_and_a_removed_layout(
        copy: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    boards, hw = copy
    wiring = hw / "pico-i2c-2seat" / "wiring.md"
    wiring.write_text(wiring.read_text(encoding="utf-8").replace("GP22", "GP21"), encoding="utf-8")

    def drop_fairies(cfg):
        del cfg["layouts"]["fairies"]
    _edit(boards / "pico-i2c-2seat.json", drop_fairies)
    with pytest.raises(CardtableError, match=r"generated file\(s\) out of date: run `cardtable draw`") as stale:
        drawings.draw(boards, hw, check=True)
    assert stale.value.status == 1
    out = capsys.readouterr().out
    assert "stale: %s" % wiring.as_posix() in out
    assert "orphan: %s" % (hw / "pico-i2c-2seat" / "layout-fairies.svg").as_posix() in out
    assert drawings.draw(boards, hw) == 0
    assert not (hw / "pico-i2c-2seat" / "layout-fairies.svg").exists()
    assert "GP22" in wiring.read_text(encoding="utf-8")


def test_an_invalid_board_is_refused_with_the_validator_message(copy: tuple[Path, Path]) -> None:
    boards, hw = copy

    def clash(cfg):
        cfg["zones"]["s1"]["reader"] = cfg["zones"]["s0"]["reader"]
    _edit(boards / "pico-i2c-4seat.json", clash)
    with pytest.raises(UsageError) as refused:
        drawings.draw(boards, hw)
    assert ("pico-i2c-4seat.json: zones 's0' and 's1' share reader channel"
            " mux 0x70 ch 0 on i2c0") in str(refused.value)


def test_svgs_are_well_formed_and_label_every_zone_and_role() -> None:
    files = drawings.generate(BOARDS, None)
    for board in drawings.load_boards(BOARDS):
        root = ET.fromstring(files["%s/layout.svg" % board.name])
        assert root.tag == SVG + "svg"
        texts = {t.text for t in root.iter(SVG + "text")}
        for zone in board.raw["zones"]:
            assert zone in texts, (board.name, zone)
        for name, lay in board.board.layouts.items():
            root = ET.fromstring(files["%s/layout-%s.svg" % (board.name, name)])
            texts = {t.text for t in root.iter(SVG + "text")}
            for role, seat in lay.roles.values():
                assert (role if seat is None else "%s %d" % (role, seat)) in texts


def test_wiring_lists_every_pin_of_the_board_file() -> None:
    files = drawings.generate(BOARDS, None)
    for board in drawings.load_boards(BOARDS):
        md = files["%s/wiring.md" % board.name]
        b = board.board
        pins = [b.led_pin] + list(b.buttons.values())
        pins += [p for bus in b.buses.values() for k, p in bus.items()
                 if k in ("sda", "scl", "sck", "mosi", "miso", "tx", "rx")]
        pins += [r[3] for r in b.readers if r[3] is not None]
        for gp in pins:
            assert "| GP%d | %d |" % (gp, drawings.HEADER_PIN[gp]) in md, (board.name, gp)
        for zone, reader in b.zone_reader.items():
            assert "| %d | %s | %s |" % (reader, zone, b.readers[reader][0]) in md


def test_readme_bom_counts_come_from_the_boards() -> None:
    boards = drawings.load_boards(BOARDS)
    readme = drawings.generate(BOARDS, _readme())["README.md"]
    row = [ln for ln in readme.splitlines() if ln.startswith("| PN532 NFC reader module |")]
    assert len(row) == 1
    cells = [c.strip() for c in row[0].strip("|").split("|")]
    assert cells[2:] == [str(len(d.board.readers)) for d in boards]
    assert "<!-- END GENERATED power -->" in readme
    with pytest.raises(ValueError, match="block markers"):
        drawings.fill_readme("# no markers\n", {"bom": "x"})


def test_bom_has_every_part_the_wiring_needs() -> None:
    files = drawings.generate(BOARDS, _readme())
    readme = files["README.md"]
    bom = readme.split("<!-- BEGIN GENERATED bom")[1].split("<!-- END GENERATED bom")[0]
    rows = {ln.split("|")[1].strip(): [c.strip() for c in ln.strip("|").split("|")]
            for ln in bom.splitlines() if ln.startswith("| ")}
    # columns: part, part number, pico-i2c-2seat, pico-i2c-4seat, pico-nerts-6, pico-spi-4seat
    assert rows["Resistor 2.2 kohm, I2C channel pull-up"][2:] == ["14", "20", "24", ""]
    assert rows["Resistor 10 kohm, chip-select pull-up"][2:] == ["", "", "", "5"]
    assert rows["Resistor 33 ohm, in series with SCK"][2:] == ["", "", "", "1"]
    assert rows["Capacitor 100 nF, at each bare WS2812B"][2:] == ["7", "10", "18", "5"]
    assert rows["Capacitor 10 nF, encoder filter"][2:] == ["2", "", "", ""]
    assert rows["Reader cable, Cat5e U/UTP"][2:] == ["7", "10", "12", "5"]
    assert rows["RJ45 jack (8P8C), one at each end of a reader's cable"][2:] == ["14", "20", "24", "10"]
    assert rows["of which Adafruit 364 (IRQ or RSTPDN wired: 3.3 V levels)"][2:] == ["", "4", "6", ""]  # the 4-seat board's seat pads
    # Each cable's pairs come from its reader's signals: the Nerts foundations carry IRQ.
    nerts = files["pico-nerts-6/wiring.md"]
    assert ("| 0 (f0), 1 (f1), 2 (f2), 3 (f3), 4 (f4), 5 (f5) | I2C | 5 | 8 of 8 | orange: 2 SCL,"
            " 1 GND; green: 6 SDA, 3 GND; blue: 4 5V, 5 GND; brown: 8 IRQ, 7 GND |") in nerts
    assert "| I2C | 4 | 6 of 8 |" in nerts
    assert "| SPI | 6 | 8 of 8 | orange: 2 SCK, 1 GND;" in files["pico-spi-4seat/wiring.md"]
    md = files["pico-i2c-4seat/wiring.md"]
    assert "1OE (pin 1) to GND; unused gates: A and OE to GND" in md
    assert "5 V and return fed to both ends of the chain" in md
    assert ("| GP3 | 5 | mux RESET of i2c0 (active low, driven high) | RESET of TCA9548A"
            " 0x70, 0x71 |") in md
    # the trunk: 400 mm and three pins (Pico, two muxes); the channel: 500 mm and two pins
    assert "| 6 | t1 | i2c0 | 0x71 ch 1 | 5 kohm | 2.2 kohm | 900 | 62 | 60 | 224 |" in md


def test_the_layout_places_the_pico_and_the_muxes() -> None:
    files = drawings.generate(BOARDS, None)
    for board in drawings.load_boards(BOARDS):
        root = ET.fromstring(files["%s/layout.svg" % board.name])
        texts = [t.text for t in root.iter(SVG + "text")]
        assert "Pico" in texts, board.name
        for bus, addr in drawings.muxes(board):
            assert "0x%02x" % addr in texts, (board.name, bus, addr)
        lines = list(root.iter(SVG + "line"))
        assert len(lines) == len(drawings.muxes(board)), board.name  # the trunks
        cables = list(root.iter(SVG + "polyline"))
        assert len(cables) == len(board.board.readers), board.name
        # Each cable as routed in the board file: it passes over no other pad's outline.
        boxes = {zn: geomcheck.outline(z) for zn, z in board.raw["zones"].items()}
        for zn, ri in board.board.zone_reader.items():
            pts = geomcheck.route(board.raw, ri)
            drawn = [tuple(int(v) for v in p.split(",")) for p in
                     cables[sorted(board.board.zone_reader).index(zn)].get("points", "").split()]
            assert drawn == [tuple(p) for p in pts], (board.name, zn)
            for k in range(1, len(pts)):
                for other, box in boxes.items():
                    if other != zn:
                        assert not geomcheck.crosses(pts[k - 1], pts[k], box), (board.name, zn, other)


def test_power_budgets_150_ma_a_field_and_fuses_each_branch() -> None:
    boards = {d.name: d for d in drawings.load_boards(BOARDS)}
    nerts = drawings.power(boards["pico-nerts-6"])
    # Seven fields on (six foundations waiting on IRQ, one polled) at 150 mA, five idle at 40.
    assert (nerts.readers, nerts.readers_all_on) == (7 * 150 + 5 * 40, 12 * 150)
    assert nerts.worst == 2393 and nerts.worst_all_on == 2943 and nerts.supply_a == 4
    files = drawings.generate(BOARDS, _readme())
    md = files["pico-nerts-6/wiring.md"]
    assert "| Polyfuse on the readers' 5 V branch, 1.60 A hold | Littelfuse RXEF / Bourns MF-R | 1 |" \
        " readers as scanned: 1250 mA |" in md, md
    assert "| Polyfuse on the LEDs' 5 V branch, 1.35 A hold |" in md
    assert "The supply is sized for every field on at once, LEDs full white: 2943 mA, with 25 %" \
        " headroom: 4 A." in md
    assert drawings.polyfuse_ma(390) == 500 and drawings.polyfuse_ma(1250) == 1600


def test_titles_and_pin_maps_say_what_the_board_has() -> None:
    words = {"five": 5, "seven": 7, "ten": 10, "twelve": 12}
    files = drawings.generate(BOARDS, None)
    for d in drawings.load_boards(BOARDS):
        said = [words[w] for w in d.board.title.replace(":", " ").split() if w in words]
        assert said == [len(d.board.readers)], (d.name, d.board.title)
        md = files["%s/wiring.md" % d.name]
        row = [ln for ln in md.splitlines() if ln.startswith("| 3V3(OUT) |")][0]
        assert ("TCA9548A" in row) == bool(drawings.muxes(d)), (d.name, row)
    spi = files["pico-spi-4seat/wiring.md"]
    assert "| 3V3(OUT) | 36 | 3.3 V out | the chip-select pull-ups only |" in spi
