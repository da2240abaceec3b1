"""The journal: append and flush, replay on boot, torn and corrupt tails, undo, rotation."""
from support import raises, stepped

from cardtable import games, record
from cardtable.hw_sim import MemStorage
from cardtable.journal import Journal, JournalError
from cardtable.rng import Random


def played(n, seed=3):
    """A California Jacks game after n bot actions (the first is the deal)."""
    g = games.load("california-jacks")
    rng = Random(seed)
    actions = []
    for _ in range(n):
        a = g.bot_action(rng)
        g.apply(a)
        actions.append(a)
    return g, actions


def journaled(n, store=None, seed=3):
    """A journal holding a game of n actions; returns (store, journal, game, line ends)."""
    store = store or MemStorage()
    g, actions = played(n, seed)
    j = Journal(store)
    j.start(record.header(g))
    ends = [j.size]
    for a in actions:
        j.append(record.encode(g, a))
        ends.append(j.size)
    j.close()
    return store, j, g, ends


def test_lines_carry_seq_and_crc_and_are_flushed_one_by_one():
    store, j, g, ends = journaled(5)
    text = bytes(store.files["games/0001.jsonl"]).decode()
    lines = text.split("\n")
    assert lines[-1] == "" and len(lines) == 7
    assert lines[0].startswith('{"seq": 0, ') and '"game": "california-jacks"' in lines[0]
    assert lines[3].startswith('{"seq": 3, ') and '"crc": "' in lines[3]
    assert record.parse_line(lines[2], 3)["act"] == "play"
    assert store.flushes >= 6  # the header and every action


@stepped
def test_replay_resumes_the_game_exactly():
    store, j, g, ends = journaled(30)
    yield
    j2 = Journal(store)
    game, n = j2.resume()
    yield
    assert n == 30 and j2.seq == 30 and j2.dropped == 0
    assert game.scores == g.scores and game.turn == g.turn
    assert game.view(None) == g.view(None)
    assert game.history == g.history


def test_a_resumed_journal_goes_on_appending():
    store, j, g, ends = journaled(10)
    j2 = Journal(store)
    game, n = j2.resume()
    a = game.legal(game.turn[0])[0]
    game.apply(a)
    assert j2.append(record.encode(game, a)) == 11
    game3, n3 = Journal(store).resume()
    assert n3 == 11 and game3.history[-1] == a


def test_a_torn_last_line_is_dropped_and_cut_off():
    store, j, g, ends = journaled(8)
    data = store.files["games/0001.jsonl"]
    store.files["games/0001.jsonl"] = bytearray(data[:ends[8] - 5])  # the last line lost its end
    j2 = Journal(store)
    game, n = j2.resume()
    assert n == 7 and game.history == g.history[:7]
    assert j2.dropped == ends[8] - 5 - ends[7]
    assert len(store.files["games/0001.jsonl"]) == ends[7]  # the file holds the good prefix only
    assert j2.append(record.encode(g, g.history[7])) == 8
    assert Journal(store).resume()[1] == 8


def test_a_corrupt_line_ends_the_replay_there():
    store, j, g, ends = journaled(12)
    data = store.files["games/0001.jsonl"]
    at = ends[5] + 20  # inside the line of action 6
    data[at] = data[at] ^ 0x04
    j2 = Journal(store)
    game, n = j2.resume()
    assert n == 5 and game.history == g.history[:5]
    assert len(store.files["games/0001.jsonl"]) == ends[5]


def test_bytes_after_a_lines_checksum_end_the_replay_there():
    store, j, g, ends = journaled(6)
    data = store.files["games/0001.jsonl"]
    at = ends[4] - 1  # the newline of action 4's line
    store.files["games/0001.jsonl"] = bytearray(data[:at] + b' "}' + data[at:])
    j2 = Journal(store)
    game, n = j2.resume()
    assert n == 3 and game.history == g.history[:3]
    assert len(store.files["games/0001.jsonl"]) == ends[3]


def test_a_line_out_of_sequence_ends_the_replay():
    store, j, g, ends = journaled(6)
    text = bytes(store.files["games/0001.jsonl"]).decode().split("\n")
    obj = record.parse_line(text[4], 5)
    del obj["seq"]
    text[4] = record.format_line(obj, 9)  # a valid CRC, the wrong number
    store.files["games/0001.jsonl"] = bytearray("\n".join(text).encode())
    assert Journal(store).resume()[1] == 3


def test_an_illegal_action_in_the_journal_ends_the_replay():
    store, j, g, ends = journaled(4)
    j2 = Journal(store)
    game, n = j2.resume()
    seat = game.turn[0]
    j2.append({"seat": 1 - seat, "act": "play", "card": "AS"})  # out of turn
    assert Journal(store).resume()[1] == 4


def test_a_journal_without_a_readable_header_gives_none():
    store = MemStorage()
    store.mkdir("games")
    store.files["games/0001.jsonl"] = bytearray(b'{"seq": 0, "game": "chess"}\n')
    j = Journal(store)
    assert j.resume() is None and "header" in j.error
    assert Journal(MemStorage()).resume() is None


@stepped
def test_undo_appends_an_undo_line_and_the_replay_skips_what_it_took_back():
    store, j, g, ends = journaled(9)
    yield
    j2 = Journal(store)
    j2.resume()
    yield
    before = bytes(store.files["games/0001.jsonl"])
    assert record.parse_line(j2.undo(), 9)["seq"] == 9  # the text of the line taken back
    yield
    assert record.parse_line(j2.undo(), 8)["seq"] == 8
    yield
    data = bytes(store.files["games/0001.jsonl"])
    assert data.startswith(before), "an undo never rewrites the journal"
    tail = data[len(before):].decode().split("\n")[:-1]
    assert [record.parse_line(t, 0)["act"] for t in tail] == ["undo", "undo"]
    data = tail = before = None
    yield
    game2, n2 = Journal(store).resume()
    assert n2 == 7 and game2.history == g.history[:7]
    assert j2.live == 7
    game2 = None
    yield
    assert j2.append(record.encode(g, g.history[7])) == 12
    game3, n3 = Journal(store).resume()
    assert n3 == 8 and game3.history == g.history[:8]
    game3 = None
    yield
    j2.undo()  # takes back the new line, then the one before it
    yield
    j2.undo()
    yield
    game4, n4 = Journal(store).resume()
    assert n4 == 6 and game4.history == g.history[:6]


def test_an_undo_line_with_nothing_to_take_back_ends_the_replay():
    store, j, g, ends = journaled(1)
    j.undo()
    j.append({"act": "undo"})  # a second undo: nothing is left to take back
    j2 = Journal(store)
    game, n = j2.resume()
    assert n == 0 and j2.seq == 2 and j2.dropped > 0


def test_undo_never_removes_the_header():
    store = MemStorage()
    j = Journal(store)
    j.start(record.header(games.load("nexus")))
    assert "no action" in str(raises(JournalError, j.undo))


def test_old_games_rotate_out():
    store = MemStorage()
    j = Journal(store, keep=3)
    g = games.load("california-jacks")
    for _ in range(5):
        j.start(record.header(g))
    assert j.numbers() == [3, 4, 5] and j.number == 5
    assert sorted(store.listdir("games")) == ["0003.jsonl", "0004.jsonl", "0005.jsonl"]
    assert [n for n, size in j.games()] == [3, 4, 5]


def test_a_failing_flash_raises_journal_error():
    store = MemStorage()
    j = Journal(store)
    g, actions = played(2)
    j.start(record.header(g))
    store.fail_writes = True
    e = raises(JournalError, j.append, record.encode(g, actions[0]))
    assert "0001.jsonl" in str(e) and j.error
    store.fail_writes = False
    assert j.append(record.encode(g, actions[0])) == 1


def test_the_reader_streams_every_line():
    store, j, g, ends = journaled(6)
    rd = j.reader(1)
    got = []
    line = rd.next()
    while line is not None:
        got.append(line)
        line = rd.next()
    rd.close()
    assert [e for t, e in got] == ends
    assert record.load([t for t, e in got])[0].ID == "california-jacks"


@stepped
def test_cut_at_every_byte_of_an_append_resumes_a_prefix():
    store, j, g, ends = journaled(6)
    full = bytes(store.files["games/0001.jsonl"])
    for cut in range(ends[4], ends[6] + 1):
        s = MemStorage()
        s.mkdir("games")
        s.files["games/0001.jsonl"] = bytearray(full[:cut])
        game, n = Journal(s).resume()
        whole = 0
        while whole < 6 and ends[whole + 1] <= cut:
            whole += 1
        assert n == whole, (cut, n, whole)
        assert game.history == g.history[:n]
        assert bytes(s.files["games/0001.jsonl"]) == full[:ends[n]]
        yield


class Endless:
    """A file of runs of one byte each, [(byte, count), ...], made as it is read (no big
    buffer in the test's heap); counts the bytes read."""

    def __init__(self, runs):
        self.runs = list(runs)
        self.read_bytes = 0

    def read(self, n):
        out = bytearray()
        while self.runs and len(out) < n:
            b, k = self.runs[0]
            take = min(k, n - len(out))
            out.extend(bytes((b,)) * take)
            if take == k:
                self.runs.pop(0)
            else:
                self.runs[0] = (b, k - take)
        self.read_bytes += len(out)
        return bytes(out)

    def close(self):
        pass


def test_the_reader_stops_at_its_line_cap_on_a_tail_without_a_newline():
    from cardtable.journal import _CHUNK, LINE_MAX, LineReader

    # a line, then a babbling tail of a megabyte without a newline: never read to its end
    f = Endless([(ord("a"), 8), (10, 1), (ord("x"), 1 << 20)])
    rd = LineReader(f)
    assert rd.next() == ("a" * 8, 9)
    assert rd.next() is None and rd.next() is None
    assert f.read_bytes <= 9 + LINE_MAX + 2 * _CHUNK, f.read_bytes


@stepped
def test_the_reader_returns_long_lines_up_to_its_cap_one_after_another():
    from cardtable.journal import LINE_MAX, LineReader

    n1 = LINE_MAX  # the longest line; its newline comes in a chunk that takes the buffer past the cap
    f = Endless([(ord("a"), n1), (10, 1), (ord("b"), 600), (10, 1), (ord("c"), 50), (10, 1)])
    rd = LineReader(f)
    line = rd.next()
    assert len(line[0]) == n1 and line[1] == n1 + 1
    line = None
    yield
    assert rd.next() == ("b" * 600, n1 + 602)
    assert rd.next() == ("c" * 50, n1 + 653)
    assert rd.next() is None
