"""The link's bringup command (`cardtable doctor --bringup`): while it is on, a button press is
reported instead of played; the piezo sounds on request. (Its own file: one table per
MicroPython process keeps the test heap like the Pico's.)"""
from support import stepped

from simtable import table


@stepped
def test_bringup_reports_each_button_instead_of_playing_it_and_sounds_the_piezo():
    t = yield from table("pico-spi-4seat", "fortyfives")
    seq, said = t.ctl.journal.seq, len(t.said)
    bid = t.button("bid 15")
    a = t.send({"cmd": "bringup", "id": 1, "on": True})
    assert a[0]["type"] == "ok" and a[0]["on"] is True and a[0]["piezo"] == 15, a
    assert a[0]["buttons"][bid] == 6 and len(a[0]["buttons"]) == 9, a
    yield
    t.press(bid)
    assert t.kinds("bringup") == [{"type": "bringup", "button": bid}], t.said
    assert t.ctl.journal.seq == seq and len(t.said) == said + 2, t.said  # ok, bringup: no bid
    before = len(t.hal.buzzer.patterns)
    a = t.send({"cmd": "bringup", "id": 2, "beep": True})
    assert a[0]["type"] == "ok" and a[0]["beep"] is True, a
    assert len(t.hal.buzzer.patterns) == before + 1 and t.hal.buzzer.tones[-1] > 0
    yield
    a = t.send({"cmd": "bringup", "id": 3, "on": "yes"})
    assert a[0] == {"type": "error", "id": 3, "msg": "\"on\" and \"beep\" must be true or false"}
    a = t.send({"cmd": "bringup", "id": 4, "on": False})
    assert a[0]["on"] is False
    said = len(t.said)
    t.press(bid)  # played again: the bid's verdict or event, no bringup message
    assert len(t.kinds("bringup")) == 1
    assert t.ctl.journal.seq != seq or len(t.kinds("verdict")) == 1, t.said[said:]
    yield
    t.ctl.feedback.buzzer = None  # a board without its piezo
    t.ctl.board.piezo_pin = None
    a = t.send({"cmd": "bringup", "id": 5, "beep": True})
    assert a[0]["msg"] == "no piezo on pico-spi-4seat to sound", a
