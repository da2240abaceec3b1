"""PN532 on UART (HSU, 115200 8N1): a byte stream, frames are read byte by byte."""
from cardtable.compat import ticks_ms, ticks_diff
from cardtable.drivers.pn532 import PN532, NoAnswer, RX, RXMAX, FrameError

_WAKE = b"\x55\x55" + bytes(14)  # HSU wake-up: 0x55 0x55 then zeros before the first frame


class PN532UART(PN532):
    """`uart` is machine.UART-like: write, readinto, any()."""

    STREAM = True

    def __init__(self, uart, **kw):
        super().__init__(**kw)
        self.uart = uart
        self._one = bytearray(1)

    def wake(self):
        self.uart.write(_WAKE)

    def _drain(self):
        for _ in range(RXMAX * 4):  # bounded: a babbling line must not hang the loop
            if not self.uart.any():
                return
            self.uart.readinto(self._one)

    def _write(self, buf):
        self._drain()  # stale bytes from an answer we gave up on
        self.uart.write(buf)

    def _ready(self):
        return self.uart.any() > 0

    def _fetch(self, n):
        if n > RXMAX:
            raise FrameError("frame longer than %d bytes" % RXMAX)
        t0 = ticks_ms()
        while self._have < n:
            if self.uart.any():
                self.uart.readinto(self._one)
                RX[self._have] = self._one[0]
                self._have += 1
            elif ticks_diff(ticks_ms(), t0) >= self.timeout_ms:
                raise NoAnswer("frame cut short")
