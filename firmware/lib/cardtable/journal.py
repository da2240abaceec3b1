"""The journal: each game's record (DESIGN section 3) on flash, one file per game."""
# ``games/NNNN.jsonl``: line 0 is the header, then one line per accepted action, each written
# by ``record.format_line(obj, seq)`` (a sequence number and a CRC-32) and flushed at once: on
# littlefs the flush is the commit point, so a power cut keeps every action flushed before it.
# On boot ``resume()`` replays the newest game line by line and stops at the first line that is
# torn (no newline), fails its CRC, is out of sequence or is not a legal action; that tail is
# cut off (the good prefix is copied to a temp file that is renamed over the journal, which
# littlefs does atomically), so nothing corrupt is ever read back. An undo appends an undo line
# (``{"act": "undo"}``: it takes back the last action not yet taken back), so undo costs one
# flushed line, never a rewrite; the replay skips what was taken back. Only the newest
# ``keep`` games are kept.
#
# Storage is a hal.Storage: littlefs on the Pico, littlefs-python or memory in tests.
from cardtable import record

ROOT = "games"
KEEP = 8
LINE_MAX = 8192  # a nerts deal of six scanned decks is ~2.5 kB
_CHUNK = 256
_SUFFIX = ".jsonl"


class JournalError(Exception):
    """The journal cannot be written (flash full or failing); the game goes on in memory."""


def _number(name):
    if not name.endswith(_SUFFIX) or len(name) <= len(_SUFFIX):
        return -1
    stem = name[:-len(_SUFFIX)]
    return int(stem) if stem.isdigit() else -1


class LineReader:
    """Complete lines of an open binary file, read in small chunks: next() -> (text, end) or None.

    end is the file offset just past the line's newline. A last line without its newline
    (torn) is never returned, nor is anything after LINE_MAX bytes without a newline.
    """

    def __init__(self, f):
        self.f = f
        self.buf = bytearray()
        self.base = 0  # file offset of buf[0]
        self.start = 0  # where the next line starts in buf
        self.eof = False

    def next(self):
        while True:
            buf = self.buf
            nl = buf.find(b"\n", self.start)
            if nl >= 0:
                text = bytes(buf[self.start:nl]).decode()
                self.start = nl + 1
                return text, self.base + self.start
            if self.eof:
                return None
            if self.start:
                self.base += self.start
                self.buf = buf[self.start:]
                self.start = 0
            if len(self.buf) > LINE_MAX:
                self.eof = True
                return None
            chunk = self.f.read(_CHUNK)
            if not chunk:
                self.eof = True
            else:
                self.buf.extend(chunk)

    def close(self):
        self.f.close()


class Journal:
    """The journal of the current game, and the list of kept games."""

    def __init__(self, storage, root=ROOT, keep=KEEP):
        self.fs = storage
        self.root = root
        self.keep = keep
        self.history = True  # do replayed games keep their history in memory (for undo)?
        self.number = -1  # the current game's number, -1 = none
        self.seq = -1  # seq of the last line in the file (0 = the header)
        self.live = 0  # actions in the file not taken back by an undo line
        self.size = 0  # bytes in the current file
        self.dropped = 0  # bytes cut off the tail by the last resume
        self.error = None  # the last storage error, as text
        self._f = None

    def path(self, n):
        return "%s/%04d%s" % (self.root, n, _SUFFIX)

    def numbers(self):
        """Numbers of the kept games, oldest first."""
        try:
            names = self.fs.listdir(self.root)
        except OSError:
            return []
        out = []
        for name in names:
            n = _number(name)
            if n >= 0:
                out.append(n)
        out.sort()
        return out

    def games(self):
        """[(number, bytes), ...] of the kept games, oldest first."""
        return [(n, self.fs.size(self.path(n))) for n in self.numbers()]

    def reader(self, n=None):
        """A LineReader over game n (default: the current); close() it when done."""
        return LineReader(self.fs.open(self.path(self.number if n is None else n), "rb"))

    # -- writing ----------------------------------------------------------------------------

    def start(self, header):
        """Begin a new game file with its header line; drop games beyond `keep`.

        Raises JournalError if the file cannot be written (the number is taken anyway).
        """
        self.close()
        try:
            try:
                self.fs.mkdir(self.root)
            except OSError:
                pass  # it exists
            kept = self.numbers()
            n = kept[-1] + 1 if kept else 1
            self.number = n
            self.seq = -1
            self.live = 0
            self.size = 0
            drop = len(kept) + 1 - self.keep
            for k in range(drop if drop > 0 else 0):
                self.fs.remove(self.path(kept[k]))
            self._f = self.fs.open(self.path(n), "wb")
            self._write(header)
        except OSError as e:
            self._fail(e)

    def append(self, obj):
        """Write one action line and flush it; returns its seq. Raises JournalError."""
        if self.number < 0 or self.seq < 0:
            raise JournalError("no game is being journaled")
        try:
            if self._f is None:
                self._f = self.fs.open(self.path(self.number), "ab")
            seq = self._write(obj)
        except OSError as e:
            self._fail(e)
        self.live += 1
        return seq

    def _write(self, obj):
        seq = self.seq + 1
        data = (record.format_line(obj, seq) + "\n").encode()
        self._f.write(data)
        self._f.flush()
        self.seq = seq
        self.size += len(data)
        self.error = None
        return seq

    def _fail(self, e):
        self.error = "journal %s: %s" % (self.path(self.number), e)
        self.close()
        raise JournalError(self.error)

    def close(self):
        if self._f is not None:
            try:
                self._f.close()
            except OSError:
                pass
            self._f = None

    # -- replay -----------------------------------------------------------------------------

    def resume(self):
        """Replay the newest game: (game, actions replayed), or None if there is none.

        A bad tail is cut off first. A file without a readable header gives None (the
        caller starts a new game in a new file; the bad one stays for inspection).
        """
        it = self.resuming()
        while True:
            try:
                next(it)
            except StopIteration as stop:
                return stop.value

    def resuming(self):
        """resume() as a generator that yields after each line (its return value is resume's).

        The replay stops at the first bad line. A journal with undo lines is read twice: a
        first pass marks what they took back (_marks), then the replay skips it."""
        self.close()
        kept = self.numbers()
        if not kept:
            return None
        n = kept[-1]
        path = self.path(n)
        dead = None
        last_undo = -1
        try:
            while True:
                r = [None, -1, 0, False]  # type: list  # game, seq, good bytes, an undo line met
                yield from self._replaying(n, dead, r)
                if not r[3]:
                    break
                dead = None  # undo lines: mark what they took back, then replay again
                for step in self._marks(n):
                    if step is not None:
                        dead, good, total, last_undo = step
                    yield
            game, seq, good = r[0], r[1], r[2]
            total = self.fs.size(path)
        except OSError as e:
            self.error = "journal %s: %s" % (path, e)
            return None
        if game is None:
            self.error = "journal %s: no readable header" % path
            return None
        if last_undo > seq:  # an undo line past a bad line marked what it cannot take back
            try:
                self._truncate(good)
            except OSError as e:
                self.error = "journal %s: cannot cut the bad tail: %s" % (path, e)
                return None
            return (yield from self.resuming())
        live = seq if seq > 0 else 0
        if dead is not None:
            for i in range(1, seq + 1):
                if dead[i]:
                    live -= 1
        self.number = n
        self.seq = seq
        self.live = live
        self.size = good
        self.dropped = total - good if total > good else 0
        if self.dropped:
            try:
                self._truncate(good)
                self.error = None
            except OSError as e:
                self.error = "journal %s: cannot cut the torn tail: %s" % (path, e)
        return game, live

    def _replaying(self, n, dead, r):
        """Replay game n into r = [game, seq, good bytes, False], skipping the lines dead marks;
        without marks, stop at the first undo line and set r[3]."""
        last = len(dead) - 1 if dead is not None else 1 << 30
        rd = self.reader(n)
        game = None
        seq = -1
        end = 0  # the end of the last line replayed or skipped
        try:
            while seq < last:
                line = rd.next()
                if line is None:
                    break
                if dead is not None and seq >= 0 and dead[seq + 1]:
                    seq += 1
                    end = line[1]
                    continue
                try:
                    obj = record.parse_line(line[0], seq + 2)
                    if obj.get("seq") != seq + 1:
                        break
                    if game is None:
                        game = record.game_from_header(obj, 1)
                        game.keep_history = self.history
                    elif obj.get("act") == "undo":
                        r[3] = dead is None
                        break
                    else:
                        action = record.decode(game, obj, seq + 2)
                        if game.check(action):
                            break
                        game._apply(action)  # checked once, as the table does (apply() checks again)
                        if game.keep_history:
                            game.history.append(action)
                except ValueError:  # RecordError, IllegalAction, a bad header
                    break
                seq += 1
                end = line[1]
                yield
        finally:
            rd.close()
        r[0], r[1], r[2] = game, seq, end

    def _marks(self, n):
        """The first pass over game n: yields None per line, then (dead, good bytes, file size,
        seq of the last undo line): dead[seq] is 2 for an undo line, 1 for an action it took
        back, 0 for the rest. Only undo lines are parsed here (the replay checks every line),
        so this pass makes little garbage."""
        dead = bytearray()
        good = 0
        last_undo = -1
        rd = self.reader(n)
        try:
            while True:
                line = rd.next()
                if line is None:
                    break
                seq = len(dead)
                text = line[0]
                mark = 0
                if seq > 0 and '"act": "undo"' in text:
                    try:
                        obj = record.parse_line(text, seq + 1)
                    except ValueError:
                        break
                    if obj.get("seq") != seq or obj.get("act") != "undo":
                        break
                    j = seq - 1
                    while j > 0 and dead[j]:
                        j -= 1
                    if j < 1:
                        break  # nothing left to take back: a bad line
                    dead[j] = 1
                    mark = 2
                    last_undo = seq
                dead.append(mark)
                good = line[1]
                yield None
        finally:
            rd.close()
        yield dead, good, self.fs.size(self.path(n)), last_undo

    def undo(self):
        """Take back the last action not yet taken back: append an undo line; returns the text
        of the line it takes back. Raises JournalError."""
        if self.live < 1:
            raise JournalError("no action to take back in the journal")
        last = None
        try:
            self.close()
            dead = None
            for step in self._marks(self.number):
                if step is not None:
                    dead = step[0]
            j = len(dead) - 1  # type: ignore[arg-type]  # _marks always yields a last step
            while j > 0 and dead[j]:
                j -= 1
            rd = self.reader()
            try:
                for _ in range(j + 1):
                    line = rd.next()
                last = line[0]
            finally:
                rd.close()
        except OSError as e:
            self._fail(e)
        self.take_back()
        return last

    def take_back(self):
        """Append an undo line (one flushed line: the caller knows what it takes back)."""
        if self.live < 1:
            raise JournalError("no action to take back in the journal")
        self.append({"act": "undo"})
        self.live -= 2  # append counted the undo line as an action

    def _truncate(self, nbytes):
        """Keep only the first nbytes of the current file (copy + atomic rename)."""
        self.close()
        src = self.path(self.number)
        tmp = src[:-len(_SUFFIX)] + ".tmp"
        fin = self.fs.open(src, "rb")
        try:
            fout = self.fs.open(tmp, "wb")
            try:
                left = nbytes
                while left > 0:
                    chunk = fin.read(_CHUNK if left > _CHUNK else left)
                    if not chunk:
                        break
                    fout.write(chunk)
                    left -= len(chunk)
                fout.flush()
            finally:
                fout.close()
        finally:
            fin.close()
        self.fs.rename(tmp, src)
