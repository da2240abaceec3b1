"""Nonesuch rules, from the seed 'NONESUCH' (issue text) and rules-decisions.md section 3.

Deck and chart tests: test_nonesuch_deck.py; random play-outs: test_nonesuch_playouts.py.
"""
import json

from nonesuch_util import (P, S, FULL3, break_trumps, events, full3, hidden3, make_deal,
                           new, play, start, why)
from support import raises

from cardtable.cards import decktet as dk
from cardtable.games.nonesuch import Nonesuch
from cardtable.rng import Random


# -- the deal ------------------------------------------------------------------------------
def test_deal_sizes_three_and_four_players():
    # "12 each with three players; 9 each with four players ... one card left over ... face up"
    for n, size in ((3, 12), (4, 9)):
        g = new(n)
        deal = g.random_deal(Random(n))
        hands, up = deal[2]["hands"], deal[2]["up"]
        assert [len(h) for h in hands] == [size] * n and len(up) == 1
        assert sorted(sum(hands, []) + up) == list(range(37))
        g.apply(deal)
        assert g.held == [size] * n and g.phase == "bid" and g.tricks_per_hand == size


def test_bad_deals_are_rejected():
    g = new(3)
    deal = make_deal(3, {}, "AM")
    piles = dict(deal[2])
    piles["hands"] = [h[:] for h in piles["hands"]]
    piles["hands"][0] = piles["hands"][0][:11]
    assert "12 cards" in g.check((None, "deal", piles))
    piles["hands"][0] = deal[2]["hands"][0][:11] + [P("AM")]
    assert "dealt twice" in g.check((None, "deal", piles))
    assert "up card" in g.check((None, "deal", {"hands": deal[2]["hands"]}))
    assert "no pile" in g.check((None, "deal", {"up": [0], "kitty": [1]}))
    assert g.check((None, "deal", {"up": [P("AM")]})) is None
    assert "first" in g.check((1, "bid", "some"))


def test_seats_are_three_or_four():
    assert raises(ValueError, new, 2)
    assert raises(ValueError, new, 5)
    assert raises(ValueError, new, 3, 0, {"tie": "coin"})
    assert raises(ValueError, new, 3, 0, {"nonsense": 1})


# -- trump from the up card ----------------------------------------------------------------
def test_ace_or_crown_up_fixes_trump_and_the_excuse_holder_still_swaps():
    # "If the up card is an Ace or Crown, then its suit will be the trump" and D7: "the Excuse
    # holder still swaps the Excuse for the up-card".
    for up, suit in (("AL", "L"), ("Calamity", "Y")):
        g = new(3)
        ev = g.apply(make_deal(3, {1: ["X"]}, up))
        assert ev[0]["trump"] == suit and g.view()["trump"] == suit
        for seat in (1, 2, 0):
            g.apply((seat, "bid", "some"))
        assert g.phase == "excuse" and g.turn == (1,)
        g.apply((1, "excuse"))
        assert g.phase == "play" and dk.EXCUSE not in g.hands[1] and P(up) in g.hands[1]
        assert len(g.hands[1]) == 12 and g.trump == S(suit)


def test_number_up_card_the_excuse_holder_chooses_one_of_its_suits_after_bidding():
    # "If the up card is a number rank, then one of its suits will be trump; the player holding
    # the Excuse will decide after bidding is complete."
    g = new(4, dealer=2)
    g.apply(make_deal(4, {0: ["X"]}, "Pact"))      # 9 Moons/Suns
    assert g.phase == "bid" and g.turn == (3,) and g.view()["trump"] is None
    assert "not your turn" in g.check((0, "bid", "some"))
    for seat in (3, 0, 1, 2):
        assert g.turn == (seat,)
        g.apply((seat, "bid", "most" if seat == 0 else "some"))
    assert g.check((0, "trump", S("M"))) == \
        "the reveal of the Excuse is not over: seat 0 is to reveal the Excuse"
    assert g.check((1, "excuse")) == "not your turn: seat 0 is to reveal the Excuse"
    g.apply((0, "excuse"))
    assert g.phase == "trump" and g.turn == (0,)
    assert "moons or suns" in g.check((0, "trump", S("W")))
    assert "not your turn" in g.check((1, "trump", S("M")))
    ev = g.apply((0, "trump", S("S")))
    assert ev == [{"ev": "trump", "seat": 0, "suit": "S"}]
    assert g.phase == "play" and g.turn == (3,) and g.view()["trump"] == "S"
    assert g.bids == ["most", "some", "some", "some"]


def test_excuse_up_means_no_trump_and_no_swap():
    # "If the up card is the Excuse itself, then there will be no trump suit." D7: nobody discards.
    g = new(3)
    g.apply(make_deal(3, {}, "X"))
    for seat in (1, 2, 0):
        g.apply((seat, "bid", "some"))
    assert g.phase == "play" and g.trump == -1 and g.view()["no_trump"]
    assert g.check((1, "excuse")) == "the reveal of the Excuse is over: seat 1 is to play"
    assert g.held == [12, 12, 12] and g.view()["up"] == "X" and g.view()["excuse"] is None
    # With no trump the highest card of the named suit wins; any card may be led.
    g2 = start(3, {1: ["CY", "AM"], 2: ["9WY"], 0: ["2SY"]}, "X")
    play(g2, 1, "CY")
    play(g2, 2, "9WY")
    ev = play(g2, 0, "2SY")
    assert events(ev, "trick")[0]["seat"] == 1


def test_reveal_before_bids_option():
    # D8 variant: the Excuse and the trump choice come before the bids.
    g = new(3, rules={"reveal_before_bids": True})
    g.apply(make_deal(3, {2: ["X"]}, "4MS"))
    assert g.phase == "excuse" and g.turn == (2,)
    g.apply((2, "excuse"))
    g.apply((2, "trump", S("M")))
    assert g.phase == "bid" and g.turn == (1,)
    for seat in (1, 2, 0):
        g.apply((seat, "bid", "none"))
    assert g.phase == "play" and g.turn == (1,)


# -- bidding -------------------------------------------------------------------------------
def test_bidding_starts_left_of_the_dealer_one_bid_each():
    # "The player on the dealer's left bids first, then each player clockwise"
    g = new(3, dealer=1)
    g.apply(make_deal(3, {}, "AM"))
    assert g.turn == (2,)
    assert "some, most or none" in g.check((2, "bid", "all"))
    assert "some, most or none" in g.check((2, "bid", 3))
    g.apply((2, "bid", "MOST"))
    g.apply((0, "bid", "none"))
    g.apply((1, "bid", "some"))
    assert g.bids == ["none", "some", "most"] and g.phase == "excuse"
    assert g.view(None)["bids"] == ["none", "some", "most"]
    assert g.check((2, "bid", "some")) is not None


# -- scoring -------------------------------------------------------------------------------
def test_some_scores_one_per_trick_and_nothing_for_none_taken():
    # "A bid of Some ... scores one point ... for each trick they've taken"; D2: 0 tricks = 0.
    g = new(3)
    assert [g.points_for("some", t) for t in (0, 1, 5, 12)] == [0, 1, 5, 12]
    g = new(3, rules={"some_zero_points": -1})
    assert g.points_for("some", 0) == -1 and g.points_for("some", 2) == 2


def test_most_threshold_six_or_five_and_penalty_per_trick_short():
    # "at least half the tricks ... two points for each trick ... If not, they lose one point for
    # each trick less than half"; D1: threshold 6 (3 players) or 5 (4 players).
    g3, g4 = new(3), new(4)
    assert g3.threshold == 6 and g4.threshold == 5
    assert [g3.points_for("most", t) for t in (0, 3, 5, 6, 12)] == [-6, -3, -1, 12, 24]
    assert [g4.points_for("most", t) for t in (0, 4, 5, 9)] == [-5, -1, 10, 18]
    g = new(3, rules={"most_penalty": "taken"})
    assert g.points_for("most", 4) == -4 and g.points_for("most", 0) == 0
    g = new(4, rules={"most_threshold": 4})
    assert g.points_for("most", 4) == 8 and g.points_for("most", 3) == -1


def test_none_scores_the_tricks_in_the_hand_or_loses_one_per_trick():
    # "If they do, they score ... the number of tricks in the hand; 12 in a three-player game ...
    # If not, they lose one point for each trick they've taken." (D3)
    assert new(3).points_for("none", 0) == 12 and new(4).points_for("none", 0) == 9
    assert new(3).points_for("none", 1) == -1 and new(4).points_for("none", 4) == -4
    assert new(4, rules={"none_points": 5}).points_for("none", 0) == 5


def test_game_to_31_highest_total_wins():
    # "Game to 31": if anyone has 31 or more after a hand, the highest total wins (D9).
    g = new(3)
    g.score = [30, 12, 3]
    assert g.settle() == [] and not g.over and g.dealer == 1 and g.dealing
    g.score = [31, 35, 3]
    ev = g.settle()
    assert g.over and g.winner == 1 and ev[0]["winner"] == 1 and g.turn == ()
    assert g.check((None, "deal", {"up": [0]})) == "the game is over"


def test_tie_at_the_top_plays_on_or_shares():
    # D9: "no rule for a tie at the top. Default: play further hands ... (option: shared win)"
    g = new(4, dealer=3)
    g.score = [33, 33, 12, 31]
    assert g.settle() == [] and not g.over and g.dealer == 0 and g.phase == "deal"
    g = new(4, rules={"tie": "shared"})
    g.score = [33, 33, 12, 31]
    ev = g.settle()
    assert g.over and g.winner is None and ev[0]["leaders"] == [0, 1]


# -- leading, following, winning -----------------------------------------------------------
def test_full3_is_a_whole_deck():
    g = full3()
    assert g.hands[0][-1] == P("Calamity") and dk.EXCUSE not in g.hands[0]
    assert sorted(sum(g.hands, [])) == sorted(c for c in Nonesuch.CARDS if c != dk.EXCUSE)


def test_seed_worked_example_suns_led_two_of_suns_wyrms_wins_as_only_trump():
    # Seed: Wyrms trump, an 8 led calling Suns (the Diplomat, Moons/Suns), the 2 of Suns/Wyrms
    # follows suit and wins as the only trump.
    g = start(3, {1: ["Diplomat"], 2: ["Desert"], 0: ["Bard"]}, "Calamity")
    assert g.trump == S("Y") and g.turn == (1,)
    play(g, 1, "Diplomat", "S")
    assert g.led == S("S")
    play(g, 2, "Desert")
    ev = play(g, 0, "Bard")                 # the Crown of Suns, highest Suns card, loses
    assert events(ev, "trick") == [{"ev": "trick", "seat": 2, "trick": 1}]
    assert g.trick_winners == [2]
    assert g.broken                         # D5: it counts as a trump played


def test_seed_example_word_for_word():
    # "EXAMPLE: Wyrms are trump. Tarrant plays 8 and calls Suns. Each subsequent player must play
    # a Sun card if they have one. Raphael plays 2 [Suns/Wyrms] which both follows suit and is a
    # trump card. Unless someone else plays a higher trump, Raphael will win the trick."
    # Tarrant = seat 1 (on the dealer's left), Raphael = seat 2, seat 0 plays last. The 8 that
    # can call Suns is the Diplomat (Moons/Suns): an 8 carrying Wyrms would be trump and beat
    # the 2 (see the next test).
    tarrant, raphael, third = 1, 2, 0
    g = start(3, {tarrant: ["Diplomat"], raphael: ["Desert", "AM"], third: ["AS", "Penitent"]},
              "Calamity")
    play(g, tarrant, "Diplomat", "S")
    assert why(g, raphael, "AM") == "must follow suns"     # Raphael holds a Sun: he must play it
    play(g, raphael, "Desert")
    # Someone else plays a higher trump: the 6 of Suns/Wyrms beats Raphael's 2.
    g2 = start(3, {tarrant: ["Diplomat"], raphael: ["Desert", "AM"], third: ["AS", "Penitent"]},
               "Calamity")
    play(g2, tarrant, "Diplomat", "S")
    play(g2, raphael, "Desert")
    ev = play(g2, third, "Penitent")
    assert events(ev, "trick")[0]["seat"] == third
    # Nobody does: Raphael wins the trick with the only trump.
    ev = play(g, third, "AS")
    assert events(ev, "trick")[0]["seat"] == raphael


def test_an_eight_carrying_wyrms_would_itself_be_trump_and_win():
    # Issue: "an 8 carrying Wyrms would itself be trump and win": the Betrayal (Wyrms/Knots) led
    # calling Knots beats the 2 of Suns/Wyrms played by a seat with no Knots.
    g = full3()
    break_trumps(g)
    play(g, 2, "Betrayal", "K")
    play(g, 0, "AK")
    ev = play(g, 1, "Desert")
    assert events(ev, "trick")[0]["seat"] == 2


def test_highest_trump_wins():
    # "Highest trump, else highest card of the named suit."
    g = full3()
    break_trumps(g)
    play(g, 2, "Betrayal", "K")
    play(g, 0, "5YK")                       # follows Knots, and is a trump too
    ev = play(g, 1, "9WY")                  # no Knots: the 9 of Waves/Wyrms is the high trump
    assert events(ev, "trick")[0]["seat"] == 1


def test_leader_names_a_suit_of_a_two_suit_card():
    # "the leader names one suit of a number card"
    g = start(3, {1: ["Diplomat", "AS"]}, "CK")
    assert why(g, 1, "Diplomat") == "name the suit you lead: moons or suns"
    assert why(g, 1, "Diplomat", "W") == "the 8MS has no waves"
    assert why(g, 1, "AS") is None and why(g, 1, "AS", "S") is None
    assert why(g, 1, "AS", "M") == "the AS has no moons"
    ev = play(g, 1, "Diplomat", "M")
    assert ev == [{"ev": "play", "seat": 1, "card": "8MS", "suit": "M"}]
    assert g.led == S("M") and g.view()["trick"] == [[1, "8MS"]] and g.view()["led"] == "M"
    # Only the leader names a suit.
    assert why(g, 2, g.card_code(g.hands[2][0]), "M") == "only the leader names a suit"


def test_following_is_by_the_named_suit_only():
    # "following is by the named suit only": the Diplomat (Moons/Suns) led calling Suns; a
    # Moons card does not follow, a trump does not excuse a seat that holds Suns.
    g = full3()
    play(g, 1, "Diplomat", "S")
    assert why(g, 2, "AW") == "must follow suns"
    assert why(g, 2, "AY") == "must follow suns"
    assert why(g, 2, "5SW") is None
    play(g, 2, "5SW")
    assert why(g, 0, "CM") == "must follow suns"     # Moons is on the led card, but not named
    assert why(g, 0, "3SK") is None
    ev = play(g, 0, "7SK")
    assert events(ev, "trick")[0]["seat"] == 1       # 8 of the named suit beats the 7 and 5


def test_a_void_seat_may_play_anything():
    # "follow ... if able, else any card": seat 2 has no Moons.
    g = full3()
    play(g, 1, "AM")
    assert why(g, 2, "AW") is None and why(g, 2, "AY") is None and why(g, 2, "CS") is None


def test_highest_card_of_the_named_suit_wins_without_trumps():
    g = start(4, {1: ["AW"], 2: ["9WY"], 3: ["Sea"], 0: ["Mill"]}, "Huntress")   # Moons trump
    play(g, 1, "AW")
    play(g, 2, "9WY")
    play(g, 3, "Sea")
    ev = play(g, 0, "Mill")
    assert events(ev, "trick")[0]["seat"] == 3 and g.leader == 3 and g.turn == (3,)


def test_trumps_cannot_be_led_until_a_trump_has_been_played():
    # "trumps cannot be led until a trump-bearing card has been played, unless the leader holds
    # only trumps"; D5: a trump discarded on another suit counts.
    g = full3()
    assert why(g, 1, "Desert", "S") == "trumps cannot be led until a trump has been played"
    assert why(g, 1, "Desert", "Y") == "trumps cannot be led until a trump has been played"
    assert why(g, 1, "9WY", "W") == "trumps cannot be led until a trump has been played"
    assert not g.view()["trump_broken"]
    break_trumps(g)
    assert g.view()["trump_broken"]
    assert why(g, 2, "Betrayal", "Y") is None


def test_leader_holding_only_trumps_may_lead_one_and_breaks_trumps():
    # D10: "May lead a trump. It then counts as 'a trump has been played'."
    wyrms = ["AY", "2SY", "3LY", "4YK", "5YK", "6SY", "7WY", "8YK", "9WY"]
    g = start(4, {1: wyrms}, "Calamity")     # seat 3 swaps the Excuse for the Calamity
    assert why(g, 1, "9WY", "W") is None
    play(g, 1, "9WY", "W")
    assert g.broken and g.led == S("W")


def test_a_trump_follow_in_the_named_suit_breaks_trumps_unless_ruff_option():
    # D5: "Any card carrying the trump suit, played in any way"; variant "ruff" (Spades style).
    fixed = {1: ["Diplomat", "AM"], 2: ["Desert", "AK"], 0: ["AS", "AL"]}
    g = start(3, fixed, "Calamity")
    play(g, 1, "Diplomat", "S")
    play(g, 2, "Desert")
    assert g.broken
    g = start(3, fixed, "Calamity", rules={"trump_broken_by": "ruff"})
    play(g, 1, "Diplomat", "S")
    play(g, 2, "Desert")
    play(g, 0, "AS")
    assert not g.broken and g.trick_winners == [2]
    assert why(g, 2, "Calamity") == "trumps cannot be led until a trump has been played"


def test_a_trump_led_may_name_its_other_suit_and_still_counts_as_trump():
    # D6: "The leader names either suit on the card ... The card still counts as a trump".
    g = full3()
    break_trumps(g)
    play(g, 2, "Cave", "W")                  # 7 Waves/Wyrms, calling Waves
    play(g, 0, "CK")                         # no Waves
    ev = play(g, 1, "Sea")                   # the Crown of Waves follows, and loses to the trump
    assert events(ev, "trick")[0]["seat"] == 2
    g = full3({"trump_lead_suit": "trump"})
    break_trumps(g)
    assert why(g, 2, "Cave", "W") == "a trump led must name wyrms"
    assert why(g, 2, "Cave", "Y") is None and why(g, 2, "AW") is None


# -- unknown hands: what is provable --------------------------------------------------------
def test_unknown_hands_any_unseen_seat_may_reveal_the_excuse():
    # DESIGN: "in unknown mode the Excuse holder's identity is revealed by an action"
    g = hidden3()
    assert g.phase == "excuse" and g.turn == (0, 1, 2)
    g.apply((0, "excuse"))
    assert g.hands[0] == [P("Calamity")] and g.held == [12, 12, 12] and g.phase == "play"
    # With seat 1's hand seen (no Excuse in it), seat 1 cannot claim it.
    g = hidden3(seats=(0, 2))
    assert g.turn == (0, 2) and g.check((1, "excuse")) == \
        "not your turn: seat 0 or seat 2 is to reveal the Excuse"
    # With the holder's hand seen only the holder may.
    g = hidden3(seats=(1, 2))
    assert g.turn == (0,) and g.check((2, "excuse")) == \
        "not your turn: seat 0 is to reveal the Excuse"


def test_unknown_hands_reject_what_is_provable_at_once():
    # "the table checks what is provable: turn order, a card seen twice, a card that cannot be in
    # that hand"
    g = hidden3()
    g.apply((0, "excuse"))
    assert "not your turn" in why(g, 2, "AS")
    play(g, 1, "AM")
    assert why(g, 2, "AM") == "the AM was already played"
    assert why(g, 2, "Calamity") == "the CY is in seat 0's hand"
    assert why(g, 2, "X") == "the X is out of play"
    assert why(g, 2, "AY") is None                   # unseen: the table cannot tell
    play(g, 2, "AY")
    assert why(g, 0, "CY") is None                   # seat 0 may have no Moons
    play(g, 0, "CM")
    assert g.trick_winners == [2] and g.revokes == []


def test_showing_out_then_playing_the_suit_is_a_revoke_named_by_its_trick():
    # DESIGN: "catches a revoke as soon as it is proven (a player who showed out of a suit later
    # plays it), naming the trick where it happened"
    g = hidden3()
    g.apply((0, "excuse"))
    play(g, 1, "AM")
    play(g, 2, "AY")                                 # shows out of Moons in trick 1
    play(g, 0, "CM")
    ev = play(g, 2, "Author", "M")                   # a Moons card: the revoke is proven
    rv = events(ev, "revoke")
    assert rv == [{"ev": "revoke", "seat": 2, "hand": 1, "trick": 1, "card": "2MK"}]
    assert g.revokes == rv and g.trick == [(2, P("2MK"))]


def test_a_trump_led_before_trumps_are_broken_proves_the_rest_are_trumps():
    # "trumps cannot be led ... unless the leader holds only trumps": with an unseen hand the lead
    # is accepted, and a later non-trump from that hand proves the revoke at that lead.
    g = hidden3()
    g.apply((0, "excuse"))
    play(g, 1, "9WY", "W")
    assert g.broken
    play(g, 2, "AW")
    play(g, 0, "CK")
    assert g.trick_winners == [1]
    ev = play(g, 1, "Pact", "S")                     # no Wyrms on it: seat 1 had a non-trump
    assert events(ev, "revoke") == [{"ev": "revoke", "seat": 1, "hand": 1, "trick": 1,
                                     "card": "9MS"}]
    assert events(ev, "play") == [{"ev": "play", "seat": 1, "card": "9MS", "suit": "S"}]
    assert g.revokes == events(ev, "revoke")
    # With seat 1's hand seen the same lead is refused at once.
    g = hidden3(seats=(0, 2))
    g.apply((0, "excuse"))
    assert why(g, 1, "9WY", "W") == "trumps cannot be led until a trump has been played"


def test_known_seat_among_unknown_ones_is_checked_at_once():
    g = hidden3(seats=(0, 1))
    g.apply((0, "excuse"))
    play(g, 1, "Diplomat", "S")
    assert why(g, 2, "AW") == "must follow suns"
    play(g, 2, "5SW")
    assert why(g, 0, "AW") == "the AW is in seat 2's hand"
    assert why(g, 0, "CM") is None                   # unseen seat 0: may have no Suns


# -- views ---------------------------------------------------------------------------------
def test_views_hide_hands_and_show_the_up_card_while_it_is_on_the_table():
    # DESIGN: "A spectator never sees a hand ... or the deck order."
    g = new(3)
    g.apply(make_deal(3, FULL3, "Calamity"))
    v = g.view(None)
    assert v["up"] == "CY" and "hand" not in v and v["trump"] == "Y"
    text = json.dumps(v)
    for h in g.hands:
        for c in h:
            assert '"%s"' % g.card_code(c) not in text
    assert g.view(1)["hand"] == g.codes(sorted(g.hands[1]))
    for seat in (1, 2, 0):
        g.apply((seat, "bid", "some"))
    g.apply((0, "excuse"))
    v = g.view(None)
    assert v["up"] is None and v["excuse"] == 0 and '"CY"' not in json.dumps(v)
    assert "CY" in g.view(0)["hand"] and '"CY"' not in json.dumps(g.view(1))
    assert g.dump()["up"] == "CY"
