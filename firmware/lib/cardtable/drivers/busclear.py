"""Freeing an I2C bus that a device holds low (NXP UM10204 section 3.1.16, "bus clear")."""
# With a reader's mux channel selected, a PN532 that holds SDA low (cut off in the middle of a
# byte it was sending: a Pico reset mid-read, a glitch) stops every transaction on the bus, even
# the write that would deselect it. So after a failed transaction the bus is probed with a write
# to each mux; if that fails too, the bus's free() clocks SCL nine times *through the channel
# still selected* (a TCA9548A keeps its channels until a STOP-terminated write or RESET, TI
# SCPS207H 8.4.1), so the reader shifts its byte out, sees a NACK on the ninth clock and lets go;
# then a STOP, and every mux is deselected. Only if SDA stays low after that are the muxes'
# RESET pulsed (every channel off: the reader is cut off, the others go on). The reader whose
# channel was selected gets a BusStuck error for that transaction: it is not retried at once.
# A reader latched up that way holds SDA again whenever its channel is selected. Where the bus
# has a shared RSTPDN line (the board's bus "rst"), the RST_AFTER-th clear in a row that the
# clocks did not settle (the reader cut off by the mux reset, or the bus still low) pulses it:
# every PN532 on the bus restarts (one in reset lets go of SDA) and its driver configures it
# again before its next poll (drivers/pn532_i2c.py). Each pulse doubles the count of cut-offs
# the next one waits for (up to RST_AFTER << RST_BACKOFF: 64, about two minutes of a down
# reader's retries), so a reader that no reset frees costs the table a pulse (RST_LOW_MS and
# RST_WAKE_MS of hal.py, the table waiting) now and then, not one every few polls.
try:
    from time import sleep_us
except ImportError:  # CPython: no real bus to wait for

    def sleep_us(us):
        pass


HALF_US = 5  # half an SCL period at 100 kHz
LIMIT = 2  # failed transactions in a row before a bus without a mux is cleared
RST_AFTER = 2  # clears the clocks did not settle before the bus's RSTPDN is pulsed
RST_BACKOFF = 5
_ZERO = b"\x00"


class BusStuck(OSError):
    """The bus was held low and has been freed; `freed` tells the driver not to retry now."""

    freed = True


def clear(scl, sda):
    """UM10204's bus clear on open-drain Pin-likes: nine SCL clocks with SDA released (a
    device sending a byte shifts the rest out, and the ninth reads as a NACK), then a STOP."""
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


def pulse(reset):
    """Pulse the muxes' RESET low: every channel off (t_W(L) is 6 ns at least)."""
    reset.value(0)
    sleep_us(1)
    reset.value(1)


def failed(bus, e):
    """The error to raise for a failed transaction on GuardedI2C bus: e itself if the bus still
    works (one device failed), else a BusStuck once the bus has been cleared."""
    bus.failed += 1
    if bus.free is None or isinstance(e, BusStuck):
        return e
    where = ""
    for m in bus.muxes:
        if m.mask > 0:
            ch = 0
            while not m.mask >> ch & 1:
                ch += 1
            where = " while mux 0x%02x ch %d was selected" % (m.addr, ch)
    if bus.muxes:
        if not held(bus):
            return e
    elif bus.failed < LIMIT:
        return e
    bus.i2c = bus.free(False)  # the clocks go through whatever channel is still selected
    bus.freed += 1
    bus.failed = 0
    if not held(bus):  # (which deselects every mux)
        return BusStuck("%s was held low%s: freed it (9 clocks through the channel, STOP)" % (
            bus.name, where))
    rst = getattr(bus.free, "rst", None) is not None
    cut = False
    if bus.muxes and getattr(bus.free, "reset", None) is not None:
        bus.i2c = bus.free(True)
        cut = not held(bus)
    bus.cut += 1
    if rst and bus.cut >= RST_AFTER << min(bus.rstpdn, RST_BACKOFF):
        bus.cut = 0
        bus.i2c = bus.free.rstpdn()  # every PN532 on the bus restarts: one in reset lets go
        bus.rstpdn += 1  # (each driver sees it and configures its PN532 again)
        if not held(bus):
            return BusStuck("%s was held low%s and stayed low after 9 clocks%s: pulsed the"
                            " readers' RSTPDN (%d so far)" % (
                                bus.name, where, " and a mux reset" if cut else "", bus.rstpdn))
        return BusStuck("%s is held low%s and stays low after a bus clear and an RSTPDN pulse:"
                        " check the wiring to the muxes" % (bus.name, where))
    if cut:
        return BusStuck("%s was held low%s and stayed low after 9 clocks: cut it off (mux"
                        " reset); %s" % (bus.name, where, "its RSTPDN is pulsed if it goes on"
                                         if rst else "power-cycle that reader"))
    return BusStuck("%s is held low%s and stays low after a bus clear: check the wiring"
                    " to the muxes" % (bus.name, where))


def held(bus):
    """True if a mux cannot be written (the bus is held); else every mux is deselected."""
    for m in bus.muxes:
        m.mask = -1
        try:
            bus.i2c.writeto(m.addr, _ZERO)
        except OSError:
            return True
        m.mask = 0
    return False
