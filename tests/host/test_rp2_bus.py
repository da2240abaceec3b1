"""The rp2 board's reader buses: TCA9548A muxes and PN532s on the emulated RP2040's I2C, PN532s on
its SPI with a chip select each, answering the chip's own machine.I2C / machine.SPI and the
project's drivers (host/cardtable_host/sim/rp2/bus.mjs for the wires, rp2bus.Readers for the PN532s).

The first tests need no Node: the Python side alone (a PN532's answer is ready after its
processing time on the emulated clock, not at once; tags outlive a power cycle). The others
run code at the board's REPL through mpremote (about half a minute of CPU each board).
"""
from __future__ import annotations

import struct
import subprocess
import sys
from typing import Iterator

import pytest

from cardtable.table import config
from cardtable.sim.pn532_emu import ACK, frame
from cardtable_host.sim.rp2bus import OP_READ, OP_TAKE, OP_WRITE, Readers
from cardtable_host.sim.table import _boards_dir

FIRMWARE_CMD = b"\x00\x00\xff\x02\xfe\xd4\x02\x2a\x00"  # GetFirmwareVersion (UM0701-02 7.2.2)


def readers(name: str = "pico-i2c-4seat") -> Readers:
    return Readers(config.load_board(name, str(_boards_dir())))


def _busy_until(reply: bytes) -> float:
    """A status reply of a reader still working on a command: the emulated ns it is ready at."""
    assert reply[:1] == b"\x02", reply
    return float(struct.unpack("<d", reply[1:])[0])


def test_a_pn532_acks_at_once_and_answers_after_its_processing_time() -> None:
    r = readers()
    assert r.handle(OP_READ, 3, 0.0, b"") == b"\x00"  # nothing pending: status 0
    r.handle(OP_WRITE, 3, 1e6, FIRMWARE_CMD)
    assert r.handle(OP_READ, 3, 1e6, b"") == b"\x01" + ACK
    r.handle(OP_TAKE, 3, 1.1e6, b"")
    # still working (~0.5 ms): not ready, and when it will be (bus.mjs answers polls till then)
    assert _busy_until(r.handle(OP_READ, 3, 1.2e6, b"")) == pytest.approx(1.1e6 + 500e3, abs=100e3)
    answer = r.handle(OP_READ, 3, 2e6, b"")
    assert answer == b"\x01" + frame(b"\xd5\x03\x32\x01\x06\x07")
    assert r.handle(OP_READ, 4, 2e6, b"") == b"\x00"  # another reader heard nothing


def test_tags_stay_on_the_readers_when_the_power_goes() -> None:
    r = readers()
    r.place("s2", "04112233445566", "QH", running=False)
    assert r.cards_by_zone() == {"s2": "QH"}
    r.power_cycle()
    assert r.readers[2].emu.field and r.readers[2].emu.field[0].text() == "QH"
    assert r.lift("s2", running=False) and r.cards_by_zone() == {}
    with pytest.raises(ValueError, match="no zone 'zz'"):
        r.place("zz", "04112233445566", "QH", running=False)


def test_an_armed_card_lands_on_the_emulated_clock_and_the_bus_is_traced_from_there() -> None:
    # bench/rp2latency.py times a card from its landing to its LED verdict, both emulated ns
    r = readers()
    r.trace = []
    r.arm("s1", "04112233445566", "QH", 5e6)
    r.handle(OP_READ, 4, 1e6, b"")  # the chip's next request sets the landing: 1 ms + 5 ms
    r.handle(OP_READ, 1, 3e6, b"")
    assert r.landed_ns is None and r.readers[1].emu.field == []
    r.handle(OP_WRITE, 1, 7e6, frame(b"\xd4\x4a\x01\x00"))  # after the landing: it answers
    assert r.landed_ns == 6e6 and r.readers[1].emu.field[0].text() == "QH"
    assert r.handle(OP_READ, 1, 7e6, b"") == b"\x01" + ACK
    r.handle(OP_TAKE, 1, 7e6, b"")
    busy = r.handle(OP_READ, 1, 16.6e6, b"")  # the field switched on: 9.7 ms (ISO 14443-3)
    assert 16.6e6 < _busy_until(busy) <= 16.7e6
    assert r.handle(OP_READ, 1, 16.7e6, b"")[:1] == b"\x01"
    assert r.trace == [(7e6, 1, 0x4A), (16.7e6, 1, -1)]
    assert r.cards_by_zone() == {"s1": "QH"}


def test_a_poll_counts_and_the_two_tag_check_before_a_read_does_not() -> None:
    # place() waits for the scanner's polls; counting the MaxTg 2 check that comes just before
    # the card is read would let a test lift the card in the middle of its read (torn).
    r = readers()
    r.handle(OP_WRITE, 3, 0.0, frame(b"\xd4\x4a\x01\x00"))  # InListPassiveTarget, MaxTg 1
    assert r.polls(3) == 1
    r.handle(OP_WRITE, 3, 1e7, frame(b"\xd4\x4a\x02\x00"))  # MaxTg 2: is there a second tag?
    assert r.polls(3) == 1
    r.handle(OP_WRITE, 3, 2e7, frame(b"\xd4\x4a\x01\x00"))
    assert r.polls(3) == 2 and r.polls(4) == 0
    # The seat to play's reader polls listing two tags at once (issue 18): each one is a poll,
    # or a place() there would wait for polls that never come.
    r.handle(OP_WRITE, 3, 3e7, frame(b"\xd4\x4a\x02\x00"))  # the check after a MaxTg 1 poll
    r.handle(OP_WRITE, 3, 4e7, frame(b"\xd4\x4a\x02\x00"))
    r.handle(OP_WRITE, 3, 5e7, frame(b"\xd4\x4a\x02\x00"))
    assert r.polls(3) == 4


# -- on the chip --------------------------------------------------------------------------------

pytest.importorskip("termios")  # ptys are POSIX only


def _board(name: str) -> Iterator[object]:
    from hostsupport import need_node

    need_node(module=False)
    from cardtable_host.sim.rp2board import Rp2Board, missing

    if missing():
        pytest.skip("the rp2 board cannot run: %s" % missing())
    b = Rp2Board(name, repl=True, speed=0)
    b.start(timeout=300)
    try:
        yield b
    finally:
        b.close()


@pytest.fixture(scope="module")
def i2c_board() -> Iterator[object]:
    yield from _board("pico-i2c-4seat")


@pytest.fixture(scope="module")
def spi_board() -> Iterator[object]:
    yield from _board("pico-spi-4seat")


def run(board: object, code: str) -> list[str]:
    port = getattr(board, "port")
    r = subprocess.run([sys.executable, "-m", "mpremote", "connect", port, "exec", code], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout.split()


I2C = "from machine import I2C, Pin\ni2c = I2C(0, scl=Pin(5), sda=Pin(4), freq=400000)\n"


def test_the_muxes_answer_the_chips_i2c_and_gate_the_pn532s(i2c_board: object) -> None:
    out = run(i2c_board, I2C + """
import time
i2c.writeto(0x70, b'\\x00'); i2c.writeto(0x71, b'\\x00')
try:
    i2c.writeto(0x24, b'\\x00')
    print('ack')
except OSError as e:
    print('nack', e.errno)
i2c.writeto(0x71, b'\\x04')
print(i2c.readfrom(0x71, 1)[0], i2c.readfrom(0x70, 1)[0])
t = time.ticks_us()
i2c.writeto(0x24, %r)
print(time.ticks_diff(time.ticks_us(), t))
print(i2c.readfrom(0x24, 7).hex())
""" % FIRMWARE_CMD)
    assert out[:2] == ["nack", "5"]  # nobody at 0x24 with every channel off: EIO
    assert out[2:4] == ["4", "0"]  # the control register reads back
    # start + 10 bytes of 9 bits + stop at 400 kHz = 230 us on the emulated clock
    assert 230 <= int(out[4]) < 2000
    assert out[5] == "01" + ACK.hex()
    st = getattr(i2c_board, "status")()["readers"]
    assert st["requests"] >= 2


def test_the_drivers_read_a_tag_behind_a_mux(i2c_board: object) -> None:
    i2c_board.place("t1", "QS", wait=False)  # type: ignore[attr-defined]  # reader 6: mux 0x71, channel 1
    out = run(i2c_board, I2C + """
from cardtable.drivers.mux import Mux
from cardtable.drivers.pn532_i2c import PN532I2C
peers = []
m0 = Mux(i2c, 0x70, peers); m1 = Mux(i2c, 0x71, peers)
for ch, mux in ((1, m1), (2, m1), (0, m0)):
    r = PN532I2C(i2c, mux=mux, channel=ch)
    print(r.init()[0], r.init()[1])
    uid = r.poll()
    print(uid.hex() if uid else None)
    if uid:
        print(r.read_text())
""")
    from cardtable_host.sim.table import uid_for

    assert out[:4] == ["50", "1", uid_for("QS").hex(), "QS"]  # 0x32: a PN532, firmware 1.x
    assert out[4:] == ["50", "1", "None", "50", "1", "None"]  # the other channels: no card


def test_the_drivers_read_a_tag_on_spi_by_its_chip_select(spi_board: object) -> None:
    spi_board.place("s1", "9D", wait=False)  # type: ignore[attr-defined]  # reader 1: CS on GP20
    out = run(spi_board, """
from machine import SPI, Pin
from cardtable.drivers.pn532_spi import PN532SPI
spi = SPI(0, baudrate=1000000, polarity=0, phase=0, sck=Pin(18), mosi=Pin(19), miso=Pin(16))
cs = {gp: Pin(gp, Pin.OUT, value=1) for gp in (17, 20, 21, 26, 27)}
for gp in (20, 17):
    r = PN532SPI(spi, cs[gp])
    r.wake()
    print(r.init()[0])
    uid = r.poll()
    print(uid.hex() if uid else None)
    if uid:
        print(r.read_text())
""")
    from cardtable_host.sim.table import uid_for

    assert out == ["50", uid_for("9D").hex(), "9D", "50", "None"]


def test_the_same_card_is_not_laid_again_where_its_lift_was_never_seen_and_another_goes_down_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from cardtable_host.sim import rp2bus

    monkeypatch.setattr(rp2bus, "WAIT_S", 0.05)
    r = readers()
    r.place("s2", "04112233445566", "QH", running=False)
    r.lift("s2", running=True, wait=False)  # a lift the firmware must see: no chip polls here
    # laid again before the firmware saw it go, the same card would look as if it never moved
    with pytest.raises(ValueError, match="zone s2: the firmware did not poll its reader .* the QH was not laid"):
        r.place("s2", "04112233445566", "QH")
    assert r.cards_by_zone() == {}
    # another card is a swap the scanner sees as that lift and a new card: it goes down at once
    assert r.place("s2", "04112233445577", "KS", wait=False)
    assert r.cards_by_zone() == {"s2": "KS"}
