"""A frozen image keeps its check of the board file (table/checkedboard.py): the next boot with
the same file and image builds the same Board without checking it again; an edited file, another
image or a kept check that does not read back is checked again; a source build always checks."""
import os

from simtable import BOARDS, scratch
from support import MICROPYTHON, raises, stepped

from cardtable.hal import FileStorage
from cardtable.table import checkedboard, config
from cardtable.table.config import ConfigError

BUILD = "0123456789ab"  # a frozen image's build (the tests' own: the package here is a source build)


def _same(a, b, where="board"):
    """a and b hold equal values of the same types all the way down (a tuple is no list)."""
    assert type(a) is type(b), (where, type(a), type(b))
    if isinstance(a, dict):
        assert sorted(a) == sorted(b), where
        for k in a:
            _same(a[k], b[k], "%s[%r]" % (where, k))
    elif isinstance(a, tuple):
        assert len(a) == len(b), where
        for i in range(len(a)):
            _same(a[i], b[i], "%s[%d]" % (where, i))
    else:
        assert a == b, (where, a, b)


def _same_board(a, b):
    if not MICROPYTHON:  # every attribute a checked Board has is kept (a new one needs FIELDS)
        assert sorted(vars(b)) == sorted(checkedboard.FIELDS + ("layouts",)), sorted(vars(b))
        for lay in b.layouts.values():
            assert sorted(vars(lay)) == sorted(checkedboard.LAYOUT + ("reader_roles",)), sorted(vars(lay))
    for n in checkedboard.FIELDS:
        _same(getattr(a, n), getattr(b, n), n)
    assert sorted(a.layouts) == sorted(b.layouts)
    for name in a.layouts:
        for n in checkedboard.LAYOUT + ("reader_roles",):
            _same(getattr(a.layouts[name], n), getattr(b.layouts[name], n), "%s.%s" % (name, n))


def _board_copy():
    """A scratch folder with a copy of pico-i2c-2seat.json: its storage, the copy's path, the
    file's bytes and what keeps the folder."""
    d, keep = scratch()
    path = d + "/pico-i2c-2seat.json"
    with open("%s/pico-i2c-2seat.json" % BOARDS, "rb") as f:
        raw = f.read()
    with open(path, "wb") as f:
        f.write(raw)
    return FileStorage(d), path, raw, keep


def _checks(fn):
    """Run fn() counting the board checks it makes (config.load calls)."""
    real = config.load
    n = [0]

    def counted(path):
        n[0] += 1
        return real(path)

    config.load = counted
    try:
        got = fn()
    finally:
        config.load = real
    return got, n[0]


@stepped
def test_every_shipped_board_reads_back_from_its_kept_check_as_checked():
    d, _keep = scratch()
    st = FileStorage(d)
    shipped = [n for n in os.listdir(BOARDS) if n.endswith(".json")]
    assert len(shipped) >= 4, shipped
    for name in shipped:
        path = "%s/%s" % (BOARDS, name)
        checked = config.load(path)
        yield  # (a step's garbage at a time: a Pico checks one board per boot)
        k = checkedboard.key(path, BUILD)
        checkedboard.keep(st, k, checked)
        yield
        _same_board(checkedboard.kept(st, k), checked)
        checked = None
        yield


@stepped
def test_the_same_file_is_checked_once_an_edited_one_again():
    st, path, raw, _keep = _board_copy()
    first, n = _checks(lambda: checkedboard.load(path, st, BUILD))
    assert n == 1 and st.size(checkedboard.CHECKED) > 0
    yield
    again, n = _checks(lambda: checkedboard.load(path, st, BUILD))
    assert n == 0, "the same file under the same build was checked again"
    yield
    _same_board(again, first)
    assert first.seat_names[0] == "South"
    first = again = None
    yield
    with open(path, "wb") as f:  # the maker edits the file: a seat renamed
        f.write(raw.replace(b'"name": "South"', b'"name": "Ann"'))
    raw = None
    yield
    edited, n = _checks(lambda: checkedboard.load(path, st, BUILD))
    assert n == 1 and edited.seat_names[0] == "Ann"
    edited = None
    yield
    _, n = _checks(lambda: checkedboard.load(path, st, "another build"))
    assert n == 1, "another image must check the file itself"


@stepped
def test_a_broken_file_stops_the_boot_though_an_older_check_was_kept():
    st, path, raw, _keep = _board_copy()
    checkedboard.load(path, st, BUILD)
    yield
    with open(path, "wb") as f:  # a reader on a bus the board has not got
        f.write(raw.replace(b'"bus": "i2c0"', b'"bus": "i2c7"', 1))
    e = raises(ConfigError, checkedboard.load, path, st, BUILD)
    assert "i2c7" in str(e), str(e)


@stepped
def test_a_kept_check_cut_short_or_scribbled_on_is_checked_again():
    d, _keep = scratch()
    st = FileStorage(d)
    path = "%s/pico-i2c-2seat.json" % BOARDS
    checked = checkedboard.load(path, st, BUILD)
    yield
    with st.open(checkedboard.CHECKED, "r") as f:
        text = f.read()
    key = text.split("\n", 1)[0] + "\n"
    for bad in (text[:len(text) // 2], "", key, key + "[1, 2]", text.replace('"layouts": [', '"layouts": [7, ')):
        with st.open(checkedboard.CHECKED, "w") as f:
            f.write(bad)
        got, n = _checks(lambda: checkedboard.load(path, st, BUILD))
        assert n == 1, bad[:40]
        _same_board(got, checked)
        got = None
        yield
    _, n = _checks(lambda: checkedboard.load(path, st, BUILD))
    assert n == 0, "checked again, the check is kept whole once more"


@stepped
def test_a_source_build_always_checks_and_keeps_nothing():
    d, _keep = scratch()
    st = FileStorage(d)
    path = "%s/pico-i2c-2seat.json" % BOARDS
    for _ in range(2):
        _, n = _checks(lambda: checkedboard.load(path, st, "source"))
        assert n == 1
        yield
    assert st.size(checkedboard.CHECKED) == -1


@stepped
def test_a_flash_with_no_room_for_the_check_still_boots():
    class Full(FileStorage):
        def open(self, path, mode):
            if "w" in mode:
                raise OSError(28)  # ENOSPC
            return FileStorage.open(self, path, mode)

    d, _keep = scratch()
    st = Full(d)
    path = "%s/pico-i2c-2seat.json" % BOARDS
    for _ in range(2):
        b, n = _checks(lambda: checkedboard.load(path, st, BUILD))
        assert n == 1 and b.name == "pico-i2c-2seat"
        b = None
        yield
    assert st.size(checkedboard.CHECKED) == -1 and st.size(checkedboard.CHECKED + ".new") == -1
