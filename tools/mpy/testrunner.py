"""MicroPython side of `run.mjs --test`: runs test_* functions, one top-level call per step."""
import gc
import sys

import mprun

MORE = 3
_GC_AT = 96 * 1024


def _g():
    yield


_GEN = type(_g())

_tests = []
_gen = [None]
_exc = [None]


def _source_order(path):
    """Names of top-level `def test...` in the file, in order (module dicts are unordered)."""
    names = []
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("def test"):
                    names.append(line[4:].split("(")[0].strip())
    except OSError:
        pass
    return names


def load(modname, path, shown, pattern):
    """Import a test module and list its test* functions; -1 if the import failed."""
    _tests.clear()
    sys.modules.pop(modname, None)
    try:
        mod = __import__(modname)
    except BaseException as e:  # noqa: B036 - a broken module is a failed test, not a crash
        _exc[0] = e
        return -1
    names = _source_order(path)
    for name in sorted(dir(mod)):
        if name not in names:
            names.append(name)
    for name in names:
        fn = getattr(mod, name, None)
        tid = shown + "::" + name
        if name.startswith("test") and callable(fn) and (not pattern or pattern in tid):
            _tests.append((tid, fn))
    return len(_tests)


def test_id(i):
    return _tests[i][0]


def start(i):
    """Call test i; MORE if it returned a generator to be stepped."""
    try:
        r = _tests[i][1]()
    except BaseException as e:  # noqa: B036
        _exc[0] = e
        return mprun.RAISED
    if type(r) is _GEN:
        _gen[0] = r
        return MORE
    return mprun.OK


def step():
    """Resume the current generator test once."""
    # This port collects only at the start of a top-level call, and only when asked: ask now
    # (the collection runs as the next step begins) once half the heap is in use.
    if gc.mem_alloc() > _GC_AT:
        gc.collect()
    try:
        next(_gen[0])
        return MORE
    except StopIteration:
        _gen[0] = None
        return mprun.OK
    except BaseException as e:  # noqa: B036
        _gen[0] = None
        _exc[0] = e
        return mprun.RAISED


def finish(shown, status, ms, steps):
    """Print the PASS/FAIL line of a test (and its traceback); True if it passed."""
    extra = " (%d ms, %d yields)" % (ms, steps) if steps else " (%d ms)" % ms
    if status == mprun.OK:
        print("PASS " + shown + extra)
        return True
    print("FAIL " + shown + extra)
    e = _exc[0]
    _exc[0] = None
    try:
        text = mprun.format_exception(e)
    except MemoryError:
        text = type(e).__name__ + " (traceback lost: heap full)\n"
    for line in text.split("\n"):
        if line:
            print("    " + line)
    if isinstance(e, MemoryError):
        print("    (heap full. This port collects garbage only between top-level calls, so all")
        print("    garbage of one call counts: split long tests into steps with support.stepped)")
    return False
