"""The link under a seeded fuzzer: mutated commands and junk lines, 0 crashes, every line answered
(one ok or error with its id), the game unchanged by every line it refused."""
import linkfuzz
from simtable import collect, table
from support import MICROPYTHON, stepped

# Lines per table: 2 x 10**4 on CPython, 10**4 on MicroPython; `make bench` fuzzes 10**6.
LINES = 5000 if MICROPYTHON else 10000


def fits():
    """False on MicroPython running the package from .py sources: it takes ~25 KB more heap
    than the .mpy build a board gets, and a table and the fuzzer no longer fit in 192 KB
    (the .mpy run fuzzes; see test_main_loop.py)."""
    if not MICROPYTHON:
        return True
    import cardtable

    return cardtable.__file__.endswith(".mpy")


def fuzz(board, layout, seed):
    from cardtable.hw_sim import MemStorage

    t = yield from table(board, layout, storage=MemStorage(), history=False)
    h = linkfuzz.Harness(t)
    n = 0
    for line in linkfuzz.lines(seed, LINES):
        h.feed(line)
        n += 1
        if n % 2 == 0:  # two lines a step: the garbage of four nested or overlong ones can
            # outgrow what the table leaves free (~30 KB of the 192k heap, .mpy run)
            collect()
            yield
    r = h.report()
    assert h.crashes == [], (r, h.crashes[:3])
    assert h.changed == [], (r, h.changed[:3])
    empty = r["lines"] - r["answered"]  # a truncation to nothing: an empty line, skipped
    assert r["lines"] == LINES and empty < LINES // 100, r
    assert r["accepted"] > LINES // 20, r  # the mutations keep enough valid commands to matter
    return t


@stepped
def test_a_two_seat_table_answers_every_fuzzed_line_and_keeps_playing():
    if not fits():
        return
    t = yield from fuzz("pico-i2c-2seat", "california-jacks", 1)
    t.run(2)
    seq = t.ctl.journal.seq
    game = t.ctl.game.ID
    t.send({"cmd": "tag", "id": "t", "done": True})  # (a fuzzed tag command may have begun enrolling)
    t.send({"cmd": "new", "id": "after", "game": "california-jacks"})
    yield  # (the old game's garbage goes before the new one deals)
    t.put("c", "9S")  # the cut card deals the new hand: the table still plays
    assert t.ctl.game.ID == "california-jacks" and t.ctl.journal.seq == 1, (game, seq)


@stepped
def test_a_bidding_table_answers_every_fuzzed_line():
    if not fits():
        return
    if MICROPYTHON:  # a four-seat Forty-Fives table and the fuzzer fit the heap only as .mpy
        yield from fuzz("pico-i2c-2seat", "nexus", 2)
    else:
        yield from fuzz("pico-i2c-4seat", "fortyfives", 2)
