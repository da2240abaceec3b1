"""The Nonesuch deck: the seed's suit-pair chart (rules-decisions.md 3a) cell by cell; ties."""
from nonesuch_util import P, SUITS, new
from support import raises, stepped

from cardtable.cards import BadCard
from cardtable.cards import decktet as dk
from cardtable.games.nonesuch import Nonesuch


# -- the deck: the seed's suit-pair chart, cell by cell -----------------------------------
# rules-decisions.md section 3a, the chart's own text. "Nonesuch = basic + Excuse = 37".
CHART = """\
| Ace | one per suit: Moons, Suns, Waves, Leaves, Wyrms, Knots |
| 2 | Author (Moons,Knots); Desert (Suns,Wyrms); Origin (Waves,Leaves) |
| 3 | Journey (Moons,Waves); Painter (Suns,Knots); Savage (Leaves,Wyrms) |
| 4 | Mountain (Moons,Suns); Sailor (Waves,Leaves); Battle (Wyrms,Knots) |
| 5 | Forest (Moons,Leaves); Discovery (Suns,Waves); Soldier (Wyrms,Knots) |
| 6 | Lunatic (Moons,Waves); Penitent (Suns,Wyrms); Market (Leaves,Knots) |
| 7 | Chance Meeting (Moons,Leaves); Castle (Suns,Knots); Cave (Waves,Wyrms) |
| 8 | Diplomat (Moons,Suns); Mill (Waves,Leaves); Betrayal (Wyrms,Knots) |
| 9 | Pact (Moons,Suns); Darkness (Waves,Wyrms); Merchant (Leaves,Knots) |
| Pawn (ext.) | Watchman (Moons,Wyrms,Knots); Light Keeper (Suns,Waves,Knots); Borderland (Waves,Leaves,Wyrms); Harvest (Moons,Suns,Leaves) |
| Court (ext.) | Consul (Moons,Waves,Knots); Rite (Moons,Leaves,Wyrms); Island (Suns,Waves,Wyrms); Window (Suns,Leaves,Knots) |
| Crown | Huntress (Moons); Bard (Suns); Sea (Waves); End (Leaves); Calamity (Wyrms); Windfall (Knots) |
| — | The Excuse (no rank, no suit) |
"""
SUIT_WORDS = ("Moons", "Suns", "Waves", "Leaves", "Wyrms", "Knots")


def chart_cells():
    """(rank label, card name, suit letters) for every cell of the chart."""
    out = []
    for line in CHART.splitlines():
        label, body = [p.strip() for p in line.strip("| ").split("|")]
        if label == "Ace":
            for word in body.split(":")[1].split(","):
                word = word.strip()
                out.append((label, "Ace of " + word, SUITS[SUIT_WORDS.index(word)]))
            continue
        if label == "—":
            out.append((label, "Excuse", ""))
            continue
        for cell in body.split(";"):
            name, suits = cell.strip().rstrip(")").split(" (")
            letters = "".join(SUITS[SUIT_WORDS.index(w.strip())] for w in suits.split(","))
            out.append((label, name, letters))
    return out


_CELLS = []


def cell(label, name):
    """Check one chart cell against cards/decktet.py: name, rank, suits, canonical code."""
    if not _CELLS:
        _CELLS.extend(chart_cells())
    letters = None
    for lab, nm, ls in _CELLS:
        if lab == label and nm == name:
            letters = ls
    assert letters is not None, "no cell %s / %s in the chart" % (label, name)
    if "ext." in label:
        # Pawns and Courts are extended-deck only: not in the Nonesuch deck.
        assert raises(BadCard, P, name)
        return
    c = P(name)
    assert dk.name(c) == name
    assert "".join(dk.SUIT_LETTERS[s] for s in dk.suits(c)) == letters
    want = {"Ace": 1, "Crown": 10, "—": 0}.get(label)
    assert dk.rank(c) == (int(label) if want is None else want)
    if letters:
        head = {"Ace": "A", "Crown": "C"}.get(label, label)
        assert dk.fmt(c) == head + letters
        assert P(head + letters[1:] + letters[:1]) == c     # suits in any order
    else:
        assert dk.fmt(c) == "X"


# One test per cell of the chart.
def test_cell_ace_ace_of_moons():
    cell('Ace', 'Ace of Moons')


def test_cell_ace_ace_of_suns():
    cell('Ace', 'Ace of Suns')


def test_cell_ace_ace_of_waves():
    cell('Ace', 'Ace of Waves')


def test_cell_ace_ace_of_leaves():
    cell('Ace', 'Ace of Leaves')


def test_cell_ace_ace_of_wyrms():
    cell('Ace', 'Ace of Wyrms')


def test_cell_ace_ace_of_knots():
    cell('Ace', 'Ace of Knots')


def test_cell_2_author():
    cell('2', 'Author')


def test_cell_2_desert():
    cell('2', 'Desert')


def test_cell_2_origin():
    cell('2', 'Origin')


def test_cell_3_journey():
    cell('3', 'Journey')


def test_cell_3_painter():
    cell('3', 'Painter')


def test_cell_3_savage():
    cell('3', 'Savage')


def test_cell_4_mountain():
    cell('4', 'Mountain')


def test_cell_4_sailor():
    cell('4', 'Sailor')


def test_cell_4_battle():
    cell('4', 'Battle')


def test_cell_5_forest():
    cell('5', 'Forest')


def test_cell_5_discovery():
    cell('5', 'Discovery')


def test_cell_5_soldier():
    cell('5', 'Soldier')


def test_cell_6_lunatic():
    cell('6', 'Lunatic')


def test_cell_6_penitent():
    cell('6', 'Penitent')


def test_cell_6_market():
    cell('6', 'Market')


def test_cell_7_chance_meeting():
    cell('7', 'Chance Meeting')


def test_cell_7_castle():
    cell('7', 'Castle')


def test_cell_7_cave():
    cell('7', 'Cave')


def test_cell_8_diplomat():
    cell('8', 'Diplomat')


def test_cell_8_mill():
    cell('8', 'Mill')


def test_cell_8_betrayal():
    cell('8', 'Betrayal')


def test_cell_9_pact():
    cell('9', 'Pact')


def test_cell_9_darkness():
    cell('9', 'Darkness')


def test_cell_9_merchant():
    cell('9', 'Merchant')


def test_cell_pawn_watchman():
    cell('Pawn (ext.)', 'Watchman')


def test_cell_pawn_light_keeper():
    cell('Pawn (ext.)', 'Light Keeper')


def test_cell_pawn_borderland():
    cell('Pawn (ext.)', 'Borderland')


def test_cell_pawn_harvest():
    cell('Pawn (ext.)', 'Harvest')


def test_cell_court_consul():
    cell('Court (ext.)', 'Consul')


def test_cell_court_rite():
    cell('Court (ext.)', 'Rite')


def test_cell_court_island():
    cell('Court (ext.)', 'Island')


def test_cell_court_window():
    cell('Court (ext.)', 'Window')


def test_cell_crown_huntress():
    cell('Crown', 'Huntress')


def test_cell_crown_bard():
    cell('Crown', 'Bard')


def test_cell_crown_sea():
    cell('Crown', 'Sea')


def test_cell_crown_end():
    cell('Crown', 'End')


def test_cell_crown_calamity():
    cell('Crown', 'Calamity')


def test_cell_crown_windfall():
    cell('Crown', 'Windfall')


def test_cell_none_excuse():
    cell('—', 'Excuse')


def test_every_cell_has_its_test():
    tests = [k for k in globals() if k.startswith("test_cell_")]
    assert len(tests) == len(chart_cells()) == 37 + 8


@stepped
def test_chart_covers_the_whole_deck_exactly_once():
    # "Nonesuch = basic + Excuse = 37"
    cards = []
    for label, name, letters in chart_cells():
        if "ext." not in label:
            cards.append(P(name))
            yield                           # parsing by name makes garbage: let MicroPython collect
    assert len(cards) == 37 == len(Nonesuch.CARDS)
    assert sorted(cards) == list(Nonesuch.CARDS)


def test_each_suit_is_on_one_card_of_each_rank():
    # The property that makes ties impossible (D4).
    for s in range(6):
        ranks = sorted(dk.rank(c) for c in Nonesuch.CARDS if dk.has_suit(c, s))
        assert ranks == list(range(1, 11)), SUITS[s]


def test_card_names_are_aliases_and_codes_are_canonical():
    # "names, ranks (Ace low ... 9 ... Crown high) and suits; aliases by name in card codes"
    assert P("Mountain") == P("4MS") == P("4sm") == P("mountain")
    assert P("Chance Meeting") == P("7ML") and P("the Excuse") == P("x") == dk.EXCUSE
    assert P("Ace of Moons") == P("AM") and P("Calamity") == P("CY")
    assert raises(BadCard, P, "4MW").args
    assert raises(BadCard, P, "Watchman")
    assert dk.rank(P("AK")) < dk.rank(P("9LK")) < dk.rank(P("CK"))


def test_ties_inside_a_trick_never_happen_over_all_pairs():
    # D4: "Impossible ... Assert it in tests." Every pair of cards, every trump, every named suit.
    g = new(3)
    basic = [c for c in Nonesuch.CARDS if c != dk.EXCUSE]
    for trump in range(-1, 6):
        g.trump = trump
        for led in range(6):
            g.led = led
            powers = [g.power(c) for c in basic]
            for i in range(len(basic)):
                for j in range(i + 1, len(basic)):
                    assert powers[i] == 0 or powers[i] != powers[j], (trump, led, i, j)
            # the led card always has power: some card of the named suit beats nothing
            assert max(powers) > 0
