"""The seeded generator gives the same numbers on every runtime and deals fairly."""
from cardtable.rng import Random

from support import raises, stepped


def _reference(seed, n):
    """Plain 32-bit xorshift (Marsaglia 2003), written independently of the 16-bit halves."""
    x = (seed * 2654435761 + 12345) & 0xFFFFFFFF or 1
    out = []
    for _ in range(n):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out.append(x)
    return out


@stepped
def test_matches_the_32_bit_reference():
    for seed in (0, 1, 42, 99999):
        r = Random(seed)
        for want in _reference(seed, 200):
            hi, lo = r.next32()
            assert (hi << 16) | lo == want
        yield


def test_shuffle_is_a_permutation_and_seeded():
    a = Random(5).shuffle(list(range(52)))
    assert sorted(a) == list(range(52))
    assert a == Random(5).shuffle(list(range(52)))
    assert a != Random(6).shuffle(list(range(52)))


def test_below_is_roughly_uniform():
    r = Random(3)
    counts = [0] * 6
    for _ in range(6000):
        counts[r.below(6)] += 1
    assert min(counts) > 850 and max(counts) < 1150
    raises(ValueError, r.below, 0)
