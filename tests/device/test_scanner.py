"""The scanner: debounce, lifts, dead readers, unknown tags, one field at a time."""
from support import MICROPYTHON

from cardtable.hw_sim import SimClock, SimReader, uid_for
from cardtable.table.scanner import DOWN, LIFTED, PLACED, TORN, TWO, UNKNOWN, UP, Scanner


def table(n=3, **kw):
    readers = [SimReader() for _ in range(n)]
    clock = SimClock(1000)
    sc = Scanner(readers, clock, **kw)
    sc.start()
    return readers, clock, sc


def put(reader, text):
    reader.card = (uid_for(text), text)


def rounds(sc, clock, k, ms=10):
    """k full rounds (every reader polled once per round); returns the events."""
    out = []
    for _ in range(k * sc.n):
        clock.advance(ms)
        sc.step()
        ev = sc.next_event()
        while ev is not None:
            out.append(ev)
            ev = sc.next_event()
    return out


def kinds(events):
    return [(e[0], e[1]) for e in events]


def test_a_card_held_still_is_one_placement():
    readers, clock, sc = table()
    put(readers[1], "AS")
    events = rounds(sc, clock, 50)
    assert kinds(events) == [(PLACED, 1)]
    assert events[0][3] == "AS"
    assert readers[1].reads == 1  # the tag's text is read once, not at every poll


def test_the_placement_is_stamped_with_the_first_sighting():
    readers, clock, sc = table(n=1, place_polls=3)
    rounds(sc, clock, 2)
    put(readers[0], "KH")
    first = clock.now + 10
    events = rounds(sc, clock, 5)
    assert kinds(events) == [(PLACED, 0)]
    assert events[0][2] == first


def test_a_flicker_at_the_field_edge_is_no_placement():
    readers, clock, sc = table(n=1)
    put(readers[0], "QD")
    readers[0].script = [True, False, True, False, False, True, False, True, False]
    assert rounds(sc, clock, 9) == []
    readers[0].card = None
    assert rounds(sc, clock, 10) == []


def test_a_card_seen_once_in_passing_is_nothing():
    readers, clock, sc = table(n=2)
    put(readers[0], "2C")
    rounds(sc, clock, 1)
    readers[0].card = None
    assert rounds(sc, clock, 10) == []


def test_a_new_card_that_flickers_back_to_the_card_lying_there_starts_its_debounce_again():
    # The 7H slides over the AS already placed: the reader sees one, then the other. Seeing the
    # AS again ends the 7H's debounce: neither a second AS nor an early 7H, and the 7H is
    # stamped with its first sighting after the flicker.
    readers, clock, sc = table(n=1, place_polls=2)
    put(readers[0], "AS")
    assert kinds(rounds(sc, clock, 3)) == [(PLACED, 0)]
    seen = []
    for text in ("7H", "AS", "AS", "7H"):
        put(readers[0], text)
        assert rounds(sc, clock, 1) == [], text
        seen.append(clock.now)
    events = rounds(sc, clock, 1)
    assert kinds(events) == [(LIFTED, 0), (PLACED, 0)]
    assert events[1][3] == "7H" and events[1][2] == seen[3]
    assert events[0][4] == uid_key_of("AS")


def uid_key_of(text):
    from cardtable.table.scanner import uid_key

    uid = uid_for(text)
    return uid_key(uid, len(uid))


def test_a_missed_poll_under_a_still_card_is_no_lift():
    readers, clock, sc = table(n=1, lift_polls=3)
    put(readers[0], "JC")
    assert kinds(rounds(sc, clock, 3)) == [(PLACED, 0)]
    readers[0].script = [False, True, False, False, True, False, True] * 3
    assert rounds(sc, clock, 21) == []


def test_lifting_a_card_is_reported_once():
    readers, clock, sc = table(n=2, lift_polls=3)
    put(readers[0], "10S")
    rounds(sc, clock, 3)
    readers[0].card = None
    events = rounds(sc, clock, 20)
    assert kinds(events) == [(LIFTED, 0)]
    assert not sc.present(0)


def test_swapping_cards_is_a_lift_then_a_placement():
    readers, clock, sc = table(n=1)
    put(readers[0], "AH")
    rounds(sc, clock, 3)
    put(readers[0], "KH")
    events = rounds(sc, clock, 5)
    assert kinds(events) == [(LIFTED, 0), (PLACED, 0)]
    assert events[1][3] == "KH"


def test_a_tag_without_a_card_code_is_reported_unknown_not_placed():
    readers, clock, sc = table(n=1)
    readers[0].card = (b"\x08\x11\x22\x33", None)  # a bank card
    events = rounds(sc, clock, 10)
    assert kinds(events) == [(UNKNOWN, 0)]
    assert "not a card" in events[0][3]


def test_a_dead_reader_is_reported_and_the_others_keep_working():
    readers, clock, sc = table(n=3, fail_limit=3, retry_ms=1000)
    rounds(sc, clock, 2)
    readers[1].dead = True
    events = rounds(sc, clock, 4)
    assert kinds(events) == [(DOWN, 1)]
    assert "5" in events[0][3] or "EIO" in events[0][3]
    polls_before = readers[1].inits
    put(readers[0], "9D")
    put(readers[2], "8D")
    events = rounds(sc, clock, 30, ms=5)  # 450 ms: no retry of the dead one yet
    assert sorted(kinds(events)) == [(PLACED, 0), (PLACED, 2)]
    assert readers[1].inits == polls_before
    assert sc.status(1)["up"] is False and sc.status(0)["up"] is True
    assert sc.status(1)["failures"] >= 3


def test_a_dead_reader_is_retried_slowly_and_comes_back():
    readers, clock, sc = table(n=2, fail_limit=2, retry_ms=1000)
    readers[0].dead = True
    rounds(sc, clock, 3)
    inits = readers[0].inits
    rounds(sc, clock, 100)  # 2 s
    assert 1 <= readers[0].inits - inits <= 3
    readers[0].dead = False
    put(readers[0], "7H")
    events = rounds(sc, clock, 60)
    assert kinds(events) == [(UP, 0), (PLACED, 0)]


def test_a_reader_dead_at_boot_is_reported_at_start():
    readers = [SimReader(), SimReader()]
    readers[1].dead = True
    sc = Scanner(readers, SimClock())
    sc.start()
    ev = sc.next_event()
    assert ev[0] == DOWN and ev[1] == 1
    assert sc.next_event() is None


def test_only_one_field_is_on_at_a_time():
    readers, clock, sc = table(n=4)
    put(readers[2], "3S")
    for _ in range(40):
        sc.step()
        assert sum(1 for r in readers if r.field) == 0  # released before the next reader


def test_a_card_on_the_focus_keeps_its_field_until_the_next_poll_and_no_other_field_comes_on():
    # The verdict first: the field of the pad whose card was just reported goes off at the
    # start of the next poll, so the table judges the card before that exchange (issue 18).
    readers, clock, sc = table(n=4)
    sc.watch((2,))
    rounds(sc, clock, 1)
    on_at_poll = []
    for r in readers:
        r.poll = _noting(r, readers, on_at_poll)
    put(readers[2], "9D")
    ev = None
    while ev is None:
        clock.advance(10)
        sc.step()
        ev = sc.next_event()
    assert ev[0] == PLACED and ev[1] == 2
    assert [i for i in range(4) if readers[i].field] == [2]  # still on while the table judges
    for _ in range(8):
        clock.advance(10)
        sc.step()
        assert sum(1 for r in readers if r.field) == 0
    assert len(on_at_poll) > 8 and all(on == [] for on in on_at_poll)  # every poll: all off before


def _noting(r, readers, log):
    """r.poll, noting which fields are on as each poll begins."""
    poll = r.poll

    def noted(*args):
        log.append([i for i in range(len(readers)) if readers[i].field])
        return poll(*args)

    return noted


def test_polling_an_idle_table_allocates_nothing():
    readers, clock, sc = table(n=4)
    put(readers[1], "AS")
    rounds(sc, clock, 3)
    sc.events.clear()
    if MICROPYTHON:
        import micropython

        micropython.heap_lock()
        try:
            for _ in range(40):
                sc.step()
        finally:
            micropython.heap_unlock()
    else:
        for _ in range(40):
            sc.step()
    assert sc.events == []
    assert sc.polls[1] >= 13


def _until_event(sc, clock, polls, ms=10):
    """Poll one reader per step until an event; (event, clock at the event) or (None, None)."""
    for _ in range(polls):
        clock.advance(ms)
        sc.step()
        ev = sc.next_event()
        if ev is not None:
            return ev, clock.now
    return None, None


def test_a_debounced_card_is_confirmed_a_settle_time_later_not_a_cycle_later():
    # Eight readers, one polled per 10 ms step: a whole cycle is 80 ms.
    readers, clock, sc = table(n=8, settle_ms=20)
    rounds(sc, clock, 2)
    put(readers[5], "7S")
    ev, at = _until_event(sc, clock, 40)
    assert ev[0] == PLACED and ev[3] == "7S"
    assert at - ev[2] <= 30      # the second sighting came 20-30 ms after the first, not 80


def test_a_flicker_is_still_no_placement_with_the_quick_confirmation():
    readers, clock, sc = table(n=4, settle_ms=20)
    put(readers[2], "QD")
    readers[2].script = [True, False, True, False, False, True, False, True, False, False]
    seen = rounds(sc, clock, 2)
    assert readers[2].script == [] or len(readers[2].script) < 10   # it was polled meanwhile
    readers[2].card = None
    seen += rounds(sc, clock, 4)
    assert [e for e in seen if e[0] == PLACED] == []



def _order(readers, sc, clock, steps, ms=10):
    """The reader each of `steps` steps polled."""
    out = []
    for _ in range(steps):
        before = [r.polls for r in readers]
        clock.advance(ms)
        sc.step()
        out.append([i for i in range(len(readers)) if readers[i].polls != before[i]][0])
    return out


def test_focus_readers_are_polled_every_other_step_and_the_rest_in_turn():
    readers, clock, sc = table(n=8)
    sc.focus = (5,)  # the seat to play
    order = _order(readers, sc, clock, 64)
    assert order[1::2] == [5] * 32 or order[0::2] == [5] * 32
    for i in range(8):
        assert order.count(i) >= 4, (i, order)  # the round robin still reaches every reader
    sc.focus = (2, 6)  # two seats may play: they take turns in the focus slot
    order = _order(readers, sc, clock, 64)
    slots = order[1::2] if order[1] in (2, 6) else order[0::2]
    assert sorted(set(slots)) == [2, 6] and slots.count(2) == slots.count(6)
    sc.focus = ()
    assert sorted(_order(readers, sc, clock, 8)) == list(range(8))  # plain round robin again
    sc.focus = (3,)
    polls = readers[3].polls
    if MICROPYTHON:
        import micropython

        micropython.heap_lock()  # choosing the focus reader allocates nothing either
        try:
            for _ in range(20):
                sc.step()
        finally:
            micropython.heap_unlock()
    else:
        for _ in range(20):
            sc.step()
    assert readers[3].polls - polls >= 10


def _placed_after(readers, sc, clock, i, text):
    """Put a card on reader i just after its poll; ms until its placement is reported."""
    while True:
        before = readers[i].polls
        clock.advance(10)
        sc.step()
        if readers[i].polls != before:
            break
    put(readers[i], text)
    t0 = clock.now
    ev, at = _until_event(sc, clock, 100)
    assert ev[0] == PLACED and ev[1] == i and ev[3] == text
    return at - t0, at - ev[2]


def test_a_card_on_a_focus_reader_is_seen_within_a_poll_or_two_not_a_cycle():
    # Eight readers, one polled per 10 ms step: a whole cycle is 80 ms.
    readers, clock, sc = table(n=8, settle_ms=40)
    plain, confirm = _placed_after(readers, sc, clock, 5, "7S")
    assert plain >= 80 + 40  # a whole cycle for its reader's turn, then the settle time
    assert confirm >= 40  # off the focus: confirmed by a second sighting a settle time later
    readers[5].card = None
    assert kinds(rounds(sc, clock, 4)) == [(LIFTED, 5)]
    sc.watch((5,))
    fast, confirm = _placed_after(readers, sc, clock, 5, "8S")
    assert fast <= 20, fast  # seen and read at the next focus poll
    assert confirm == 0  # the READ in the sighting's poll is the confirmation: no settle wait
    assert readers[5].reads == 2


def test_a_new_focus_is_polled_at_the_next_step():
    readers, clock, sc = table(n=8)
    _order(readers, sc, clock, 5)
    for f in (6, 2, 7):
        sc.watch((f,))  # the turn passes: the seat to play's reader is polled first
        assert _order(readers, sc, clock, 1) == [f]
        _order(readers, sc, clock, 3)


def test_a_card_torn_from_a_focus_reader_mid_read_is_no_play():
    readers, clock, sc = table(n=4)
    sc.watch((2,))
    rounds(sc, clock, 1)
    put(readers[2], "9D")
    readers[2].tear = True  # the card leaves while the confirming READ runs
    events = rounds(sc, clock, 3)
    assert kinds(events) == [(TORN, 2)]
    put(readers[2], "9D")  # laid again and held: one placement
    events = rounds(sc, clock, 3)
    assert kinds(events) == [(PLACED, 2)] and events[0][3] == "9D"


def test_the_read_confirmation_can_be_switched_off():
    readers, clock, sc = table(n=8, settle_ms=40)
    sc.read_confirms = False
    sc.watch((5,))
    _, confirm = _placed_after(readers, sc, clock, 5, "8S")
    assert confirm >= 40


class CountingReader(SimReader):
    """A reader whose poll(2) counts the tags too, like the PN532 driver."""

    def __init__(self):
        SimReader.__init__(self)
        self.ntg = 0
        self.maxtg = []
        self.counted = 0

    def poll(self, maxtg=1):
        self.maxtg.append(maxtg)
        uid = SimReader.poll(self)
        self.ntg = 0 if uid is None else min(maxtg, 1 + (self.extra is not None))
        return uid

    def targets(self):
        self.counted += 1
        return SimReader.targets(self)


def test_the_watched_pad_counts_two_tags_in_its_poll_not_a_second_exchange():
    readers = [CountingReader() for _ in range(4)]
    clock = SimClock(1000)
    sc = Scanner(readers, clock)
    sc.start()
    sc.watch((1,))
    put(readers[1], "5H")
    readers[1].extra = (uid_for("6H"), "6H")
    events = rounds(sc, clock, 3)
    assert kinds(events) == [(TWO, 1)]
    assert readers[1].counted == 0 and set(readers[1].maxtg) == {2}
    assert set(readers[2].maxtg) == {1}  # the others poll for one tag
    put(readers[2], "7H")
    readers[2].extra = (uid_for("8H"), "8H")
    events = rounds(sc, clock, 4)
    assert kinds(events) == [(TWO, 2)] and readers[2].counted >= 1  # off the focus: targets()


# -- a card the table has read before is named by its UID, not read again ----------------------

def _lay(readers, sc, clock, i, text, uid=None):
    """Lay a tag on reader i until it is reported, then lift it; the placement's events."""
    readers[i].card = (uid_for(text) if uid is None else uid, text)
    events = rounds(sc, clock, 3)
    readers[i].card = None
    rounds(sc, clock, 4)
    return events


def test_a_card_laid_again_is_named_by_its_uid_without_a_read():
    readers, clock, sc = table(n=3)
    first = _lay(readers, sc, clock, 0, "AS")
    assert kinds(first) == [(PLACED, 0)] and readers[0].reads == 1
    again = _lay(readers, sc, clock, 0, "AS")  # the same pad
    assert kinds(again) == [(PLACED, 0)] and again[0][3:] == first[0][3:] == ("AS", uid_key_of("AS"))
    assert readers[0].reads == 1  # no READ: the text is the one read before
    sc.watch((2,))
    other = _lay(readers, sc, clock, 2, "AS")  # another pad, the seat to play's (its field kept on)
    assert kinds(other) == [(PLACED, 2)] and other[0][3:] == ("AS", uid_key_of("AS"))
    assert readers[2].reads == 0 and sc.named == 2 and sc.reads == 1
    new = _lay(readers, sc, clock, 2, "KD")  # a card not seen before is read
    assert kinds(new) == [(PLACED, 2)] and new[0][3] == "KD" and readers[2].reads == 1


def test_a_uid_whose_key_matches_a_known_one_is_read_not_misnamed():
    from cardtable.table.scanner import uid_key

    a = bytes((0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66))
    b = bytes((0x04, 0x11, 0x22, 0x33, 0x44, 0x56, 0x47))  # 31 more in one byte, 31 less in the next
    assert a != b and uid_key(a, 7) == uid_key(b, 7)
    readers, clock, sc = table(n=1)
    assert _lay(readers, sc, clock, 0, "AS", a)[0][3] == "AS"
    got = _lay(readers, sc, clock, 0, "KD", b)
    assert kinds(got) == [(PLACED, 0)] and got[0][3] == "KD" and readers[0].reads == 2
    assert _lay(readers, sc, clock, 0, "AS", a)[0][3] == "AS"  # (b took a's slot: a is read again)
    assert _lay(readers, sc, clock, 0, "AS", a)[0][3] == "AS" and readers[0].reads == 3


def test_a_tag_without_a_card_code_is_read_every_time_it_is_laid():
    readers, clock, sc = table(n=1)
    bank = b"\x08\x11\x22\x33"
    for k in range(2):
        got = _lay(readers, sc, clock, 0, None, bank)
        assert kinds(got) == [(UNKNOWN, 0)] and readers[0].reads == k + 1
    assert sc.named == 0


class _Ctl:
    """What remote.tag uses of the controller: three zones a, b, c on the scanner's readers."""

    def __init__(self, sc, clock):
        self.scanner = sc
        self.clock = clock
        self.enroll = None
        self.board = self
        self.zone_reader = {"a": 0, "b": 1, "c": 2}
        self.reader_zone = ("a", "b", "c")
        self.zone_led = {}
        self.feedback = self
        self.link = self
        self.sent = []

    def flash(self, led, what, now):
        pass

    def send(self, msg):
        self.sent.append(msg)


def test_a_tag_the_table_rewrites_is_read_again():
    from cardtable.table import remote

    readers, clock, sc = table(n=3)
    assert _lay(readers, sc, clock, 0, "AS")[0][3] == "AS"
    ctl = _Ctl(sc, clock)
    readers[1].card = (uid_for("AS"), "AS")  # the same tag on zone b, enrolled anew as the KS
    got = remote.tag(ctl, {"cmd": "tag", "id": 1, "zone": "b", "write": "KS"})
    assert got["text"] == "KS" and readers[1].card[1] == "KS", (got, ctl.sent)
    assert remote.tag(ctl, {"cmd": "tag", "id": 2, "done": True}) == {}
    readers[1].card = None
    rounds(sc, clock, 4)
    reads = sc.reads
    got = _lay(readers, sc, clock, 2, "KS", uid_for("AS"))
    assert kinds(got) == [(PLACED, 2)] and got[0][3] == "KS" and sc.reads == reads + 1
    got = _lay(readers, sc, clock, 0, "KS", uid_for("AS"))  # and then named by its new text
    assert got[0][3] == "KS" and sc.reads == reads + 1


def test_a_full_cache_replaces_the_oldest_tag_and_names_the_others_right():
    from cardtable.table.scanner import KNOWN_MAX

    readers, clock, sc = table(n=1)
    codes = ["X%d" % k for k in range(KNOWN_MAX + 1)]
    for c in codes:
        assert _lay(readers, sc, clock, 0, c)[0][3] == c
    assert sc.reads == KNOWN_MAX + 1 and sc.named == 0
    assert _lay(readers, sc, clock, 0, codes[1])[0][3] == codes[1] and sc.reads == KNOWN_MAX + 1
    assert _lay(readers, sc, clock, 0, codes[-1])[0][3] == codes[-1] and sc.reads == KNOWN_MAX + 1
    # the first took the last's place round robin: read again, and it takes the next slot (X1's)
    assert _lay(readers, sc, clock, 0, codes[0])[0][3] == codes[0] and sc.reads == KNOWN_MAX + 2
    assert _lay(readers, sc, clock, 0, codes[1])[0][3] == codes[1] and sc.reads == KNOWN_MAX + 3
    for c in codes[2:]:  # each read, and named right, whichever slot it finds
        assert _lay(readers, sc, clock, 0, c)[0][3] == c
    # (one tag more than the cache, laid in a cycle: each takes the slot of the next one due)
    assert sc.reads == 2 * KNOWN_MAX + 2
    assert _lay(readers, sc, clock, 0, codes[-1])[0][3] == codes[-1] and sc.reads == 2 * KNOWN_MAX + 2


def test_naming_a_known_card_allocates_nothing():
    from cardtable.table.scanner import uid_key

    readers, clock, sc = table(n=1)
    _lay(readers, sc, clock, 0, "QS")
    uid = bytearray(uid_for("QS"))
    n = len(uid)
    key = uid_key(uid, n)
    if MICROPYTHON:
        import micropython

        micropython.heap_lock()  # (an allocation raises MemoryError)
        try:
            k = uid_key(uid, n)
            kind = sc._name(0, readers[0], uid, n, k)
        finally:
            micropython.heap_unlock()
    else:
        k = uid_key(uid, n)
        kind = sc._name(0, readers[0], uid, n, k)
    assert k == key and kind == PLACED and sc._text == "QS" and readers[0].reads == 1
