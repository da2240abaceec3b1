"""PN532 protocol core: frames, commands and NTAG reads; subclasses supply the bus."""
# Protocol: NXP UM0701-02 (PN532 User Manual) section 6; NTAG21x: NXP datasheet 265330.
from cardtable.compat import const, ticks_ms, ticks_diff
from cardtable.drivers import ndef
from cardtable.drivers.ndef import NdefError  # noqa: F401  (re-exported for callers)

try:
    from time import sleep_ms, sleep_us
except ImportError:  # CPython
    from time import sleep as _sleep

    def sleep_ms(ms):
        _sleep(ms / 1000)

    def sleep_us(us):
        _sleep(us / 1000000)

# The status is checked this often while a command runs (issue 18: a 1 ms sleep between checks
# cost up to 1 ms per wait, several waits per poll). Over I2C a check is 2 bytes (~50 us at
# 400 kHz); with an IRQ pin it is one GPIO read.
POLL_US = const(100)


CMD_FIRMWARE = const(0x02)
CMD_STATUS = const(0x04)
CMD_SAM = const(0x14)
CMD_RFCONFIG = const(0x32)
CMD_EXCHANGE = const(0x40)
CMD_THRU = const(0x42)
CMD_LIST = const(0x4A)
CMD_RELEASE = const(0x52)

ACK = b"\x00\x00\xff\x00\xff\x00"
NACK = b"\x00\x00\xff\xff\x00\x00"

# InDataExchange status codes (low 6 bits of the status byte)
ST_TIMEOUT = const(0x01)  # the target did not answer (gone, or field off)
ST_NAK = const(0x14)  # tag refused: MIFARE auth error / NAK
ST_NO_TARGET = const(0x27)  # target number not listed

RXMAX = const(64)  # largest frame read (a 4-page READ answer is 26 bytes)
TXMAX = const(40)
MEMMAX = const(128)  # NDEF bytes read for a card code: 8 READs at most

# Scratch shared by all readers: polls run one reader at a time, nothing survives a call.
RX = bytearray(RXMAX + 1)  # +1: the I2C status byte comes first
TX = bytearray(TXMAX)
_rxm = memoryview(RX)
_txm = memoryview(TX)
RXV = [_rxm[:n] for n in range(RXMAX + 2)]  # RXV[n] = first n bytes, no slicing per read
TXV = [_txm[:n] for n in range(TXMAX + 1)]
_MEM = bytearray(MEMMAX)

_P_LIST = b"\x01\x00"  # MaxTg 1, 106 kbps type A
_P_LIST2 = b"\x02\x00"  # MaxTg 2: is there a second tag?
_P_RFOFF = b"\x01\x00"  # CfgItem 1 (RF field): off, no auto RFCA
_P_RELEASE = b"\x00"  # all targets
_P_READ = b"\x01\x30\x00"  # Tg 1, NTAG READ, page (patched in _F_READ)
_P_WRITE = bytearray(b"\x01\xa2\x00\x00\x00\x00\x00")  # Tg 1, NTAG WRITE, page, 4 bytes
_P_FAST = bytearray(b"\x3a\x03\x07")  # NTAG FAST_READ, first and last page (patched)
_PAGES_MAX = const(8)  # the most a card code's first read takes (32 bytes: the frame fits RXMAX)

ERRORS = ("no_answer", "frame", "nack", "error_frame", "tag")


def _frame_into(tx, cmd, params):
    """Write the host frame of cmd with params into tx; returns its length."""
    n = len(params)
    if n > len(tx) - 9:
        raise ValueError("command too long")
    tx[0] = 0
    tx[1] = 0
    tx[2] = 0xFF
    tx[3] = n + 2
    tx[4] = (-(n + 2)) & 0xFF
    tx[5] = 0xD4
    tx[6] = cmd
    s = 0xD4 + cmd
    for i in range(n):
        b = params[i]
        tx[7 + i] = b
        s += b
    tx[7 + n] = (-s) & 0xFF
    tx[8 + n] = 0
    return n + 9


def _prebuilt(cmd, params):
    f = bytearray(len(params) + 9)
    _frame_into(f, cmd, params)
    return f


# The frames every poll sends, built once (issue 18: building one took ~0.13 ms of the
# RP2040's time, twice per poll). _F_READ's page and checksum are patched per READ.
_SEND = const(1)  # _call's part: the command sent and its ACK taken, no more
_RESPONSE = const(2)  # ... its answer read
_F_LIST = _prebuilt(CMD_LIST, _P_LIST)
_F_LIST2 = _prebuilt(CMD_LIST, _P_LIST2)
_F_RFOFF = _prebuilt(CMD_RFCONFIG, _P_RFOFF)
_F_READ = _prebuilt(CMD_EXCHANGE, _P_READ)
_READ_SUM = 0xD4 + CMD_EXCHANGE + 0x01 + 0x30


class PN532Error(OSError):
    """A PN532 reader failed; KIND indexes reader.counts; `freed`: its bus had to be cleared."""

    KIND = 0
    freed = False


class NoAnswer(PN532Error):
    """No ACK or no response within timeout_ms (or the bus itself failed)."""

    KIND = 0


class FrameError(PN532Error):
    """A frame from the PN532 was malformed or not the expected response."""

    KIND = 1


class ChecksumError(FrameError):
    """A frame's LCS or DCS was wrong, also after asking for it again."""


class Nack(PN532Error):
    """The PN532 answered a command with NACK twice."""

    KIND = 2


class ErrorFrame(PN532Error):
    """The PN532 answered with the application-level error frame (syntax error)."""

    KIND = 3


class TagError(PN532Error):
    """The tag exchange failed; `status` is the PN532 status code (0x01: tag gone)."""

    KIND = 4

    def __init__(self, status, msg="tag exchange failed"):
        super().__init__("%s (status 0x%02x)" % (msg, status))
        self.status = status


class PN532:
    """One PN532 reader. Subclasses implement _write, _ready and _txn (or _fetch)."""

    # A scanner polls readers round-robin with one RF field on at a time:
    #     uid = r.poll()                     # bounded; None when the field is empty
    #     if uid != last: code = r.read_text()
    #     r.release()                        # field off before the next reader
    # r.fails counts consecutive failed commands (mark the reader faulty past a limit,
    # r.init() later to bring it back); r.counts and r.stats() keep totals per kind.

    OFF = 0  # where frame bytes start in RX (1 on I2C: the status byte)
    STREAM = False  # True when the bus is a byte stream (UART): read frames incrementally

    def __init__(self, timeout_ms=50, retries=1, irq=None):
        self.timeout_ms = timeout_ms
        self.retries = retries  # MxRtyPassiveActivation: 0x00..0xFE, small keeps poll() bounded
        self.irq = irq
        self._uid = bytearray(10)
        m = memoryview(self._uid)
        self._uidv = (m[:4], m[:7], m[:10])
        self.tg = 0  # listed target (1) or 0
        self.ntg = 0  # tags the last poll listed (up to its maxtg)
        self.atqa = 0
        self.sak = -1
        self.polls = 0
        self.fails = 0  # consecutive failed commands; 0 after any good answer
        self.errors = 0  # failed commands since start
        self.counts = [0, 0, 0, 0, 0]  # failures per ERRORS kind
        self.retried = 0  # second tries after a NACK or a bad checksum (line noise)
        self._have = 0
        self._ro = 0
        # How many pages a card code's first read takes from page 3 (the CC, the TLV area): 4,
        # one READ; more, one FAST_READ of them (NXP NTAG213/215/216 data sheet 10.3, through
        # InCommunicateThru, UM0701-02 7.3.9). Learnt from the reader's last card: a deck's
        # codes need about as many ("7H#1": 17 bytes, two READs; a FAST_READ of 5 pages takes
        # 0.5 ms more on the air than one READ, a second READ ~4 ms more).
        self.pages = 4

    # -- bus template methods -------------------------------------------------

    def wake(self):
        """Bus-specific wake-up before the first command."""

    def _write(self, buf):
        """Send one frame."""
        raise NotImplementedError

    def _ready(self):
        """True when the PN532 has a frame for us."""
        raise NotImplementedError

    def _txn(self, n):
        """Read the first n bytes of the pending frame into RX[OFF:] in one transaction."""
        raise NotImplementedError

    def _fetch(self, n):
        """Make RX[OFF:OFF+n] hold the first n bytes of the current frame."""
        if n <= self._have:
            return
        if n > RXMAX:
            raise FrameError("frame longer than %d bytes" % RXMAX)
        if self._have:
            # the last transaction consumed the frame: NACK makes the PN532 send it again
            self._write(NACK)
            if not self._wait():
                raise NoAnswer("no resend after NACK")
        self._txn(n)
        self._have = n

    # -- frames ---------------------------------------------------------------

    def _wait(self):
        if self._ready():
            return True
        t0 = ticks_ms()
        while ticks_diff(ticks_ms(), t0) < self.timeout_ms:
            sleep_us(POLL_US)
            if self._ready():
                return True
        return False

    def _build(self, cmd, params):
        return _frame_into(TX, cmd, params)

    def _frame(self, hint):
        """Read one frame: -1 for ACK, -2 for NACK, else its TFI+data length (at self._ro)."""
        self._have = 0
        if not self.STREAM:
            self._fetch(hint)
        rx = RX
        o = self.OFF
        if self._have >= 5 and rx[o] == 0 and rx[o + 1] == 0 and rx[o + 2] == 0xFF:
            i = 2  # preamble and start code where they always are, already read: no search
        else:
            i = 0
            while True:
                self._fetch(i + 1)
                if rx[o + i]:
                    break
                i += 1
                if i > 6:
                    raise FrameError("no start code")
            if i == 0 or rx[o + i] != 0xFF:
                raise FrameError("no start code")
            self._fetch(i + 3)
        ln = rx[o + i + 1]
        lcs = rx[o + i + 2]
        if ln == 0 and lcs == 0xFF or ln == 0xFF and lcs == 0:
            if self._have < i + 4:
                self._fetch(i + 4)  # postamble
            return -1 if ln == 0 else -2
        if (ln + lcs) & 0xFF:
            raise ChecksumError("bad length checksum")
        b = i + 3
        if self._have < b + ln + 1:
            self._fetch(b + ln + 1)
        s = 0
        for k in range(o + b, o + b + ln + 1):
            s += rx[k]
        if s & 0xFF:
            raise ChecksumError("bad data checksum")
        self._ro = o + b
        if ln == 1 and rx[o + b] == 0x7F:
            raise ErrorFrame("PN532 error frame")
        return ln

    def _exchange(self, cmd, params, hint, frame=None):
        self._send(cmd, params, hint, frame)
        return self._response(cmd, params, hint)

    def _send(self, cmd, params, hint, frame=None):
        """Send a command frame (frame: prebuilt) and take its ACK (a NACK: once more)."""
        if frame is None:
            frame = TXV[self._build(cmd, params)]
        nacked = False
        while True:
            self._write(frame)
            if not self._wait():
                raise NoAnswer("no ACK for command 0x%02x" % cmd)
            k = self._frame(6)
            if k == -1:
                return 0
            if k != -2:
                raise FrameError("expected ACK for command 0x%02x" % cmd)
            if nacked:
                raise Nack("command 0x%02x NACKed twice" % cmd)
            nacked = True
            self.retried += 1

    def _response(self, cmd, params, hint):
        """Wait for the answer to the command sent and read it; its data length (at self._ro)."""
        if not self._wait():
            self._write(ACK)  # an ACK from the host aborts the running command
            raise NoAnswer("no response to command 0x%02x" % cmd)
        bad = False
        while True:
            try:
                k = self._frame(hint)
                break
            except ChecksumError:
                if bad:
                    raise
                bad = True
                self.retried += 1
                self._have = 0
                self._write(NACK)
                if not self._wait():
                    raise NoAnswer("no resend after NACK")
        ro = self._ro
        if k < 2 or RX[ro] != 0xD5 or RX[ro + 1] != cmd + 1:
            raise FrameError("unexpected response to command 0x%02x" % cmd)
        self._ro = ro + 2
        return k - 2

    def _call(self, cmd, params, hint, part=None, frame=None):
        """Run one command (part: only _send or only _response of it; frame: its prebuilt
        frame); return the response length (data at RX[self._ro:]). Failures are counted; a bus
        error becomes NoAnswer."""
        try:
            if part is None:
                n = self._exchange(cmd, params, hint, frame)  # (a bound method value would allocate)
            elif part == _SEND:  # (so do these halves by int: poll_start, poll_end)
                n = self._send(cmd, params, hint, frame)
            elif part == _RESPONSE:
                n = self._response(cmd, params, hint)
            else:
                n = part(cmd, params, hint)
        except OSError as e:
            if not isinstance(e, PN532Error):
                freed = getattr(e, "freed", False)
                e = NoAnswer("bus error: %s" % e)
                e.freed = freed  # the bus was cleared: the reader is cut off for now
            self._fail(e)
            raise e
        self.fails = 0
        return n

    def _fail(self, e):
        self.fails += 1
        self.errors += 1
        self.counts[e.KIND] += 1

    def call(self, cmd, params=b"", hint=RXMAX):
        """Run any PN532 command; return its response data as bytes (allocates)."""
        n = self._call(cmd, params, hint)
        return bytes(RX[self._ro:self._ro + n])

    # -- reader API -----------------------------------------------------------

    def stale(self):  # type: () -> bool
        """True if the PN532 was reset since init() (its bus's shared RSTPDN was pulsed): it
        has forgotten its configuration, and poll() runs init() again first."""
        return False

    def init(self):
        """Wake, configure (SAM normal mode, bounded retries, RF off); return firmware()."""
        self.wake()
        self._call(CMD_SAM, b"\x01\x14\x01", 9)
        fw = self.firmware()
        self._call(CMD_RFCONFIG, bytes((5, 0xFF, 0x01, self.retries)), 9)
        self.release()
        return fw

    def firmware(self):
        """(IC, version, revision, support) from GetFirmwareVersion, e.g. (0x32, 1, 6, 7)."""
        n = self._call(CMD_FIRMWARE, b"", 13)
        ro = self._ro
        if n != 4:
            raise self._bad("bad firmware answer")
        return (RX[ro], RX[ro + 1], RX[ro + 2], RX[ro + 3])

    def poll(self, maxtg=1):
        """UID of the type A tag in the field (memoryview, valid until the next poll) or None;
        maxtg=2 also counts a second tag (self.ntg), as targets() would, in the same exchange."""
        # Bounded: the PN532 gives up after `retries` activation attempts. The field stays
        # on and the tag selected for read_text(); release() before polling the next reader.
        # A poll that fails switches the field off (best effort) before it raises.
        if self.stale():
            self.init()
        self.polls += 1
        self.tg = 0
        self.ntg = 0
        try:
            return self._poll(maxtg)
        except OSError as e:
            self.off(e)
            raise

    def poll_start(self, maxtg=1):
        """poll() in two halves: send its InListPassiveTarget and take the ACK, without waiting
        for the answer (the loop serves an armed reader's IRQ edge meanwhile); poll_end()
        reads it, once ready() says it is there."""
        self.polls += 1
        self.tg = 0
        self.ntg = 0
        try:
            if maxtg == 2:
                self._call(CMD_LIST, _P_LIST2, 0, _SEND, _F_LIST2)
            else:
                self._call(CMD_LIST, _P_LIST, 0, _SEND, _F_LIST)
        except OSError as e:
            self.off(e)
            raise

    def ready(self):
        """True when the PN532 has its answer for the host (after poll_start)."""
        return self._ready()

    def poll_end(self, maxtg=1):
        """The UID poll_start's InListPassiveTarget found, as poll() gives it (or None)."""
        try:
            n = self._call(CMD_LIST, _P_LIST2 if maxtg == 2 else _P_LIST, 22, _RESPONSE)
            return self.listed(n)
        except OSError as e:
            self.off(e)
            raise

    def _poll(self, maxtg):
        # The answer is read in one transaction of `hint` bytes, sized for one tag (22 with a
        # 7-byte UID): a second tag's 13 more bytes cost a NACK and a re-read, but that is a
        # fault on the pad, while every poll would pay the 14 extra bytes' 0.3 ms at 400 kHz.
        if maxtg == 2:
            n = self._call(CMD_LIST, _P_LIST2, 22, None, _F_LIST2)
        else:
            n = self._call(CMD_LIST, _P_LIST, 22, None, _F_LIST)
        return self.listed(n)

    def listed(self, n):
        """The first target of an InListPassiveTarget answer of n bytes at RX[self._ro:]: its
        UID (memoryview) or None; sets tg, ntg, atqa and sak."""
        ro = self._ro
        if n < 1 or RX[ro] == 0:
            return None
        self.ntg = RX[ro]
        ln = RX[ro + 5] if n >= 6 else 0
        if (ln != 4 and ln != 7 and ln != 10) or n < 6 + ln:
            raise self._bad("malformed target data")
        self.tg = RX[ro + 1]
        self.atqa = (RX[ro + 2] << 8) | RX[ro + 3]
        self.sak = RX[ro + 4]
        u = self._uid
        for k in range(ln):
            u[k] = RX[ro + 6 + k]
        if ln == 4:
            return self._uidv[0]
        if ln == 7:
            return self._uidv[1]
        return self._uidv[2]

    def targets(self):
        """How many type A tags answer in the field, up to 2 (InListPassiveTarget, MaxTg 2);
        the first stays selected for read_text(), as after poll()."""
        # The scanner asks once per placement, before reading the card: two tags on one pad
        # are reported instead of playing whichever the anticollision happened to pick.
        self.tg = 0
        n = self._call(CMD_LIST, _P_LIST2, 22, None, _F_LIST2)  # (sized for one tag, as in _poll)
        ro = self._ro
        if n < 1 or RX[ro] == 0:
            return 0
        if n < 6:
            raise self._bad("malformed target data")
        self.tg = RX[ro + 1]
        self.sak = RX[ro + 4]
        return RX[ro]

    def off(self, e=None):
        """Switch the RF field off after error e, best effort: a failure is neither raised nor
        counted. Skipped when the bus was just cleared (the reader cannot be reached)."""
        self.tg = 0
        if getattr(e, "freed", False):
            return
        try:
            self._exchange(CMD_RFCONFIG, _P_RFOFF, 9, _F_RFOFF)
        except OSError:
            pass

    def release(self, rf_off=True):
        """Forget the tag; switch the RF field off (or only InRelease with rf_off=False)."""
        self.tg = 0
        if rf_off:
            self._call(CMD_RFCONFIG, _P_RFOFF, 9, None, _F_RFOFF)
        else:
            self._call(CMD_RELEASE, _P_RELEASE, 10)

    def read_pages(self, page, dst=None, off=0):
        """READ 4 pages from `page` (16 bytes) into dst[off:off+16]; returns dst."""
        if dst is None:
            dst = bytearray(16)
        self._need_tag()
        f = _F_READ
        f[9] = page
        f[10] = (-(_READ_SUM + page)) & 0xFF
        return self._pages_into(self._call(CMD_EXCHANGE, _P_READ, 26, None, f), 16, dst, off, "READ")

    def fast_read(self, first, last, dst, off):
        """NTAG FAST_READ of pages first..last into dst[off:] in one exchange; returns dst."""
        self._need_tag()
        p = _P_FAST
        p[1] = first
        p[2] = last
        want = (last - first + 1) * 4
        return self._pages_into(self._call(CMD_THRU, p, 10 + want), want, dst, off, "FAST_READ")

    def _pages_into(self, n, want, dst, off, what):
        """A tag's answer of n bytes (status first) to a read of `want` bytes, into dst[off:]."""
        if n < 1:
            raise self._bad("empty answer to " + what)
        self._status()
        if n != want + 1:
            raise NdefError("tag answered %s with %d bytes: not an NTAG21x" % (what, n - 1))
        ro = self._ro + 1
        for k in range(want):
            dst[off + k] = RX[ro + k]
        return dst

    def write_page(self, page, data):
        """NTAG WRITE of 4 bytes at `page`."""
        self._need_tag()
        p = _P_WRITE
        p[2] = page
        for k in range(4):
            p[3 + k] = data[k]
        if self._call(CMD_EXCHANGE, p, 10) < 1:
            raise self._bad("empty InDataExchange answer")
        self._status()

    def read_text(self):
        """The NDEF text (card code) of the tag found by the last poll()."""
        # NdefError: no text record (blank, foreign, not an NTAG); TagError: the tag stopped
        # answering; other PN532Error: the reader failed (its field is switched off first).
        try:
            return self._read_text()
        except OSError as e:
            if not hasattr(e, "status"):  # a TagError leaves the field to the caller's release()
                self.off(e)
            raise

    def _read_text(self):
        self._need_tag()
        if self.sak & 0x7F:
            raise NdefError("not an NFC Forum Type 2 tag (SAK 0x%02x)" % self.sak)
        mem = _MEM
        pages = self.pages
        if pages > 4:
            try:
                self.fast_read(3, 2 + pages, mem, 0)
            except (TagError, NdefError) as e:
                if getattr(e, "status", 0) != ST_TIMEOUT:  # a tag without FAST_READ: READs from
                    self.pages = 4  # now on (a NAK quiets it: it is read again at the next poll)
                raise
        else:
            self.read_pages(3, mem, 0)  # CC + first 12 bytes of the TLV area
        ndef.check_cc(mem, 0)
        have = pages * 4
        while True:
            off, n = ndef.message_span(mem, 4, have)
            if off >= 0:
                if off + n > MEMMAX:
                    raise NdefError("NDEF message too long for a card code")
                if off + n <= have:
                    need = (off + n + 3) // 4
                    self.pages = 4 if need < 4 else _PAGES_MAX if need > _PAGES_MAX else need
                    return ndef.text(mem, off, n)
            if have + 16 > MEMMAX:
                raise NdefError("NDEF message too long for a card code")
            self.read_pages(3 + have // 4, mem, have)
            have += 16

    def write_text(self, text, lang="en"):
        """Store `text` as the tag's NDEF text record (for enrolment); checks capacity."""
        self._need_tag()
        cc = self.read_pages(3)
        ndef.check_cc(cc, 0)
        if cc[3] & 0x0F:
            raise NdefError("NDEF area is read-only")
        data = ndef.padded(ndef.text_tlv(text, lang))
        if len(data) > cc[2] * 8:
            raise NdefError("text does not fit on this tag")
        for i in range(0, len(data), 4):
            self.write_page(4 + i // 4, data[i:i + 4])

    def stats(self):
        """Counters as a dict (for fault reports)."""
        d = {"polls": self.polls, "fails": self.fails, "errors": self.errors,
             "retried": self.retried}
        for i in range(len(ERRORS)):
            d[ERRORS[i]] = self.counts[i]
        return d

    # -- helpers --------------------------------------------------------------

    def _need_tag(self):
        if not self.tg:
            self.counts[4] += 1
            raise TagError(ST_NO_TARGET, "no tag selected (poll first)")

    def _status(self):
        st = RX[self._ro] & 0x3F
        if st:
            self.counts[4] += 1
            if st == ST_TIMEOUT:
                self.tg = 0
                raise TagError(st, "tag did not answer (removed?)")
            raise TagError(st, "tag refused the command")

    def _bad(self, msg):
        e = FrameError(msg)
        self._fail(e)
        return e
