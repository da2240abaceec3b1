"""Whole games through a simulated table's zones, buttons and taps, checked against a shadow
game that knows every card. Heavy play-outs: the MicroPython runner runs them from the .mpy
build only (tools/mpy/test_mpy.py ONCE), the form the firmware ships in."""
from support import stepped

from simtable import collecting, table


def perform(t, shadow, a):
    """Do a shadow action at the table the way players would (a step per card or button)."""
    g = shadow
    verb = a[1]
    code = g.card_code
    if verb == "deal":
        if g.ID == "california-jacks":
            t.put(t.zone("up"), code(a[2]["stock"][0]))
        return  # a Forty-Fives table deals itself
    seat = a[0]
    if verb == "play":
        t.put(t.zone("play", seat), code(a[2]))
    elif verb == "bid":
        t.press(t.button("bid %d" % a[2]))
    elif verb == "pass":
        t.press(t.button("pass"))
    elif verb == "trump":
        t.press(t.button("trump " + g.deck.fmt_suit(a[2])))
    elif verb == "discard":
        for c in a[2]:
            t.put(t.zone("kitty"), code(c))
            yield
        t.tap(seat)
    else:
        raise AssertionError("no way to do %r at the table" % (a,))
    yield


def fade(t):
    """Run until the last LED flash has faded (a step of the runner per 10 table steps)."""
    for _ in range(10):
        t.run(10)
        yield


def _deals(history):
    n = 0
    for a in history:
        if a[1] == "deal":
            n += 1
    return n


def keep_trumps(g):
    """A Forty-Fives discard that keeps up to five trumps (the bots' random discard lists every
    subset of an 8-card hand: too much garbage for one step of the WebAssembly port)."""
    seat = g.turn[0]
    hand = g.hands[seat]
    keep = [c for c in hand if g.is_trump(c)][:5] or hand[:1]
    return (seat, "discard", tuple([c for c in hand if c not in keep]), None)


def play_out(t, name, seed, max_actions=3000, rules=None):
    """Bots choose with full knowledge; the table sees only what players do. Yields per action."""
    from cardtable import games
    from cardtable.rng import Random

    shadow = games.load(name, seats=t.ctl.game.seats, rules=rules)
    auto = 1 if name == "fortyfives" else 0
    rng = Random(seed)
    n = deals = 0
    while not shadow.over and n < max_actions:
        if name == "fortyfives" and shadow.phase == "discard":
            a = keep_trumps(shadow)
        else:
            a = shadow.bot_action(rng)
        shadow.apply(a)
        shadow.history.pop()  # the shadow never undoes: keep the heap for the table's game
        yield  # the shadow's garbage (a hand scored, a deal) and the table's: a step each
        yield from perform(t, shadow, a)
        if a[1] == "deal":
            deals += 1
            t.run(1)  # a Forty-Fives table deals itself when a hand ends
        h = t.ctl.game.history
        assert len(h) - _deals(h) == n + 1 - deals, (a, t.said[-3:])
        assert _deals(h) - deals in (0, auto), (a, t.said[-3:])
        n += 1
        yield
    return shadow


@stepped
def test_a_whole_game_of_fortyfives_through_buttons_taps_and_zones():
    t = yield from table("pico-i2c-4seat", "fortyfives")
    shadow = yield from play_out(t, "fortyfives", 5)
    want = (shadow.scores, shadow.winner)
    shadow = None
    yield
    from cardtable.table import feedback

    g = t.ctl.game
    assert g.over and (g.scores, g.winner) == want
    assert t.kinds("verdict") == [] and t.kinds("fault") == []
    assert len(g.history) > 100 and g.history.count((None, "deal", {})) >= 3
    for _ in range(10):
        t.run(10)  # the last flash fades
        yield
    assert t.led(t.zone("play", g.winner)) == feedback.COLOURS["winner"]
    assert t.led(t.zone("play", g.winner + 2)) == feedback.COLOURS["winner"]
    assert t.led(t.zone("play", 1 - g.winner)) == feedback.OFF
    n = len(g.history)
    store, keep = t.hal.storage, t._keep
    t = g = None
    yield
    from cardtable.journal import Journal

    game, replayed = yield from collecting(Journal(store).resuming())
    assert replayed == n and (game.scores, game.winner) == want
    assert keep is keep


@stepped
def test_a_finished_fortyfives_game_asks_both_teams_to_confirm_on_their_buttons_and_pads():
    from cardtable.table import feedback

    t = yield from table("pico-i2c-4seat", "fortyfives", rules={"target": 5})
    yield from play_out(t, "fortyfives", 5, rules={"target": 5})  # over after a hand
    g = t.ctl.game
    assert g.over
    asked, agreed, disputed = (feedback.COLOURS[c] for c in ("turn", "accepted", "rejected"))
    yield from fade(t)
    assert [t.led(t.zone("tap", s)) for s in range(4)] == [asked] * 4  # both teams are asked
    assert t.state()["agree"] == [0, 0]
    yield
    t.tap(2)  # North, of North-South, taps its pad: its team agrees
    assert t.kinds("agree")[-1] == {"type": "agree", "team": 0, "answer": "agree", "agree": [1, 0],
                                    "from": "tap " + t.zone("tap", 2)}
    yield from fade(t)
    assert [t.led(t.zone("tap", s)) for s in range(4)] == [agreed, asked, agreed, asked]
    yield
    t.press(t.button("dispute 1"))  # East-West dispute it on their button
    assert t.kinds("agree")[-1]["agree"] == [1, 2] and t.state()["agree"] == [1, 2]
    yield from fade(t)
    assert [t.led(t.zone("tap", s)) for s in range(4)] == [agreed, disputed, agreed, disputed]
    assert t.ctl.game is g and t.ctl.journal.number == 1  # answering started no new game
    yield
    t.press(t.button("agree 1"))  # both have answered: the answers stand
    assert t.state()["agree"] == [1, 2] and len(t.kinds("agree")) == 2
    r = t.send({"cmd": "press", "id": 3, "button": "agree 7"})
    assert r[0]["type"] == "error" and "agree 0, agree 1, say 0, say 1, say 2, say 3, dispute 0, dispute 1" \
        in r[0]["msg"]  # (the buttons by name: the seats' say0..say3 come before x0 and x1)
    yield
    t.tap(1)  # then a tap starts the next game, as in any game
    assert t.ctl.game is not g and t.ctl.journal.number == 2 and "agree" not in t.state()
    yield
    r = t.send({"cmd": "press", "id": 4, "button": "agree 0"})
    assert r[0]["type"] == "error" and "not over" in r[0]["msg"]


@stepped
def test_the_next_forty_fives_game_waits_for_both_teams_and_an_undo_voids_their_answers():
    # Issue 30 (19): a confirm button is no team's answer, and a tap of a team that has not
    # answered is its answer: the next game starts only once both teams have answered.
    # Answers given before an undo of the game's last action are asked again.
    t = yield from table("pico-i2c-4seat", "fortyfives", rules={"target": 5})
    yield from play_out(t, "fortyfives", 5, rules={"target": 5})  # over after a hand
    g = t.ctl.game
    assert g.over
    last = g.history[-1]
    assert last[1] == "play"
    yield
    r = t.send({"cmd": "press", "id": 1, "button": "confirm"})  # nobody has answered
    assert r[0]["type"] == "error" and "both teams answer the result first" in r[0]["msg"], r
    assert t.kinds("verdict")[-1]["reason"] == r[0]["msg"]
    t.press(t.button("dispute 0"))
    assert t.state()["agree"] == [2, 0]
    r = t.send({"cmd": "press", "id": 2, "button": "confirm"})  # one team has answered
    assert r[0]["type"] == "error" and t.ctl.game is g
    yield
    r = t.send({"cmd": "undo", "id": 3})  # the last card is taken back: the game is not over
    assert r[0]["type"] == "ok" and not g.over and "agree" not in t.state()
    yield  # (the undo replayed the game: its garbage goes first)
    t.put(t.zone("play", last[0]), g.card_code(last[2]))  # and laid again: over again
    assert g.over and g.history[-1] == last
    assert t.state()["agree"] == [0, 0], "an answer given before the undo still counted"
    yield
    t.tap(1)  # East-West's first tap is its answer, not the next game
    assert t.ctl.game is g and t.state()["agree"] == [0, 1]
    t.tap(3)
    assert t.ctl.game is g and t.state()["agree"] == [0, 1]
    yield
    t.tap(0)  # North-South answers: both have
    assert t.ctl.game is g and t.state()["agree"] == [1, 1]
    t.tap(2)  # then a tap starts the next game
    assert t.ctl.game is not g and t.ctl.journal.number == 2


@stepped
def test_a_whole_game_of_california_jacks_through_the_zones():
    t = yield from table("pico-i2c-2seat", "california-jacks")
    shadow = yield from play_out(t, "california-jacks", 8)
    want = (shadow.scores, shadow.winner, list(shadow.trick_winners))
    shadow = None  # the heap is the Pico's: one copy of the game at a time
    yield
    g = t.ctl.game
    assert g.over and (g.scores, g.winner, g.trick_winners) == want
    assert t.kinds("verdict") == [] and t.kinds("fault") == []
    assert t.events == len(g.history) and len(g.history) > 200
    n = len(g.history)
    store, keep = t.hal.storage, t._keep
    t = g = None
    yield
    from cardtable.journal import Journal

    game, replayed = yield from collecting(Journal(store).resuming())
    assert replayed == n and game.over and (game.scores, game.winner, game.trick_winners) == want
    assert keep is keep
