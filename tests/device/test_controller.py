"""The controller's step() on a simulated table: undo, discards, host acts, faults, verdicts,
LEDs, resume (whole games: test_controller_playouts.py)."""
import json

from support import stepped

from simtable import journal_lines, scratch, table


@stepped
def test_undo_takes_back_the_last_action_and_its_journal_line():
    from cardtable.journal import Journal

    t = yield from table("pico-i2c-4seat", "fortyfives")
    t.press("k1")  # seat 1 bids 20
    yield
    t.press("k4")  # seat 2 passes
    assert [a[1] for a in t.ctl.game.history] == ["deal", "bid", "pass"]
    yield
    t.ctl.layout.buttons["k0"] = ("undo", None)  # this board has no undo button: lend it one
    t.press("k0")
    assert [a[1] for a in t.ctl.game.history] == ["deal", "bid"]
    yield
    assert Journal(t.hal.storage).resume()[1] == 2
    assert t.ctl.game.turn == (2,)
    yield
    r = t.send({"cmd": "undo", "id": 4})  # seq: the journal's second undo line
    assert r == [{"type": "ok", "id": 4, "action": {"seat": 1, "act": "bid", "bid": 20}, "seq": 5}]
    assert t.ctl.game.turn == (1,)


@stepped
def test_a_host_waiting_at_the_first_step_sees_the_hand_the_table_dealt_by_itself():
    from simtable import Table, board, collect, loading, only_game

    yield from only_game("fortyfives")
    b = yield from board("pico-i2c-4seat")
    yield from loading()
    t = Table(b, "fortyfives")  # booted, not stepped yet: a host's hello is already waiting
    collect()
    yield
    t.hal.serial.feed(json.dumps({"cmd": "hello", "id": 1}) + "\n")
    t.run(1)
    hello = t.kinds("hello")
    assert hello and hello[-1]["seq"] == 1, hello  # the deal, journalled before the answer
    assert t.ctl.game.phase == "bid"


@stepped
def test_the_table_keeps_no_history_in_memory_and_undoes_from_its_journal():
    # As main.py builds it: the actions live in the journal on flash, and undo replays it.
    t = yield from table("pico-i2c-2seat", "california-jacks", history=False)
    t.put("c", "9S")
    for zone, code in (("s1", "KH"), ("s0", "QH"), ("s1", "2C")):
        t.put(zone, code)
        yield
    g = t.ctl.game
    assert g.history == [] and t.ctl.journal.seq == 4 and g.trick_winners == [1]
    before = json.dumps(g.dump())
    t.put("s0", "3C")
    assert t.ctl.game.trick_winners == [1, 0]
    yield
    r = t.send({"cmd": "undo", "id": 9})  # an undo line (6): nothing rewritten, nothing replayed
    assert r == [{"type": "ok", "id": 9, "action": {"seat": 0, "act": "play", "card": "3C"}, "seq": 6}]
    assert t.ctl._replay is None and t.ctl.journal.live == 4  # no replay under way
    g = t.ctl.game
    assert json.dumps(g.dump()) == before and g.history == [] and g.turn == (0,)
    yield
    t.put("s0", "3C")                     # played again after the undo: the same trick
    assert t.ctl.game.trick_winners == [1, 0] and t.ctl.journal.seq == 7
    for _ in range(5):                    # back to the deal, then nothing left to undo
        assert t.send({"cmd": "undo", "id": 10})[0]["type"] == "ok"
        yield
    assert t.ctl.game.dealing and t.ctl.journal.live == 0 and t.ctl.journal.seq == 12
    assert t.send({"cmd": "undo", "id": 11})[0]["type"] == "error"
    from cardtable.journal import Journal

    assert Journal(t.hal.storage).resume()[1] == 0  # the journal replays to the same place


@stepped
def test_fortyfives_discards_are_collected_until_the_seat_taps():
    from cardtable.table import feedback

    t = yield from table("pico-i2c-4seat", "fortyfives")
    for b in ("k1", "k4", "k4", "k4", "k7"):  # seat 1 bids 20, the rest pass; hearts
        t.press(b)
        yield
    g = t.ctl.game
    assert g.phase == "discard" and g.turn == (1,)
    yield
    t.put("c", "2C")
    t.put("c", "3C")
    yield
    t.run(100)
    yield
    assert len(g.history) == 6 and t.led("c") == feedback.COLOURS["pending"]
    t.tap(0)  # not seat 0's turn
    assert t.kinds("verdict")[-1]["reason"].startswith("not your turn")
    yield
    t.put("c", "4C")
    t.tap(1)
    yield
    assert g.history[-1] == (1, "discard", (1, 2, 3), None)
    assert g.turn == (2,)
    t.tap(2)  # seat 2 keeps its five cards
    assert g.history[-1] == (2, "discard", (), None) and g.turn == (3,)


@stepped
def test_host_act_fills_inputs_the_table_has_no_button_for():
    t = yield from table("pico-spi-4seat", "fortyfives")
    r = t.send({"cmd": "act", "id": 1, "action": {"seat": 1, "act": "bid", "bid": 25}})
    assert len(r) == 1 and r[0]["type"] == "ok" and r[0]["seq"] == 2
    assert r[0]["events"][0] == {"ev": "bid", "seat": 1, "bid": 25}
    r = t.send({"cmd": "act", "id": "x", "action": {"seat": 3, "act": "bid", "bid": 30}})
    assert r == [{"type": "error", "id": "x", "msg": "not your turn: seat 2 is to bid"}]
    assert t.kinds("verdict")[-1]["from"] == "host"
    r = t.send({"cmd": "act", "id": 2, "action": {"seat": 2, "act": "dance"}})
    assert r[0]["type"] == "error" and "unknown action 'dance'" in r[0]["msg"]


def dealt_caljacks(storage=None, rules=None):
    t = yield from table("pico-i2c-2seat", "california-jacks", storage=storage, rules=rules)
    t.put("c", "9S")
    return t


@stepped
def test_the_cut_card_deals_and_the_seat_to_play_is_lit():
    from cardtable.table import feedback

    t = yield from dealt_caljacks()
    g = t.ctl.game
    assert g.phase == "play" and g.trump == 3 and g.turn == (1,)
    assert t.led("s1") == feedback.COLOURS["turn"] and t.led("s0") == feedback.OFF
    assert t.state()["view"]["trump"] == "S"


@stepped
def test_a_card_held_on_a_zone_is_played_once():
    t = yield from dealt_caljacks()
    t.hal.place("s1", "KH")
    t.run(40)
    assert len(t.ctl.game.history) == 2 and t.kinds("verdict") == []


@stepped
def test_a_card_lifted_and_put_back_is_not_played_again():
    t = yield from dealt_caljacks()
    t.put("s1", "KH")
    t.put("s1", "KH")
    assert len(t.ctl.game.history) == 2 and t.kinds("verdict") == []


@stepped
def test_an_illegal_play_is_rejected_with_a_reason_red_light_and_buzzer():
    from cardtable.table import feedback

    t = yield from dealt_caljacks()
    t.put("s0", "KH")  # seat 1 is to play
    v = t.kinds("verdict")
    assert len(v) == 1 and v[0]["reason"] == "not your turn: seat 1 is to play"
    assert v[0]["action"] == {"seat": 0, "act": "play", "card": "KH"} and v[0]["from"] == "zone s0"
    assert len(t.ctl.game.history) == 1
    assert t.hal.buzzer.patterns[-1] == feedback.PATTERNS["rejected"]
    t.hal.place("s0", "QH")
    t.run(2)
    assert t.led("s0") == feedback.COLOURS["rejected"]


@stepped
def test_a_card_played_twice_is_refused_by_the_rules():
    t = yield from dealt_caljacks()
    t.put("s1", "KH")
    t.put("s0", "KH")
    v = t.kinds("verdict")
    assert len(v) == 1 and "already played" in v[0]["reason"]


@stepped
def test_an_unknown_tag_is_a_fault_not_a_play():
    from cardtable.table import feedback

    t = yield from dealt_caljacks()
    t.put("s1", None)  # a bank card
    t.put("s1", "hello")  # an NDEF text that is no card
    f = t.kinds("fault")
    assert [m["kind"] for m in f] == ["tag", "tag"] and f[0]["zone"] == "s1"
    assert "'hello'" in f[1]["msg"]
    assert len(t.ctl.game.history) == 1 and t.kinds("verdict") == []
    assert t.hal.buzzer.patterns[-1] == feedback.PATTERNS["unknown"]


@stepped
def test_a_tag_is_read_as_a_card_of_the_deck_on_the_table():
    # The table parses a tag's text once and keeps its card, for the deck of the game on the
    # table: a new game of another deck reads the same text with its own deck.
    t = yield from dealt_caljacks()
    t.put("s1", "KH")
    g = t.ctl.game
    assert g.history[-1][1] == "play" and g.card_code(g.history[-1][2]) == "KH"
    yield
    assert t.send({"cmd": "new", "game": "fairies", "id": 7})[0]["type"] == "ok"
    yield
    t.put("s1", "KH", uid=b"\x04\x07\x07\x07\x07\x07\x07")  # no Fairies card: no deal
    f = t.kinds("fault")
    assert f and f[-1]["kind"] == "tag" and "'KH' is no fairies card" in f[-1]["msg"], f
    assert t.ctl.game.dealing


@stepped
def test_two_tags_claiming_one_card_are_flagged():
    t = yield from dealt_caljacks()
    t.put("s1", "KH", uid=b"\x04\x01\x02\x03\x04\x05\x06")
    t.put("s0", "KH", uid=b"\x04\x09\x09\x09\x09\x09\x09")
    f = t.kinds("fault")
    assert len(f) == 1 and f[0]["kind"] == "duplicate" and "KH" in f[0]["msg"]


@stepped
def test_a_dead_reader_is_reported_and_the_game_goes_on():
    from cardtable.table import feedback

    t = yield from dealt_caljacks()
    t.hal.kill("t0")
    t.run(5)
    f = t.kinds("fault")
    assert len(f) == 1 and f[0]["kind"] == "reader" and f[0]["zone"] == "t0"
    assert t.led("t0") == feedback.COLOURS["fault"]
    t.put("s1", "KH")
    t.put("s0", "QH")
    assert len(t.ctl.game.history) == 3
    yield
    t.hal.revive("t0")
    for _ in range(6):  # 3 s: the dead reader is retried every 2 s
        t.run(50)
        yield
    f = t.kinds("fault")
    assert len(f) == 2 and f[1].get("cleared") is True
    assert t.led("t0") != feedback.COLOURS["fault"]


@stepped
def test_the_game_resumes_after_a_reboot_exactly_where_it_was():
    from cardtable import referee
    from cardtable.hal import FileStorage
    from cardtable.journal import Journal

    root, keep = scratch()
    store = FileStorage(root)
    t = yield from dealt_caljacks(storage=store)
    t.put("s1", "KH")
    t.put("s0", "QH")
    t.put("s0", "3C")  # rejected: not journaled
    before = t.ctl.game.view(None)
    t = None
    yield
    t2 = yield from table("pico-i2c-2seat", "california-jacks", storage=store)
    assert t2.ctl.game.view(None) == before
    hello = t2.kinds("hello")[0]
    assert hello["seq"] == 3 and hello["game"]["game"] == "california-jacks"
    t2.put(t2.zone("play", t2.ctl.game.turn[0]), "5D")
    assert len(t2.ctl.game.history) == 4 and Journal(store).resume()[1] == 4
    yield
    v = referee.referee(journal_lines(store))  # the journal is a record `cardtable referee` takes
    assert v["ok"] and v["scores"] == t2.ctl.game.scores
    assert keep is keep


@stepped
def test_an_undo_after_a_reboot_takes_back_the_play_from_the_boot_state_not_the_journal():
    from cardtable.hal import FileStorage

    root, keep = scratch()
    store = FileStorage(root)
    t = yield from table("pico-i2c-2seat", "california-jacks", storage=store, history=False)
    t.put("c", "9S")
    t.put("s1", "KH")
    t.put("s0", "QH")
    t = None
    yield
    t2 = yield from table("pico-i2c-2seat", "california-jacks", storage=store, history=False)
    ctl = t2.ctl
    g = ctl.game
    booted = json.dumps(g.dump())
    t2.put(t2.zone("play", ctl.game.turn[0]), "5D")
    assert ctl.journal.seq == 4 and json.dumps(ctl.game.dump()) != booted
    yield
    r = t2.send({"cmd": "undo", "id": 3})
    assert r[0]["type"] == "ok" and r[0]["action"]["card"] == "5D"
    # back to the state the boot resumed, in place: no replay of the journal (a new game)
    assert ctl._replay is None and ctl.game is g
    assert json.dumps(g.dump()) == booted
    assert keep is keep


@stepped
def test_a_played_pad_is_polled_seldom_until_its_seat_is_to_play_again():
    t = yield from dealt_caljacks()
    sc = t.ctl.scanner
    s0, s1 = t.ctl.board.zone_reader["s0"], t.ctl.board.zone_reader["s1"]
    assert sc.focus == (s1,) and s1 not in sc.rare
    t.hal.place("s1", "KH")  # its card stays on the pad: seat 0 is to play
    t.run(3)
    assert sc.focus == (s0,) and s1 in sc.rare and s0 not in sc.rare
    t.hal.place("s0", "QH")  # the trick is over: its winner leads
    t.run(3)
    lead, other = (s0, s1) if t.ctl.game.turn == (0,) else (s1, s0)
    assert sc.focus == (lead,) and lead not in sc.rare and other in sc.rare


@stepped
def test_a_finished_game_starts_again_with_a_tap():
    t = yield from dealt_caljacks(rules={"target": 1})
    g = t.ctl.game
    # finish the hand: the table knows no hand, so any card it has not seen elsewhere will do
    deck = list(range(52))
    while not g.over:
        seat = g.turn[0]
        i = 0
        while g.check((seat, "play", deck[i])):
            i += 1
        assert t.ctl.play((seat, "play", deck.pop(i)), "host")[0]
        t.listen()
        yield
    t.tap(0)
    assert t.ctl.game is not g and t.ctl.game.rules["target"] == 1
    assert t.ctl.journal.number == 2 and t.ctl.game.dealing


@stepped
def test_an_idle_table_steps_without_allocating():
    from support import MICROPYTHON

    t = yield from dealt_caljacks()
    t.hal.place("s1", "KH")  # a card lying still on a zone, as most of the time
    t.run(50)
    t.hal.serial.take()
    polls = t.ctl.scanner.polls[0]
    if MICROPYTHON:
        import micropython

        micropython.heap_lock()  # any allocation now raises MemoryError
    try:
        for _ in range(30):
            t.hal.clock.advance(10)
            t.ctl.step()
    finally:
        if MICROPYTHON:
            micropython.heap_unlock()
    out = t.hal.serial.take()
    assert t.ctl.scanner.polls[0] == polls + 30 and out == b"", (t.ctl.scanner.polls[0], polls, out)
    assert len(t.ctl.game.history) == 2



@stepped
def test_a_journal_that_cannot_be_written_is_a_fault_and_the_refereeing_goes_on():
    from cardtable.hw_sim import MemStorage
    from cardtable.table import feedback

    store = MemStorage()
    t = yield from dealt_caljacks(storage=store)
    store.fail_writes = True  # the flash fails (or is full) from now on
    events = t.events
    t.hal.place("s1", "KH")
    t.run(3)
    f = t.kinds("fault")
    assert len(f) == 1 and f[0]["kind"] == "journal" and "journal" in f[0]["msg"]
    assert t.led("s1") == feedback.COLOURS["fault"]  # accepted, but not recorded
    assert t.hal.buzzer.patterns[-1] == feedback.PATTERNS["fault"]
    assert t.events == events + 1 and len(t.ctl.game.history) == 2  # the play stands
    t.hal.lift("s1")
    t.run(10)
    t.put("s1", "QH")  # seat 0 is to play: still refereed
    v = t.kinds("verdict")
    assert len(v) == 1 and v[0]["reason"] == "not your turn: seat 0 is to play"
    t.put("s0", "2H")
    assert len(t.kinds("fault")) == 2 and t.events == events + 2 and len(t.ctl.game.history) == 3
