"""A tag command that fails (no tag on the zone) starts no enrolling: the table plays on. Once
enrolling, a failure (the next sticker not laid yet) keeps the table enrolling."""
from support import stepped

from simtable import table


@stepped
def test_a_failed_tag_command_leaves_the_table_playing_and_an_enrolling_one_enrolling():
    t = yield from table("pico-i2c-2seat", "california-jacks")
    a = t.send({"cmd": "tag", "id": 1, "zone": "s0", "write": "AS"})  # nothing on s0
    assert a == [{"type": "error", "id": 1, "msg": "no tag on zone s0", "tag": "lost"}]
    assert t.ctl.enroll is None
    yield
    t.put("c", "9S")  # the cut card deals: the table still plays
    g = t.ctl.game
    assert g.phase == "play" and g.turn == (1,) and len(g.history) == 1
    yield
    a = t.send({"cmd": "tag", "id": 2, "zone": "s0"})  # a read starts enrolling
    assert a == [{"type": "ok", "id": 2, "zone": "s0", "uid": None}] and t.ctl.enroll == "s0"
    a = t.send({"cmd": "tag", "id": 3, "zone": "s0", "write": "KS"})
    assert a[0]["tag"] == "lost" and t.ctl.enroll == "s0"
    yield
    t.put("s1", "KH")  # while enrolling, a card on a zone is no play
    assert len(g.history) == 1 and t.kinds("verdict") == []
    a = t.send({"cmd": "tag", "id": 4, "done": True})
    assert a == [{"type": "ok", "id": 4}] and t.ctl.enroll is None
