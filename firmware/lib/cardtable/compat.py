"""What MicroPython has and CPython lacks (and back): const, ticks, a monotonic ms clock."""
try:
    from micropython import const  # noqa: F401
except ImportError:  # CPython

    def const(x):
        return x


try:
    from time import ticks_ms, ticks_diff, ticks_add  # noqa: F401
except ImportError:  # CPython
    import time as _time

    _PERIOD = 1 << 30

    def ticks_ms():
        return int(_time.monotonic() * 1000) & (_PERIOD - 1)

    def ticks_add(t, delta):
        return (t + delta) & (_PERIOD - 1)

    def ticks_diff(a, b):
        d = (a - b) & (_PERIOD - 1)
        return d - _PERIOD if d >= _PERIOD // 2 else d

MICROPYTHON = __import__("sys").implementation.name == "micropython"
