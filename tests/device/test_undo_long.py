"""An undo at the end of a long Nerts round (past the rolling checkpoints) restores the game
exactly, without replaying the journal. A bot play-out: run once, as .mpy (tools/mpy/test_mpy.py)."""
from support import stepped

from simtable import table


def _fp(root):
    """A fingerprint of a game's whole state (its __dict__, walked without recursion and
    without building a copy: two copies of a Nerts state do not fit the heap). Two 20-bit
    hashes, so the arithmetic stays in small ints (a big int allocates)."""
    import sys

    module = type(sys)
    h = [7, 11]
    stack = [root]

    def mix(x):
        h[0] = (h[0] * 131 + x) & 0xFFFFF
        h[1] = (h[1] * 137 + x + 1) & 0xFFFFF

    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            for k in sorted(v):
                stack.append(v[k])
                stack.append(k)
            mix(5 + len(v))
        elif isinstance(v, (list, tuple)):
            for x in v:
                stack.append(x)
            mix(3 + len(v))
        elif isinstance(v, (bytes, bytearray)):
            for b in v:
                mix(b)
        elif isinstance(v, str):
            for ch in v:
                mix(ord(ch))
            mix(1)
        elif v is None or isinstance(v, (bool, int)):
            mix(1 if v is None else (int(v) + 2) & 0xFFFFF)
        elif type(v) is not module and hasattr(v, "__dict__") and not callable(v):
            stack.append(v.__dict__)  # a seat's layout
    return h[0], h[1]


@stepped
def test_undo_at_the_end_of_a_long_round_restores_exactly_without_a_replay():
    from cardtable.rng import Random
    from cardtable.table import controller

    t = yield from table("pico-nerts-6", "nerts", history=False)
    ctl = t.ctl
    g = ctl.game
    rng = Random(5)
    deal = g.random_deal(rng)
    hands = deal[2]["hands"]
    for s in range(2, 6):
        hands[s] = None  # seats 0 and 1 known (their draws and moves are checked), the rest not
    ctl.play(deal, "test")
    deal = hands = None
    yield  # the deal's garbage (and its checkpoint) apart from the messages'
    t.listen()
    yield
    n = 0
    while n < controller.SINCE_MAX + 9 and not g.over and g.phase == "play":
        a = g.bot_action(rng)
        if a[1] == "center":
            a = (a[0], a[1], a[2], n * 10)  # in time order, as a table times them
        if ctl.play(a, "test")[0]:
            n += 1
        t.listen()
        yield
    assert n > controller.SINCE_MAX, n  # past a rolling checkpoint: the deal's is gone
    before = _fp(g.__dict__)  # (a fingerprint: two copies of the state do not fit the heap)
    yield
    a = g.bot_action(rng)
    while not ctl.play(a, "test")[0]:
        a = g.bot_action(rng)
    t.listen()
    yield
    assert _fp(g.__dict__) != before
    yield
    ok, _ = ctl.undo("test")
    assert ok and ctl._replay is None  # no journal replay under way
    t.listen()
    yield
    assert _fp(ctl.game.__dict__) == before
    assert 0 < len(ctl._since) <= controller.SINCE_MAX
