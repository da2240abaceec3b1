"""PN532 on SPI, one chip select per reader; bytes are LSB first on the wire."""
# The rp2 SPI is MSB-first only, so every byte is bit-reversed in software (table lookup).
from cardtable.drivers.pn532 import PN532, RX, RXV, TXMAX, sleep_ms


def _rev(b):
    r = 0
    for _ in range(8):
        r = (r << 1) | (b & 1)
        b >>= 1
    return r


REV = bytes([_rev(i) for i in range(256)])

_DW = bytes((REV[0x01],))  # data write
_SR = bytes((REV[0x02],))  # status read
_DR = bytes((REV[0x03],))  # data read
_STX = bytearray(TXMAX)
_stm = memoryview(_STX)
_STXV = [_stm[:n] for n in range(TXMAX + 1)]
_ONE = bytearray(1)


class PN532SPI(PN532):
    """`spi` is machine.SPI-like (write, readinto; mode 0, MSB first); `cs` a Pin (value)."""

    def __init__(self, spi, cs, **kw):
        super().__init__(**kw)
        self.spi = spi
        self.cs = cs
        cs.value(1)

    def wake(self):
        # the PN532 needs CS low ~2 ms to wake its oscillator before the first command
        self.cs.value(0)
        sleep_ms(2)
        self.cs.value(1)

    def _write(self, buf):
        n = len(buf)
        for i in range(n):
            _STX[i] = REV[buf[i]]
        self.cs.value(0)
        try:
            self.spi.write(_DW)
            self.spi.write(_STXV[n])
        finally:
            self.cs.value(1)

    def _ready(self):
        if self.irq is not None:
            return self.irq.value() == 0
        self.cs.value(0)
        try:
            self.spi.write(_SR)
            self.spi.readinto(_ONE)
        finally:
            self.cs.value(1)
        return _ONE[0] == 0x80  # REV[0x01]

    def _txn(self, n):
        self.cs.value(0)
        try:
            self.spi.write(_DR)
            self.spi.readinto(RXV[n])
        finally:
            self.cs.value(1)
        for i in range(n):
            RX[i] = REV[RX[i]]
