"""Card codes of every deck family: parse, format, round-trip, clear errors."""
from cardtable.cards import BadCard, decktet, deck, fairies, standard

from support import raises, stepped


def test_standard_codes_round_trip_with_jokers():
    for c in standard.DECK_WITH_JOKERS:
        assert standard.parse(standard.fmt(c)) == c
    assert len(set(standard.fmt(c) for c in standard.DECK_WITH_JOKERS)) == 54
    for bad in (54, 63, 64 + 54):
        assert "no card has the number %d" % bad in str(raises(BadCard, standard.fmt, bad))


def test_standard_input_is_case_insensitive_and_output_canonical():
    assert standard.fmt(standard.parse(" 10h ")) == "10H"
    assert standard.fmt(standard.parse("th")) == "10H"
    assert standard.fmt(standard.parse("bj")) == "BJ" and standard.fmt(standard.parse("lj")) == "LJ"
    assert standard.rank(standard.parse("AS")) == 1 and standard.suit(standard.parse("AS")) == standard.SPADES
    assert standard.rank(standard.parse("KD")) == 13 and standard.suit(standard.parse("KD")) == standard.DIAMONDS


def test_standard_bad_codes_say_what_was_expected():
    for bad in ("1H", "11S", "AX", "", "H", "10", "JOKER", "A S", None, 10):
        e = raises(BadCard, standard.parse, bad)
        assert "expected" in str(e) or "must" in str(e)


def test_nerts_owner_suffix():
    c = standard.parse("as#2")
    assert standard.fmt(c) == "AS#2" and standard.owner(c) == 2
    assert standard.plain(c) == standard.parse("AS") and standard.owner(standard.parse("AS")) == -1
    assert standard.parse("AS#0") != standard.parse("AS")
    for seat in range(8):
        for base in standard.DECK:
            c = standard.owned(base, seat)
            assert standard.parse(standard.fmt(c)) == c and c < 2 ** 30
    raises(BadCard, standard.parse, "AS#")
    raises(BadCard, standard.parse, "AS#x")


@stepped
def test_decktet_has_36_basic_cards_and_the_excuse():
    assert len(decktet.DECK) == 37
    codes = [decktet.fmt(c) for c in decktet.DECK]
    assert len(set(codes)) == 37
    for bad in (-1, 37):
        raises(BadCard, decktet.fmt, bad)
    for c in decktet.DECK:
        assert decktet.parse(decktet.fmt(c)) == c
        assert decktet.parse(decktet.name(c)) == c
        yield


def test_decktet_codes_and_name_aliases():
    assert decktet.fmt(decktet.parse("Mountain")) == "4MS"
    assert decktet.fmt(decktet.parse("4sm")) == "4MS"           # suits in any order
    assert decktet.parse("the Excuse") == decktet.EXCUSE == decktet.parse("x")
    assert decktet.fmt(decktet.parse("chance meeting")) == "7ML"
    assert decktet.fmt(decktet.parse("Huntress")) == "CM"
    assert decktet.fmt(decktet.parse("Ace of Wyrms")) == "AY"
    assert decktet.suits(decktet.parse("2SY")) == (decktet.SUNS, decktet.WYRMS)
    e = raises(BadCard, decktet.parse, "4MK")
    assert "no rank-4 card has the suits MK" in str(e)
    raises(BadCard, decktet.parse, "Dragon")


def test_fairies_numbers_and_mushrooms():
    assert [fairies.fmt(c) for c in fairies.DECK][:3] == ["1", "2", "3"]
    assert fairies.fmt(fairies.parse("m3")) == "M3" and fairies.is_mushroom(fairies.parse("M3"))
    for c in fairies.DECK:
        assert fairies.parse(fairies.fmt(c)) == c
    for bad in ("0", "31", "M0", "M7", "07", "X"):
        raises(BadCard, fairies.parse, bad)


def test_deck_lookup():
    assert deck("decktet") is decktet
    raises(ValueError, deck, "tarot")
