"""The table's wiring fixes on the rp2 board: the frozen firmware on the emulated RP2040, its pins
watched by host/cardtable_host/sim/rp2 (bus.mjs's pin-level I2C, devices/encoders.mjs's quadrature).

- SPI: every chip select is driven high before the first SPI clock (RP2040 pins leave reset
  pulled down, which would select every PN532 at once).
- I2C: the muxes' RESET is driven high before the first START; a PN532 that holds SDA low
  mid-byte is clocked free through its channel (nine SCL clocks, STOP, no RESET) and reads a
  card again; one latched up is cut off by the RESET after the clocks, reported, and the other
  readers read on; once it lets go it answers again. At start, a PN532 a reset left holding
  SDA is freed before the first poll.
- A read that fails mid-way switches the reader's field off: the PN532 gets RFConfiguration
  off right after, and never are two fields on at once.
- The encoder, bouncing on every contact change, moves the position selector by its detents.
- RSTPDN, wired, is pulsed at start: a PN532 that came up wedged answers afterwards.
- On a bus whose mux RESET is not wired, the bus clear's nine clocks and STOP free a PN532
  cut off in the middle of a byte.
- A PN532 latched up (neither the clocks nor the mux RESET free it) on a bus with one RSTPDN
  line for all its readers (the bus's "rst") lets go at the line's pulse, is configured again
  and reads a card.

About 70 s of wall time on this loaded 2-core machine (two boots, a reset into the REPL); see
each test's comment for its share.
"""
from __future__ import annotations

import subprocess
import sys
import time
from typing import Any, Iterator

import pytest
from hostsupport import need_node

pytest.importorskip("termios")  # ptys are POSIX only

from cardtable_host.board.link import Link  # noqa: E402
from cardtable_host.sim.rp2board import Rp2Board, missing  # noqa: E402

need_node()
_why = missing()
if _why:
    pytest.skip("the rp2 board cannot run here: %s" % _why, allow_module_level=True)

BOOT_S = 240  # boot to the table on a loaded 2-core machine (a fresh flash installs first)
WAIT_S = 120  # for one message from the board


def faults(link: Link, timeout: float, want: str) -> dict[str, Any]:
    """The next fault message whose msg contains want."""
    msg: dict[str, Any] | None = link.wait_for(lambda m: m.get("type") == "fault" and want in m.get("msg", ""), timeout)
    assert msg is not None, "no fault %r from the board within %g s" % (want, timeout)
    return msg


def test_every_chip_select_is_high_before_the_first_spi_clock() -> None:
    # ~15 s: one boot of the SPI board to its table.
    b = Rp2Board("pico-spi-4seat", layout="nonesuch", speed=0)
    b.start(timeout=BOOT_S)
    try:
        first = b.bus_stats()["spi0"]["first"]
    finally:
        b.close()
    assert first is not None, "the table never used its SPI bus"
    cs = first["pins"]  # GP -> 'high' | 'low' | 'off' (not driven: pulled down by the pad)
    assert sorted(cs) == ["17", "20", "21", "26", "27"]
    # The first byte goes to one reader: its chip select low, every other one driven high.
    assert sorted(cs.values()) == ["high", "high", "high", "high", "low"], cs


@pytest.fixture(scope="module")
def board() -> Iterator[Rp2Board]:
    b = Rp2Board("pico-i2c-2seat", layout="fairies", speed=0)
    b.start(timeout=BOOT_S)
    try:
        yield b
    finally:
        b.close()


def test_the_mux_reset_is_high_before_the_first_start(board: Rp2Board) -> None:
    bus = board.bus_stats()["i2c0"]
    assert bus["first"]["pins"] == {"6": "high"}  # the TCA9548A's RESET on GP6
    assert bus["pins"]["reset"] == 0 and bus["pins"]["lost"] == 0  # a healthy bus: no clears


def test_a_reader_holding_sda_mid_byte_is_clocked_free_and_reads_a_card_again(board: Rp2Board) -> None:
    # ~15 s. Zone s1's PN532 (mux 0x70 channel 1) grabs SDA in its next transaction, cut off
    # five bits before the end of a byte; the muxes' RESET is wired (GP6) but must not be used.
    with Link(board.port, timeout=30) as link:
        link.hello(timeout=60)
        before = len(board.bus_stats()["i2c0"]["log"])
        board.hold_sda("s1", 5)
        board.place("s1", "ZZ", wait=False)  # the reader that held the bus reads the tag
        msg = faults(link, WAIT_S, "zone s1: 'ZZ' is no fairies card")
        assert msg["kind"] == "tag", msg
        board.lift("s1", wait=False)
    log = [kind for kind, _ in board.bus_stats()["i2c0"]["log"][before:]]
    grab = log.index("grab")
    clear = log.index("clock", grab)
    stop = log.index("stop", clear)
    # The clocks reached it through its channel, still selected: no RESET, STOP at the end.
    assert "reset" not in log and "lost" in log[grab:clear], log
    assert log[clear:stop] == ["clock"] * 10, log  # nine clocks, and SCL rising for the STOP


def test_a_latched_reader_is_cut_off_reported_and_the_others_read_on(board: Rp2Board) -> None:
    # ~30 s (most of it the down reader's 2 s retry, emulated). Zone s1's PN532 (mux 0x70
    # channel 1) grabs SDA in its next transaction and keeps it, whatever the clocks.
    with Link(board.port, timeout=30) as link:
        link.hello(timeout=60)
        before = len(board.bus_stats()["i2c0"]["log"])
        board.hold_sda("s1")
        msg = faults(link, WAIT_S, "zone s1:")
        assert msg["kind"] == "reader" and msg["zone"] == "s1"
        assert ("i2c0 was held low while mux 0x70 ch 1 was selected and stayed low after 9 clocks:"
                " cut it off (mux reset)" in msg["msg"]), msg
        log = [kind for kind, _ in board.bus_stats()["i2c0"]["log"][before:]]
        # On the pins: STARTs lost to the held SDA; nine clocks and the STOP's SCL rise through
        # the channel (SDA stays low: no STOP); then RESET low cuts the channel off, so the
        # trunk's SDA rises while SCL is high: a STOP.
        first = log.index("grab")
        clear = log.index("clock", first)
        reset = log.index("reset", clear)
        assert "lost" in log[first:clear]
        assert log[clear:clear + 10] == ["clock"] * 10 and "stop" not in log[clear:reset], log
        assert log[reset + 1] == "stop", log
        # A reader behind the same mux reads on: the tag's text reaches the table.
        board.place("s0", "ZZ", wait=False)
        msg = faults(link, WAIT_S, "zone s0: 'ZZ' is no fairies card")
        assert msg["kind"] == "tag"
        board.lift("s0", wait=False)
        # Once it lets go, the stuck reader answers again at its next retry.
        board.hold_sda("s1", 0)
        faults(link, WAIT_S, "zone s1: reader 1 answers again")


def test_a_read_that_fails_switches_the_field_off(board: Rp2Board) -> None:
    # ~5 s. Zone c's PN532 answers every tag read with its error frame, its field on.
    readers = board.readers
    assert readers is not None
    with Link(board.port, timeout=30) as link:
        link.hello(timeout=60)
        readers.fields(restart=True)  # (a PN532 that grabbed SDA mid-poll could not switch off)
        readers.fail_reads("c", -1)
        board.place("c", "ZY", wait=False)  # a tag the table has not read (ZZ it names by its UID)
        msg = faults(link, WAIT_S, "zone c: reader 2")
        assert "stopped answering" in msg["msg"], msg
        fields = readers.fields()
        failed = fields["failed_reads"][2]
        assert failed >= 3  # the scanner's fail_limit
        # Each failed read was followed at once by RFConfiguration, field off.
        assert fields["rf_off_after_fail"][2] == failed, fields
        assert 2 not in fields["on"]
        assert fields["max"] == 1 and fields["over"] == [], fields  # one field at a time
    readers.fail_reads("c", 0)
    board.lift("c", wait=False)


ENCODER = """
import time
from machine import Pin
from cardtable.hw_rp2 import Rp2Inputs
from cardtable.table.inputs import move_at
inputs = Rp2Inputs({}, {"sel": (10, 11)})
class Game:
    nexus = tuple(range(8))
class Ctl:
    at = 0
    game = Game()
ctl = Ctl()
steps = []
done = Pin(12, Pin.IN, Pin.PULL_UP)  # the board's "ok" button: the host has finished turning
def read(ms):
    t0 = time.ticks_ms()
    while time.ticks_diff(time.ticks_ms(), t0) < ms:
        ev = inputs.next()
        if ev:
            steps.append(ev[2])
            move_at(ctl, ev[2])
        time.sleep_ms(1)
        if not done.value():
            return
print("ready")
read(20000)
done = Pin(13, Pin.IN, Pin.PULL_UP)  # (not wired: reads high)
read(20)  # the last detent settles 3 ms after its last edge
print("steps", sum(steps), "at", ctl.at, "skipped", inputs.decoders[0].skipped)
"""


def test_the_encoder_moves_the_selector_by_its_detents_through_contact_bounce(board: Rp2Board) -> None:
    # ~20 s: the firmware's Rp2Inputs (hard IRQs on both pins, drivers.encoder) at the REPL of
    # a chip just powered on (no watchdog running yet), reading the knob until the "ok" button
    # says the turning is over.
    assert board.reset(repl=True, timeout=BOOT_S) == "repl"
    proc = subprocess.Popen([sys.executable, "-m", "mpremote", "connect", board.port, "exec", ENCODER],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        line = ""
        deadline = time.monotonic() + WAIT_S
        while "ready" not in line and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
        assert "ready" in line, line
        # 2 ms of chatter on every contact change (the PEC11R's worst), a nudge that springs
        # back, five detents forward, two back: the selector ends at 3.
        board.turn("sel", 0, bounce_ms=2, half=True)
        board.turn("sel", 5, bounce_ms=2)
        board.turn("sel", -2, bounce_ms=2)
        board.hold("ok", True)
        out, _ = proc.communicate(timeout=WAIT_S)
        board.hold("ok", False)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "steps 3 at 3 skipped 0" in out, out


RSTPDN = {0: "s0", 1: "s1", 2: "c", 3: "k", 7: "t0", 8: "t1", 9: "d"}  # GP -> zone, free GPIOs
WIRED = """
import json
from cardtable import hal, hw_rp2
from cardtable.table import config
with open("boards/pico-i2c-2seat.json") as f:
    cfg = json.load(f)
for r, gp in zip(cfg["readers"], %r):
    r.update({"rst": gp, "module": "adafruit-364"})  # (its RSTPDN straight from 3.3 V)
readers = hw_rp2.readers(config.validate(cfg), hal.Clock())
print("firmware", readers[3].init()[0])
"""


def test_rstpdn_is_pulsed_before_the_readers_start(board: Rp2Board) -> None:
    # ~10 s: hw_rp2.readers at the REPL for the two-seat board with every reader's RSTPDN
    # wired (no shipped board wires them), zone k's PN532 wedged until its RSTPDN is pulsed.
    if board.mode != "repl":
        assert board.reset(repl=True, timeout=BOOT_S) == "repl"
    readers = board.readers
    assert readers is not None
    board.wire_rst(dict(RSTPDN))
    k = readers.index("k")
    readers.readers[k].emu.mute = -1  # answers nothing: a PN532 that came up wrong
    gps = [gp for gp, zone in sorted(RSTPDN.items(), key=lambda kv: readers.index(kv[1]))]
    r = subprocess.run([sys.executable, "-m", "mpremote", "connect", board.port, "exec", WIRED % (gps,)],
                       capture_output=True, text=True, timeout=WAIT_S)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "firmware 50" in r.stdout, r.stdout  # 0x32: the PN532 answers again
    log = board.wire_rst({})
    for gp in RSTPDN:
        edges = [(level, ns) for g, level, ns in log if g == gp]
        # Driven high, then one pulse low (hal.RST_LOW_MS: 400 ms), then high again.
        assert [level for level, _ in edges] == [1, 0, 1], (gp, edges)
        assert edges[2][1] - edges[1][1] >= 400e6


CLOCKED = """
from machine import I2C, Pin
from cardtable.drivers.i2cbus import GuardedI2C
from cardtable.drivers.mux import Mux
from cardtable.drivers.pn532_i2c import PN532I2C
from cardtable.hw_rp2 import Rp2BusFree
d = {"id": 0, "sda": 4, "scl": 5, "freq": 400000}
bus = GuardedI2C(I2C(0, scl=Pin(5), sda=Pin(4), freq=400000), Rp2BusFree(d, None), "i2c0")
mux = Mux(bus, 0x70, bus.muxes)
stuck = PN532I2C(bus, mux=mux, channel=1)
try:
    stuck.init()
except OSError as e:
    print("error:", e)
print("freed", bus.freed)
print("other", PN532I2C(bus, mux=mux, channel=0).init()[0])
print("again", stuck.init()[0])
"""


def test_nine_clocks_and_a_stop_free_a_reader_cut_off_mid_byte(board: Rp2Board) -> None:
    # ~5 s: a bus whose muxes' RESET is not wired (so the clear cannot cut the channel off):
    # zone s1's PN532 holds SDA until five more SCL clocks reach it, as one cut off five bits
    # before the end of the byte it was sending. The firmware's bus clear frees it.
    if board.mode != "repl":
        assert board.reset(repl=True, timeout=BOOT_S) == "repl"
    board.hold_sda("s1", 5)
    before = len(board.bus_stats()["i2c0"]["log"])
    r = subprocess.run([sys.executable, "-m", "mpremote", "connect", board.port, "exec", CLOCKED],
                       capture_output=True, text=True, timeout=WAIT_S)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert "error: bus error: i2c0 was held low while mux 0x70 ch 1 was selected: freed it" in out, out
    assert "freed 1" in out and "other 50" in out and "again 50" in out, out
    log = [kind for kind, _ in board.bus_stats()["i2c0"]["log"][before:]]
    grab = log.index("grab")
    clear = log.index("clock", grab)
    stop = log.index("stop", clear)
    assert "reset" not in log and "lost" in log[grab:clear], log
    assert log[clear:stop] == ["clock"] * 10, log  # nine clocks, and SCL rising for the STOP


BOOTED = """
import json
from cardtable import hal, hw_rp2
from cardtable.table import config
from cardtable.table.scanner import Scanner
with open("boards/pico-i2c-2seat.json") as f:
    b = config.validate(json.load(f))
clock = hal.Clock()
readers = hw_rp2.readers(b, clock)
sc = Scanner(readers, clock)
sc.start()
print("freed", readers[0].i2c.freed, "failures", sum(sc.failures), "down", sum(sc.down))
print("fw", sc.fw[1][0])
"""


def test_a_reader_left_holding_sda_by_a_reset_is_freed_before_the_first_poll(board: Rp2Board) -> None:
    # ~5 s: zone s1's PN532 holds SDA from now, three bits before the end of its byte, as one
    # a Pico reset cut off mid-read; the table's start (hw_rp2.readers, Scanner.start) at the
    # REPL frees it before any reader is polled.
    if board.mode != "repl":
        assert board.reset(repl=True, timeout=BOOT_S) == "repl"
    board.hold_sda("s1", 3, now=True)
    before = len(board.bus_stats()["i2c0"]["log"])
    r = subprocess.run([sys.executable, "-m", "mpremote", "connect", board.port, "exec", BOOTED],
                       capture_output=True, text=True, timeout=WAIT_S)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "freed 1 failures 0 down 0" in r.stdout and "fw 50" in r.stdout, r.stdout
    log = [kind for kind, _ in board.bus_stats()["i2c0"]["log"][before:]]
    clear = log.index("clock")
    assert "reset" not in log and log[clear:clear + 10] == ["clock"] * 10, log
    assert log[clear + 10] == "stop", log


SHARED = """
import json, time
from machine import Pin
from cardtable import hal, hw_rp2
from cardtable.table import config
from cardtable.table.scanner import NAMES, PLACED, Scanner
with open("boards/pico-i2c-2seat.json") as f:
    cfg = json.load(f)
cfg["buses"]["i2c0"].update({"rst": 20, "rst_mv": 5000})  # one RSTPDN line, 5 V: Elechouse V3s
clock = hal.Clock()
readers = hw_rp2.readers(config.validate(cfg), clock)  # (the boot's RSTPDN pulse)
ok = Pin(12, Pin.IN, Pin.PULL_UP)  # the board's "ok" button: the host has made s1 latch up
print("ready")
while ok.value():
    time.sleep_ms(1)
sc = Scanner(readers, clock)
sc.start()
t0 = time.ticks_ms()
done = False
while not done and time.ticks_diff(time.ticks_ms(), t0) < 20000:
    sc.step(1)
    ev = sc.next_event()
    while ev is not None:
        print("event", NAMES[ev[0]], ev[1], ev[3])
        done = done or ev[0] == PLACED
        ev = sc.next_event()
    time.sleep_ms(5)
print("rstpdn", readers[0].i2c.rstpdn)
"""


def test_a_latched_reader_comes_back_after_the_shared_rstpdn_pulse_and_reads_a_card(board: Rp2Board) -> None:
    # ~15 s: the two-seat board at the REPL with one RSTPDN line (GP20) to all seven readers;
    # zone s1's PN532 (mux 0x70 channel 1) grabs SDA at its first transaction and keeps it
    # whatever the clocks and the mux RESET do, a card on it. The firmware's table start
    # (hw_rp2.readers, Scanner) pulses the line after the second mux reset: it lets go, its
    # driver configures it again, and the card is read.
    if board.mode != "repl":
        assert board.reset(repl=True, timeout=BOOT_S) == "repl"
    readers = board.readers
    assert readers is not None
    board.wire_rst({20: sorted(readers.board.zone_reader, key=readers.index)})
    board.place("s1", "QD", wait=False)
    s1 = readers.index("s1")
    before = len(board.bus_stats()["i2c0"]["log"])
    proc = subprocess.Popen([sys.executable, "-m", "mpremote", "connect", board.port, "exec", SHARED],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        line = ""
        deadline = time.monotonic() + WAIT_S
        while "ready" not in line and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
        assert "ready" in line, line
        board.hold_sda("s1")  # after the boot's pulse (a PN532 in reset lets go of SDA)
        board.hold("ok", True)
        out, _ = proc.communicate(timeout=WAIT_S)
    finally:
        board.hold("ok", False)
        board.hold_sda("s1", 0)
        board.lift("s1", wait=False)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out
    assert "event placed %d QD" % s1 in out and "rstpdn 1" in out, out
    log = [kind for kind, _ in board.bus_stats()["i2c0"]["log"][before:]]
    assert log.count("reset") == 2, log  # cut off twice by the mux RESET before the pulse
    edges = [level for gp, level, _ in board.wire_rst({}) if gp == 20]
    assert edges[-3:] == [1, 0, 1], edges  # (the boot's pulse, then the bus clear's)
