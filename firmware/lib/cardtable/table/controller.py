"""The controller: the table's step() - poll, action, rules, feedback, journal, link.

``Controller(board, layout_name, hal)`` resumes the newest journaled game (or starts one for
the layout) and then does a little of everything on each ``step()``: poll the next reader,
turn zone, button and host inputs into actions, let the rules check and apply them, light
the zones, journal what was accepted and tell the host. A step never waits for anything.

How inputs become actions (zone roles and button meanings come from the board's layout):

- ``play s``: the card is seat s's play, ``(s, "play", card)``; in nonesuch a leader's
  two-suit card takes the suit last pressed on a ``suit`` button, and the Excuse laid on a
  play spot while the Excuse is due is that seat's ``excuse``.
- ``up`` (california-jacks, nonesuch): while a deal is due, the card laid there is the
  cut / up card and deals the hand; ``indicator`` (nexus): the two trump indicators, one
  after the other, deal the hand. Later cards there (e.g. the face-up stock) are ignored.
- ``kitty`` (fortyfives): while discarding, cards laid there are the discards of the seat
  to act; that seat's ``tap`` pad (or a ``confirm`` button) ends its discard (no cards:
  it keeps its hand). A Forty-Fives hand is dealt unseen as soon as a deal is due.
- ``parade 1`` (fairies): while dealing, player 2's Parade card deals the game; ``nexus``:
  a card shown there is the Nexus card the seat to act meditates on; ``sow``: the card
  is sown at the position selector (``at`` encoder, ``at up``/``at down`` buttons; in the
  double-ended variant position 0 meditates on the top, any other on the bottom).
  ``confirm`` meditates on a Nexus card the table already knows.
- ``foundation`` (nerts): a centre play by the card's owner, timed from the round start
  by its first sighting; ``left s``: at the round end, seat s lays its remaining nerts
  there and presses its ``nerts`` button to report the count. A ``nerts s`` button calls
  Nerts during play and starts a round while a deal is due.
- ``bid N``/``pass``/``trump X``/``suit X`` buttons act for the seat whose turn it is;
  ``undo`` takes back the last action; ``confirm`` (or a ``tap`` pad) after the game is
  over starts the next game of the same kind.
- The host types anything else (``act`` over the link).

A tag with no card code, or a code that is no card of this game, is a fault, not a play.
Two tags that say they are the same card are flagged (``duplicate``). The card last
accepted on a zone, lifted and put back, is not played twice.
"""
from cardtable import games, record
from cardtable import link as lk
from cardtable.compat import ticks_diff
from cardtable.hal import BUTTON, TURN
from cardtable.journal import Journal, JournalError
from cardtable.table import feedback as fb
from cardtable.table.scanner import DOWN, LIFTED, PLACED, UNKNOWN, UP, Scanner

FW = "0.1.0"
AUTO_DEAL = ("fortyfives",)  # hands the table never sees dealt: dealt unseen at once
_LOG_LINES = 4  # journal lines streamed per step
_SEAT_ROLES = ("play", "tap", "parade", "left")


class Controller:
    """One table: a board, a layout (the game it plays) and a Hal."""

    def __init__(self, board, layout_name, hal, journal=None, rules=None, budget=1,
                 place_polls=2, lift_polls=3, config=None, config_path="config.json", fw=FW):
        self.board = board
        self.hal = hal
        self.clock = hal.clock
        self.fw = fw
        self.budget = budget
        self.config = config if config is not None else {}
        self.config_path = config_path
        self.layout = board.layout(layout_name)
        self.scanner = Scanner(hal.readers, hal.clock, place_polls, lift_polls)
        self.feedback = fb.Feedback(hal.pixels, hal.buzzer)
        self.link = lk.Link(hal.serial)
        self.journal = journal if journal is not None else Journal(hal.storage)
        self.game = None
        self.steps = 0
        self.errors = 0
        self.t_boot = self.clock.ticks_ms()
        self._log = None
        self._clear_table()
        self.scanner.start()
        resumed = self.journal.resume()
        if resumed is not None and self._adopt(resumed[0]):
            pass
        else:
            err = self.journal.error
            self.new_game(self.layout.game, len(self.layout.seats), 0, rules, self.layout.name)
            if err:
                self._fault("journal", err)
        self.hello()
        self.refresh()
        self.send_state()

    # -- the loop -------------------------------------------------------------------------

    def step(self):
        """One pass: poll, inputs, one host command, feedback, watchdog. Returns quickly."""
        self.steps += 1
        sc = self.scanner
        sc.step(self.budget)
        ev = sc.next_event()
        while ev is not None:
            self._scan_event(ev)
            ev = sc.next_event()
        inputs = self.hal.inputs
        ev = inputs.next()
        while ev is not None:
            self._input(ev)
            ev = inputs.next()
        cmd = self.link.poll()
        if cmd is not None:
            self._command(cmd)
        if self._log is not None:
            self._log_step()
        g = self.game
        if g.dealing and not g.over and g.ID in AUTO_DEAL:
            self.play((None, "deal", {}), "auto")
        self.feedback.update(self.clock.ticks_ms())
        self.hal.wdt.feed()

    # -- games ----------------------------------------------------------------------------

    def new_game(self, name, seats=None, dealer=0, rules=None, layout=None):
        """Start a new game (and journal file); returns None or the reason it cannot."""
        lay = self._layout_for(name, seats, layout)
        if isinstance(lay, str):
            return lay
        try:
            g = games.load(name, seats=len(lay.seats), dealer=dealer, rules=rules)
        except ValueError as e:
            return str(e)
        self.layout = lay
        self.game = g
        self._clear_table()
        try:
            self.journal.start(record.header(g))
        except JournalError as e:
            self._fault("journal", str(e))
        self.refresh()
        return None

    def _layout_for(self, name, seats, layout):
        b = self.board
        if layout is not None:
            lay = b.layouts.get(layout)
            if lay is None:
                return "no layout %r on %s (layouts: %s)" % (layout, b.name, ", ".join(sorted(b.layouts)))
            if lay.game != name:
                return "layout %r is for %s, not %s" % (layout, lay.game, name)
        else:
            names = b.layouts_for(name)
            if not names:
                return "this table (%s) has no layout for %s (layouts: %s)" % (
                    b.name, name, ", ".join(sorted(b.layouts)))
            lay = None
            for n in names:
                if seats is None or len(b.layouts[n].seats) == seats:
                    lay = b.layouts[n]
                    break
            if lay is None:
                return "this table has no %d-seat layout for %s" % (seats, name)
        if seats is not None and seats != len(lay.seats):
            return "layout %r seats %d players, not %r" % (lay.name, len(lay.seats), seats)
        return lay

    def _adopt(self, g):
        """Take a game replayed from the journal, if this board has a layout for it."""
        lay = self._layout_for(g.ID, g.seats, self.layout.name if self.layout.game == g.ID else None)
        if isinstance(lay, str):
            return False
        self.layout = lay
        self.game = g
        if g.ID == "nerts":
            self.round_t0 = self.clock.ticks_ms() - getattr(g, "clock", 0)
        return True

    def _clear_table(self):
        n = len(self.layout.seats)
        self.zone_card = {}  # zone -> the card last accepted from it
        self.tags = {}  # card -> UID key of the tag that said it (duplicate check)
        self.lead_suit = -1  # nonesuch: the suit pressed for the next lead
        self.indicators = []  # nexus: trump indicators seen while dealing
        self.discards = []  # fortyfives: cards laid on the kitty by the seat discarding
        self.left = [[] for _ in range(n)]  # nerts: cards laid on each left zone
        self.at = 0  # fairies: the position selector
        self.round_t0 = self.clock.ticks_ms()

    # -- actions --------------------------------------------------------------------------

    def play(self, action, src, led=-1, zone=None):
        """Check and apply an action: (True, seq, events) or (False, reason, None)."""
        g = self.game
        reason = g.check(action)
        obj = self._encode(action)
        now = self.clock.ticks_ms()
        if reason:
            self.link.send({"type": "verdict", "action": obj, "seat": action[0],
                            "reason": reason, "from": src})
            self.feedback.flash(led, "rejected", now)
            self.feedback.sound("rejected", now)
            return False, reason, None
        events = g.apply(action)
        seq = None
        try:
            seq = self.journal.append(obj)
        except JournalError as e:
            self._fault("journal", str(e))
        if action[1] == "deal":
            self.zone_card = {}
            self.round_t0 = now
        elif zone is not None and len(action) > 2 and isinstance(action[2], int):
            self.zone_card[zone] = action[2]
        self.link.send({"type": "event", "seq": seq, "action": obj, "events": events, "from": src})
        self.feedback.flash(led, "accepted", now)
        if g.over:
            self.feedback.sound("over", now)
        self.refresh()
        self.send_state()
        return True, seq, events

    def undo(self, src):
        """Take back the last action: (True, undone record object) or (False, reason)."""
        g = self.game
        if not g.history:
            self._verdict(None, "nothing to undo", src)
            return False, "nothing to undo"
        last = g.history[-1]
        obj = self._encode(last)
        g.undo()
        try:
            self.journal.undo()
        except JournalError as e:
            self._fault("journal", str(e))
        self._log = None
        for z in list(self.zone_card):
            if len(last) > 2 and self.zone_card[z] == last[2]:
                del self.zone_card[z]
        self.link.send({"type": "event", "seq": self.journal.seq, "undone": obj, "events": [],
                        "from": src})
        self.refresh()
        self.send_state()
        return True, obj

    def _encode(self, action):
        try:
            return record.encode(self.game, action)
        except (ValueError, KeyError, TypeError, IndexError):
            return {"act": action[1], "seat": action[0]}

    def _verdict(self, action, reason, src, led=-1):
        now = self.clock.ticks_ms()
        self.link.send({"type": "verdict", "action": None if action is None else self._encode(action),
                        "seat": None if action is None else action[0], "reason": reason, "from": src})
        self.feedback.flash(led, "rejected", now)
        self.feedback.sound("rejected", now)

    def _turn(self):
        t = self.game.turn
        return t[0] if t else 0

    # -- zones ----------------------------------------------------------------------------

    def _scan_event(self, ev):
        kind, ri, t, text, key = ev
        zone = self.board.reader_zone[ri]
        led = self.board.zone_led.get(zone, -1)
        now = self.clock.ticks_ms()
        if kind == PLACED:
            self._placed(zone, led, text, key, t)
        elif kind == LIFTED:
            return
        elif kind == UNKNOWN:
            self.feedback.flash(led, "unknown", now)
            self.feedback.sound("unknown", now)
            self._fault("tag", "zone %s: a tag that is no card (%s)" % (zone, text), zone)
        elif kind == DOWN:
            self.feedback.set_fault(led, True)
            self.feedback.sound("fault", now)
            self._fault("reader", "zone %s: reader %d (%s) stopped answering: %s" % (
                zone, ri, self.board.reader_label(ri), text), zone)
        elif kind == UP:
            self.feedback.set_fault(led, False)
            self.link.send(lk.fault("reader", "zone %s: reader %d answers again" % (zone, ri),
                                    zone, True))

    def _placed(self, zone, led, text, key, t):
        role = self.layout.role(zone)
        if role is None:
            return  # this game does not use the zone
        r, seat = role
        src = "zone " + zone
        if r == "tap":
            self.confirm(seat, "tap " + zone, led)
            return
        g = self.game
        now = self.clock.ticks_ms()
        try:
            code = text.split(":")[0]
            card = g.deck.parse(code)
        except ValueError:
            self.feedback.flash(led, "unknown", now)
            self.feedback.sound("unknown", now)
            self._fault("tag", "zone %s: %r is no %s card" % (zone, text, g.ID), zone)
            return
        prev = self.tags.get(card)
        if prev is None:
            self.tags[card] = key
        elif prev != key:
            self.feedback.flash(led, "unknown", now)
            self._fault("duplicate", "zone %s: two tags say they are the %s" % (zone, g.card_code(card)), zone)
        if self.zone_card.get(zone) == card:
            return  # the card accepted here was lifted and put back
        action = self._zone_action(r, seat, card, t, led)
        if action is not None:
            self.play(action, src, led, zone)

    def _zone_action(self, r, seat, card, t, led):
        g = self.game
        gid = g.ID
        now = self.clock.ticks_ms()
        if r == "play":
            if gid == "nonesuch":
                if g.phase == "excuse" and g.card_code(card) == "X":
                    return (seat, "excuse")
                suit = None
                if g.phase == "play" and not g.trick and len(g.deck.suits(card)) > 1 and self.lead_suit >= 0:
                    suit = self.lead_suit
                self.lead_suit = -1
                return (seat, "play", card, suit)
            return (seat, "play", card)
        if r == "up":
            return (None, "deal", {"up": [card]}) if g.dealing else None
        if r == "indicator":
            if not g.dealing:
                return None
            if card not in self.indicators:
                self.indicators.append(card)
            if len(self.indicators) < 2:
                self.feedback.flash(led, "accepted", now)
                self.refresh()
                return None
            up = self.indicators[:2]
            self.indicators = []
            return (None, "deal", {"up": up})
        if r == "parade":
            if g.dealing and seat == 1:
                return (None, "deal", {"parade": [card]})
            return None
        if r == "nexus":
            return (self._turn(), "meditate", self._end(), card)
        if r == "sow":
            return (self._turn(), "sow", card, self.at)
        if r == "kitty":
            if g.phase != "discard":
                if g.dealing or g.phase in ("bid", "trump"):
                    return None
                return (self._turn(), "discard", (card,), None)  # the rules say why not
            if card not in self.discards:
                self.discards.append(card)
            self.feedback.flash(led, "accepted", now)
            self.refresh()
            return None
        if r == "foundation":
            from cardtable.cards import standard

            owner = standard.owner(card)
            dt = ticks_diff(t, self.round_t0)
            return (owner if owner >= 0 else 0, "center", card, dt if dt > 0 else 0)
        if r == "left":
            if getattr(g, "phase", "") == "count" and card not in self.left[seat]:
                self.left[seat].append(card)
                self.feedback.flash(led, "accepted", now)
                self.refresh()
            return None
        return None

    def _end(self):
        if self.game.rules.get("double_ended"):
            return "top" if self.at == 0 else "bottom"
        return None

    def confirm(self, seat, src, led=-1):
        """A tap pad (seat) or a confirm button (seat None): end what is pending."""
        g = self.game
        if g.over:
            self.new_game(g.ID, g.seats, 0, _changed_rules(g), self.layout.name)
            self.hello()
            self.send_state()
            return
        if g.ID == "fortyfives" and g.phase == "discard":
            turn = self._turn()
            if seat is not None and seat != turn:
                self._verdict((seat, "discard", (), None), g.not_your_turn(seat), src, led)
                return
            cards = tuple(self.discards)
            self.discards = []
            self.play((turn, "discard", cards, None), src, led)
            return
        if g.ID == "fairies" and not g.dealing:
            self.play((self._turn() if seat is None else seat, "meditate", self._end(), None), src, led)

    # -- buttons and encoders -------------------------------------------------------------

    def _input(self, ev):
        lay = self.layout
        name = ev[1]
        if ev[0] == TURN:
            meaning = lay.encoders.get(name)
            if meaning is not None and meaning[0] == "at":
                self._move_at(ev[2])
            return
        if ev[0] != BUTTON:
            return
        meaning = lay.button(name)
        if meaning is None:
            return
        verb, arg = meaning
        src = "button " + name
        led = self.board.button_led.get(name, -1)
        g = self.game
        if verb == "undo":
            self.undo(src)
        elif verb == "confirm":
            self.confirm(None, src, led)
        elif verb == "bid":
            self.play((self._turn(), "bid", arg), src, led)
        elif verb == "pass":
            self.play((self._turn(), "pass"), src, led)
        elif verb == "trump":
            self.play((self._turn(), "trump", g.deck.parse_suit(arg)), src, led)
        elif verb == "suit":
            suit = g.deck.parse_suit(arg)
            if g.phase == "trump":
                self.play((self._turn(), "trump", suit), src, led)
            else:
                self.lead_suit = suit
                self.feedback.flash(led, "accepted", self.clock.ticks_ms())
        elif verb == "at":
            self._move_at(-1 if arg == "up" else 1)
        elif verb == "nerts":
            if g.dealing:
                self.play((None, "deal", {}), src, led)
            elif g.phase == "count":
                self.play((arg, "left", len(self.left[arg])), src, led)
            else:
                dt = ticks_diff(self.clock.ticks_ms(), self.round_t0)
                self.play((arg, "nerts", dt if dt > 0 else 0), src, led)

    def _move_at(self, steps):
        top = len(getattr(self.game, "nexus", ()))
        at = self.at + steps
        self.at = 0 if at < 0 else top if at > top else at

    # -- feedback -------------------------------------------------------------------------

    def refresh(self):
        """Steady zone colours from the game state: whose turn, pending inputs, the winner."""
        f = self.feedback
        f.clear()
        g = self.game
        b = self.board
        roles = self.layout.roles
        turn = g.turn
        for zone in roles:
            r, seat = roles[zone]
            led = b.zone_led.get(zone, -1)
            if g.over:
                if seat is not None and g.winner is not None and g.team(seat) == g.winner:
                    f.steady(led, "winner")
            elif g.dealing:
                if r == "up" or r == "indicator" or r == "parade" and seat == 1:
                    f.steady(led, "pending" if self.indicators else "turn")
            elif r == "kitty" and self.discards:
                f.steady(led, "pending")
            elif r == "left" and self.left[seat]:
                f.steady(led, "pending")
            elif seat is not None and seat in turn and r in _SEAT_ROLES:
                f.steady(led, "turn")

    # -- the link -------------------------------------------------------------------------

    def hello(self):
        self.link.send({"type": "hello", "fw": self.fw, "proto": lk.PROTO, "board": self.board.name,
                        "layout": self.layout.name, "game": record.header(self.game),
                        "seq": self.journal.seq})

    def send_state(self):
        self.link.send({"type": "state", "seq": self.journal.seq, "view": self.game.view(None)})

    def _fault(self, kind, msg, zone=None):
        self.link.send(lk.fault(kind, msg, zone))

    def _command(self, cmd):
        if isinstance(cmd, lk.LinkError):
            self.link.send(lk.error(cmd.id, cmd.msg))
            return
        cid = cmd.get("id")
        try:
            answer = getattr(self, "_cmd_" + cmd["cmd"])(cmd)
        except Exception as e:  # noqa: BLE001 - a bad command must never stop the table
            self.errors += 1
            answer = "internal error: %s %s" % (type(e).__name__, e)
        if answer is None:
            return  # answered later (log)
        if isinstance(answer, str):
            self.link.send(lk.error(cid, answer))
        else:
            self.link.send(lk.ok(cid, answer))

    def _cmd_hello(self, cmd):
        self.hello()
        return {}

    def _cmd_new(self, cmd):
        name = cmd.get("game", self.game.ID)
        seats = cmd.get("seats")
        dealer = cmd.get("dealer", 0)
        rules = cmd.get("rules", {})
        layout = cmd.get("layout")
        if not isinstance(name, str):
            return "\"game\" must be a game id (%s)" % ", ".join(sorted(games.GAMES))
        if name not in games.GAMES:
            return "unknown game %r (games: %s)" % (name, ", ".join(sorted(games.GAMES)))
        if seats is not None and type(seats) is not int or type(dealer) is not int:
            return "\"seats\" and \"dealer\" must be whole numbers"
        if not isinstance(rules, dict):
            return "\"rules\" must be an object of rule options"
        if layout is not None and not isinstance(layout, str):
            return "\"layout\" must be a layout name"
        reason = self.new_game(name, seats, dealer, rules, layout)
        if reason:
            return reason
        self.hello()
        self.send_state()
        return {"game": record.header(self.game), "number": self.journal.number}

    def _cmd_act(self, cmd):
        obj = cmd.get("action")
        if not isinstance(obj, dict):
            return "\"action\" must be a record line, e.g. {\"seat\": 1, \"act\": \"bid\", \"bid\": 20}"
        try:
            action = record.decode(self.game, obj, 1)
        except record.RecordError as e:
            return e.message
        done, what, events = self.play(action, "host")
        if not done:
            return what
        return {"seq": what, "events": events}

    def _cmd_undo(self, cmd):
        done, what = self.undo("host")
        if not done:
            return what
        return {"action": what, "seq": self.journal.seq}

    def _cmd_state(self, cmd):
        return {"seq": self.journal.seq, "view": self.game.view(None)}

    def _cmd_log(self, cmd):
        if self._log is not None:
            return "a log is already being sent"
        n = cmd.get("game", self.journal.number)
        if type(n) is not int or n not in self.journal.numbers():
            return "no journal %r (games: %s)" % (n, ", ".join([str(k) for k in self.journal.numbers()]) or "none")
        try:
            rd = self.journal.reader(n)
        except OSError as e:
            return "cannot read journal %d: %s" % (n, e)
        self._log = [cmd.get("id"), rd, n, 0]
        return None

    def _log_step(self):
        cid, rd, n, count = self._log
        try:
            for _ in range(_LOG_LINES):
                line = rd.next()
                if line is None:
                    rd.close()
                    self._log = None
                    self.link.send(lk.ok(cid, {"game": n, "lines": count}))
                    return
                self.link.send({"type": "log", "id": cid, "game": n, "line": line[0]})
                count += 1
        except OSError as e:
            self._log = None
            self.link.send(lk.error(cid, "journal %d: %s" % (n, e)))
            return
        self._log[3] = count

    def _cmd_config(self, cmd):
        new = cmd.get("set")
        if new is not None:
            if not isinstance(new, dict):
                return "\"set\" must be an object, e.g. {\"layout\": \"fortyfives\"}"
            for k in new:
                if k not in ("board", "layout") or not isinstance(new[k], str):
                    return "config takes \"board\" and \"layout\" names"
            if "layout" in new and "board" not in new and new["layout"] not in self.board.layouts:
                return "no layout %r on %s" % (new["layout"], self.board.name)
            cfg = dict(self.config)
            cfg.update(new)
            try:
                save_config(self.hal.storage, cfg, self.config_path)
            except OSError as e:
                return "cannot save the config: %s" % e
            self.config = cfg
        lay = self.layout
        zones = {}
        for z in lay.roles:
            r, s = lay.roles[z]
            zones[z] = r if s is None else "%s %d" % (r, s)
        buttons = {}
        for name in lay.buttons:
            v, a = lay.buttons[name]
            buttons[name] = v if a is None else "%s %s" % (v, a)
        return {"board": self.board.name, "layout": lay.name, "game": lay.game,
                "layouts": sorted(self.board.layouts), "zones": zones, "buttons": buttons,
                "host_verbs": list(lay.host_verbs), "saved": self.config}

    def _cmd_games(self, cmd):
        out = []
        for n, size in self.journal.games():
            out.append({"number": n, "bytes": size, "current": n == self.journal.number})
        return {"games": out}

    def _cmd_health(self, cmd):
        readers = []
        for i in range(self.scanner.n):
            st = self.scanner.status(i)
            st["zone"] = self.board.reader_zone[i]
            readers.append(st)
        j = self.journal
        return {"readers": readers,
                "journal": {"number": j.number, "seq": j.seq, "bytes": j.size, "dropped": j.dropped,
                            "error": j.error},
                "flash_free": self.hal.storage.free(), "heap_free": self.hal.mem_free(),
                "uptime_ms": ticks_diff(self.clock.ticks_ms(), self.t_boot), "steps": self.steps,
                "link": {"sent": self.link.sent, "received": self.link.received,
                         "errors": self.link.errors}}


def _changed_rules(g):
    out = {}
    for k in g.rules:
        if g.rules[k] != g.OPTIONS[k]:
            out[k] = g.rules[k]
    return out


def load_config(storage, path="config.json"):
    """The board's config file as a dict ({} if it is missing or unreadable)."""
    import json

    try:
        f = storage.open(path, "rb")
    except OSError:
        return {}
    try:
        obj = json.loads(f.read().decode())
    except ValueError:
        obj = {}
    finally:
        f.close()
    return obj if isinstance(obj, dict) else {}


def save_config(storage, cfg, path="config.json"):
    """Write the config file through a temp file and a rename."""
    import json

    tmp = path + ".tmp"
    f = storage.open(tmp, "wb")
    try:
        f.write(json.dumps(cfg).encode())
        f.flush()
    finally:
        f.close()
    storage.rename(tmp, path)
