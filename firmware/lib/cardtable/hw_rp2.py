"""The hal on a Raspberry Pi Pico (rp2 port). machine, neopixel and select are imported only
when a part is built, so the module also imports (and type-checks) off the board."""
from cardtable import hal
from cardtable.compat import ticks_diff, ticks_ms, ticks_us

DEBOUNCE_MS = 25
BUTTON_EVERY_MS = 5


class Rp2Pixels(hal.Pixels):
    """WS2812 LEDs on one pin (neopixel: bit-banged, ~30 us per LED, so a zone update is short)."""

    def __init__(self, pin, n, order="GRB"):
        from machine import Pin
        from neopixel import NeoPixel

        self.n = n
        self.np = NeoPixel(Pin(pin, Pin.OUT), n, bpp=4 if "W" in order else 3)
        self.rgb_order = order.startswith("RGB")  # NeoPixel itself sends GRB order

    def set(self, i, rgb):
        r, g, b = rgb
        if self.rgb_order:
            r, g = g, r
        self.np[i] = (r, g, b, 0) if self.np.bpp == 4 else (r, g, b)

    def show(self):
        self.np.write()


class Rp2Buzzer(hal.Buzzer):
    """A piezo driven by PWM at half duty."""

    def __init__(self, pin):
        from machine import PWM, Pin

        hal.Buzzer.__init__(self)
        self.pwm = PWM(Pin(pin))
        self.pwm.duty_u16(0)

    def tone(self, freq):
        if freq:
            self.pwm.freq(freq)
            self.pwm.duty_u16(32768)
        else:
            self.pwm.duty_u16(0)


class Rp2Inputs(hal.Inputs):
    """Buttons to ground (internal pull-ups), debounced by polling; quadrature encoders by
    hard IRQ on both edges of both pins, debounced by drivers.encoder.Quadrature."""

    def __init__(self, buttons, encoders):
        from machine import Pin, disable_irq, enable_irq

        from cardtable.drivers.encoder import Quadrature

        self._irq_off = disable_irq
        self._irq_on = enable_irq

        self.names = sorted(buttons)
        self.pins = [Pin(buttons[n], Pin.IN, Pin.PULL_UP) for n in self.names]
        k = len(self.names)
        self.down = bytearray(k)  # debounced state, 1 = pressed
        self.since = [0] * k  # when the raw state last changed
        self.raw = bytearray(k)
        self._looked = 0  # when the buttons were last read
        self.enc_names = sorted(encoders)
        self.enc_pins = []
        self.decoders = []
        for name in self.enc_names:
            a, b = encoders[name]
            pa = Pin(a, Pin.IN, Pin.PULL_UP)
            pb = Pin(b, Pin.IN, Pin.PULL_UP)
            q = Quadrature(pa.value() << 1 | pb.value(), ticks_us())
            self.enc_pins.append((pa, pb))
            self.decoders.append(q)
            irq = _edge(q, pa, pb)
            for p in (pa, pb):
                p.irq(irq, Pin.IRQ_FALLING | Pin.IRQ_RISING, hard=True)

    def held(self, name):
        """True if the button is down right now (read at boot for the maintenance mode)."""
        return self.pins[self.names.index(name)].value() == 0

    def next(self):
        now = ticks_ms()
        # buttons are read every BUTTON_EVERY_MS, not every loop step (~0.3 ms of the RP2040's
        # time for nine; a press is held far longer than DEBOUNCE_MS)
        if ticks_diff(now, self._looked) >= BUTTON_EVERY_MS:
            self._looked = now
            b = self._buttons(now)
            if b is not None:
                return b
        for i in range(len(self.decoders)):
            st = self._irq_off()  # the IRQ must not settle a level while we do
            d = self.decoders[i].take(ticks_us())
            self._irq_on(st)
            if d:
                return (hal.TURN, self.enc_names[i], d)
        return None

    def _buttons(self, now):
        for i in range(len(self.pins)):
            v = 1 - self.pins[i].value()
            if v != self.raw[i]:
                self.raw[i] = v
                self.since[i] = now
            elif v != self.down[i] and ticks_diff(now, self.since[i]) >= DEBOUNCE_MS:
                self.down[i] = v
                if v:
                    return (hal.BUTTON, self.names[i])
        return None


def _edge(q, pa, pb):
    """The hard IRQ handler of one encoder: both pins' levels and the time, nothing allocated."""

    def irq(pin):
        q.edge(pa.value() << 1 | pb.value(), ticks_us())

    return irq


class UsbSerial(hal.Serial):
    """The USB CDC port the REPL uses: polled, one byte at a time, so the loop never blocks.

    While main.run's loop runs, Ctrl-C (0x03) is a byte like any other (kbd_intr(-1)); a
    line of nothing but Ctrl-C stops the loop (cardtable/link.py) and leaves the REPL to
    mpremote.
    """

    def __init__(self):
        import select
        import sys

        self.stdin = sys.stdin.buffer
        self.stdout = sys.stdout.buffer
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)
        self.one = bytearray(1)

    def read_byte(self):
        for _ in self.poller.ipoll(0):
            if self.stdin.readinto(self.one):
                return self.one[0]
        return -1

    def write(self, data):
        self.stdout.write(data)


class Rp2Watchdog(hal.Watchdog):
    """The RP2040 watchdog: nothing until start(); once started it cannot be stopped."""

    MAX_MS = 8388

    def __init__(self):
        self.wdt = None
        self.timer = None

    def start(self, ms=8000):
        from machine import WDT

        self.wdt = WDT(timeout=min(ms, self.MAX_MS))

    def feed(self):
        if self.wdt is not None:
            self.wdt.feed()

    def keep_fed(self, period_ms=1000):
        """Feed from a timer (the REPL after Ctrl-C); a soft reset stops the timer."""
        if self.wdt is None:
            return
        from machine import Timer

        wdt = self.wdt
        self.timer = Timer(-1, mode=Timer.PERIODIC, period=period_ms, callback=lambda t: wdt.feed())


def buses(board):
    """machine.I2C / SPI / UART objects for the board's buses, by name."""
    from machine import I2C, SPI, UART, Pin

    out = {}
    for name in board.buses:
        d = board.buses[name]
        kind = d["kind"]
        if kind == "i2c":
            out[name] = I2C(d["id"], scl=Pin(d["scl"]), sda=Pin(d["sda"]), freq=d["freq"])
        elif kind == "spi":
            out[name] = SPI(d["id"], baudrate=d["baud"], polarity=0, phase=0,
                            sck=Pin(d["sck"]), mosi=Pin(d["mosi"]), miso=Pin(d["miso"]))
        else:
            out[name] = UART(d["id"], baudrate=d["baud"], tx=Pin(d["tx"]), rx=Pin(d["rx"]))
    return out


def output_high(gp):
    """An output driven high: a chip select, a mux RESET or an RSTPDN (all active low)."""
    from machine import Pin

    return Pin(gp, Pin.OUT, value=1)


def irq_input(gp):
    """A reader's P70_IRQ: open drain from the PN532, low while it has an answer."""
    from machine import Pin

    return Pin(gp, Pin.IN, Pin.PULL_UP)


class Rp2BusFree:
    """free(cut) of I2C bus d (a board.buses entry): the bus clear on its pins, then a new
    I2C; cut: a pulse on the muxes' RESET instead (the I2C block is kept)."""

    def __init__(self, d, reset):
        self.d = d
        self.reset = reset  # the muxes' RESET Pin, driven high, or None
        self.i2c = None

    def __call__(self, cut=False):
        from machine import I2C, Pin

        from cardtable.drivers import busclear

        d = self.d
        if cut and self.i2c is not None:
            if self.reset is not None:
                busclear.pulse(self.reset)
            return self.i2c
        busclear.clear(Pin(d["scl"], Pin.OPEN_DRAIN, value=1),
                       Pin(d["sda"], Pin.OPEN_DRAIN, value=1))
        self.i2c = I2C(d["id"], scl=Pin(d["scl"]), sda=Pin(d["sda"]), freq=d["freq"])
        return self.i2c


def readers(board, clock):
    """The board's PN532 drivers. Chip selects, mux RESETs and RSTPDNs go high before any bus
    is built (pins leave reset pulled down: every SPI reader would drive MISO), RSTPDN is
    pulsed, and each I2C bus clears itself when a reader holds it (drivers.busclear)."""
    pins = {}
    for gp in hal.outputs(board):
        pins[gp] = output_high(gp)
    hal.reset_readers(board, pins.get, clock)
    frees = {}
    for name in board.buses:
        d = board.buses[name]
        if d["kind"] == "i2c":
            reset = d.get("reset")
            frees[name] = Rp2BusFree(d, pins[reset] if reset is not None else None)
    return hal.make_readers(board, buses(board), pins.get, make_irq=irq_input, frees=frees)


class Rp2Hal(hal.Hal):
    """The whole table on a Pico, from a board config."""

    def __init__(self, board, storage=None):
        clock = hal.Clock()
        rd = readers(board, clock)
        buzzer = Rp2Buzzer(board.piezo_pin) if board.piezo_pin is not None else None
        hal.Hal.__init__(self, clock, storage or hal.FileStorage(""),
                         Rp2Pixels(board.led_pin, board.led_count, board.led_order), buzzer,
                         Rp2Inputs(board.buttons, board.encoders), UsbSerial(), rd,
                         Rp2Watchdog())

    def mem_free(self):
        import gc

        return gc.mem_free()


def reset():
    """Restart the board (the journal brings the game back)."""
    import machine

    machine.reset()
