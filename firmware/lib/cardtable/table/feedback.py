"""What the table shows and sounds: LED colours per zone and buzzer patterns, as data."""
# A zone's LED shows, by priority: its reader is down (``fault``), a short flash after
# something happened there (``accepted``, ``rejected``, ``unknown``: a tag that is no card or
# two tags on the pad, ``misread``: the card left before it was read, ``fault``: accepted but
# the journal could not record it), else its steady colour: ``turn`` (the seat there is to
# act, or the zone waits for the deal), ``pending`` (cards collected for an action not yet
# confirmed), ``winner``, or off.
from cardtable.compat import ticks_add, ticks_diff

OFF = (0, 0, 0)
COLOURS = {
    "off": OFF,
    "turn": (0, 0, 48),
    "accepted": (0, 64, 0),
    "rejected": (96, 0, 0),
    "unknown": (64, 0, 64),
    "misread": (40, 40, 40),
    "fault": (72, 28, 0),
    "pending": (0, 40, 40),
    "winner": (64, 52, 0),
}
_FAULT = COLOURS["fault"]
_UNSHOWN = (-1, -1, -1)  # no colour yet: the first draw writes every LED
FLASH_MS = {"accepted": 600, "rejected": 1500, "unknown": 1500, "misread": 1500, "fault": 1500}

# (frequency Hz, ms) steps; 0 Hz is a rest.
PATTERNS = {
    "accepted": (),
    "rejected": ((392, 120), (0, 60), (262, 260)),
    "unknown": ((1047, 60), (0, 60), (1047, 60), (0, 60), (1047, 60)),
    "misread": ((784, 80), (0, 60), (784, 80)),
    "fault": ((880, 200), (0, 100), (660, 300)),
    "over": ((523, 120), (659, 120), (784, 120), (1047, 320)),
}


class Feedback:
    """LED colours and buzzer patterns over hal Pixels and Buzzer; update() draws changes only."""

    def __init__(self, pixels, buzzer):
        n = pixels.n
        self.pixels = pixels
        self.buzzer = buzzer
        self.n = n
        self.base = [OFF] * n
        self.fault = bytearray(n)
        self._flash = [OFF] * n
        self._until = [0] * n
        self._flashing = bytearray(n)
        self._shown = [_UNSHOWN] * n
        self.last_sound = None
        # update() looks at the LEDs only after a change or when a flash is due to end: on the
        # RP2040 the look costs ~0.5 ms, every loop step (issue 18)
        self._dirty = True
        self._due = None

    def steady(self, led, name):
        """Set an LED's steady colour by name."""
        if 0 <= led < self.n:
            self.base[led] = COLOURS[name]
            self._dirty = True

    def clear(self):
        """All steady colours off (faults stay)."""
        for i in range(self.n):
            self.base[i] = OFF
        self._dirty = True

    def set_fault(self, led, on):
        if 0 <= led < self.n:
            self.fault[led] = 1 if on else 0
            self._dirty = True

    def flash(self, led, name, now):
        """Flash an LED in the colour called name for FLASH_MS[name]."""
        if 0 <= led < self.n:
            self._flash[led] = COLOURS[name]
            self._until[led] = ticks_add(now, FLASH_MS.get(name, 600))
            self._flashing[led] = 1
            self._dirty = True

    def show_flash(self, led, name, now):
        """flash(), and that LED shown at once (a verdict: issue 35); the other LEDs' changes
        wait for the next update(), which walks them all."""
        self.flash(led, name, now)
        if 0 <= led < self.n and not self.fault[led]:
            c = self._flash[led]
            if c is not self._shown[led]:
                self._shown[led] = c
                self.pixels.set(led, c)
                self.pixels.show()
        else:
            self.update(now)

    def sound(self, name, now):
        """Play the pattern called name."""
        pat = PATTERNS.get(name, ())
        self.last_sound = name
        if pat and self.buzzer is not None:
            self.buzzer.play(pat, now)

    def _draw(self, now):
        # what each LED shows (fault, else a flash not yet over, else its steady colour), in one
        # loop without a call per LED: a verdict's LED waits for this loop (issue 18)
        changed = False
        due = None
        fault = self.fault
        flashing = self._flashing
        until = self._until
        shown = self._shown
        for i in range(self.n):
            if fault[i]:
                c = _FAULT
            elif flashing[i] and ticks_diff(now, until[i]) < 0:
                c = self._flash[i]
                if due is None or ticks_diff(until[i], due) < 0:
                    due = until[i]
            else:
                flashing[i] = 0
                c = self.base[i]
            if c is not shown[i]:
                shown[i] = c
                self.pixels.set(i, c)
                changed = True
        self._due = due
        if changed:
            self.pixels.show()

    def update(self, now):
        """Write changed LEDs and show them; advance the buzzer."""
        due = self._due
        if self._dirty or due is not None and ticks_diff(now, due) >= 0:
            self._dirty = False
            self._draw(now)
        if self.buzzer is not None:
            self.buzzer.update(now)
