# host only: never imported on the board (simulated hardware: tools/firmware/boardfiles.py)
"""pn532_emu with electrical faults on I2C: a PN532 that holds SDA low, and a bus that sees
the pins a bus clear drives (runs on MicroPython too). Pass this module where pn532_emu goes
(hw_sim's emu); the plain emulator stays small for the tests that need no faults."""
from cardtable.sim.pn532_emu import *  # noqa: F401,F403 - the same emulator, plus faults
from cardtable.sim import pn532_emu as _emu

ETIMEDOUT = 110  # what the rp2 port's I2C raises when the bus does not move


class PN532Emu(_emu.PN532Emu):
    """hold_sda: the next I2C transaction addressed to it leaves SDA held low, n > 0 until n SCL
    clocks reach it (a byte cut off mid-way), -1 for good (until RSTPDN or its mux channel
    cuts it off)."""

    def __init__(self, *tags):
        _emu.PN532Emu.__init__(self, *tags)
        self.hold_sda = 0
        self.holding = False  # SDA is held low now


class FakeI2C(_emu.FakeI2C):
    """A device holding SDA fails every transaction with OSError(ETIMEDOUT) while its channel
    is connected. wire(scl, sda, reset) connects FakePins for a bus clear: SCL clocks reach a
    holding device, SDA rising while SCL is high is a STOP, and RESET low turns every mux's
    channels off (TCA9548A)."""

    def __init__(self):
        _emu.FakeI2C.__init__(self)
        self.stops = 0
        self.resets = 0
        self._scl = None

    def wire(self, scl, sda, reset=None):
        """FakePins standing for the bus's SCL and SDA as GPIOs, and the muxes' RESET."""
        self._scl = scl
        scl._watch.append(self._scl_edge)
        sda._watch.append(self._sda_edge)
        if reset is not None:
            reset._watch.append(self._reset_edge)

    def _scl_edge(self, v):
        if v:
            for a, face, mux, ch in self.devices:
                e = face.emu
                if e.holding and e.hold_sda > 0 and (mux is None or mux.mask & (1 << ch)):
                    e.hold_sda -= 1
                    e.holding = e.hold_sda != 0  # at 0 the byte it was sending is clocked out

    def _sda_edge(self, v):
        if v and self._scl.value():
            self.stops += 1

    def _reset_edge(self, v):
        if not v:
            self.resets += 1
            for m in self.muxes:
                m.mask = 0

    def _held(self):
        for a, face, mux, ch in self.devices:
            if getattr(face.emu, "holding", False) and (mux is None or mux.mask & (1 << ch)):
                return True
        return False

    def _check(self, addr):
        """Raise as the rp2 port does if SDA is held, or is grabbed by this transaction."""
        if not self._held() and self._mux(addr) is None:
            for f in self._visible(addr):
                if getattr(f.emu, "hold_sda", 0):
                    f.emu.holding = True
        if self._held():
            self.transactions += 1
            raise OSError(ETIMEDOUT)

    def writeto(self, addr, buf, stop=True):
        self._check(addr)
        return _emu.FakeI2C.writeto(self, addr, buf, stop)

    def readfrom_into(self, addr, buf, stop=True):
        self._check(addr)
        _emu.FakeI2C.readfrom_into(self, addr, buf, stop)
