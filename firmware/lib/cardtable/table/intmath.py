"""Integer maths the board checks share (runs on the Pico: no floats)."""


def isqrt(n):
    """The integer square root of n >= 0 (Newton's method)."""
    if n <= 0:
        return 0
    x = n
    y = (x + 1) // 2
    while y < x:
        x = y
        y = (x + n // x) // 2
    return x
