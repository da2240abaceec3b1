"""The table's wiring on simulated hardware (hw_sim with emulated PN532s): a reader that holds
SDA low is cut off and the bus freed while the others keep reading; RSTPDN is pulsed at boot;
IRQ pins replace status reads. The same code runs on the Pico (hw_rp2 gives it real pins)."""
import json

from support import raises, stepped

from cardtable.drivers.pn532 import NoAnswer
from cardtable.hw_sim import SimClock, emulated
from cardtable.table import config
from cardtable.table.scanner import DOWN, PLACED, UP, Scanner
from cardtable.sim import busfault as pn532_emu  # the emulator, with bus faults
from cardtable.sim.busfault import Tag

UID_AS = b"\x04\x11\x22\x33\x44\x55\x66"


def _boards_dir():
    try:
        return __file__.replace("\\", "/").rsplit("/", 1)[0] + "/../../firmware/boards"
    except NameError:
        return "firmware/boards"


def board_dict(name):
    with open("%s/%s.json" % (_boards_dir(), name)) as f:
        return json.load(f)


def scanning(cfg, stuck=()):
    """(scanner, readers, emulators, clock) on emulated hardware for board config dict cfg,
    built over two test steps (validation makes a lot of garbage). stuck: (reader, clocks)
    pairs: each of those PN532s holds SDA when the scanner starts (a reset cut it off
    `clocks` bits before the end of the byte it was sending)."""
    b = config.validate(cfg)
    yield
    clock = SimClock()
    readers, emus, pins = emulated(b, pn532_emu, clock)
    for i, n in stuck:
        emus[i].hold_sda, emus[i].holding = n, True
    sc = Scanner(readers, clock)
    sc.start()
    yield
    return sc, readers, emus, clock


def run(sc, clock, n):
    """n scanner steps, one reader each (as on the board), 10 ms apart, a test step per 3 of
    them (the WebAssembly port collects garbage between test steps); returns the events."""
    out = []
    for i in range(n):
        clock.advance(10)
        sc.step(1)
        ev = sc.next_event()
        while ev is not None:
            out.append(ev)
            ev = sc.next_event()
        if i % 3 == 2:
            yield
    return out


@stepped
def test_a_reader_holding_sda_mid_byte_is_clocked_free_through_its_channel_and_reads_again():
    sc, readers, emus, clock = yield from scanning(board_dict("pico-i2c-4seat"))
    guard = readers[0].i2c
    fake = guard.i2c
    assert readers[8].i2c is guard and len(guard.muxes) == 2
    assert fake.stops == 0 and guard.freed == 0  # a healthy bus: the boot sweep cleared nothing
    emus[3].hold_sda = 5  # its next transaction is cut off five bits before a byte's end
    events = yield from run(sc, clock, 9 * 2)
    yield
    # The nine clocks went through mux 0x70's channel 3 (still selected: no RESET first).
    assert guard.freed == 1 and fake.resets == 0 and fake.stops == 1, (guard.freed, fake.resets)
    assert not emus[3].holding and sc.failures[3] == 1 and not sc.down[3]
    emus[0].place(Tag(UID_AS, text="AS"))
    emus[3].place(Tag(b"\x04\x11\x22\x33\x44\x55\x68", text="QD"))
    emus[7].place(Tag(b"\x04\x11\x22\x33\x44\x55\x67", text="KH"))
    events += yield from run(sc, clock, 9 * 4)
    yield
    assert [e for e in events if e[0] == DOWN] == [], events
    placed = sorted((e[1], e[3]) for e in events if e[0] == PLACED)
    assert placed == [(0, "AS"), (3, "QD"), (7, "KH")], events
    for i in range(9):
        if i != 3:
            assert sc.failures[i] == 0 and not sc.down[i], (i, sc.status(i))


@stepped
def test_a_latched_reader_is_cut_off_by_the_mux_reset_the_others_read_and_it_comes_back():
    sc, readers, emus, clock = yield from scanning(board_dict("pico-i2c-4seat"))
    guard = readers[0].i2c
    fake = guard.i2c
    emus[3].hold_sda = -1  # latched up: no clock frees it
    events = yield from run(sc, clock, 9 * 4)
    yield
    emus[0].place(Tag(UID_AS, text="AS"))
    emus[7].place(Tag(b"\x04\x11\x22\x33\x44\x55\x67", text="KH"))
    events += yield from run(sc, clock, 9 * 4)
    yield
    down = [e for e in events if e[0] == DOWN]
    assert [e[1] for e in down] == [3], events
    assert ("i2c0 was held low while mux 0x70 ch 3 was selected and stayed low after 9 clocks:"
            " cut it off (mux reset)") in down[0][3], down
    placed = sorted((e[1], e[3]) for e in events if e[0] == PLACED)
    assert placed == [(0, "AS"), (7, "KH")], events
    for i in range(9):
        if i != 3:
            assert sc.failures[i] == 0 and not sc.down[i], (i, sc.status(i))
    # Each clear tried the clocks first, then the RESET.
    assert guard.freed >= 3 and fake.resets == guard.freed and fake.stops == guard.freed
    assert readers[3].counts[0] >= 3 and emus[3].rf is False
    emus[3].hold_sda = emus[3].holding = 0  # power-cycled: it lets go
    emus[3].place(Tag(b"\x04\x11\x22\x33\x44\x55\x68", text="QD"))
    clock.advance(sc.retry_ms)
    events = yield from run(sc, clock, 9 * 4)
    assert [e[1] for e in events if e[0] == UP] == [3], events
    assert [(e[1], e[3]) for e in events if e[0] == PLACED] == [(3, "QD")], events


def shared_rst(name="pico-i2c-2seat"):
    """A board whose i2c0 has one RSTPDN line (GP0, 5 V: Elechouse V3s) to all its readers."""
    cfg = board_dict(name)
    cfg["buses"]["i2c0"].update({"rst": 0, "rst_mv": 5000})
    return cfg


@stepped
def test_a_latched_reader_is_freed_by_the_shared_rstpdn_and_every_reader_reads_again():
    sc, readers, emus, clock = yield from scanning(shared_rst())
    guard = readers[0].i2c
    fake = guard.i2c
    assert [e.resets for e in emus] == [1] * 7 and guard.rstpdn == 0  # the boot pulse
    emus[3].hold_sda = -1  # latched up: neither the clocks nor the mux reset free it
    events = yield from run(sc, clock, 9 * 4)
    yield
    # Cut off by the mux reset once; held again at its next poll, the bus's RSTPDN is pulsed.
    assert fake.resets == 2 and guard.rstpdn == 1, (fake.resets, guard.rstpdn)
    assert [e.resets for e in emus] == [2] * 7 and not emus[3].holding
    assert sc.failures[3] == 2 and [e for e in events if e[0] == DOWN] == [], events
    # Every PN532 came back unconfigured: its driver sent SAMConfiguration again.
    assert all(e.lowvbat is False for e in emus), [e.lowvbat for e in emus]
    emus[3].place(Tag(b"\x04\x11\x22\x33\x44\x55\x68", text="QD"))
    emus[0].place(Tag(UID_AS, text="AS"))
    emus[5].place(Tag(b"\x04\x11\x22\x33\x44\x55\x67", text="KH"))
    events += yield from run(sc, clock, 7 * 4)
    yield
    placed = sorted((e[1], e[3]) for e in events if e[0] == PLACED)
    assert placed == [(0, "AS"), (3, "QD"), (5, "KH")], events
    assert [e for e in events if e[0] == DOWN] == [], events
    for i in range(7):
        if i != 3:
            assert sc.failures[i] == 0 and not sc.down[i], (i, sc.status(i))


@stepped
def test_a_reader_left_holding_sda_by_a_reset_is_freed_before_the_first_poll():
    # pico-i2c-4seat: reader 6 is on mux 0x71 (channel 1).
    sc, readers, emus, clock = yield from scanning(board_dict("pico-i2c-4seat"), stuck=((6, 3),))
    guard = readers[0].i2c
    fake = guard.i2c
    assert not emus[6].holding and guard.freed == 1 and fake.resets == 0 and fake.stops == 1
    assert not any(sc.failures) and sc.fw[6] is not None and not sc.down[6]
    emus[6].place(Tag(UID_AS, text="AS"))
    events = yield from run(sc, clock, 9 * 3)
    assert [(e[1], e[3]) for e in events if e[0] == PLACED] == [(6, "AS")], events
    assert [e for e in events if e[0] == DOWN] == [], events


@stepped
def test_nine_clocks_free_a_reader_stuck_mid_byte_where_no_reset_is_wired():
    cfg = board_dict("pico-i2c-2seat")
    del cfg["buses"]["i2c0"]["reset"]
    sc, readers, emus, clock = yield from scanning(cfg)
    fake = readers[0].i2c.i2c
    emus[2].hold_sda = 9  # its next byte is clocked out by the ninth clock
    events = yield from run(sc, clock, 6 * 2)
    assert readers[0].i2c.freed == 1 and fake.resets == 0 and fake.stops == 1
    assert not emus[2].holding and sc.failures[2] == 1 and not sc.down[2]
    emus[2].place(Tag(UID_AS, text="AS"))
    events += yield from run(sc, clock, 6 * 3)
    assert [(e[1], e[3]) for e in events if e[0] == PLACED] == [(2, "AS")], events
    assert [e for e in events if e[0] == DOWN] == []


def test_a_bus_that_stays_low_after_the_clear_says_so():
    b = config.validate(board_dict("pico-i2c-2seat"))
    readers, emus, pins = emulated(b, pn532_emu, SimClock())
    stuck = pn532_emu.PN532Emu()  # a device on the trunk: no mux RESET can cut it off
    stuck.hold_sda, stuck.holding = -1, True
    readers[0].i2c.i2c.attach(stuck, addr=0x30)
    e = raises(NoAnswer, readers[0].poll)
    assert "i2c0 is held low and stays low after a bus clear: check the wiring to the muxes" \
        in str(e), str(e)
    assert readers[0].i2c.freed == 1 and e.freed


@stepped
def test_a_bus_no_rstpdn_frees_is_pulsed_less_and_less_often():
    b = config.validate(shared_rst())
    yield
    readers, emus, pins = emulated(b, pn532_emu, SimClock())
    yield
    guard = readers[0].i2c
    stuck = pn532_emu.PN532Emu()  # on the trunk, no RSTPDN of its own: nothing frees it
    stuck.hold_sda, stuck.holding = -1, True
    guard.i2c.attach(stuck, addr=0x30)
    pulsed = []
    for k in range(14):
        e = raises(NoAnswer, readers[0].poll)
        pulsed.append(guard.rstpdn)
        if k % 3 == 2:
            yield
    # The second clear in a row pulses it; each pulse doubles the clears the next waits for.
    assert pulsed == [0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3], pulsed
    assert guard.freed == 14 and emus[0].resets == 1 + 3
    assert "i2c0 is held low and stays low after a bus clear and an RSTPDN pulse: check the" \
        " wiring to the muxes" in str(e), str(e)


def test_rstpdn_is_pulsed_at_boot_and_irq_replaces_status_reads():
    cfg = board_dict("pico-i2c-2seat")
    cfg["readers"][0].update({"rst": 0, "irq": 1, "module": "adafruit-364"})
    cfg["readers"][1].update({"rst": 2, "module": "adafruit-364"})
    b = config.validate(cfg)
    clock = SimClock()
    readers, emus, pins = emulated(b, pn532_emu, clock)
    assert [e.resets for e in emus] == [1, 1, 0, 0, 0, 0, 0]  # six zones and the deal pad
    assert clock.now == 410 and pins[0].value() == 1 and pins[2].value() == 1
    assert readers[0].irq is not None and readers[1].irq is None
    bus = readers[0].i2c.i2c
    for r in readers[:2]:
        r.init()
    counts = []
    for r in readers[:2]:
        r.poll()  # (selects its mux channel)
        t0 = bus.transactions
        r.poll()
        counts.append(bus.transactions - t0)
    # reader 1 reads the status byte before the ACK and before the answer; reader 0 looks at
    # its IRQ pin instead
    assert counts[1] - counts[0] == 2, counts
