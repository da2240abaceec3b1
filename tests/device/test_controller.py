"""The controller's step(): whole games played through zones, buttons and taps on a simulated
table, checked against a shadow game that knows every card; faults, verdicts, LEDs, resume."""
import json

from support import stepped

from cardtable import games, record, referee
from cardtable.hw_sim import MemStorage, SimHal, uid_for
from cardtable.journal import Journal
from cardtable.rng import Random
from cardtable.table import config, feedback
from cardtable.table.controller import Controller


def _boards_dir():
    try:
        return __file__.replace("\\", "/").rsplit("/", 1)[0] + "/../../firmware/boards"
    except NameError:
        return "firmware/boards"


BOARDS = _boards_dir()


class Table:
    """A simulated table and its controller; collects what the device says."""

    def __init__(self, board, layout, storage=None, rules=None):
        self.board = config.load_board(board, BOARDS)
        self.hal = SimHal(self.board, storage=storage)
        self.ctl = Controller(self.board, layout, self.hal, rules=rules,
                              budget=len(self.board.readers))
        self.said = []  # every message but state and event (those are counted)
        self.events = 0
        self.states = 0
        self.run(1)

    def run(self, n):
        for _ in range(n):
            self.hal.clock.advance(10)
            self.ctl.step()
            for line in self.hal.serial.lines():
                msg = json.loads(line)
                if msg["type"] == "event":
                    self.events += 1
                elif msg["type"] == "state":
                    self.states += 1
                else:
                    self.said.append(msg)

    def put(self, zone, code, uid=None):
        """Lay a card on a zone until it is read, then take it away."""
        self.hal.place(zone, code, uid)
        self.run(3)
        self.hal.lift(zone)
        self.run(4)

    def press(self, button):
        self.hal.press(button)
        self.run(1)

    def zone(self, role, seat=None):
        return self.ctl.layout.zone(role, seat)

    def button(self, meaning):
        for name, m in self.ctl.layout.buttons.items():
            if "%s %s" % m == meaning or m[0] == meaning and m[1] is None:
                return name
        return None

    def kinds(self, kind):
        return [m for m in self.said if m["type"] == kind]

    def led(self, zone):
        return self.hal.pixels.shown[self.board.zone_led[zone]]

    def send(self, obj):
        self.hal.serial.feed(json.dumps(obj) + "\n")
        self.run(2)
        return [m for m in self.said if m.get("id") == obj.get("id")]


def perform(t, shadow, a):
    """Do a shadow action at the table the way players would."""
    g = shadow
    verb = a[1]
    code = g.card_code
    if verb == "deal":
        if g.ID == "california-jacks":
            t.put(t.zone("up"), code(a[2]["stock"][0]))
        return  # fortyfives deals itself
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
        t.put(t.zone("tap", seat), "AS", uid=b"\x04\x70\x61\x70\x00\x00%c" % seat)
    else:
        raise AssertionError("no way to do %r at the table" % (a,))


def _deals(history):
    n = 0
    for a in history:
        if a[1] == "deal":
            n += 1
    return n


def _plays(history):
    return len(history) - _deals(history)


def play_out(t, name, seed, max_actions=3000):
    """Bots choose with full knowledge; the table sees only what players do. Yields per action."""
    shadow = games.load(name, seats=t.ctl.game.seats)
    auto = 1 if name == "fortyfives" else 0
    rng = Random(seed)
    n = 0
    while not shadow.over and n < max_actions:
        a = shadow.bot_action(rng)
        shadow.apply(a)
        perform(t, shadow, a)
        if a[1] == "deal":
            t.run(1)  # a Forty-Fives table deals itself when a hand ends
        assert _plays(t.ctl.game.history) == _plays(shadow.history), (a, t.said[-3:])
        assert _deals(t.ctl.game.history) - _deals(shadow.history) in (0, auto), (a, t.said[-3:])
        n += 1
        yield
    return shadow


def replayed_scores(store):
    game, n = Journal(store).resume()
    return game, n


@stepped
def test_a_whole_game_of_california_jacks_through_the_zones():
    t = Table("pico-i2c-2seat", "california-jacks")
    shadow = yield from play_out(t, "california-jacks", 11)
    g = t.ctl.game
    assert shadow.over and g.over
    assert g.scores == shadow.scores and g.winner == shadow.winner
    assert g.trick_winners == shadow.trick_winners
    assert t.kinds("verdict") == [] and t.kinds("fault") == []
    assert t.events == len(g.history)
    yield
    game, n = Journal(t.hal.storage).resume()
    assert n == len(g.history) and game.scores == g.scores and game.over
    yield
    lines = [ln for ln in bytes(t.hal.storage.files["games/0001.jsonl"]).decode().split("\n") if ln]
    yield
    v = referee.referee(lines)
    assert v["ok"] and v["scores"] == shadow.scores and v["winner"] == shadow.winner


@stepped
def test_a_whole_game_of_fortyfives_through_buttons_taps_and_zones():
    t = Table("pico-i2c-4seat", "fortyfives")
    shadow = yield from play_out(t, "fortyfives", 5)
    g = t.ctl.game
    assert shadow.over and g.over
    assert g.scores == shadow.scores and g.winner == shadow.winner
    assert t.kinds("verdict") == [] and t.kinds("fault") == []
    yield
    game, n = Journal(t.hal.storage).resume()
    assert n == len(g.history) and game.scores == shadow.scores and game.winner == shadow.winner
    t.run(100)  # the last flash fades
    assert t.led(t.zone("play", g.winner)) == feedback.COLOURS["winner"]
    assert t.led(t.zone("play", g.winner + 2)) == feedback.COLOURS["winner"]
    assert t.led(t.zone("play", 1 - g.winner)) == feedback.OFF
    assert len(g.history) > 100 and g.history.count((None, "deal", {})) >= 3


def dealt_caljacks(**kw):
    t = Table("pico-i2c-2seat", "california-jacks", **kw)
    t.put("c", "9S")
    return t


def test_the_cut_card_deals_and_the_seat_to_play_is_lit():
    t = dealt_caljacks()
    g = t.ctl.game
    assert g.phase == "play" and g.trump == 3 and g.turn == (1,)
    assert t.led("s1") == feedback.COLOURS["turn"] and t.led("s0") == feedback.OFF


def test_a_card_held_on_a_zone_is_played_once():
    t = dealt_caljacks()
    t.hal.place("s1", "KH")
    t.run(40)
    assert len(t.ctl.game.history) == 2 and t.kinds("verdict") == []


def test_a_card_lifted_and_put_back_is_not_played_again():
    t = dealt_caljacks()
    t.put("s1", "KH")
    t.put("s1", "KH")
    assert len(t.ctl.game.history) == 2 and t.kinds("verdict") == []


def test_an_illegal_play_is_rejected_with_a_reason_red_light_and_buzzer():
    t = dealt_caljacks()
    t.put("s0", "KH")  # seat 1 is to play
    v = t.kinds("verdict")
    assert len(v) == 1 and v[0]["reason"] == "not your turn: seat 1 is to play"
    assert v[0]["action"] == {"seat": 0, "act": "play", "card": "KH"} and v[0]["from"] == "zone s0"
    assert len(t.ctl.game.history) == 1
    assert t.hal.buzzer.patterns[-1] == feedback.PATTERNS["rejected"]
    t.hal.place("s0", "QH")
    t.run(2)
    assert t.led("s0") == feedback.COLOURS["rejected"]


def test_a_card_played_twice_is_refused_by_the_rules():
    t = dealt_caljacks()
    t.put("s1", "KH")
    t.put("s0", "KH", uid=uid_for("KH"))
    v = t.kinds("verdict")
    assert len(v) == 1 and "already played" in v[0]["reason"]


def test_an_unknown_tag_is_a_fault_not_a_play():
    t = dealt_caljacks()
    t.put("s1", None)  # a bank card
    t.put("s1", "hello")  # an NDEF text that is no card
    f = t.kinds("fault")
    assert [m["kind"] for m in f] == ["tag", "tag"] and f[0]["zone"] == "s1"
    assert "'hello'" in f[1]["msg"]
    assert len(t.ctl.game.history) == 1 and t.kinds("verdict") == []
    assert t.hal.buzzer.patterns[-1] == feedback.PATTERNS["unknown"]


def test_two_tags_claiming_one_card_are_flagged():
    t = dealt_caljacks()
    t.put("s1", "KH", uid=b"\x04\x01\x02\x03\x04\x05\x06")
    t.put("s0", "KH", uid=b"\x04\x09\x09\x09\x09\x09\x09")
    f = t.kinds("fault")
    assert len(f) == 1 and f[0]["kind"] == "duplicate" and "KH" in f[0]["msg"]


def test_a_dead_reader_is_reported_and_the_game_goes_on():
    t = dealt_caljacks()
    t.hal.kill("t0")
    t.run(5)
    f = t.kinds("fault")
    assert len(f) == 1 and f[0]["kind"] == "reader" and f[0]["zone"] == "t0"
    assert t.led("t0") == feedback.COLOURS["fault"]
    t.put("s1", "KH")
    t.put("s0", "QH")
    assert len(t.ctl.game.history) == 3
    t.hal.revive("t0")
    t.run(300)  # the dead reader is retried every 2 s
    f = t.kinds("fault")
    assert len(f) == 2 and f[1].get("cleared") is True
    assert t.led("t0") != feedback.COLOURS["fault"]


def test_the_game_resumes_after_a_reboot_exactly_where_it_was():
    store = MemStorage()
    t = dealt_caljacks(storage=store)
    t.put("s1", "KH")
    t.put("s0", "QH")
    t.put("s0", "3C")  # rejected: not journaled
    before = t.ctl.game.view(None)
    t2 = Table("pico-i2c-2seat", "california-jacks", storage=store)
    assert t2.ctl.game.view(None) == before
    hello = t2.kinds("hello")[0]
    assert hello["seq"] == 3 and hello["game"]["game"] == "california-jacks"
    t2.put(t2.zone("play", t2.ctl.game.turn[0]), "5D")
    assert len(t2.ctl.game.history) == 4 and Journal(store).resume()[1] == 4


def test_undo_button_takes_back_the_last_play_and_the_journal_line():
    t = Table("pico-i2c-4seat", "fortyfives")
    t.press("k1")  # seat 1 bids 20
    t.press("k4")  # seat 2 passes
    assert [a[1] for a in t.ctl.game.history] == ["deal", "bid", "pass"]
    t.ctl.layout.buttons["k0"] = ("undo", None)  # this board has no undo button: lend one
    t.press("k0")
    assert [a[1] for a in t.ctl.game.history] == ["deal", "bid"]
    assert Journal(t.hal.storage).resume()[1] == 2
    assert t.ctl.game.turn == (2,)


def test_fortyfives_discards_are_collected_until_the_seat_taps():
    t = Table("pico-i2c-4seat", "fortyfives")
    for b in ("k1", "k4", "k4", "k4"):  # seat 1 bids 20, the rest pass
        t.press(b)
    t.press("k7")  # hearts
    g = t.ctl.game
    assert g.phase == "discard" and g.turn == (1,)
    t.put("c", "2C")
    t.put("c", "3C")
    t.run(100)
    assert len(g.history) == 6 and t.led("c") == feedback.COLOURS["pending"]
    t.put("t0", "AS", uid=b"\x04\x70\x61\x70\x00\x00\x00")  # seat 0's tap: not its turn
    assert t.kinds("verdict")[-1]["reason"].startswith("not your turn")
    t.put("c", "4C")
    t.put("t1", "AS", uid=b"\x04\x70\x61\x70\x00\x00\x01")
    assert g.history[-1] == (1, "discard", (0 * 13 + 1, 0 * 13 + 2, 0 * 13 + 3), None)
    assert g.turn == (2,)


def test_host_act_fills_inputs_the_table_has_no_button_for():
    t = Table("pico-spi-4seat", "fortyfives")
    r = t.send({"cmd": "act", "id": 1, "action": {"seat": 1, "act": "bid", "bid": 25}})
    assert len(r) == 1 and r[0]["type"] == "ok" and r[0]["seq"] == 2
    assert r[0]["events"][0] == {"ev": "bid", "seat": 1, "bid": 25}
    r = t.send({"cmd": "act", "id": "x", "action": {"seat": 3, "act": "bid", "bid": 30}})
    assert r == [{"type": "error", "id": "x", "msg": "not your turn: seat 2 is to play"}]
    assert t.kinds("verdict")[-1]["from"] == "host"
    r = t.send({"cmd": "act", "id": 2, "action": {"seat": 2, "act": "dance"}})
    assert r[0]["type"] == "error" and "unknown action 'dance'" in r[0]["msg"]


def test_a_finished_game_starts_again_with_a_tap():
    t = dealt_caljacks(rules={"target": 1})
    g = t.ctl.game
    # finish the hand: the table knows no hand, so any card it has not seen elsewhere will do
    deck = list(range(52))
    while not g.over:
        seat = g.turn[0]
        i = 0
        while g.check((seat, "play", deck[i])):
            i += 1
        assert t.ctl.play((seat, "play", deck.pop(i)), "host")[0]
    assert g.over
    t.put("t0", "AS", uid=b"\x04\x70\x61\x70\x00\x00\x00")
    assert t.ctl.game is not g and t.ctl.game.rules["target"] == 1
    assert t.ctl.journal.number == 2 and t.ctl.game.dealing
