"""A seeded fuzzer for the device's link (both runtimes): mutated commands and junk, and a
harness that feeds them to a table's controller and checks every line's answer.

Used by tests/device/test_link_fuzz.py (a few thousand lines) and by `make bench` (10**6).
"""
import json
import sys

from cardtable.link import Stop
from cardtable.rng import Random

# On MicroPython the state of a refused line is checked by its journal and game object only:
# the spectator view's text of every stateful line would not fit the heap with the table's.
_VIEWS = sys.implementation.name != "micropython"

# Valid commands of every kind, the seeds of the mutations (ids are distinct whole numbers).
VALID = (
    '{"cmd": "hello", "id": 1}',
    '{"cmd": "state", "id": 2}',
    '{"cmd": "act", "id": 3, "action": {"seat": 1, "act": "play", "card": "5H"}}',
    '{"cmd": "act", "id": 4, "action": {"seat": 0, "act": "bid", "bid": 20}}',
    '{"cmd": "act", "id": 5, "action": {"act": "deal", "hands": [["AS", "2C"], null], "up": ["9S"]}}',
    '{"cmd": "undo", "id": 6}',
    '{"cmd": "new", "id": 7, "game": "california-jacks", "seats": 2, "dealer": 1, "rules": {"void_penalty": 0}}',
    '{"cmd": "new", "id": 8, "game": "nexus", "layout": "nexus"}',
    '{"cmd": "log", "id": 9, "game": 1}',
    '{"cmd": "config", "id": 10}',
    '{"cmd": "config", "id": 11, "set": {"layout": "california-jacks"}}',
    '{"cmd": "games", "id": 12}',
    '{"cmd": "health", "id": 13}',
    '{"cmd": "press", "id": 14, "button": "pass"}',
    '{"cmd": "press", "id": 15, "button": "trump H"}',
    '{"cmd": "tag", "id": 16, "zone": "s0"}',
    '{"cmd": "tag", "id": 17, "zone": "s1", "write": "AS", "uid": "04a1b2c3d4e5f6"}',
    '{"cmd": "tag", "id": 18, "done": true}',
    '{"cmd": "state", "id": "text id"}',
)

# Values of the wrong type, the wrong size or the wrong shape, as JSON text.
ODD = ('null', 'true', 'false', '0', '-1', '1.5', '-0.0', '1e999', '-1e999', '""', '"x"', '[]', '{}',
       '[null]', '{"": {}}', '"\\u0000"', '"\\ud800"', '"\\udfff\\ud800"', '"\\u00e9\\u20ac"',
       '99999999999999999999999999999999', '-99999999999999999999', '4294967296', '1073741824',
       '"AS AS AS"', '"%s %d %r"', '"\\n\\r"', '[1, [2, [3]]]', '{"seat": -1}', '"bid 99999999999999999"')
KEYS = ("cmd", "id", "action", "seat", "act", "card", "bid", "game", "seats", "dealer", "rules",
        "layout", "set", "button", "zone", "write", "uid", "done", "hands", "up", "trump")

STATEFUL = ("new", "act", "undo", "press", "config", "tag")  # commands that may change the table


def _bytes(rng, n, lo=0, hi=256):
    out = bytearray(n)
    for i in range(n):
        out[i] = lo + rng.below(hi - lo)
    return out


def _odd(rng):
    """A wrong-typed or outlandish JSON value (text)."""
    k = rng.below(8)
    if k == 0:
        return str(10 ** (1 + rng.below(300)) * (1 - 2 * rng.below(2)))  # huge whole numbers
    if k == 1:
        d = 1 + rng.below(200)
        return "[" * d + "]" * d
    return rng.choice(ODD)


def mutate(rng, line):
    """One mutation of a valid line (bytes), or junk; never CR or LF inside."""
    k = rng.below(13)
    b = bytearray(line)
    n = len(b)
    if k == 0:  # truncated
        b = b[:rng.below(n)]
    elif k == 1:  # bytes flipped
        for _ in range(1 + rng.below(4)):
            b[rng.below(n)] = rng.below(256)
    elif k == 2:  # a bit flipped
        i = rng.below(n)
        b[i] ^= 1 << rng.below(8)
    elif k == 3:  # one value replaced by a wrong one
        start = b.find(b": ", rng.below(n))
        if start >= 0:
            end = start + 2
            depth = 0
            while end < n and not (depth == 0 and b[end] in b",}"):
                if b[end] in b"[{":
                    depth += 1
                elif b[end] in b"]}":
                    depth -= 1
                end += 1
            b = b[:start + 2] + _odd(rng).encode() + b[end:]
    elif k == 4:  # a key added (or repeated) with an odd value
        b = b[:1] + ('"%s": %s, ' % (rng.choice(KEYS), _odd(rng))).encode() + b[1:]
    elif k == 5:  # deep nesting where an object or array goes
        c = rng.choice((b"[", b"[", b"{\"a\":", b"[{\"x\": "))
        d = rng.choice((1 + rng.below(100), 900 + rng.below(90), 1000 + rng.below(300))) // len(c)
        b = b'{"cmd": "act", "id": 5, "action": ' + c * d
        if rng.below(2):
            b = b'{"cmd": "state", "id": 5, "x": ' + c * d
    elif k == 6:  # bytes that are not UTF-8
        i = rng.below(n)
        bad = rng.choice((b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\x80", b"\xf8\x88\x80\x80\x80"))
        b = b[:i] + bad + b[i:]
    elif k == 7:  # overlong
        b = b[:n - 1] + b" " * (900 + rng.below(700)) + b[n - 1:]
    elif k == 8:  # NULs
        for _ in range(1 + rng.below(3)):
            i = rng.below(n + 1)
            b = b[:i] + b"\x00" + b[i:]
    elif k == 9:  # junk bytes
        b = _bytes(rng, 1 + rng.below(120))
    elif k == 10:  # printable junk, JSON's own characters most
        b = _bytes(rng, 1 + rng.below(60), 32, 127)
        for i in range(len(b)):
            if rng.below(3) == 0:
                b[i] = rng.choice(b'{}[]":,0123456789.-eE\\')
    elif k == 11:  # two lines' worth glued together
        b = b + rng.choice(VALID).encode()
    # k == 12: the valid line as it is
    for i in range(len(b)):
        if b[i] == 10 or b[i] == 13:
            b[i] = 32
    return bytes(b)


def lines(seed, count):
    """count fuzzed lines (bytes, no line end) from a seed."""
    rng = Random(seed)
    for _ in range(count):
        yield mutate(rng, rng.choice(VALID).encode())


class Harness:
    """Feeds lines to a Table's controller one by one and checks each line's answer."""

    def __init__(self, t):
        self.t = t
        self.lines = 0
        self.answered = 0  # lines that got their one ok or error
        self.accepted = 0  # ... an ok
        self.crashes = []  # (line, what went wrong): empty means 0 crashes
        self.changed = []  # rejected lines that changed the game

    def _fp(self):
        ctl = self.t.ctl
        j = ctl.journal
        return (ctl.game, j.number, j.seq, j.size, ctl.layout.name)

    def feed(self, data):
        """One line through the link; records a crash or a wrong answer."""
        t = self.t
        ctl = t.ctl
        ser = t.hal.serial
        self.lines += 1
        ser.take()
        fp = self._fp()
        view = None
        errors = ctl.errors
        try:
            # in USB-sized chunks, as the board's serial would bring them (and no big copy)
            cmd = None
            mv = memoryview(data)
            for i in range(0, len(data) + 1, 64):
                ser.feed(mv[i:i + 64])
                if i + 64 > len(data):
                    ser.feed(b"\n")
                while cmd is None and ser.waiting():
                    cmd = ctl.link.poll(256)
            if cmd is None:
                if data:
                    self.crashes.append((data, "no line assembled"))
                return
            name = None if isinstance(cmd, Exception) else cmd.get("cmd")
            if _VIEWS and name in STATEFUL:
                view = json.dumps(ctl.game.view(None))
            from cardtable.table import commands

            commands.handle(ctl, cmd)
            while ctl.streaming is not None:
                commands.log_step(ctl)
        except Stop:  # (a KeyboardInterrupt: not an Exception)
            if not (data and all(b == 3 for b in data)):  # else the deliberate stop: Ctrl-C alone on a line
                self.crashes.append((data, "stopped by a line that is not Ctrl-C alone"))
            ser.take()
            return
        except Exception as e:  # noqa: BLE001 - this is what the fuzzer looks for
            self.crashes.append((data, "%s: %s" % (type(e).__name__, e)))
            return
        out = ser.take().decode()
        if ctl.errors != errors:
            self.crashes.append((data, "internal error: " + out))
        want = cmd.id if isinstance(cmd, Exception) else cmd.get("id")
        answers = []
        for ln in out.split("\n"):
            if '"type": "ok"' in ln or '"type": "error"' in ln:
                msg = json.loads(ln)
                if msg["type"] == "ok" or msg["type"] == "error":
                    answers.append(msg)
        if len(answers) != 1 or answers[0]["id"] != want:
            self.crashes.append((data, "answers %r, expected one with id %r" % (answers, want)))
            return
        self.answered += 1
        if answers[0]["type"] == "ok":
            self.accepted += 1
        else:
            if self._fp() != fp or view is not None and json.dumps(ctl.game.view(None)) != view:
                self.changed.append((data, answers[0]["msg"]))

    def report(self):
        return {"lines": self.lines, "answered": self.answered, "accepted": self.accepted,
                "crashes": len(self.crashes),
                "changed": len(self.changed)}
