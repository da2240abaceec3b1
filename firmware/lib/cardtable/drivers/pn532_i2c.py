"""PN532 on I2C (7-bit address 0x24), optionally behind a TCA9548A channel."""
from cardtable.compat import ticks_ms, ticks_diff
from cardtable.drivers.pn532 import POLL_US, PN532, NoAnswer, RX, RXV, sleep_us


class PN532I2C(PN532):
    """`i2c` is machine.I2C-like (writeto, readfrom_into); `mux` a drivers.mux.Mux or None."""

    OFF = 1  # every I2C read starts with the status byte

    def __init__(self, i2c, addr=0x24, mux=None, channel=0, **kw):
        super().__init__(**kw)
        self.i2c = i2c
        self.addr = addr
        self.mux = mux
        self.channel = channel
        self._rst = 0  # the bus's RSTPDN pulses when init() last ran (GuardedI2C.rstpdn)
        if mux is not None:
            mux.used |= 1 << channel

    def init(self):
        n = getattr(self.i2c, "rstpdn", 0)
        fw = PN532.init(self)
        self._rst = n  # (only once configured: a failed init() is tried again by poll())
        return fw

    def stale(self):
        return getattr(self.i2c, "rstpdn", 0) != self._rst

    def _write(self, buf):
        if self.mux is not None:
            self.mux.select(self.channel)
        self.i2c.writeto(self.addr, buf)

    def _ready(self):
        if self.irq is not None:
            return self.irq.value() == 0
        if self.mux is not None:
            self.mux.select(self.channel)
        self.i2c.readfrom_into(self.addr, RXV[1])
        return RX[0] == 1

    def _txn(self, n):
        t0 = -1
        while True:
            if self.mux is not None:
                self.mux.select(self.channel)
            self.i2c.readfrom_into(self.addr, RXV[n + 1])
            if RX[0] == 1:
                return
            if t0 < 0:
                t0 = ticks_ms()
            elif ticks_diff(ticks_ms(), t0) >= self.timeout_ms:
                raise NoAnswer("PN532 not ready")
            sleep_us(POLL_US)
