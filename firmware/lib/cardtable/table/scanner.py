"""The scanner: polls the readers one at a time, debounces, and reports zone events."""
# One reader per poll, round robin, and its RF field is switched off again before the next
# (``release()``), so only one field is ever on. A card counts as placed once it is seen in
# ``place_polls`` consecutive polls of its reader and as lifted after ``lift_polls`` consecutive
# empty polls: a card flickering at the edge of a field is no play, and a card that a reader
# sometimes misses while it lies still is not lifted and placed again. A reader that fails
# ``fail_limit`` polls in a row is reported down and then only retried every ``retry_ms``, so
# a dead reader costs the others almost nothing.
#
# When a step polls fewer readers than there are (the board polls one per step), the order is
# round robin, except that a reader with a card being debounced is polled again as soon as
# ``settle_ms`` have passed since it was seen: the confirming poll comes a settle time later,
# not a whole cycle later, which is most of the latency a player sees. And the ``focus``
# readers (the controller sets them with ``watch()``: the play zones of the seats to play) are
# polled between every two others, the first of them at once when the focus changes, so the
# card a player is expected to lay is seen within a poll or two. On a focus reader the card is
# read in the poll that first sees it, its field still on: a READ that succeeds is the
# confirmation (``read_confirms``), not a second sighting a settle time later (issue 18: that
# wait was ~27 ms of the mean latency); its poll lists up to two tags (``poll(2)``), so the
# two-tag check needs no exchange of its own. A card torn away mid-read is no play (TORN).
# After such a card is reported, its field is switched off at the start of the next poll, not
# at once: the controller lights the verdict first (no other field is on meanwhile).
# The ``rare`` readers (zones that take no card now: a Nerts table's "left" pads during play,
# the deal pad once the hand is dealt) are polled only every ``rare_every``-th lap of the round
# robin, so the others come round faster: on a Nerts table the time a card is first seen, which
# decides a race to the centre, is then set by the foundations alone. On a board with IRQ lines
# ("scan": "irq") a ``waiter`` (table/irqwait.py) keeps such readers waiting for their card by
# themselves and times each at its IRQ edge; the round robin skips them while they wait.
#
# The seat to play at the card's edge (issue 35): on any board whose focus reader has an IRQ
# line (its "irq" in the board file), the waiter arms that reader instead of the scanner
# polling it: its PN532 waits with its field on, and the card is taken at its IRQ edge. The
# step that sees the edge reads the card at once (the answer lists up to two tags: the two-tag
# check as on a polled focus reader), polls no other reader and returns, so the controller
# lights the verdict before anything else; the field goes off and the PN532's retries are
# bounded again at the next step. The other zones keep their round robin, one field switched
# on per poll; what changes is that the armed focus pad's field stays on meanwhile (as a Nerts
# foundation's does), so one polled field at a time, beside the armed readers' fields (the
# board check keeps readers with an IRQ line IRQ_SPACING_MM apart). A focus reader without an
# IRQ line is polled as above.
#
# Before a new card is read, a reader that can count the tags in its field (``targets()``)
# is asked once: two tags on one pad are reported (TWO), once while they lie there, and
# nothing is read. A tag that leaves the field in the middle of its read is read again at
# the next poll if it is still there; if the next poll finds the pad empty, it was torn
# away before the table knew what it was (TORN).
#
# A card the table has read before is named by its UID, not read again (issue 35): NTAG21x UIDs
# are 7 bytes, unique and fixed at manufacture, and the poll's answer carries the UID whole, so
# the scanner keeps, for up to KNOWN_MAX tags (a deck with its jokers, and spares), the UID
# bytes -> the text its READ gave (card codes only: a tag with none is read every time), and
# a tag seen again is reported with that text and no READ (2-3 ms on the air, and the NDEF
# parse). The key (uid_key, 30 bits) only finds the slot; the UID's bytes are compared whole,
# so two UIDs with one key are never taken for each other (the second is read). When all slots
# are used a new tag takes the next one round robin; a card READ is kept at the next step, after
# its verdict (nothing between a READ and its LED frame but what the verdict needs). RAM only,
# kept across hands and games (one physical deck), lost at power-up. It serves every reader,
# not the seat to play's alone, as nothing else needs the READ itself: the two-tag check comes
# before it (unchanged); a named card has no READ to be torn from, so on a watched pad its
# sighting alone is its confirmation (the READ confirmed it 2-3 ms later, which a card in
# passing outlives all the same), and off the focus ``place_polls`` sightings still are; the
# deal pad and the duplicate-tag check (inputs.py) get the same text and key as a READ gives.
# A tag the table writes or reads for enrolling (remote.tag) is forgotten: read again when next
# seen. What it trades: a tag rewritten by something else (a phone) while the table is on keeps
# its old text until then, and a UID cloned onto another tag with another text is taken for
# the first card (a magic tag: cheating either way; two tags with one text still are a
# duplicate). A table with more tags than KNOWN_MAX in play (Nerts: a deck a seat) reads most.
#
# Events are tuples ``(kind, reader, t, text, key)``: t is the tick of the first sighting (of
# the failure, of the lift), text the card code read from the tag (PLACED), the reason
# (UNKNOWN: a tag with no card code; DOWN: the error; TORN, TWO: what happened), key a small
# int naming the tag's UID.
from cardtable.compat import const, ticks_add, ticks_diff

PLACED = const(1)
LIFTED = const(2)
UNKNOWN = const(3)
DOWN = const(4)
UP = const(5)
TORN = const(6)
TWO = const(7)

NAMES = ("", "placed", "lifted", "unknown", "down", "up", "torn", "two")
_UIDMAX = const(10)
KNOWN_MAX = const(64)  # tags named by their UID: a deck with its jokers, and spares
_KUID = const(8)  # per kept tag: its UID's length (0: a free slot), then up to 7 UID bytes


def uid_key(buf, n, o=0):
    """A small int (< 2**30) standing for the n bytes of a UID at buf[o:]: h = (h * 31 + byte)
    mod 2**30 over them, worked in 15-bit halves so no step needs a long int (allocates nothing)."""
    h = n
    for k in range(o, o + n):
        c = (h & 0x7FFF) * 31 + buf[k]
        h = ((((h >> 15) * 31 + (c >> 15)) & 0x7FFF) << 15) | (c & 0x7FFF)
    return h


def _same(a, n, b):
    if len(b) != n:
        return False
    for k in range(n):
        if a[k] != b[k]:
            return False
    return True


class Scanner:
    """Round-robin debounced polling of PN532-like readers (init, poll, read_text, release)."""

    def __init__(self, readers, clock, place_polls=2, lift_polls=3, fail_limit=3, retry_ms=2000,
                 settle_ms=20):
        n = len(readers)
        self.readers = readers
        self.clock = clock
        self.n = n
        self.place_polls = place_polls
        self.lift_polls = lift_polls
        self.fail_limit = fail_limit
        self.retry_ms = retry_ms
        self.settle_ms = settle_ms
        self._uid = [bytearray(_UIDMAX) for _ in range(n)]  # the card lying on each reader
        self._ulen = bytearray(n)  # its UID length, 0 = nothing there
        self._cand = [bytearray(_UIDMAX) for _ in range(n)]  # a card being debounced
        self._clen = bytearray(n)
        self._hits = bytearray(n)
        self._torn = bytearray(n)  # 1: the candidate left in the middle of its read
        self._two = bytearray(n)  # 1: two tags on the pad, reported
        self._miss = bytearray(n)
        self._fails = bytearray(n)
        self._t0 = [0] * n
        self._due = -1                  # a reader whose card awaits its confirming poll
        self._seen_at = 0               # ... and when it was last seen
        self._retry = [0] * n
        self.down = bytearray(n)
        self.polls = [0] * n
        self.failures = [0] * n
        self.last_error = [None] * n
        self.fw = [None] * n  # what each reader's init() said: PN532 (IC, ver, rev, support)
        self.events = []
        self._next = 0
        self.focus = ()  # readers the controller expects a card on now (the seat to play)
        self._fi = 0  # the next of them
        self._alt = False  # True: a focus reader's turn
        self.read_confirms = True  # on a focus reader the READ confirms a first sighting
        self._lit = -1  # a reader whose field is still on after a card was reported there
        # readers whose poll(2) counts the tags too (the PN532 driver; not the fakes)
        self._counts = bytearray([1 if hasattr(r, "ntg") else 0 for r in readers])
        self.rare = ()  # readers polled only every rare_every-th lap
        self.rare_every = 8
        self._lap = 0
        self.waiter = None  # table/irqwait.IrqWait: readers that wait by themselves (IRQ)
        self._pend = -1  # a reader whose poll was sent (poll_start) and not yet answered
        self._pend_at = 0
        self._pend_w = False
        # the tags read before (see the header): per slot its UID and text; its key -> slot
        self._kuid = bytearray(KNOWN_MAX * _KUID)
        self._ktext = [""] * KNOWN_MAX
        self._kslot = {}
        self._knext = 0  # the slot a new tag takes when all are used (round robin)
        self._text = None  # _name's text
        self._learn = -1  # a reader whose card was READ: its text kept at the next step (_kept)
        self._learn_text = ""
        self.named = 0  # cards named by their UID, no READ
        self.reads = 0  # cards READ

    def watch(self, focus):
        """Set the focus readers (a tuple); a new focus is polled at the next step."""
        if focus != self.focus:
            self.focus = focus
            self._fi = 0
            self._alt = True

    def start(self):
        """Initialise every reader; one that does not answer is reported down at once. Each
        I2C bus is swept first: a reset in the middle of a read leaves a PN532 holding SDA."""
        swept = []
        for r in self.readers:
            b = getattr(r, "i2c", None)
            if b is not None and hasattr(b, "sweep") and b not in swept:
                swept.append(b)
                b.sweep()
        now = self.clock.ticks_ms()
        for i in range(self.n):
            try:
                self.fw[i] = self.readers[i].init()
            except OSError as e:
                self.failures[i] += 1
                self._go_down(i, now, e)

    def step(self, budget=1):
        """Poll the next `budget` readers; returns how many events are waiting."""
        if self._learn >= 0:
            self._kept()  # (after the verdict of the card READ in the step before)
        w = self.waiter
        if w is not None:
            k = len(self.events)
            w.service()  # the armed readers are never polled (their PN532 waits)
            if len(self.events) > k:  # a card taken at its edge: its verdict before any poll
                return len(self.events)
            split = budget < self.n and w.waiting()
            if self._pend >= 0:
                if not self._finish(not split):
                    return len(self.events)  # its PN532 is still looking: the loop goes round
                if len(self.events) > k:
                    return len(self.events)  # a card seen there: its verdict first
            if split:  # one poll in two halves: the next step serves an edge before the answer
                i = self._choose()
                if i >= 0:
                    self._poll(i, True)
                return len(self.events)
        if budget >= self.n:            # every reader every step: plain order
            for i in range(self.n):
                if not self._armed(i):
                    self._poll(i)
        else:
            for _ in range(budget):
                i = self._choose()
                if i >= 0:
                    self._poll(i)
        return len(self.events)

    def _choose(self):
        """The reader to poll now: a debounce due for its confirmation, else a focus reader
        every other time, else the next in turn."""
        i = self._due
        if i >= 0 and ticks_diff(self.clock.ticks_ms(), self._seen_at) >= self.settle_ms:
            self._due = -1
            return i
        f = self.focus
        if self._alt and f:
            k = self._fi if self._fi < len(f) else 0
            self._fi = k + 1
            if f[k] != i and not self._armed(f[k]):  # (one being debounced waits for its settle time)
                self._alt = False
                return f[k]
        self._alt = True
        n = self.n
        rare = self.rare
        for _ in range(n):
            i = self._next
            if i + 1 < n:
                self._next = i + 1
            else:
                self._next = 0
                self._lap += 1
            if (not rare or self._lap % self.rare_every == 0 or i not in rare) and not self._armed(i):
                return i
        return -1 if self.waiter is not None else i  # (armed or rare all round: none now)

    def _armed(self, i):
        """True while reader i's PN532 waits for a card by itself (never poll it then)."""
        w = self.waiter
        return w is not None and w.armed[i] != 0

    def next_event(self):
        """The oldest waiting event, or None."""
        if self.events:
            return self.events.pop(0)
        return None

    def busy(self):
        """True while a card is being confirmed on some reader (seen, not yet reported)."""
        c = self._clen
        for i in range(self.n):
            if c[i]:
                return True
        w = self.waiter
        if w is not None:
            for i in w.want:
                if w.got[i]:  # an armed reader's card came: it is read at the next step
                    return True
        return False

    def present(self, i):
        """True if a card lies on reader i."""
        return self._ulen[i] != 0

    def status(self, i):
        """Reader i's health as a dict (for `health` and faults)."""
        r = self.readers[i]
        out = {"up": not self.down[i], "polls": self.polls[i], "failures": self.failures[i],
               "card": self._ulen[i] != 0}
        if self.last_error[i] is not None:
            out["error"] = self.last_error[i]
        fw = self.fw[i]
        if fw:
            out["fw"] = "%d.%d" % (fw[1], fw[2])
        if hasattr(r, "stats"):
            out["driver"] = r.stats()
        return out

    # -- one poll -------------------------------------------------------------------------

    def _poll(self, i, split=False):
        if self._lit >= 0:
            self._dark()
        r = self.readers[i]
        now = self.clock.ticks_ms()
        if self.down[i]:
            if ticks_diff(now, self._retry[i]) < 0:
                return
            self._retry[i] = ticks_add(now, self.retry_ms)
            try:
                self.fw[i] = r.init()
            except OSError as e:
                self.failures[i] += 1
                self.last_error[i] = str(e)
                return
        self.polls[i] += 1
        watched = self.read_confirms and i in self.focus
        two = watched and self._counts[i]  # the two-tag check in the poll's own exchange
        if split:
            try:
                r.poll_start(2 if two else 1)
            except OSError as e:
                self._failed(i, now, e)
                return
            self._pend = i
            self._pend_at = now
            self._pend_w = watched
            return
        try:
            uid = r.poll(2) if two else r.poll()
        except OSError as e:
            self._failed(i, now, e)
            return
        self._polled(i, r, uid, now, watched)

    def _finish(self, wait):
        """Read the answer of the poll a step before sent (poll_start); False if its PN532 is
        still looking and wait is False."""
        i = self._pend
        r = self.readers[i]
        if not wait and ticks_diff(self.clock.ticks_ms(), self._pend_at) < r.timeout_ms:
            try:
                if not r.ready():
                    return False
            except OSError:
                pass  # poll_end fails on it too, and says so
        self._pend = -1
        watched = self._pend_w
        try:
            uid = r.poll_end(2 if watched and self._counts[i] else 1)
        except OSError as e:
            self._failed(i, self.clock.ticks_ms(), e)
            return True
        self._polled(i, r, uid, self._pend_at, watched)
        return True

    def _polled(self, i, r, uid, now, watched):
        """A poll's answer: a card seen or the pad empty; the field off (but after a card
        reported on a focus reader, see _seen)."""
        try:
            if uid is None:
                self._empty(i, now)
            else:
                self._seen(i, r, uid, now, watched)
            if self._lit != i:
                r.release()
        except OSError as e:
            self._failed(i, now, e)
            return
        self._fails[i] = 0
        if self.down[i]:
            self.down[i] = 0
            self.last_error[i] = None
            self.events.append((UP, i, now, None, 0))

    def card_waiting(self):
        """True when a reader waiting by itself has announced a card not yet read."""
        w = self.waiter
        return w is not None and w.next_card() >= 0

    def quiet(self):
        """Before a reader is used outside the scanner: the poll under way answered, a field
        left on after a card was reported (see _seen) switched off, armed readers stopped."""
        if self._pend >= 0:
            self._finish(True)
        self._dark()
        if self.waiter is not None:
            self.waiter.rest()  # (an armed reader's PN532 would still be waiting for a card)

    def _dark(self):
        """Switch off a field left on after a card was reported (see _seen): its verdict is
        shown; before the next poll."""
        i = self._lit
        if i < 0:
            return
        self._lit = -1
        try:
            self.readers[i].release()
        except OSError as e:
            self._failed(i, self.clock.ticks_ms(), e)

    def _seen(self, i, r, uid, now, watched=False):
        self._miss[i] = 0
        n = len(uid)
        if n > _UIDMAX:
            n = _UIDMAX
        if _same(self._uid[i], self._ulen[i], uid):
            self._clen[i] = 0
            self._hits[i] = 0
            return
        cand = self._cand[i]
        if _same(cand, self._clen[i], uid):
            if self._hits[i] < 255:
                self._hits[i] += 1
        else:
            for k in range(n):
                cand[k] = uid[k]
            self._clen[i] = n
            self._hits[i] = 1
            self._t0[i] = now
            self._two[i] = 0
        if self._hits[i] < self.place_polls and not watched:
            self._due = i
            self._seen_at = now
            return
        count = getattr(r, "targets", None)
        if count is not None:
            if (r.ntg if watched and self._counts[i] else count()) > 1:
                if not self._two[i]:
                    self._two[i] = 1
                    self.events.append((TWO, i, self._t0[i], "two tags on one pad",
                                        uid_key(cand, n)))
                return
            self._two[i] = 0
        key = uid_key(cand, n)
        kind = self._name(i, r, cand, n, key)
        if not kind:
            return  # torn: read again at the next poll if it is still there
        if self._ulen[i]:
            self.events.append((LIFTED, i, now, None, uid_key(self._uid[i], self._ulen[i])))
        stable = self._uid[i]
        for k in range(n):
            stable[k] = cand[k]
        self._ulen[i] = n
        self._clen[i] = 0
        self._hits[i] = 0
        self.events.append((kind, i, self._t0[i], self._text, key))
        if watched:
            self._lit = i  # its verdict before the field goes off

    # -- the tags read before, named by their UID ---------------------------------------------

    def _name(self, i, r, uid, n, key):
        """The card's text in self._text: kept from an earlier READ of this very UID, else READ
        now. PLACED or UNKNOWN (the reason in _text), or 0: the tag left in the middle of its
        READ (self._torn set)."""
        s = self._known(uid, n, key)
        if s >= 0:
            self.named += 1
            self._torn[i] = 0
            self._text = self._ktext[s]
            return PLACED
        kind = PLACED
        try:
            text = r.read_text()
        except ValueError as e:  # NdefError: no card code on this tag
            kind = UNKNOWN
            text = str(e)
        except OSError as e:
            if hasattr(e, "status"):
                self._torn[i] = 1  # the tag left mid-read: read it again if it is still there
                return 0
            raise
        self.reads += 1
        self._torn[i] = 0
        if kind == PLACED:  # kept at the next step, once its verdict is shown
            if self._learn >= 0:
                self._kept()
            self._learn = i
            self._learn_text = text
        self._text = text
        return kind

    def _known(self, uid, n, key):
        """The slot keeping the text of the tag whose UID is uid's n bytes, or -1. The key only
        finds the slot: its UID bytes are compared whole (two UIDs may share a key)."""
        s = self._kslot.get(key, -1)
        if s < 0:
            return -1
        b = self._kuid
        o = s * _KUID
        if b[o] != n:
            return -1
        for k in range(n):
            if b[o + 1 + k] != uid[k]:
                return -1
        return s

    def _kept(self):
        """Keep the text of the card READ on reader _learn (the card lying there) in the slot of
        its UID's key (a UID that shares the key is forgotten), else the next slot round robin."""
        i = self._learn
        self._learn = -1
        text = self._learn_text
        self._learn_text = ""
        n = self._ulen[i]
        if not n or n >= _KUID:
            return  # (gone meanwhile: its reader down; a UID longer than an NTAG's: read each time)
        uid = self._uid[i]
        key = uid_key(uid, n)
        d = self._kslot
        b = self._kuid
        s = d.get(key, -1)
        if s < 0:
            s = self._knext
            self._knext = s + 1 if s + 1 < KNOWN_MAX else 0
            if b[s * _KUID]:
                del d[uid_key(b, b[s * _KUID], s * _KUID + 1)]
            d[key] = s
        o = s * _KUID
        b[o] = n
        for k in range(n):
            b[o + 1 + k] = uid[k]
        self._ktext[s] = text

    def forget(self, uid):
        """The tag with this UID is read again the next time it is seen (the table writes it:
        remote.tag)."""
        if self._learn >= 0:
            self._kept()
        n = len(uid)
        key = uid_key(uid, n)
        s = self._known(uid, n, key)
        if s >= 0:
            del self._kslot[key]
            self._kuid[s * _KUID] = 0
            self._ktext[s] = ""

    def _empty(self, i, now):
        if self._torn[i]:
            self._torn[i] = 0
            if self._clen[i]:
                self.events.append((TORN, i, self._t0[i], "the tag left before it was read",
                                    uid_key(self._cand[i], self._clen[i])))
        self._two[i] = 0
        self._clen[i] = 0
        self._hits[i] = 0
        if self._ulen[i]:
            self._miss[i] += 1
            if self._miss[i] >= self.lift_polls:
                key = uid_key(self._uid[i], self._ulen[i])
                self._ulen[i] = 0
                self._miss[i] = 0
                self.events.append((LIFTED, i, now, None, key))

    def _failed(self, i, now, e):
        self.failures[i] += 1
        self.last_error[i] = str(e) or type(e).__name__
        if self.down[i]:
            return
        if self._fails[i] < 255:
            self._fails[i] += 1
        if self._fails[i] >= self.fail_limit:
            self._go_down(i, now, e)

    def _go_down(self, i, now, e):
        self.down[i] = 1
        self._fails[i] = 0
        self._ulen[i] = 0
        self._clen[i] = 0
        self._hits[i] = 0
        self._miss[i] = 0
        self._torn[i] = 0
        self._two[i] = 0
        self._retry[i] = ticks_add(now, self.retry_ms)
        self.last_error[i] = str(e) or type(e).__name__
        self.events.append((DOWN, i, now, self.last_error[i], 0))
