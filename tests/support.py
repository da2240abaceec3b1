"""Test helpers shared by CPython (pytest) and MicroPython (tools/mpy runner)."""
import sys

MICROPYTHON = sys.implementation.name == "micropython"


def raises(exc, fn, *args, **kw):
    """Call fn and return the exception of type exc it raised; fail if it raised none."""
    try:
        fn(*args, **kw)
    except exc as e:
        return e
    raise AssertionError("%s not raised by %r" % (exc.__name__, fn))


def fixture(game, name):
    """The lines of the fixture tests/fixtures/<game>/<name>."""
    try:
        here = __file__.replace("\\", "/").rsplit("/", 1)[0]
    except NameError:
        here = "tests"
    for base in (here, "tests", "."):
        try:
            with open("%s/fixtures/%s/%s" % (base, game, name)) as f:
                return f.read().split("\n")
        except OSError:
            pass
    raise OSError("fixture %s/%s not found" % (game, name))


def scaled(n):
    """How many seeded play-outs to run: n on CPython, a quarter of n on MicroPython.

    The WebAssembly MicroPython is about ten times slower than CPython; it runs the same tests
    to prove the device runtime and heap, while CPython runs the full statistical sweep.
    """
    return max(1, n // 4) if MICROPYTHON else n


def stepped(gen_fn):
    """Mark a long test written as a generator; each yield lets MicroPython collect garbage.

    On the WebAssembly port the collector only runs between top-level calls, so the
    MicroPython runner resumes the generator once per call from JavaScript. Under pytest
    the generator is simply run to the end.
    """
    if MICROPYTHON:
        return gen_fn

    def run():
        for _ in gen_fn():
            pass

    run.__name__ = gen_fn.__name__
    run.__doc__ = gen_fn.__doc__
    return run
