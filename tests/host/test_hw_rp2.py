"""The rp2 hal off the board: machine, neopixel and select are stand-ins that record what the
firmware asks of them, so the wiring from each board config to the Pico's peripherals is
checked (the type check against the rp2 stubs checks the calls themselves)."""
from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest

from cardtable.table import config

BOARDS = Path(__file__).resolve().parents[2] / "firmware" / "boards"


LOG: list[tuple[Any, ...]] = []  # what the firmware asked of machine, in order


class Pin:
    IN, OUT, PULL_UP, IRQ_FALLING, IRQ_RISING, OPEN_DRAIN = 0, 1, 2, 4, 8, 16
    made: dict[int, "Pin"] = {}

    def __init__(self, gp: int, mode: int = -1, pull: int = -1, value: int | None = None) -> None:
        self.gp, self.mode, self.pull = gp, mode, pull
        self.v = 1 if value is None else value
        self.handler: Any = None
        self.trigger = self.hard = None
        Pin.made[gp] = self
        LOG.append(("pin", gp, mode, value))

    def value(self, v: int | None = None) -> int:
        if v is not None:
            self.v = v
            LOG.append(("set", self.gp, v))
        return self.v

    def irq(self, handler: Any, trigger: int, hard: bool = False) -> None:
        self.handler, self.trigger, self.hard = handler, trigger, hard


class Bus:
    def __init__(self, kind: str, bus_id: int, **kw: Any) -> None:
        self.kind, self.id, self.kw = kind, bus_id, kw
        LOG.append(("bus", kind, bus_id))


class PWM:
    def __init__(self, pin: Pin) -> None:
        self.pin, self.f, self.duty = pin, 0, -1

    def freq(self, f: int) -> None:
        self.f = f

    def duty_u16(self, d: int) -> None:
        self.duty = d


class WDT:
    def __init__(self, timeout: int) -> None:
        self.timeout, self.feeds = timeout, 0

    def feed(self) -> None:
        self.feeds += 1


class Timer:
    PERIODIC = 1
    made: list["Timer"] = []

    def __init__(self, tid: int, mode: int, period: int, callback: Any) -> None:
        self.id, self.mode, self.period, self.callback = tid, mode, period, callback
        Timer.made.append(self)


class NeoPixel:
    def __init__(self, pin: Pin, n: int, bpp: int = 3) -> None:
        self.pin, self.n, self.bpp = pin, n, bpp
        self.px: list[Any] = [None] * n
        self.writes = 0

    def __setitem__(self, i: int, v: Any) -> None:
        self.px[i] = v

    def write(self) -> None:
        self.writes += 1


class Poll:
    def __init__(self, stream: "Stdin") -> None:
        self.stream = stream

    def register(self, obj: Any, mask: int) -> None:
        pass

    def ipoll(self, timeout: int) -> Any:
        return iter([(self.stream, 1)] if self.stream.data else [])


class Stdin:
    def __init__(self) -> None:
        self.data = bytearray()
        self.buffer = self

    def readinto(self, buf: bytearray) -> int:
        if not self.data:
            return 0
        buf[0] = self.data.pop(0)
        return 1


class Stdout:
    def __init__(self) -> None:
        self.buffer = self
        self.out = bytearray()

    def write(self, data: bytes) -> int:
        self.out.extend(data)
        return len(data)


@pytest.fixture
def rp2(monkeypatch: pytest.MonkeyPatch) -> Any:
    """cardtable.hw_rp2 with stand-in rp2 modules and stdio."""
    Pin.made = {}
    Timer.made = []
    LOG.clear()
    machine = types.ModuleType("machine")
    machine.disable_irq = lambda: 7  # type: ignore[attr-defined]
    machine.enable_irq = lambda state: None  # type: ignore[attr-defined]
    for name, obj in (("Pin", Pin), ("PWM", PWM), ("WDT", WDT), ("Timer", Timer)):
        setattr(machine, name, obj)
    machine.I2C = lambda i, **kw: Bus("i2c", i, **kw)  # type: ignore[attr-defined]
    machine.SPI = lambda i, **kw: Bus("spi", i, **kw)  # type: ignore[attr-defined]
    machine.UART = lambda i, **kw: Bus("uart", i, **kw)  # type: ignore[attr-defined]
    machine.reset = lambda: None  # type: ignore[attr-defined]
    neopixel = types.ModuleType("neopixel")
    neopixel.NeoPixel = NeoPixel  # type: ignore[attr-defined]
    stdin = Stdin()
    select = types.ModuleType("select")
    select.POLLIN = 1  # type: ignore[attr-defined]
    select.poll = lambda: Poll(stdin)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.setitem(sys.modules, "neopixel", neopixel)
    monkeypatch.setitem(sys.modules, "select", select)
    monkeypatch.setattr(sys, "stdin", stdin)
    import cardtable.hw_rp2 as hw

    return hw


def board(name: str) -> Any:
    return config.load_board(name, str(BOARDS))


def test_i2c_board_gets_its_bus_and_one_driver_per_reader_behind_the_muxes(rp2: Any):
    b = board("pico-i2c-4seat")
    hal = rp2.Rp2Hal(b)
    assert len(hal.readers) == 10 and type(hal.readers[0]).__name__ == "PN532I2C"
    bus = hal.readers[0].i2c.i2c  # behind the guard that clears a stuck bus
    assert (bus.kind, bus.id, bus.kw["freq"]) == ("i2c", 0, 400000)
    assert (bus.kw["sda"].gp, bus.kw["scl"].gp) == (4, 5)
    muxes = {(r.mux.addr, r.channel) for r in hal.readers}
    assert muxes == {(0x70, c) for c in range(5)} | {(0x71, c) for c in range(5)}
    assert hal.readers[0].mux.peers is hal.readers[8].mux.peers  # one bus: one peer list
    assert hal.readers[0].retries == 1  # bounded polls


def test_spi_board_gets_a_chip_select_per_reader_held_high(rp2: Any):
    b = board("pico-spi-4seat")
    hal = rp2.Rp2Hal(b)
    assert [r.cs.gp for r in hal.readers] == [17, 20, 21, 26, 27]
    assert all(r.cs.v == 1 and r.cs.mode == Pin.OUT for r in hal.readers)
    spi = hal.readers[0].spi
    assert (spi.kind, spi.kw["baudrate"], spi.kw["polarity"], spi.kw["phase"]) == ("spi", 1000000, 0, 0)
    assert (spi.kw["sck"].gp, spi.kw["mosi"].gp, spi.kw["miso"].gp) == (18, 19, 16)


def test_buttons_are_debounced_and_reported_once_per_press(rp2: Any, monkeypatch: pytest.MonkeyPatch):
    now = [1000]
    monkeypatch.setattr(rp2, "ticks_ms", lambda: now[0])
    hal = rp2.Rp2Hal(board("pico-i2c-4seat"))
    k3 = Pin.made[9]
    every = rp2.BUTTON_EVERY_MS  # the buttons are sampled this often, not at every step
    assert k3.pull == Pin.PULL_UP and hal.inputs.next() is None
    k3.v = 0  # pressed
    now[0] += every
    assert hal.inputs.next() is None  # not yet: it may be a bounce
    now[0] += every
    k3.v = 1  # a bounce
    assert hal.inputs.next() is None
    now[0] += every
    k3.v = 0
    assert hal.inputs.next() is None
    now[0] += rp2.DEBOUNCE_MS - every
    assert hal.inputs.next() is None  # the bounce started the wait again
    now[0] += every
    assert hal.inputs.next() == (1, "k3")
    now[0] += 500
    assert hal.inputs.next() is None  # held: still one press
    assert hal.inputs.held("k3") and not hal.inputs.held("k4")


def test_the_encoder_counts_detents_both_ways_through_bounces(rp2: Any,
                                                              monkeypatch: pytest.MonkeyPatch):
    us = [0]
    monkeypatch.setattr(rp2, "ticks_us", lambda: us[0])
    hal = rp2.Rp2Hal(board("pico-i2c-2seat"))
    a, b = Pin.made[10], Pin.made[11]
    assert a.hard and b.hard and a.trigger == Pin.IRQ_FALLING | Pin.IRQ_RISING
    assert a.handler is b.handler

    def walk(states: list[tuple[int, int]], bounce: bool) -> None:
        for va, vb in states:
            pin, v = (a, va) if va != a.v else (b, vb)
            if bounce:  # the contact chatters for 1.5 ms before it settles
                for _ in range(3):
                    pin.v = v
                    pin.handler(pin)
                    us[0] += 250
                    pin.v = 1 - v
                    pin.handler(pin)
                    us[0] += 250
            pin.v = v
            pin.handler(pin)
            us[0] += 5000

    cw = [(0, 1), (0, 0), (1, 0), (1, 1)]  # A falls while B is high: the + way
    walk(cw, bounce=True)
    walk(cw, bounce=False)
    assert hal.inputs.next() == (2, "sel", 2)
    assert hal.inputs.next() is None
    walk([(1, 0), (0, 0), (0, 1), (1, 1)], bounce=True)
    assert hal.inputs.next() == (2, "sel", -1)


def test_chip_selects_and_mux_resets_go_high_before_any_bus_is_built(rp2: Any):
    rp2.Rp2Hal(board("pico-spi-4seat"))
    first_bus = [i for i, e in enumerate(LOG) if e[0] == "bus"][0]
    raised = {e[1] for e in LOG[:first_bus] if e[0] == "pin" and e[2] == Pin.OUT and e[3] == 1}
    assert raised == {17, 20, 21, 26, 27}, LOG[:first_bus]
    LOG.clear()
    rp2.Rp2Hal(board("pico-i2c-4seat"))
    first_bus = [i for i, e in enumerate(LOG) if e[0] == "bus"][0]
    assert ("pin", 3, Pin.OUT, 1) in LOG[:first_bus]  # the muxes' RESET, released


def test_rstpdn_is_pulsed_at_boot_and_irq_pins_are_read(rp2: Any, monkeypatch: pytest.MonkeyPatch):
    import json

    cfg = json.loads((BOARDS / "pico-spi-4seat.json").read_text())
    cfg["readers"][0].update({"rst": 0, "irq": 1, "module": "adafruit-364"})
    cfg["readers"][1].update({"rst": 2, "module": "adafruit-364"})
    b = config.validate(cfg)
    slept: list[int] = []
    monkeypatch.setattr(rp2.hal.Clock, "sleep_ms", lambda self, ms: slept.append(ms))
    hal = rp2.Rp2Hal(b)
    sets = [e for e in LOG if e[0] in ("set", "bus") and (e[0] == "bus" or e[1] in (0, 2))]
    assert sets[:5] == [("set", 0, 0), ("set", 2, 0), ("set", 0, 1), ("set", 2, 1),
                        ("bus", "spi", 0)], sets
    assert slept[:2] == [400, 10]  # both readers held in reset together, once
    irq = hal.readers[0].irq
    assert (irq.gp, irq.mode, irq.pull) == (1, Pin.IN, Pin.PULL_UP) and hal.readers[1].irq is None


def test_a_stuck_bus_is_cleared_on_its_own_pins_then_rebuilt(rp2: Any):
    hal = rp2.Rp2Hal(board("pico-i2c-4seat"))
    guard = hal.readers[0].i2c
    LOG.clear()
    new = guard.free(False)
    # No RESET first: it would deselect the channel of the reader the clocks must reach.
    assert [e for e in LOG if e[:2] == ("set", 3)] == []
    scl_rises = [e for e in LOG if e == ("set", 5, 1)]
    assert len(scl_rises) == 10  # nine clocks, then SCL high for the STOP
    assert LOG[:2] == [("pin", 5, Pin.OPEN_DRAIN, 1), ("pin", 4, Pin.OPEN_DRAIN, 1)]
    # STOP (SDA rises while SCL is high), then the pins go back to a new I2C
    assert LOG[-5:] == [("set", 5, 1), ("set", 4, 1), ("pin", 5, -1, None), ("pin", 4, -1, None),
                        ("bus", "i2c", 0)], LOG[-5:]
    assert (new.kw["scl"].gp, new.kw["sda"].gp, new.kw["freq"]) == (5, 4, 400000)
    LOG.clear()
    assert guard.free(True) is new  # the last resort: RESET pulsed, the I2C block kept
    assert LOG == [("set", 3, 0), ("set", 3, 1)], LOG


def test_usb_serial_reads_what_is_waiting_and_never_blocks(rp2: Any, monkeypatch: pytest.MonkeyPatch):
    out = Stdout()
    monkeypatch.setattr(sys, "stdout", out)  # (pytest swaps stdout between setup and call)
    hal = rp2.Rp2Hal(board("pico-i2c-2seat"))
    assert hal.serial.read_byte() == -1
    sys.stdin.data.extend(b"ok")  # type: ignore[attr-defined]
    assert [hal.serial.read_byte() for _ in range(3)] == [ord("o"), ord("k"), -1]
    hal.serial.write(b'{"type": "hello"}\n')
    assert out.out == b'{"type": "hello"}\n'


def test_leds_buzzer_and_watchdog(rp2: Any):
    hal = rp2.Rp2Hal(board("pico-i2c-2seat"))
    hal.pixels.set(2, (10, 20, 30))
    hal.pixels.show()
    assert hal.pixels.np.px[2] == (10, 20, 30) and hal.pixels.np.writes == 1
    assert hal.pixels.np.pin.gp == 22 and hal.pixels.n == 7
    hal.buzzer.play(((440, 100), (0, 50)), 0)
    assert (hal.buzzer.pwm.f, hal.buzzer.pwm.duty) == (440, 32768)
    hal.buzzer.update(100)
    assert hal.buzzer.pwm.duty == 0 and hal.buzzer.pwm.pin.gp == 15
    hal.wdt.feed()  # not started: nothing to feed
    hal.wdt.start(20000)
    assert hal.wdt.wdt.timeout == 8388  # the RP2040's longest
    hal.wdt.keep_fed()
    Timer.made[-1].callback(Timer.made[-1])
    assert Timer.made[-1].id == -1 and hal.wdt.wdt.feeds == 1


def test_rgb_strips_get_their_order(rp2: Any):
    px = rp2.Rp2Pixels(22, 3, "RGB")
    px.set(0, (1, 2, 3))
    assert px.np.px[0] == (2, 1, 3)  # NeoPixel sends G R B: swapped, the strip sees R G B
    px4 = rp2.Rp2Pixels(21, 3, "GRBW")
    px4.set(1, (1, 2, 3))
    assert px4.np.bpp == 4 and px4.np.px[1] == (1, 2, 3, 0)
