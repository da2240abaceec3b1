"""The deal pad in Forty-Fives: dealt 3, kitty, 2, then the stock across the pad; the hands,
the kitty and the stock are known, and a revoke is refused the moment it is laid."""
import json

from support import stepped

from dealing import DEALT, deal, dealt_table, revoke_refused
from simtable import table


@stepped
def test_fortyfives_revoke_refused_at_once():
    yield from revoke_refused(*DEALT[0])


@stepped
def test_forty_fives_stock_known_so_draws_are_known():
    t, cards = yield from dealt_table(*DEALT[0], seed=6)
    g = t.ctl.game
    assert g.stock == cards[23:] and g.kitty == cards[12:15]


def _dealt_by(dealer):
    """The fortyfives-dealt table, a new game dealt across the pad by this dealer."""
    t = yield from table("pico-i2c-4seat", "fortyfives-dealt", game="fortyfives")
    r = t.send({"cmd": "new", "id": 1, "game": "fortyfives", "dealer": dealer,
                "layout": "fortyfives-dealt"})
    assert r and r[0]["type"] == "ok", r
    cards = yield from deal(t, 9)
    assert not t.ctl.game.dealing, t.kinds("fault")
    return t, cards


@stepped
def test_dealing_starts_at_the_dealers_left():
    # Issue 30 (19): the first three cards across the pad go to the dealer's left, then round
    # the table; the kitty; two each from the dealer's left again; the stock.
    t, cards = yield from _dealt_by(2)
    g = t.ctl.game
    order = (3, 0, 1, 2)  # seat 2 deals: seat 3 is on its left
    for i in range(4):
        want = cards[3 * i:3 * i + 3] + cards[15 + 2 * i:17 + 2 * i]
        assert sorted(g.hands[order[i]]) == sorted(want), (order[i], g.codes(g.hands[order[i]]))
    assert g.kitty == cards[12:15] and g.stock == cards[23:]
    assert g.turn == (3,), "the dealer's left bids first"


def _to_the_discard(t):
    """Seat 1 bids 20, the rest pass, hearts: seat 1 (with the kitty) is to discard."""
    for b in ("k1", "k4", "k4", "k4", "k7"):
        t.press(b)
        yield
    assert t.ctl.game.phase == "discard" and t.ctl.game.turn == (1,)


def _codes_in(g, msgs, cards):
    """The codes of these cards that appear anywhere in the messages."""
    text = json.dumps(msgs)
    return [g.card_code(c) for c in cards if '"%s"' % g.card_code(c) in text
            or " %s" % g.card_code(c) in text]


@stepped
def test_a_refused_or_undone_discard_names_no_face_down_card():
    # Issue 30 (19): discards lie face down on the kitty. A discard the rules refuse, and one
    # taken back, tell the table why and what, never which cards. The table as main.py builds
    # it: no history in memory, the undo goes back to the deal's checkpoint.
    t = yield from table("pico-i2c-4seat", "fortyfives-dealt", game="fortyfives", history=False)
    yield from deal(t, 6)
    g = t.ctl.game
    yield from _to_the_discard(t)
    assert t.ctl.journal.seq == 6
    other = g.hands[2][0]  # seat 2's card, laid face down by seat 1 among its discards
    mine = g.hands[1][:3]
    n = len(t.said)
    for c in (mine[0], mine[1], other):
        t.put("c", g.card_code(c))
    t.tap(1)
    assert t.ctl.journal.seq == 6 and g.phase == "discard", "the discard was refused"
    v = t.kinds("verdict")[-1]
    assert v["action"] == {"seat": 1, "act": "discard", "cards": [], "n": 3}, v
    assert v["reason"] == "you do not hold the card", v
    assert g.check((1, "discard", (mine[0], mine[1], other), None)) == "you do not hold the %s" \
        % g.card_code(other)  # (the rules say which: the referee reads the whole record)
    assert _codes_in(g, t.said[n:], (other, mine[0], mine[1])) == [], t.said[n:]
    yield
    for c in mine:
        t.put("c", g.card_code(c))
    t.tap(1)
    assert t.ctl.journal.seq == 7 and g.turn == (2,), "the discard was accepted"
    yield
    n = len(t.said)
    before = t.events
    t.hal.serial.feed(json.dumps({"cmd": "undo", "id": 7}) + "\n")
    seen = []
    for _ in range(3):
        t.hal.clock.advance(10)
        t.ctl.step()
        seen.extend(t.hal.serial.lines())
    t.listen()
    undone = [json.loads(x) for x in seen if '"undone"' in x]
    assert undone and undone[0]["undone"] == {"seat": 1, "act": "discard", "cards": [], "n": 3}
    ok = [json.loads(x) for x in seen if '"id": 7' in x]
    assert ok and ok[0]["action"] == {"seat": 1, "act": "discard", "cards": [], "n": 3}, ok
    assert _codes_in(g, [json.loads(x) for x in seen], mine) == [], seen
    g = t.ctl.game
    assert g.phase == "discard" and g.turn == (1,) and t.events == before
    assert all(c in g.hands[1] for c in mine), "the cards are back in the hand"


@stepped
def test_a_seat_whose_hand_is_known_cannot_play_a_card_it_does_not_hold():
    # Issue 30 (19): every hand crossed the pad; a seat laying another seat's card, a card of
    # the stock or a card it put away is refused at once, and the game is unchanged.
    t, cards = yield from dealt_table(*DEALT[0], seed=6)
    g = t.ctl.game
    yield from _to_the_discard(t)
    away = g.hands[1][:3]
    for c in away:
        t.put("c", g.card_code(c))
    t.tap(1)
    for s in (2, 3, 0):
        t.tap(s)  # the others keep their five; the dealer then draws every hand to five
        yield
    assert g.phase == "play", g.phase
    seat = g.turn[0]
    stock = g.stock[-1]  # never drawn: 52 - 4 * 5 - 3 - 3 < 29 cards were
    for c in (g.hands[(seat + 1) % 4][0], stock, away[0]):
        n = len(g.history)
        t.put(t.zone("play", seat), g.card_code(c))
        assert len(g.history) == n, "%s was played" % g.card_code(c)
        assert t.kinds("verdict")[-1]["reason"] == "you do not hold the %s" % g.card_code(c)
        yield
    own = g.legal(seat)[0][2]
    t.put(t.zone("play", seat), g.card_code(own))  # a card it holds: played
    assert g.history[-1] == (seat, "play", own) and g.trick == [(seat, own)]
