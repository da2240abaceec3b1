"""The emulator is honest: Adafruit's PN532 driver (2.4.9) talks to it over a real pty."""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator

import pytest

pytest.importorskip("termios")  # the pty bridge is POSIX only

import serial  # noqa: E402
from adafruit_pn532.uart import PN532_UART  # noqa: E402

from cardtable.drivers import ndef  # noqa: E402
from cardtable.sim.pn532_emu import PN532Emu, Tag  # noqa: E402
from cardtable_host.sim.pty import PtyPN532  # noqa: E402

UID = bytes.fromhex("04112233445566")


@pytest.fixture
def rig() -> Iterator[tuple[PtyPN532, serial.Serial]]:
    with PtyPN532(PN532Emu()) as bridge:
        # 0.3 s: the pty relay is a thread; under a loaded CI machine 0.1 s can miss an ACK
        with serial.Serial(bridge.port, 115200, timeout=0.3) as ser:
            yield bridge, ser


def place(bridge: PtyPN532, tag: Tag) -> Tag:
    with bridge.lock:
        bridge.emu.place(tag)
    return tag


def read_code(pn: PN532_UART) -> str:
    """Read the NDEF area page by page with the Adafruit calls, decode it with ours."""
    cc = pn.ntag2xx_read_block(3)
    assert cc is not None
    ndef.check_cc(cc)
    area = bytearray()
    for page in range(4, 4 + cc[2] * 2):
        block = pn.ntag2xx_read_block(page)
        assert block is not None, "READ of page %d failed" % page
        area += block
        if len(area) >= area[1] + 2:  # TLV header + message
            break
    return ndef.text_of_area(bytes(area) + bytes(8))


def test_firmware_version(rig: tuple[PtyPN532, serial.Serial]) -> None:
    bridge, ser = rig
    pn = PN532_UART(ser)
    assert pn.firmware_version == (0x32, 1, 6, 7)
    assert bridge.emu.sam == 1  # the driver's SAMConfiguration arrived after the HSU wake-up


def test_read_uid_and_card_code(rig: tuple[PtyPN532, serial.Serial]) -> None:
    bridge, ser = rig
    pn = PN532_UART(ser)
    place(bridge, Tag(UID, kind=213, text="AS"))
    assert pn.read_passive_target(timeout=0.5) == UID
    assert read_code(pn) == "AS"
    assert list(bridge.emu.log)[:3] == [0x14, 0x02, 0x4A]


def test_write_and_read_back(rig: tuple[PtyPN532, serial.Serial]) -> None:
    bridge, ser = rig
    pn = PN532_UART(ser)
    tag = place(bridge, Tag("04a0a1a2a3a4a5", kind=215))  # NDEF-formatted, empty
    assert pn.read_passive_target(timeout=0.5) == tag.uid
    data = ndef.padded(ndef.text_tlv("10H"))
    for i in range(0, len(data), 4):
        assert pn.ntag2xx_write_block(4 + i // 4, data[i:i + 4])
    assert not pn.ntag2xx_write_block(1, b"\xff\xff\xff\xff")  # UID page is read-only
    assert read_code(pn) == "10H"
    with bridge.lock:
        assert tag.text() == "10H"


def test_no_tag_times_out_then_a_tag_is_found(rig: tuple[PtyPN532, serial.Serial]) -> None:
    bridge, ser = rig
    pn = PN532_UART(ser)
    t0 = time.monotonic()
    assert pn.read_passive_target(timeout=0.2) is None
    assert 0.2 <= time.monotonic() - t0 < 5.0  # it waits its timeout, then gives up (no hang)
    # the PN532 is still looking (retries 0xFF): it answers that old search as the tag arrives
    place(bridge, Tag(UID, text="KD"))
    deadline = time.monotonic() + 5
    while not ser.in_waiting and time.monotonic() < deadline:
        time.sleep(0.01)
    assert ser.in_waiting, "the pending search was not answered when the tag arrived"
    # the driver drops that stale answer and asks again
    assert pn.read_passive_target(timeout=0.5) == UID
    assert read_code(pn) == "KD"


def test_slow_answer_looks_like_no_tag(rig: tuple[PtyPN532, serial.Serial]) -> None:
    bridge, ser = rig
    pn = PN532_UART(ser)
    place(bridge, Tag(UID, text="AS"))
    with bridge.lock:
        bridge.emu.slow_ms = 400
    assert pn.read_passive_target(timeout=0.2) is None
    with bridge.lock:
        bridge.emu.slow_ms = 0
    assert pn.read_passive_target(timeout=0.5) == UID


@pytest.mark.parametrize(
    "knob, message",
    [
        ("nacks", "Did not receive expected ACK"),
        ("corrupt", "checksum did not match"),
        ("error_frames", "unexpected command response"),
    ],
)
def test_fault_knobs_give_the_adafruit_errors(
    rig: tuple[PtyPN532, serial.Serial], knob: str, message: str
) -> None:
    bridge, ser = rig
    pn = PN532_UART(ser)
    with bridge.lock:
        setattr(bridge.emu, knob, 1)
    with pytest.raises(RuntimeError, match=message):
        pn.firmware_version
    assert pn.firmware_version == (0x32, 1, 6, 7)  # one-shot knob: the next call is clean


def test_mute_reader_is_not_detected(rig: tuple[PtyPN532, serial.Serial]) -> None:
    bridge, ser = rig
    with bridge.lock:
        bridge.emu.mute = -1
    with pytest.raises(RuntimeError, match="Failed to detect the PN532"):
        PN532_UART(ser)


def test_two_tags_read_as_one(rig: tuple[PtyPN532, serial.Serial]) -> None:
    bridge, ser = rig
    pn = PN532_UART(ser)
    place(bridge, Tag("04020000000001", text="KS"))
    place(bridge, Tag("04010000000001", text="AS"))
    assert pn.read_passive_target(timeout=0.5) == bytes.fromhex("04010000000001")
    assert read_code(pn) == "AS"


def test_tag_removed_mid_read(rig: tuple[PtyPN532, serial.Serial]) -> None:
    bridge, ser = rig
    pn = PN532_UART(ser)
    place(bridge, Tag(UID, text="AS"))
    assert pn.read_passive_target(timeout=0.5) == UID
    with bridge.lock:
        bridge.emu.vanish_after = 1
    assert pn.ntag2xx_read_block(3) is not None
    assert pn.ntag2xx_read_block(4) is None  # status 0x01: the tag did not answer


def test_foreign_cards(rig: tuple[PtyPN532, serial.Serial]) -> None:
    bridge, ser = rig
    pn = PN532_UART(ser)
    place(bridge, Tag("08a1b2c3", kind="bank"))
    assert pn.read_passive_target(timeout=0.5) == bytes.fromhex("08a1b2c3")
    block = pn.ntag2xx_read_block(3)
    assert block == b"\x67\x00"  # an ISO-DEP card answers a READ with an APDU error
    with bridge.lock:
        bridge.emu.remove()
    place(bridge, Tag("c0ffee01", kind="classic"))
    assert pn.read_passive_target(timeout=0.5) == bytes.fromhex("c0ffee01")
    assert pn.ntag2xx_read_block(4) is None  # MIFARE Classic: needs authentication


def _open_fds() -> set[str]:
    for d in ("/proc/self/fd", "/dev/fd"):
        if os.path.isdir(d):
            return set(os.listdir(d))
    pytest.skip("cannot list open file descriptors here")


def test_bridge_stops_cleanly() -> None:
    before = _open_fds()
    threads = threading.active_count()
    with PtyPN532() as bridge:
        port = bridge.port
        with serial.Serial(port, 115200, timeout=0.1) as ser:
            assert PN532_UART(ser).firmware_version[0] == 0x32
    assert threading.active_count() == threads
    assert _open_fds() - before == set()  # no pty end left open
    assert port.startswith("/dev/")
