"""A seeded xorshift32 generator: the same shuffles on CPython and MicroPython."""


class Random:
    """xorshift32 (Marsaglia 2003), kept in two 16-bit halves so no int exceeds 2**30."""

    def __init__(self, seed=1):
        seed = (seed * 2654435761 + 12345) & 0xFFFFFFFF or 1
        self._hi = seed >> 16
        self._lo = seed & 0xFFFF

    def next32(self):
        """The next 32-bit value, as (hi16, lo16)."""
        hi, lo = self._hi, self._lo
        # x ^= x << 13
        hi ^= ((hi << 13) | (lo >> 3)) & 0xFFFF
        lo ^= (lo << 13) & 0xFFFF
        # x ^= x >> 17
        lo ^= hi >> 1
        # x ^= x << 5
        hi ^= ((hi << 5) | (lo >> 11)) & 0xFFFF
        lo ^= (lo << 5) & 0xFFFF
        self._hi, self._lo = hi, lo
        return hi, lo

    def below(self, n):
        """A uniform int in 0..n-1 (n up to 2**15)."""
        if n <= 0:
            raise ValueError("below() needs n > 0")
        limit = (0x8000 // n) * n
        while True:
            hi, lo = self.next32()
            v = ((hi << 1) ^ lo) & 0x7FFF
            if v < limit:
                return v % n

    def choice(self, seq):
        """A uniform element of a non-empty sequence."""
        return seq[self.below(len(seq))]

    def shuffle(self, items):
        """Fisher-Yates shuffle of a list in place; returns it."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
        return items
