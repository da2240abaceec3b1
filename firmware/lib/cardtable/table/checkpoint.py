"""Fast undo: the game's state before each deal (and every SINCE_MAX actions), and the actions since."""
_MODULE = type(__import__("sys"))


def _copy(v):
    """A copy of a game's state value: lists, dicts, bytearrays and plain objects (a Nerts
    seat's layout) copied; numbers, strings, tuples, modules, classes and functions shared."""
    t = type(v)
    if t is list:
        return [_copy(x) for x in v]
    if t is dict:
        out = {}
        for k in v:
            out[k] = _copy(v[k])
        return out
    if t is bytearray:
        return bytearray(v)
    if t is not _MODULE and hasattr(v, "__dict__") and not isinstance(v, type) and not callable(v):
        o = object.__new__(t)
        d = v.__dict__
        for k in d:
            setattr(o, k, _copy(d[k]))
        return o
    return v


def take(g):
    """A copy of the game's state, kept before a deal (or every SINCE_MAX actions) is applied."""
    st = {}
    d = g.__dict__
    for k in d:
        st[k] = _copy(d[k])
    return st


def restore(g, st, since):
    """Back to the state st, then the actions since (each checked when it was played)."""
    for k in st:
        setattr(g, k, _copy(st[k]))
    for a in since:
        g._apply(a)
