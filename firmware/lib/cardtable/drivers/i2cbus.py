"""An I2C bus front that frees the bus when a device holds SDA low (see drivers/busclear.py)."""


class GuardedI2C:
    """A machine.I2C-like bus front: a failed transaction goes to busclear.failed(), which
    clears the bus if it is held (imported then: a healthy table never loads it).

    free(cut) clears the bus (cut: pulses the muxes' RESET instead; `free.reset` is None
    where none is wired) and returns the I2C object to use from then on (hw_rp2 takes the
    pins back from the I2C block for the clear, hw_sim drives the emulated bus's pins);
    free.rstpdn() pulses the bus's shared RSTPDN line where `free.rst` is wired.
    `muxes` is the bus's list of drivers.mux.Mux (their shared peer list).
    """

    def __init__(self, i2c, free, name="i2c"):
        self.i2c = i2c
        self.free = free
        self.name = name
        self.muxes = []
        self.freed = 0  # how many times the bus was cleared
        self.failed = 0  # failed transactions in a row
        self.cut = 0  # clears the clocks did not settle since the last RSTPDN pulse
        self.rstpdn = 0  # RSTPDN pulses so far (a driver that sees it change configures again)

    def writeto(self, addr, buf, stop=True):
        try:
            n = self.i2c.writeto(addr, buf, stop)
        except OSError as e:
            from cardtable.drivers.busclear import failed

            raise failed(self, e)
        self.failed = 0
        return n

    def readfrom_into(self, addr, buf, stop=True):
        try:
            self.i2c.readfrom_into(addr, buf, stop)
        except OSError as e:
            from cardtable.drivers.busclear import failed

            raise failed(self, e)
        self.failed = 0

    def sweep(self):
        """At boot, before any reader is polled: select each used mux channel in turn and probe
        it, so a reader that a reset left holding SDA mid-byte is clocked free (busclear)."""
        for m in self.muxes:
            for ch in range(8):
                if m.used >> ch & 1:
                    try:
                        m.select(ch)
                        self.writeto(m.addr, m._b)  # fails if that channel's reader holds SDA
                    except OSError:
                        pass  # cleared by busclear.failed(); a reader still stuck fails its init
        for m in self.muxes:
            try:
                m.deselect()
            except OSError:
                pass
