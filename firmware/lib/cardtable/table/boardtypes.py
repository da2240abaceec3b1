"""The board config's types: Board, Layout, ConfigError (table/config.py loads a board file,
table/configcheck.py builds these from it), and forgetting a check module once it has run."""
import sys


class ConfigError(ValueError):
    """A board config the firmware cannot run; .problems lists every problem found."""

    def __init__(self, source, problems):
        self.source = source
        self.problems = list(problems)
        super().__init__("\n".join(["%s: %s" % (source, p) for p in self.problems]))


class Layout:
    """How one game uses a board: zone roles, button meanings, seats."""

    def __init__(self, name, game, seats, roles, buttons, encoders, reader_zone, host_verbs=()):
        self.name = name
        self.game = game
        self.seats = seats  # physical seat of game seat i
        self.roles = roles  # zone -> (role, seat or None)
        self.buttons = buttons  # button -> (verb, arg)
        self.encoders = encoders  # encoder -> (verb, arg)
        self.reader_roles = tuple([roles.get(z) for z in reader_zone])
        self.host_verbs = host_verbs  # verbs the host types: no button or encoder means them

    def role(self, zone):
        """(role, seat or None) of zone, or None if the game does not use it."""
        return self.roles.get(zone)

    def zones(self, role, seat=None):
        """Zones that play role (for seat), sorted by name."""
        return sorted([z for z, rs in self.roles.items() if rs == (role, seat)])

    def zone(self, role, seat=None):
        """The zone that plays role (for seat), or None."""
        zs = self.zones(role, seat)
        return zs[0] if zs else None

    def button(self, name):
        """(verb, arg) the button means in this game, or None."""
        return self.buttons.get(name)


class Board:
    """A validated board: buses, readers, zones, LEDs, buttons and game layouts."""

    def __init__(self):
        self.name = ""
        self.title = ""
        self.seat_names = ()
        self.buses = {}  # name -> dict: kind, id, pins by signal, freq or baud; I2C: reset, rise_ns
        self.readers = ()  # (bus, mux addr or None, channel or None, cs pin or None)
        self.reader_irq = ()  # per reader: GP of its P70_IRQ, or None
        self.reader_rst = ()  # per reader: GP of its RSTPDN, or None
        self.scan = "poll"  # "irq": in a timed game the readers with an IRQ line wait by themselves
        self.warnings = ()  # what the checker advises against but lets run
        self.reader_zone = ()  # zone name per reader index
        self.zone_reader = {}
        self.zone_led = {}
        self.led_pin = None
        self.led_count = 0
        self.led_order = "GRB"
        self.buttons = {}  # name -> pin
        self.button_led = {}  # name -> LED index
        self.encoders = {}  # name -> (pin a, pin b)
        self.piezo_pin = None
        self.layouts = {}

    @property
    def seat_count(self):
        """Number of seats at the table."""
        return len(self.seat_names)

    def reader_label(self, i):
        """Human name of reader i: 'mux 0x70 ch 3 on i2c0', 'CS GP17 on spi0'."""
        return reader_label(self.readers[i])

    def layout(self, name):
        """The layout called name (usually the game id); raises ConfigError if there is none."""
        lay = self.layouts.get(name)
        if lay is None:
            raise ConfigError(self.name, ["no layout %r (has: %s)" % (
                name, ", ".join(sorted(self.layouts)))])
        return lay

    def layouts_for(self, game):
        """Names of the layouts that play game, sorted."""
        return sorted([n for n, lay in self.layouts.items() if lay.game == game])


def reader_label(r):
    """Human name of a reader record (bus, mux, channel, cs)."""
    bus, mux, ch, cs = r
    if mux is not None:
        return "mux 0x%02x ch %d on %s" % (mux, ch, bus)
    if cs is not None:
        return "CS GP%d on %s" % (cs, bus)
    return "the only reader on %s" % bus


def forget(mod):
    """Forget module mod (and its name in the package) so the collector can free it."""
    pkg = sys.modules.get("cardtable.table")
    if mod in sys.modules:
        del sys.modules[mod]
    name = mod.rsplit(".", 1)[1]
    if pkg is not None and hasattr(pkg, name):
        delattr(pkg, name)
