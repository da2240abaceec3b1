"""What MicroPython has and CPython lacks (and back): const, ticks, monotonic ms and us clocks."""
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

try:
    from time import ticks_us  # noqa: F401
except ImportError:  # CPython
    import time as _time

    def ticks_us():
        return int(_time.monotonic() * 1000000) & ((1 << 30) - 1)

MICROPYTHON = __import__("sys").implementation.name == "micropython"
