"""Our PN532 driver against the emulator, frame by frame, on I2C (muxed), SPI and UART."""
import sys

from support import MICROPYTHON, raises, stepped

from cardtable.drivers import ndef
from cardtable.drivers.mux import Mux
from cardtable.drivers.pn532 import (
    ChecksumError, ErrorFrame, Nack, NdefError, NoAnswer, PN532Error, TagError)
from cardtable.drivers.pn532_i2c import PN532I2C
from cardtable.drivers.pn532_spi import PN532SPI, REV
from cardtable.drivers.pn532_uart import PN532UART
from cardtable.sim.pn532_emu import (
    ACK, ERROR_FRAME, NACK, T_ACTIVATE_US, T_READ_US, FakeI2C, FakePin, FakeSPI,
    PN532Emu, Stream, Tag)

UID_AS = b"\x04\x11\x22\x33\x44\x55\x66"


def i2c_reader(*tags):
    emu = PN532Emu(*tags)
    bus = FakeI2C()
    bus.attach(emu)
    r = PN532I2C(bus, timeout_ms=5)
    r.init()
    return emu, bus, r


def feed(emu, body):
    """Send one host frame (TFI..data) to an emulator; return what it answers."""
    s = Stream(emu)
    n = len(body)
    dcs = (-sum(body)) & 0xFF
    s.write(bytes((0, 0, 0xFF, n, (-n) & 0xFF)) + bytes(body) + bytes((dcs, 0)))
    return s.read(s.in_waiting)


class StepClock:
    """The drivers' and the emulator's ticks_ms for a test: 1 ms a reading, so the drivers'
    timeouts count status checks, an answer the emulator delays (slow_ms) is late on the same
    clock, and what a test asserts holds on a busy machine as well (a run waiting for a core
    is no slower driver, and no faster PN532)."""

    MODULES = ("cardtable.drivers.pn532", "cardtable.drivers.pn532_i2c", "cardtable.drivers.pn532_uart",
               "cardtable.sim.pn532_emu")

    def __init__(self):
        self.now = 0
        self.real = []

    def ticks_ms(self):
        self.now += 1
        return self.now

    def __enter__(self):
        for name in self.MODULES:
            module = sys.modules[name]
            self.real.append((module, module.ticks_ms))
            module.ticks_ms = self.ticks_ms
        return self

    def __exit__(self, *exc):
        for module, real in self.real:
            module.ticks_ms = real
        return False


class Spy:
    """Wraps a bus and records every write (bytes as they left the driver)."""

    def __init__(self, bus):
        self.bus = bus
        self.writes = []

    def writeto(self, addr, buf, stop=True):
        self.writes.append((addr, bytes(buf)))
        return self.bus.writeto(addr, buf)

    def readfrom_into(self, addr, buf, stop=True):
        self.bus.readfrom_into(addr, buf)

    def write(self, buf):
        self.writes.append(bytes(buf))
        self.bus.write(buf)

    def readinto(self, buf, write=0):
        self.bus.readinto(buf, write)


# -- the emulator, byte for byte ------------------------------------------------


def test_emulator_firmware_version_frame():
    out = feed(PN532Emu(), b"\xd4\x02")
    assert out == ACK + bytes([0, 0, 0xFF, 6, 0xFA, 0xD5, 3, 0x32, 1, 6, 7, 0xE8, 0])


def test_emulator_drops_a_frame_with_a_bad_checksum():
    emu = PN532Emu()
    s = Stream(emu)
    s.write(b"\x00\x00\xff\x02\xfe\xd4\x02\x2b\x00")  # DCS should be 0x2a
    assert s.in_waiting == 0 and emu.bad_frames == 1
    s.write(b"\x55\x55\x00\x00\x00\x00\x00\xff\x02\xfe\xd4\x02\x2a\x00")  # after HSU wake-up
    assert s.read(6) == ACK and s.in_waiting == 13


def test_emulator_unknown_command_gets_the_error_frame():
    assert feed(PN532Emu(), b"\xd4\x8c") == ACK + ERROR_FRAME


def test_emulator_host_nack_resends_the_answer():
    emu = PN532Emu()
    s = Stream(emu)
    first = feed(emu, b"\xd4\x02")[6:]
    s.write(NACK)
    assert s.read(s.in_waiting) == first


def test_emulator_waits_for_a_tag_at_infinite_retries():
    emu = PN532Emu()
    s = Stream(emu)
    assert feed(emu, b"\xd4\x4a\x01\x00") == ACK  # MxRtyPassiveActivation 0xFF: no answer
    assert s.in_waiting == 0
    emu.place(Tag(UID_AS, text="AS"))
    body = s.read(s.in_waiting)[5:-2]
    assert body == b"\xd5\x4b\x01\x01\x00\x44\x00\x07" + UID_AS


def test_emulator_host_ack_aborts_the_wait():
    emu = PN532Emu()
    s = Stream(emu)
    feed(emu, b"\xd4\x4a\x01\x00")
    s.write(ACK)
    emu.place(Tag(UID_AS))
    assert s.in_waiting == 0


def test_emulator_finite_retries_report_no_target():
    emu = PN532Emu()
    feed(emu, b"\xd4\x32\x05\xff\x01\x02")
    assert emu.max_retries == 2
    assert feed(emu, b"\xd4\x4a\x01\x00")[6:] == b"\x00\x00\xff\x03\xfd\xd5\x4b\x00\xe0\x00"


def test_emulator_ntag_memory_layout():
    emu = PN532Emu(Tag(UID_AS, kind=213, text="AS"))
    feed(emu, b"\xd4\x4a\x01\x00")
    data = feed(emu, b"\xd4\x40\x01\x30\x00")[6:][8:24]
    u = UID_AS
    assert data[0:3] == u[0:3] and data[3] == 0x88 ^ u[0] ^ u[1] ^ u[2]  # BCC0
    assert data[4:8] == u[3:7] and data[8] == u[3] ^ u[4] ^ u[5] ^ u[6]  # BCC1
    assert data[12:16] == b"\xe1\x10\x12\x00"  # CC: NDEF, 144 bytes
    page4 = feed(emu, b"\xd4\x40\x01\x30\x04")[6:][8:24]
    assert page4[:12] == ndef.text_tlv("AS")
    # the end of NTAG213: CFG1 (0x2A), PWD and PACK read as zeros, then roll-over to page 0
    end = feed(emu, b"\xd4\x40\x01\x30\x2a")[6:][8:24]
    assert end == b"\x00\x05\x00\x00" + bytes(8) + u[0:3] + bytes((data[3],))
    assert feed(emu, b"\xd4\x40\x01\x30\x28")[6:][8:12] == b"\x00\x00\x00\xbd"  # dynamic lock
    assert feed(emu, b"\xd4\x40\x01\x30\x2d")[6:][7] == 0x14  # past the end: NAK


def test_emulator_write_protects_pages_0_to_3():
    tag = Tag(UID_AS, kind=215, text="AS")
    emu = PN532Emu(tag)
    feed(emu, b"\xd4\x4a\x01\x00")
    for page in range(4):
        assert feed(emu, b"\xd4\x40\x01\xa2" + bytes((page, 1, 2, 3, 4)))[6:][7] == 0x14
    assert tag.mem[0:3] == UID_AS[0:3]
    assert feed(emu, b"\xd4\x40\x01\xa2\x04\x03\x00\xfe\x00")[6:][7] == 0x00
    assert tag.mem[16:20] == b"\x03\x00\xfe\x00"
    assert "empty" in str(raises(NdefError, tag.text))


def test_emulator_timing_model():
    emu = PN532Emu(Tag(UID_AS, text="AS"))
    feed(emu, b"\xd4\x4a\x01\x00")
    activate = emu.last_us
    feed(emu, b"\xd4\x40\x01\x30\x03")
    uart_read = emu.last_us
    assert activate >= T_ACTIVATE_US and uart_read >= T_READ_US
    # request, ACK and the 26-byte answer at 115200 baud: ~3.8 ms on the wire (embedded-facts §6)
    assert 3000 < uart_read - T_READ_US < 4500
    emu2, bus, r = i2c_reader(Tag(UID_AS, text="AS"))
    r.poll()
    r.read_pages(3)
    assert T_READ_US < emu2.last_us < uart_read  # I2C at 400 kHz is faster than HSU


# -- the driver -------------------------------------------------------------------


def test_init_configures_a_bounded_poll():
    emu = PN532Emu()
    bus = FakeI2C()
    bus.attach(emu)
    r = PN532I2C(bus, timeout_ms=5, retries=2)
    assert r.init() == (0x32, 1, 6, 7)
    assert emu.frames == [b"\xd4\x14\x01\x14\x01", b"\xd4\x02", b"\xd4\x32\x05\xff\x01\x02",
                          b"\xd4\x32\x01\x00"]
    assert emu.sam == 1 and emu.max_retries == 2 and not emu.rf
    assert r.firmware() == (0x32, 1, 6, 7)


def test_poll_sends_the_documented_frame():
    emu = PN532Emu()
    bus = FakeI2C()
    bus.attach(emu)
    spy = Spy(bus)
    r = PN532I2C(spy, timeout_ms=5)
    r.init()
    spy.writes = []
    assert r.poll() is None
    assert spy.writes == [(0x24, b"\x00\x00\xff\x04\xfc\xd4\x4a\x01\x00\xe1\x00")]


def test_no_tag_poll_is_bounded():
    emu, bus, r = i2c_reader()
    with StepClock() as clock:
        for _ in range(5):
            assert r.poll() is None
            r.release()
    assert clock.now < 500
    assert r.fails == 0 and r.polls == 5
    assert emu.max_retries == 1 and list(emu.log[-2:]) == [0x4A, 0x32]


def test_read_uid_and_card_code():
    emu, bus, r = i2c_reader(Tag(UID_AS, text="AS"))
    uid = r.poll()
    assert bytes(uid) == UID_AS
    assert r.sak == 0 and r.atqa == 0x0044
    emu.log = bytearray()
    assert r.read_text() == "AS"
    assert list(emu.log) == [0x40]  # CC and the whole code in one 4-page READ


def test_longer_code_and_ntag215():
    emu, bus, r = i2c_reader(Tag("04a1a2a3a4a5a6", kind=215, text="10H#12"))
    assert bytes(r.poll()) == b"\x04\xa1\xa2\xa3\xa4\xa5\xa6"
    emu.log = bytearray()
    assert r.read_text() == "10H#12"
    assert list(emu.log) == [0x40, 0x40]


def test_a_reader_reads_the_next_long_code_in_one_fast_read():
    # A Nerts deck's codes ("7H#1") need 17 bytes from page 3: two READs for the reader's first
    # card, then one FAST_READ of 5 pages for each card after it; a short code goes back to READ
    emu, bus, r = i2c_reader(Tag(UID_AS, text="7H#1"))
    r.poll()
    emu.log = bytearray()
    assert r.read_text() == "7H#1" and list(emu.log) == [0x40, 0x40]
    for code in ("10S#2", "QD#3"):
        emu.remove()
        emu.place(Tag("04a1a2a3a4a5a6", text=code))
        r.poll()
        emu.log = bytearray()
        assert r.read_text() == code and list(emu.log) == [0x42], (code, list(emu.log))
    assert emu.frames[-1][2:5] == b"\x3a\x03\x07"  # FAST_READ pages 3 to 7
    emu.remove()
    emu.place(Tag(UID_AS, text="AS"))
    r.poll()
    assert r.read_text() == "AS"  # (from the FAST_READ: its 20 bytes hold it)
    emu.remove()
    emu.place(Tag(UID_AS, text="KS"))
    r.poll()
    emu.log = bytearray()
    assert r.read_text() == "KS" and list(emu.log) == [0x40]


class NoFastRead(Tag):
    """A Type 2 tag that NAKs FAST_READ (an NTAG21x answers it; an older tag may not)."""

    def exchange(self, data):
        if data[:1] == b"\x3a":
            return 0x14, b""
        return super().exchange(data)


def test_a_tag_without_fast_read_is_read_again_with_reads():
    emu, bus, r = i2c_reader(Tag(UID_AS, text="7H#1"))
    r.poll()
    assert r.read_text() == "7H#1"
    emu.remove()
    emu.place(NoFastRead("04a1a2a3a4a5a6", text="8H#1"))
    r.poll()
    e = raises(TagError, r.read_text)
    assert e.status == 0x14 and r.fails == 0  # refused, not the reader's fault: read again
    r.poll()
    emu.log = bytearray()
    assert r.read_text() == "8H#1" and list(emu.log) == [0x40, 0x40]


def test_tag_arrives_later():
    emu, bus, r = i2c_reader()
    assert r.poll() is None
    emu.place(Tag(UID_AS, text="KS"))
    assert bytes(r.poll()) == UID_AS and r.read_text() == "KS"
    emu.remove()
    assert r.poll() is None


def test_read_text_needs_a_polled_tag():
    emu, bus, r = i2c_reader(Tag(UID_AS, text="AS"))
    e = raises(TagError, r.read_text)
    assert e.status == 0x27
    r.poll()
    r.release()  # RF off drops the tag
    assert raises(TagError, r.read_text).status == 0x27


@stepped
def test_muxed_readers_round_robin_one_field_at_a_time():
    bus = FakeI2C()
    mux_a = bus.add_mux(0x70)
    mux_b = bus.add_mux(0x71)
    peers = []
    ma = Mux(bus, 0x70, peers)
    mb = Mux(bus, 0x71, peers)
    seats = [(ma, 0, "AS"), (ma, 3, "KH"), (mb, 1, "10D")]
    emus = []
    readers = []
    for i in range(len(seats)):
        mux, ch, code = seats[i]
        emu = PN532Emu(Tag(bytes((4, i, 2, 3, 4, 5, 6)), text=code))
        bus.attach(emu, mux=mux_a if mux is ma else mux_b, channel=ch)
        emus.append(emu)
        r = PN532I2C(bus, mux=mux, channel=ch, timeout_ms=5)
        r.init()
        readers.append(r)
    yield
    for rnd in range(3):
        for i in range(len(readers)):
            r = readers[i]
            uid = r.poll()
            assert uid[1] == i
            assert [e.rf for e in emus] == [j == i for j in range(len(emus))]
            assert r.read_text() == seats[i][2]
            r.release()
            assert not emus[i].rf
            # only one mux has a channel on, and it is this reader's
            assert (mux_a.mask, mux_b.mask) == ((1 << seats[i][1], 0) if i < 2 else (0, 2))
        yield
    assert [e.rf_switches for e in emus] == [6, 6, 6]
    assert [r.fails for r in readers] == [0, 0, 0]


def test_missing_reader_is_a_bus_error():
    bus = FakeI2C()
    m = bus.add_mux(0x70)
    bus.attach(PN532Emu(), mux=m, channel=0)
    r = PN532I2C(bus, mux=Mux(bus, 0x70), channel=5, timeout_ms=5)
    e = raises(NoAnswer, r.init)
    assert "bus error" in str(e)
    assert r.fails == 1 and r.counts[0] == 1


def test_spi_bytes_are_lsb_first_on_the_wire():
    emu = PN532Emu(Tag(UID_AS, text="QC"))
    spi = FakeSPI()
    cs = FakePin(1)
    spi.attach(emu, cs)
    spy = Spy(spi)
    r = PN532SPI(spy, cs, timeout_ms=5)
    r.init()
    spy.writes = []
    assert bytes(r.poll()) == UID_AS
    frame = b"\x00\x00\xff\x04\xfc\xd4\x4a\x01\x00\xe1\x00"
    assert spy.writes[0] == b"\x80"  # data write 0x01, bit-reversed
    assert spy.writes[1] == bytes([REV[b] for b in frame])
    assert b"\x40" in spy.writes and b"\xc0" in spy.writes  # status read 02, data read 03
    assert r.read_text() == "QC"
    assert cs.value() == 1


def test_spi_readers_share_a_bus_with_one_chip_select_each():
    spi = FakeSPI()
    pins = [FakePin(1) for _ in range(4)]
    emus = []
    readers = []
    for i in range(4):
        emu = PN532Emu(Tag(bytes((4, 9, 9, 9, 9, 9, i)), text="%dS" % (i + 2)))
        spi.attach(emu, pins[i])
        emus.append(emu)
        readers.append(PN532SPI(spi, pins[i], timeout_ms=5))
    for r in readers:
        r.init()
    for i in range(4):
        assert readers[i].poll()[6] == i
        assert readers[i].read_text() == "%dS" % (i + 2)
        readers[i].release()
    assert spi.contention == 0
    assert [p.value() for p in pins] == [1, 1, 1, 1]
    assert not any(e.rf for e in emus)


def test_uart_reader():
    emu = PN532Emu(Tag(UID_AS, text="JC"))
    r = PN532UART(Stream(emu), timeout_ms=5)
    assert r.init() == (0x32, 1, 6, 7)
    assert bytes(r.poll()) == UID_AS
    assert r.read_text() == "JC"
    r.release()
    assert r.poll() is not None  # the stream stays in step


def test_nack_is_retried_once():
    emu, bus, r = i2c_reader(Tag(UID_AS, text="AS"))
    emu.nacks = 1
    assert bytes(r.poll()) == UID_AS
    assert r.retried == 1 and r.counts[2] == 0 and r.fails == 0
    emu.nacks = 2
    raises(Nack, r.poll)
    assert r.retried == 2 and r.counts[2] == 1 and r.fails == 1


def test_wrong_checksum_is_asked_again_then_reported():
    for make in (_i2c, spi_reader, uart_reader):
        emu, r = make(Tag(UID_AS, text="AS"))
        emu.corrupt = 1
        assert bytes(r.poll()) == UID_AS  # NACK made the PN532 send it again
        assert r.retried == 1 and r.counts[1] == 0 and r.fails == 0
        emu.corrupt = 2
        raises(ChecksumError, r.poll)
        assert r.retried == 2 and r.counts[1] == 1 and r.fails == 1 and r.tg == 0
        assert r.stats()["frame"] == 1


def test_a_wrong_length_checksum_is_asked_again_then_reported():
    # LEN and LCS agree or the frame is refused before its data is trusted (UM0701-02 6.2.1.1)
    for make in (_i2c, spi_reader, uart_reader):
        emu, r = make(Tag(UID_AS, text="AS"))
        emu.corrupt_len = 1
        assert bytes(r.poll()) == UID_AS  # NACK made the PN532 send it again
        assert r.retried == 1 and r.counts[1] == 0 and r.fails == 0
        r.release()
        emu.corrupt_len = 2
        e = raises(ChecksumError, r.poll)
        assert "length checksum" in str(e), e
        assert r.retried == 2 and r.counts[1] == 1 and r.fails == 1 and r.tg == 0
        emu.corrupt_len = 0
        r.release()
        assert bytes(r.poll()) == UID_AS and r.fails == 0  # the next command is fine again


def spi_reader(*tags):
    emu = PN532Emu(*tags)
    spi = FakeSPI()
    cs = FakePin(1)
    spi.attach(emu, cs)
    r = PN532SPI(spi, cs, timeout_ms=5)
    r.init()
    return emu, r


def uart_reader(*tags):
    emu = PN532Emu(*tags)
    r = PN532UART(Stream(emu), timeout_ms=5)
    r.init()
    return emu, r


def _i2c(*tags):
    emu, bus, r = i2c_reader(*tags)
    return emu, r


def test_no_answer_times_out_and_counts_consecutive_failures():
    for make in (_i2c, spi_reader, uart_reader):
        emu, r = make(Tag(UID_AS, text="AS"))
        emu.mute = -1
        with StepClock() as clock:
            for n in range(3):
                e = raises(NoAnswer, r.poll)
                assert "no ACK" in str(e)
                assert r.fails == n + 1
        assert clock.now < 500  # three 5 ms timeouts, not a hang
        emu.mute = 0
        assert bytes(r.poll()) == UID_AS
        assert r.fails == 0 and r.errors == 3 and r.counts[0] == 3


def test_a_failed_poll_or_read_switches_the_field_off():
    # One field at a time must hold exactly when a reader misbehaves (issue 17, point 4).
    for make in (_i2c, spi_reader, uart_reader):
        for fault, n, exc in (("slow_ms", 1000, NoAnswer), ("corrupt", 2, ChecksumError),
                              ("error_frames", 1, ErrorFrame)):
            emu, r = make(Tag(UID_AS, text="AS"))
            emu.rf = True  # left on, as after a poll that found the tag
            setattr(emu, fault, n)
            with StepClock():  # slow_ms: 1000 ms late on the clock the 5 ms timeout runs on
                raises(exc, r.poll)
            assert not emu.rf, (make.__name__, fault)
            assert r.errors == 1 and r.tg == 0
        emu, r = make(Tag(UID_AS, text="AS"))
        assert bytes(r.poll()) == UID_AS and emu.rf
        emu.corrupt = 2  # the READ's answer, and its resend
        raises(ChecksumError, r.read_text)
        assert not emu.rf, make.__name__
        emu.vanish_after = 0
        assert bytes(r.poll()) == UID_AS
        raises(TagError, r.read_text)  # the tag left: the field is the caller's to release
        assert emu.rf


def test_slow_answer_is_aborted_and_the_next_command_is_clean():
    for make in (_i2c, spi_reader, uart_reader):
        emu, r = make(Tag(UID_AS, text="AS"))
        emu.slow_ms = 1000  # far past the 5 ms timeout: a loaded machine's stall is no answer
        with StepClock() as clock:  # the emulator's delay and the timeout on one clock
            e = raises(NoAnswer, r.poll)
        assert clock.now < 1000  # given up long before the answer came
        assert "no response" in str(e)
        assert emu.frames[-2] == b"\xd4\x4a\x01\x00"
        assert emu.frames[-1] == b"\xd4\x32\x01\x00" and not emu.rf  # the field goes off
        assert r.errors == 1  # the best-effort switch-off is no second failure
        emu.slow_ms = 0
        assert bytes(r.poll()) == UID_AS
        assert r.read_text() == "AS"


def test_reader_that_lost_its_config_is_stopped_and_recovered():
    emu, bus, r = i2c_reader()
    emu.max_retries = 0xFF  # a brown-out reset the PN532: it would search for ever
    e = raises(NoAnswer, r.poll)
    assert "no response" in str(e)
    assert emu.aborts == 1 and not emu.searching  # the driver's ACK stopped the search
    r.init()
    assert emu.max_retries == 1 and r.poll() is None and r.fails == 0


def test_error_frame():
    emu, bus, r = i2c_reader(Tag(UID_AS, text="AS"))
    emu.error_frames = 1
    raises(ErrorFrame, r.poll)
    assert r.counts[3] == 1 and r.fails == 1
    assert bytes(r.poll()) == UID_AS and r.fails == 0


def test_errors_are_oserrors():
    emu, bus, r = i2c_reader()
    emu.mute = 1
    e = raises(OSError, r.poll)
    assert isinstance(e, PN532Error)


def test_tag_removed_mid_read():
    emu, bus, r = i2c_reader(Tag(UID_AS, text="10H#12"))  # needs two READs
    r.poll()
    emu.vanish_after = 1
    e = raises(TagError, r.read_text)
    assert e.status == 0x01
    assert r.tg == 0 and r.fails == 0 and r.counts[4] == 1  # the reader itself is fine
    assert r.poll() is None


def test_foreign_tags():
    bank = Tag("08a1b2c3", kind="bank")
    classic = Tag("c0ffee01", kind="classic")
    blank = Tag(UID_AS, blank=True)
    empty = Tag(UID_AS)
    uri = Tag(UID_AS, message=ndef.uri_record("https://example.com"))
    cases = ((bank, "SAK 0x20"), (classic, "SAK 0x08"), (blank, "not NDEF formatted"),
             (empty, "empty NDEF"), (uri, "no Text record"))
    for tag, why in cases:
        emu, bus, r = i2c_reader(tag)
        uid = r.poll()
        assert bytes(uid) == tag.uid
        emu.log = bytearray()
        e = raises(NdefError, r.read_text)
        assert why in str(e), str(e)
        if tag.mem is None:
            assert list(emu.log) == []  # not even asked: the SAK says it is no NTAG
        assert r.fails == 0


def test_text_that_is_not_a_card_code_is_returned_as_is():
    emu, bus, r = i2c_reader(Tag(UID_AS, text="hello world"))
    r.poll()
    assert r.read_text() == "hello world"


def test_two_tags_in_the_field():
    t1 = Tag("04010000000001", text="AS")
    t2 = Tag("04020000000001", text="KS")
    # anticollision sends bits LSB first and goes on with the tag sending 1: 0x01 wins
    # over 0x02 whichever came first; the data read is the winner's
    for first, second in ((t1, t2), (t2, t1)):
        emu, bus, r = i2c_reader(first, second)
        assert bytes(r.poll()) == t1.uid and r.read_text() == "AS"
        r.release()
    assert r.call(0x4A, b"\x02\x00")[0] == 2  # MaxTg 2 lists both
    emu.collide = True
    assert r.poll() is None


def test_a_poll_for_two_counts_the_tags_in_the_same_exchange():
    t1 = Tag("04010000000001", text="AS")
    t2 = Tag("04020000000001", text="KS")
    emu, bus, r = i2c_reader(t1)
    assert bytes(r.poll(2)) == t1.uid and r.ntg == 1 and r.read_text() == "AS"
    # one InListPassiveTarget, MaxTg 2: no second exchange to count the tags
    assert [f for f in emu.frames if f[1] == 0x4A] == [b"\xd4\x4a\x02\x00"]
    r.release()
    emu, bus, r = i2c_reader(t1, t2)
    assert bytes(r.poll(2)) == t1.uid and r.ntg == 2
    r.release()
    assert r.poll() is not None and r.ntg == 1  # a plain poll lists one
    r.release()


def test_write_text_then_read_back():
    tag = Tag(UID_AS, kind=213)
    emu, bus, r = i2c_reader(tag)
    r.poll()
    r.write_text("QS#3")
    assert tag.text() == "QS#3"
    assert r.read_text() == "QS#3"
    e = raises(NdefError, r.write_text, "x" * 200)
    assert "does not fit" in str(e)
    e = raises(TagError, r.write_page, 2, b"\xff\xff\xff\xff")
    assert e.status == 0x14


def test_irq_line_saves_status_polls():
    emu, bus, r = i2c_reader(Tag(UID_AS, text="AS"))
    n0 = bus.transactions
    r.poll()
    polled = bus.transactions - n0
    r.irq = emu.irq()
    n0 = bus.transactions
    assert bytes(r.poll()) == UID_AS
    assert bus.transactions - n0 == polled - 2


class Replay:
    """An I2C bus replaying recorded reads from preallocated buffers (allocates nothing)."""

    def __init__(self, reads):
        self.reads = reads
        self.i = 0

    def writeto(self, addr, buf, stop=True):
        return len(buf)

    def readfrom_into(self, addr, buf, stop=True):
        src = self.reads[self.i]
        self.i = (self.i + 1) % len(self.reads)
        for k in range(len(buf)):
            buf[k] = src[k]


class Recorder(Replay):
    def __init__(self, bus):
        super().__init__([])
        self.bus = bus

    def writeto(self, addr, buf, stop=True):
        return self.bus.writeto(addr, buf)

    def readfrom_into(self, addr, buf, stop=True):
        self.bus.readfrom_into(addr, buf)
        self.reads.append(bytearray(buf))


def _poll_cycle(r, n):
    for _ in range(n):
        r.poll()
        r.release()


def test_poll_allocates_nothing():
    emu, bus, r = i2c_reader(Tag(UID_AS, text="AS"))
    rec = Recorder(bus)
    r.i2c = rec
    _poll_cycle(r, 1)
    r.i2c = Replay(rec.reads)
    _poll_cycle(r, 1)
    if MICROPYTHON:
        import micropython

        micropython.heap_lock()
        try:
            _poll_cycle(r, 20)  # any allocation raises MemoryError here
        finally:
            micropython.heap_unlock()
    else:
        import tracemalloc

        tracemalloc.start()
        try:
            snap0 = tracemalloc.take_snapshot()
            _poll_cycle(r, 200)
            snap1 = tracemalloc.take_snapshot()
        finally:
            tracemalloc.stop()
        only = [tracemalloc.Filter(True, "*drivers*")]
        diff = snap1.filter_traces(only).compare_to(snap0.filter_traces(only), "lineno")
        grown = [s for s in diff if s.size_diff > 0]
        assert grown == [], grown
    assert r.polls == 202 or MICROPYTHON
    assert bytes(r.poll()) == UID_AS


def _halves_cycle(r, n):
    for _ in range(n):
        r.poll_start(2)
        while not r.ready():
            pass
        r.poll_end(2)
        r.release()


def test_a_poll_in_halves_finds_the_tag_and_allocates_nothing():
    # the scanner polls so while a reader waits armed (issue 35): send, look, read the answer
    emu, bus, r = i2c_reader(Tag(UID_AS, text="AS"))
    r.poll_start(2)
    while not r.ready():
        pass
    assert bytes(r.poll_end(2)) == UID_AS and r.ntg == 1
    assert r.read_text() == "AS"
    r.release()
    rec = Recorder(bus)
    r.i2c = rec
    _halves_cycle(r, 1)
    r.i2c = Replay(rec.reads)
    _halves_cycle(r, 1)
    if MICROPYTHON:
        import micropython

        micropython.heap_lock()
        try:
            _halves_cycle(r, 20)  # any allocation raises MemoryError here
        finally:
            micropython.heap_unlock()
    else:
        import tracemalloc

        tracemalloc.start()
        try:
            snap0 = tracemalloc.take_snapshot()
            _halves_cycle(r, 200)
            snap1 = tracemalloc.take_snapshot()
        finally:
            tracemalloc.stop()
        only = [tracemalloc.Filter(True, "*drivers*")]
        diff = snap1.filter_traces(only).compare_to(snap0.filter_traces(only), "lineno")
        grown = [s for s in diff if s.size_diff > 0]
        assert grown == [], grown
