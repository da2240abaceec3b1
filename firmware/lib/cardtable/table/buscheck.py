"""Board config checks of the wiring's electrics: I2C pull-ups and rise time, the SPI build."""
# Imported by configcheck while a board file is checked, and unloaded with it. Integer maths
# only: this runs on the Pico at boot.
from cardtable.compat import const
from cardtable.table.intmath import isqrt

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
# SPI to readers in a star: every run is a stub on SCK and MOSI, unterminated, and the PN532
# samples on SCK's edges; ringing grows with the wire. Our rule of thumb, kept well inside what
# builds report working: the baud in kHz times the metres of wire in all at most 2000 (1 MHz on
# 2 m of runs, 5 MHz, the PN532's most, on 40 cm).
SPI_KHZ_M = const(2000)
CAT5E_CORES = const(8)  # a reader's cable unless the bus says "cable_cores": four twisted pairs
# The TCA9548A's channels are NMOS pass gates (TI SCPS207H section 6.5 and figure "V_pass vs
# V_CC"): at V_CC 3.3 V one passes 1.6 V at least, 1.9 V typically, 2.8 V at most. Below that
# the trunk and the channel are one node (pull-ups in parallel on both wires); above it each
# side rises on its own pull-ups and wire. Between 0.3 and 0.7 VDD (0.99 and 2.31 V) the RC
# rise takes ln(2.31 / 0.99) = 0.8473 RC in one piece (UM10204's figure), or, split at V_pass:
# ln(2.31 / (3.3 - V_pass)) R_both C_both + ln((3.3 - V_pass) / 0.99) R_side C_side, in
# ten-thousandths below. A side's time grows as V_pass falls when it is slower than the joined
# node, so the worst case is V_pass at its minimum (or the joined node, V_pass above 2.31 V).
PASS_MV_MIN = const(1600)
PASS_MV_TYP = const(1900)
LN_ALL = const(8473)
LN_JOINED = {PASS_MV_MIN: 3066, PASS_MV_TYP: 5008}
LN_SIDE = {PASS_MV_MIN: 5407, PASS_MV_TYP: 3465}


def parallel(r1, r2):
    """Two pull-ups in parallel, in ohms (0 = none fitted)."""
    if not r1:
        return r2
    if not r2:
        return r1
    return r1 * r2 // (r1 + r2)


def rise_ns(ohms, pf):
    """UM10204's t_r = 0.8473 R C in ns (R in ohms, C in pF), in small ints."""
    return (ohms * pf // 1000) * LN_ALL // 10000


def rise2_ns(rt, ct, rc, cc, pass_mv=PASS_MV_MIN):
    """t_r in ns of the slower side of a TCA9548A channel: the trunk (pull-up rt ohms, ct pF)
    and the channel (rc, cc) joined by the pass gate up to pass_mv, each on its own above;
    -1 if a side has no pull-up (it never rises past the pass gate's voltage)."""
    if not rt or not rc:
        return -1
    joined = (parallel(rt, rc) * (ct + cc) // 1000) * LN_JOINED[pass_mv]
    side = max(rt * ct, rc * cc) // 1000 * LN_SIDE[pass_mv]
    return max((joined + side) // 10000, rise_ns(parallel(rt, rc), ct + cc))


def sides(bus, readers, name):
    """(reader index, trunk ohms, trunk pF, channel ohms, channel pF, wire mm) per reader on
    I2C bus `name`; a reader on the trunk (no mux) has channel (0, 0) and its own pull-up and
    pin on the trunk."""
    muxes = []
    for r in readers:
        if r.get("bus") == name and "mux" in r and r["mux"] not in muxes:
            muxes.append(r["mux"])
    trunk = bus.get("cable_mm", 0)
    tpf = (trunk * CABLE_PF_M + 500) // 1000 + (1 + len(muxes)) * PIN_PF
    out = []
    for i in range(len(readers)):
        r = readers[i]
        if r.get("bus") != name:
            continue
        mm = r.get("cable_mm", 0)
        cpf = (mm * CABLE_PF_M + 500) // 1000 + PIN_PF
        if "mux" in r:
            out.append((i, bus.get("pullup", 0), tpf, r.get("pullup", 0), cpf + PIN_PF,
                        trunk + mm))
        else:
            out.append((i, parallel(bus.get("pullup", 0), r.get("pullup", 0)), tpf + cpf, 0, 0,
                        trunk + mm))
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


# Reader modules and their levels: (I2C/SPI lines in mV, P70_IRQ as it reaches the Pico in mV
# (0: undocumented, to be measured), the share of RSTPDN's drive that reaches the PN532 in
# thousandths).
# - Elechouse PN532 NFC Module V3: its bus lines are at the PN532's 3.3 V (the shipped builds
#   rely on it); which side of its level shifter IRQ sits on is undocumented, and its RSTPDN
#   goes through a 10 k / 20 k divider, so 3.3 V from a GPIO reaches the PN532 as 2.2 V, at
#   its threshold (users report random freezes): IRQ 0, RSTPDN 667.
# - Adafruit 364 (PN532 breakout v1.6): no level shifting; IRQ and RSTPDN are the PN532's own
#   pins at 3.3 V (NXP PN532 datasheet: PVDD / DVDD 3.3 V).
MODULES = {"elechouse-v3": (3300, 0, 667), "adafruit-364": (3300, 3300, 1000)}
MODULE = "elechouse-v3"  # a reader with no "module"
MODULE_NAMES = {"elechouse-v3": "the Elechouse V3", "adafruit-364": "the Adafruit 364"}
GPIO_MV_MAX = const(3600)  # RP2040 datasheet: IOVDD + 0.3 V at most on a GPIO (not 5 V tolerant)
RST_MV_MIN = const(2900)  # RSTPDN at the PN532 well clear of its V_IH (0.7 x 3.3 V = 2.3 V)
GPIO_MV = const(3300)  # what a GPIO drives


def _levels(ck, readers):
    """Each reader module's levels against the Pico's pins: a 5 V signal to a GPIO and an
    undocumented level on a wired IRQ or RSTPDN (a reader's own, or its bus's shared line) are
    refused."""
    said = []
    for i in range(len(readers)):
        r = readers[i]
        if not isinstance(r, dict):
            continue
        key = "readers[%d]" % i
        m = r.get("module", MODULE)
        if m not in MODULES:
            ck.bad(key + ".module", "unknown reader module %r (known: %s)" % (
                m, ", ".join(sorted(MODULES))))
            continue
        if not _ints(ck, key, r, ("irq_mv", "rst_mv"), 0, 12000):
            continue
        bus_mv, irq_mv, rst_mv = MODULES[m]
        name = MODULE_NAMES[m]
        if bus_mv > GPIO_MV_MAX:
            ck.bad(key + ".module", "%s's bus lines are at %d mV: the RP2040 is not 5 V"
                   " tolerant; fit a level shifter" % (name, bus_mv))
        if r.get("irq") is not None:
            mv = r.get("irq_mv", irq_mv)
            if not mv:
                ck.bad(key + ".irq", "%s's IRQ level is undocumented (which side of its level"
                       " shifter it sits on): before wiring it to GP%s, measure its idle level"
                       " to GND (`cardtable doctor --bringup` says when) and write"
                       " \"irq_mv\", or use an Adafruit 364 (\"module\": \"adafruit-364\")"
                       % (name, r["irq"]))
            elif mv > GPIO_MV_MAX:
                ck.bad(key + ".irq", "%d mV on GP%s: the RP2040 is not 5 V tolerant (%d mV at"
                       " most); put a divider or a level shifter between them" % (
                           mv, r["irq"], GPIO_MV_MAX))
        if r.get("rst") is not None:
            _rst_level(ck, key + ".rst", name, r["rst"], r.get("rst_mv", GPIO_MV), rst_mv)
        bn = r.get("bus")
        bus = ck.cfg.get("buses", {}).get(bn)
        if isinstance(bus, dict) and bus.get("rst") is not None and bn not in said:
            n = len(ck.problems)
            if _ints(ck, "buses.%s" % bn, bus, ("rst_mv",), 0, 12000):
                _rst_level(ck, "buses.%s.rst" % bn, "%s (readers[%d])" % (name, i), bus["rst"],
                           bus.get("rst_mv", GPIO_MV), rst_mv)
            if len(ck.problems) > n:
                said.append(bn)  # (once per bus: the line is the same for every reader)


def _rst_level(ck, key, name, gp, drive, share):
    """RSTPDN driven at `drive` mV from GPgp reaches the PN532 as share/1000 of it: well above
    its threshold, and not above its 3.3 V supply."""
    mv = drive * share // 1000
    if mv < RST_MV_MIN:
        ck.bad(key, "%s's RSTPDN reaches the PN532 as %d mV when GP%s drives it with %d (a"
               " 10 k / 20 k divider on the module), at its threshold (random freezes): drive it"
               " at 5 V through the 74AHCT125 and write \"rst_mv\": 5000, or use an Adafruit"
               " 364" % (name, mv, gp, drive))
    elif mv > GPIO_MV_MAX:
        ck.bad(key, "%s's RSTPDN would get %d mV from GP%s's %d mV line: above the PN532's 3.3 V"
               " supply (no divider on that module); drive it straight from the GPIO (leave out"
               " \"rst_mv\")" % (name, mv, gp, drive))


def signals(kind, r, bus=None):
    """The signals reader r's cable carries besides GND, the fastest first (the pairing puts
    each of those with a ground of its own while the pairs last); bus: the bus's board entry
    (its shared RSTPDN line, "rst", goes to every reader on it)."""
    s = ["SCL", "SDA", "5V"] if kind == "i2c" else ["SCK", "MISO", "MOSI", "5V", "CS"]
    if r.get("irq") is not None:
        s.append("IRQ")
    if r.get("rst") is not None or bus is not None and bus.get("rst") is not None:
        s.append("RSTPDN")
    return s


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
            _spi_runs(ck, b, bn, readers)
        if kind in ("i2c", "spi"):
            _cores(ck, bn, d, kind, readers)
    _levels(ck, readers)


def _cores(ck, bn, d, kind, readers):
    """Each reader's cable has a core for every signal it carries and one for GND."""
    if not _ints(ck, "buses." + bn, d, ("cable_cores",), 1, 64):
        return
    cores = d.get("cable_cores", CAT5E_CORES)
    for i in range(len(readers)):
        r = readers[i]
        if r.get("bus") != bn:
            continue
        need = signals(kind, r, d)
        if len(need) + 1 > cores:
            ck.bad("buses.%s.cable_cores" % bn, "%d-core cable cannot carry %s to a reader: it"
                   " needs %d for readers[%d] (%s, GND); use Cat5e (8 cores, four pairs) and"
                   " write \"cable_cores\": 8" % (cores, kind.upper(), len(need) + 1, i,
                                                 ", ".join(need)))
            return


def _i2c(ck, b, bn, d, readers):
    # Check an I2C bus: its trunk, its readers' pull-ups and wires, then its rise time.
    mine = [i for i in range(len(readers)) if readers[i].get("bus") == bn]
    muxed = [i for i in mine if "mux" in readers[i]]
    ok = _i2c_trunk(ck, b, bn, d, readers, mine, muxed)
    ok = _i2c_readers(ck, bn, d, readers, mine) and ok
    if not ok:
        return
    _lengths(ck, cfg_at(ck), d, readers, mine)
    worst = _i2c_slowest(ck, d, readers, bn)
    if worst is not None:
        _i2c_freq(ck, b, bn, d, worst)


def _i2c_trunk(ck, b, bn, d, readers, mine, muxed):
    # Check the trunk's pull-ups, wire, mux RESET and shared RSTPDN; False if unusable.
    key = "buses." + bn
    ok = _ints(ck, key, d, ("pullup",), 0, OHM_MAX) and _ints(ck, key, d, ("cable_mm",), 0,
                                                              CABLE_MM_MAX)
    if "cable_mm" not in d:
        ck.bad(key, "missing 'cable_mm': the wire's length in mm from the Pico to %s (the"
               " rise-time check needs it)" % ("the muxes" if muxed else "the reader"))
        ok = False
    _i2c_reset(ck, b, bn, d, muxed)
    _i2c_rst(ck, b, bn, d, readers, mine)
    if muxed and not d.get("pullup") and _ints(ck, key, d, ("pullup",), 0, OHM_MAX):
        ck.bad(key, "no pull-ups on the trunk of %s: a TCA9548A channel passes only up to about"
               " 1.6-2.8 V (TI SCPS207H), so above that the Pico's side rises on the trunk's"
               " own pull-ups; fit 4.7-10 kohm from SDA and SCL to 3.3 V at the Pico (the"
               " Adafruit 2717 has 10 kohm) and write \"pullup\"" % bn)
        ok = False
    return ok


def _i2c_reset(ck, b, bn, d, muxed):
    # The muxes' RESET pin, or a warning that a latched-up reader would stop the bus.
    key = "buses." + bn
    reset = None
    if "reset" in d:
        if muxed:
            reset = ck.pin(key + ".reset", d["reset"])
        else:
            ck.bad(key + ".reset", "no TCA9548A on %s to reset" % bn)
    elif muxed:
        ck.warn(key, "no \"reset\": the muxes' RESET is not on a GPIO, so a reader latched up"
                " holding SDA low (one that nine clocks do not free) stops every reader on %s until"
                " the power is cut; wire RESET to a free pin and name it in \"reset\"" % bn)
    if reset is not None:
        b.buses[bn]["reset"] = reset


def _i2c_rst(ck, b, bn, d, readers, mine):
    # The bus's shared RSTPDN line, which its readers may not also have their own of.
    key = "buses." + bn
    if "rst" in d:
        rst = ck.pin(key + ".rst", d["rst"])
        if rst is not None:
            b.buses[bn]["rst"] = rst
        for i in mine:
            if "rst" in readers[i]:
                ck.bad("readers[%d].rst" % i, "%s has one RSTPDN line for all its readers"
                       " (buses.%s.rst): wire this reader's RSTPDN to it and leave out its"
                       " own \"rst\"" % (bn, bn))
    elif "rst_mv" in d:
        ck.bad(key + ".rst_mv", "no shared RSTPDN line (\"rst\") on %s to drive" % bn)


def _i2c_readers(ck, bn, d, readers, mine):
    # Check each reader's pull-ups and wire on the bus; False if one is unusable.
    ok = True
    for i in mine:
        r = readers[i]
        rkey = "readers[%d]" % i
        if not (_ints(ck, rkey, r, ("pullup",), 0, OHM_MAX)
                and _ints(ck, rkey, r, ("cable_mm",), 0, CABLE_MM_MAX)):
            ok = False
            continue
        if "mux" in r:
            if not r.get("pullup"):
                ck.bad(rkey, "no pull-ups on %s: a TCA9548A channel passes only up to about 1.9 V"
                       " (1.6-2.8 V at VCC 3.3 V, TI SCPS207H) from the Pico's side, so each"
                       " channel needs pull-ups of"
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
    return ok


def _i2c_slowest(ck, d, readers, bn):
    # Check each reader's pull-up strength, load and wire; (rise ns, why, slow side) of the slowest
    # to rise, or None.
    worst = None
    for i, rt, ct, rc, cc, mm in sides(d, readers, bn):
        rkey = "readers[%d]" % i
        ohms = parallel(rt, rc)
        pf = ct + cc
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
        if rc:
            tr = rise2_ns(rt, ct, rc, cc)
            slow = "the trunk" if rt * ct >= rc * cc else "the channel"
            why = ("%s rises in %d ns: above the pass gate's 1.6 V (its lowest, TI SCPS207H)"
                   " %s rises alone (trunk: %d ohm of pull-ups on %d pF; channel: %d ohm on"
                   " %d pF; %d mm of wire in all)" % (_label(readers[i]), tr, slow, rt, ct,
                                                       rc, cc, mm))
        else:
            tr = rise_ns(ohms, pf)
            slow = "the bus"
            why = "%s rises in %d ns (%d ohm of pull-ups, %d pF: %d mm of wire and the pins)" % (
                _label(readers[i]), tr, ohms, pf, mm)
        if worst is None or tr > worst[0]:
            worst = (tr, why, slow)
    return worst


def _i2c_freq(ck, b, bn, d, worst):
    # Check the bus's clock against its slowest rise time, or choose it.
    key = "buses." + bn
    tr, why, slow = worst
    b.buses[bn]["rise_ns"] = tr
    if "freq" in d:
        freq = d["freq"]
        need = FAST_TR_NS if freq > STD_HZ else STD_TR_NS
        if tr > need:
            ck.bad(key + ".freq", "%d Hz allows a rise time of %d ns (UM10204), but %s; %s" % (
                freq, need, why, "set \"freq\": 100000 or fit stronger pull-ups on %s" % slow
                if tr <= STD_TR_NS else "fit stronger pull-ups on %s or shorten the wires" % slow))
    elif tr <= FAST_TR_NS:
        b.buses[bn]["freq"] = FAST_HZ
    elif tr <= STD_TR_NS:
        b.buses[bn]["freq"] = STD_HZ
    else:
        ck.bad(key, "too slow even for 100 kHz (%d ns allowed): %s; fit stronger pull-ups on %s"
               " or shorten the wires" % (STD_TR_NS, why, slow))


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
    """A trunk at least as long as the straight line the drawing shows (else t_r is too low)."""
    pico, zone_at = where
    muxes = d.get("muxes", {})

    def far(a, b):
        try:
            dx, dy = a[0] - b[0], a[1] - b[1]
            return isqrt(dx * dx + dy * dy)
        except (TypeError, IndexError, KeyError):
            return 0  # (malformed positions are reported elsewhere)

    trunk = d["cable_mm"]
    for a in sorted(muxes):
        mm = far(pico, muxes[a]) if pico is not None else 0
        if mm > trunk:
            ck.bad("buses.%s.cable_mm" % readers[mine[0]]["bus"], "%d mm is shorter than the"
                   " %d mm from the Pico to mux %s on the drawing" % (trunk, mm, a))
    # (each reader's run against its route on the drawing: table/geomcheck.py)


def _spi_runs(ck, b, bn, readers):
    """Every SPI reader gives its run's length; the baud is capped by the wire in all."""
    total = 0
    for i in range(len(readers)):
        r = readers[i]
        if r.get("bus") != bn:
            continue
        rkey = "readers[%d]" % i
        if "cable_mm" not in r:
            ck.bad(rkey, "missing 'cable_mm': the wire's length in mm from the Pico to the reader"
                   " (the SPI speed check needs it)")
            return
        if not _ints(ck, rkey, r, ("cable_mm",), 0, CABLE_MM_MAX):
            return
        total += r["cable_mm"]
    baud = b.buses[bn].get("baud")
    if not total or not isinstance(baud, int):
        return
    most = SPI_KHZ_M * 1000 // total * 1000  # Hz
    if baud > most:
        ck.bad("buses.%s.baud" % bn, "%d Hz over %d mm of SCK and MOSI in a star (every reader's"
               " run): at most %d Hz there (%d kHz x m); lower \"baud\" or shorten the runs" % (
                   baud, total, most, SPI_KHZ_M))


def _spi(ck, key, d):
    _ints(ck, key, d, ("cs_pullup", "sck_series"), 0, OHM_MAX)
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
