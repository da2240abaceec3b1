"""The controller: the table's step() - poll, action, rules, feedback, journal, link."""
# (Notes as comments, not a docstring: compiled from source on the board, a long docstring
# takes a block of heap as big as itself.)
#
# ``Controller(board, layout_name, hal)`` resumes the newest journaled game (or starts one for
# the layout; stepwise=True, as main.py builds it: a few journal lines per step(), so a game
# of any length comes back in a small heap) and then does a little of everything on each
# ``step()``: poll the next reader, turn zone, button and host inputs into actions, let the
# rules check and apply them, light the zones, journal what was accepted and tell the host
# (in the game's public form: what a spectator may see). A step never waits for anything.
#
# How inputs become actions (zone roles and button meanings come from the board's layout):
#
# - ``play s``: the card is seat s's play, ``(s, "play", card)``; in nonesuch a leader's
#   two-suit card takes the suit last pressed on a ``suit`` button, and the Excuse laid on a
#   play spot while the Excuse is due is that seat's ``excuse``.
# - ``up`` (california-jacks, nonesuch): while a deal is due, the card laid there is the
#   cut / up card and deals the hand; ``indicator`` (nexus): the two trump indicators, one
#   after the other, deal the hand. Later cards there (e.g. the face-up stock) are ignored.
# - ``kitty`` (fortyfives): while discarding, cards laid there are the discards of the seat
#   to act; that seat's ``tap`` pad (or a ``confirm`` button) ends its discard (no cards:
#   it keeps its hand). A Forty-Fives hand is dealt unseen as soon as a deal is due.
# - ``parade 1`` (fairies): while dealing, player 2's Parade card deals the game; ``nexus``:
#   a card shown there is the Nexus card the seat to act meditates on; ``sow``: the card
#   is sown at the position selector (``at`` encoder, ``at up``/``at down`` buttons; in the
#   double-ended variant position 0 meditates on the top, any other on the bottom).
#   ``confirm`` meditates on a Nexus card the table already knows.
# - ``foundation`` (nerts): a centre play by the card's owner, timed from the round start
#   by its first sighting; ``left s``: at the round end, seat s lays its remaining nerts
#   there and presses its ``nerts`` button to report the count. A ``nerts s`` button calls
#   Nerts during play and starts a round while a deal is due.
# - ``bid N``/``pass``/``trump X``/``suit X`` buttons act for the seat whose turn it is;
#   ``undo`` takes back the last action; ``confirm`` (or a ``tap`` pad) after the game is
#   over starts the next game of the same kind.
# - A finished team game (Forty-Fives) first asks both teams to confirm its result, as a
#   bridge scoring terminal does: ``agree T``/``dispute T`` buttons, or a tap on a partner's
#   ``tap`` pad (agree); the tap pads show each team's answer (asked, agreed, disputed) and
#   the link tells it (``agree``). Once both have answered, a tap (or ``confirm``) starts the
#   next game; before that ``confirm`` is refused. An undo of the game's last action voids
#   the answers: the teams are asked again when it is over again.
# - While the game goes on, a team's ``agree T``/``dispute T`` button is its consent to (or
#   refusal of) an undo the host may hold for it: the link tells the host (``consent``).
# - ``say s`` (the trick games): seat s asks to hear its hand and the trick; the link tells the
#   host (``say``, no card), which says them (serve/speech.py).
# - The host types anything else (``act`` over the link).
#
# - ``deal`` (any trick game, fairies): a deal pad. While a deal is due every card dealt across
#   it is the next card of the game's DEAL_PATTERN (table/dealpad.py); the last one deals the
#   hand with every pile known, so each illegal play is refused the moment it is laid. A card
#   read twice, a card of another deck or a deal ended short (confirm) is a misdeal. Until a
#   card crosses the pad the up/indicator/parade zones deal as before (hands unseen); a
#   Forty-Fives layout with a deal pad is not dealt unseen by itself.
#
# A tag with no card code, or a code that is no card of this game, is a fault, not a play.
# Two tags that say they are the same card are flagged (``duplicate``). The card last
# accepted on a zone, lifted and put back, is not played twice.
from cardtable import games, record
from cardtable import link as lk
from cardtable.compat import ticks_add, ticks_diff
from cardtable.journal import Journal, JournalError
from cardtable.table import feedback as fb
from cardtable.table import commands, inputs
from cardtable.table.commands import load_config, save_config  # noqa: F401
from cardtable.table.scanner import DOWN, LIFTED, PLACED, TORN, TWO, UNKNOWN, UP, Scanner

from cardtable.version import BUILD, VERSION as FW

_SEAT_ROLES = ("play", "tap", "parade", "left")
_ANSWER = ("turn", "accepted", "rejected")  # a team's tap pads after the game: asked, agreed, disputed
REPLAY_LINES = 4  # journal lines replayed per step when stepwise
COMMIT_WAIT_MS = 250  # the longest a zone play's journal line waits for the readers to be quiet
QUIET_MS = 60  # ... and, in a timed game, for no play to have come for this long
SINCE_MAX = 8  # actions after a checkpoint: then a new one (an undo applies again fewer than this)


def _irq_lines(readers):
    """True if a reader has its IRQ line wired (the board file's "irq"; fakes have none)."""
    for r in readers:
        if getattr(r, "irq", None) is not None:
            return True
    return False


class Controller:
    """One table: a board, a layout (the game it plays) and a Hal."""
    # The doors of the helpers (table/inputs, commands, remote, dealpad): play, undo, confirm,
    # new_game, refresh, hello, send_state, state, verdict, fault, encode, seat_to_act; and the
    # attributes game, layout, board, clock, hal, feedback, link, journal, scanner, config,
    # enroll, streaming, the table's state (zone_card, tags, codes, dealt, deal_zone, round_t0,
    # agree) and the game's scratch (its reset_table). Names with an underscore are the
    # controller's own.

    def __init__(self, board, layout_name, hal, journal=None, rules=None, budget=1,
                 place_polls=2, lift_polls=3, config=None, config_path="config.json", fw=FW,
                 history=False, stepwise=False):
        # history: keep the game's actions in memory too. The table does not: the journal on
        # flash has them, and undo replays it, so a long game does not grow the heap.
        self.history = history
        self.board = board
        self.hal = hal
        self.clock = hal.clock
        self.fw = fw
        self.budget = budget
        self.config = config if config is not None else {}
        self.config_path = config_path
        self.layout = board.layout(layout_name)
        self.scanner = Scanner(hal.readers, hal.clock, place_polls, lift_polls)
        if _irq_lines(hal.readers):  # readers that wait for their card, taken at their IRQ edge
            from cardtable.table.irqwait import IrqWait

            self.scanner.waiter = IrqWait(self.scanner, hal)
        self.feedback = fb.Feedback(hal.pixels, hal.buzzer)
        self.link = lk.Link(hal.serial)
        self.journal = journal if journal is not None else Journal(hal.storage)
        self.journal.history = history
        self.game = None
        self.steps = 0
        self.errors = 0
        self.t_boot = self.clock.ticks_ms()
        self.streaming = None  # a log command sending a journal (commands.log_step continues it)
        self.enroll = None  # a zone being enrolled through (the tag command): no plays
        self.bringup = False  # the bringup command: buttons and encoders are reported, not played
        self._replay = None  # [journal replay generator, the undo it is for (None: the boot)]
        # Undo without replaying the game: the state before the last deal, and the actions since.
        self._ckpt = None
        self._since = None
        # Zone plays refereed in this step whose journal line and messages wait (see step())
        self._commits = []
        self._defer = False
        self._stale = False  # refresh() is due (play: another card waited at its edge)
        self.agree = bytearray(2)  # a finished team game: each team's answer (inputs.answer)
        self._clear_table()
        self.scanner.start()
        # The journal is replayed line by line, a few lines per step() when stepwise (the
        # board: the garbage of one step stays small, whatever the length of the game).
        self.stepwise = stepwise
        self._rules = rules
        self._replay_some(-1, None)

    def _replay_some(self, n, undo=0):
        """Replay up to n journal lines (n < 0: all); undo: start a replay (after that undo,
        None: at boot). At the end, take the game replayed and tell the host."""
        if undo != 0:
            self._replay = [self.journal.resuming(), undo]
            if self.stepwise:
                return
        r = self._replay
        try:
            while n != 0:
                n -= 1
                next(r[0])
        except StopIteration as done:
            self._replay = None
            if r[1] is None:
                self._booted(done.value)
            else:
                self._undone(done.value, r[1])
        except Exception:  # noqa: BLE001 - e.g. MemoryError: the next step starts it again
            r[0] = self.journal.resuming()
            raise

    def _booted(self, resumed):
        if resumed is not None and self._adopt(resumed[0]):
            self._reset_scratch()
            if not self.game.keep_history:
                # the resumed state is a checkpoint: an undo after a reboot replays the few
                # actions played since, not the journal
                self._checkpoint(self.game)
        else:
            err = self.journal.error
            rules = self._rules
            why = self.new_game(self.layout.game, len(self.layout.seats), 0, rules, self.layout.name)
            if why:  # rule options this game does not take: play it with its own rules
                self.new_game(self.layout.game, len(self.layout.seats), 0, None, self.layout.name)
                self.fault("error", "new game: %s" % why)
            if err:
                self.fault("journal", err)
        self._rules = None
        self.hello()
        for w in self.board.warnings:  # what the board checker advises against, e.g. no mux RESET
            self.fault("board", w)
        self.refresh()
        self.send_state()

    # -- the loop -------------------------------------------------------------------------

    def step(self):
        """One pass: poll, inputs, one host command, feedback, watchdog. Returns quickly."""
        self.steps += 1
        if self._replay is not None:  # nothing else until the game is back
            self._replay_some(REPLAY_LINES)
            self.hal.wdt.feed()
            return
        sc = self.scanner
        sc.step(self.budget)
        ev = sc.next_event()
        self._defer = True
        try:
            while ev is not None:
                self._scan_event(ev)
                ev = sc.next_event()
        finally:
            self._defer = False
        if self._stale and not sc.card_waiting():
            self.refresh()
        # A zone play's journal flush (a flash erase: 45-400 ms with the CPU stalled) and its
        # messages wait while another card is being confirmed: that card's verdict comes first.
        # In a timed game (a Nerts race) also until no play has come for QUIET_MS: the erase
        # runs with interrupts off, so the other card of a race would be timed at its end, not
        # at its IRQ edge, and judged after it (bench/README.md, Nerts races).
        c = self._commits
        if c and (not sc.busy() and (ticks_diff(self.clock.ticks_ms(), c[-1][4]) >= QUIET_MS or not getattr(self.game, "TIMED", 0))
                  or ticks_diff(self.clock.ticks_ms(), c[0][4]) >= COMMIT_WAIT_MS):
            self._commit()
        pins = self.hal.inputs
        ev = pins.next()
        while ev is not None:
            inputs.input_event(self, ev)
            ev = pins.next()
        # The table deals by itself before it answers the host: no command sees it about to.
        g = self.game
        if g.dealing and not g.over and getattr(g, "AUTO_DEAL", False) and self.deal_zone is None:
            self.play((None, "deal", {}), "auto")
        cmd = self.link.poll()
        if cmd is not None:
            commands.handle(self, cmd)
        if self.streaming is not None:
            commands.log_step(self)
        self.feedback.update(self.clock.ticks_ms())
        self.hal.wdt.feed()

    @property
    def replaying(self):
        """True while the journal is being replayed (at boot, after an undo)."""
        return self._replay is not None

    def busy(self):
        """True while the next steps have work to finish: a card being confirmed, a play's
        journal flush waiting, the journal being replayed."""
        return self._replay is not None or len(self._commits) > 0 or self.scanner.busy()

    # -- games ----------------------------------------------------------------------------

    def new_game(self, name, seats=None, dealer=0, rules=None, layout=None):
        """Start a new game (and journal file); returns None or the reason it cannot."""
        if self._commits:
            self._commit()
        lay = self._layout_for(name, seats, layout)
        if isinstance(lay, str):
            return lay
        try:
            g = games.load(name, seats=len(lay.seats), dealer=dealer, rules=rules)
        except ValueError as e:
            return str(e)
        g.keep_history = self.history
        self.layout = lay
        self.game = g
        self._ckpt = self._since = None
        self._clear_table()
        try:
            self.journal.start(record.header(g))
        except JournalError as e:
            self.fault("journal", str(e))
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
        if g is not self.game:
            self._ckpt = self._since = None
        self.game = g
        if getattr(g, "TIMED", False):  # the round goes on from the last time it judged
            self.round_t0 = ticks_add(self.clock.ticks_ms(), -getattr(g, "clock", 0))
        return True

    def _clear_table(self):
        # What a new game clears: the table's own state, then the scratch the game's inputs keep
        # (its reset_table, games/base.py).
        self.zone_card = {}  # zone -> the card last accepted from it
        self.tags = {}  # card -> UID key of the tag that said it (duplicate check)
        self.codes = (None, {})  # (deck, tag text -> its card): inputs._card parses a text once
        self.round_t0 = self.clock.ticks_ms()
        self.dealt = []  # cards dealt across the deal pad so far, in order
        self.deal_zone = None
        self.agree[0] = self.agree[1] = 0
        roles = self.layout.roles
        for z in roles:
            if roles[z][0] == "deal":
                self.deal_zone = z
        self._reset_scratch()

    def _reset_scratch(self):
        reset = getattr(self.game, "reset_table", None)
        if reset is not None:
            reset(self)

    # -- actions --------------------------------------------------------------------------

    def play(self, action, src, led=-1, zone=None):
        """Check and apply an action: (True, seq, events) or (False, reason, None)."""
        # The LED shows check()'s answer before anything else: before the verdict message,
        # the scoring (apply) and the journal's flush (a flash erase stalls the CPU 45-400 ms).
        # If the power fails before the flush, the card is still on its pad and is read again.
        if self._commits and not self._defer:
            self._commit()  # the journal keeps the order the rules saw
        g = self.game
        reason = g.check(action)
        now = self.clock.ticks_ms()
        fbk = self.feedback
        fbk.show_flash(led, "rejected" if reason else "accepted", now)  # that LED alone, at once
        obj = self.encode(action)
        if reason:
            fbk.sound("rejected", now)
            self.link.send({"type": "verdict", "action": g.public(obj), "seat": action[0],
                            "reason": g.public_reason(obj, reason), "from": src})
            return False, reason, None
        since = self._since
        if not g.keep_history and (action[1] == "deal" or since is not None and len(since) >= SINCE_MAX):
            # a checkpoint at each deal and every SINCE_MAX actions: an undo at the end of
            # the longest game replays at most SINCE_MAX actions, never the journal
            self._checkpoint(g)
        events = g._apply(action)  # checked once: apply() would check it again (+23-53 %)
        if g.keep_history:
            g.history.append(action)
        if self._since is not None:
            self._since.append(action)
        if action[1] == "deal":
            self.zone_card = {}
            self.round_t0 = now
        elif zone is not None and len(action) > 2 and isinstance(action[2], int):
            self.zone_card[zone] = action[2]
        if g.over:
            self.feedback.sound("over", now)
        if self.scanner.card_waiting():  # another card taken at its edge waits: its verdict
            self._stale = True  # before the table's colours (a Nerts race; step() refreshes)
        else:
            self.refresh()  # the focus moves to the next seat to play at once
        if self._defer:
            self._commits.append((obj, events, src, led, now))
            return True, None, events
        return True, self._record(obj, events, src, led, now), events

    # -- the one place an accepted action is journaled and told ---------------------------

    def _record(self, obj, events, src, led, now):
        # One accepted action's journal line (flushed), event and state report: its seq. The
        # host hears of an action only once it is on flash: a power cut before the flush
        # loses nothing the host was told (the card still lies on its pad and is read again).
        seq = None
        try:
            seq = self.journal.append(obj)
        except JournalError as e:
            # Refereed but not recorded (flash full or failing): the table says so and plays on.
            self.fault("journal", str(e))
            self.feedback.flash(led, "fault", now)
            self.feedback.sound("fault", now)
        # What leaves the table is what a spectator may see (the journal keeps it all).
        self.link.send({"type": "event", "seq": seq, "action": self.game.public(obj), "events": events,
                        "from": src})
        self.send_state()
        return seq

    def _commit(self):
        # Journal the zone plays refereed but not yet recorded (step() defers them while
        # another card is being confirmed), and tell the host.
        c = self._commits
        self._commits = []
        for obj, events, src, led, now in c:
            self._record(obj, events, src, led, now)

    def undo(self, src):
        """Take back the last action: (True, undone record object) or (False, reason)."""
        if self._commits:
            self._commit()
        g = self.game
        if not (g.history if g.keep_history else self.journal.live > 0):
            self.verdict(None, "nothing to undo", src)
            return False, "nothing to undo"
        if g.keep_history:
            last = g.history[-1]
            obj = self.encode(last)
            g.undo()
            try:
                self.journal.undo()
            except JournalError as e:
                self.fault("journal", str(e))
        elif self._since:
            return self._undo_to_checkpoint(src)
        else:
            # Append an undo line and replay the journal without what it took back: the state
            # the game had before that action, without holding every action in memory.
            try:
                obj = record.parse_line(self.journal.undo(), 0)
                del obj["seq"]
                last = record.decode(g, obj, 0)
            except (JournalError, ValueError, TypeError) as e:
                self.fault("journal", "cannot undo: %s" % e)
                self.verdict(None, "cannot undo: the journal is in trouble", src)
                return False, "cannot undo: the journal is in trouble"
            self._replay_some(-1, (obj, last, src))
            return True, g.public(obj)
        self._undone(None, (obj, last, src))
        return True, g.public(obj)

    def _checkpoint(self, g):
        # Before a deal (or every SINCE_MAX actions) is applied: keep the game's state; the
        # actions from there on follow. The old copy goes first: two never share the heap.
        from cardtable.table import checkpoint

        self._ckpt = self._since = None
        self._ckpt = checkpoint.take(g)
        self._since = []

    def _undo_to_checkpoint(self, src):
        # Back to the checkpoint, then the actions since but the last: fewer than SINCE_MAX,
        # and one undo line on flash.
        from cardtable.table import checkpoint

        g = self.game
        last = self._since.pop()
        obj = self.encode(last)
        try:
            self.journal.take_back()
        except JournalError as e:
            self.fault("journal", str(e))
        checkpoint.restore(g, self._ckpt, self._since)
        # (none left: the state is the checkpoint's, kept for the actions to come; the next
        # undo, of an action before it, replays the journal)
        self._undone((g, 0), (obj, last, src))
        return True, g.public(obj)

    def _undone(self, resumed, done):
        """After an undo (and the replay of the journal without it): tell the table."""
        obj, last, src = done
        journaled = not self.game.keep_history
        if journaled and (resumed is None or not self._adopt(resumed[0])):
            self.fault("journal", "cannot undo: the journal does not replay")
            return
        if journaled and self._since is None:
            self._checkpoint(self.game)  # replayed from the journal: the next undo need not
        self.streaming = None
        self.dealt = []
        for z in list(self.zone_card):
            if len(last) > 2 and self.zone_card[z] == last[2]:
                del self.zone_card[z]
        self.link.send({"type": "event", "seq": self.journal.seq, "undone": self.game.public(obj),
                        "events": [], "from": src})
        self.refresh()
        self.send_state()

    def encode(self, action):
        """The action's record object (a fallback naming act and seat if it does not encode)."""
        try:
            return record.encode(self.game, action)
        except (ValueError, KeyError, TypeError, IndexError):
            return {"act": action[1], "seat": action[0]}

    def verdict(self, action, reason, src, led=-1):
        """Refuse an action (None: a press with nothing to act on): LED, sound, verdict message."""
        now = self.clock.ticks_ms()
        self.feedback.flash(led, "rejected", now)
        self.feedback.update(now)
        self.feedback.sound("rejected", now)
        obj = None if action is None else self.encode(action)
        if obj is not None:
            reason = self.game.public_reason(obj, reason)
            obj = self.game.public(obj)
        self.link.send({"type": "verdict", "action": obj, "seat": None if action is None else action[0],
                        "reason": reason, "from": src})

    def confirm(self, seat, src, led=-1):
        """A tap pad (seat) or a confirm button (seat None): end what is pending."""
        inputs.confirm(self, seat, src, led)

    def seat_to_act(self):
        """The first seat whose turn it is (0 when none is)."""
        t = self.game.turn
        return t[0] if t else 0

    # -- zones ----------------------------------------------------------------------------

    def _scan_event(self, ev):
        kind, ri, t, text, key = ev
        zone = self.board.reader_zone[ri]
        led = self.board.zone_led.get(zone, -1)
        now = self.clock.ticks_ms()
        if self.enroll is not None and kind != DOWN and kind != UP and kind != LIFTED:
            return
        if kind == PLACED:
            inputs.placed(self, zone, led, text, key, t)
        elif kind == LIFTED:
            return
        elif kind == UNKNOWN:
            if zone == self.deal_zone and self.game.dealing:
                from cardtable.table import dealpad
                dealpad.misdeal(self, zone, led, "a tag that is no card (%s)" % text)
                return
            self.feedback.flash(led, "unknown", now)
            self.feedback.sound("unknown", now)
            self.fault("tag", "zone %s: a tag that is no card (%s)" % (zone, text), zone)
        elif kind == TWO:
            self.feedback.flash(led, "unknown", now)
            self.feedback.sound("unknown", now)
            self.fault("two_tags", "zone %s: two tags on one pad: nothing is played; "
                        "lay one card" % zone, zone)
        elif kind == TORN:
            self.feedback.flash(led, "misread", now)
            self.feedback.sound("misread", now)
            self.fault("torn", "zone %s: the card left before it was read: nothing is "
                        "played; lay it again" % zone, zone)
        elif kind == DOWN:
            self.feedback.set_fault(led, True)
            self.feedback.sound("fault", now)
            self.fault("reader", "zone %s: reader %d (%s) stopped answering: %s" % (
                zone, ri, self.board.reader_label(ri), text), zone)
        elif kind == UP:
            self.feedback.set_fault(led, False)
            self.fault("reader", "zone %s: reader %d answers again" % (zone, ri), zone, True)

    def refresh(self):
        """Steady zone colours from the game state: whose turn, pending inputs, the winner;
        the scanner's focus on the zones that take the next card (the deal, the seat to play)."""
        self._stale = False
        f = self.feedback
        f.clear()
        g = self.game
        b = self.board
        roles = self.layout.roles
        turn = g.turn
        focus = []
        rare = []
        counting = getattr(g, "phase", "") == "count"
        agree = self.agree
        if not g.over and (agree[0] or agree[1]):
            agree[0] = agree[1] = 0  # the end was undone: the teams are asked again at the next
        asking = g.over and getattr(g, "TEAMS", False)
        for zone in roles:
            r, seat = roles[zone]
            led = b.zone_led.get(zone, -1)
            if (r == "left" and not counting or r == "deal" and not g.dealing
                    or r == "play" and seat not in turn and self.scanner.present(b.zone_reader[zone])):
                # takes no card now (a play pad holds its seat's card of this trick): polled
                # seldom, so the seat to play's pad comes round sooner (issue 18)
                rare.append(b.zone_reader[zone])
            if g.over:
                if asking and r == "tap":  # asking the seat's team: waiting, agreed, disputed
                    f.steady(led, _ANSWER[agree[seat % 2]])
                elif seat is not None and g.winner is not None and g.team(seat) == g.winner:
                    f.steady(led, "winner")
            elif g.dealing:
                if r == "deal":
                    f.steady(led, "pending" if self.dealt else "turn")
                    focus.append(b.zone_reader[zone])
                elif (r == "up" or r == "indicator" or r == "parade" and seat == 1) and not self.dealt:
                    f.steady(led, "pending" if r == "indicator" and self.indicators else "turn")  # type: ignore[attr-defined]  # the game's reset_table declares it
                    focus.append(b.zone_reader[zone])
            elif r == "kitty" and self.discards:  # type: ignore[attr-defined]  # the game's reset_table declares it
                f.steady(led, "pending")
            elif r == "left" and self.left[seat]:  # type: ignore[attr-defined]  # the game's reset_table declares it
                f.steady(led, "pending")
            elif seat is not None and seat in turn and r in _SEAT_ROLES:
                f.steady(led, "turn")
                if r == "play":
                    focus.append(b.zone_reader[zone])
        focus.sort()
        focus = tuple(focus) if len(focus) <= 3 else ()  # many: none is favoured
        self.scanner.watch(focus)
        self.scanner.rare = tuple(rare)
        w = self.scanner.waiter
        if w is not None:  # the seat to play's pad, and a timed game's zones, wait by themselves
            w.choose(tuple(b.zone_reader[z] for z in roles if b.zone_reader[z] not in rare),
                     b.scan == "irq" and getattr(g, "TIMED", False) and not g.over,
                     () if g.over else focus)

    # -- the link -------------------------------------------------------------------------

    def hello(self):
        self.link.send({"type": "hello", "fw": self.fw, "build": BUILD, "proto": lk.PROTO,
                        "board": self.board.name,
                        "layout": self.layout.name, "game": record.header(self.game),
                        "seq": self.journal.seq})

    def send_state(self):
        self.link.send(self.state({"type": "state"}))

    def state(self, out, seat=None):
        """out with seq and the view of seat (None: a spectator's; and a finished team game's
        answers so far)."""
        g = self.game
        out["seq"] = self.journal.seq
        out["view"] = g.view(seat)
        if g.over and getattr(g, "TEAMS", False):
            out["agree"] = [self.agree[0], self.agree[1]]
        return out

    def fault(self, kind, msg, zone=None, cleared=False):
        """Tell the host of a fault (the LED shows it before the message leaves, as a verdict)."""
        self.feedback.update(self.clock.ticks_ms())
        self.link.send(lk.fault(kind, msg, zone, cleared))
