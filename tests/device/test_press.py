"""The link's press command: a button meaning pressed from the host, as the button would be,
also on a table that has no such button. (Tags and reader firmware: test_tag.py.)"""
from support import stepped

from simtable import table


def buttonless(lay):
    """Take the layout's buttons away, as a table without any would have it: it has only what
    is typed or pressed from the host. Returns what puts them back."""
    saved = lay.buttons, lay.host_verbs
    lay.buttons = {}
    lay.host_verbs = ("bid", "suit")  # what validating such a board says (test_board_config)

    def restore():
        lay.buttons, lay.host_verbs = saved
    return restore


@stepped
def test_press_names_the_suit_of_a_nonesuch_lead_on_a_table_without_buttons():
    t = yield from table("pico-spi-4seat", "nonesuch")
    restore = buttonless(t.ctl.layout)
    try:
        yield from nonesuch_lead(t)
    finally:
        restore()


def nonesuch_lead(t):
    t.put("c", "5SW")  # the up card deals the hand
    for cid in range(1, 5):  # seats 1, 2, 3, 0 bid
        a = t.send({"cmd": "press", "id": cid, "button": "bid some"})
        assert a[0]["type"] == "ok" and a[0]["seq"] == cid + 1, a
        yield
    assert [h[2] for h in t.ctl.game.history[1:]] == ["some"] * 4
    t.put(t.zone("play", 2), "X")  # seat 2 shows the Excuse and takes the up card
    a = t.send({"cmd": "press", "id": 5, "button": "suit W"})  # its trump: Waves
    assert a[0]["type"] == "ok" and t.ctl.game.history[-1] == (2, "trump", 2)
    yield
    t.put(t.zone("play", 1), "2MK")  # seat 1 leads a two-suit card without naming a suit
    assert len(t.kinds("verdict")) == 1 and len(t.ctl.game.history) == 7
    a = t.send({"cmd": "press", "id": 6, "button": "suit k"})  # the host names Knots
    assert a[0]["type"] == "ok" and a[0]["seq"] == 8, a
    assert t.ctl.game.history[-1] == (1, "play", 6, 5)
    assert t.state()["view"]["led"] == "K"
    yield
    a = t.send({"cmd": "press", "id": 7, "button": "suit Q"})
    assert a[0]["type"] == "error" and "bad suit 'Q'" in a[0]["msg"]
    a = t.send({"cmd": "press", "id": 8, "button": "dance"})
    assert a[0] == {"type": "error", "id": 8, "msg": "no button means 'dance' here "
                    "(nonesuch: bid <bid>, suit <suit>, confirm, undo)"}
    a = t.send({"cmd": "press", "id": 9, "button": "undo"})
    assert a[0]["undone"] == {"seat": 1, "act": "play", "card": "2MK", "suit": "K"}
    assert len(t.ctl.game.history) == 7
    yield
    a = t.send({"cmd": "press", "id": 10, "button": "suit M"})  # named before the lead this time
    assert a == [{"type": "ok", "id": 10}] and len(t.ctl.game.history) == 7
    t.put(t.zone("play", 1), "4MS")
    assert t.ctl.game.history[-1] == (1, "play", 12, 0)


@stepped
def test_press_does_what_the_physical_button_does_and_knows_its_meanings():
    t = yield from table("pico-i2c-4seat", "fortyfives")
    t.press("k1")  # seat 1's bid of 20 by its button ...
    a = t.send({"cmd": "press", "id": 1, "button": "Pass"})  # ... seat 2's pass from the host
    assert a[0]["type"] == "ok" and a[0]["events"][0]["ev"] == "pass"
    assert [h[1:] for h in t.ctl.game.history[1:]] == [("bid", 20), ("pass",)]
    yield
    a = t.send({"cmd": "press", "id": 2, "button": "bid 17"})
    assert a[0]["type"] == "error" and a[0]["msg"].startswith(
        "no button means 'bid 17' here (fortyfives: bid 15, bid 20, bid 25, bid 30, pass, trump C")
    assert a[0]["msg"].endswith("trump S, agree 0, agree 1, say 0, say 1, say 2, say 3, dispute 0, dispute 1,"
                                " confirm, undo)")  # (buttons by name: say0..say3 before x0, x1)
    a = t.send({"cmd": "press", "id": 3, "button": "bid 15"})  # lower than 20: the rules say no
    assert a[0]["type"] == "error" and t.kinds("verdict")[-1]["from"] == "host"
    assert len(t.ctl.game.history) == 3
    a = t.send({"cmd": "press", "id": 4, "button": 7})
    assert a[0]["type"] == "error" and "no button means 7" in a[0]["msg"]
