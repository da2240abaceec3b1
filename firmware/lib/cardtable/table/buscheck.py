"""Board config checks of the wiring's electrics: I2C pull-ups and rise time, the SPI build."""
# Imported by configcheck while a board file is checked, and unloaded with it. Integer maths
# only: this runs on the Pico at boot.
from cardtable.compat import const

# NXP UM10204 rev. 7 (I2C-bus specification), table 10: rise time t_r at most 1000 ns in
# Standard-mode (100 kHz) and 300 ns in Fast-mode (400 kHz); bus capacitance at most 400 pF;
# capacitance of one I/O pin C_i at most 10 pF. Section 7.1: t_r = 0.8473 Rp Cb (0.3 to 0.7 VDD)
# and Rp(min) = (VDD - VOL) / IOL = (3.3 V - 0.4 V) / 3 mA.
STD_HZ = const(100000)
FAST_HZ = const(400000)
STD_TR_NS = const(1000)
FAST_TR_NS = const(300)
MAX_PF = const(400)
PIN_PF = const(10)
RP_MIN = const(967)
# One signal twisted with a ground: twisted pair is 40-80 pF/m (Cat5e at most 56 pF/m by the
# ANSI/TIA-568 mutual capacitance limit, 5.6 nF per 100 m); we count 80, the top, for loosely
# twisted hook-up wire.
CABLE_PF_M = const(80)
LONG_MM = const(1000)  # I2C is a bus for one board: warn above about a metre of wire
CABLE_MM_MAX = const(5000)
OHM_MAX = const(100000)
SPI_CORES = const(6)  # SCK, MOSI, MISO, chip select, 5 V, GND


def parallel(r1, r2):
    """Two pull-ups in parallel, in ohms (0 = none fitted)."""
    if not r1:
        return r2
    if not r2:
        return r1
    return r1 * r2 // (r1 + r2)


def rise_ns(ohms, pf):
    """UM10204's t_r = 0.8473 R C in ns (R in ohms, C in pF), in small ints."""
    return (ohms * pf // 1000) * 8473 // 10000


def segments(bus, readers, name):
    """(reader index, pull-up ohms, pF, t_r ns, wire mm) per reader on I2C bus `name`.

    With a channel selected, the TCA9548A's pass gate joins the trunk to that channel: the
    trunk's and the channel's pull-ups work in parallel on the wire of both, the Pico's pin,
    each mux's trunk pin, the channel's pin and the PN532's pin (10 pF each).
    """
    muxes = []
    for r in readers:
        if r.get("bus") == name and "mux" in r and r["mux"] not in muxes:
            muxes.append(r["mux"])
    trunk = bus.get("cable_mm", 0)
    out = []
    for i in range(len(readers)):
        r = readers[i]
        if r.get("bus") != name:
            continue
        mm = trunk + r.get("cable_mm", 0)
        pins = 2 + len(muxes) + (1 if "mux" in r else 0)
        pf = (mm * CABLE_PF_M + 500) // 1000 + pins * PIN_PF
        ohms = parallel(bus.get("pullup", 0), r.get("pullup", 0))
        out.append((i, ohms, pf, rise_ns(ohms, pf) if ohms else -1, mm))
    return out


def _label(r):
    if "mux" in r:
        return "mux %s ch %s" % (r["mux"], r["ch"])
    return "the reader"


def _ints(ck, key, d, names, lo, hi):
    ok = True
    for k in names:
        if k in d and ck.num("%s.%s" % (key, k), d[k], lo, hi) is None:
            ok = False
    return ok


def check(ck, b, cfg):
    """Add the electrical problems and warnings of board config cfg to ck; pick I2C speeds."""
    ck.cfg = cfg
    buses = cfg.get("buses", {})
    readers = cfg.get("readers", [])
    for bn in sorted(b.buses):
        d = buses[bn]
        kind = d["kind"]
        if kind == "i2c":
            _i2c(ck, b, bn, d, readers)
        elif kind == "spi":
            _spi(ck, "buses." + bn, d)


def _i2c(ck, b, bn, d, readers):
    key = "buses." + bn
    mine = [i for i in range(len(readers)) if readers[i].get("bus") == bn]
    muxed = [i for i in mine if "mux" in readers[i]]
    ok = _ints(ck, key, d, ("pullup",), 0, OHM_MAX) and _ints(ck, key, d, ("cable_mm",), 0,
                                                              CABLE_MM_MAX)
    if "cable_mm" not in d:
        ck.bad(key, "missing 'cable_mm': the wire's length in mm from the Pico to %s (the"
               " rise-time check needs it)" % ("the muxes" if muxed else "the reader"))
        ok = False
    reset = None
    if "reset" in d:
        if muxed:
            reset = ck.pin(key + ".reset", d["reset"])
        else:
            ck.bad(key + ".reset", "no TCA9548A on %s to reset" % bn)
    elif muxed:
        ck.warn(key, "no \"reset\": the muxes' RESET is not on a GPIO, so a reader that holds SDA"
                " low stops every reader on %s until the power is cut; wire RESET to a free pin"
                " and name it in \"reset\"" % bn)
    if reset is not None:
        b.buses[bn]["reset"] = reset
    for i in mine:
        r = readers[i]
        rkey = "readers[%d]" % i
        if not (_ints(ck, rkey, r, ("pullup",), 0, OHM_MAX)
                and _ints(ck, rkey, r, ("cable_mm",), 0, CABLE_MM_MAX)):
            ok = False
            continue
        if "mux" in r:
            if not r.get("pullup"):
                ck.bad(rkey, "no pull-ups on %s: a TCA9548A channel passes at most about VCC - 1 V"
                       " from the Pico's side (TI SCPS207H), so each channel needs pull-ups of"
                       " its own, and a module without them (the Adafruit 364 has none) never"
                       " answers there; fit 2.2 kohm from SDn and SCn to 3.3 V and write"
                       " \"pullup\": 2200 (or the module's own value)" % _label(r))
                ok = False
            if "cable_mm" not in r:
                ck.bad(rkey, "missing 'cable_mm': the wire's length in mm from the mux to the"
                       " reader (the rise-time check needs it)")
                ok = False
        elif not r.get("pullup") and not d.get("pullup"):
            ck.bad(rkey, "no pull-ups on %s: give the module's own in \"pullup\", or fit"
                   " 2.2 kohm from SDA and SCL to 3.3 V and name them in the bus's"
                   " \"pullup\"" % bn)
            ok = False
    if not ok:
        return
    _lengths(ck, cfg_at(ck), d, readers, mine)
    worst = None
    for seg in segments(d, readers, bn):
        i, ohms, pf, tr, mm = seg
        rkey = "readers[%d]" % i
        if ohms < RP_MIN:
            ck.bad(rkey, "%d ohm of pull-ups (trunk and channel together) is more than a chip"
                   " can pull low: at least %d ohm for 3 mA at 0.4 V (UM10204)" % (ohms, RP_MIN))
        if pf > MAX_PF:
            ck.bad(rkey, "%d pF on the bus with %s selected: I2C allows %d pF (UM10204);"
                   " shorten the wires" % (pf, _label(readers[i]), MAX_PF))
        if mm > LONG_MM:
            ck.warn(rkey, "%d mm of wire from the Pico to %s: above about 1 m, noise and"
                    " crosstalk corrupt I2C; put the mux nearer its readers" % (
                        mm, _label(readers[i])))
        if worst is None or tr > worst[3]:
            worst = seg
    if worst is None:
        return
    i, ohms, pf, tr, mm = worst
    why = "%s rises in %d ns (%d ohm of pull-ups, %d pF: %d mm of wire and the pins)" % (
        _label(readers[i]), tr, ohms, pf, mm)
    b.buses[bn]["rise_ns"] = tr
    if "freq" in d:
        freq = d["freq"]
        need = FAST_TR_NS if freq > STD_HZ else STD_TR_NS
        if tr > need:
            ck.bad(key + ".freq", "%d Hz allows a rise time of %d ns (UM10204), but %s; %s" % (
                freq, need, why, "set \"freq\": 100000 or fit stronger pull-ups"
                if tr <= STD_TR_NS else "fit stronger pull-ups or shorten the wires"))
    elif tr <= FAST_TR_NS:
        b.buses[bn]["freq"] = FAST_HZ
    elif tr <= STD_TR_NS:
        b.buses[bn]["freq"] = STD_HZ
    else:
        ck.bad(key, "too slow even for 100 kHz (%d ns allowed): %s; fit stronger pull-ups or"
               " shorten the wires" % (STD_TR_NS, why))


def cfg_at(ck):
    """(Pico [x, y] or None, zone [x, y] by reader index) from the config being checked."""
    cfg = ck.cfg
    pico = cfg.get("pico")
    at = {}
    zones = cfg.get("zones")
    if isinstance(zones, dict):
        for z in zones.values():
            if isinstance(z, dict) and isinstance(z.get("reader"), int):
                at[z["reader"]] = z.get("at")
    return (pico.get("at") if isinstance(pico, dict) else None), at


def _lengths(ck, where, d, readers, mine):
    """Wire at least as long as the straight line the drawing shows (else t_r is too low)."""
    from cardtable.table.configcheck import _isqrt

    pico, zone_at = where
    muxes = d.get("muxes", {})

    def far(a, b):
        try:
            dx, dy = a[0] - b[0], a[1] - b[1]
            return _isqrt(dx * dx + dy * dy)
        except (TypeError, IndexError, KeyError):
            return 0  # (malformed positions are reported elsewhere)

    trunk = d["cable_mm"]
    for a in sorted(muxes):
        mm = far(pico, muxes[a]) if pico is not None else 0
        if mm > trunk:
            ck.bad("buses.%s.cable_mm" % readers[mine[0]]["bus"], "%d mm is shorter than the"
                   " %d mm from the Pico to mux %s on the drawing" % (trunk, mm, a))
    for i in mine:
        r = readers[i]
        start = muxes.get(r.get("mux")) if "mux" in r else None
        mm = far(start, zone_at.get(i)) if start is not None else 0
        if mm > r.get("cable_mm", mm):
            ck.bad("readers[%d].cable_mm" % i, "%d mm is shorter than the %d mm from mux %s to"
                   " its zone on the drawing" % (r["cable_mm"], mm, r["mux"]))


def _spi(ck, key, d):
    _ints(ck, key, d, ("cs_pullup", "sck_series"), 0, OHM_MAX)
    _ints(ck, key, d, ("cable_cores",), 1, 64)
    cores = d.get("cable_cores")
    if cores is None:
        ck.bad(key, "missing 'cable_cores': the conductors in each reader's cable (SPI needs"
               " %d: SCK, MOSI, MISO, chip select, 5 V, GND)" % SPI_CORES)
    elif isinstance(cores, int) and cores < SPI_CORES:
        ck.bad(key + ".cable_cores", "%d-core cable cannot carry SPI to a reader: it needs %d"
               " conductors (SCK, MOSI, MISO, chip select, 5 V, GND)" % (cores, SPI_CORES))
    if not d.get("cs_pullup"):
        ck.bad(key, "no chip-select pull-ups: RP2040 pins come out of reset pulled down, so"
               " until the firmware runs every PN532 is selected and drives MISO at once; fit"
               " 10 kohm from each chip select to 3.3 V and write \"cs_pullup\": 10000")
    sck = d.get("sck_series", 0)
    if not sck:
        ck.warn(key, "no series resistor on SCK: a clock line to several readers rings, and a"
                " PN532 may count an edge twice; fit 33 ohm at the Pico's SCK pin and write"
                " \"sck_series\": 33")
    elif isinstance(sck, int) and not 10 <= sck <= 220:
        ck.warn(key + ".sck_series", "%d ohm in series with SCK: 22 to 100 ohm damps the ringing"
                " without slowing the edges (33 is usual)" % sck)
