"""Power cuts during journal writes, on littlefs (the filesystem the Pico uses) via littlefs-python.

The flash is a bytearray behind a littlefs-python user context that can lose power after any
byte: the program under way lands only partly, and every later program or erase fails, as on a
board whose supply died. Then the flash is mounted afresh (no format: a mount failure is a
failure) and the journal replayed. Every cut must leave a prefix of the accepted actions,
byte for byte the lines that were flushed, and a journal that takes the next action.
Geometry as MicroPython's rp2 VfsLfs2: 4096-byte blocks, read/prog/lookahead 32 bytes.
"""
from __future__ import annotations

import errno
from typing import Any

import pytest

littlefs = pytest.importorskip("littlefs")
from littlefs import LittleFS, LittleFSError, UserContext  # noqa: E402

from cardtable import games, record  # noqa: E402
from cardtable.journal import Journal, JournalError  # noqa: E402
from cardtable.rng import Random  # noqa: E402

BLOCK = 4096
BLOCKS = 48
GEOMETRY = dict(block_size=BLOCK, block_count=BLOCKS, read_size=32, prog_size=32,
                lookahead_size=32)
LFS_ERR_IO = -5


class Flash(UserContext):
    """A NOR flash that loses power after `budget` more programmed bytes (erases count one)."""

    def __init__(self, image: bytearray) -> None:
        super().__init__(buffer=image)
        self.budget: int | None = None
        self.dead = False
        self.spent = 0

    def read(self, cfg: Any, block: int, off: int, size: int) -> bytearray:
        # UserContext.read, without its debug log line (looked up for each of ~2 million reads)
        start = block * cfg.block_size + off
        return self.buffer[start:start + size]

    def prog(self, cfg: Any, block: int, off: int, data: bytes) -> int:
        if self.dead:
            return LFS_ERR_IO
        start = block * cfg.block_size + off
        if self.budget is not None and len(data) > self.budget:
            keep = self.budget
            self.buffer[start:start + keep] = data[:keep]  # a torn program: its first bytes land
            self.spent += keep
            self.dead = True
            return LFS_ERR_IO
        if self.budget is not None:
            self.budget -= len(data)
        self.spent += len(data)
        self.buffer[start:start + len(data)] = data
        return 0

    def erase(self, cfg: Any, block: int) -> int:
        if self.dead:
            return LFS_ERR_IO
        start = block * cfg.block_size
        if self.budget is not None and self.budget < 1:
            half = cfg.block_size // 2
            self.buffer[start:start + half] = b"\xff" * half  # an erase cut short
            self.dead = True
            return LFS_ERR_IO
        if self.budget is not None:
            self.budget -= 1
        self.spent += 1
        self.buffer[start:start + cfg.block_size] = b"\xff" * cfg.block_size
        return 0


class LfsFile:
    """A littlefs-python file as the journal sees files on the board: errors are OSError."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def _io(self, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except LittleFSError as e:
            raise OSError(errno.EIO, "littlefs: %s" % e) from e

    def read(self, n: int) -> bytes:
        return bytes(self._io(self.raw.read, n) or b"")

    def write(self, data: bytes) -> int:
        return int(self._io(self.raw.write, data))

    def flush(self) -> None:
        self._io(self.raw.flush)

    def close(self) -> None:
        self._io(self.raw.close)


class LfsStorage:
    """hal.Storage over a mounted littlefs-python filesystem (unbuffered files, as on the board)."""

    def __init__(self, fs: LittleFS) -> None:
        self.fs = fs

    def _io(self, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except FileNotFoundError as e:
            raise OSError(errno.ENOENT, str(args[0])) from e
        except LittleFSError as e:
            raise OSError(errno.EIO, "littlefs: %s" % e) from e

    def open(self, path: str, mode: str) -> LfsFile:
        if mode == "ab" and self.size(path) < 0:
            mode = "wb"  # littlefs-python's "ab" does not create a missing file
        return LfsFile(self._io(self.fs.open, path, mode, 0))

    def listdir(self, path: str) -> list[str]:
        return list(self._io(self.fs.listdir, path))

    def remove(self, path: str) -> None:
        self._io(self.fs.remove, path)

    def rename(self, src: str, dst: str) -> None:
        self._io(self.fs.rename, src, dst)

    def mkdir(self, path: str) -> None:
        self._io(self.fs.mkdir, path)

    def size(self, path: str) -> int:
        try:
            return int(self.fs.stat(path).size)
        except (FileNotFoundError, LittleFSError):
            return -1

    def free(self) -> int:
        return (BLOCKS - self.fs.used_block_count) * BLOCK


class Board:
    """One power-on: a flash image, littlefs mounted on it, and the journal on top."""

    def __init__(self, image: bytearray, fresh: bool = False) -> None:
        self.flash = Flash(image)
        self.fs = LittleFS(self.flash, mount=False, **GEOMETRY)  # keep a reference: GC segfault
        if fresh:
            self.fs.format()
        self.fs.mount()  # raises if the cut left littlefs unmountable: that would be a failure
        self.storage = LfsStorage(self.fs)
        self.journal = Journal(self.storage, keep=3)

    def off(self) -> bytearray:
        """Power off: close the open journal file (littlefs-python crashes if a filesystem
        is collected with a file open) and return the flash image."""
        try:
            self.journal.close()
        except (OSError, LittleFSError):
            pass
        return self.flash.buffer

    def text(self, n: int = -1) -> bytes:
        number = self.journal.number if n < 0 else n
        path = self.journal.path(number)
        if self.storage.size(path) < 0:
            return b""
        f = self.storage.open(path, "rb")
        out = b""
        while True:
            chunk = f.read(512)
            if not chunk:
                break
            out += chunk
        f.close()
        return out


def a_game(n: int, seed: int = 3) -> tuple[Any, list[Any]]:
    g = games.load("california-jacks")
    rng = Random(seed)
    acts = []
    for _ in range(n):
        a = g.bot_action(rng)
        g.apply(a)
        acts.append(a)
    return g, acts


def journal_of(k: int, acts: list[Any], g: Any) -> tuple[bytearray, bytes, list[int]]:
    """A fresh flash holding a journal of the first k actions: (image, file text, line ends)."""
    b = Board(bytearray(b"\xff" * BLOCK * BLOCKS), fresh=True)
    b.journal.start(record.header(games.load("california-jacks")))
    ends = [b.journal.size]
    for a in acts[:k]:
        b.journal.append(record.encode(g, a))
        ends.append(b.journal.size)
    for a in acts[k:]:  # the lines the later appends would write, for byte checks
        ends.append(ends[-1] + len(record.format_line(record.encode(g, a), len(ends)) + "\n"))
    text = b.text()
    return bytearray(b.off()), text, ends


def full_text(g: Any, acts: list[Any]) -> bytes:
    lines = [record.format_line(record.header(games.load("california-jacks")), 0)]
    lines += [record.format_line(record.encode(g, a), i + 1) for i, a in enumerate(acts)]
    return ("\n".join(lines) + "\n").encode()


def cost(image: bytearray, op: Any) -> int:
    """Bytes (and erases) an operation programs on a copy of the flash."""
    b = Board(bytearray(image))
    b.journal.resume()
    before = b.flash.spent
    op(b)
    b.off()
    return b.flash.spent - before


def cut_during(image: bytearray, op: Any, budget: int) -> Board:
    """Run op with power failing after `budget` bytes; return the board after a reboot."""
    b = Board(bytearray(image))
    assert b.journal.resume() is not None
    b.flash.budget = budget
    try:
        op(b)
    except (JournalError, OSError):
        pass  # the write failed: the power is gone
    assert b.flash.dead or budget >= cost(image, op)
    return Board(bytearray(b.off()))


def test_a_cut_at_every_byte_of_an_append_leaves_a_prefix_and_nothing_corrupt():
    g, acts = a_game(6)
    k = 4
    image, text, ends = journal_of(k, acts, g)
    whole = full_text(g, acts)
    assert text == whole[:ends[k]]

    def append_two(b: Board) -> None:
        b.journal.append(record.encode(g, acts[k]))
        b.journal.append(record.encode(g, acts[k + 1]))

    total = cost(image, append_two)
    assert 500 < total < 20000
    seen = set()
    for budget in range(total + 1):
        after = cut_during(image, append_two, budget)
        game, n = after.journal.resume()
        seen.add(n)
        assert k <= n <= k + 2, (budget, n)
        assert game.history == acts[:n], budget
        assert after.text() == whole[:ends[n]], budget  # exactly the flushed lines, no torn tail
        nxt = acts[n] if n < len(acts) else None
        if nxt is not None:  # the journal takes the next action after the reboot
            assert after.journal.append(record.encode(g, nxt)) == n + 1
            again = Board(bytearray(after.off()))
            assert again.journal.resume()[1] == n + 1
            again.off()
        after.off()
    assert seen == {k, k + 1, k + 2}  # the cuts fell before, between and after the two commits


def test_every_flushed_action_survives_a_cut_in_the_next_one():
    g, acts = a_game(5)
    image, text, ends = journal_of(3, acts, g)

    def append(b: Board) -> None:
        b.journal.append(record.encode(g, acts[3]))

    first = cost(image, append)
    for budget in range(0, first, 7):
        after = cut_during(image, append, budget)
        assert after.journal.resume()[1] == 3  # the cut append is lost whole, the flushed three never
        after.off()
    after = cut_during(image, append, first)
    assert after.journal.resume()[1] == 4
    after.off()


def test_a_cut_during_undo_leaves_the_action_or_not_never_half():
    g, acts = a_game(6)
    image, text, ends = journal_of(6, acts, g)
    whole = full_text(g, acts)

    def undo(b: Board) -> None:
        b.journal.undo()

    total = cost(image, undo)
    seen = set()
    for budget in range(total + 1):
        after = cut_during(image, undo, budget)
        game, n = after.journal.resume()
        seen.add(n)
        assert n in (5, 6), (budget, n)
        # the undo is one appended line, whole or not at all: the actions stay as they were
        undo_line = (record.format_line({"act": "undo"}, 7) + "\n").encode() if n == 5 else b""
        assert after.text() == whole[:ends[6]] + undo_line, budget
        assert game.history == acts[:n]
        after.off()
    assert seen == {5, 6}


def test_a_cut_while_a_new_game_starts_keeps_the_old_ones_intact():
    g, acts = a_game(4)
    image, text, ends = journal_of(4, acts, g)
    new = record.header(games.load("nexus"))

    def start(b: Board) -> None:
        b.journal.start(new)

    total = cost(image, start)
    seen = set()
    for budget in list(range(0, total, 3)) + [total]:
        after = cut_during(image, start, budget)
        assert after.text(1) == text  # the game before is untouched
        got = after.text(2)
        seen.add(bool(got))
        assert got in (b"", (record.format_line(new, 0) + "\n").encode()), budget
        resumed = after.journal.resume()
        if got:
            assert resumed is not None and resumed[0].ID == "nexus" and resumed[1] == 0
        else:
            assert resumed is None or resumed[0].ID == "california-jacks"
        after.off()
    assert seen == {False, True}
