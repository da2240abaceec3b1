"""Runtime facts the device package relies on, checked on CPython and on MicroPython."""
import json
import sys

from support import MICROPYTHON, raises, stepped

from cardtable.compat import const, ticks_add, ticks_diff, ticks_ms

_LIMIT = const(1 << 29)


def test_the_runtime_is_the_one_the_runner_claims():
    assert sys.implementation.name == ("micropython" if MICROPYTHON else "cpython")


def test_const_values_work_as_plain_ints():
    assert _LIMIT == 536870912
    assert _LIMIT * 2 - 1 == 1073741823  # 2**30 - 1: the largest small int on a 32-bit port


def test_ticks_diff_survives_the_wrap_around():
    before = ticks_add(0, -5)  # just below the wrap point
    after = ticks_add(before, 10)
    assert after < before
    assert ticks_diff(after, before) == 10
    assert ticks_diff(before, after) == -10


def test_ticks_ms_moves_forward():
    t0 = ticks_ms()
    x = 0
    for i in range(20000):
        x += i
    assert x == 199990000
    assert 0 <= ticks_diff(ticks_ms(), t0) < 10000


def test_bytearray_idioms_for_frame_buffers():
    buf = bytearray(b"\x00\x00\xff\x03\xfd\xd4\x4a\x01")
    buf[:3] = b""  # drop a consumed prefix; `del buf[:3]` is a TypeError on MicroPython
    assert buf == bytearray(b"\x03\xfd\xd4\x4a\x01")
    buf[0:2] = b"\x02\xfe"  # same-length slice write, as when patching LEN/LCS
    assert bytes(buf[:2]) == b"\x02\xfe"
    view = memoryview(buf)
    assert bytes(view[2:4]) == b"\xd4\x4a"
    assert int.from_bytes(b"\x01\x02", "big") == 258
    assert (258).to_bytes(2, "big") == b"\x01\x02"
    if MICROPYTHON:
        raises(TypeError, _del_prefix, buf)


def _del_prefix(buf):
    del buf[:1]


def test_owner_array_in_a_bytearray():
    owner = bytearray(52)  # one byte per card; a 52-bit mask would be a heap int on the Pico
    owner[51] = 3
    owner[0] = 1
    assert [i for i in range(52) if owner[i]] == [0, 51]
    assert sum(1 for b in owner if b == 0) == 50


def test_json_round_trips_a_record_line():
    line = '{"seat": 1, "act": "play", "card": "10H"}'
    obj = json.loads(line)
    assert obj == {"seat": 1, "act": "play", "card": "10H"}
    # Key order is NOT preserved on MicroPython (unordered dicts): compare parsed, not text.
    assert json.loads(json.dumps(obj)) == obj
    assert json.dumps([1, "a"], separators=(",", ":")) == '[1,"a"]'


@stepped
def test_stepped_test_gets_garbage_collected_between_steps():
    # 40 x 16 KB = 640 KB of garbage: more than the Pico's 192 KB heap, so under the
    # MicroPython runner's heap cap this passes only if the GC runs between the steps.
    total = 0
    for _ in range(40):
        chunk = bytearray(16 * 1024)
        total += len(chunk)
        yield
    assert total == 40 * 16 * 1024
