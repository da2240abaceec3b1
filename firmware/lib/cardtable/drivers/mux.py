"""TCA9548A I2C multiplexer: one control byte, a bit per channel (TI SCPS207H)."""


class Mux:
    """A TCA9548A at `addr`; muxes on one bus share a `peers` list so one channel is on."""

    # select() turns off any peer's channels first: two PN532s at 0x24 would garble the
    # bus. The selection is cached (one write per switch); a bus error forgets it.

    def __init__(self, i2c, addr=0x70, peers=None):
        self.i2c = i2c
        self.addr = addr
        self.mask = -1  # unknown until written
        self.used = 0  # a bit per channel a reader is on (the boot sweep probes those)
        self._b = bytearray(1)
        self.peers = peers
        if peers is not None:
            peers.append(self)

    def _set(self, mask):
        self._b[0] = mask
        try:
            self.i2c.writeto(self.addr, self._b)
        except OSError:
            self.mask = -1
            raise
        self.mask = mask

    def select(self, channel):
        """Connect only `channel` (0..7) of this mux, and nothing on its peers."""
        m = 1 << channel
        if self.mask == m:
            return
        if self.peers is not None:
            for p in self.peers:
                if p is not self and p.mask != 0:
                    p._set(0)
        self._set(m)

    def deselect(self):
        """Disconnect all channels."""
        self._set(0)
