"""A seat's say button and a team's agree button while the game goes on (issue 33): each is told
to the host (``say``, ``consent``) and changes nothing at the table; the board file takes "say"
only for a seat of a trick game, and the host is never asked to type it (test_board_config)."""
from support import stepped

from simtable import table


@stepped
def test_a_teams_agree_button_while_the_game_goes_on_is_its_consent_told_to_the_host():
    t = yield from table("pico-i2c-4seat", "fortyfives")  # a Forty-Fives table deals itself
    g = t.ctl.game
    assert not g.over and not g.dealing
    n = len(g.history)
    t.press(t.button("agree 1"))
    yield
    t.press(t.button("dispute 0"))
    yield
    assert t.kinds("consent") == [
        {"type": "consent", "team": 1, "answer": "agree", "from": "button ok1"},
        {"type": "consent", "team": 0, "answer": "dispute", "from": "button x0"}], t.said[-3:]
    # nothing happens at the table: no answer to a result, no verdict, no action, nothing asked
    assert not t.kinds("agree") and not t.kinds("verdict") and len(g.history) == n
    assert t.ctl.agree[0] == 0 and t.ctl.agree[1] == 0 and "agree" not in t.state()
    yield
    # the host's own press asks nothing of itself: refused as before
    r = t.send({"cmd": "press", "id": 1, "button": "agree 0"})
    assert r[0]["type"] == "error" and "not over" in r[0]["msg"], r
    assert len(t.kinds("consent")) == 2


@stepped
def test_a_say_button_tells_the_host_its_seat_and_no_card():
    from dealing import deal

    t = yield from table("pico-i2c-4seat", "nexus")  # seats 0 and 2 of the table play
    cards = yield from deal(t, seed=4)
    g = t.ctl.game
    assert not g.dealing, t.said[-3:]
    n = len(g.history)
    before = len(t.said)
    t.press("say2")  # the button before physical seat 2: game seat 1's
    said = t.said[before:]
    assert said == [{"type": "say", "seat": 1, "from": "button say2"}], said
    assert len(g.history) == n and not t.kinds("verdict")
    yield
    # the host asks for that seat's view: its own hand, which the spectators' state never has
    r = t.send({"cmd": "state", "id": 1, "seat": 1})
    hand = r[0]["view"]["hand"]
    assert sorted(hand) == sorted(g.card_code(c) for c in g.hands[1]) and hand, r
    assert "hand" not in t.state()["view"] or t.state()["view"]["hand"] is None
    assert not set(hand) & set(g.card_code(c) for c in g.hands[0])
    assert len(cards) > len(hand)
    yield
    r = t.send({"cmd": "press", "id": 2, "button": "say 0"})  # the host presses it as the button would
    assert r == [{"type": "ok", "id": 2}], r
    assert t.kinds("say")[-1] == {"type": "say", "seat": 0, "from": "host"}
    r = t.send({"cmd": "press", "id": 3, "button": "say 2"})  # no seat 2 in a two-player game
    assert r[0]["type"] == "error" and "say 0" in r[0]["msg"] and "say 1" in r[0]["msg"], r
