"""Issue 18's latency levers, as behaviour: the verdict LED comes on check()'s answer, before
scoring, the verdict message and the journal; each action is checked once; the seat to play's
reader is polled first; a Nerts table polls its foundations, not its idle pads; a Nerts race
goes to the earlier play (the long-round undo: test_undo_long.py)."""
import json

from support import stepped

from simtable import table


def _spy(obj, name, log, what):
    """Wrap obj.name so each call first logs what() (the instance attribute shadows the method)."""
    orig = getattr(obj, name)

    def spy(*a):
        log.append(what())
        return orig(*a)

    setattr(obj, name, spy)


@stepped
def test_the_led_shows_the_verdict_before_scoring_the_message_and_the_journal():
    from cardtable.table import feedback

    t = yield from table("pico-i2c-2seat", "california-jacks", history=False)
    t.put("c", "9S")  # the up card deals (hands unseen)
    ctl = t.ctl
    g = ctl.game
    log = []
    _spy(g, "_apply", log, lambda: ("apply", t.led("s1")))
    _spy(ctl.journal, "append", log, lambda: ("journal", t.led("s1")))
    _spy(g, "_check", log, lambda: ("check", None))
    yield
    t.put("s1", "KH")
    ok = feedback.COLOURS["accepted"]
    assert log == [("check", None), ("apply", ok), ("journal", ok)], log  # checked once
    assert len(g.trick) == 1  # the king of hearts is on the table
    yield
    log[:] = []
    sent = []
    _spy(ctl.link, "send", sent, lambda: t.led("s1"))
    t.put("s1", "2C")  # not seat 1's turn: refused
    bad = feedback.COLOURS["rejected"]
    assert sent and sent[0] == bad, sent  # red before the verdict message leaves
    assert log == [], log  # a play refused by the turn check never reaches the game's own checks
    assert t.kinds("verdict")[-1]["reason"].startswith("not your turn")


@stepped
def test_the_seat_to_play_is_polled_first():
    t = yield from table("pico-i2c-2seat", "california-jacks", budget=1)
    b = t.board
    t.hal.place("c", "9S")
    t.run(30)  # one reader per step: a whole lap and the debounce
    assert not t.ctl.game.dealing
    yield
    for zone, code, nxt in (("s1", "KH", "s0"), ("s0", "QH", "s1")):
        t.hal.place(zone, code)
        seq = t.ctl.journal.seq
        for _ in range(30):  # one reader per step, until the play is made
            t.run(1)
            if t.ctl.journal.seq != seq:
                break
        assert t.ctl.journal.seq == seq + 1 and not t.kinds("verdict"), t.kinds("verdict")
        t.hal.lift(zone)
        r = b.zone_reader[nxt]
        assert t.ctl.scanner.focus == (r,)
        rd = t.hal.readers[r]
        before = rd.polls
        t.run(1)
        assert rd.polls == before + 1, "the next seat's reader is the first polled"
        t.run(8)
        yield


@stepped
def test_a_nerts_table_polls_its_foundations_not_its_idle_left_pads():
    t = yield from table("pico-nerts-6", "nerts", budget=1)
    t.press("n0")  # the round starts
    b = t.board
    lay = t.ctl.layout
    found = [b.zone_reader[z] for z in lay.roles if lay.roles[z][0] == "foundation"]
    left = [b.zone_reader[z] for z in lay.roles if lay.roles[z][0] == "left"]
    before = [r.polls for r in t.hal.readers]
    for _ in range(12):
        t.run(20)
        yield
    polls = [t.hal.readers[i].polls - before[i] for i in range(len(before))]
    assert min(polls[i] for i in found) >= 4 * max(polls[i] for i in left), polls
    assert min(polls[i] for i in left) >= 1  # still polled, seldom
    yield
    t.press("n3")  # Nerts is called: the left pads take cards now
    before = [r.polls for r in t.hal.readers]
    for _ in range(6):
        t.run(20)
        yield
    polls = [t.hal.readers[i].polls - before[i] for i in range(len(before))]
    assert min(polls[i] for i in left) >= 8, polls


@stepped
def test_a_nerts_race_goes_to_the_earlier_play_even_when_it_is_read_second():
    from cardtable.table.scanner import PLACED

    t = yield from table("pico-nerts-6", "nerts")
    ctl = t.ctl
    g = ctl.game
    t.press("n0")
    t0 = ctl.round_t0
    b = t.board
    yield
    # (a step between reads: this port collects only between steps, a Pico when it must)
    ctl._scan_event((PLACED, b.zone_reader["f0"], t0 + 1000, "AS#0", 11))
    assert [len(p) for p in g.piles] == [1]
    yield
    # Will (seat 1) and Bob (seat 2) both play the two of spades, 40 ms apart; the table reads
    # Will's (the later) first.
    ctl._scan_event((PLACED, b.zone_reader["f2"], t0 + 2040, "2S#1", 21))
    assert g.piles[0][-1][0] == g.deck.parse("2S#1")
    yield
    ctl._scan_event((PLACED, b.zone_reader["f4"], t0 + 2000, "2S#2", 22))
    assert g.piles[0][-1] == (g.deck.parse("2S#2"), 2000), g.piles  # the first to play counts
    assert len(g.piles[0]) == 2 and g.centre[1] == 0 and g.centre[2] == 1
    yield
    # ... and the other way round: the earlier one read first keeps its place
    ctl._scan_event((PLACED, b.zone_reader["f1"], t0 + 3000, "3S#0", 31))
    yield
    ctl._scan_event((PLACED, b.zone_reader["f3"], t0 + 3040, "3S#1", 32))
    assert g.piles[0][-1] == (g.deck.parse("3S#0"), 3000)
    t.listen()
    assert "too late" in t.kinds("verdict")[-1]["reason"]


@stepped
def test_a_journal_flush_waits_while_another_card_is_being_read():
    from cardtable.table import feedback

    t = yield from table("pico-nerts-6", "nerts")
    ctl = t.ctl
    t.press("n0")
    yield
    ok = feedback.COLOURS["accepted"]
    log = []
    _spy(ctl.journal, "append", log, lambda: (t.led("f1"), t.led("f4")))
    seq = ctl.journal.seq
    ev = t.events
    t.hal.place("f1", "AS#1")
    t.run(1)  # seen once: being confirmed (every reader is polled every step here)
    t.hal.place("f4", "AH#4")
    t.run(1)  # the ace of spades confirmed and refereed; the ace of hearts seen once
    assert ctl.scanner.busy()
    assert t.led("f1") == ok and ctl.journal.seq == seq, "the ace of spades' verdict, not yet journaled"
    assert t.events == ev  # the host hears of it once it is on flash
    for _ in range(8):
        t.run(1)
    assert ctl.journal.seq == seq + 2 and len(log) == 2
    assert log[0] == (ok, ok), log  # both verdicts were shown before the first flush
    assert [a[2] for a in ctl.game.history[-2:]] == [ctl.game.deck.parse("AS#1"), ctl.game.deck.parse("AH#4")]
