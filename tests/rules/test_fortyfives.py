"""Forty-Fives rules, from the seed ("Nevins House Rules") and rules-decisions.md section 6."""
import json

from support import raises, stepped

from cardtable import games, record, referee
from cardtable.cards import standard as std
from cardtable.games.base import IllegalAction
from cardtable.games.fortyfives import FortyFives
from cardtable.rng import Random


def cs(text):
    return [std.parse(t) for t in text.split()]


def new(rules=None, dealer=0):
    return games.load("fortyfives", seats=4, dealer=dealer, rules=rules)


def make_deal(hands, kitty="", stock="", with_kitty=True):
    """A full deal: the named cards where given, every pile topped up from the unused cards."""
    specs = [cs(h) for h in hands] + [cs(kitty), cs(stock)]
    used = set()
    for spec in specs:
        for c in spec:
            used.add(c)
    rest = [c for c in FortyFives.CARDS if c not in used]
    sizes = (5, 5, 5, 5, 3 if with_kitty else 0, 29 if with_kitty else 32)
    for spec, size in zip(specs, sizes):
        while len(spec) < size:
            spec.append(rest.pop(0))
    piles = {"hands": specs[:4], "stock": specs[5]}
    if with_kitty:
        piles["kitty"] = specs[4]
    return (None, "deal", piles)


def auction(g, bidder, bid=15):
    """Bidder bids, everyone else passes."""
    while g.phase == "bid":
        s = g.turn[0]
        g.apply((s, "bid", bid) if s == bidder else (s, "pass"))


def setup(hands, trump="S", bidder=0, bid=15, dealer=0, rules=None, g=None):
    """A game at its first lead: the bidder discards the kitty, the others nothing, so the hands
    in play are exactly the hands given."""
    if g is None:
        g = new(rules, dealer)
    with_kitty = g.rules["kitty"] == "bidder"
    deal = make_deal(hands, with_kitty=with_kitty)
    g.apply(deal)
    auction(g, bidder, bid)
    g.apply((bidder, "trump", std.parse_suit(trump)))
    kitty = tuple(deal[2]["kitty"]) if with_kitty else ()
    while g.phase == "discard":
        s = g.turn[0]
        g.apply((s, "discard", kitty if s == bidder else (), None))
    return g


def play(g, seat, code):
    return g.apply((seat, "play", std.parse(code)))


def why(g, seat, code):
    return g.check((seat, "play", std.parse(code)))


def trick(g, codes):
    """Play a whole trick, each card by the seat to play; returns the winner."""
    events = []
    for code in codes.split():
        events = play(g, g.turn[0], code)
    for e in events:
        if e["ev"] == "trick":
            return e["seat"]
    raise AssertionError("the trick did not end")


def hand_event(events):
    for e in events:
        if e["ev"] == "hand":
            return e
    return None


# -- the deck and the ladders -------------------------------------------------------------
# Seed: the trump ladder is 5, J, A of hearts, A, K, Q, then "red high / black low"; the A of
# hearts is always a trump; plain suits: red K Q J 10 .. 2 (A of diamonds lowest), black
# K Q J A 2 .. 10.
TRUMP_LADDERS = {
    "H": "5H JH AH KH QH 10H 9H 8H 7H 6H 4H 3H 2H",
    "D": "5D JD AH AD KD QD 10D 9D 8D 7D 6D 4D 3D 2D",
    "C": "5C JC AH AC KC QC 2C 3C 4C 6C 7C 8C 9C 10C",
    "S": "5S JS AH AS KS QS 2S 3S 4S 6S 7S 8S 9S 10S",
}
PLAIN_LADDERS = {
    "H": "KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H",
    "D": "KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D AD",
    "C": "KC QC JC AC 2C 3C 4C 5C 6C 7C 8C 9C 10C",
    "S": "KS QS JS AS 2S 3S 4S 5S 6S 7S 8S 9S 10S",
}


def trumped(suit):
    """A game whose bidder has named suit trump."""
    return setup(["", "", "", ""], trump=suit)


@stepped
def test_every_position_of_every_trump_ladder():
    for suit in "CDHS":
        g = trumped(suit)
        ladder = cs(TRUMP_LADDERS[suit])
        # hearts-trump has 13 trumps, the others 14; exactly these cards are trumps
        assert len(ladder) == (13 if suit == "H" else 14)
        for c in FortyFives.CARDS:
            assert g.is_trump(c) == (c in ladder), std.fmt(c)
        for i in range(len(ladder)):
            for j in range(i + 1, len(ladder)):
                hi, lo = ladder[i], ladder[j]
                assert g.best([lo, hi]) == 1, (suit, std.fmt(hi), std.fmt(lo))
                assert g.best([hi, lo]) == 0, (suit, std.fmt(hi), std.fmt(lo))
        yield


@stepped
def test_every_position_of_every_plain_ladder():
    for trump in "CDHS":
        g = trumped(trump)
        lowest_trump = cs(TRUMP_LADDERS[trump])[-1]
        for suit in "CDHS":
            if suit == trump:
                continue
            ladder = cs(PLAIN_LADDERS[suit])
            for i in range(len(ladder)):
                for j in range(i + 1, len(ladder)):
                    hi, lo = ladder[i], ladder[j]
                    assert g.best([lo, hi]) == 1, (trump, std.fmt(hi), std.fmt(lo))
                    assert g.best([hi, lo]) == 0, (trump, std.fmt(hi), std.fmt(lo))
            for c in ladder:
                # the lowest trump beats the best plain card; another plain suit never wins
                assert g.best([c, lowest_trump]) == 1
                for other in "CDHS":
                    if other != suit and other != trump:
                        assert g.best([c, cs(PLAIN_LADDERS[other])[0]]) == 0
            yield


def test_the_ace_of_hearts_is_always_a_trump_and_never_a_heart():
    for trump in "CDS":
        g = trumped(trump)
        ah = std.parse("AH")
        assert g.is_trump(ah)
        assert g.led_suit(ah, None) == 4            # a trump lead, not a heart lead
        assert g.best(cs("2H AH")) == 1             # it trumps a heart lead
        assert g.best(cs("AH KH")) == 0             # and a king of hearts cannot beat it


def test_ladders_through_real_tricks():
    # Clubs trump, black low: 10C is the lowest trump, 2C beats it, the A of hearts beats both.
    g = setup(["10C KD KH 3H 3D", "2C 2D 2H 2S 4D", "AH 6D 6H 6S 7D", "9C 8D 8H 8S 9D"],
              trump="C", bidder=0)
    assert trick(g, "10C 2C AH 9C") == 2
    # Plain diamonds, red high: the 9 over the 6, 4 and 3.
    assert trick(g, "6D 9D 3D 4D") == 3
    # Plain spades, black low: the 2 over the 6 and the 8 (seat 0 shows out with a heart).
    assert trick(g, "8S 3H 2S 6S") == 1


# -- bidding (F45-7) ----------------------------------------------------------------------
def test_bidding_starts_at_the_dealers_left_and_goes_round_once():
    g = new(dealer=2)
    g.apply(make_deal(["", "", "", ""]))
    assert g.turn == (3,)
    assert g.check((0, "bid", 15)).startswith("not your turn")
    g.apply((3, "pass"))
    g.apply((0, "bid", 20))
    g.apply((1, "pass"))
    events = g.apply((2, "bid", 25))
    # after the dealer's turn the bidding is over: the highest bid wins and names trump
    assert {"ev": "bidder", "seat": 2, "bid": 25} in events
    assert g.phase == "trump" and g.turn == (2,)


def test_bids_are_15_to_30_in_fives_each_above_the_last():
    # Seed: "bids are 15/20/25/30, each bid must exceed the previous one, no suit is named"
    g = new()
    g.apply(make_deal(["", "", "", ""]))
    for bad in (10, 35, 17, "20H", "hold"):
        assert g.check((1, "bid", bad)) == "bids are 15, 20, 25 or 30"
    g.apply((1, "bid", 20))
    assert g.check((2, "bid", 20)) == "a bid must be higher than 20"
    assert g.check((2, "bid", 15)) == "a bid must be higher than 20"
    assert g.check((2, "bid", 25)) is None
    assert [a[2] for a in g.legal(2) if a[1] == "bid"] == [25, 30]
    assert (2, "pass") in g.legal(2)
    assert raises(IllegalAction, g.apply, (2, "bid", 20)).reason == "a bid must be higher than 20"


def test_all_pass_the_dealer_is_stuck_at_15():
    # F45-7: "If all four pass, the dealer is stuck at 15"
    g = new(dealer=1)
    g.apply(make_deal(["", "", "", ""]))
    events = []
    for s in (2, 3, 0, 1):
        events = g.apply((s, "pass"))
    assert {"ev": "stuck", "seat": 1, "bid": 15} in events
    assert g.bidder == 1 and g.bid == 15 and g.turn == (1,)


def test_all_pass_redeal_option():
    g = new({"all_pass": "redeal"})
    g.apply(make_deal(["", "", "", ""]))
    events = []
    for s in (1, 2, 3, 0):
        events = g.apply((s, "pass"))
    assert events[-1] == {"ev": "redeal", "dealer": 1}
    assert g.dealing and g.scores == [0, 0, 0, 0] and g.dealer == 1


def test_dealer_hold_option():
    # dbarker: the dealer "can say 'I hold' ... he bids the same as the last bid ... After the
    # dealer holds, each player in turn who has not passed may bid again."
    g = new({"dealer_hold": True})
    g.apply(make_deal(["", "", "", ""]))
    g.apply((1, "bid", 20))
    g.apply((2, "pass"))
    g.apply((3, "pass"))
    assert (0, "bid", 20) in g.legal(0)
    assert g.apply((0, "bid", 20))[0] == {"ev": "hold", "seat": 0, "bid": 20}
    assert g.turn == (1,)                          # only seat 1 has not passed
    g.apply((1, "bid", 25))
    g.apply((0, "bid", 25))                        # holds again
    events = g.apply((1, "pass"))
    assert {"ev": "bidder", "seat": 0, "bid": 25} in events
    # seed: no hold; the dealer must beat the bid
    g = new()
    g.apply(make_deal(["", "", "", ""]))
    g.apply((1, "bid", 20))
    g.apply((2, "pass"))
    g.apply((3, "pass"))
    assert g.check((0, "bid", 20)) == "a bid must be higher than 20"


@stepped
def test_min_bid_from_100_option():
    # Bicycle: "A side that has scored 100 points or more may not bid less than 20."
    rng = Random(5)
    for rules, want in (({"min_bid_from_100": 20}, "your side has 100 or more: bid at least 20"),
                        ({}, None)):
        found = 0
        for n in range(20):
            g = new(rules, dealer=n % 4)
            while not g.over and not found:
                if g.phase == "bid" and g.scores[g.turn[0]] >= 100 and g.high == 0:
                    assert g.check((g.turn[0], "bid", 15)) == want
                    assert g.check((g.turn[0], "bid", 20)) is None
                    found += 1
                g.apply(g.bot_action(rng))
                yield
        assert found


# -- trump, kitty, discards and the draw (F45-1, F45-2, F45-9) ----------------------------
def test_bidder_names_trump_then_takes_the_kitty():
    deal = make_deal(["", "", "", ""], kitty="5H JH AH")
    g = new()
    g.apply(deal)
    auction(g, 2)
    assert g.held == [5, 5, 5, 5] and g.view(None)["kitty_left"] == 3
    events = g.apply((2, "trump", std.HEARTS))
    assert {"ev": "kitty", "seat": 2, "n": 3} in events
    assert g.held == [5, 5, 8, 5]
    assert "5H" in g.view(2)["hand"] and "5H" not in json.dumps(g.view(0))


def test_kitty_before_trump_option():
    g = new({"name_trump_first": False})
    g.apply(make_deal(["", "", "", ""]))
    auction(g, 3)
    assert g.phase == "trump" and g.held == [5, 5, 5, 8]


def test_no_kitty_option():
    g = new({"kitty": "none"})
    assert g.check(make_deal(["", "", "", ""])).startswith("a fortyfives deal has no pile 'kitty'")
    g = setup(["", "", "", ""], g=g, bidder=1)
    assert g.held == [5, 5, 5, 5] and g.phase == "play"


def test_everyone_discards_in_turn_from_the_dealers_left_keeping_1_to_5():
    # F45-2: "Every player must keep between 1 and 5 cards (so non-bidders discard 0-4 and the
    # bidder discards 3-7)." Discards go in turn from the dealer's left, bidder included.
    deal = make_deal(["2C 3C 4C 6C 7C", "2D 3D 4D 6D 7D", "2H 3H 4H 6H 7H", "2S 3S 4S 6S 7S"],
                     kitty="8C 8D 8H", stock="9C 9D 9H 9S 10C 10D 10H 10S")
    g = new(dealer=3)
    g.apply(deal)
    auction(g, 2)
    g.apply((2, "trump", std.CLUBS))
    assert g.turn == (0,)
    assert g.check((0, "discard", tuple(cs("2C 3C 4C 6C 7C")), None)) == \
        "keep 1 to 5 cards: discard 0 to 4"
    assert g.check((0, "discard", tuple(cs("2D")), None)) == "you do not hold the 2D"
    assert g.check((0, "discard", tuple(cs("2C 2C")), None)) == "the 2C is discarded twice"
    g.apply((0, "discard", tuple(cs("2C 3C")), None))
    g.apply((1, "discard", (), None))
    assert g.check((2, "discard", tuple(cs("2H 3H")), None)) == "keep 1 to 5 cards: discard 3 to 7"
    assert g.check((2, "discard", tuple(cs("2H 3H 4H 6H 7H 8C 8D 8H")), None)) == \
        "keep 1 to 5 cards: discard 3 to 7"
    g.apply((2, "discard", tuple(cs("2H 3H 4H 6H")), None))
    events = g.apply((3, "discard", tuple(cs("2S")), None))
    # the dealer (3) refills from the stock starting at his left: 0 draws 2, 1 none, 2 one,
    # the dealer last one; the numbers are public, the cards only to their owner
    draws = [(e["seat"], e["n"]) for e in events if e["ev"] == "draw"]
    assert draws == [(0, 2), (1, 0), (2, 1), (3, 1)]
    assert sorted(g.hands[0]) == sorted(cs("4C 6C 7C 9C 9D"))
    assert sorted(g.hands[2]) == sorted(cs("7H 8C 8D 8H 9H"))
    assert sorted(g.hands[3]) == sorted(cs("3S 4S 6S 7S 9S"))
    assert g.held == [5, 5, 5, 5] and g.view(None)["drawn"] == [2, 0, 1, 1]
    assert g.view(None)["stock_left"] == 25
    spectator = json.dumps(g.view(None))
    assert '"9C"' not in spectator and '"2C"' not in spectator
    assert g.view(0)["my_discards"] == ["2C", "3C"]


def test_min_keep_option_lets_a_hand_be_thrown_away_whole():
    for rules, want in (({}, "keep 1 to 5 cards: discard 0 to 4"), ({"min_keep": 0}, None)):
        g = new(rules)
        g.apply(make_deal(["", "2C 3C 4C 6C 7C", "", ""]))
        auction(g, 2)
        g.apply((2, "trump", std.SPADES))
        assert g.check((1, "discard", tuple(cs("2C 3C 4C 6C 7C")), None)) == want


# -- the lead (F45-6) ---------------------------------------------------------------------
def test_the_bidder_leads():
    # Seed: "The bidder makes the opening lead"
    g = setup(["", "", "", ""], bidder=3)
    assert g.turn == (3,)
    g = setup(["", "", "", ""], bidder=3, rules={"lead": "left_of_bidder"})
    assert g.turn == (0,)


# -- following and reneging (F45-4, F45-5) ------------------------------------------------
def test_trump_six_led_the_top_three_may_renege():
    # Seed example: a trump 6 led; the 5, the J and the A of hearts may each be withheld.
    g = setup(["AH 2D 3D 4D 6D", "6S 7S 8S 9S 10S", "5S 2H 3H 4H 6H", "JS 2C 3C 4C 6C"],
              bidder=1)
    play(g, 1, "6S")
    assert why(g, 2, "2H") is None and why(g, 2, "5S") is None
    play(g, 2, "2H")
    assert why(g, 3, "2C") is None
    play(g, 3, "2C")
    assert why(g, 0, "2D") is None
    play(g, 0, "2D")
    assert g.trick_winners == [1]


def test_a_privileged_trump_with_a_low_trump_beside_it_must_follow():
    # F45-4: "If you also hold a non-privileged trump, you must play a trump (any one,
    # including the privileged)."
    g = setup(["", "6S 7S 8S 9S 10S", "5S 2S 3H 4H 6H", ""], bidder=1)
    play(g, 1, "6S")
    assert why(g, 2, "3H") == "must follow trumps"
    assert why(g, 2, "5S") is None and why(g, 2, "2S") is None
    assert sorted(a[2] for a in g.legal(2)) == sorted(cs("5S 2S"))


def test_jack_led_only_the_five_may_renege():
    # Seed example: J led: the 5 may renege, the A of hearts may not.
    g = setup(["AH 2D 3D 4D 6D", "JS 7S 8S 9S 10S", "5S 2H 3H 4H 6H", "2C 3C 4C 6C 7C"],
              bidder=1)
    play(g, 1, "JS")
    assert why(g, 2, "2H") is None
    play(g, 2, "2H")
    play(g, 3, "2C")                               # no trump at all: anything goes
    assert why(g, 0, "2D") == "must follow trumps"
    assert [a[2] for a in g.legal(0)] == cs("AH")


def test_five_led_nobody_may_renege():
    g = setup(["AH 2D 3D 4D 6D", "5S 7S 8S 9S 10S", "JS 2H 3H 4H 6H", "2C 3C 4C 6C 7C"],
              bidder=1)
    play(g, 1, "5S")
    assert why(g, 2, "2H") == "must follow trumps"
    play(g, 2, "JS")
    play(g, 3, "2C")
    assert why(g, 0, "2D") == "must follow trumps"


def test_ace_of_hearts_led_is_a_trump_lead():
    # Seed: "A♥ led counts as a trump lead": hearts need not follow, trumps must, and the 5 and
    # J (higher than the A of hearts) may renege.
    g = setup(["5S 2D 3D 4D 6D", "AH 7S 8S 9S 10S", "2S 2H 3H 4H 6H", "2C 3C KH 6C 7C"],
              bidder=1)
    play(g, 1, "AH")
    assert why(g, 2, "2H") == "must follow trumps"
    play(g, 2, "2S")
    assert why(g, 3, "2C") is None                 # no trump: a club is fine, hearts not owed
    play(g, 3, "2C")
    assert why(g, 0, "2D") is None                 # the 5 is privileged over the A of hearts
    play(g, 0, "2D")
    assert g.trick_winners == [1]


def test_the_ace_of_trumps_has_no_privilege_and_must_follow_a_lower_trump():
    # Seed: "The three highest trumps (5, J, Ace of Hearts) have the privilege of reneging";
    # the ace of the trump suit is the fourth trump: a trump 6 led, its holder must follow.
    g = setup(["", "6S 7S 8S 9S 10S", "AS 2H 3H 4H 6H", "JS 2C 3C 4C 6C"], bidder=1)
    play(g, 1, "6S")
    assert why(g, 2, "2H") == "must follow trumps"
    assert [a[2] for a in g.legal(2)] == cs("AS")
    play(g, 2, "AS")
    assert why(g, 3, "2C") is None                 # while the J of trumps may renege


def test_renege_option_none():
    g = setup(["", "6S 7S 8S 9S 10S", "5S 2H 3H 4H 6H", ""], bidder=1, rules={"renege": "none"})
    play(g, 1, "6S")
    assert why(g, 2, "2H") == "must follow trumps"


def test_a_plain_lead_must_be_followed():
    # Seed: "the off-suit must be played if in hand"; void, anything goes.
    g = setup(["KC 2D 3D 4D 6D", "2C 3S 3H 4H 6H", "2S 2H 9D 8D 7D", "3C 4C 6C 7C 8C"],
              bidder=0)
    play(g, 0, "KC")
    assert why(g, 1, "3S") == "must follow clubs"
    play(g, 1, "2C")
    assert why(g, 2, "2S") is None and why(g, 2, "2H") is None
    play(g, 2, "2S")
    play(g, 3, "3C")
    assert g.trick_winners == [2]


def test_may_trump_instead_of_following_option():
    rules = {"may_trump_instead_of_following": True}
    g = setup(["KC 2D 3D 4D 6D", "2C 3S 3H 4H 6H", "", ""], bidder=0, rules=rules)
    play(g, 0, "KC")
    assert why(g, 1, "3S") is None
    assert why(g, 1, "3H") == "must follow clubs or trump"


def test_the_rule_s_old_name_is_still_read_from_options_and_old_records():
    # One rule, one name in every game; Forty-Fives called it may_trump_when_following.
    old = new({"may_trump_when_following": True})
    assert old.rules["may_trump_instead_of_following"] is True
    assert "may_trump_when_following" not in old.rules
    g = setup(["KC 2D 3D 4D 6D", "2C 3S 3H 4H 6H", "", ""], bidder=0,
              rules={"may_trump_instead_of_following": True})
    play(g, 0, "KC")
    play(g, 1, "3S")                # trumps although holding a club
    lines = record.dump(g)
    head = json.loads(lines[0])
    assert head["rules"] == {"may_trump_instead_of_following": True}
    del head["rules"]["may_trump_instead_of_following"]
    head["rules"]["may_trump_when_following"] = True   # a record written before the rename
    out = referee.referee([json.dumps(head)] + lines[1:])
    assert out["ok"] and out["rejected"] == [], out
    head["rules"] = {}                                   # without the rule the trump is a revoke
    out = referee.referee([json.dumps(head)] + lines[1:])
    assert [r["reason"] for r in out["rejected"]] == ["must follow clubs"]
    e = raises(ValueError, new, {"may_trump_when_following": True,
                                 "may_trump_instead_of_following": False})
    assert "given twice" in str(e)


def test_the_ace_of_hearts_does_not_follow_hearts():
    # F45-5: "The A♥ is not a heart for following purposes."
    g = setup(["KH 2D 3D 4D 6D", "AH 2H 3C 4C 6C", "AS 2C 7C 8C 9C", ""], bidder=0)
    play(g, 0, "KH")
    assert why(g, 1, "AH") == "must follow hearts"
    play(g, 1, "2H")
    g = setup(["KH 2D 3D 4D 6D", "AH 2C 3C 4C 6C", "", ""], bidder=0)
    play(g, 0, "KH")
    assert why(g, 1, "2C") is None and why(g, 1, "AH") is None
    g = setup(["KH 2D 3D 4D 6D", "AH 2H 3C 4C 6C", "", ""], bidder=0,
              rules={"may_trump_instead_of_following": True})
    play(g, 0, "KH")
    assert why(g, 1, "AH") is None


def test_turn_and_cards_held():
    g = setup(["KC 2D 3D 4D 6D", "", "", ""], bidder=0)
    assert why(g, 1, "2C") == "not your turn: seat 0 is to play"
    assert why(g, 0, "KS") == "you do not hold the KS"
    play(g, 0, "KC")
    assert raises(IllegalAction, play, g, 1, "KC").reason == "the KC was already played"


# -- scoring (F45-3, F45-8) ---------------------------------------------------------------
# Trump spades. Seat 0 leads the three kings; seat 1 wins the 5 of trumps trick and the last.
EVEN = ["KC KD KH 2S 10S", "5S QC QD QH 4S", "JC JD JH 6S 7S", "10C 10D 10H 8S 9S"]
EVEN_PLAY = ["KC QC JC 10C", "KD QD JD 10D", "KH QH JH 10H", "2S 5S 6S 8S", "4S 7S 9S 10S"]


def play_even(g, bid=15, bidder=0):
    """Deal and play EVEN: team 0 takes 3 tricks (15), team 1 two with the 5 (10 + 5 = 15)."""
    setup(EVEN, g=g, bidder=bidder, bid=bid)
    events = []
    for t in EVEN_PLAY:
        for code in t.split():
            events = play(g, g.turn[0], code)
    return hand_event(events)


def test_bonus_trick_goes_to_the_team_winning_the_highest_trump():
    # F45-3: "The trick containing the highest trump played to a trick this hand is worth 10"
    g = new()
    ev = play_even(g)
    assert g.trick_winners == [0, 0, 0, 1, 1]
    assert ev["took"] == [15, 15] and ev["bonus"] == 1 and ev["made"]
    assert g.scores == [15, 15, 15, 15]


def test_bonus_option_off_makes_each_trick_5():
    g = new({"highest_trump_bonus": False})
    ev = play_even(g)
    assert ev["took"] == [15, 10] and ev["bonus"] is None


def test_failing_the_bid_loses_it_and_the_other_side_scores_what_it_took():
    # Seed: "bidding team makes its bid -> scores all it took, else loses the bid; the other
    # team always scores what it took"
    g = new()
    ev = play_even(g, bid=20)
    assert not ev["made"] and g.scores == [-20, 15, -20, 15]


def test_making_the_bid_scores_everything_taken():
    # Seat 0 bids 15 and takes four tricks and the 5 of trumps: 25, not 15; the other side 5.
    hands = ["KC KD KH 5S 10S", "2S QC QD QH 4S", "JC JD JH 6S 7S", "10C 10D 10H 8S 9S"]
    g = setup(hands, bidder=0)
    for t in ("KC QC JC 10C", "KD QD JD 10D", "KH QH JH 10H", "5S 2S 6S 8S"):
        trick(g, t)
    events = []
    for code in "10S 4S 7S 9S".split():
        events = play(g, g.turn[0], code)
    ev = hand_event(events)
    assert ev["took"] == [25, 5] and ev["made"] and g.scores == [25, 5, 25, 5]


def test_thirty_for_sixty_option():
    hands = ["KC KD KH 5S JS", "2S QC QD QH 4S", "JC JD JH 6S 7S", "10C 10D 10H 8S 9S"]
    for rules, want in (({}, 30), ({"thirty_for_sixty": True}, 60)):
        g = setup(hands, bidder=0, bid=30, rules=rules)
        for t in ("KC QC JC 10C", "KD QD JD 10D", "KH QH JH 10H", "5S 2S 6S 8S", "JS 4S 7S 9S"):
            trick(g, t)
        assert g.scores == [want, 0, want, 0]


def test_no_trump_played_makes_25():
    # F45-3: "If no trump is played at all (possible but rare), award no bonus (hand total 25)."
    hands = ["KC KD KH QC QD", "2C 2D 2H 3C 3D", "4C 4D 4H 6C 6D", "7C 7D 7H 8C 8D"]
    g = setup(hands, bidder=0)
    for t in ("KC 2C 4C 7C", "KD 2D 4D 7D", "KH 2H 4H 7H", "QC 3C 6C 8C"):
        trick(g, t)
    events = []
    for code in "QD 3D 6D 8D".split():
        events = play(g, g.turn[0], code)
    ev = hand_event(events)
    assert ev["took"] == [25, 0] and ev["bonus"] is None


@stepped
def test_120_wins_and_the_bidder_wins_when_both_reach_it():
    # Seed: "120 wins, bidder wins when both reach it in the same hand". EVEN gives each side
    # 15 a hand: 105-105 after seven hands, 120-120 after the eighth, won by the bidders.
    g = new()
    for n in range(8):
        assert not g.over
        play_even(g, bidder=0)
        yield
    assert g.scores == [120, 120, 120, 120]
    assert g.over and g.winner == 0 and g.phase == "over"
    assert g.check((None, "deal", {})) == "the game is over"


@stepped
def test_the_other_side_reaching_120_alone_wins():
    # Seat 0 bids 20 each hand and fails: -20 a hand; the other side 15 a hand reaches 120.
    g = new()
    for n in range(8):
        play_even(g, bid=20, bidder=0)
        yield
    assert g.scores == [-160, 120, -160, 120] and g.winner == 1


@stepped
def test_target_and_defence_cap_options():
    g = new({"target": 30})
    play_even(g)
    assert not g.over
    play_even(g)
    assert g.over and g.winner == 0                # 30-30: the bidders
    g = new({"defence_cap": 100})
    for n in range(8):
        play_even(g, bidder=0)
        yield
    # the defenders stop at 100; the bidders reach 120 and win
    assert g.scores == [120, 100, 120, 100] and g.winner == 0


def test_dealer_moves_left_each_hand():
    g = new(dealer=3)
    play_even(g)
    assert g.dealer == 0 and g.dealing and g.turn == ()
    g = new(dealer=3, rules={"rotate_dealer": False})
    play_even(g)
    assert g.dealer == 3


# -- views ----------------------------------------------------------------------------------
def test_views_hide_hands_kitty_and_stock():
    deal = make_deal(["5S JS AH AS KS", "", "", ""], kitty="5D JD AD")
    g = new()
    g.apply(deal)
    spectator = json.dumps(g.view(None))
    seat1 = json.dumps(g.view(1))
    for c in deal[2]["hands"][0] + deal[2]["kitty"] + deal[2]["stock"]:
        assert '"%s"' % std.fmt(c) not in spectator
        assert '"%s"' % std.fmt(c) not in seat1
    assert g.view(0)["hand"] == sorted(["5S", "JS", "AH", "AS", "KS"],
                                       key=lambda k: std.parse(k))
    assert "hand" not in g.view(None)


# -- unknown hands ------------------------------------------------------------------------
def unknown_game(dealer=0, rules=None):
    """A game dealt without seeing any pile, in the play phase; seat 1 bids, nobody discards
    any seen card (the bidder puts away 3 unseen)."""
    g = new(rules, dealer)
    g.apply((None, "deal", {}))
    auction(g, 1)
    g.apply((1, "trump", std.SPADES))
    while g.phase == "discard":
        s = g.turn[0]
        g.apply((s, "discard", (), 3 if s == 1 else 0))
    return g


def test_unknown_hands_are_played_with_what_is_provable():
    g = unknown_game()
    assert g.held == [5, 5, 5, 5] and g.view(None)["drawn"] == [0, 0, 0, 0]
    assert g.turn == (1,)
    play(g, 1, "KH")
    assert why(g, 2, "KH") == "the KH was already played"
    play(g, 2, "2C")                               # the table cannot know seat 2 had a heart
    assert why(g, 2, "3C") == "not your turn: seat 3 is to play"


def test_unknown_discards_and_draws_are_counted():
    g = new()
    g.apply((None, "deal", {}))
    auction(g, 2)
    g.apply((2, "trump", std.HEARTS))
    assert g.held == [5, 5, 8, 5]
    g.apply((1, "discard", tuple(cs("2C")), 2))    # one seen, one unseen
    assert g.check((2, "discard", (), 2)) == "keep 1 to 5 cards: discard 3 to 7"
    assert g.check((2, "discard", tuple(cs("3C")), 0)) == \
        "n counts every card discarded, the seen ones too"
    g.apply((2, "discard", tuple(cs("3C")), 4))
    g.apply((3, "discard", (), 1))
    events = g.apply((0, "discard", (), None))
    draws = [(e["seat"], e["n"]) for e in events if e["ev"] == "draw"]
    assert draws == [(1, 2), (2, 1), (3, 1), (0, 0)]
    assert g.held == [5, 5, 5, 5]
    play(g, 2, "4C")
    assert why(g, 3, "2C") == "the 2C is out of play"


def test_a_plain_revoke_is_proven_when_the_suit_turns_up():
    g = unknown_game()
    play(g, 1, "KH")
    play(g, 2, "2C")                               # seat 2 shows out of hearts in trick 1
    play(g, 3, "QH")
    play(g, 0, "JH")
    assert g.trick_winners == [1]
    assert trick(g, "AC 3C 4C 6C") == 1            # black plain: the ace over the 3, 4, 6
    play(g, 1, "2D")
    events = play(g, 2, "3H")                      # seat 2 plays a heart after all
    assert g.revokes == [{"ev": "revoke", "seat": 2, "hand": 1, "trick": 1, "card": "3H"}]
    assert events[0] == g.revokes[0]


def test_a_trump_revoke_respects_the_privilege():
    g = unknown_game()
    play(g, 1, "6S")                               # trump 6 led
    play(g, 2, "2H")                               # seat 2 shows out of low trumps
    play(g, 3, "2C")
    play(g, 0, "2D")
    play(g, 1, "7S")                               # seat 1 won; leads again
    events = play(g, 2, "5S")                      # the 5 was privileged: no revoke
    assert not [e for e in events if e["ev"] == "revoke"]
    play(g, 3, "3C")
    play(g, 0, "3D")
    play(g, 2, "KD")                               # seat 2 won with the 5 and leads
    play(g, 3, "4C")
    play(g, 0, "4D")
    play(g, 1, "KC")
    play(g, 2, "8S")                               # a low trump after showing out in trick 1
    assert g.revokes == [{"ev": "revoke", "seat": 2, "hand": 1, "trick": 1, "card": "8S"}]


def test_jack_led_then_ace_of_hearts_is_a_revoke():
    g = unknown_game()
    play(g, 1, "JS")
    play(g, 2, "2H")                               # may hold the 5, not the A of hearts
    play(g, 3, "2C")
    play(g, 0, "2D")
    play(g, 1, "3S")
    play(g, 2, "AH")
    assert [(r["seat"], r["trick"], r["card"]) for r in g.revokes] == [(2, 1, "AH")]


def test_mixed_known_hands_and_unseen_stock():
    deal = make_deal(["KC 2D 3D 4D 6D", "2C 3S 3H 4H 6H", "", ""])
    piles = {"hands": deal[2]["hands"], "kitty": deal[2]["kitty"]}
    g = new()
    g.apply((None, "deal", piles))
    auction(g, 0)
    g.apply((0, "trump", std.SPADES))
    g.apply((1, "discard", tuple(cs("6H")), None))  # seat 1 draws one unseen card
    g.apply((2, "discard", (), None))
    g.apply((3, "discard", (), None))
    g.apply((0, "discard", tuple(deal[2]["kitty"]), None))
    assert g.known == [True, False, True, True]
    play(g, 0, "KC")
    # seat 1 still holds the 2C for sure: trumping is rejected at once
    assert why(g, 1, "3S") == "must follow clubs"


# -- malformed actions --------------------------------------------------------------------
def test_malformed_actions_and_options():
    g = new()
    assert g.check((None, "deal", {"hands": [[0, 1, 2, 3, 4]]})) == \
        "the deal has 1 hands for 4 seats"
    assert g.check((None, "deal", {"kitty": cs("2C 3C")})) == \
        "the kitty pile must hold 3 cards, not 2"
    assert g.check((None, "deal", {"kitty": ["2C", "3C", "4C"]})) == \
        "that is not a card of the fortyfives deck"
    assert g.check((None, "deal", {"hands": [cs("2C 3C 4C 5C 6C"), cs("2C 7C 8C 9C 10C"),
                                             None, None]})) == "the 2C is dealt twice"
    assert g.check((1, "bid", 15)) == "the cards must be dealt first"
    g.apply((None, "deal", {}))
    assert g.check((1, "trump", 2)) == "the bidding is not over: seat 1 is to bid"
    assert g.check((1, "discard", (), None)) == "the bidding is not over: seat 1 is to bid"
    assert g.check((1, "bid")) == "'bid' takes bid"
    assert g.check((7, "pass")) == "no seat 7 at a 4-player table"
    assert raises(ValueError, new, {"lead": "dealer"})
    assert raises(ValueError, new, {"target": "120"})
    assert raises(ValueError, games.load, "fortyfives", 3)
