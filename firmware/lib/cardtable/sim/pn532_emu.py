# host only: never imported on the board (simulated hardware: tools/firmware/boardfiles.py)
"""A PN532 with NFC tags in its field, answering real PN532 frames (runs on MicroPython too).

PN532Emu is the controller (frames, commands, tags, fault knobs, a timing model);
Stream, I2CTarget and SPITarget are its bus faces; FakeI2C, FakeMux, FakeSPI and FakePin
stand in for machine.I2C, a TCA9548A, machine.SPI and machine.Pin so several emulated
readers can share a bus. Sources: NXP UM0701-02 (PN532 user manual), NTAG213/215/216
datasheet 265330, TI TCA9548A datasheet SCPS207H.
"""
from cardtable.compat import ticks_ms, ticks_diff
from cardtable.drivers import ndef

ACK = b"\x00\x00\xff\x00\xff\x00"
NACK = b"\x00\x00\xff\xff\x00\x00"
ERROR_FRAME = b"\x00\x00\xff\x01\xff\x7f\x81\x00"
FIRMWARE = b"\x32\x01\x06\x07"  # PN532, firmware 1.6, supports ISO 14443A/B and 18092

ST_OK = 0x00
ST_TIMEOUT = 0x01  # target did not answer
ST_NAK = 0x14  # modelled: a tag NAK (or MIFARE authentication error)
ST_NO_TARGET = 0x27  # target number not listed ("not acceptable in the current context")

EIO = 5

# Timing model, microseconds. READ/WRITE air times are from the NTAG21x datasheet; the
# activation is the ISO 14443-3 floor (issue 18, bench/README.md); the rest are estimates to
# check on hardware. bench/latency.py's EMULATED timing is this model, for its comparison with
# the rp2 board.
T_FIRMWARE_US = 500  # PN532 command processing (estimate)
T_ACTIVATE_US = 4100  # REQA/ATQA, two cascade levels and SELECT of a 7-byte UID: + 500 = 4.6 ms
T_GUARD_US = 5100  # the power-up guard time after the field comes on (ISO 14443-3): 9.7 ms in all
T_SECOND_US = 1000  # MaxTg 2 with one tag: the search for a second (estimate)
T_ATTEMPT_US = 1000  # one empty activation attempt (estimate)
T_READ_US = 368 + 1548  # READ command + 16-byte answer at 106 kbit/s
T_AIR_BYTE_US = 86  # a byte more on the air at 106 kbit/s (1548 us / 18 bytes with the CRC)
T_WRITE_US = 708 + 57  # WRITE command + ACK (EEPROM time up to TACK 10 ms not included)
T_RATS_US = 2000  # RATS/ATS for an ISO-DEP card (estimate)


def _hex(s):
    if isinstance(s, str):
        out = bytearray()
        for i in range(0, len(s), 2):
            out.append(int(s[i:i + 2], 16))
        return bytes(out)
    return bytes(s)


def _rev(b):
    r = 0
    for _ in range(8):
        r = (r << 1) | (b & 1)
        b >>= 1
    return r


REV = bytes([_rev(i) for i in range(256)])


def frame(data):
    """A normal information frame PN532 -> host around data (TFI D5 included by caller)."""
    n = len(data)
    s = 0
    for b in data:
        s += b
    return bytes((0, 0, 0xFF, n, (-n) & 0xFF)) + bytes(data) + bytes(((-s) & 0xFF, 0))


class Tag:
    """A tag: NTAG213/215/216 with real memory, or a foreign card ("classic", "bank").

    uid: bytes or hex string (7 bytes for NTAG, 4 for foreign cards). text: the card
    code written as an NDEF Text record; message: a raw NDEF message instead; neither:
    an empty NDEF TLV as delivered. blank=True: no capability container (not formatted).
    """

    def __init__(self, uid, kind=213, text=None, lang="en", message=None, blank=False):
        self.uid = _hex(uid)
        self.kind = kind
        self.ats = b""
        if kind in ndef.NTAG:
            if len(self.uid) != 7:
                raise ValueError("NTAG UIDs have 7 bytes")
            self.sens_res = b"\x00\x44"
            self.sel_res = 0x00
            self.pages = ndef.NTAG[kind][1]
            self.mem = self._image(text, lang, message, blank)
        elif kind == "classic":
            self.sens_res = b"\x00\x04"
            self.sel_res = 0x08
            self.pages = 0
            self.mem = None
        elif kind == "bank":
            self.sens_res = b"\x00\x04"
            self.sel_res = 0x20
            self.ats = b"\x05\x78\x80\x70\x02"
            self.pages = 0
            self.mem = None
        else:
            raise ValueError("unknown tag kind %r" % (kind,))
        if len(self.uid) not in (4, 7, 10):
            raise ValueError("UIDs have 4, 7 or 10 bytes")

    def _image(self, text, lang, message, blank):
        u = self.uid
        mem = bytearray(self.pages * 4)
        mem[0:4] = bytes((u[0], u[1], u[2], 0x88 ^ u[0] ^ u[1] ^ u[2]))
        mem[4:8] = u[3:7]
        mem[8:12] = bytes((u[3] ^ u[4] ^ u[5] ^ u[6], 0x48, 0x00, 0x00))
        if not blank:
            mem[12:16] = ndef.cc(self.kind)
            if text is not None:
                message = ndef.text_record(text, lang)
            area = ndef.tlv(message) if message is not None else b"\x03\x00\xfe"
            if len(area) > ndef.user_pages(self.kind) * 4:
                raise ValueError("NDEF message does not fit")
            mem[16:16 + len(area)] = area
        last = self.pages - 5  # dynamic lock, CFG0, CFG1, PWD, PACK
        mem[last * 4:last * 4 + 4] = b"\x00\x00\x00\xbd"
        mem[(last + 1) * 4:(last + 1) * 4 + 4] = b"\x04\x00\x00\xff"
        mem[(last + 2) * 4:(last + 2) * 4 + 4] = b"\x00\x05\x00\x00"
        mem[(last + 3) * 4:(last + 3) * 4 + 4] = b"\xff\xff\xff\xff"
        return mem

    def text(self):
        """The card code the tag holds now (NdefError if none)."""
        if self.mem is None:
            raise ndef.NdefError("not an NTAG")
        ndef.check_cc(self.mem, 12)
        return ndef.text_of_area(self.mem, 16)

    def _read(self, page):
        out = bytearray(16)
        total = self.pages * 4
        pwd = (self.pages - 2) * 4
        for i in range(16):
            a = (page * 4 + i) % total  # roll-over to page 0 at the end of memory
            out[i] = 0 if a >= pwd else self.mem[a]  # PWD and PACK read as zeros
        return bytes(out)

    def exchange(self, data):
        """Run one tag command; (status, answer bytes)."""
        if self.kind == "bank":
            return ST_OK, b"\x67\x00"  # ISO-DEP card: a READ is no APDU, "wrong length"
        if self.mem is None:
            return ST_NAK, b""  # MIFARE Classic wants authentication first
        cmd = data[0] if data else -1
        if cmd == 0x30 and len(data) == 2:
            if data[1] >= self.pages:
                return ST_NAK, b""
            return ST_OK, self._read(data[1])
        if cmd == 0xA2 and len(data) == 6:
            page = data[1]
            if page < 4 or page >= self.pages:
                return ST_NAK, b""
            self.mem[page * 4:page * 4 + 4] = data[2:6]
            return ST_OK, b""
        if cmd == 0x3A and len(data) == 3:
            a, b = data[1], data[2]
            if a > b or b >= self.pages:
                return ST_NAK, b""
            out = bytearray()
            for p in range(a, b + 1):
                out.extend(self._read(p)[0:4])
            return ST_OK, bytes(out)
        if cmd == 0x60:
            return ST_OK, bytes((0, 4, 4, 2, 1, 0, {213: 0x0F, 215: 0x11, 216: 0x13}[self.kind], 3))
        return ST_NAK, b""

    def _ac_key(self):
        # bits as sent during anticollision: cascade tag 0x88 first for 7/10-byte UIDs,
        # each byte LSB first; reversing each byte makes bytes compare in that order
        u = self.uid
        seq = u if len(u) == 4 else b"\x88" + u
        return bytes([REV[b] for b in seq])


class PN532Emu:
    """The PN532: feed host bytes to receive(), collect answers with ready()/take().

    Fault knobs (counts: n next commands, -1 for ever): mute (no ACK, no answer), nacks
    (NACK instead of ACK), error_frames (ACK then the error frame), corrupt (bad DCS
    in answers, including resends), corrupt_len (bad LCS, the length checksum, in answers
    and resends); slow_ms (answers become ready that much later);
    collide (two tags in the field shadow each other: no target); vanish_after (the tag
    leaves the field after that many more InDataExchange commands).
    reset() is a pulse on RSTPDN: the power-on state, fault knobs and field cleared; until a
    SAMConfiguration it is in the start-up "low battery" mode (NXP AN10609 C106 appendix) and
    activates no tag (an emulator made by the constructor starts configured, for the tests).
    """

    def __init__(self, *tags):
        self.field = list(tags)
        self.listed = []
        self.rf = False
        self.sam = 0
        self.lowvbat = False  # True after reset(): no tag is activated until SAMConfiguration
        self.max_retries = 0xFF  # MxRtyPassiveActivation power-on default
        self.mute = 0
        self.nacks = 0
        self.error_frames = 0
        self.corrupt = 0
        self.corrupt_len = 0
        self.slow_ms = 0
        self.collide = False
        self.vanish_after = -1
        self.us_per_byte = 0  # set by the bus face
        self.last_us = 0
        self.total_us = 0
        self.log = bytearray()  # command codes, in order
        self.frames = []  # host frames (TFI..data) as bytes, the last 64
        self.bad_frames = 0
        self.resets = 0  # RSTPDN pulses
        self.rf_switches = 0
        self.aborts = 0  # host ACKs that cancelled a command
        self._in = bytearray()
        self._out = []  # [frame, ready tick or None]
        self._last = None  # last answer data, for a host NACK
        self._waiting = 0  # MaxTg of an InListPassiveTarget waiting for a tag
        self._req = 0
        self._irq = None  # the P70_IRQ line (_IRQ) once irq() made it
        self._low = False  # its level as last told: low while a frame is ready

    def reset(self):
        """RSTPDN pulsed low: the PN532 starts again (tags stay where they lie)."""
        n, us, line = self.resets + 1, self.us_per_byte, self._irq
        self.__init__(*self.field)
        self.resets, self.us_per_byte, self._irq = n, us, line
        self.lowvbat = True
        self._edge()

    def watch_reset(self, pin):
        """Wire a FakePin to RSTPDN: driving it low resets the PN532."""
        pin._watch.append(lambda v: None if v else self.reset())

    # -- the field ------------------------------------------------------------

    def place(self, tag):
        """Put a tag in the field."""
        self.field.append(tag)
        self._pending()
        self._edge()
        return tag

    def remove(self, tag=None):
        """Take a tag (default: all) out of the field."""
        if tag is None:
            self.field = []
        elif tag in self.field:
            self.field.remove(tag)

    # -- host side --------------------------------------------------------------

    def receive(self, data):
        """Bytes from the host (any chunking; HSU wake-up bytes are skipped)."""
        self._in.extend(data)
        buf = self._in
        n = len(buf)
        i = 0
        while True:
            j = i
            while j + 1 < n and not (buf[j] == 0 and buf[j + 1] == 0xFF):
                j += 1
            if j + 1 >= n:
                i = j if (j < n and buf[j] == 0) else n
                break
            if j + 3 >= n:
                i = j
                break
            ln = buf[j + 2]
            lcs = buf[j + 3]
            if ln == 0 and lcs == 0xFF:
                self._host_ack()
                i = j + 4
                continue
            if ln == 0xFF and lcs == 0:
                self._host_nack()
                i = j + 4
                continue
            b = j + 4
            if ln == 0xFF and lcs == 0xFF:  # extended frame
                if j + 6 >= n:
                    i = j
                    break
                ln = (buf[j + 4] << 8) | buf[j + 5]
                if (buf[j + 4] + buf[j + 5] + buf[j + 6]) & 0xFF:
                    self.bad_frames += 1
                    i = j + 2
                    continue
                b = j + 7
            elif (ln + lcs) & 0xFF:
                self.bad_frames += 1
                i = j + 2
                continue
            if b + ln + 1 > n:
                i = j
                break
            s = 0
            for k in range(b, b + ln + 1):
                s += buf[k]
            i = b + ln + 1
            if s & 0xFF:
                self.bad_frames += 1  # a PN532 drops a frame with a bad checksum
                continue
            self._command(bytes(buf[b:b + ln]), ln + 7)
        self._in = buf[i:]
        self._edge()

    def end_transaction(self):
        """I2C STOP / SPI CS high: an unfinished frame is dropped."""
        self._in = bytearray()

    def ready(self):
        """True when a frame waits for the host."""
        self._pending()
        if not self._out:
            return False
        t = self._out[0][1]
        return t is None or ticks_diff(ticks_ms(), t) >= 0

    def take(self):
        """The next ready frame (bytes), or None."""
        if not self.ready():
            return None
        f = self._out.pop(0)[0]
        self._edge()
        return f

    @property
    def searching(self):
        """True while an InListPassiveTarget waits for a tag (retries 0xFF)."""
        return self._waiting != 0

    def irq(self):
        """The Pin-like P70_IRQ line (SAMConfiguration with IRQ, UM0701-02 7.2.10): value() is 0
        while a frame is ready for the host (an ACK, an answer); irq(handler) is called at each
        falling edge, as it happens: a tag coming into the field of a pending InListPassiveTarget
        (retries 0xFF) pulls it low at once. (An answer delayed by slow_ms falls when read.)"""
        if self._irq is None:
            self._irq = _IRQ(self)
            self._low = self.ready()
        return self._irq

    def _edge(self):
        line = self._irq
        if line is None:
            return
        low = self.ready()
        if low and not self._low and line.handler is not None:
            self._low = True
            line.handler(line)
        self._low = low

    # -- internals ------------------------------------------------------------

    def _host_ack(self):
        self.aborts += 1
        self._waiting = 0  # the host aborts the running command
        self._out = [f for f in self._out if f[0] == ACK]

    def _host_nack(self):
        if self._last is not None:
            self._out.append([self._answer_frame(self._last), None])

    def _answer_frame(self, data):
        f = frame(data)
        if self.corrupt:
            if self.corrupt > 0:
                self.corrupt -= 1
            f = f[:-2] + bytes(((f[-2] + 1) & 0xFF, 0))
        if self.corrupt_len:
            if self.corrupt_len > 0:
                self.corrupt_len -= 1
            f = f[:4] + bytes(((f[4] + 1) & 0xFF,)) + f[5:]
        return f

    def _answer(self, data):
        self._last = data
        t = None
        if self.slow_ms:
            t = (ticks_ms() + self.slow_ms) & ((1 << 30) - 1)
        self._out.append([self._answer_frame(data), t])
        cost = self._cost + self.us_per_byte * (self._req + 6 + len(data) + 7)
        self.last_us = cost
        self.total_us += cost

    def _command(self, body, nbytes):
        self.frames.append(body)
        if len(self.frames) > 64:
            self.frames.pop(0)
        if self.mute:
            if self.mute > 0:
                self.mute -= 1
            return
        if self.nacks:
            if self.nacks > 0:
                self.nacks -= 1
            self._out.append([NACK, None])
            return
        self._waiting = 0
        self._out = []  # a new command replaces an answer nobody read
        self._out.append([ACK, None])
        self._req = nbytes
        self._cost = T_FIRMWARE_US
        if len(body) < 2 or body[0] != 0xD4:
            self._out.append([ERROR_FRAME, None])
            return
        cmd = body[1]
        self.log.append(cmd)
        if len(self.log) > 256:         # keep the last commands only (it lives in the board's heap)
            self.log = self.log[-128:]
        if self.error_frames:
            if self.error_frames > 0:
                self.error_frames -= 1
            self._out.append([ERROR_FRAME, None])
            return
        p = body[2:]
        h = _HANDLERS.get(cmd)
        r = h(self, p) if h is not None else -1
        if r == -1:
            self._out.append([ERROR_FRAME, None])  # unknown command or bad parameters
        elif r is not None:
            self._answer(bytes((0xD5, cmd + 1)) + r)

    def _cmd_firmware(self, p):
        return FIRMWARE

    def _cmd_sam(self, p):
        if len(p) < 1 or not 1 <= p[0] <= 4:
            return -1
        self.sam = p[0]
        self.lowvbat = False
        return b""

    def _cmd_rfconfig(self, p):
        if len(p) < 2:
            return -1
        item = p[0]
        if item == 1:
            on = bool(p[1] & 1)
            if on != self.rf:
                self.rf_switches += 1
            self.rf = on
        elif item == 5:
            if len(p) < 4:
                return -1
            self.max_retries = p[3]
        elif item not in (2, 4, 0x0A, 0x0B, 0x0C, 0x0D):
            return -1
        return b""

    def _rf_on(self):
        if not self.rf:
            self.rf_switches += 1
        self.rf = True

    def _activate(self, maxtg):
        if self.lowvbat:
            return []  # not configured since its reset: it finds nothing
        found = list(self.field)
        if len(found) > 1 and self.collide:
            return []
        # at the first colliding bit the reader goes on with the tag sending 1
        found.sort(key=Tag._ac_key, reverse=True)
        return found[:maxtg]

    def _list_answer(self, found):
        self.listed = found
        out = bytearray((len(found),))
        for i in range(len(found)):
            t = found[i]
            out.append(i + 1)
            out.extend(t.sens_res)
            out.append(t.sel_res)
            out.append(len(t.uid))
            out.extend(t.uid)
            out.extend(t.ats)
            self._cost += T_ACTIVATE_US + (T_RATS_US if t.ats else 0)
        return bytes(out)

    def _cmd_list(self, p):
        if len(p) < 2 or not 1 <= p[0] <= 2:
            return -1
        cold = not self.rf  # the field comes on for this poll: the guard time first
        self._rf_on()
        self.listed = []
        found = self._activate(p[0]) if p[1] == 0 else []
        if found:
            if cold:
                self._cost += T_GUARD_US
            if len(found) < p[0]:
                self._cost += T_SECOND_US
            return self._list_answer(found)
        if self.max_retries == 0xFF:
            self._waiting = p[0]  # no answer until a tag comes (or the host aborts)
            return None
        self._cost += T_ATTEMPT_US * (self.max_retries + 1)
        return b"\x00"

    def _pending(self):
        if self._waiting and self.field:
            found = self._activate(self._waiting)
            if found:
                self._waiting = 0
                self._cost = T_FIRMWARE_US
                self._answer(b"\xd5\x4b" + self._list_answer(found))

    def _cmd_exchange(self, p):
        if len(p) < 2:
            return -1
        tg = p[0] & 0x0F
        if tg < 1 or tg > len(self.listed):
            return bytes((ST_NO_TARGET,))
        return self._to_tag(self.listed[tg - 1], p[1:])

    def _cmd_thru(self, p):
        # InCommunicateThru (UM0701-02 7.3.9): the bytes as they are to the target listed
        # (the PN532 adds and checks the CRC), e.g. an NTAG FAST_READ
        if len(p) < 1:
            return -1
        if not self.listed:
            return bytes((ST_NO_TARGET,))
        return self._to_tag(self.listed[0], p)

    def _to_tag(self, tag, data):
        if not self.rf or tag not in self.field:
            return bytes((ST_TIMEOUT,))
        if self.vanish_after >= 0:
            if self.vanish_after == 0:
                self.vanish_after = -1
                self.remove(tag)
                return bytes((ST_TIMEOUT,))
            self.vanish_after -= 1
        st, out = tag.exchange(data)
        if data[0] == 0xA2:
            self._cost += T_WRITE_US
        else:  # a READ; a FAST_READ's command byte and answer beyond 16 bytes more on the air
            self._cost += T_READ_US + T_AIR_BYTE_US * (len(data) - 2 + max(0, len(out) - 16))
        return bytes((st,)) + out

    def _cmd_release(self, p):
        if len(p) < 1:
            return -1
        tg = p[0]
        if tg == 0:
            self.listed = []
        elif tg <= len(self.listed):
            self.listed = self.listed[:tg - 1] + self.listed[tg:]
        else:
            return bytes((ST_NO_TARGET,))
        return b"\x00"

    def _cmd_deselect(self, p):
        if len(p) < 1:
            return -1
        return b"\x00" if p[0] <= len(self.listed) else bytes((ST_NO_TARGET,))

    def _cmd_status(self, p):
        out = bytearray((0, 1 if self.rf else 0, len(self.listed)))
        for i in range(len(self.listed)):
            out.extend(bytes((i + 1, 0, 0, 0)))
        out.append(0)
        return bytes(out)

    def _cmd_powerdown(self, p):
        if len(p) < 1:
            return -1
        return b"\x00"


_HANDLERS = {
    0x02: PN532Emu._cmd_firmware,
    0x04: PN532Emu._cmd_status,
    0x14: PN532Emu._cmd_sam,
    0x16: PN532Emu._cmd_powerdown,
    0x32: PN532Emu._cmd_rfconfig,
    0x40: PN532Emu._cmd_exchange,
    0x42: PN532Emu._cmd_thru,
    0x44: PN532Emu._cmd_deselect,
    0x4A: PN532Emu._cmd_list,
    0x52: PN532Emu._cmd_release,
}


class _IRQ:
    IRQ_FALLING = 4  # (as machine.Pin on the rp2 port; only falling edges are reported)

    def __init__(self, emu):
        self.emu = emu
        self.handler = None

    def value(self, v=None):
        return 0 if self.emu.ready() else 1

    def irq(self, handler=None, trigger=IRQ_FALLING, hard=False):
        """Call handler(self) at each falling edge (machine.Pin.irq's signature)."""
        self.handler = handler


# -- bus faces -----------------------------------------------------------------


class Stream:
    """The HSU (UART) face: pyserial-like (write, read, in_waiting, reset_input_buffer)
    and machine.UART-like (any, readinto)."""

    def __init__(self, emu, baud=115200):
        self.emu = emu
        emu.us_per_byte = 10000000 // baud  # start + 8 data + stop bits
        self._buf = bytearray()

    def _pump(self):
        while True:
            f = self.emu.take()
            if f is None:
                return
            self._buf.extend(f)

    def write(self, data):
        self.emu.receive(data)
        return len(data)

    @property
    def in_waiting(self):
        self._pump()
        return len(self._buf)

    def any(self):
        self._pump()
        return len(self._buf)

    def read(self, n=1):
        self._pump()
        r = bytes(self._buf[:n])
        self._buf = self._buf[n:]
        return r

    def readinto(self, buf):
        self._pump()
        n = min(len(buf), len(self._buf))
        if not n:
            return None
        for i in range(n):
            buf[i] = self._buf[i]
        self._buf = self._buf[n:]
        return n

    def reset_input_buffer(self):
        self._pump()
        self._buf = bytearray()

    def flush(self):
        pass


class I2CTarget:
    """The I2C face at 0x24: each read gives the status byte (0x01 ready), then the frame."""

    def __init__(self, emu, khz=400):
        self.emu = emu
        emu.us_per_byte = 9000 // khz  # 8 bits + ACK

    def write(self, data):
        self.emu.receive(data)
        self.emu.end_transaction()

    def read(self, buf):
        n = len(buf)
        if not self.emu.ready():
            for i in range(n):
                buf[i] = 0
            return
        buf[0] = 1
        if n == 1:
            return  # a status poll leaves the frame in place
        f = self.emu.take()
        k = min(n - 1, len(f))
        buf[1:1 + k] = f if k == len(f) else f[:k]
        for i in range(1 + k, n):
            buf[i] = 0


class FakeMux:
    """A TCA9548A: one control byte, bit n connects channel n."""

    def __init__(self, addr=0x70):
        self.addr = addr
        self.mask = 0
        self.writes = 0


class FakeI2C:
    """machine.I2C stand-in holding PN532 faces, directly or behind FakeMux channels.

    Several devices answering one address read as the wired-AND of their bytes, as
    on a real open-drain bus; no device answering raises OSError(EIO).
    """

    def __init__(self):
        self.devices = []  # (addr, face, mux, channel)
        self.muxes = []
        self.transactions = 0

    def add_mux(self, addr=0x70):
        m = FakeMux(addr)
        self.muxes.append(m)
        return m

    def attach(self, emu, addr=0x24, mux=None, channel=0, khz=400):
        face = I2CTarget(emu, khz)
        self.devices.append((addr, face, mux, channel))
        return face

    def _mux(self, addr):
        for m in self.muxes:
            if m.addr == addr:
                return m
        return None

    def _only(self, addr):
        """The one face answering addr; None if none does, False if several do (allocates
        nothing: it is asked at every transaction)."""
        found = None
        for a, face, mux, ch in self.devices:
            if a == addr and (mux is None or mux.mask & (1 << ch)):
                if found is not None:
                    return False
                found = face
        return found

    def _visible(self, addr):
        out = []
        for a, face, mux, ch in self.devices:
            if a == addr and (mux is None or mux.mask & (1 << ch)):
                out.append(face)
        return out

    def scan(self):
        found = [m.addr for m in self.muxes]
        for a, face, mux, ch in self.devices:
            if a not in found and self._visible(a):
                found.append(a)
        return sorted(found)

    def writeto(self, addr, buf, stop=True):
        self.transactions += 1
        m = self._mux(addr)
        if m is not None:
            if len(buf):
                m.mask = buf[len(buf) - 1]
                m.writes += 1
            return len(buf)
        face = self._only(addr)
        if face is None:
            raise OSError(EIO)
        if face:
            face.write(buf)  # (the emulator copies what it keeps)
            return len(buf)
        faces = self._visible(addr)  # several answer
        data = bytes(buf)
        for f in faces:
            f.write(data)
        return len(buf)

    def readfrom_into(self, addr, buf, stop=True):
        self.transactions += 1
        m = self._mux(addr)
        if m is not None:
            for i in range(len(buf)):
                buf[i] = m.mask
            return
        face = self._only(addr)
        if face is None:
            raise OSError(EIO)
        if face:
            face.read(buf)
            return
        faces = self._visible(addr)  # several answer: the wired-AND of their bytes
        faces[0].read(buf)
        for f in faces[1:]:
            tmp = bytearray(len(buf))
            f.read(tmp)
            for i in range(len(buf)):
                buf[i] &= tmp[i]

    def readfrom(self, addr, n, stop=True):
        buf = bytearray(n)
        self.readfrom_into(addr, buf)
        return bytes(buf)


class FakePin:
    """machine.Pin stand-in: value([v]); SPI faces watch their chip select."""

    def __init__(self, value=1):
        self._v = value
        self._watch = []

    def value(self, v=None):
        if v is None:
            return self._v
        v = 1 if v else 0
        if v != self._v:
            self._v = v
            for f in self._watch:
                f(v)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)


class SPITarget:
    """The SPI face: LSB-first bytes; 01 data write, 02 status read, 03 data read."""

    def __init__(self, emu, cs, mhz=1):
        self.emu = emu
        self.cs = cs
        emu.us_per_byte = 8 // mhz if mhz < 8 else 1
        self._op = -1
        self._w = bytearray()
        self._r = None
        self._ri = 0
        cs._watch.append(self._edge)

    def _edge(self, v):
        if v == 0:
            self._op = -1
            self._w = bytearray()
            self._r = None
            self._ri = 0
        elif self._op == 1:
            self.emu.receive(self._w)
            self.emu.end_transaction()

    def xfer(self, wire):
        """One byte each way; wire values are as an MSB-first master sees them."""
        v = REV[wire]
        if self._op < 0:
            self._op = v
            return 0
        if self._op == 1:
            self._w.append(v)
            return 0
        if self._op == 2:
            return REV[1 if self.emu.ready() else 0]
        if self._op == 3:
            if self._r is None:
                self._r = self.emu.take() or b""
            b = self._r[self._ri] if self._ri < len(self._r) else 0
            self._ri += 1
            return REV[b]
        return 0

    def write(self, buf):
        """xfer() of each byte of buf, the answers dropped (a driver's write)."""
        i = 0
        if self._op < 0 and len(buf):
            self._op = REV[buf[0]]
            i = 1
        if self._op == 1:
            w = self._w
            for k in range(i, len(buf)):
                w.append(REV[buf[k]])
        elif self._op == 3 and i < len(buf):
            self.readinto(bytearray(len(buf) - i), 0)  # clocks the frame out all the same

    def readinto(self, buf, wire):
        """xfer(wire) for each byte of buf, the answers into buf (a driver's read)."""
        n = len(buf)
        i = 0
        if self._op < 0 and n:
            self._op = REV[wire]
            buf[0] = 0
            i = 1
        op = self._op
        if op == 3:
            if self._r is None:
                self._r = self.emu.take() or b""
            r = self._r
            ri = self._ri
            m = len(r)
            for k in range(i, n):
                buf[k] = REV[r[ri]] if ri < m else 0
                ri += 1
            self._ri = ri
            return
        for k in range(i, n):
            buf[k] = self.xfer(wire)


class FakeSPI:
    """machine.SPI stand-in (MSB first) routing bytes to the faces whose CS is low."""

    def __init__(self):
        self.faces = []
        self.selected = []  # the faces whose CS is low, kept by watching each CS
        self.contention = 0

    def attach(self, emu, cs, mhz=1):
        face = SPITarget(emu, cs, mhz)
        self.faces.append(face)
        if cs.value() == 0:
            self.selected.append(face)
        cs._watch.append(lambda v: self._select(face, v))
        return face

    def _select(self, face, v):
        if v:
            self.selected.remove(face)
        else:
            self.selected.append(face)

    def _byte(self, b):
        out = 0xFF  # nobody drives MISO: pulled up
        for f in self.selected:
            out &= f.xfer(b)
        if len(self.selected) > 1:
            self.contention += 1
        return out

    # One face selected (a working bus): whole buffers at once, as many bytes as _byte() each.
    def write(self, buf):
        sel = self.selected
        if len(sel) == 1:
            sel[0].write(buf)
            return
        for b in buf:
            self._byte(b)

    def readinto(self, buf, write=0x00):
        sel = self.selected
        if len(sel) == 1:
            sel[0].readinto(buf, write)
            return
        for i in range(len(buf)):
            buf[i] = self._byte(write)

    def write_readinto(self, wbuf, rbuf):
        for i in range(len(wbuf)):
            rbuf[i] = self._byte(wbuf[i])
