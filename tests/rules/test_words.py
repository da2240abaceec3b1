"""Every game says its actions, events and hand results in words (both runtimes)."""
import json

from support import MICROPYTHON, stepped

from cardtable import games, record
from cardtable.rng import Random

SEATS = {"nerts": 3}
MAX_ACTIONS = 150 if MICROPYTHON else 1500
REPRS = ("{'", "['", "None", "True", "False", "{\"", "[\"")


def plain(text):
    for bad in REPRS:
        if bad in text:
            return False
    return True


@stepped
def test_every_action_and_event_of_a_playout_reads_as_words():
    for name in games.GAMES:
        g = games.load(name, seats=SEATS.get(name))
        rng = Random(11)
        said = {}
        n = 0
        while not g.over and n < MAX_ACTIONS:
            a = g.bot_action(rng)
            words = g.action_words(json.loads(json.dumps(record.encode(g, a))))
            assert words and plain(words), (name, words)
            for ev in g.apply(a):
                text = g.describe(ev)
                assert text is None or text and plain(text), (name, ev, text)
                if text:
                    said[ev["ev"]] = text
            n += 1
            yield
        # the action's own echo says nothing more; the hand result is words, per game
        assert "play" not in said and "bid" not in said and "sow" not in said, (name, said)
        if "hand" in said:
            assert said["hand"].startswith(("hand ", "round ")), said["hand"]
        g = None
        games.unload(name)
        yield


def test_partnerships_are_named_one_way():
    g = games.load("fortyfives")
    assert g.side(1) == g.side(3) == "seats 1 & 3"
    ev = {"ev": "over", "winner": 0, "scores": [120, 35, 120, 35]}
    assert g.describe(ev) == "game over: seats 0 & 2 win; final scores seats 0 & 2 120, " \
                             "seats 1 & 3 35"


def test_california_jacks_hand_says_how_it_was_counted():
    g = games.load("california-jacks")
    points = {"high": 1, "low": 0, "jack": 1, "game": 0}
    ev = {"ev": "hand", "hand": 3, "points": points, "card_points": [44, 36],
          "counted_out": "jack", "uncounted": ["game"], "scores": [9, 10]}
    assert g.describe(ev) == "hand 3: High seat 1, Low seat 0, Jack seat 1, Game seat 0 " \
                             "(card points 44 to 36); counted out on Jack: Game not counted"
    ev = {"ev": "hand", "hand": 3, "points": points, "card_points": [44, 36],
          "decided_on": "jack", "scores": [10, 11]}
    assert g.describe(ev).endswith("; both reach 10: Jack decides")


def test_a_nerts_card_reads_as_people_say_it():
    # A card's code carries its deck's mark (8S#2: seat 2's deck); people say whose deck it is,
    # and nothing at all where the seat acting on it owns it (the record keeps the mark).
    g = games.load("nerts", seats=3)
    own = g.action_words({"seat": 2, "act": "center", "card": "8S#2", "t": 6388})
    assert own == "seat 2 plays 8S to the centre, 6.4 s into the round"
    other = g.action_words({"seat": 0, "act": "center", "card": "8S#2", "t": 100})
    assert other == "seat 0 plays 8S (seat 2's deck) to the centre, 0.1 s into the round"
    assert g.action_words({"seat": 1, "act": "move", "card": "KH#1", "at": 0}) \
        == "seat 1 moves KH onto work pile 1"
    g.names = ["Ann", "Bob", "Cy"]
    assert g.describe({"ev": "displaced", "seat": 2, "card": "3C#2", "by": 0}) \
        == "Cy takes back 3C: Ann played earlier"
    assert g.action_words({"seat": 0, "act": "center", "card": "8S#2", "t": 100}) \
        == "Ann plays 8S (Cy's deck) to the centre, 0.1 s into the round"
    g.card_style = lambda code: code.replace("S", "\u2660")
    assert g.action_words({"seat": 1, "act": "center", "card": "8S#2", "t": 100}) \
        == "Bob plays 8\u2660 (Cy's deck) to the centre, 0.1 s into the round"
    for text in (own, other):
        assert "#" not in text
    if not MICROPYTHON:  # (name_seats is the host's: its patterns need CPython's re)
        from cardtable.games import words
        g.card_style = None
        assert words.name_seats(g, "the AH#1 is seat 1's card") == "the AH (Bob's deck) is Bob's card"
        assert words.name_seats(g, "the X#1 is not seat 1's card") == "the X#1 is not Bob's card"
        g.names = None
        assert words.name_seats(g, "the 2C#0 is already in the centre") \
            == "the 2C (seat 0's deck) is already in the centre"
