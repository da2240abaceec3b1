"""An I2C bus that frees itself when a device holds SDA low (NXP UM10204 section 3.1.16)."""
# With a reader's mux channel selected, a PN532 that holds SDA low stops every transaction on
# the bus, even the write that would deselect it. So after a failed transaction the bus is
# probed with a write to each mux (which deselects them all); if that fails too, free() pulses
# the muxes' RESET, clocks SCL nine times, sends STOP and rebuilds the bus, and the reader
# whose channel was selected gets a BusStuck error: it fails, the others go on.
try:
    from time import sleep_us
except ImportError:  # CPython: no real bus to wait for

    def sleep_us(us):
        pass


HALF_US = 5  # half an SCL period at 100 kHz
LIMIT = 2  # failed transactions in a row before a bus without a mux is cleared


class BusStuck(OSError):
    """The bus was held low and has been freed; `freed` tells the driver not to retry now."""

    freed = True


def clear(scl, sda, reset=None):
    """UM10204's bus clear on open-drain Pin-likes: pulse the muxes' RESET low (all their
    channels off, TI SCPS207H), nine SCL clocks with SDA released, then a STOP."""
    if reset is not None:
        reset.value(0)
        sleep_us(1)  # t_W(L) is 6 ns at least
        reset.value(1)
    sda.value(1)
    for _ in range(9):
        scl.value(0)
        sleep_us(HALF_US)
        scl.value(1)
        sleep_us(HALF_US)
    scl.value(0)
    sda.value(0)
    sleep_us(HALF_US)
    scl.value(1)
    sleep_us(HALF_US)
    sda.value(1)  # SDA rising while SCL is high: STOP


class GuardedI2C:
    """A machine.I2C-like bus front that clears the bus when a device holds it.

    free() clears the bus and returns the I2C object to use from then on (hw_rp2 takes the
    pins back from the I2C block for the clear, hw_sim drives the emulated bus's pins).
    `muxes` is the bus's list of drivers.mux.Mux (their shared peer list).
    """

    def __init__(self, i2c, free, name="i2c"):
        self.i2c = i2c
        self.free = free
        self.name = name
        self.muxes = []
        self.freed = 0  # how many times the bus was cleared
        self.failed = 0  # failed transactions in a row
        self._zero = bytearray(1)

    def writeto(self, addr, buf, stop=True):
        try:
            n = self.i2c.writeto(addr, buf, stop)
        except OSError as e:
            raise self._failed(e)
        self.failed = 0
        return n

    def readfrom_into(self, addr, buf, stop=True):
        try:
            self.i2c.readfrom_into(addr, buf, stop)
        except OSError as e:
            raise self._failed(e)
        self.failed = 0

    def _failed(self, e):
        self.failed += 1
        if self.free is None or isinstance(e, BusStuck):
            return e
        where = ""
        for m in self.muxes:
            if m.mask > 0:
                ch = 0
                while not m.mask >> ch & 1:
                    ch += 1
                where = " while mux 0x%02x ch %d was selected" % (m.addr, ch)
        if self.muxes:
            if not self._held():
                return e  # the bus works: one device failed, not the bus
        elif self.failed < LIMIT:
            return e
        self.i2c = self.free()
        self.freed += 1
        self.failed = 0
        if self._held():
            return BusStuck("%s is held low%s and stays low after a bus clear: check the"
                            " wiring to the muxes" % (self.name, where))
        return BusStuck("%s was held low%s: freed it (mux reset, 9 clocks, STOP)" % (
            self.name, where))

    def _held(self):
        """True if a mux cannot be written (the bus is held); else every mux is deselected."""
        for m in self.muxes:
            m.mask = -1
            try:
                self.i2c.writeto(m.addr, self._zero)
            except OSError:
                return True
            m.mask = 0
        return False
