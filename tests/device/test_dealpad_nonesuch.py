"""The deal pad in Nonesuch: 9 each and the up card across the pad, a revoke refused at once;
a deal ended short and a card of another deck are misdeals."""
from support import stepped

from dealing import DEALT, deal, revoke_refused
from simtable import table


@stepped
def test_nonesuch_revoke_refused_at_once():
    yield from revoke_refused(*DEALT[1])


@stepped
def test_a_short_deal_and_a_card_of_another_deck_are_misdeals():
    t = yield from table("pico-i2c-4seat", "nonesuch", game="nonesuch")
    yield from deal(t, 2, upto=7)
    t.tap(0)  # the dealer says done after 7 of 37 cards (9 each and the up card)
    f = t.kinds("fault")[-1]
    assert f["kind"] == "misdeal" and "7 of the 37" in f["msg"], f
    assert t.ctl.game.dealing
    yield from deal(t, 2, upto=3)
    t.put("d", "10H")  # a standard card in a Decktet deal
    f = t.kinds("fault")[-1]
    assert f["kind"] == "misdeal" and "no card" in f["msg"], f
    assert t.ctl.dealt == [] and t.ctl.game.dealing
