"""`cardtable referee` on mutated records (recordfuzz): a clear one-line error naming the line and
exit 2 for a malformed record, 0 or 1 otherwise, never a traceback; other encodings are read."""
import codecs

import recordfuzz
from support import fixture

RECORDS = 300  # `make bench` mutates thousands


def _malformed_ok(rc, err):
    """Exit 2 with one line on stderr that names the line: True; a traceback or vagueness: False."""
    lines = err.strip().splitlines()
    return rc == 2 and len(lines) == 1 and ": line " in lines[0] and len(lines[0]) < 500


def test_mutated_records_get_a_verdict_or_a_clear_error_naming_the_line():
    counts = {0: 0, 1: 0, 2: 0}
    for data in recordfuzz.records(15, RECORDS):
        rc, err = recordfuzz.judge(data)
        assert rc in counts, (data[:200], err)
        assert "Traceback" not in err, err
        if rc == 2:
            assert _malformed_ok(rc, err), (data[:200], err)
        counts[rc] += 1
    assert counts[2] > RECORDS // 3 and counts[0] + counts[1] > RECORDS // 10, counts


def _legal(game):
    return "\n".join(fixture(game, "legal.jsonl")).encode()


def test_a_record_in_utf16_or_with_a_byte_order_mark_is_refereed_as_in_utf8():
    data = _legal("fortyfives")
    assert recordfuzz.judge(data)[0] == 0
    for enc in ("utf-16", "utf-16-be"):
        text = data.decode()
        raw = codecs.BOM_UTF16_BE + text.encode(enc) if enc == "utf-16-be" else text.encode(enc)
        assert recordfuzz.judge(raw) == (0, ""), enc
    assert recordfuzz.judge(codecs.BOM_UTF8 + data) == (0, "")
    assert recordfuzz.judge(data.replace(b"\n", b"\r\n")) == (0, "")


def test_utf16_without_its_mark_and_binary_junk_are_malformed_at_their_line():
    data = _legal("california-jacks")
    rc, err = recordfuzz.judge(data.decode().encode("utf-16-le"))
    assert _malformed_ok(rc, err) and "line 1: NUL bytes" in err and "UTF-8" in err, err
    lines = data.split(b"\n")
    lines[3] = b"\x89PNG\r\x1a\x00\xff\xfe junk"
    rc, err = recordfuzz.judge(b"\n".join(lines))
    assert _malformed_ok(rc, err) and "line 4: byte" in err and "is not UTF-8 text" in err, err


def test_a_huge_or_deeply_nested_line_is_named_in_one_short_line():
    lines = _legal("nexus").split(b"\n")
    lines[2] = b'{"seat": 0, "act": "play", "card": "' + b"X" * 500000 + b'"}'
    rc, err = recordfuzz.judge(b"\n".join(lines))
    assert _malformed_ok(rc, err) and "line 3: bad card code" in err, err
    lines[2] = b'{"seat": 0, "act": "play", "card": ' + b"[" * 100000 + b"]" * 100000 + b"}"
    rc, err = recordfuzz.judge(b"\n".join(lines))
    assert _malformed_ok(rc, err) and "line 3: not a JSON object" in err, err
