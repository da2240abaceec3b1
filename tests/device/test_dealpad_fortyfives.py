"""The deal pad in Forty-Fives: dealt 3, kitty, 2, then the stock across the pad; the hands,
the kitty and the stock are known, and a revoke is refused the moment it is laid."""
from support import stepped

from dealing import DEALT, dealt_table, revoke_refused
from simtable import table


@stepped
def test_fortyfives_revoke_refused_at_once():
    yield from revoke_refused(*DEALT[0])


@stepped
def test_forty_fives_stock_known_so_draws_are_known():
    t, cards = yield from dealt_table(*DEALT[0], seed=6)
    g = t.ctl.game
    assert g.stock == cards[23:] and g.kitty == cards[12:15]
