"""A frozen image's check of its board file, kept on flash: the next boot need not check it again."""
# Checking the board file (table/configcheck.py: import, parse, every rule) was a third of the
# Pico's boot, ~100 of ~330 ms (pico-i2c-2seat, the rp2 board's clock), and a power cut's
# recovery pays the boot again. After a check the Board is kept in CHECKED under its key (the
# image's build, the file's path and the SHA-256 of its bytes, on the first line). A boot that
# finds the same key builds the Board from CHECKED; any other file or image, or a CHECKED that
# does not read back whole (cut while written, or edited), is checked again and kept anew. A
# source build (a stock image with the .mpy package, the virtual board: BUILD "source") always
# checks: its checker can change under the same build name. Keeping is best effort: a flash
# with no room left still boots.
import json
from binascii import hexlify
from hashlib import sha256

from cardtable.table import config
from cardtable.table.boardtypes import Board, Layout
from cardtable.version import BUILD

CHECKED = "board-checked.json"
FIELDS = ("name", "title", "seat_names", "buses", "readers", "reader_irq", "reader_rst", "scan",
          "warnings", "reader_zone", "zone_reader", "zone_led", "led_pin", "led_count", "led_order",
          "buttons", "button_led", "encoders", "piezo_pin")
LAYOUT = ("name", "game", "seats", "roles", "buttons", "encoders", "host_verbs")


def load(path, storage, build=BUILD):
    """The Board of the board file at path: checked, or as a check of the same file and build
    kept in storage left it (ConfigError as config.load raises it)."""
    if build == "source":
        return config.load(path)
    try:
        k = key(path, build)
    except OSError:
        return config.load(path)  # (which says why the file cannot be read)
    b = kept(storage, k)
    if b is None:
        b = config.load(path)
        keep(storage, k, b)
    return b


def key(path, build=BUILD):
    """What a kept check must match: the build, the path and the SHA-256 of the file's bytes."""
    h = sha256()
    buf = bytearray(256)
    view = memoryview(buf)
    with open(path, "rb") as f:
        while True:
            n = f.readinto(buf)
            if not n:
                break
            h.update(view[:n])
    return "%s %s %s" % (build, path, hexlify(h.digest()).decode())


def kept(storage, k):
    """The Board kept under key k, or None (none kept, another key, or not whole)."""
    try:
        f = storage.open(CHECKED, "r")
    except OSError:
        return None
    try:
        if f.readline().rstrip("\n") != k:  # the key's line first: another is not parsed
            return None
        d = json.load(f)
        return decode(d["board"], d["layouts"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    finally:
        f.close()


def keep(storage, k, b):
    """Keep board b's check under key k (written aside, then renamed: never half there)."""
    tmp = CHECKED + ".new"
    try:
        f = storage.open(tmp, "w")
        try:
            f.write(k + "\n")
            json.dump({"board": [getattr(b, n) for n in FIELDS],
                       "layouts": [[getattr(lay, n) for n in LAYOUT] for lay in b.layouts.values()]}, f)
        finally:
            f.close()
        storage.rename(tmp, CHECKED)
    except OSError:
        try:
            storage.remove(tmp)
        except OSError:
            pass


def decode(fields, layouts):
    """The Board keep() wrote as its fields and its layouts' (JSON's lists were tuples)."""
    if len(fields) != len(FIELDS):
        raise ValueError("kept by another build")
    b = Board()
    for n, v in zip(FIELDS, fields):
        setattr(b, n, _tuples(v))
    for a in layouts:
        a = _tuples(a)
        b.layouts[a[0]] = Layout(a[0], a[1], a[2], a[3], a[4], a[5], b.reader_zone, a[6])
    return b


def _tuples(v):
    """v with every list a tuple, in dicts too (a Board holds no lists)."""
    if type(v) is list:
        return tuple([_tuples(x) if type(x) in _NESTED else x for x in v])
    if type(v) is dict:
        return {k: _tuples(x) if type(x) in _NESTED else x for k, x in v.items()}
    return v


_NESTED = (list, dict)
