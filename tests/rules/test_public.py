"""What a spectator is told of an action (games/base.py ``public``): the one place each game
says what of its record lines stays hidden; the table sends nothing else."""
from support import stepped

from cardtable import games, record
from cardtable.rng import Random


def _deal(name, seed=1):
    g = games.load(name)
    a = g.random_deal(Random(seed))
    return g, record.encode(g, a), a


@stepped
def test_a_deal_shows_a_spectator_only_its_face_up_piles():
    for name, shown in (("fortyfives", ()), ("california-jacks", ()), ("nerts", ()),
                        ("nonesuch", ("up",)), ("fairies", ("nexus", "parade"))):
        g, obj, _ = _deal(name)
        pub = g.public(obj)
        assert sorted(pub) == sorted(("act",) + tuple(k for k in shown if k in obj)), (name, pub)
        for k in shown:
            assert pub[k] == obj[k]
        assert "hands" in obj and "hands" not in pub
        assert record.decode(g, pub, 1)[1] == "deal"  # still a record line the host can read
        g = obj = pub = None
        games.unload(name)  # one game at a time fits the Pico's heap
        yield


def test_the_second_nexus_indicator_stays_face_down_unless_plain_view():
    g, obj, _ = _deal("nexus")
    assert len(obj["up"]) == 2 and g.public(obj) == {"act": "deal", "up": obj["up"][:1]}
    plain = games.load("nexus", rules={"up2_hidden": False})
    assert plain.public(obj)["up"] == obj["up"]


def test_fortyfives_discards_are_counted_not_named():
    g = games.load("fortyfives")
    obj = {"seat": 2, "act": "discard", "cards": ["7S", "9S", "QD"]}
    pub = g.public(obj)
    assert pub == {"seat": 2, "act": "discard", "cards": [], "n": 3}
    assert obj["cards"] == ["7S", "9S", "QD"]  # the journal's line is left whole
    assert g.public({"seat": 2, "act": "discard", "cards": []}) == {"seat": 2, "act": "discard", "cards": []}
    play = {"seat": 1, "act": "play", "card": "5H"}
    assert g.public(play) is play  # a played card is face up


def test_a_nerts_private_move_names_no_card():
    g = games.load("nerts")
    pub = g.public({"seat": 1, "act": "move", "card": "2C#1", "at": 1})
    assert pub == {"seat": 1, "act": "move", "at": 1}
    centre = {"seat": 1, "act": "center", "card": "AS#1", "t": 40}
    assert g.public(centre) is centre


def test_why_a_move_was_refused_names_no_card_a_spectator_has_not_seen():
    # Issue 30 (19): the reason of a refused face-down discard, of a deal refused and of a
    # private Nerts move says what is wrong, never which hidden card; a face-up play's reason
    # names its card (the table sees it too).
    g = games.load("fortyfives")
    obj = {"seat": 2, "act": "discard", "cards": ["7S", "9S", "QD"]}
    for reason, told in (("you do not hold the QD", "you do not hold the card"),
                         ("the 9S is discarded twice", "the card is discarded twice"),
                         ("the QD is in seat 1's hand", "the card is in seat 1's hand"),
                         ("7S, 9S: not yours", "a card, a card: not yours"),
                         ("keep 1 to 5 cards: discard 3 to 7", "keep 1 to 5 cards: discard 3 to 7")):
        assert g.public_reason(obj, reason) == told, reason
    play = {"seat": 1, "act": "play", "card": "5H"}
    assert g.public_reason(play, "you do not hold the 5H") == "you do not hold the 5H"
    cj = games.load("california-jacks")
    deal = {"act": "deal", "hands": [["AC", "2C"], None], "up": ["9S"]}
    assert cj.public_reason(deal, "the AC is dealt twice; the 9S is the up card") \
        == "the card is dealt twice; the 9S is the up card"
    nerts = games.load("nerts")
    move = {"seat": 1, "act": "move", "card": "2C#1", "at": 1}
    assert nerts.public_reason(move, "the 2C#1 cannot go on pile 1") == "the card cannot go on pile 1"
