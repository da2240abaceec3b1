"""A rotary encoder's quadrature decoded from debounced levels, one step per detent."""
# Mechanical contacts bounce: Bourns gives up to 2 ms for the PEC11R (contact bounce at 15 RPM).
# A level counts only once it has held SETTLE_US; a bounce that flips A back and forth faster
# than that is never seen. The settled states then walk the Gray code one way or the other,
# and a step is counted when they come back to the rest state a detent holds, so a half-turned
# knob that springs back counts nothing. Everything here is allocation-free: edge() runs in a
# hard IRQ on the Pico.
from cardtable.compat import const, ticks_diff

SETTLE_US = const(3000)  # longer than the PEC11R's 2 ms bounce, shorter than a quarter step
# Index old * 4 + new, states A << 1 | B: A falling while B is high (3 -> 1) is +1, as is the
# rest of that walk (1 -> 0 -> 2 -> 3); the reverse walk is -1; two bits at once is 0.
_STEP = (0, -1, 1, 0, 1, 0, 0, -1, -1, 0, 0, 1, 0, 1, -1, 0)


class Quadrature:
    """One encoder: feed edge(ab, t_us) when a pin changes, read steps with take(t_us)."""

    def __init__(self, ab, now_us):
        self.rest = ab  # the state at a detent (both contacts open: A = B = 1 with pull-ups)
        self.state = ab  # the last settled state
        self.raw = ab  # the last level seen
        self.since = now_us  # when it was seen
        self.quarter = 0  # quarter steps since the state left the rest state
        self.steps = 0  # whole steps not yet taken
        self.skipped = 0  # settled jumps of two states (an edge too fast to see)

    def edge(self, ab, now_us):
        """The pins changed: ab = A << 1 | B read now (from the pin IRQ)."""
        if self.raw != self.state and ticks_diff(now_us, self.since) >= SETTLE_US:
            self._settle(self.raw)
        self.raw = ab
        self.since = now_us

    def take(self, now_us):
        """Steps since the last call (+ one way, - the other), settling a level that held."""
        if self.raw != self.state and ticks_diff(now_us, self.since) >= SETTLE_US:
            self._settle(self.raw)
        n = self.steps
        self.steps = 0
        return n

    def _settle(self, s):
        d = _STEP[self.state * 4 + s]
        if d == 0:
            self.skipped += 1
        self.quarter += d
        self.state = s
        if s == self.rest:
            if self.quarter >= 2:
                self.steps += 1
            elif self.quarter <= -2:
                self.steps -= 1
            self.quarter = 0
