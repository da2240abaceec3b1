"""Board configs: shipped boards validate; each mistake a maker can make gets a clear error."""
import os

from support import raises, stepped

from cardtable.table import config
from cardtable.table.config import ConfigError

SHIPPED = ("pico-i2c-2seat", "pico-i2c-4seat", "pico-spi-4seat", "pico-nerts-6")


def _boards_dir():
    tried = []
    try:
        tried.append(__file__.replace("\\", "/").rsplit("/", 1)[0] + "/../../firmware/boards")
    except NameError:
        pass
    tried += ["/boards", "boards", "firmware/boards"]  # the board's layout, then the repo's
    for d in tried:
        try:
            if [n for n in os.listdir(d) if n.endswith(".json")]:
                return d
        except OSError:
            pass
    raise AssertionError("no board files found (tried %s)" % ", ".join(tried))


def base():
    """A small valid four-seat board for Forty-Fives; each test breaks one thing."""
    return {
        "format": 1,
        "board": "test-4seat",
        "table": {"w": 900, "h": 900},
        "seats": [{"name": "S", "at": [450, 890]}, {"name": "W", "at": [10, 450]},
                  {"name": "N", "at": [450, 10]}, {"name": "E", "at": [890, 450]}],
        "buses": {"i2c0": {"kind": "i2c", "id": 0, "sda": 4, "scl": 5, "reset": 3,
                           "pullup": 10000, "cable_mm": 300}},
        "readers": [{"bus": "i2c0", "mux": "0x70", "ch": c, "pullup": 2200, "cable_mm": 300}
                    for c in range(5)],
        "zones": {
            "s0": {"reader": 0, "led": 0, "at": [450, 640]},
            "s1": {"reader": 1, "led": 1, "at": [260, 450]},
            "s2": {"reader": 2, "led": 2, "at": [450, 260]},
            "s3": {"reader": 3, "led": 3, "at": [640, 450]},
            "c": {"reader": 4, "led": 4, "at": [450, 450]},
        },
        "leds": {"pin": 22, "count": 5},
        "buttons": {"k0": {"pin": 6, "at": [40, 860]}, "k1": {"pin": 7, "at": [80, 860]}},
        "piezo": {"pin": 15},
        "layouts": {
            "fortyfives": {
                "seats": [0, 1, 2, 3],
                "zones": {"s0": "play 0", "s1": "play 1", "s2": "play 2", "s3": "play 3",
                          "c": "kitty"},
                "buttons": {"k0": "bid 15", "k1": "pass"},
            },
        },
    }


def problems(cfg):
    """The ConfigError message lines for cfg (fails if cfg is accepted)."""
    e = raises(ConfigError, config.validate, cfg, "test-4seat.json")
    assert str(e).startswith("test-4seat.json: "), str(e)
    return str(e)


@stepped
def test_all_shipped_boards_validate():
    from cardtable.table import configcheck

    d = _boards_dir()
    names = config.board_names(d)
    for name in SHIPPED:
        assert name in names, (name, names)
    for name in names:
        yield
        b = config.load_board(name, d)
        assert b.name == name
        assert b.layouts, name
        assert len(b.reader_zone) == len(b.readers)
        for lay in b.layouts.values():
            for role, kind in configcheck.facts(lay.game)[1]:
                seats = range(len(lay.seats)) if kind == configcheck.SEAT else (None,)
                for s in seats:
                    assert lay.zone(role, s) is not None, (name, lay.name, role, s)


def test_shipped_fortyfives_table_maps_zones_leds_and_buttons():
    b = config.load_board("pico-i2c-4seat", _boards_dir())
    lay = b.layout("fortyfives")
    assert lay.zone("kitty") == "c"
    assert lay.zone("play", 2) == "s2"
    assert b.zone_led["s2"] == 2
    assert b.reader_label(b.zone_reader["s2"]) == "mux 0x70 ch 2 on i2c0"
    assert b.reader_label(b.zone_reader["t3"]) == "mux 0x71 ch 3 on i2c0"
    assert lay.reader_roles[b.zone_reader["c"]] == ("kitty", None)
    assert lay.button("k0") == ("bid", 15)
    assert lay.button("k4") == ("pass", None)
    assert lay.button("k7") == ("trump", "H")
    assert lay.host_verbs == ()
    assert b.layout("nexus").role("s2") == ("play", 1)  # two players face each other
    assert b.layout("nexus").role("s1") is None


@stepped
def test_shipped_spi_and_nerts_boards():
    d = _boards_dir()
    spi = config.load_board("pico-spi-4seat", d)
    assert spi.buses["spi0"]["kind"] == "spi"
    assert spi.reader_label(0) == "CS GP17 on spi0"
    spi = None
    yield  # (one board's garbage at a time)
    nerts = config.load_board("pico-nerts-6", d)
    lay = nerts.layout("nerts")
    assert len(lay.zones("foundation")) == 6
    assert lay.button("n3") == ("nerts", 3)
    assert nerts.button_led["n3"] == 15
    # the same mux address on two buses is two different readers
    assert nerts.reader_label(0) == "mux 0x70 ch 0 on i2c0"
    assert nerts.reader_label(6) == "mux 0x70 ch 0 on i2c1"


def test_base_board_is_valid_and_host_types_the_missing_inputs():
    b = config.validate(base(), "test-4seat.json")
    lay = b.layout("fortyfives")
    assert lay.host_verbs == ("bid", "trump")  # bid 20..30 and the trump suit have no buttons
    cfg = base()
    del cfg["layouts"]["fortyfives"]["buttons"]
    assert config.validate(cfg).layout("fortyfives").host_verbs == ("bid", "pass", "trump")


def test_two_zones_on_one_reader_channel():
    cfg = base()
    cfg["zones"]["s1"]["reader"] = 3
    msg = problems(cfg)
    assert "zones 's1' and 's3' share reader channel mux 0x70 ch 3 on i2c0" in msg, msg


def test_two_readers_on_one_mux_channel():
    cfg = base()
    cfg["readers"][4]["ch"] = 1
    msg = problems(cfg)
    assert "readers[1] and readers[4] share reader channel mux 0x70 ch 1 on i2c0" in msg, msg


def test_a_pin_used_twice():
    cfg = base()
    cfg["buttons"]["k1"]["pin"] = 22
    msg = problems(cfg)
    assert "GP22 is used twice: by leds.pin and by buttons.k1.pin" in msg, msg


def test_spi_chip_select_on_a_bus_pin():
    cfg = base()
    cfg["buses"] = {"spi0": {"kind": "spi", "id": 0, "sck": 18, "mosi": 19, "miso": 16}}
    cfg["readers"] = [{"bus": "spi0", "cs": cs} for cs in (17, 20, 21, 26, 18)]
    msg = problems(cfg)
    assert "GP18 is used twice: by buses.spi0.sck and by readers[4].cs" in msg, msg


def test_pin_that_cannot_carry_the_bus():
    cfg = base()
    cfg["buses"]["i2c0"]["sda"] = 6
    msg = problems(cfg)
    assert ("buses.i2c0.sda: GP6 cannot be I2C0 SDA"
            " (I2C0 SDA pins: GP0 GP4 GP8 GP12 GP16 GP20 GP28)") in msg, msg
    cfg = base()
    cfg["buses"] = {"spi1": {"kind": "spi", "id": 1, "sck": 10, "mosi": 11, "miso": 16}}
    cfg["readers"] = [{"bus": "spi1", "cs": cs} for cs in (17, 20, 21, 26, 27)]
    msg = problems(cfg)
    assert "buses.spi1.miso: GP16 cannot be SPI1 MISO (SPI1 MISO pins: GP8 GP12 GP28)" in msg, msg


def test_pin_not_on_the_header():
    cfg = base()
    cfg["piezo"]["pin"] = 25
    msg = problems(cfg)
    assert "piezo.pin: GP25 is not on the header (it drives the on-board LED)" in msg, msg
    cfg["piezo"]["pin"] = 30
    assert "piezo.pin: expected a Pico GP number 0..29, got 30" in problems(cfg)


def test_led_index_out_of_range():
    cfg = base()
    cfg["zones"]["c"]["led"] = 5
    msg = problems(cfg)
    assert "zones.c.led: LED 5 is out of range: leds.count is 5 (LEDs 0..4)" in msg, msg


def test_two_zones_on_one_led():
    cfg = base()
    cfg["zones"]["s3"]["led"] = 0
    msg = problems(cfg)
    assert "zone 's0' and zone 's3' share LED 0" in msg, msg


def test_layout_missing_a_zone_its_rules_need():
    cfg = base()
    del cfg["layouts"]["fortyfives"]["zones"]["c"]
    msg = problems(cfg)
    assert ("layouts.fortyfives: no zone plays 'kitty'"
            " (fortyfives needs play per seat, kitty)") in msg, msg
    cfg = base()
    del cfg["layouts"]["fortyfives"]["zones"]["s2"]
    assert "layouts.fortyfives: no zone plays 'play 2'" in problems(cfg)


@stepped
def test_layout_roles_and_seats_are_checked():
    cfg = base()
    z = cfg["layouts"]["fortyfives"]["zones"]
    z["c"] = "up"
    msg = problems(cfg)
    assert ("layouts.fortyfives.zones.c: fortyfives has no role 'up'"
            " (roles: deal, kitty, play, tap)") in msg, msg
    yield
    cfg = base()
    cfg["layouts"]["fortyfives"]["zones"]["s3"] = "play"
    assert "layouts.fortyfives.zones.s3: 'play' needs a seat 0..3" in problems(cfg)
    yield
    cfg = base()
    cfg["layouts"]["fortyfives"]["zones"]["s3"] = "play 0"
    assert "layouts.fortyfives: 'play 0' is played by both zones 's0' and 's3'" in problems(cfg)
    yield
    cfg = base()
    cfg["layouts"]["fortyfives"]["seats"] = [0, 1, 2]
    assert "layouts.fortyfives.seats: fortyfives is for 4 players" in problems(cfg)
    yield
    cfg = base()
    cfg["layouts"]["fortyfives"]["zones"]["x9"] = "tap 0"
    assert "layouts.fortyfives.zones.x9: no zone 'x9' on this board" in problems(cfg)
    yield
    cfg = base()
    cfg["layouts"]["poker"] = cfg["layouts"]["fortyfives"]
    assert "layouts.poker: unknown game \"poker\"" in problems(cfg)


def test_button_meanings_are_checked():
    cfg = base()
    cfg["layouts"]["fortyfives"]["buttons"]["k1"] = "bid 35"
    msg = problems(cfg)
    assert "layouts.fortyfives.buttons.k1: fortyfives has no button meaning \"bid 35\"" in msg
    cfg = base()
    cfg["layouts"]["fortyfives"]["buttons"]["k1"] = "bid 15"
    assert "buttons 'k0' and 'k1' both mean 'bid 15'" in problems(cfg)
    cfg = base()
    cfg["layouts"]["fortyfives"]["buttons"]["k9"] = "pass"
    assert "layouts.fortyfives.buttons.k9: no button 'k9' on this board" in problems(cfg)


def test_readers_too_close_for_one_field_at_a_time():
    cfg = base()
    cfg["zones"]["c"]["at"] = [450, 580]
    msg = problems(cfg)
    assert ("zones 'c' and 's0' are 60 mm apart centre to centre; keep readers at least 100 mm"
            " apart against cross-talk") in msg, msg


def test_irq_lines_on_pads_too_close_are_refused_even_when_polled():
    # the seat to play's armed pad keeps its field on beside the polled one (issue 35)
    cfg = base()
    for i, gp in ((0, 20), (4, 21)):
        cfg["readers"][i].update({"irq": gp, "module": "adafruit-364"})
    config.validate(cfg, "test-4seat.json")  # 190 mm apart: enough
    cfg["zones"]["c"]["at"] = [450, 500]
    msg = problems(cfg)
    assert ("zones 'c' and 's0' are 140 mm apart centre to centre; readers that wait with their"
            " fields on at once need 150 mm") in msg, msg
    cfg["readers"][4].pop("irq")  # only one pad waits: no pair to keep apart
    config.validate(cfg, "test-4seat.json")


def test_direct_reader_beside_a_mux_and_unused_reader():
    cfg = base()
    cfg["readers"].append({"bus": "i2c0"})
    msg = problems(cfg)
    assert "readers[5]: sits on i2c0 at 0x24 with no mux" in msg, msg
    assert "readers[5]: no zone uses this reader" in msg, msg


def test_every_problem_is_reported_at_once():
    cfg = base()
    cfg["zones"]["c"]["led"] = 9
    cfg["buttons"]["k1"]["pin"] = 6
    cfg["readers"][0]["mux"] = "0x80"
    msg = problems(cfg)
    lines = msg.split("\n")
    assert len(lines) >= 3, msg
    assert "readers[0].mux: expected a TCA9548A address \"0x70\"..\"0x77\", got \"0x80\"" in msg
    assert "GP6 is used twice" in msg and "LED 9 is out of range" in msg


def test_typos_and_missing_keys_are_named():
    cfg = base()
    cfg["zones"]["s0"]["ledd"] = 1
    msg = problems(cfg)
    assert "zones.s0: unknown key 'ledd'" in msg, msg
    cfg = base()
    del cfg["zones"]["s0"]["reader"]
    assert "zones.s0: missing 'reader'" in problems(cfg)
    cfg = base()
    cfg["format"] = 2
    assert "format: expected 1, got 2" in problems(cfg)


def test_load_names_the_file_and_checks_its_name():
    e = raises(ConfigError, config.load, "no-such-dir/missing-board.json")
    assert str(e).startswith("missing-board.json: cannot read the file"), str(e)
    cfg = base()
    e = raises(ConfigError, config.validate, cfg, "other.json", "other")
    assert "other.json: board: 'test-4seat' does not match the file name 'other'" in str(e)
    e = raises(ConfigError, config.load_board("pico-i2c-2seat", _boards_dir()).layout, "fortyfives")
    assert "no layout 'fortyfives' (has: california-jacks, fairies, nexus)" in str(e), str(e)


def test_pin_functions_follow_the_rp2040_pin_mux():
    from cardtable.table import configcheck

    assert configcheck.pins_for("i2c", 1, "scl") == [3, 7, 11, 15, 19, 27]
    assert configcheck.pins_for("spi", 0, "sck") == [2, 6, 18, 22]
    assert configcheck.pins_for("uart", 0, "tx") == [0, 12, 16, 28]
    assert configcheck.parse_role("bid some") == ("bid", "some")
    assert configcheck.parse_role("nerts 4") == ("nerts", 4)
    assert configcheck.parse_role("kitty") == ("kitty", None)


@stepped
def test_the_checker_leaves_the_heap_once_a_board_is_loaded():
    import sys

    import cardtable.table

    config.unload_check()
    b = config.load_board("pico-i2c-4seat", _boards_dir())
    for mod in (config.CHECK, config.BUSCHECK):
        assert mod not in sys.modules, mod
    assert not hasattr(cardtable.table, "configcheck") and not hasattr(cardtable.table, "buscheck")
    assert b.layout("fortyfives").zone("kitty") == "c"  # the board works without it
    yield
    e = raises(ConfigError, config.validate, {"format": 1}, "x.json")
    assert "x.json: board: expected a short name" in str(e), str(e)
    assert config.CHECK not in sys.modules


# -- the wiring's electrics and the table's geometry (issue 17) -------------------------------


def shipped(name):
    """The shipped board file `name` as a dict, to break one thing in it."""
    import json

    with open("%s/%s.json" % (_boards_dir(), name)) as f:
        return json.load(f)


def refused(cfg, name):
    """The ConfigError message for cfg, a changed copy of the shipped board `name`."""
    e = raises(ConfigError, config.validate, cfg, name + ".json", name)
    return str(e)


@stepped
def test_shipped_boards_need_no_warnings_and_run_i2c_at_400_khz():
    d = _boards_dir()
    for name in config.board_names(d):
        yield
        b = config.load_board(name, d)
        assert b.warnings == (), (name, b.warnings)
        for bus in b.buses.values():
            if bus["kind"] == "i2c":
                assert bus["freq"] == 400000 and 0 < bus["rise_ns"] <= 300, (name, bus)
                assert bus.get("reset") is not None, name


@stepped
def test_a_mux_channel_without_pull_ups_is_refused():
    cfg = shipped("pico-i2c-4seat")
    del cfg["readers"][3]["pullup"]
    msg = refused(cfg, "pico-i2c-4seat")
    assert "readers[3]: no pull-ups on mux 0x70 ch 3: a TCA9548A channel passes" in msg, msg
    assert "the Adafruit 364 has none" in msg and "\"pullup\": 2200" in msg
    cfg = msg = None
    yield  # a board checked per step, as a Pico checks one per boot
    cfg = base()
    cfg["readers"] = [{"bus": "i2c0", "pullup": 0, "cable_mm": 200}]
    cfg["buses"]["i2c0"]["pullup"] = 0
    del cfg["buses"]["i2c0"]["reset"]
    assert "readers[0]: no pull-ups on i2c0" in problems(cfg)


def test_rise_time_uses_um10204_with_integer_maths():
    from cardtable.table import buscheck

    assert buscheck.rise_ns(10000, 118) == 999  # the issue's ~1 us: 10 kohm on ~118 pF
    assert buscheck.rise_ns(4700, 100) == 398
    assert buscheck.parallel(10000, 2200) == 1803 and buscheck.parallel(0, 2200) == 2200
    segs = buscheck.sides({"pullup": 10000, "cable_mm": 300},
                          [{"bus": "i2c0", "mux": "0x70", "ch": 0, "pullup": 10000,
                            "cable_mm": 600}], "i2c0")
    # 0.9 m at 80 pF/m + four pins at 10 pF: the trunk has 0.3 m, the Pico's pin and the mux's
    # trunk pin; the channel 0.6 m, the mux's channel pin and the PN532's.
    assert segs == [(0, 10000, 44, 10000, 68, 900)], segs
    # Two stages (the pass gate at its lowest 1.6 V): joined, 5 kohm on 112 pF from 0.99 to
    # 1.6 V (0.3066 RC); then the channel alone, 10 kohm on 68 pF, from 1.6 to 2.31 V (0.5407
    # RC), slower than the trunk's 10 kohm on 44 pF: 172 + 368 ns. One stage said 474.
    assert buscheck.rise2_ns(10000, 44, 10000, 68) == 539
    assert buscheck.rise_ns(5000, 112) == 474
    assert buscheck.rise2_ns(10000, 44, 10000, 68, buscheck.PASS_MV_TYP) == 516
    assert buscheck.rise2_ns(0, 44, 10000, 68) == -1  # no trunk pull-up: never rises past V_pass


@stepped
def test_weak_pull_ups_on_a_long_bus_refuse_400_khz_and_pick_100():
    cfg = shipped("pico-i2c-4seat")
    for r in cfg["readers"]:
        r["pullup"] = 10000  # what the issue found: ~10 kohm and ~1 m
    msg = refused(cfg, "pico-i2c-4seat")
    yield
    assert "buses.i2c0.freq: 400000 Hz allows a rise time of 300 ns (UM10204), but mux 0x71 ch 1" \
        " rises in " in msg, msg
    assert "set \"freq\": 100000 or fit stronger pull-ups" in msg
    del cfg["buses"]["i2c0"]["freq"]
    b = config.validate(cfg, "pico-i2c-4seat.json", "pico-i2c-4seat")
    yield
    assert b.buses["i2c0"]["freq"] == 100000 and 300 < b.buses["i2c0"]["rise_ns"] <= 1000


@stepped
def test_a_bus_too_slow_even_for_100_khz_or_too_strong_is_refused():
    cfg = base()
    cfg["buses"]["i2c0"]["pullup"] = 47000
    for r in cfg["readers"]:
        r["pullup"] = 47000
    msg = problems(cfg)
    assert "buses.i2c0: too slow even for 100 kHz (1000 ns allowed): mux 0x70 ch 0 rises in" in msg
    yield
    cfg["buses"]["i2c0"]["pullup"] = 0  # above the pass gate's voltage nothing pulls the trunk up
    msg = problems(cfg)
    assert "buses.i2c0: no pull-ups on the trunk of i2c0: a TCA9548A channel passes only up to" \
        " about 1.6-2.8 V" in msg, msg
    yield
    cfg = base()
    for r in cfg["readers"]:
        r["pullup"] = 1000
    msg = problems(cfg)
    assert "readers[0]: 909 ohm of pull-ups (trunk and channel together) is more than a chip" \
        " can pull low: at least 967 ohm" in msg, msg


def test_over_a_metre_of_wire_and_no_mux_reset_are_warned_about():
    cfg = base()
    cfg["readers"][2]["cable_mm"] = 800
    del cfg["buses"]["i2c0"]["reset"]
    b = config.validate(cfg)
    assert len(b.warnings) == 2, b.warnings
    assert b.warnings[0].startswith("buses.i2c0: no \"reset\": the muxes' RESET is not on a GPIO")
    assert b.warnings[1].startswith("readers[2]: 1100 mm of wire from the Pico to mux 0x70 ch 2:")
    assert b.buses["i2c0"].get("reset") is None
    cfg = base()
    cfg["buses"]["i2c0"]["reset"] = 4  # the SDA pin
    assert "GP4 is used twice: by buses.i2c0.sda and by buses.i2c0.reset" in problems(cfg)


def test_an_spi_build_needs_six_cores_chip_select_pull_ups_and_an_sck_resistor():
    cfg = shipped("pico-spi-4seat")
    cfg["buses"]["spi0"]["cable_cores"] = 4
    del cfg["buses"]["spi0"]["cs_pullup"]
    msg = refused(cfg, "pico-spi-4seat")
    assert "buses.spi0.cable_cores: 4-core cable cannot carry SPI to a reader: it needs 6" in msg
    assert "buses.spi0: no chip-select pull-ups: RP2040 pins come out of reset pulled down" in msg
    cfg = shipped("pico-spi-4seat")
    del cfg["buses"]["spi0"]["sck_series"]
    b = config.validate(cfg, "pico-spi-4seat.json", "pico-spi-4seat")
    assert b.warnings == ("buses.spi0: no series resistor on SCK: a clock line to several"
                          " readers rings, and a PN532 may count an edge twice; fit 33 ohm at"
                          " the Pico's SCK pin and write \"sck_series\": 33",), b.warnings


@stepped
def test_a_readers_cable_has_a_core_for_each_of_its_signals():
    from cardtable.table import buscheck

    cfg = shipped("pico-nerts-6")
    assert buscheck.signals("i2c", cfg["readers"][0]) == ["SCL", "SDA", "5V", "IRQ"]
    assert buscheck.signals("spi", {"rst": 3}) == ["SCK", "MISO", "MOSI", "5V", "CS", "RSTPDN"]
    config.validate(cfg, "pico-nerts-6.json", "pico-nerts-6")  # Cat5e by default: 8 cores
    yield
    cfg["buses"]["i2c0"]["cable_cores"] = 4  # the old BOM's 4-core cable
    msg = refused(cfg, "pico-nerts-6")
    yield
    assert "buses.i2c0.cable_cores: 4-core cable cannot carry I2C to a reader: it needs 5 for" \
        " readers[0] (SCL, SDA, 5V, IRQ, GND); use Cat5e" in msg, msg
    cfg["buses"]["i2c0"]["cable_cores"] = 5
    config.validate(cfg, "pico-nerts-6.json", "pico-nerts-6")
    yield
    cfg["readers"][1]["rst"] = 28
    assert "it needs 6 for readers[1] (SCL, SDA, 5V, IRQ, RSTPDN, GND)" in refused(cfg, "pico-nerts-6")


@stepped
def test_reader_levels_are_checked_against_the_picos_pins():
    cfg = shipped("pico-nerts-6")
    del cfg["readers"][2]["module"]  # an Elechouse V3: its IRQ level is not documented
    msg = refused(cfg, "pico-nerts-6")
    yield
    assert "readers[2].irq: the Elechouse V3's IRQ level is undocumented (which side of its" \
        " level shifter it sits on): before wiring it to GP18, measure its idle level" in msg, msg
    cfg["readers"][2]["irq_mv"] = 5000  # measured: it idles at 5 V
    msg = refused(cfg, "pico-nerts-6")
    yield
    assert "readers[2].irq: 5000 mV on GP18: the RP2040 is not 5 V tolerant" in msg, msg
    cfg["readers"][2]["irq_mv"] = 3300
    config.validate(cfg, "pico-nerts-6.json", "pico-nerts-6")
    yield
    del cfg["buses"]["i2c1"]["rst"], cfg["buses"]["i2c1"]["rst_mv"]  # (its own line instead)
    cfg["readers"][7]["rst"] = 28  # an Elechouse V3's RSTPDN, from a GPIO
    msg = refused(cfg, "pico-nerts-6")
    yield
    assert "readers[7].rst: the Elechouse V3's RSTPDN reaches the PN532 as 2201 mV when GP28" \
        " drives it with 3300" in msg, msg
    cfg["readers"][7]["rst_mv"] = 5000  # through the 74AHCT125
    config.validate(cfg, "pico-nerts-6.json", "pico-nerts-6")
    yield
    cfg["readers"][7]["module"] = "pn532-red"
    assert "readers[7].module: unknown reader module 'pn532-red' (known: adafruit-364," \
        " elechouse-v3)" in refused(cfg, "pico-nerts-6")


@stepped
def test_a_buses_shared_rstpdn_line_is_checked_like_a_readers_own():
    cfg = shipped("pico-nerts-6")  # i2c1: "rst": 26 at 5 V (the 74AHCT125) to six Elechouse V3s
    b = config.validate(cfg, "pico-nerts-6.json", "pico-nerts-6")
    assert b.buses["i2c1"]["rst"] == 26 and 26 in hal_outputs(b)
    yield
    del cfg["buses"]["i2c1"]["rst_mv"]  # straight from the GPIO: 2.2 V at the PN532
    msg = refused(cfg, "pico-nerts-6")
    yield
    assert msg.count("buses.i2c1.rst:") == 1, msg  # said once for the line, not per reader
    assert "buses.i2c1.rst: the Elechouse V3 (readers[6])'s RSTPDN reaches the PN532 as 2201 mV" \
        " when GP26 drives it with 3300" in msg, msg
    cfg["buses"]["i2c1"]["rst_mv"] = 5000
    cfg["readers"][8]["module"] = "adafruit-364"  # no divider: 5 V on a 3.3 V PN532
    msg = refused(cfg, "pico-nerts-6")
    yield
    assert "buses.i2c1.rst: the Adafruit 364 (readers[8])'s RSTPDN would get 5000 mV from GP26's" \
        " 5000 mV line: above the PN532's 3.3 V supply" in msg, msg
    del cfg["readers"][8]["module"]
    cfg["readers"][7]["rst"] = 27  # its own line as well as the bus's
    msg = refused(cfg, "pico-nerts-6")
    yield
    assert "readers[7].rst: i2c1 has one RSTPDN line for all its readers (buses.i2c1.rst)" in msg
    del cfg["readers"][7]["rst"]
    cfg["buses"]["i2c1"]["rst"] = 13  # the muxes' RESET pin
    assert "GP13 is used twice: by buses.i2c1.reset and by buses.i2c1.rst" in refused(
        cfg, "pico-nerts-6")
    yield
    del cfg["buses"]["i2c1"]["rst"]
    assert "buses.i2c1.rst_mv: no shared RSTPDN line (\"rst\") on i2c1 to drive" in refused(
        cfg, "pico-nerts-6")


def hal_outputs(b):
    from cardtable import hal

    return hal.outputs(b)


@stepped
def test_pads_apart_by_their_outlines_and_clear_of_the_deal_pad():
    cfg = shipped("pico-i2c-4seat")
    cfg["zones"]["t2"]["at"] = [370, 200]  # 100 mm centre to centre from s2, 18 mm outline to outline
    msg = refused(cfg, "pico-i2c-4seat")
    yield
    assert "zones 's2' and 't2' are 18 mm apart outline to outline (antenna to antenna): a card" \
        " on one is read by the other; keep 30 mm between them" in msg, msg
    yield
    cfg = shipped("pico-i2c-4seat")
    cfg["zones"]["d"]["at"] = [700, 600]  # where it was: beside East's play pad
    msg = refused(cfg, "pico-i2c-4seat")
    yield
    assert "zones.s3: 75 mm from the deal pad 'd': the deck held over it and each card dealt" \
        " from it pass over this pad; keep pads 100 mm from a deal pad's outline" in msg, msg


@stepped
def test_reader_cables_go_round_other_antennas_and_are_long_enough():
    cfg = shipped("pico-nerts-6")
    del cfg["readers"][7]["route"]  # straight from the mux: under foundation f1
    msg = refused(cfg, "pico-nerts-6")
    yield
    assert "readers[7]: its cable to zone 'l1' runs under the antenna of zone 'f1' (a field on" \
        " over a cable couples into it); route it round" in msg, msg
    yield
    cfg = shipped("pico-i2c-4seat")
    cfg["buses"]["i2c0"]["muxes"]["0x70"] = [355, 355]  # the trunk from the Pico across the kitty
    msg = refused(cfg, "pico-i2c-4seat")
    assert "buses.i2c0.muxes.0x70: the trunk from the Pico to this mux runs under the antenna of" \
        " zone 'c'" in msg, msg
    yield
    cfg = shipped("pico-nerts-6")
    cfg["readers"][7]["cable_mm"] = 450
    msg = refused(cfg, "pico-nerts-6")
    yield
    assert "readers[7].cable_mm: 450 mm is shorter than its cable's 481 mm route on the drawing" \
        in msg, msg


@stepped
def test_spi_runs_give_their_length_and_cap_the_baud():
    cfg = shipped("pico-spi-4seat")
    del cfg["readers"][2]["cable_mm"]
    msg = refused(cfg, "pico-spi-4seat")
    yield
    assert "readers[2]: missing 'cable_mm': the wire's length in mm from the Pico to the reader" \
        in msg, msg
    yield
    cfg = shipped("pico-spi-4seat")
    cfg["buses"]["spi0"]["baud"] = 5000000
    msg = refused(cfg, "pico-spi-4seat")
    yield
    assert "buses.spi0.baud: 5000000 Hz over 1170 mm of SCK and MOSI in a star (every reader's" \
        " run): at most 1709000 Hz there" in msg, msg
    cfg["buses"]["spi0"]["baud"] = 1700000
    config.validate(cfg, "pico-spi-4seat.json", "pico-spi-4seat")


@stepped
def test_round_tables_keep_parts_on_the_table_and_zones_clear_of_hands():
    cfg = shipped("pico-nerts-6")
    cfg["piezo"]["at"] = [1100, 1150]  # inside the bounding box, off the round table
    cfg["zones"]["l0"]["at"] = [600, 1030]  # a "nerts left" pad where a hand rests
    msg = refused(cfg, "pico-nerts-6")
    assert "piezo.at: [1100, 1150] is off the round table (1200 mm across)" in msg, msg
    assert "zones.l0: its outline is 125 mm from the edge in front of seat South, where a hand" \
        " of tagged cards rests" in msg
    yield
    cfg = shipped("pico-nerts-6")
    cfg["zones"]["l1"]["at"] = [60, 900]
    assert "zones.l1: its outline reaches" in refused(cfg, "pico-nerts-6")


@stepped
def test_tap_pads_stay_clear_of_the_hands_at_a_rectangular_table():
    cfg = shipped("pico-i2c-4seat")
    cfg["zones"]["t0"]["at"] = [640, 770]  # where the pads used to be
    cfg["zones"]["t1"]["at"] = [130, 640]
    msg = refused(cfg, "pico-i2c-4seat")
    assert "zones.t0: its outline is 99 mm from the edge in front of seat South" in msg, msg
    assert "zones.t1: its outline is 99 mm from the edge in front of seat West" in msg
    cfg = msg = None
    yield  # a board checked per step, as a Pico checks one per boot
    cfg = base()
    cfg["seats"] = cfg["seats"][:1]  # one seat, South: only the South edge holds a hand
    cfg["zones"]["s1"]["at"] = [60, 450]
    cfg["layouts"] = {}
    assert "zones.s1" not in problems(cfg)


def test_wire_lengths_cannot_be_shorter_than_the_drawing_shows():
    cfg = shipped("pico-nerts-6")
    cfg["readers"][6]["cable_mm"] = 100
    cfg["buses"]["i2c1"]["cable_mm"] = 20
    msg = refused(cfg, "pico-nerts-6")
    assert "buses.i2c1.cable_mm: 20 mm is shorter than the 80 mm from the Pico to mux 0x70 on" \
        " the drawing" in msg, msg
    assert "readers[6].cable_mm: 100 mm is shorter than its cable's 406 mm route on the drawing" \
        in msg, msg


@stepped
def test_say_is_a_seat_buttons_meaning_of_the_trick_games_only():
    # issue 33: a seat's say button asks the host for its hand and the trick (test_seat_buttons)
    cfg = base()
    cfg["buttons"]["k2"] = {"pin": 8, "at": [120, 860]}
    cfg["layouts"]["fortyfives"]["buttons"]["k2"] = "say 3"
    lay = config.validate(cfg, "test-4seat.json").layout("fortyfives")
    assert lay.button("k2") == ("say", 3)
    assert lay.host_verbs == ("bid", "trump")  # no say typed at the host, button or not
    lay = None
    yield
    del cfg["layouts"]["fortyfives"]["buttons"]["k2"]
    assert config.validate(cfg, "test-4seat.json").layout("fortyfives").host_verbs == ("bid", "trump")
    yield
    cfg["layouts"]["fortyfives"]["buttons"]["k2"] = "say"
    assert "layouts.fortyfives.buttons.k2: 'say' needs a seat 0..3, e.g. \"say 0\"" in problems(cfg)
    yield
    cfg["layouts"]["fortyfives"]["buttons"]["k2"] = "say 4"
    assert "'say' needs a seat 0..3" in problems(cfg)
    yield
    # a game with no hand and trick to say: refused, naming the games that have them
    cfg = base()
    cfg["layouts"] = {"nerts": {"seats": [0, 1, 2, 3], "zones": {"s0": "foundation", "s1": "left 0",
                                                                  "s2": "left 1", "s3": "left 2",
                                                                  "c": "left 3"},
                                "buttons": {"k0": "say 0"}}}
    msg = problems(cfg)
    assert ("layouts.nerts.buttons.k0: nerts has no hand and trick to say: \"say\" is for the trick"
            " games (california-jacks, fortyfives, nexus, nonesuch)") in msg, msg
