"""Replay a game record and judge every action, as a referee would (DESIGN section 3)."""
from cardtable import record

# The referee's bounds, so no record costs more than a few seconds, megabytes and lines of
# output (record.MAX_LINES bounds its actions): the file's size, and how many rejected actions
# it names before it stops.
MAX_BYTES = 8 << 20
MAX_REJECTED = 1000


# -- a record file's text (the table never reads one, so not in record.py) ------------------
def text_lines(data):
    """The text lines of a record file's bytes: UTF-8 (a byte-order mark is skipped) or UTF-16
    with its mark, as Windows editors save it; RecordError naming the line that is not text,
    or a file over MAX_BYTES."""
    if len(data) > MAX_BYTES:
        raise record.RecordError(1, "the record is larger than %d MB: the referee's limit for a "
                                    "record" % (MAX_BYTES >> 20))
    skip = 0
    if data[:3] == b"\xef\xbb\xbf":
        skip = 3
        data = data[3:]
    elif data[:2] == b"\xff\xfe" or data[:2] == b"\xfe\xff":
        try:
            text = data.decode("utf-16")
        except UnicodeError as e:
            raise record.RecordError(len(_split(data[:e.start].decode("utf-16", "replace"))),
                                     "not UTF-16 text: the file is damaged")
        except LookupError:  # no UTF-16 codec (MicroPython)
            raise record.RecordError(1, "UTF-16 text: save the record as UTF-8")
        return _split(text)
    try:
        text = data.decode()
    except UnicodeError as e:
        at = getattr(e, "start", 0)
        raise record.RecordError(len(_split(data[:at].decode("utf-8", "replace"))),
                                 "byte %d is not UTF-8 text: save the record as UTF-8" % (skip + at + 1))
    return _split(text)


def _split(text):
    """Lines ended by LF, CRLF or CR (and nothing else: not str.splitlines' many others)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def replay(game, actions):
    """Yield (line, action, reason, events) for each action; rejected ones are not applied."""
    for lineno, action in actions:
        reason = game.check(action)
        if reason:
            yield lineno, action, reason, ()
        else:
            yield lineno, action, None, game.apply(action)


class Verdict:
    """The referee's findings, gathered one replay step at a time."""

    def __init__(self, game):
        self.game = game
        self.rejected = []
        self.revokes = []
        self.displaced = []     # Nerts: a late-arriving earlier play took a slot back
        self.plays = {}         # this hand: (trick, seat) -> line of that play
        self.trick = 1          # the trick being played in this hand

    def add(self, lineno, action, reason, events):
        """Take in one step of a replay."""
        if reason:
            if len(self.rejected) >= MAX_REJECTED:
                raise record.RecordError(lineno, "more than %d rejected actions: the referee's "
                                                 "limit for a record" % MAX_REJECTED)
            self.rejected.append({"line": lineno, "seat": action[0], "reason": reason})
        for ev in events:
            kind = ev.get("ev")
            if kind == "deal":
                self.plays = {}
                self.trick = 1
            elif kind == "play":
                self.plays[(self.trick, ev["seat"])] = lineno
            elif kind == "trick":
                self.trick += 1
            elif kind == "revoke" or kind == "displaced":
                rv = dict(ev)
                rv["line"] = lineno
                if kind == "revoke":
                    # the line where the seat broke the rule (this line proves it)
                    rv["revoked_line"] = self.plays.get((ev["trick"], ev["seat"]))
                (self.revokes if kind == "revoke" else self.displaced).append(rv)

    def result(self):
        """The summary: ok, rejected actions, revokes, trick winners, scores, over, winner."""
        game = self.game
        out = {"ok": not self.rejected and not self.revokes, "game": game.ID,
               "rejected": self.rejected, "revokes": self.revokes}
        if self.displaced:
            out["displaced"] = self.displaced
        if hasattr(game, "trick_winners"):
            out["tricks"] = list(game.trick_winners)
        out["scores"] = game.scores
        out["over"] = game.over
        out["winner"] = game.winner
        return out


def verdict(game, steps):
    """The summary of a whole replay."""
    v = Verdict(game)
    for step in steps:
        v.add(*step)
    return v.result()


def referee(lines):
    """Referee a record given as text lines; raises record.RecordError if it is malformed."""
    game, actions = record.load(lines)
    return verdict(game, replay(game, actions))
