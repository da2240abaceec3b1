"""Board config checks: every rule a board file must keep, and the message for each mistake."""
# Imported only while a board file is loaded: table/config.py unloads it again, so none of
# this stays in the heap while the table runs.
import json

from cardtable.compat import const
from cardtable.games import GAMES
from cardtable.table.boardtypes import Board, ConfigError, Layout
from cardtable.table.boardtypes import forget as _unload
from cardtable.table.boardtypes import reader_label as _reader_label
from cardtable.table.intmath import isqrt as _isqrt

FORMAT = const(1)

# How many zones a zone role takes.
SEAT = const(0)  # one per seat: "play 2"
ONE = const(1)  # exactly one: "kitty"
MANY = const(2)  # one or more: "foundation"

# Each game's seats, zone roles, buttons and encoders are in its registry entry (games/__init__.py).
# Roles any game may add: a tap pad lets a player confirm or undo; a deal pad (where the entry
# allows one: not in Nerts, where each player deals their own) reads every card of the deal in
# the game's order.
OPTIONAL_ROLES = (("tap", SEAT),)
DEAL_ROLE = ("deal", ONE)
COMMON_INPUTS = ("confirm", "undo")
# A team game's answers to "confirm the result" (table/inputs.py): the host may always press
# them, as confirm and undo, so a layout without their buttons asks the host for nothing more.
ANSWERS = ("agree", "dispute")
# "say N": seat N's button asks the host to say its hand and the trick (the trick games list it
# among their per-seat verbs). The host never needs it typed: a seat page has it already.
SAY = "say"

# Raspberry Pi Pico: GP0..GP22 and GP26..GP28 are on the header.
OFF_HEADER = {
    23: "GP23 is not on the header (it sets the on-board regulator's mode)",
    24: "GP24 is not on the header (it senses VBUS)",
    25: "GP25 is not on the header (it drives the on-board LED)",
    29: "GP29 is not on the header (it measures VSYS/3)",
}
I2C_MAX_HZ = const(400000)  # PN532 and TCA9548A fast mode
SPI_MAX_HZ = const(5000000)  # PN532 SPI limit
PN532_I2C = const(0x24)
MIN_SPACING_MM = const(100)  # centre to centre: twice a PN532 module's ~50 mm best range
IRQ_SPACING_MM = const(150)  # readers waiting by themselves ("scan": "irq") have fields on at once
# A player's hand of tagged cards rests within about a card's length plus fingers (100 mm) of
# the edge in front of the seat, and a reader reads a tag up to ~50 mm away: keep every zone's
# outline this far from a seated edge, or a hand put down there plays a card.
HAND_MM = const(150)
SEAT_MAX = const(8)
LED_MAX = const(256)

_TOP = ("format", "board", "title", "table", "seats", "buses", "readers", "zones", "leds",
        "buttons", "encoders", "piezo", "pico", "layouts", "scan", "note")
_BUS_KEYS = {"i2c": ("freq", "pullup", "cable_mm", "reset", "muxes", "cable_cores", "rst",
                     "rst_mv"),
             "spi": ("baud", "cs_pullup", "cable_cores", "sck_series"), "uart": ("baud",)}
_I2C_ROLES = ("sda", "scl")
_SPI_ROLES = ("miso", "cs", "sck", "mosi")
_UART_ROLES = ("tx", "rx", "cts", "rts")
_I2C_READER = ("irq", "rst", "pullup", "cable_mm", "module", "irq_mv", "rst_mv", "route")
_OTHER_READER = ("irq", "rst", "cable_mm", "module", "irq_mv", "rst_mv", "route")


def on_header(gp):
    """True if GPgp is a pin on the Pico's header."""
    return 0 <= gp <= 22 or 26 <= gp <= 28


def pin_function(kind, gp):
    """(controller id, signal) GPgp carries for kind 'i2c', 'spi' or 'uart' (RP2040 pin mux)."""
    if kind == "i2c":
        return (gp >> 1) & 1, _I2C_ROLES[gp & 1]
    if kind == "spi":
        return (gp >> 3) & 1, _SPI_ROLES[gp & 3]
    return ((gp + 4) >> 3) & 1, _UART_ROLES[gp & 3]


def pins_for(kind, bus_id, signal):
    """Header pins that can carry signal of controller kind bus_id, e.g. ('i2c', 0, 'sda')."""
    return [gp for gp in range(30) if on_header(gp) and pin_function(kind, gp) == (bus_id, signal)]


def facts(game):
    """A game's registry facts: ((fewest, most) seats, zone roles ((role, SEAT|ONE|MANY), ...),
    button meanings, per-seat button verbs, encoder verbs, whether a deal pad may deal)."""
    seats, zones, buttons, per_seat, encoders, deal = GAMES[game][2].split("|")
    lo, _, hi = seats.partition("-")
    roles = []
    for r in zones.split(","):
        roles.append((r.rstrip("*+"), SEAT if r[-1] == "*" else MANY if r[-1] == "+" else ONE))
    return ((int(lo), int(hi or lo)), tuple(roles), _items(buttons), _items(per_seat),
            _items(encoders), deal == "deal")


def _items(text):
    return tuple(text.split(",")) if text else ()


def parse_role(text):
    """'play 2' -> ('play', 2); 'bid some' -> ('bid', 'some'); 'kitty' -> ('kitty', None)."""
    word, _, arg = text.partition(" ")
    if not arg:
        return word, None
    if arg.isdigit():
        return word, int(arg)
    return word, arg


def _host_verbs(meanings, seat_verbs, nseats, buttons, encoders):
    have = {}
    for inputs in (buttons, encoders):
        for verb_arg in inputs.values():
            have[verb_arg] = True
    need = []
    for m in meanings:
        verb, arg = parse_role(m)
        # (verb, None) is an encoder that covers every value of verb.
        if (verb, arg) not in have and (verb, None) not in have and verb not in need and verb not in ANSWERS:
            need.append(verb)
    for verb in seat_verbs:
        if verb == SAY:
            continue
        for s in range(nseats):
            if (verb, s) not in have and verb not in need:
                need.append(verb)
    return tuple(need)


def _show(v):
    try:
        return json.dumps(v)
    except (TypeError, ValueError):
        return repr(v)


BUSCHECK = "cardtable.table.buscheck"  # (table/config.py unloads them by these names too)
GEOMCHECK = "cardtable.table.geomcheck"


def _drop(mod):
    """Unload a check module once it has run, and collect (the Pico's heap is small)."""
    import gc

    _unload(mod)
    gc.collect()


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


class _Check:
    def __init__(self):
        self.problems = []
        self.warnings = []
        self.pins = {}  # GP -> key that claimed it
        self.round = None  # (rx, ry) of a round table: points must lie inside it

    def bad(self, key, msg):
        self.problems.append("%s: %s" % (key, msg) if key else msg)

    def warn(self, key, msg):
        self.warnings.append("%s: %s" % (key, msg) if key else msg)

    def obj(self, key, v, required, optional=()):
        """True if v is an object with the required keys and no unknown ones."""
        if not isinstance(v, dict):
            self.bad(key, "expected an object, got %s" % _show(v))
            return False
        ok = True
        for k in required:
            if k not in v:
                self.bad(key, "missing %r" % k)
                ok = False
        for k in sorted(v):
            if k not in required and k not in optional and k != "note":
                self.bad(key, "unknown key %r (expected: %s)" % (
                    k, ", ".join(list(required) + list(optional))))
        return ok

    def mapping(self, key, v):
        """True if v is an object of named entries."""
        if not isinstance(v, dict):
            self.bad(key, "expected an object of named entries, got %s" % _show(v))
            return False
        return True

    def num(self, key, v, lo, hi):
        if not _is_int(v):
            self.bad(key, "expected a whole number %d..%d, got %s" % (lo, hi, _show(v)))
            return None
        if v < lo or v > hi:
            self.bad(key, "%d is out of range %d..%d" % (v, lo, hi))
            return None
        return v

    def name(self, key, v):
        if not isinstance(v, str) or not v or len(v) > 24 or not _ident(v):
            self.bad(key, "expected a short name of letters, digits, '-' and '_', got %s"
                     % _show(v))
            return None
        return v

    def pin(self, key, v):
        """Claim GPv for key; every pin may be claimed once."""
        if not _is_int(v) or v < 0 or v > 29:
            self.bad(key, "expected a Pico GP number 0..29, got %s" % _show(v))
            return None
        if v in OFF_HEADER:
            self.bad(key, OFF_HEADER[v])
            return None
        other = self.pins.get(v)
        if other is not None:
            self.bad(None, "GP%d is used twice: by %s and by %s" % (v, other, key))
            return None
        self.pins[v] = key
        return v

    def point(self, key, v, w, h, on_table=True):
        if (not isinstance(v, list) or len(v) != 2 or not _is_int(v[0]) or not _is_int(v[1])
                or not 0 <= v[0] <= w or not 0 <= v[1] <= h):
            self.bad(key, "expected [x, y] in mm inside the %d x %d table, got %s" % (
                w, h, _show(v)))
            return None
        if on_table and self.round is not None and rim_gap(self.round, v[0], v[1]) < 0:
            self.bad(key, "%s is off the round table (%d mm across)" % (
                _show(v), self.round[0] * 2))
            return None
        return v[0], v[1]


def rim_gap(rxy, x, y):
    """mm from (x, y) in to the rim of an elliptic table with radii rxy (< 0: outside)."""
    rx, ry = rxy
    dx = x - rx
    dy = (y - ry) * rx // ry  # stretch the ellipse into a circle of radius rx
    return rx - _isqrt(dx * dx + dy * dy)


def _ident(s):
    for ch in s:
        if not (ch.isalpha() or ch.isdigit() or ch in "-_"):
            return False
    return True


def _addr(ck, key, text):
    v = text
    if isinstance(v, str) and v[:2] in ("0x", "0X"):
        try:
            v = int(v, 16)
        except ValueError:
            pass
    if not _is_int(v) or not 0x70 <= v <= 0x77:
        ck.bad(key, "expected a TCA9548A address \"0x70\"..\"0x77\", got %s" % _show(text))
        return None
    return v


def load(path):
    """Load and validate the board file at path; raises ConfigError."""
    source = path.replace("\\", "/").rsplit("/", 1)[-1]
    try:
        f = open(path)
    except OSError as e:
        raise ConfigError(source, ["cannot read the file (%s)" % e])
    try:  # parsed from the stream: the file's text is never in the heap whole
        cfg = json.load(f)
    except OSError as e:
        raise ConfigError(source, ["cannot read the file (%s)" % e])
    except ValueError as e:
        raise ConfigError(source, ["not valid JSON (%s)" % e])
    finally:
        f.close()
    stem = source[:-5] if source.endswith(".json") else source
    return validate(cfg, source, stem)


def validate(cfg, source="<board>", expect_name=None):
    """Check a board config dict and return a Board; raises ConfigError listing every problem."""
    ck = _Check()
    b = Board()
    if not ck.obj(None, cfg, (), _TOP):
        raise ConfigError(source, ck.problems)
    _names(ck, b, cfg, source, expect_name)
    table = cfg.get("table", {"w": 900, "h": 900})
    w, h = _table(ck, table)
    if isinstance(table, dict) and table.get("shape") == "round":
        ck.round = (w // 2, h // 2)
    seats = _seats(ck, b, cfg.get("seats"), w, h)
    _wiring(ck, b, cfg, w, h)
    leds = {}  # LED index -> key that lights it
    _zones(ck, b, cfg.get("zones"), w, h, leds)
    _hands(ck, cfg.get("zones"), seats, w, h)
    _scan(ck, b, cfg.get("scan", "poll"), cfg.get("zones"))
    _buttons(ck, b, cfg.get("buttons", {}), w, h, leds)
    _encoders(ck, b, cfg.get("encoders", {}), w, h)
    _placed(ck, b, cfg, w, h)
    _layouts(ck, b, cfg.get("layouts", {}))
    if ck.problems:
        raise ConfigError(source, ck.problems)
    b.warnings = tuple(ck.warnings)
    return b


def _names(ck, b, cfg, source, expect_name):
    # The format, the board's name (its file's) and its title.
    if cfg.get("format") != FORMAT:
        ck.bad("format", "expected %d, got %s" % (FORMAT, _show(cfg.get("format"))))
    name = ck.name("board", cfg.get("board"))
    if name is not None and expect_name is not None and name != expect_name:
        ck.bad("board", "%r does not match the file name %r" % (name, expect_name))
    b.name = name or source
    title = cfg.get("title", "")
    if not isinstance(title, str):
        ck.bad("title", "expected text")
    b.title = title if isinstance(title, str) else ""


def _wiring(ck, b, cfg, w, h):
    # The buses, the LED chain and the readers, then the buses' electrical check.
    nbus = len(ck.problems)
    _buses(ck, b, cfg.get("buses", {}), w, h)
    _leds(ck, b, cfg.get("leds"))
    _readers(ck, b, cfg.get("readers"))
    if len(ck.problems) == nbus and b.readers:
        from cardtable.table import buscheck

        buscheck.check(ck, b, cfg)
        buscheck = None
        _drop(BUSCHECK)  # the geometry's check comes next: one at a time in the heap


def _placed(ck, b, cfg, w, h):
    # The piezo and the Pico, then the geometry's check (pads, trunks, cables).
    piezo = cfg.get("piezo")
    if piezo is not None and ck.obj("piezo", piezo, ("pin",), ("at",)):
        b.piezo_pin = ck.pin("piezo.pin", piezo["pin"])
        if "at" in piezo:
            ck.point("piezo.at", piezo["at"], w, h)
    pico = cfg.get("pico")
    if pico is not None and ck.obj("pico", pico, ("at",)):
        ck.point("pico.at", pico["at"], w, h)
    if b.readers and b.zone_reader:
        from cardtable.table import geomcheck

        geomcheck.check(ck, b, cfg, w, h)
        geomcheck = None
        _drop(GEOMCHECK)


def _layouts(ck, b, layouts):
    # Each game layout, once the board itself has no problem.
    if ck.mapping("layouts", layouts) and not ck.problems:
        if not layouts:
            ck.bad("layouts", "no game layouts: add one per game the table plays")
        for ln in sorted(layouts):
            lay = _layout(ck, b, ln, layouts[ln])
            if lay is not None:
                b.layouts[ln] = lay
    elif isinstance(layouts, dict) and layouts:
        ck.bad("layouts", "not checked until the problems above are fixed")


def _table(ck, t):
    if not ck.obj("table", t, ("w", "h"), ("shape",)):
        return 900, 900
    if t.get("shape", "rect") not in ("rect", "round"):
        ck.bad("table.shape", "expected \"rect\" or \"round\", got %s" % _show(t.get("shape")))
    w = ck.num("table.w", t["w"], 200, 3000)
    h = ck.num("table.h", t["h"], 200, 3000)
    return w or 900, h or 900


def _seats(ck, b, seats, w, h):
    if not isinstance(seats, list) or not 1 <= len(seats) <= SEAT_MAX:
        ck.bad("seats", "expected a list of 1..%d seats, clockwise from seat 0" % SEAT_MAX)
        return []
    names = []
    out = []
    for i, s in enumerate(seats):
        key = "seats[%d]" % i
        if ck.obj(key, s, ("name", "at")):
            if not isinstance(s["name"], str) or not s["name"]:
                ck.bad(key + ".name", "expected text")
            p = ck.point(key + ".at", s["at"], w, h, False)
            names.append(str(s["name"]))
            if p is not None:
                out.append((str(s["name"]), p))
    b.seat_names = tuple(names)
    return out


def _buses(ck, b, buses, w, h):
    if not ck.mapping("buses", buses):
        return
    used = {}
    for bn in sorted(buses):
        key = "buses." + bn
        d = buses[bn]
        if ck.name(key, bn) is None:
            continue
        if not isinstance(d, dict):
            ck.bad(key, "expected an object, got %s" % _show(d))
            continue
        kind = d.get("kind")
        if kind == "i2c":
            sigs, rate, lo, hi, dflt = ("sda", "scl"), "freq", 10000, I2C_MAX_HZ, I2C_MAX_HZ
        elif kind == "spi":
            sigs, rate, lo, hi, dflt = ("sck", "mosi", "miso"), "baud", 100000, SPI_MAX_HZ, 1000000
        elif kind == "uart":
            sigs, rate, lo, hi, dflt = ("tx", "rx"), "baud", 9600, 921600, 115200
        else:
            ck.bad(key + ".kind", "expected \"i2c\", \"spi\" or \"uart\", got %s" % _show(kind))
            continue
        if not ck.obj(key, d, ("kind", "id") + sigs, _BUS_KEYS[kind]):
            continue
        bid = ck.num(key + ".id", d["id"], 0, 1)
        if bid is None:
            continue
        ctl = "%s%d" % (kind.upper(), bid)
        if ctl in used:
            ck.bad(None, "buses '%s' and '%s' both use %s" % (used[ctl], bn, ctl))
        used[ctl] = bn
        bus = {"kind": kind, "id": bid, rate: ck.num(key + "." + rate, d.get(rate, dflt), lo, hi)}
        for sig in sigs:
            gp = ck.pin("%s.%s" % (key, sig), d[sig])
            if gp is not None and pin_function(kind, gp) != (bid, sig):
                ck.bad("%s.%s" % (key, sig), "GP%d cannot be %s %s (%s %s pins: %s)" % (
                    gp, ctl, sig.upper(), ctl, sig.upper(),
                    " ".join(["GP%d" % p for p in pins_for(kind, bid, sig)])))
            bus[sig] = gp
        b.buses[bn] = bus
        at = d.get("muxes", {})
        if ck.mapping(key + ".muxes", at):
            for a in sorted(at):
                if _addr(ck, "%s.muxes.%s" % (key, a), a) is not None:
                    ck.point("%s.muxes.%s" % (key, a), at[a], w, h)


def _leds(ck, b, leds):
    if not ck.obj("leds", leds, ("pin", "count"), ("order",)):
        return
    b.led_pin = ck.pin("leds.pin", leds["pin"])
    b.led_count = ck.num("leds.count", leds["count"], 1, LED_MAX) or 0
    order = leds.get("order", "GRB")
    if order not in ("GRB", "RGB", "GRBW", "RGBW"):
        ck.bad("leds.order", "expected GRB, RGB, GRBW or RGBW, got %s" % _show(order))
    b.led_order = order


def _readers(ck, b, readers):
    # The readers: each one's bus and channel (no two sharing one), IRQ and RSTPDN pins.
    if not isinstance(readers, list) or not readers:
        ck.bad("readers", "expected a list of readers (one per zone)")
        return
    out = []
    irq = [None] * len(readers)
    rst = [None] * len(readers)
    seen = {}  # channel identity -> reader index
    direct = {}  # bus -> index of a reader without a mux
    muxed = {}  # bus -> index of the first reader behind a mux
    for i, r in enumerate(readers):
        key = "readers[%d]" % i
        out.append(None)
        got = _reader(ck, b, key, r, i, direct, muxed)
        if got is None:
            continue
        ident, rec = got
        if ident in seen:
            ck.bad(None, "readers[%d] and readers[%d] share reader channel %s" % (
                seen[ident], i, _reader_label(rec)))
            continue
        seen[ident] = i
        irq[i] = ck.pin(key + ".irq", r["irq"]) if "irq" in r else None
        rst[i] = ck.pin(key + ".rst", r["rst"]) if "rst" in r else None
        out[i] = rec
    for bus in sorted(direct):
        if bus in muxed:
            ck.bad("readers[%d]" % direct[bus],
                   "sits on %s at 0x%02x with no mux, where the readers behind its mux answer too;"
                   " put it on a mux channel or a bus of its own" % (bus, PN532_I2C))
    b.readers = tuple(out)
    if irq.count(None) < len(irq):  # (a board with none keeps the empty default)
        b.reader_irq = tuple(irq)
    if rst.count(None) < len(rst):
        b.reader_rst = tuple(rst)


def _reader(ck, b, key, r, i, direct, muxed):
    # One reader's (channel identity, (bus, mux, channel, chip select)), or None if bad.
    if not isinstance(r, dict) or not isinstance(r.get("bus"), str):
        ck.bad(key, "expected an object with \"bus\"")
        return None
    bus = b.buses.get(r["bus"])
    if bus is None:
        ck.bad(key + ".bus", "no bus %s (buses: %s)" % (
            _show(r["bus"]), ", ".join(sorted(b.buses)) or "none"))
        return None
    kind = bus["kind"]
    if kind == "i2c":
        return _i2c_reader(ck, key, r, i, direct, muxed)
    if kind == "spi":
        if not ck.obj(key, r, ("bus", "cs"), _OTHER_READER):
            return None
        cs = ck.pin(key + ".cs", r["cs"])
        if cs is None:
            return None
        return ("cs", cs), (r["bus"], None, None, cs)
    if not ck.obj(key, r, ("bus",), _OTHER_READER):
        return None
    return (r["bus"],), (r["bus"], None, None, None)


def _i2c_reader(ck, key, r, i, direct, muxed):
    # An I2C reader, behind a mux channel or straight on its bus (noted in muxed, direct).
    if "mux" in r:
        if not ck.obj(key, r, ("bus", "mux", "ch"), _I2C_READER):
            return None
        mux = _addr(ck, key + ".mux", r["mux"])
        ch = ck.num(key + ".ch", r["ch"], 0, 7)
        if mux is None or ch is None:
            return None
        ident = (r["bus"], mux, ch)
        muxed.setdefault(r["bus"], i)
    else:
        if not ck.obj(key, r, ("bus",), _I2C_READER):
            return None
        mux = ch = None
        ident = (r["bus"], None, None)
        direct.setdefault(r["bus"], i)
    return ident, (r["bus"], mux, ch, None)


def _zones(ck, b, zones, w, h, leds):
    if not isinstance(zones, dict) or not zones:
        ck.bad("zones", "expected an object of zones: name -> {reader, led, at}")
        return
    by_reader = {}
    pos = {}
    for zn in sorted(zones):
        key = "zones." + zn
        z = zones[zn]
        if ck.name(key, zn) is None or not ck.obj(key, z, ("reader", "led", "at"), ("size",)):
            continue
        ri = ck.num(key + ".reader", z["reader"], 0, max(len(b.readers) - 1, 0))
        if ri is not None and ri < len(b.readers):
            if ri in by_reader:
                rec = b.readers[ri]
                label = _reader_label(rec) if rec is not None else "readers[%d]" % ri
                ck.bad(None, "zones '%s' and '%s' share reader channel %s" % (
                    by_reader[ri], zn, label))
            else:
                by_reader[ri] = zn
                b.zone_reader[zn] = ri
        _led(ck, b, key + ".led", z["led"], "zone '%s'" % zn, leds, zn)
        p = ck.point(key + ".at", z["at"], w, h)
        if p is not None:
            pos[zn] = p
        if "size" in z:
            sz = z["size"]
            if (not isinstance(sz, list) or len(sz) != 2 or not _is_int(sz[0])
                    or not _is_int(sz[1]) or not 20 <= sz[0] <= 400 or not 20 <= sz[1] <= 400):
                ck.bad(key + ".size", "expected [w, h] in mm (20..400), got %s" % _show(sz))
    for i in range(len(b.readers)):
        if b.readers[i] is not None and i not in by_reader:
            ck.bad("readers[%d]" % i, "no zone uses this reader (%s)" % _reader_label(b.readers[i]))
    b.reader_zone = tuple([by_reader.get(i, "") for i in range(len(b.readers))])
    names = sorted(pos)
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            (x1, y1), (x2, y2) = pos[names[i]], pos[names[j]]
            d2 = (x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2)
            if d2 < MIN_SPACING_MM * MIN_SPACING_MM:
                ck.bad(None, "zones '%s' and '%s' are %d mm apart centre to centre; keep"
                       " readers at least %d mm apart against cross-talk" % (
                           names[i], names[j], _isqrt(d2), MIN_SPACING_MM))


def _scan(ck, b, scan, zones):
    """"poll" (one polled field on at a time) or "irq": in a timed game readers with an IRQ
    line wait for their card with their fields on at once. Either way the seat to play's pad
    waits so when its reader has an IRQ line (issue 35), so the pads of readers with an IRQ
    line must lie farther apart."""
    if scan not in ("poll", "irq"):
        ck.bad("scan", "expected \"poll\" or \"irq\", got %s" % _show(scan))
        return
    b.scan = scan
    irq = b.reader_irq
    if not irq:
        if scan == "irq":
            ck.bad("scan", "\"irq\" needs readers with an \"irq\" line (their P70_IRQ on a GPIO)")
        return
    at = []
    for zn in sorted(b.zone_reader):
        ri = b.zone_reader[zn]
        try:
            if irq[ri] is not None:
                at.append((zn, zones[zn]["at"][0], zones[zn]["at"][1]))
        except (TypeError, KeyError, IndexError):
            continue  # reported by _zones
    for i in range(len(at)):
        for j in range(i + 1, len(at)):
            d2 = (at[i][1] - at[j][1]) ** 2 + (at[i][2] - at[j][2]) ** 2
            if d2 < IRQ_SPACING_MM * IRQ_SPACING_MM:
                ck.bad("scan", "zones '%s' and '%s' are %d mm apart centre to centre; readers that"
                       " wait with their fields on at once need %d mm" % (
                           at[i][0], at[j][0], _isqrt(d2), IRQ_SPACING_MM))


def _hands(ck, zones, seats, w, h):
    """Zones clear of the players' hands: inside a round table and HAND_MM from a seated edge."""
    if not isinstance(zones, dict) or not seats:
        return
    sides = {}  # rect: side (0 top, 1 right, 2 bottom, 3 left) -> the first seat there
    for name, (x, y) in seats:
        d = (y, w - x, h - y, x)
        side = d.index(min(d))
        sides.setdefault(side, name)
    for zn in sorted(zones):
        z = zones[zn]
        try:
            x, y = z["at"]
            zw, zh = z.get("size", (63, 88))
            x0, y0, x1, y1 = x - zw // 2, y - zh // 2, x + zw // 2, y + zh // 2
        except (TypeError, ValueError, KeyError):
            continue  # reported by _zones
        key = "zones." + zn
        if ck.round is not None:
            gap = min(rim_gap(ck.round, x0, y0), rim_gap(ck.round, x1, y0),
                      rim_gap(ck.round, x0, y1), rim_gap(ck.round, x1, y1))
            if gap < 0:
                ck.bad(key, "its outline reaches %d mm past the rim of the round table" % -gap)
                continue
            near = seats[0][0]
            best = -1
            for name, (sx, sy) in seats:
                d2 = (sx - x) * (sx - x) + (sy - y) * (sy - y)
                if best < 0 or d2 < best:
                    best, near = d2, name
            edges = ((gap, near),)
        else:
            gaps = (y0, w - x1, h - y1, x0)
            edges = [(gaps[sd], sides[sd]) for sd in sorted(sides)]
        for gap, name in edges:
            if gap < HAND_MM:
                ck.bad(key, "its outline is %d mm from the edge in front of seat %s, where a hand"
                       " of tagged cards rests (about a card's length from the edge, read from"
                       " ~50 mm away): keep zones at least %d mm from a seated edge" % (
                           gap, name, HAND_MM))
                break


def _led(ck, b, key, v, who, leds, zn=None):
    if not _is_int(v) or v < 0:
        ck.bad(key, "expected an LED index 0..%d, got %s" % (b.led_count - 1, _show(v)))
        return
    if v >= b.led_count:
        ck.bad(key, "LED %d is out of range: leds.count is %d (LEDs 0..%d)" % (
            v, b.led_count, b.led_count - 1))
        return
    if v in leds:
        ck.bad(None, "%s and %s share LED %d" % (leds[v], who, v))
        return
    leds[v] = who
    if zn is not None:
        b.zone_led[zn] = v


def _buttons(ck, b, buttons, w, h, leds):
    if not ck.mapping("buttons", buttons):
        return
    for bn in sorted(buttons):
        key = "buttons." + bn
        d = buttons[bn]
        if ck.name(key, bn) is None or not ck.obj(key, d, ("pin", "at"), ("led",)):
            continue
        gp = ck.pin(key + ".pin", d["pin"])
        if gp is not None:
            b.buttons[bn] = gp
        ck.point(key + ".at", d["at"], w, h)
        if "led" in d:
            before = len(leds)
            _led(ck, b, key + ".led", d["led"], "button '%s'" % bn, leds)
            if len(leds) > before:
                b.button_led[bn] = d["led"]


def _encoders(ck, b, encoders, w, h):
    if not ck.mapping("encoders", encoders):
        return
    for en in sorted(encoders):
        key = "encoders." + en
        d = encoders[en]
        if ck.name(key, en) is None or not ck.obj(key, d, ("a", "b", "at")):
            continue
        if en in b.buttons:
            ck.bad(key, "an encoder and a button are both called %r" % en)
        pa = ck.pin(key + ".a", d["a"])
        pb = ck.pin(key + ".b", d["b"])
        ck.point(key + ".at", d["at"], w, h)
        if pa is not None and pb is not None:
            b.encoders[en] = (pa, pb)


def _saying():
    """The games whose seat buttons may say their hand and the trick (their registry lists "say")."""
    return [g for g in sorted(GAMES) if SAY in facts(g)[3]]


def _roles_text(need):
    out = []
    for role, n in need:
        out.append(role + (" per seat" if n == SEAT else " (one or more)" if n == MANY else ""))
    return ", ".join(out)


def _layout(ck, b, ln, d):
    # A game layout: its seats, each zone's role, its inputs; None if it has a problem.
    key = "layouts." + ln
    if ck.name(key, ln) is None or not ck.obj(key, d, ("seats", "zones"),
                                              ("game", "buttons", "encoders")):
        return None
    game = d.get("game", ln)
    if game not in GAMES:
        ck.bad(key, "unknown game %s (games: %s)" % (_show(game), ", ".join(sorted(GAMES))))
        return None
    start = len(ck.problems)
    seats = d["seats"]
    (lo, hi), need, meanings, seat_verbs, turns, deal_pad = facts(game)
    if not _layout_seats(ck, b, key, game, seats, lo, hi):
        return None
    n = len(seats)
    kinds = {}
    for role, k in need + OPTIONAL_ROLES + ((DEAL_ROLE,) if deal_pad else ()):
        kinds[role] = k
    roles, taken = _roles(ck, b, key, game, d["zones"], kinds, n)
    for role, k in need:
        wanted = [(role, s) for s in range(n)] if k == SEAT else [(role, None)]
        for rs in wanted:
            if rs not in taken:
                ck.bad(key, "no zone plays %r (%s needs %s)" % (
                    role if rs[1] is None else "%s %d" % rs, game, _roles_text(need)))
    buttons = _inputs(ck, key, "buttons", d.get("buttons", {}), b.buttons, game, n,
                      meanings + COMMON_INPUTS, seat_verbs)
    encoders = _inputs(ck, key, "encoders", d.get("encoders", {}), b.encoders, game, n,
                       turns, ())
    if len(ck.problems) > start:
        return None
    return Layout(ln, game, tuple(seats), roles, buttons, encoders, b.reader_zone,
                  _host_verbs(meanings, seat_verbs, len(seats), buttons, encoders))


def _layout_seats(ck, b, key, game, seats, lo, hi):
    # The layout's seats: as many as the game takes, each at the table once; False if unusable.
    if not isinstance(seats, list) or not lo <= len(seats) <= hi:
        ck.bad(key + ".seats", "%s is for %s players: expected a list of that many seat numbers,"
               " got %s" % (game, lo if lo == hi else "%d to %d" % (lo, hi), _show(seats)))
        return False
    for i, s in enumerate(seats):
        if not _is_int(s) or not 0 <= s < b.seat_count:
            ck.bad("%s.seats[%d]" % (key, i), "no seat %s at this table (seats 0..%d)" % (
                _show(s), b.seat_count - 1))
        elif seats.index(s) != i:
            ck.bad("%s.seats[%d]" % (key, i), "seat %d is listed twice" % s)
    return True


def _roles(ck, b, key, game, zones, kinds, n):
    # Each zone's (role, seat) in the layout, and which zone takes each (role, seat).
    roles = {}
    taken = {}
    if not isinstance(zones, dict):
        ck.bad(key + ".zones", "expected an object: zone -> role")
        zones = {}
    for zn in sorted(zones):
        text = zones[zn]  # (the key "<layout>.zones.<zone>" is built only for a message)
        rs = _zone_role(ck, b, key, game, zn, text, kinds, n)
        if rs is None:
            continue
        if rs in taken and kinds[rs[0]] != MANY:
            ck.bad(key, "%r is played by both zones '%s' and '%s'" % (text, taken[rs], zn))
            continue
        taken[rs] = zn
        roles[zn] = rs
    return roles, taken


def _zone_role(ck, b, key, game, zn, text, kinds, n):
    # A zone's (role, seat) from its text, or None if the board or the game has no such.
    if zn not in b.zone_reader:
        ck.bad("%s.zones.%s" % (key, zn), "no zone %r on this board" % zn)
        return None
    if not isinstance(text, str):
        ck.bad("%s.zones.%s" % (key, zn), "expected a role such as \"play 0\", got %s"
               % _show(text))
        return None
    role, seat = parse_role(text)
    if role not in kinds:
        ck.bad("%s.zones.%s" % (key, zn), "%s has no role %r (roles: %s)" % (
            game, role, ", ".join(sorted(kinds))))
        return None
    if kinds[role] == SEAT:
        if not _is_int(seat) or seat >= n:
            ck.bad("%s.zones.%s" % (key, zn), "%r needs a seat 0..%d, e.g. \"%s 0\"" % (
                role, n - 1, role))
            return None
    elif seat is not None:
        ck.bad("%s.zones.%s" % (key, zn), "%r is shared by all seats; write just \"%s\"" % (
            role, role))
        return None
    return (role, seat)


def _inputs(ck, key, what, d, have, game, n, meanings, seat_verbs):
    out = {}
    if not isinstance(d, dict):
        ck.bad("%s.%s" % (key, what), "expected an object: %s -> meaning" % what[:-1])
        return out
    seen = {}
    for name in sorted(d):
        text = d[name]  # (the key "<layout>.<what>.<name>" is built only for a message)
        if name not in have:
            ck.bad("%s.%s.%s" % (key, what, name), "no %s %r on this board" % (what[:-1], name))
            continue
        if not isinstance(text, str):
            ck.bad("%s.%s.%s" % (key, what, name), "expected a meaning, got %s" % _show(text))
            continue
        verb, arg = parse_role(text)
        if verb in seat_verbs:
            if not _is_int(arg) or arg >= n:
                ck.bad("%s.%s.%s" % (key, what, name), "%r needs a seat 0..%d, e.g. \"%s 0\"" % (
                    verb, n - 1, verb))
                continue
        elif verb == SAY and what == "buttons":
            ck.bad("%s.%s.%s" % (key, what, name), "%s has no hand and trick to say: \"say\" is for"
                   " the trick games (%s)" % (game, ", ".join(_saying())))
            continue
        elif text not in meanings:
            ck.bad("%s.%s.%s" % (key, what, name), "%s has no %s meaning %s (meanings: %s)" % (
                game, what[:-1], _show(text),
                ", ".join(list(meanings) + ["%s <seat>" % v for v in seat_verbs]) or "none"))
            continue
        if (verb, arg) in seen:
            ck.bad("%s.%s" % (key, what), "%s '%s' and '%s' both mean %r" % (
                what, seen[(verb, arg)], name, text))
            continue
        seen[(verb, arg)] = name
        out[name] = (verb, arg)
    return out
