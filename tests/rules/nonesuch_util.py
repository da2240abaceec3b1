"""Deals and shortcuts shared by the Nonesuch tests (both runtimes)."""
from cardtable import games
from cardtable.cards import decktet as dk

P = dk.parse
SUITS = "MSWLYK"


def S(letter):
    return dk.parse_suit(letter)


def new(seats=3, dealer=0, rules=None):
    return games.load("nonesuch", seats=seats, dealer=dealer, rules=rules)


def make_deal(n, fixed, up):
    """A full deal: seats hold the named cards, the rest of the deck (in order) tops them up.

    The Excuse is the last card of the deck, so unless placed it ends in the last seat's hand.
    """
    size = 36 // n
    hands = [[P(c) for c in fixed.get(s, ())] for s in range(n)]
    upc = P(up)
    used = [upc]
    for h in hands:
        used.extend(h)
    rest = [c for c in dk.DECK if c not in used]
    for h in hands:
        while len(h) < size:
            h.append(rest.pop(0))
    return (None, "deal", {"hands": hands, "up": [upc]})


def hide(deal, seats=None):
    """The same deal with the hands of seats (default: all) not seen."""
    piles = dict(deal[2])
    hands = piles["hands"]
    piles["hands"] = [None if seats is None or s in seats else h for s, h in enumerate(hands)]
    return (None, "deal", piles)


def start(n, fixed, up, dealer=0, bids=None, trump=None, rules=None, deal=None):
    """A game past the bids and the Excuse swap (and the trump choice), ready to play."""
    g = new(n, dealer, rules)
    g.apply(deal or make_deal(n, fixed, up))
    bids = bids or ["some"] * n
    for i in range(n):
        seat = (dealer + 1 + i) % n
        g.apply((seat, "bid", bids[seat]))
    if g.phase == "excuse":
        g.apply((g.turn[0], "excuse"))
    if g.phase == "trump":
        g.apply((g.turn[0], "trump", S(trump)))
    assert g.phase == "play"
    return g


def play(g, seat, code, suit=None):
    return g.apply((seat, "play", P(code), None if suit is None else S(suit)))


def why(g, seat, code, suit=None):
    return g.check((seat, "play", P(code), None if suit is None else S(suit)))


def events(evs, kind):
    return [e for e in evs if e["ev"] == kind]


# A fully known three-player deal, dealer 0: Wyrms are trump (the Calamity is up) and seat 0,
# holding the Excuse, takes the Calamity. Seat 1 leads first; seat 2 has no Moons, seat 1 no
# Knots, seat 0 no Waves.
FULL3 = {0: "X CM AK 2MK 3SK 4YK 5YK 6LK 7SK 9LK CL CK".split(),
         1: "AM 2SY 3MW 4MS 5ML 6MW 6SY 7ML 8MS 9MS 9WY CW".split(),
         2: "AY 8YK AS AW AL 2WL 3LY 4WL 5SW 7WY 8WL CS".split()}


def full3(rules=None):
    return start(3, FULL3, "Calamity", rules=rules)


def break_trumps(g):
    """Trick 1 of FULL3: the Ace of Moons led, seat 2 (no Moons) trumps with the Ace of Wyrms."""
    play(g, 1, "AM")
    assert not g.broken
    play(g, 2, "AY")
    assert g.broken
    play(g, 0, "CM")
    assert g.trick_winners == [2] and g.turn == (2,)


def hidden3(seats=None):
    """FULL3 with the hands of seats (default all) not seen, bids made, Excuse not yet claimed."""
    g = new(3)
    g.apply(hide(make_deal(3, FULL3, "Calamity"), seats))
    for seat in (1, 2, 0):
        g.apply((seat, "bid", "some"))
    return g
