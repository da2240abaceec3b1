"""The serial link: line assembly, garbage, one answer per command id, every command."""
import json

from support import raises, stepped

from simtable import table


class Bytes:
    """A byte source like hal Serial: read_byte() -> int or -1."""

    def __init__(self, data=b""):
        self.data = bytearray(data)
        self.i = 0

    def feed(self, data):
        self.data.extend(data)

    def read_byte(self):
        if self.i >= len(self.data):
            return -1
        self.i += 1
        return self.data[self.i - 1]


def lines(reader, budget=256, polls=100):
    """Every line the reader assembles in a number of polls (as steps of the loop would)."""
    out = []
    for _ in range(polls):
        line = reader.poll(budget)
        if line is not None:
            out.append(line)
    return out


def test_lines_are_assembled_whatever_the_chunks_and_line_ends():
    from cardtable.link import LineReader

    src = Bytes(b'{"cmd": "st')
    rd = LineReader(src)
    assert rd.poll() is None  # half a line: nothing yet, and no waiting for the rest
    src.feed(b'ate", "id": 1}\r\n\r\n\n{"cmd": "hello", "id": 2}\r{"x"')
    assert lines(rd) == ['{"cmd": "state", "id": 1}', '{"cmd": "hello", "id": 2}']
    src.feed(b": 3}\n")
    assert lines(rd, budget=2) == ['{"x": 3}']  # a small budget just takes more polls


def test_an_overlong_line_is_refused_once_and_the_next_line_is_fine():
    from cardtable.link import TOO_LONG, LineReader

    src = Bytes(b"x" * 3000 + b"\n" + b'{"cmd": "state", "id": 9}\n')
    rd = LineReader(src, limit=1024)
    assert lines(rd) == [TOO_LONG, '{"cmd": "state", "id": 9}']


def test_bytes_that_are_not_utf8_are_refused():
    from cardtable.link import BAD_TEXT, LineReader, LinkError, parse

    rd = LineReader(Bytes(b"\xff\xfe\x80\n"))
    line = rd.poll()
    assert line == BAD_TEXT
    assert "UTF-8" in raises(LinkError, parse, line).msg


def test_garbage_gets_an_error_that_says_what_is_expected():
    from cardtable.link import LinkError, parse

    for text, words, cid in (
            ("hello there", "not JSON", None),
            ("[1, 2]", "expected a JSON object", None),
            ('{"id": 5}', "missing \"cmd\"", 5),
            ('{"cmd": "fly", "id": "a"}', "unknown command 'fly'", "a"),
            ('{"cmd": "state"}', "missing \"id\"", None),
            ('{"cmd": "state", "id": [1]}', "\"id\" must be", None),
            ('{"cmd": 7, "id": 1}', "missing \"cmd\"", 1)):
        e = raises(LinkError, parse, text)
        assert words in e.msg, (text, e.msg)
        assert e.id == cid, (text, e.id)
    assert parse('{"cmd": "state", "id": 0}') == {"cmd": "state", "id": 0}


def answers(t, cid):
    return [m for m in t.said if m.get("id") == cid and m["type"] in ("ok", "error")]


@stepped
def test_every_command_gets_exactly_one_answer_with_its_id():
    t = yield from table("pico-i2c-2seat", "california-jacks")
    for cid, cmd in enumerate(("hello", "state", "games", "health", "config", "undo")):
        t.send({"cmd": cmd, "id": cid}, steps=3)
        a = answers(t, cid)
        assert len(a) == 1, (cmd, a)
        assert a[0]["type"] == ("error" if cmd == "undo" else "ok"), (cmd, a)
        yield
    assert answers(t, 5)[0]["msg"] == "nothing to undo"
    health = answers(t, 3)[0]
    assert [r["zone"] for r in health["readers"]] == list(t.board.reader_zone)
    assert health["journal"]["number"] == 1 and health["steps"] > 0
    cfg = answers(t, 4)[0]
    assert cfg["layout"] == "california-jacks" and cfg["zones"]["c"] == "up"
    assert answers(t, 2)[0]["games"] == [{"number": 1, "bytes": t.ctl.journal.size, "current": True}]
    assert answers(t, 1)[0]["view"]["game"] == "california-jacks"
    hello = t.kinds("hello")[-1]
    # running from files, not a frozen image: the build is "source" (an image says its hash)
    assert hello["proto"] == 1 and hello["fw"] == "0.1.0" and hello["build"] == "source"


@stepped
def test_garbage_from_the_host_gets_errors_and_never_stops_the_table():
    from cardtable.rng import Random

    t = yield from table("pico-i2c-2seat", "california-jacks")
    rng = Random(7)
    for _ in range(30):
        junk = bytearray([rng.below(256) for _ in range(rng.below(300))])
        t.hal.serial.feed(bytes(junk) + b"\n")
        t.run(2)
        yield
    t.hal.serial.feed(b'{"cmd": "new", "id": 1, "game": 7}\n{"cmd": "new", "id": 2, "game": "chess"}\n')
    t.hal.serial.feed(b'{"cmd": "act", "id": 3, "action": "play AS"}\n{"cmd": "log", "id": 4, "game": 99}\n')
    t.hal.serial.feed(b'{"cmd": "new", "id": 5, "game": "nexus", "rules": {"joker_bonus": "many"}}\n')
    t.hal.serial.feed(b'{"cmd": "config", "id": 6, "set": {"layout": "poker"}}\n')
    t.hal.serial.feed(b'{"cmd": "new", "id": 7, "game": "fortyfives"}\n')
    while t.hal.serial.waiting():  # one host line per step: the backlog of junk lines first
        t.run(1)
        yield
    t.run(3)
    errors = [answers(t, i)[0]["msg"] for i in range(1, 8)]
    assert "\"game\" must be a game id" in errors[0]
    assert "unknown game 'chess'" in errors[1]
    assert "\"action\" must be a record line" in errors[2]
    assert "no journal 99" in errors[3]
    assert "joker_bonus" in errors[4]
    assert "no layout 'poker'" in errors[5]
    assert "no layout for fortyfives" in errors[6]
    assert all(len(answers(t, i)) == 1 for i in range(1, 8))
    assert t.ctl.link.errors >= 25
    t.put("c", "9S")  # the table still plays
    assert t.ctl.game.history == [(None, "deal", {"up": [3 * 13 + 8]})]


@stepped
def test_new_starts_a_game_and_log_streams_its_journal():
    t = yield from table("pico-i2c-2seat", "california-jacks")
    r = t.send({"cmd": "new", "id": "n", "game": "nexus", "rules": {"joker_bonus": 0}})
    assert r[0]["type"] == "ok" and r[0]["number"] == 2
    assert r[0]["game"] == {"game": "nexus", "seats": 2, "dealer": 0, "rules": {"joker_bonus": 0}}
    assert t.kinds("hello")[-1]["layout"] == "nexus"
    yield
    t.put("c", "AS")  # the two trump indicators deal the hand
    t.put("c", "5H")
    assert t.ctl.game.history[-1][2] == {"up": [3 * 13, 2 * 13 + 4]}
    yield
    t.send({"cmd": "log", "id": 8}, steps=5)
    logs = [m for m in t.said if m["type"] == "log"]
    assert [m["game"] for m in logs] == [2, 2] and answers(t, 8)[0]["lines"] == 2
    assert json.loads(logs[0]["line"])["game"] == "nexus"
    assert '"seq": 1' in logs[1]["line"] and '"crc": "' in logs[1]["line"]
    yield
    t.send({"cmd": "log", "id": 9, "game": 1}, steps=5)
    assert answers(t, 9)[0]["lines"] == 1


@stepped
def test_config_set_is_saved_for_the_next_boot():
    from cardtable.table.controller import load_config

    t = yield from table("pico-i2c-2seat", "california-jacks")
    r = t.send({"cmd": "config", "id": 1, "set": {"layout": "fairies"}})
    assert r[0]["type"] == "ok" and r[0]["saved"] == {"layout": "fairies"}
    assert load_config(t.hal.storage) == {"layout": "fairies"}
    assert r[0]["layout"] == "california-jacks"  # the game in play goes on until then
    r = t.send({"cmd": "config", "id": 2, "set": {"volume": 11}})
    assert r[0]["type"] == "error"


@stepped
def test_state_for_a_seat_is_that_seats_view_and_teach_marks_its_cards():
    t = yield from table("pico-i2c-2seat", "california-jacks")
    g = t.ctl.game
    deal = g.random_deal(__import__("cardtable.rng", None, None, ["Random"]).Random(3))
    from cardtable import record
    t.send({"cmd": "act", "id": "d", "action": record.encode(g, deal)})
    yield
    spectator = t.send({"cmd": "state", "id": "s"})[0]
    assert spectator["type"] == "ok" and "hand" not in spectator["view"]
    for seat in (0, 1):
        r = t.send({"cmd": "state", "id": seat, "seat": seat})[0]
        assert r["type"] == "ok" and r["view"] == json.loads(json.dumps(g.view(seat)))
        assert r["view"]["hand"] == g.codes(sorted(g.hands[seat])) and "teach" not in r
        yield
    turn = g.turn[0]
    r = t.send({"cmd": "state", "id": "t", "seat": turn, "teach": True})[0]
    may = {g.card_code(a[2]) for a in g.legal(turn)}
    assert [m[0] for m in r["teach"]] == r["view"]["hand"]
    assert {m[0] for m in r["teach"] if m[1] is None} == may and may
    other = t.send({"cmd": "state", "id": "o", "seat": 1 - turn, "teach": True})[0]
    assert all(m[1] == g.check((1 - turn, "play", g.deck.parse(m[0]))) for m in other["teach"])
    assert all(m[1].startswith("not your turn") for m in other["teach"])
    yield
    for bad in (2, -1, "0", True, 1.0):
        e = t.send({"cmd": "state", "id": "b", "seat": bad})
        assert e[-1]["type"] == "error" and e[-1]["msg"] == "\"seat\" must be a seat 0..1", (bad, e)
        t.said.clear()
        yield


@stepped
def test_an_undo_for_a_line_that_is_no_longer_the_last_is_refused():
    t = yield from table("pico-i2c-2seat", "nexus")
    t.put("c", "AS")
    t.put("c", "5H")  # the two trump indicators: line 1
    yield
    seq = t.ctl.journal.seq
    e = t.send({"cmd": "undo", "id": "u", "seq": seq - 1})
    assert e[-1]["type"] == "error" and e[-1]["msg"].startswith("the table moved on"), e
    assert t.ctl.journal.seq == seq
    ok = t.send({"cmd": "undo", "id": "v", "seq": seq})
    assert ok[-1]["type"] == "ok", ok
