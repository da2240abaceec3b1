"""The whole table when its wiring misbehaves: a reader that holds SDA low mid-byte is clocked
free and reads again; one latched up is cut off, reported on the link, and the table reads on;
where the bus has a shared RSTPDN line, one latched up comes back after its pulse, unreported;
a board's wiring warnings are said at start. (Its own file: one table configuration per
MicroPython process keeps the test heap like the Pico's.)"""
import json

from support import stepped

from simtable import BOARDS, Table, collect, loading, room_for_board, use_board
from emutable import EXTRA, emulated, idle, lay


@stepped
def test_a_reader_holding_sda_mid_byte_is_freed_and_reads_a_card_again():
    extra = tuple([m for m in EXTRA if m != "cardtable.table.remote"])
    t, emu = yield from emulated("pico-i2c-2seat", "nexus", "cardtable.sim.busfault", extra)
    if emu is None:  # fake readers: no bus to hold
        return
    t.hal.emus[t.board.zone_reader["s1"]].hold_sda = 6
    yield from idle(t, 30)
    assert t.hal.readers[0].i2c.freed == 1
    assert [m for m in t.kinds("fault") if m["kind"] == "reader"] == []
    yield from lay(t, "s1", "AS")  # the reader that held the bus reads again


@stepped
def test_a_latched_reader_is_cut_off_reported_and_the_others_read_on():
    extra = tuple([m for m in EXTRA if m != "cardtable.table.remote"])  # (no tag command here)
    t, emu = yield from emulated("pico-i2c-2seat", "nexus", "cardtable.sim.busfault", extra)
    if emu is None:  # fake readers (the emulator does not fit beside the .py package)
        t.hal.kill("s1")
    else:
        t.hal.emus[t.board.zone_reader["s1"]].hold_sda = -1
    yield from idle(t, 90)  # (the zone the game waits on is polled every other step)
    faults = [m for m in t.kinds("fault") if m["kind"] == "reader"]
    assert [m["zone"] for m in faults] == ["s1"], faults
    if emu is not None:
        assert ("i2c0 was held low while mux 0x70 ch 1 was selected and stayed low after 9 clocks:"
                " cut it off (mux reset)") in faults[0]["msg"], faults
        assert t.hal.fields_on() == 0
    yield from lay(t, "s0", "AS")  # a reader on the same bus still reads
    yield from lay(t, "c", "KH")


@stepped
def test_a_latched_reader_comes_back_after_the_shared_rstpdn_pulse_unreported():
    yield from room_for_board()
    from cardtable.table import config

    with open(BOARDS + "/pico-i2c-2seat.json") as f:
        cfg = json.load(f)
    cfg["buses"]["i2c0"].update({"rst": 0, "rst_mv": 5000})  # one RSTPDN line to all seven
    use_board("pico-i2c-2seat+rst", config.validate(cfg))
    cfg = None
    collect()
    yield
    extra = tuple([m for m in EXTRA if m != "cardtable.table.remote"])
    t, emu = yield from emulated("pico-i2c-2seat+rst", "nexus", "cardtable.sim.busfault", extra)
    if emu is None:  # fake readers: no bus to hold
        return
    t.hal.emus[t.board.zone_reader["s1"]].hold_sda = -1  # latched: clocks and mux reset fail
    yield from idle(t, 90)
    guard = t.hal.readers[0].i2c
    assert guard.rstpdn == 1 and [e.resets for e in t.hal.emus] == [2] * 7, guard.rstpdn
    assert [m for m in t.kinds("fault") if m["kind"] == "reader"] == [], t.kinds("fault")
    yield from lay(t, "s1", "AS")  # the reader that latched up reads again
    yield from lay(t, "c", "KH")  # and so does one reset with it (configured again)


@stepped
def test_wiring_warnings_are_said_at_start():
    yield from room_for_board()
    from cardtable.table import config

    with open(BOARDS + "/pico-i2c-2seat.json") as f:
        cfg = json.load(f)
    del cfg["buses"]["i2c0"]["reset"]
    b = config.validate(cfg)
    cfg = None
    collect()
    yield
    yield from loading()
    t = Table(b, "nexus")
    t.run(1)
    warned = [m for m in t.kinds("fault") if m["kind"] == "board"]
    assert len(warned) == 1 and warned[0]["msg"].startswith(
        "buses.i2c0: no \"reset\": the muxes' RESET is not on a GPIO"), warned
