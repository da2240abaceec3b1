"""The hal on a Raspberry Pi Pico (rp2 port). machine, neopixel and select are imported only
when a part is built, so the module also imports (and type-checks) off the board."""
from cardtable import hal
from cardtable.compat import ticks_diff, ticks_ms

DEBOUNCE_MS = 25


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
    """Buttons to ground (internal pull-ups), debounced by polling; quadrature encoders by IRQ."""

    def __init__(self, buttons, encoders):
        from machine import Pin

        self.names = sorted(buttons)
        self.pins = [Pin(buttons[n], Pin.IN, Pin.PULL_UP) for n in self.names]
        k = len(self.names)
        self.down = bytearray(k)  # debounced state, 1 = pressed
        self.since = [0] * k  # when the raw state last changed
        self.raw = bytearray(k)
        self.enc_names = sorted(encoders)
        self.counts = [0] * len(self.enc_names)
        self.seen = [0] * len(self.enc_names)
        self.enc_pins = []
        for i in range(len(self.enc_names)):
            a, b = encoders[self.enc_names[i]]
            pa = Pin(a, Pin.IN, Pin.PULL_UP)
            pb = Pin(b, Pin.IN, Pin.PULL_UP)
            self.enc_pins.append((pa, pb))
            pa.irq(self._turned(i, pb), Pin.IRQ_FALLING)

    def _turned(self, i, pb):
        counts = self.counts

        def irq(pin):
            counts[i] += 1 if pb.value() else -1

        return irq

    def held(self, name):
        """True if the button is down right now (read at boot for the maintenance mode)."""
        return self.pins[self.names.index(name)].value() == 0

    def next(self):
        now = ticks_ms()
        for i in range(len(self.pins)):
            v = 1 - self.pins[i].value()
            if v != self.raw[i]:
                self.raw[i] = v
                self.since[i] = now
            elif v != self.down[i] and ticks_diff(now, self.since[i]) >= DEBOUNCE_MS:
                self.down[i] = v
                if v:
                    return (hal.BUTTON, self.names[i])
        for i in range(len(self.counts)):
            c = self.counts[i]
            d = c - self.seen[i]
            if d:
                self.seen[i] = c
                return (hal.TURN, self.enc_names[i], d)
        return None


class UsbSerial(hal.Serial):
    """The USB CDC port the REPL uses: polled, one byte at a time, so the loop never blocks.

    Ctrl-C (0x03) never reaches read_byte(): MicroPython turns it into KeyboardInterrupt,
    which stops the loop and leaves the REPL to mpremote.
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


def chip_select(gp):
    from machine import Pin

    return Pin(gp, Pin.OUT, value=1)


class Rp2Hal(hal.Hal):
    """The whole table on a Pico, from a board config."""

    def __init__(self, board, storage=None):
        readers = hal.make_readers(board, buses(board), chip_select)
        buzzer = Rp2Buzzer(board.piezo_pin) if board.piezo_pin is not None else None
        hal.Hal.__init__(self, hal.Clock(), storage or hal.FileStorage(""),
                         Rp2Pixels(board.led_pin, board.led_count, board.led_order), buzzer,
                         Rp2Inputs(board.buttons, board.encoders), UsbSerial(), readers,
                         Rp2Watchdog())

    def mem_free(self):
        import gc

        return gc.mem_free()


def reset():
    """Restart the board (the journal brings the game back)."""
    import machine

    machine.reset()
