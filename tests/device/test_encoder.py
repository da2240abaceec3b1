"""The encoder's quadrature decoder: one step per detent, bounces of up to 2 ms (Bourns PEC11R)
never count, a knob turned half-way and let go counts nothing."""
from cardtable.drivers.encoder import SETTLE_US, Quadrature

REST = 3  # A = B = 1: both contacts open in a detent, read through pull-ups
CW = (1, 0, 2, 3)  # A falls while B is high first: the + way
CCW = (2, 0, 1, 3)


class Knob:
    """A PEC11R on two pins: each change of level reaches the decoder as the IRQ would."""

    def __init__(self):
        self.t = 0
        self.ab = REST
        self.q = Quadrature(REST, 0)
        self.falling_a = 0  # what the old decoder counted: every falling edge of A

    def level(self, ab, after_us):
        self.t += after_us
        if self.ab & 2 and not ab & 2:
            self.falling_a += 1
        self.ab = ab
        self.q.edge(ab, self.t)

    def move(self, ab, bounce_us=0, step_us=8000):
        """Go to state ab; with bounce_us, the changing contact chatters that long first."""
        old = self.ab
        t = 0
        while t + 200 < bounce_us:
            self.level(ab, 100)
            self.level(old, 100)
            t += 200
        self.level(ab, 100)
        self.t += step_us  # the knob turns on: the next change comes a while later

    def steps(self):
        return self.q.take(self.t)


def test_a_bouncing_edge_counts_once():
    k = Knob()
    for ab in CW:
        k.move(ab, bounce_us=1800)
    assert k.falling_a >= 9  # the old decoder would have counted nine steps
    assert k.steps() == 1
    for _ in range(3):
        for ab in CW:
            k.move(ab, bounce_us=1800)
    assert k.steps() == 3 and k.q.skipped == 0


def test_both_ways_and_a_turn_let_go_half_way():
    k = Knob()
    for ab in CCW:
        k.move(ab, bounce_us=1500)
    assert k.steps() == -1
    k.move(1, bounce_us=1000)  # a quarter turn...
    k.move(0)
    k.move(1)  # ... springs back to the detent
    k.move(REST, bounce_us=1000)
    assert k.steps() == 0


def test_a_glitch_shorter_than_the_settle_time_is_not_a_state():
    k = Knob()
    k.level(1, 100)
    k.level(REST, SETTLE_US - 500)  # back before it settled
    k.t += 20000
    assert k.steps() == 0 and k.q.state == REST
    for ab in CW:  # the last level settles when the main loop asks, without another edge
        k.level(ab, 10000)
    assert k.steps() == 0  # REST itself has not held long enough yet
    k.t += SETTLE_US
    assert k.steps() == 1
