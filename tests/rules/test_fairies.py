"""NEXUS-Fairies rules: the rulebook's worked examples as written, and rules-decisions.md section 2.

The rulebook's pictures (hands, deck, per-card values) are not in its text: where an example
needs them, the tests below say which cards are the rulebook's and which were filled in here.
"""
import json

from support import raises, stepped

from cardtable import games
from cardtable.cards import fairies as fc
from cardtable.games.base import IllegalAction
from cardtable.games.fairies import (DEFAULT_VALUES, Fairies, can_join, deck_table, parse_tagged,
                                     parse_value, score_parade, values_from_tags)
from cardtable.rng import Random


def cs(text):
    return [fc.parse(t) for t in text.split()]


def new(rules=None):
    return games.load("fairies", rules=rules)


def make_deal(nexus="", parade="", h0="", h1="", deck=""):
    """A full deal: the named cards where given, the rest filled in from the unused cards in order."""
    specs = [cs(nexus), cs(parade), cs(h0), cs(h1), cs(deck)]
    used = set()
    for spec in specs:
        for c in spec:
            used.add(c)
    rest = [c for c in Fairies.CARDS if c not in used]
    for spec, size in zip(specs, (7, 1, 3, 3, 22)):
        while len(spec) < size:
            spec.append(rest.pop(0))
    return (None, "deal", {"nexus": specs[0], "parade": specs[1], "hands": [specs[2], specs[3]],
                           "deck": specs[4]})


def hide(deal, hands=True, deck=True, nexus=False):
    """The same deal as a table that did not see the hands / the deck / the Nexus."""
    piles = dict(deal[2])
    if hands:
        piles["hands"] = [None, None]
    if deck:
        del piles["deck"]
    if nexus:
        del piles["nexus"]
    return (None, "deal", piles)


def meditate(g, seat, end=None, card=None):
    return g.apply((seat, "meditate", end, None if card is None else fc.parse(card)))


def sow(g, seat, code, at):
    return g.apply((seat, "sow", fc.parse(code), at))


def why_sow(g, seat, code, at):
    return g.check((seat, "sow", fc.parse(code), at))


def ev(events, name):
    return [e for e in events if e["ev"] == name]


def zone_codes(g, seat):
    return [[fc.fmt(c) for c in p] for p in g.zones[seat]]


def parade_codes(g):
    return [fc.fmt(c) for c in g.parade]


def nexus_codes(g):
    return [fc.fmt(c) if c else None for c in g.nexus]


# -- setup -----------------------------------------------------------------------------------
def test_setup_is_the_seeds():
    # Seed setup: 7 cards to the Nexus, one card to player 2's Parade, 3 cards to each hand,
    # 22 in the deck; player 1 moves first.
    g = new()
    assert g.dealing and g.turn == ()
    deal = g.random_deal(Random(5))
    piles = deal[2]
    assert [len(piles["nexus"]), len(piles["parade"]), len(piles["deck"])] == [7, 1, 22]
    assert [len(h) for h in piles["hands"]] == [3, 3]
    g.apply(deal)
    assert g.turn == (0,)
    assert g.owner == 1 and g.parade == piles["parade"]
    assert g.held == [3, 3] and len(g.nexus) == 7 and len(g.deck_cards) == 22
    assert not g.dealing and g.scores == [0, 0]


def test_class_shape():
    assert Fairies.ID == "fairies" and Fairies.SEATS == (2, 2) and not Fairies.HAS_DEALER
    assert Fairies.CARDS == tuple(range(1, 37)) and Fairies.DECK == "fairies"
    assert set(Fairies.PILES) == {"nexus", "parade", "hands", "deck"}
    e = raises(ValueError, games.load, "fairies", 3)
    assert "2 players" in str(e)


def test_deal_is_checked():
    g = new()
    deal = make_deal()
    piles = deal[2]
    bad = dict(piles)
    bad["nexus"] = piles["nexus"][:6]
    assert "nexus pile must hold 7" in g.check((None, "deal", bad))
    bad = dict(piles)
    bad["deck"] = piles["deck"][:-1] + [piles["nexus"][0]]
    assert "dealt twice" in g.check((None, "deal", bad))
    bad = dict(piles)
    del bad["parade"]
    assert "player 2's Parade" in g.check((None, "deal", bad))
    bad = dict(piles)
    bad["kitty"] = [1]
    assert "no pile 'kitty'" in g.check((None, "deal", bad))
    bad = dict(piles)
    bad["hands"] = [piles["hands"][0]]
    assert "hands for 2 seats" in g.check((None, "deal", bad))
    assert "must be dealt first" in g.check((0, "meditate", None, None))
    g.apply(deal)
    assert "no deal is due" in g.check(deal)


# -- the Laws of the Fairy Court ---------------------------------------------------------------
def test_higher_number_follows_lower():
    # "higher number follows lower"
    assert can_join([3, 9], 10)
    assert not can_join([3, 9], 8)
    assert not can_join([30], 1)


def test_mushrooms_follow_numbers_and_numbers_follow_mushrooms():
    m1, m2 = fc.parse("M1"), fc.parse("M2")
    # "a Mushroom follows any number"
    assert can_join([30], m1) and can_join([1], m1)
    # "any number follows a Mushroom" (F4: 28 -> Mushroom -> 25 joins)
    assert can_join([28, m1], 25) and can_join([28, m1], 1)
    # "a Mushroom never follows a Mushroom"
    assert not can_join([5, m1], m2)
    assert not can_join([m1], m2)
    # F4 variant: a number after a Mushroom must still beat the parade's last number.
    assert not can_join([28, m1], 25, False)
    assert can_join([28, m1], 29, False)
    assert can_join([m1], 2, False)


def test_meditation_example():
    # The rulebook's Meditation Example, as written (Alice = player 1 = seat 0, Bella = player 2
    # = seat 1): the 8 starts Bella's Parade and the Nexus reads 24, 13, 9, 28, Mushroom, 25, 19
    # from the top. The hands and the Deck are pictures only: filled in from the unused cards.
    g = new()
    g.apply(make_deal("24 13 9 28 M1 25 19", "8"))
    assert g.owner == 1 and parade_codes(g) == ["8"] and g.turn == (0,)
    # "The 24 card on top of the Nexus resolves. 24 is greater than 8, so the 24 card continues
    # Bella's Parade. Alice also draws a card for Meditating."
    e = meditate(g, 0)
    assert [x["ev"] for x in e] == ["meditate", "join", "draw"]
    assert g.owner == 1 and parade_codes(g) == ["8", "24"] and g.held == [4, 3]
    # "13 is less than 24, so the 13 card starts a new Parade for Alice. The 8 and 24 go to
    # Bella's Score Zone. Bella also draws a card."
    e = meditate(g, 1)
    assert ev(e, "new_parade") == [{"ev": "new_parade", "seat": 0, "card": "13"}]
    assert g.owner == 0 and zone_codes(g, 1) == [["8", "24"]] and g.held == [4, 4]
    # "9 is less than 13, so the 9 card starts a new Parade for Bella. The 13 goes to Alice's
    # Score Zone."
    meditate(g, 0)
    assert g.owner == 1 and parade_codes(g) == ["9"] and zone_codes(g, 0) == [["13"]]
    # "28 is greater than 9, so the 28 card continues Bella's Parade."
    meditate(g, 1)
    assert g.owner == 1 and parade_codes(g) == ["9", "28"]
    # "A Mushroom can follow any number, so the Mushroom card continues Bella's Parade. The Nexus
    # has only 2 cards left so Alice refills 2 cards from the Deck to the bottom of the Nexus.
    # Alice also draws a card for Meditating." Resolve, then refill, then draw (F1).
    deck_top = [fc.fmt(c) for c in g.deck_cards[:3]]
    e = meditate(g, 0)
    assert [x["ev"] for x in e] == ["meditate", "join", "refill", "draw"]
    assert parade_codes(g) == ["9", "28", "M1"]
    assert nexus_codes(g) == ["25", "19"] + deck_top[:2]
    assert fc.fmt(g.hands[0][-1]) == deck_top[2] and g.refills == 1
    # "Any number can follow a Mushroom so the 25 card continues Bella's Parade." (no refill)
    e = meditate(g, 1)
    assert [x["ev"] for x in e] == ["meditate", "join", "draw"]
    assert parade_codes(g) == ["9", "28", "M1", "25"]
    # "19 is less than 25, so the 19 card starts a new Parade for Alice. Bella's Parade moves to
    # her Score Zone. Alice refills the Nexus again. Alice also draws a card."
    e = meditate(g, 0)
    assert [x["ev"] for x in e] == ["meditate", "parade", "new_parade", "refill", "draw"]
    assert g.owner == 0 and parade_codes(g) == ["19"]
    assert zone_codes(g, 1) == [["8", "24"], ["9", "28", "M1", "25"]]
    assert zone_codes(g, 0) == [["13"]]
    assert g.refills == 2 and len(g.nexus) == 4
    assert g.held == [7, 6] and len(g.deck_cards) == 22 - 7 - 4


def test_meditation_example_keeps_the_notes_true():
    # Notes: "I forgot whose turn it is! ... Odd count of cards [in the Nexus] -> It's player 1's
    # turn; Even count -> It's player 2's turn", and "Count how many cards are in the Nexus plus
    # both players' Hands. ... the target number of 13 increases by 2 each time the Nexus has to
    # be refilled from the Deck." Checked after every turn of the Meditation Example.
    g = new()
    g.apply(make_deal("24 13 9 28 M1 25 19", "8"))
    for turn in range(7):
        assert g.turn == ((0,) if len(g.nexus) % 2 else (1,))
        assert len(g.nexus) + sum(g.held) == 13 + 2 * g.refills
        meditate(g, turn % 2)
    assert g.refills == 2 and len(g.nexus) + sum(g.held) == 17


def test_meditation_example_without_the_mushroom_bridge():
    # Variant of F4: 25 does not beat 28, so it starts a new Parade for Alice.
    g = new({"mushroom_bridge": False})
    g.apply(make_deal("24 13 9 28 M1 25 19", "8"))
    for i in range(6):
        meditate(g, i % 2)
    assert g.owner == 0 and parade_codes(g) == ["25"]
    assert zone_codes(g, 1) == [["8", "24"], ["9", "28", "M1"]]


def test_new_parade_goes_to_the_empty_side():
    # F5: "It starts a new Parade for the player whose Parade is empty, and the old Parade goes
    # to its owner's Score Zone. The owner of a card is irrelevant to this."
    g = new()
    g.apply(make_deal("5 30 2", "10"))
    meditate(g, 0)                      # 5 < 10: Bella's [10] banked, new Parade is Alice's
    assert g.owner == 0 and zone_codes(g, 1) == [["10"]]
    meditate(g, 1)                      # 30 joins Alice's Parade although Bella meditated
    assert g.owner == 0 and g.parade == [5, 30]
    meditate(g, 0)                      # 2: Alice's Parade banked to Alice, new one is Bella's
    assert g.owner == 1 and zone_codes(g, 0) == [["5", "30"]] and g.parade == [2]


def test_new_parade_to_meditator_variant():
    g = new({"new_parade_to": "meditator"})
    g.apply(make_deal("5 30 2", "10"))
    meditate(g, 0)
    assert g.owner == 0
    meditate(g, 1)
    meditate(g, 0)                      # Alice banks her own Parade and starts the next one
    assert g.owner == 0 and zone_codes(g, 0) == [["5", "30"]] and g.parade == [2]


# -- sow chaos ------------------------------------------------------------------------------------
def test_sow_chaos_example():
    # The rulebook's SOW CHAOS! Example: "the same starting setup as the previous example, but
    # this time ... Alice chooses to SOW CHAOS by playing the 20 card from her Hand to the top of
    # the Nexus. ... if that 20 goes into Bella's Parade it will have a significant impact."
    # Alice's other two cards are pictures only: filled in.
    g = new()
    g.apply(make_deal("24 13 9 28 M1 25 19", "8", "20"))
    e = sow(g, 0, "20", 0)
    assert e == [{"ev": "sow", "seat": 0, "card": "20", "at": 0}]
    assert nexus_codes(g) == ["20", "24", "13", "9", "28", "M1", "25", "19"]
    assert g.held == [2, 3] and len(g.deck_cards) == 22        # "fewer cards in her Hand"
    assert g.turn == (1,) and len(g.nexus) % 2 == 0            # even count: player 2's turn
    assert len(g.nexus) + sum(g.held) == 13                    # sowing keeps the count
    # If Bella meditates now, the 20 goes into her Parade (20 > 8), and the 24 follows it.
    e = meditate(g, 1)
    assert ev(e, "join") == [{"ev": "join", "seat": 1, "card": "20"}]
    meditate(g, 0)
    assert parade_codes(g) == ["8", "20", "24"]


def test_sow_anywhere_in_the_nexus():
    # "it can be played to the top of the Nexus or inserted at any point in the Nexus"
    # (F8: 0 = top .. len = below the bottom card).
    g = new()
    g.apply(make_deal("8 24 13 9 28 M1 25", "19", "3 17 M2", "6 21 30"))
    e = sow(g, 0, "17", 2)
    assert e == [{"ev": "sow", "seat": 0, "card": "17", "at": 2}]
    assert nexus_codes(g) == ["8", "24", "17", "13", "9", "28", "M1", "25"]
    assert g.held == [2, 3] and g.turn == (1,)
    sow(g, 1, "6", 0)                   # on top: Alice will have to meditate the 6
    sow(g, 0, "M2", 9)                  # below the bottom card
    assert nexus_codes(g) == ["6", "8", "24", "17", "13", "9", "28", "M1", "25", "M2"]
    e = meditate(g, 1)
    assert ev(e, "new_parade")[0]["card"] == "6"
    assert len(g.deck_cards) == 21            # sowing never touches the deck


def test_sow_is_checked():
    g = new()
    g.apply(make_deal("8 24 13 9 28 M1 25", "19", "3 17 M2", "6 21 30"))
    assert why_sow(g, 0, "6", 0) == "the 6 is in seat 1's hand (seen in the deal)"
    assert why_sow(g, 0, "8", 0) == "the 8 is in the Nexus (seen in the deal)"
    assert why_sow(g, 0, "19", 0) == "the 19 is in the Active Parade (seen in the deal)"
    assert "is in the Deck" in why_sow(g, 0, fc.fmt(g.deck_cards[0]), 0)
    assert "0..7" in why_sow(g, 0, "3", 8)
    assert "0..7" in why_sow(g, 0, "3", -1)
    assert why_sow(g, 1, "6", 0) == "not your turn: seat 0 is to play"
    assert g.check((0, "sow", 37, 0)) == "that is not a card of the fairies deck"
    e = raises(IllegalAction, sow, g, 0, "6", 0)
    assert "seat 1's hand" in e.reason and g.held == [3, 3]


def test_empty_hand_must_meditate():
    g = new()
    g.apply(make_deal("1 2 3 4 5 6 7", "8", "10 11 12", "13 14 15"))
    for code in ("10", "11", "12"):
        sow(g, 0, code, 0)
        meditate(g, 1)
    assert g.held[0] == 0
    assert g.check((0, "sow", 13, 0)) == "you have no cards to sow"
    assert g.legal(0) == [(0, "meditate", None, None)]


# -- refills, draws and the end ----------------------------------------------------------------------
def test_draw_first_variant():
    # F1 variant: draw, then refill (the seed's order is refill, then draw).
    g = new({"refill_then_draw": False})
    g.apply(make_deal("1 2 3 4 5 6 7", "30"))
    for i in range(4):
        meditate(g, i % 2)
    top = g.deck_cards[:3]
    e = meditate(g, 0)
    assert [x["ev"] for x in e] == ["meditate", "join", "draw", "refill"]
    assert g.hands[0][-1] == top[0] and g.nexus == [6, 7, top[1], top[2]]


def test_refill_only_at_two():
    # F3: "Refill as soon as it reaches exactly 2, so it never goes below 2 while the Deck
    # has cards."
    g = new()
    g.apply(make_deal("1 2 3 4 5 6 7", "30", "10 11 12", "13 14 15"))
    sow(g, 0, "10", 7)
    for i in range(1, 6):
        e = meditate(g, i % 2)
        assert not ev(e, "refill")
    e = meditate(g, 0)
    assert len(ev(e, "refill")) == 1 and len(g.nexus) == 4


def meditate_12(g):
    """Twelve meditations from a fresh deal: the Nexus has 3 cards and the Deck 2."""
    for i in range(12):
        meditate(g, i % 2)
    assert (len(g.nexus), len(g.deck_cards), g.refills) == (3, 2, 4)


def test_game_ends_when_deck_is_empty_after_the_action():
    # "Game ends when the deck is empty, after the action completes."
    g = new()
    g.apply(make_deal("1 2 3 4 5 6 7", "30"))
    meditate_12(g)
    sow(g, 0, fc.fmt(g.hands[0][0]), 0)
    meditate(g, 1)
    sow(g, 0, fc.fmt(g.hands[0][0]), 0)
    assert (len(g.nexus), len(g.deck_cards)) == (4, 1) and not g.over
    last = g.deck_cards[0]
    e = meditate(g, 1)                  # draws the last card, then the game is over
    assert g.over and g.turn == () and g.hands[1][-1] == last
    assert [x["ev"] for x in e][-2:] == ["draw", "over"]
    assert e[-1] == {"ev": "over", "scores": g.scores, "winner": g.winner}
    assert g.check((0, "meditate", None, None)) == "the game is over"


def test_refill_that_empties_the_deck_ends_the_game():
    g = new()
    g.apply(make_deal("1 2 3 4 5 6 7", "30"))
    meditate_12(g)
    held = g.held
    e = meditate(g, 0)                  # refill takes the last 2 cards; the draw is skipped
    assert [x["ev"] for x in e][-2:] == ["refill", "over"]
    assert g.over and g.held == held and len(g.nexus) == 4


def test_short_refill_then_skipped_draw():
    # F2: "Deal what is available ... A draw from an empty Deck is skipped."
    g = new()
    g.apply(make_deal("1 2 3 4 5 6 7", "30"))
    meditate_12(g)
    sow(g, 0, fc.fmt(g.hands[0][0]), 0)
    meditate(g, 1)
    assert (len(g.nexus), len(g.deck_cards)) == (3, 1) and not g.over
    held = g.held
    e = meditate(g, 0)
    assert len(ev(e, "refill")[0]["cards"]) == 1 and not ev(e, "draw")
    assert g.over and g.held == held and len(g.nexus) == 3


def test_winner_and_draw():
    # F6: the higher Score Zone total wins; "A tie is not covered: declare a draw."
    g = new()
    g.apply(make_deal("1 2 3 4 5 6 7", "30"))
    while not g.over:
        meditate(g, g.turn[0])
    s0, s1 = g.scores
    assert s0 != s1 and g.winner == (0 if s0 > s1 else 1)
    # With every star card worth 0 every parade scores 0: a draw.
    zeros = {}
    for c in range(1, 37):
        if DEFAULT_VALUES[c - 1] not in ("x2", "swap", "zero", "mushrooms"):
            zeros[fc.fmt(c)] = "0"
    g = new({"values": zeros})
    g.apply(make_deal("1 2 3 4 5 6 7", "30"))
    while not g.over:
        meditate(g, g.turn[0])
    assert g.scores == [0, 0] and g.winner is None


# -- double-ended variant ---------------------------------------------------------------------------
def test_double_ended_meditate_and_middle_refill():
    # "Double-ended variant: Meditate resolves the top or the bottom; refills go to the middle"
    # (F9: at index len // 2).
    g = new({"double_ended": True})
    g.apply(make_deal("1 2 3 4 5 6 7", "30"))
    assert "top or bottom" in g.check((0, "meditate", None, None))
    assert "top or bottom" in g.check((0, "meditate", "middle", None))
    e = meditate(g, 0, "bottom")
    assert e[0] == {"ev": "meditate", "seat": 0, "card": "7", "end": "bottom"}
    assert g.owner == 0 and g.parade == [7]
    assert set(a[2] for a in g.legal(1) if a[1] == "meditate") == {"top", "bottom"}
    meditate(g, 1, "top")
    meditate(g, 0, "bottom")
    meditate(g, 1, "bottom")
    top = g.deck_cards[:2]
    e = meditate(g, 0, "top")
    assert ev(e, "refill") == [{"ev": "refill", "cards": [fc.fmt(c) for c in top], "at": 1}]
    assert g.nexus == [3, top[0], top[1], 4]


def test_bottom_only_in_the_variant():
    g = new()
    g.apply(make_deal())
    assert "double-ended" in g.check((0, "meditate", "bottom", None))
    assert g.check((0, "meditate", "top", None)) is None


# -- scoring -------------------------------------------------------------------------------------------
def score(*values):
    """Score of one parade of cards with these values; 'M:<value>' is a Mushroom card."""
    table = [None] + [None] * 36
    cards = []
    n = m = 0
    for v in values:
        if v.startswith("M:"):
            m += 1
            c = 30 + m
            v = v[2:]
        else:
            n += 1
            c = n
        table[c] = parse_value(v)
        cards.append(c)
    return score_parade(cards, table)


# The rulebook's eight Scoring Examples, word for word: each parade's printed sum and its printed
# worth. The card pictures are not in the text, so each term is a card of that value; a 0 term
# of a parade with multipliers is a multiplier card (the text shows them adding 0).
SEED_SCORING_EXAMPLES = (
    ("3 + 1 + 0 + 2", "This Parade is worth 6 points."),
    ("-1 + 2 + -2", "This Parade is worth negative 1 points."),
    ("0 + -1 + 3 + 1 + 0", "This Parade is worth 3 points."),
    ("( 2 + 0 + 2 + -3 ) \u00d7 2", "This Parade is worth 2 points."),
    ("( 3 + 2 + 0 ) \u00d7 -1", "This Parade is worth negative 5 points."),
    ("( 0 + 2 + 0 ) \u00d7 -1 \u00d7 -1", "This Parade is worth positive 2 points."),
    ("( 0 + 0 + 0 + 0 ) \u00d7 2 \u00d7 -1 \u00d7 2", "This Parade is worth 0 points."),
    ("( 3 + 2 + 2 + -2 + 0 ) \u00d7 0", "This Parade is worth 0 points."),
)


def example_values(printed):
    """The card values of a printed example: '( 2 + 0 ) x 2' -> ['+2', 'x2']."""
    parts = printed.replace("(", "").split(")")
    terms = [t.strip() for t in parts[0].split("+")]
    mults = [m.strip() for m in parts[1].split("\u00d7")[1:]] if len(parts) > 1 else []
    names = {"2": "x2", "-1": "swap", "0": "zero"}
    values = []
    for t in terms:
        if t == "0" and mults:
            values.append(names[mults.pop(0)])
        else:
            values.append(t if t.startswith("-") else "+" + t)
    assert not mults, printed
    return values


def printed_worth(text):
    words = text.split()
    n = int(words[-2])
    return -n if words[-3] == "negative" else n


def test_scoring_examples():
    for printed, worth in SEED_SCORING_EXAMPLES:
        assert score(*example_values(printed)) == printed_worth(worth), printed
    assert example_values(SEED_SCORING_EXAMPLES[6][0]) == ["x2", "swap", "x2", "+0"]


def test_scoring_rules():
    # "Each star in a Score Zone scores 1 ... Each skull scores negative 1 ... These cards have a
    # star value equal to the number of Mushroom cards in that Parade."
    assert score("+3", "+2", "+1") == 6                             # stars
    assert score("-1", "-2", "-3") == -6                            # skulls
    assert score("+3", "swap", "-1") == -2                          # swap = x-1
    assert score("+3", "+2", "zero", "x2") == 0                     # "eliminates" the parade
    # Mushroom-count: worth the Mushrooms in its own parade, counting itself.
    assert score("M:mushrooms", "4", "M:+1", "+2") == 2 + 4 + 1 + 2
    assert score("M:mushrooms", "+1") == 1 + 1


def test_multipliers_only_within_their_parade():
    # 2a: "Parade score = ... within its own parade only: keep parades separate in the Score Zone."
    table = deck_table({"1": "+3", "2": "x2", "3": "-1", "4": "-2"})
    assert score_parade([1, 2], table) + score_parade([3, 4], table) == 3
    assert score_parade([1, 2, 3, 4], table) == 0


def test_only_score_zones_score():
    # "cards in hands, the Nexus and the Active Parade do not score"
    g = new({"values": {"11": "+3", "17": "+2", "19": "-3"}})
    g.apply(make_deal("11 17 5 1 2 3 4", "19", "6 7 8", "9 12 13"))
    meditate(g, 0)          # 11 cannot follow 19: Bella's [19] is banked (-3), Alice starts [11]
    assert g.scores == [0, -3]
    meditate(g, 1)          # 17 joins Alice's Active Parade: still unscored
    assert g.scores == [0, -3]
    meditate(g, 0)          # 5: Alice's [11, 17] banked = 5
    assert g.scores == [5, -3]
    assert g.view(None)["scores"] is None and g.dump()["scores"] == [5, -3]


# -- the deck table ------------------------------------------------------------------------------------
def test_default_table_meets_the_seed_constraints():
    # 2a: 30 numbered + 6 Mushrooms; >= 2 x2, >= 2 swap, exactly 1 zero, >= 2 mushroom-count;
    # the examples' values 3, 2, 1, 0, -1, -2, -3 all occur.
    assert len(DEFAULT_VALUES) == 36
    table = deck_table()
    texts = [DEFAULT_VALUES[i] for i in range(36)]
    assert texts.count("x2") >= 2 and texts.count("swap") >= 2
    assert texts.count("zero") == 1 and texts.count("mushrooms") >= 2
    for v in ("+3", "+2", "+1", "0", "-1", "-2", "-3"):
        assert v in texts
    assert table[fc.parse("M1")] == (0, 1, 1)


def test_table_validation_errors():
    e = raises(ValueError, deck_table, {"5": "zero"})
    assert str(e) == "bad deck table: the seed needs exactly 1 zero card, this table has 2 (5, 22)"
    e = raises(ValueError, deck_table, {"10": "+1", "20": "+1"})
    assert "the seed needs at least 2 x2 cards, this table has 0" in str(e)
    e = raises(ValueError, deck_table, {"M1": "+1", "M2": "+1", "14": "+1"})
    assert "swap" in str(e) and "mushrooms" in str(e)
    e = raises(ValueError, deck_table, {"7": "+two"})
    assert "the 7" in str(e) and "bad card value" in str(e)
    e = raises(ValueError, deck_table, {"7": "+12"})
    assert "out of range" in str(e)
    e = raises(ValueError, deck_table, {"31": "+1"})
    assert "bad Fairies card" in str(e)
    e = raises(ValueError, new, {"values": {"22": "+1"}})
    assert "zero" in str(e)
    e = raises(ValueError, new, {"values": ["7", "+2"]})
    assert "dict" in str(e)
    e = raises(ValueError, new, {"new_parade_to": "nobody"})
    assert "meditator" in str(e)


def test_design_header_values_are_accepted():
    # DESIGN section 3's example header.
    values = {"7": "+2", "9": "-1", "12": "x2", "15": "swap", "22": "zero", "M1": "mushrooms"}
    g = new({"values": values})
    assert g.table[12] == (0, 2, 0) and g.table[15] == (0, -1, 0) and g.table[7] == (2, 1, 0)
    assert g.rules["values"] == values


def test_value_aliases():
    assert parse_value("\u00d72") == parse_value("x2") == (0, 2, 0)
    assert parse_value("x-1") == parse_value("SWAP") == (0, -1, 0)
    assert parse_value("x0") == (0, 0, 0)
    assert parse_value("3") == parse_value("+3") == (3, 1, 0)
    assert parse_value("-0") == (0, 1, 0)


def test_tagged_values():
    # A card's tag may carry its printed value, e.g. NDEF text "7:+2".
    assert parse_tagged("7:+2") == (7, "+2")
    assert parse_tagged(" m1 : Mushrooms ") == (fc.parse("M1"), "mushrooms")
    assert parse_tagged("12:\u00d72") == (12, "x2")
    assert parse_tagged("9") == (9, None)
    assert "tag '7:x3'" in str(raises(ValueError, parse_tagged, "7:x3"))
    raises(ValueError, parse_tagged, "31:+1")
    assert values_from_tags(["7:+2", "9", "12:x2"]) == {"7": "+2", "12": "x2"}
    raises(ValueError, values_from_tags, ["1:zero", "2:zero"])


# -- unknown cards -------------------------------------------------------------------------------------
def test_unseen_hands_are_checked_for_what_is_provable():
    deal = make_deal("8 24 13 9 28 M1 25", "19", "3 17 M2", "6 21 30")
    g = new()
    g.apply(hide(deal, hands=True, deck=False))
    assert g.held == [3, 3] and g.unseen == [3, 3]
    assert why_sow(g, 0, "8", 0) == "the 8 is in the Nexus (seen in the deal)"
    assert why_sow(g, 0, fc.fmt(g.deck_cards[0]), 0).startswith("the %s is in the Deck" % fc.fmt(g.deck_cards[0]))
    sow(g, 0, "3", 0)                                   # unseen: the table believes it
    # A card seen twice: Bella cannot sow the 3 that Alice sowed on move 1.
    assert why_sow(g, 1, "3", 0) == "the 3 is in the Nexus (seen on move 1)"
    meditate(g, 1)                                      # the 3 joins; Bella draws a known card
    drawn = g.hands[1][0]
    sow(g, 0, "17", 0)
    meditate(g, 1)
    sow(g, 0, "M2", 0)
    # Alice has now sown her three unseen cards: she holds only the card she has not drawn yet.
    assert g.unseen[0] == 0 and g.held[0] == 0
    meditate(g, 1)
    meditate(g, 0)
    assert g.unseen[0] == 0 and len(g.hands[0]) == 1
    meditate(g, 1)
    assert why_sow(g, 0, "6", 0) == "you do not hold the 6"   # hidden, but not in Alice's hand
    assert why_sow(g, 0, fc.fmt(g.hands[0][0]), 0) is None
    assert g.where[drawn] == 2


def test_unseen_nexus_card_must_be_named():
    deal = make_deal("8 24 13 9 28 M1 25", "19", "3 17 M2", "6 21 30")
    g = new()
    g.apply(hide(deal, hands=False, deck=True, nexus=True))
    assert nexus_codes(g) == [None] * 7
    assert "has not seen the top card" in g.check((0, "meditate", None, None))
    assert g.legal(0) == [(0, "sow", c, at) for c in (3, 17, 31 + 1) for at in range(8)]
    assert "in seat 1's hand" in g.check((0, "meditate", None, 6))
    e = meditate(g, 0, card="8")
    assert e[0]["card"] == "8" and g.parade == [8]
    sow(g, 1, "6", 0)
    assert g.check((0, "meditate", None, 24)) == "the top card of the Nexus is the 6, not the 24"
    meditate(g, 0)
    assert g.check((1, "meditate", None, 8)) == "the 8 is in a Score Zone (seen on move 1)"


def test_unseen_deck_draws_and_refills():
    deal = make_deal("8 24 13 9 28 M1 25", "19", "3 17 M2", "6 21 30")
    g = new()
    g.apply(hide(deal, hands=False, deck=True))
    for i in range(5):
        meditate(g, i % 2)
    assert g.unseen == [3, 2] and len(g.deck_cards) == 22 - 7
    assert nexus_codes(g) == ["M1", "25", None, None]
    view = g.view(None)
    assert view["nexus"] == ["M1", "25", None, None] and view["deck"] == 15
    # Alice still knows she holds 3, 17 and M2, and the table knows them too.
    assert why_sow(g, 1, "3", 0) == "the 3 is in seat 0's hand (seen in the deal)"


# -- views ---------------------------------------------------------------------------------------------
def test_views_hide_hands_deck_and_score_zones():
    g = new()
    g.apply(make_deal("8 24 13 9 28 M1 25", "19", "3 17 M2", "6 21 30"))
    meditate(g, 0)
    spectator = json.dumps(g.view(None))
    for code in ("3", "17", "M2", "6", "21", "30"):
        assert '"%s"' % code not in spectator
    for c in g.deck_cards:
        assert '"%s"' % fc.fmt(c) not in spectator
    assert '"19"' not in spectator                 # banked in Bella's face-down Score Zone
    v = g.view(None)
    assert v["zones"] == [[], [1]] and v["deck"] == 21 and v["held"] == [4, 3]
    mine = g.view(0)
    assert set(mine["hand"]) == set(["3", "17", "M2", fc.fmt(g.hands[0][-1])])
    theirs = json.dumps(mine)
    for code in ("6", "21", "30"):
        assert '"%s"' % code not in theirs


# -- random play-outs ----------------------------------------------------------------------------------
def bot(g, rng):
    """A random action that meditates about half the time (uniform choice mostly sows)."""
    seat = g.turn[0]
    choices = g.legal(seat)
    med = [a for a in choices if a[1] == "meditate"]
    if med and (rng.below(2) or len(med) == len(choices)):
        return med[rng.below(len(med))]
    return choices[rng.below(len(choices))]


def check_invariants(g):
    n = len(g.nexus)
    held = g.held
    if not g.over:
        # F7 (a): "Nexus count odd => P1 to act, even => P2."
        assert (n % 2 == 1) == (g.turn == (0,))
        # F7 (b): "Nexus + both Hands = 13 + 2 x (number of refills)."
        assert n + held[0] + held[1] == 13 + 2 * g.refills
    else:
        # "This breaks only on a final meditate whose draw is skipped" (or whose refill is short).
        assert 13 + g.refilled - (n + held[0] + held[1]) in (0, 1)
    # Every card accounted for exactly once.
    places = list(g.nexus) + list(g.parade) + list(g.deck_cards) + g.hands[0] + g.hands[1]
    for zone in g.zones:
        for p in zone:
            places.extend(p)
    known = [c for c in places if c]
    assert len(known) == len(set(known))
    unseen = len(places) - len(known) + g.unseen[0] + g.unseen[1]
    assert len(known) + unseen == 36
    hidden = [c for c in Fairies.CARDS if g.where[c] == 0]
    assert len(hidden) == unseen and not set(hidden) & set(known)
    # Scores are the Score Zones' parades, each scored alone.
    for s in (0, 1):
        assert g.scores[s] == sum(score_parade(p, g.table) for p in g.zones[s])
    # Views: the spectator never sees a hand card, a seat never the other seat's hand.
    spectator = json.dumps(g.view(None))
    seat_views = (json.dumps(g.view(0)), json.dumps(g.view(1)))
    for s in (0, 1):
        for c in g.hands[s]:
            code = '"%s"' % fc.fmt(c)
            assert code not in spectator and code not in seat_views[1 - s]
            assert code in seat_views[s]
    for c in g.deck_cards:
        if c:
            assert '"%s"' % fc.fmt(c) not in spectator


def play_out(seed, rules, undo_every, out):
    """One seeded random game, yielding after each action; appends the game and its actions
    (every meditate naming its card) to out."""
    rng = Random(seed)
    g = new(rules)
    g.apply(g.random_deal(rng))
    named = [g.history[0]]
    check_invariants(g)
    while not g.over:
        a = bot(g, rng)
        assert g.check(a) is None
        if undo_every and rng.below(undo_every) == 0:
            before = json.dumps(g.dump())
            g.apply(a)
            assert g.undo() == a
            assert json.dumps(g.dump()) == before
        events = g.apply(a)
        if a[1] == "meditate":
            a = (a[0], a[1], a[2], fc.parse(events[0]["card"]))
        named.append(a)
        check_invariants(g)
        yield
    assert len(g.deck_cards) == 0 and g.turn == ()
    if g.winner is None:
        assert g.scores[0] == g.scores[1]
    else:
        assert g.scores[g.winner] > g.scores[1 - g.winner]
    out.append(g)
    out.append(named)


def replay_hidden(g, named, rules=None):
    """Replay a game's actions on tables that saw less; each must accept it and score the same."""
    deal = named[0]
    for hands, deck, nexus in ((True, True, False), (True, False, False), (False, True, False),
                               (True, True, True)):
        h = new(rules)
        h.apply(hide(deal, hands, deck, nexus))
        for a in named[1:]:
            reason = h.check(a)
            assert reason is None, reason
            h.apply(a)
        assert h.over and h.scores == g.scores and h.winner == g.winner
        assert h.zones == g.zones and h.parade == g.parade
        yield


@stepped
def test_random_playouts():
    for seed in range(60):
        out = []
        yield from play_out(seed, None, 6 if seed % 4 == 0 else 0, out)
        if seed % 2 == 0:
            yield from replay_hidden(out[0], out[1])


@stepped
def test_random_playouts_variants():
    variants = ({"double_ended": True}, {"refill_then_draw": False}, {"mushroom_bridge": False},
                {"new_parade_to": "meditator"}, {"double_ended": True, "values": {"7": "x2"}})
    for seed in range(25):
        rules = variants[seed % len(variants)]
        out = []
        yield from play_out(100 + seed, rules, 8 if seed < 10 else 0, out)
        if seed < 10:
            yield from replay_hidden(out[0], out[1], rules)


@stepped
def test_uniform_bot_playouts():
    # The base class's bot (uniform over legal actions) also plays to the end.
    for seed in range(10):
        rng = Random(1000 + seed)
        g = new()
        n = 0
        while not g.over:
            g.apply(g.bot_action(rng))
            n += 1
            check_invariants(g)
            yield
        assert g.over and n < 200


@stepped
def test_undo_back_to_the_deal():
    out = []
    yield from play_out(7, None, 0, out)
    g, named = out
    h = new()
    for a in named:
        h.apply(a)
    assert json.dumps(h.dump()) == json.dumps(g.dump())
    for i in range(len(named) - 1, 0, -1):
        assert h.undo() == named[i]
        fresh = new()
        for a in named[:i]:
            fresh.apply(a)
        assert json.dumps(h.dump()) == json.dumps(fresh.dump())
        yield
    assert h.history == named[:1] and not h.dealing
    assert h.undo() == named[0] and h.dealing and h.turn == ()
