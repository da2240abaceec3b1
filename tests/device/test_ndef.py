"""NDEF on NTAG: the bytes a card's tag holds, and what the reader makes of foreign ones."""
from support import raises

from cardtable.drivers import ndef
from cardtable.drivers.ndef import NdefError


def _area(tlv_bytes):
    """A TLV area as read from page 4, padded like tag memory."""
    return bytearray(tlv_bytes) + bytearray(16)


def test_card_code_bytes_match_the_spec():
    # NFC Forum Text RTD: D1 01 05 'T' 02 'en' 'AS', in an NDEF TLV with a terminator
    assert ndef.text_tlv("AS") == bytes(
        [0x03, 0x09, 0xD1, 0x01, 0x05, 0x54, 0x02, 0x65, 0x6E, 0x41, 0x53, 0xFE])


def test_card_codes_round_trip():
    for code in ("AS", "10H", "4MS", "AS#2", "X", "M6", "30", "10H#12", "BJ"):
        assert ndef.text_of_area(_area(ndef.text_tlv(code))) == code


def test_non_ascii_text_round_trips_as_utf8():
    assert ndef.text_of_area(_area(ndef.text_tlv("Mühle", "de"))) == "Mühle"


def test_long_text_uses_long_lengths():
    text = "x" * 300
    t = ndef.text_tlv(text)
    assert t[0] == 0x03 and t[1] == 0xFF  # 3-byte TLV length
    assert t[4] & 0x10 == 0  # not a short record
    assert ndef.text_of_area(_area(t)) == text


def test_null_and_lock_control_tlvs_are_skipped():
    area = _area(b"\x00\x00\x01\x03\xa0\x0c\x34" + ndef.text_tlv("QH"))
    off, n = ndef.message_span(area, 0, len(area))
    assert off == 9 and n == 9
    assert ndef.text_of_area(area) == "QH"


def test_header_cut_by_the_read_asks_for_more():
    t = ndef.text_tlv("KD")
    assert ndef.message_span(t, 0, 1) == (-1, 0)
    assert ndef.message_span(b"\x03\xff\x01", 0, 3) == (-1, 0)
    off, n = ndef.message_span(t, 0, 4)  # header complete, message not yet
    assert (off, n) == (2, 9)


def test_blank_and_empty_tags_are_rejected():
    e = raises(NdefError, ndef.text_of_area, _area(b"\x03\x00\xfe"))
    assert "empty" in str(e)
    e = raises(NdefError, ndef.text_of_area, _area(b"\xfe"))
    assert "no NDEF" in str(e)
    e = raises(NdefError, ndef.text_of_area, _area(b"\x42\x01\x00"))
    assert "unknown TLV" in str(e)


def test_uri_only_tag_has_no_card_code():
    area = _area(ndef.tlv(ndef.uri_record("https://example.com/")))
    e = raises(NdefError, ndef.text_of_area, area)
    assert "no Text record" in str(e)
    recs = ndef.records(area, 2, area[1])
    assert recs == [(1, b"U", b"\x04example.com/")]


def test_text_found_after_another_record():
    msg = ndef.record(1, b"U", b"\x04x.org", mb=True, me=False) + ndef.record(
        1, b"T", b"\x02en7C", mb=False, me=True)
    assert ndef.text_of_area(_area(ndef.tlv(msg))) == "7C"


def test_malformed_records_are_rejected():
    e = raises(NdefError, ndef.text, b"\xd1\x01\x09T\x02en", 0, 7)
    assert "truncated" in str(e)
    e = raises(NdefError, ndef.text, b"\xd1\x01\x05T\x82enAS", 0, 9)
    assert "UTF-16" in str(e)
    e = raises(NdefError, ndef.text, b"\xd1\x01\x03T\x09AS", 0, 7)
    assert "language" in str(e)
    e = raises(NdefError, ndef.text, b"\xb1\x01\x03T\x02AS", 0, 7)
    assert "chunked" in str(e)


def test_capability_containers():
    assert ndef.cc(213) == b"\xe1\x10\x12\x00"
    assert ndef.cc(215) == b"\xe1\x10\x3e\x00"
    assert ndef.cc(216) == b"\xe1\x10\x6d\x00"
    assert (ndef.user_pages(213), ndef.user_pages(215), ndef.user_pages(216)) == (36, 124, 218)
    ndef.check_cc(ndef.cc(215))
    assert "not NDEF formatted" in str(raises(NdefError, ndef.check_cc, b"\x00\x00\x00\x00"))
    assert "not readable" in str(raises(NdefError, ndef.check_cc, b"\xe1\x10\x12\x80"))


def test_padding_to_pages():
    assert ndef.padded(b"\x03\x00\xfe") == b"\x03\x00\xfe\x00"
    assert len(ndef.padded(ndef.text_tlv("AS"))) == 12  # pages 4-6: one READ from page 3
    assert len(ndef.padded(ndef.text_tlv("10H"))) == 16
