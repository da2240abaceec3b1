"""NDEF on NFC Forum Type 2 tags (NTAG21x): capability container, TLVs, text records."""

# Sources: NFC Forum Type 2 Tag spec (TLV blocks), NFCForum-TS-RTD_Text_1.0,
# NXP NTAG213/215/216 datasheet (CC bytes, memory sizes).

TLV_NULL = 0x00
TLV_LOCK = 0x01
TLV_MEMORY = 0x02
TLV_NDEF = 0x03
TLV_PROPRIETARY = 0xFD
TLV_TERMINATOR = 0xFE

TNF_WELL_KNOWN = 1

# NTAG kind -> (CC size byte = user bytes / 8, total pages)
NTAG = {213: (0x12, 45), 215: (0x3E, 135), 216: (0x6D, 231)}

_URI_PREFIXES = ("", "http://www.", "https://www.", "http://", "https://")


class NdefError(ValueError):
    """The tag holds no usable NDEF text (blank, foreign, malformed or too long)."""


def cc(kind):
    """The 4-byte capability container (page 3) of an NDEF-formatted NTAG of this kind."""
    return bytes((0xE1, 0x10, NTAG[kind][0], 0x00))


def user_pages(kind):
    """Number of user pages (from page 4) of an NTAG kind."""
    return NTAG[kind][0] * 2


def check_cc(buf, off=0):
    """Raise NdefError unless buf[off:off+4] is a readable NDEF capability container."""
    if buf[off] != 0xE1:
        raise NdefError("tag is not NDEF formatted (CC %02x)" % buf[off])
    if buf[off + 1] >> 4 != 1:
        raise NdefError("unsupported NDEF mapping version %02x" % buf[off + 1])
    if buf[off + 3] >> 4 != 0:
        raise NdefError("NDEF area not readable")


def record(tnf, rtype, payload, mb=True, me=True):
    """One NDEF record (short form when the payload fits in 255 bytes)."""
    n = len(payload)
    hdr = (0x80 if mb else 0) | (0x40 if me else 0) | (tnf & 7)
    if n < 256:
        head = bytes((hdr | 0x10, len(rtype), n))
    else:
        head = bytes((hdr, len(rtype), n >> 24, (n >> 16) & 0xFF, (n >> 8) & 0xFF, n & 0xFF))
    return head + bytes(rtype) + bytes(payload)


def text_record(text, lang="en"):
    """A well-known Text record ('T'), UTF-8, with its IANA language code."""
    lb = lang.encode()
    if len(lb) > 63:
        raise NdefError("language code too long")
    return record(TNF_WELL_KNOWN, b"T", bytes((len(lb),)) + lb + text.encode())


def uri_record(uri):
    """A well-known URI record ('U'), abbreviating a common prefix."""
    code = 0
    for i in range(len(_URI_PREFIXES) - 1, 0, -1):
        p = _URI_PREFIXES[i]
        if uri.startswith(p) and len(p) > len(_URI_PREFIXES[code]):
            code = i
    return record(TNF_WELL_KNOWN, b"U", bytes((code,)) + uri[len(_URI_PREFIXES[code]):].encode())


def tlv(msg):
    """Wrap an NDEF message into the NDEF Message TLV plus the Terminator TLV."""
    n = len(msg)
    if n < 0xFF:
        head = bytes((TLV_NDEF, n))
    else:
        head = bytes((TLV_NDEF, 0xFF, n >> 8, n & 0xFF))
    return head + bytes(msg) + bytes((TLV_TERMINATOR,))


def text_tlv(text, lang="en"):
    """The bytes to store from page 4 for a card code: TLV(text record) + terminator."""
    return tlv(text_record(text, lang))


def padded(data):
    """data padded with zeros to whole 4-byte pages."""
    r = len(data) % 4
    return bytes(data) + bytes((4 - r) % 4)


def message_span(buf, start, end):
    """(offset, length) of the NDEF message in the TLV area buf[start:end]; (-1, 0): read more."""
    i = start
    while i < end:
        t = buf[i]
        if t == TLV_NULL:
            i += 1
            continue
        if t == TLV_TERMINATOR:
            raise NdefError("no NDEF message on tag")
        if i + 1 >= end:
            return -1, 0
        n = buf[i + 1]
        hl = 2
        if n == 0xFF:
            if i + 3 >= end:
                return -1, 0
            n = (buf[i + 2] << 8) | buf[i + 3]
            hl = 4
        if t == TLV_NDEF:
            if n == 0:
                raise NdefError("empty NDEF message")
            return i + hl, n
        if t not in (TLV_LOCK, TLV_MEMORY, TLV_PROPRIETARY):
            raise NdefError("unknown TLV %02x" % t)
        i += hl + n
    return -1, 0


def _records(buf, off, n):
    """Yield (tnf, type_start, type_len, payload_start, payload_len) for each record."""
    i = off
    end = off + n
    while i < end:
        h = buf[i]
        if h & 0x20:
            raise NdefError("chunked NDEF records are not supported")
        if i + 2 >= end:
            raise NdefError("truncated NDEF record")
        tl = buf[i + 1]
        if h & 0x10:
            pl = buf[i + 2]
            j = i + 3
        else:
            if i + 5 >= end:
                raise NdefError("truncated NDEF record")
            if buf[i + 2]:
                raise NdefError("NDEF record too long")
            pl = (buf[i + 3] << 16) | (buf[i + 4] << 8) | buf[i + 5]
            j = i + 6
        il = 0
        if h & 0x08:
            il = buf[j]
            j += 1
        ts = j
        ps = j + tl + il
        if ps + pl > end:
            raise NdefError("truncated NDEF record")
        yield h & 7, ts, tl, ps, pl
        i = ps + pl
        if h & 0x40:
            return


def records(buf, off=0, n=None):
    """All records of the message buf[off:off+n] as (tnf, type, payload) bytes tuples."""
    if n is None:
        n = len(buf) - off
    out = []
    for tnf, ts, tl, ps, pl in _records(buf, off, n):
        out.append((tnf, bytes(buf[ts:ts + tl]), bytes(buf[ps:ps + pl])))
    return out


def text(buf, off=0, n=None):
    """The text of the first Text record of the message buf[off:off+n]; NdefError if none."""
    if n is None:
        n = len(buf) - off
    for tnf, ts, tl, ps, pl in _records(buf, off, n):
        if tnf == TNF_WELL_KNOWN and tl == 1 and buf[ts] == 0x54:
            if pl < 1:
                raise NdefError("empty Text record")
            status = buf[ps]
            if status & 0x80:
                raise NdefError("UTF-16 Text records are not supported")
            ll = status & 0x3F
            if 1 + ll > pl:
                raise NdefError("bad language length in Text record")
            try:
                return str(bytes(buf[ps + 1 + ll:ps + pl]), "utf-8")
            except UnicodeError:
                raise NdefError("Text record is not valid UTF-8")
    raise NdefError("no Text record on tag")


def text_of_area(area, start=0):
    """The card code stored in a TLV area (the bytes from page 4 on)."""
    off, n = message_span(area, start, len(area))
    if off < 0 or off + n > len(area):
        raise NdefError("NDEF message runs past the end of the data")
    return text(area, off, n)
