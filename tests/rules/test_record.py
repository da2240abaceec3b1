"""The game record: line-numbered errors, round trips, journal checksums, the referee."""
import sys

from cardtable import games, record, referee
from cardtable.rng import Random

from playout import playing
from support import raises, stepped

HEAD = '{"game": "california-jacks", "seats": 2, "dealer": 0, "rules": {}}'


@stepped
def test_round_trip_of_a_whole_game():
    g = yield from playing("california-jacks", 2, rules={"void_penalty": 0})
    it = record.reading(record.dump(g))
    again = next(it)
    assert record.header(again) == record.header(g)
    i = 0
    for lineno, action in it:
        assert action == g.history[i] and lineno == i + 2
        assert record.encode(again, action) == record.encode(g, g.history[i])
        i += 1
        yield
    assert i == len(g.history)


def test_malformed_lines_name_the_line_and_what_was_expected():
    cases = [
        (["", "  "], 2, "the record is empty"),
        (["{not json"], 1, "not a JSON object"),
        (["[1, 2]"], 1, "expected a JSON object"),
        (['{"game": "poker"}'], 1, "unknown game 'poker'"),
        (['{"game": "nexus", "player": 2}'], 1, "unknown header key 'player'"),
        (['{"game": "nexus", "players": 2}'], 1, "\"players\" must be a list of names"),
        (['{"game": "nexus", "start": 1700000000}'], 1, "'start' must be text"),
        (['{"game": "california-jacks", "rules": {"trumps": 1}}'], 1, "unknown rule option 'trumps'"),
        ([HEAD, '{"seat": 0, "act": "bid", "bid": 15}'], 2, "unknown action 'bid'"),
        ([HEAD, '{"seat": 5, "act": "play", "card": "AS"}'], 2, "seat number 0..1"),
        ([HEAD, '{"seat": 0, "act": "play"}'], 2, "'play' needs 'card'"),
        ([HEAD, '{"seat": 0, "act": "play", "card": "ZZ"}'], 2, "bad card code 'ZZ'"),
        ([HEAD, '{"seat": 0, "act": "play", "card": 10}'], 2, "a card must be a code in quotes"),
        ([HEAD, '{"seat": 0, "act": "play", "card": "AS", "why": 1}'], 2, "'play' takes no 'why'"),
        ([HEAD, '{"act": "deal", "kitty": []}'], 2, "no pile 'kitty'"),
        ([HEAD, '{"act": "deal", "seat": 0, "up": ["AS"]}'], 2, "a deal has no seat"),
        ([HEAD, '{"act": "deal", "hands": "AS"}'], 2, "one list of cards per seat"),
    ]
    for lines, line, words in cases:
        e = raises(record.RecordError, record.load, lines)
        assert e.line == line and words in str(e), (str(e), words)
        assert str(e).startswith("line %d: " % line)


def test_the_occasion_in_the_header_is_kept_and_the_referee_ignores_it():
    plain = referee.referee([HEAD, '{"seat": 0, "act": "play", "card": "AS"}'])
    head = ('{"game": "california-jacks", "seats": 2, "dealer": 0, "rules": {}, "table": "Club 3", '
            '"players": ["Ann", null], "start": "2026-11-25T19:00:00Z", "end": "2026-11-25T19:40:00Z"}')
    told = referee.referee([head, '{"seat": 0, "act": "play", "card": "AS"}'])
    assert told == plain
    g = record.game_from_header(record.parse_line(head, 1))
    assert record.header(g) == record.parse_line(HEAD, 1)


def test_journal_lines_carry_a_sequence_and_a_checksum():
    obj = {"seat": 1, "act": "play", "card": "10H"}
    line = record.format_line(obj, 7)
    assert record.parse_line(line, 1) == {"seq": 7, "seat": 1, "act": "play", "card": "10H"}
    for i in range(len(line) - 1):
        torn = line[:i]
        e = raises(record.RecordError, record.parse_line, torn, 3) if torn.strip() else None
        assert e is None or e.line == 3
    flipped = line.replace("10H", "10D")
    assert "checksum mismatch" in str(raises(record.RecordError, record.parse_line, flipped, 4))


def test_bytes_after_a_journal_lines_checksum_are_refused():
    line = record.format_line({"seat": 0, "act": "play", "card": "AS"}, 3)
    assert record.parse_line(line + " \r", 2)["card"] == "AS"  # line-end blanks are no bytes after it
    for tail in ('"}', ' "}', 'x"}', '0', '}', ', "x": 1}'):
        e = raises(record.RecordError, record.parse_line, line + tail, 5)
        assert e.line == 5 and "the checksum must end the line" in e.message, (tail, e.message)


def test_referee_rejects_illegal_play_and_goes_on():
    g = games.load("california-jacks")
    deal = g.random_deal(Random(9))
    g.apply(deal)
    lines = [HEAD, record.format_line(record.encode(g, deal))]
    seat = g.turn[0]
    lead = g.hands[seat][0]
    lines.append('{"seat": %d, "act": "play", "card": "%s"}' % (1 - seat, g.card_code(g.hands[1 - seat][0])))
    lines.append('{"seat": %d, "act": "play", "card": "%s"}' % (seat, g.card_code(lead)))
    r = referee.referee(lines)
    assert not r["ok"]
    assert r["rejected"] == [{"line": 3, "seat": 1 - seat, "reason": "not your turn: seat %d is to play" % seat}]
    assert r["tricks"] == [] and r["over"] is False


@stepped
def test_every_game_has_a_unique_id_and_loads_by_it():
    for name in games.GAMES:
        try:
            cls = games.game_class(name)
        except ImportError:
            continue
        assert cls.ID == name
        cls = None
        games.unload(name)                    # one game at a time fits the Pico's heap
        assert games.GAMES[name][0] not in sys.modules
        yield
    raises(ValueError, games.load, "bridge")


def test_an_undo_line_takes_back_the_action_before_it():
    deal = '{"act": "deal", "hands": [["2C","3D","4D","5D","6D","7D"], ["KC","8H","9H","10H","JH","QH"]], "up": ["9S"]}'
    undo = '{"act": "undo"}'
    lines = [HEAD, deal, '{"seat": 1, "act": "play", "card": "KC"}', undo,
             '{"seat": 1, "act": "play", "card": "8H"}', '{"seat": 0, "act": "play", "card": "2C"}',
             undo, undo, '{"seat": 1, "act": "play", "card": "QH"}']
    g, actions = record.load(lines)
    assert [n for n, a in actions] == [2, 9]  # the KC taken back, then 2C and 8H
    assert actions[1][1] == (1, "play", g.deck.parse("QH"))
    e = raises(record.RecordError, record.load, [HEAD, deal, undo, undo])
    assert e.line == 4 and "no action before it" in str(e)
