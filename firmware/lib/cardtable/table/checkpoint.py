"""Fast undo: the game's state before each deal (and every SINCE_MAX actions), and the actions since."""
from cardtable.journal import JournalError

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


def take(ctl, g):
    """Before a deal (or every SINCE_MAX actions) is applied: keep the game's state; the
    actions from there on follow."""
    ctl._ckpt = ctl._since = None  # the old copy goes first: two copies never share the heap
    st = {}
    d = g.__dict__
    for k in d:
        st[k] = _copy(d[k])
    ctl._ckpt = st
    ctl._since = []


def undo(ctl, src):
    """Back to the checkpoint, then the actions since but the last: a few dozen at most, and
    one undo line on flash. Returns (True, the undone record object as a spectator sees it)."""
    g = ctl.game
    last = ctl._since.pop()
    obj = ctl._encode(last)
    try:
        ctl.journal.take_back()
    except JournalError as e:
        ctl._fault("journal", str(e))
    st = ctl._ckpt
    for k in st:
        setattr(g, k, _copy(st[k]))
    for a in ctl._since:
        g._apply(a)  # each was checked when it was played
    if not ctl._since:  # the deal itself was taken back: the next undo replays the journal
        ctl._ckpt = ctl._since = None
    ctl._undone((g, 0), (obj, last, src))
    return True, g.public(obj)
