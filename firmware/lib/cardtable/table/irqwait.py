"""Readers that wait for their card by themselves, timed at their IRQ line's falling edge."""
# Two uses. The seat to play (issue 35): on any board, a focus reader (the play pad of the seat
# to play, see scanner.watch) that has an IRQ line waits for its card instead of being polled,
# and its card is taken at the edge: the next scanner step reads it (READ at once) and returns
# before polling anyone else, so the verdict's LED frame comes first. And a timed game (Nerts:
# "the first to play always counts") on a board with "scan": "irq": every zone that takes
# cards now waits so, and each play is timed at its edge.
# Each wanted reader (one with an IRQ line, on a zone that takes cards now) is armed: its
# PN532 runs InListPassiveTarget retried for ever with its field on (drivers/pn532_wait.py).
# When a card comes the PN532 answers and pulls its IRQ line low; the Pico's interrupt handler
# stores ticks_us() for that reader into a preallocated list (it allocates nothing), so the
# time of the play is when its reader saw the card, whatever order the loop reads them in.
# Each scanner step reads the answer of the card whose edge came first and that card (the READ
# confirms it, as on a focus reader), hands its event over and returns: its verdict comes
# before the next card is read (two cards of a race a few ms apart used to wait for each
# other's READ), and the next step takes the next card, timed at its own edge. A reader whose
# card was taken so is put back to bounded retries with its field off once no other card waits
# (until then its field stays on, as it was while it waited, as every armed reader's is). A
# reader whose card was read goes back to the round robin (field switched on per poll) until
# its card is lifted, then waits again; so does one that failed. Readers without an IRQ line
# are polled as before.
# An armed reader is never polled, so it is checked instead: in turn, each is aborted and armed
# again about every retry_ms (pn532_wait.disarm, arm). Those exchanges prove its PN532 answers;
# one that is gone (a cut cable, a hung PN532) fails there as a polled reader would and is
# reported down after fail_limit tries, not left waiting for a card that can never come. A card
# laid during a check is timed when the new wait finds it (a few ms late), not at its edge.
from cardtable.compat import ticks_add, ticks_diff
from cardtable.drivers import pn532_wait


class IrqWait:
    """The armed readers of one scanner; hal gives the IRQ hook and the microsecond clock."""

    def __init__(self, scanner, hal):
        n = scanner.n
        self.s = scanner
        self.clock = hal.clock
        self.us = hal.clock.ticks_us
        self.lines = [getattr(r, "irq", None) for r in scanner.readers]  # P70_IRQ pins
        self.want = ()  # readers to keep armed
        self.armed = bytearray(n)
        self.got = bytearray(n)  # 1: its line fell while it was armed
        self.edge = [0] * n  # ticks_us() of that edge
        self.arms = 0
        self.answers = 0
        self.checks = 0
        self._check_at = hal.clock.ticks_ms()
        self._checked = 0  # the next of `want` to check
        self._bound = bytearray(n)  # 1: its retries are bounded again at the next step
        for i in range(n):
            if self.lines[i] is not None:
                hal.on_falling(self.lines[i], self._handler(i))

    def _handler(self, i):
        w = self

        def irq(pin):
            # Two closed-over names: MicroPython calls a closure of more than five names and
            # arguments with a heap array, which a hard interrupt may not allocate.
            if w.armed[i] and not w.got[i]:
                w.edge[i] = w.us()
                w.got[i] = 1

        return irq

    def choose(self, readers, timed, focus=()):
        """Keep these readers (those with an IRQ line) armed while the game is timed, and the
        focus readers (the seat to play) with an IRQ line always; the others stop waiting."""
        lines = self.lines
        want = [i for i in readers if lines[i] is not None] if timed else []
        for i in focus:
            if lines[i] is not None and i not in want:
                want.append(i)
        want.sort()
        want = tuple(want)
        if want == self.want:
            return
        self.want = want
        for i in range(self.s.n):
            if self.armed[i] and i not in want:
                self.armed[i] = 0
                self.got[i] = 0
                try:
                    pn532_wait.disarm(self.s.readers[i])
                except OSError:
                    pass  # it is polled from now on: a dead reader shows there

    def rest(self):
        """Stop every armed reader waiting (before a reader is used outside the scanner: the
        tag command); the next service() arms those still wanted again."""
        s = self.s
        self._unbound()
        for i in self.want:
            if self.armed[i]:
                self.armed[i] = 0
                self.got[i] = 0
                try:
                    pn532_wait.disarm(s.readers[i])
                except OSError as e:
                    s._failed(i, self.clock.ticks_ms(), e)

    def waiting(self):
        """True while a reader is armed: the scanner then polls in halves (Scanner.step)."""
        a = self.armed
        for i in self.want:
            if a[i]:
                return True
        return False

    def service(self):
        """Read the cards the armed readers announced, events in the order of their edges;
        arm the wanted readers that have no card on them."""
        s = self.s
        k = len(s.events)
        while True:  # one card a step, the earliest edge first: its verdict before the next READ
            i = self.next_card()
            if i < 0:
                break
            self._answer(i)  # (the last card's reader is bounded after this one's verdict)
            if len(s.events) > k:
                return  # (arming and checks wait for a later step)
        self._unbound()
        for i in self.want:
            if not self.armed[i] and not s._ulen[i] and not s._clen[i] and not s.down[i]:
                self._arm(i)
        if self.want:
            self._check()

    def next_card(self):
        """The armed reader whose card came first (its edge seen, else its line low: timed
        now, after any edge seen), or -1."""
        got = self.got
        i = -1
        for j in self.want:
            if not self.armed[j]:
                continue
            if got[j]:
                if i < 0 or not got[i] or ticks_diff(self.edge[j], self.edge[i]) < 0:
                    i = j
            elif i < 0 and self.lines[j].value() == 0:
                i = j
        return i

    def _unbound(self):
        """Bound again the retries of the readers whose cards were taken at their edges (after
        their verdicts, and those of the cards that came after them), and switch their fields
        off; before anything polls them."""
        s = self.s
        b = self._bound
        for i in range(s.n):
            if b[i]:
                left_on = b[i] == 2  # (its field left on for the card after it: _answer)
                b[i] = 0
                try:
                    pn532_wait.bound(s.readers[i])
                    if left_on:
                        s.readers[i].release()
                except OSError as e:
                    s._failed(i, self.clock.ticks_ms(), e)
                if s._lit == i:
                    s._dark()  # (its field too, even in a step that polls no one)

    def _check(self):
        """Abort and re-arm the next armed reader in turn when its time has come (see above)."""
        s = self.s
        now = self.clock.ticks_ms()
        if ticks_diff(now, self._check_at) < 0:
            return
        want = self.want
        self._check_at = ticks_add(now, s.retry_ms // len(want))  # each about every retry_ms
        k = self._checked % len(want)
        self._checked = k + 1
        i = want[k]
        if not self.armed[i] or self.got[i]:
            return
        self.armed[i] = 0  # (an edge now is not this card's: the new wait times it)
        self.checks += 1
        try:
            pn532_wait.disarm(s.readers[i])
        except OSError as e:
            s._failed(i, now, e)
            return
        self._arm(i)

    def _arm(self, i):
        s = self.s
        try:
            pn532_wait.arm(s.readers[i])
        except OSError as e:
            s._failed(i, self.clock.ticks_ms(), e)
            return
        self.got[i] = 0
        self.armed[i] = 1
        self.arms += 1
        s._fails[i] = 0  # it answered: failures are counted in a row

    def _answer(self, i):
        s = self.s
        r = s.readers[i]
        now = self.clock.ticks_ms()
        us = self.us()
        if not self.got[i]:  # the line is low but its edge was not seen: time it now
            self.edge[i] = us
        t = ticks_add(now, -(ticks_diff(us, self.edge[i]) // 1000))
        self.armed[i] = 0
        self.got[i] = 0
        self.answers += 1
        lit = s._lit
        if lit >= 0:
            if self._bound[lit]:  # a card taken at its edge just before: its field, on while it
                s._lit = -1  # waited, goes off with its bound, after this card (_unbound)
                self._bound[lit] = 2
            else:
                s._dark()  # a polled card's field left on: one lit at a time
        s.polls[i] += 1
        try:
            uid = pn532_wait.answer(r)
            if uid is not None:
                s._seen(i, r, uid, t, True)  # the READ at once, the field still on
            if s._lit == i:  # a card reported: its verdict first, the field off and the
                self._bound[i] = 1  # retries bounded after it (scanner.quiet, next service)
            else:
                pn532_wait.bound(r)
                r.release()
        except OSError as e:
            s._failed(i, now, e)
            return
        s._fails[i] = 0
