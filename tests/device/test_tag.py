"""The link's tag command: tags read and written through the table's own (emulated) readers for
enrolling, while zone events are no plays; and each reader's PN532 firmware in health. (Its own
file: one table configuration per MicroPython process keeps the test heap like the Pico's.)"""
import json

from support import stepped

from emutable import emulated, idle, lay, tidy, until


def blank(t, zone, uid, emu):
    """Lay a new, empty NDEF-formatted NTAG213 on a zone; the emulated tag (None: fake reader)."""
    i = t.board.zone_reader[zone]
    if emu is None:
        t.hal.readers[i].card = (uid, None)
        return None
    e = t.hal.emus[i]
    e.remove()
    return e.place(emu.Tag(uid))


def tag_text(t, zone, tag):
    """What the tag on zone holds now, read from the tag itself (not through the table)."""
    if tag is None:
        return t.hal.readers[t.board.zone_reader[zone]].card[1]
    return tag.text()


def say(t, obj, steps=2):
    """Send a host command a step per top-level call (the emulators make garbage); its answer."""
    t.hal.serial.feed(json.dumps(obj) + "\n")
    for _ in range(steps):
        t.run(1)
        tidy(t)
        yield
    a = [m for m in t.said if m.get("id") == obj.get("id")]
    assert len(a) == 1, a
    return a[0]


@stepped
def test_readers_firmware_then_tags_read_and_written_through_the_table_while_zones_wait():
    t, emu = yield from emulated("pico-i2c-2seat", "nexus")
    a = yield from say(t, {"cmd": "health", "id": "h"})  # each reader's PN532 firmware, from init()
    assert [(r["zone"], r["fw"]) for r in a["readers"]] == [
        ("s0", "1.6"), ("s1", "1.6"), ("c", "1.6"), ("k", "1.6"), ("t0", "1.6"), ("t1", "1.6"), ("d", "1.6")]
    a = None
    a = yield from say(t, {"cmd": "tag", "id": 0, "zone": "s0"})  # enrolling begins: no tag yet
    assert a == {"type": "ok", "id": 0, "zone": "s0", "uid": None} and t.ctl.enroll == "s0"
    tag = blank(t, "s0", b"\x04\xc0\xde\x00\x00\x00\x01", emu)
    a = yield from say(t, {"cmd": "tag", "id": 1, "zone": "s0"}, 4)
    assert a["type"] == "ok" and a["uid"] == "04c0de00000001" and a["text"] is None and a["why"]
    a = yield from say(t, {"cmd": "tag", "id": 2, "zone": "s0", "write": "AS", "uid": "04c0de00000001"})
    assert a == {"type": "ok", "id": 2, "zone": "s0", "uid": "04c0de00000001", "text": "AS"}
    assert tag_text(t, "s0", tag) == "AS"
    a = yield from say(t, {"cmd": "tag", "id": 3, "zone": "s0"})
    assert a["text"] == "AS"
    yield from lay(t, "c", "KD")  # while enrolling, cards on the zones are no plays: not even
    yield from lay(t, "s1", "QH")  # a trump indicator
    t.hal.lift("s1")
    yield from until(t, "s1", False)
    yield from lay(t, "s1")  # nor is a tag with no card code a fault
    assert t.kinds("verdict") == [] and t.kinds("fault") == [] and t.ctl.game.history == []
    for zone in ("c", "s1"):
        t.hal.lift(zone)
        yield from until(t, zone, False)
    a = yield from say(t, {"cmd": "tag", "id": 4, "zone": "s1", "write": "KS"}, 5)
    assert a["type"] == "error" and a["tag"] == "lost" and a["msg"] == "no tag on zone s1"
    a = yield from say(t, {"cmd": "tag", "id": 5, "zone": "s0", "write": "KS", "uid": "04aaaaaaaaaaaa"})
    assert a["tag"] == "lost" and "04c0de00000001, not 04aaaaaaaaaaaa" in a["msg"]
    assert tag_text(t, "s0", tag) == "AS"  # another tag than the host meant: untouched
    yield from lay(t, "s1", None, b"\x08\xa1\xb2\xc3")  # a bank card
    a = yield from say(t, {"cmd": "tag", "id": 6, "zone": "s1"})
    assert a["type"] == "ok" and len(a["uid"]) == 8 and a["text"] is None
    a = yield from say(t, {"cmd": "tag", "id": 7, "zone": "s1", "write": "KS"})
    assert a["type"] == "error" and a["tag"] == "unusable", a
    a = yield from say(t, {"cmd": "tag", "id": 8, "zone": "x9"})
    assert a["msg"] == "no zone 'x9' (zones: s0, s1, c, k, t0, t1, d)" and "tag" not in a
    t.hal.lift("s1")
    t.hal.kill("s1")
    a = yield from say(t, {"cmd": "tag", "id": 9, "zone": "s1"}, 1)
    assert a["type"] == "error" and a["msg"].startswith("the reader of zone s1 failed: ") and "tag" not in a
    for _ in range(60):  # three failed polls and the scanner calls it down
        if t.ctl.scanner.down[t.board.zone_reader["s1"]]:
            break
        yield from idle(t, 1)
    a = yield from say(t, {"cmd": "tag", "id": 11, "zone": "s1"}, 1)
    assert a["type"] == "error" and a["msg"].startswith("the reader of zone s1 is down")
    a = yield from say(t, {"cmd": "tag", "id": 10, "done": True})
    assert a == {"type": "ok", "id": 10} and t.ctl.enroll is None
    for code in ("AS", "5H"):  # playing again: two indicators deal the hand
        yield from lay(t, "c", code)
        t.hal.lift("c")
        yield from until(t, "c", False)
    assert t.ctl.game.history == [(None, "deal", {"up": [3 * 13, 2 * 13 + 4]})]
    assert [m for m in t.said if m["type"] == "fault" and m["kind"] != "reader"] == []

