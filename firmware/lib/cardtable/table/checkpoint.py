"""Fast undo: the game's state before each deal (and every SINCE_MAX actions), and the actions since."""
# An undo restores the checkpoint (a copy of it: the checkpoint stays for the next undo) and
# applies the actions since but the last. Issue 35: at the end of the longest game that took
# 155-176 ms of the chip's time (28 actions applied again, and this copy: it called itself
# once per int of every list, and a call is the dear part of MicroPython). Now a list or dict is
# copied whole at C speed (slice, dict.copy) and only its containers are copied again; a list
# the actions since have left as it was is kept, not copied (most of a long game's state: the
# past hands' results, the tricks won), one of shared values only (known when the checkpoint
# was taken) is copied by a slice alone; and controller.SINCE_MAX keeps the actions applied
# again few.
_MODULE = type(__import__("sys"))
FLAT = " flat"  # (no attribute's name: a space)


def _copy(v):
    """A copy of a game's state value: lists, dicts, bytearrays and plain objects (a Nerts
    seat's layout) copied; numbers, strings, tuples, modules, classes and functions shared."""
    t = type(v)
    if t is list:
        out = v[:]
        for i in range(len(out)):
            x = out[i]
            t = type(x)  # (inline, not a call per item: shared are ints, strings, tuples, None)
            if t is not int and t is not str and t is not tuple and x is not None and t is not bool:
                out[i] = _copy(x)
        return out
    if t is dict:
        out = v.copy()
        for k in v:
            x = v[k]
            t = type(x)
            if t is not int and t is not str and t is not tuple and x is not None and t is not bool:
                out[k] = _copy(x)
        return out
    if t is bytearray:
        return bytearray(v)
    if t is int or t is str or t is tuple or v is None or t is bool or t is _MODULE:
        return v
    if hasattr(v, "__dict__") and not isinstance(v, type) and not callable(v):
        o = object.__new__(t)
        d = v.__dict__
        for k in d:
            setattr(o, k, _copy(d[k]))
        return o
    return v


def _flat(v):
    """True when list v holds only values a copy shares (ints, strings, tuples, None)."""
    for x in v:
        t = type(x)
        if t is not int and t is not str and t is not tuple and x is not None and t is not bool:
            return False
    return True


def take(g):
    """A copy of the game's state, kept before a deal (or every SINCE_MAX actions) is applied.
    Its FLAT entry names the lists of shared values only: restore copies them with a slice."""
    st = {}
    flat = []
    d = g.__dict__
    for k in d:
        v = d[k]
        if type(v) is list and _flat(v):
            st[k] = v[:]
            flat.append(k)
        else:
            st[k] = _copy(v)
    st[FLAT] = tuple(flat)
    return st


def restore(g, st, since):
    """Back to the state st, then the actions since (each checked when it was played)."""
    d = g.__dict__
    flat = st.get(FLAT, ())
    for k in st:
        if k == FLAT:
            continue
        v = st[k]
        t = type(v)
        live = d.get(k)
        if (t is list or t is bytearray or t is dict) and type(live) is t and live == v:
            continue  # as at the checkpoint (== compares in C): kept, nothing copied
        if k in flat:
            setattr(g, k, v[:])
        elif t is list and type(live) is list:
            setattr(g, k, _again(v, live))
        else:
            setattr(g, k, _copy(v))
    for a in since:
        g._apply(a)


def _again(v, live):
    """A copy of the checkpoint's list v of containers, keeping each of the live list's items
    that is still as at the checkpoint (a hand's results when one more was added since)."""
    out = v[:]
    n = len(live)
    for i in range(len(out)):
        x = out[i]
        t = type(x)
        if t is not int and t is not str and t is not tuple and x is not None and t is not bool:
            y = live[i] if i < n else None
            out[i] = y if type(y) is t and (t is list or t is dict or t is bytearray) and y == x else _copy(x)
    return out
