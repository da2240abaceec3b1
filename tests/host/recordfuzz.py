"""A seeded fuzzer for game records (CPython): the fixtures, mutated line by line and as files
(truncated, wrong types, wrong encodings, huge lines, binary junk). Used by
tests/host/test_referee_fuzz.py and by `make bench`."""
from __future__ import annotations

import os
import random
import sys
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "device"))

import linkfuzz  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def seeds() -> list[bytes]:
    """Every fixture record, as the bytes of its file."""
    return [p.read_bytes() for p in sorted(FIXTURES.glob("*/*.jsonl"))]


def _value(rng: random.Random) -> bytes:
    k = rng.randrange(6)
    if k == 0:
        return b"9" * rng.randrange(1, 6000)  # past CPython's 4300-digit int limit too
    if k == 1:
        d = rng.randrange(1, 5000)
        return b"[" * d + b"]" * rng.choice((0, d))
    if k == 2:
        return ("\"%s\"" % ("x" * rng.randrange(1, 200000))).encode()
    return rng.choice(linkfuzz.ODD).encode()


def mutate_line(rng: random.Random, line: bytes) -> bytes:
    """One mutation of one record line."""
    k = rng.randrange(9)
    n = max(1, len(line))
    if k == 0:
        return line[:rng.randrange(n)]
    if k == 1:
        b = bytearray(line)
        for _ in range(rng.randrange(1, 4)):
            if b:
                b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if k == 2:  # a value replaced by a wrong type or a huge one
        at = line.find(b": ", rng.randrange(n))
        if at < 0:
            return line
        end = at + 2
        depth = 0
        while end < len(line) and not (depth == 0 and line[end:end + 1] in (b",", b"}")):
            c = line[end:end + 1]
            depth += 1 if c in (b"[", b"{") else -1 if c in (b"]", b"}") else 0
            end += 1
        return line[:at + 2] + _value(rng) + line[end:]
    if k == 3:  # a key added
        return line[:1] + b'"%s": %s, ' % (rng.choice(linkfuzz.KEYS).encode(), _value(rng)) + line[1:]
    if k == 4:  # binary junk
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
    if k == 5:  # a huge line
        return line[:-1] + b" " * rng.randrange(10000, 300000) + line[-1:]
    if k == 6:  # NULs
        at = rng.randrange(n)
        return line[:at] + b"\x00" * rng.randrange(1, 4) + line[at:]
    if k == 7:  # a journal line's checksum, right or wrong
        return line[:-1] + b', "crc": "%08x"}' % rng.randrange(2**32)
    return line


def mutate(rng: random.Random, data: bytes) -> bytes:
    """One mutated record file."""
    k = rng.randrange(10)
    if k == 0:  # truncated anywhere
        return data[:rng.randrange(len(data) + 1)]
    if k == 1:  # another encoding
        text = data.decode("utf-8")
        enc = rng.choice(("utf-16", "utf-16-le", "utf-16-be", "utf-8-sig", "utf-32", "latin-1", "cp1252"))
        try:
            return (text.replace("S", "\u00a7") if enc in ("latin-1", "cp1252") else text).encode(enc)
        except UnicodeEncodeError:
            return text.encode("utf-16")
    if k == 2:  # lines swapped, dropped or repeated
        lines = data.split(b"\n")
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        op = rng.randrange(3)
        if op == 0:
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 1:
            del lines[i]
        else:
            lines.insert(i, lines[j])
        return b"\n".join(lines)
    if k == 3:  # CR LF or CR line ends
        return data.replace(b"\n", rng.choice((b"\r\n", b"\r", b"\n\n")))
    lines = data.split(b"\n")
    for _ in range(rng.randrange(1, 3)):
        i = rng.randrange(len(lines))
        lines[i] = mutate_line(rng, lines[i])
    return b"\n".join(lines)


def records(seed: int, count: int) -> Iterator[bytes]:
    """count mutated records from a seed."""
    rng = random.Random(seed)
    base = seeds()
    for _ in range(count):
        yield mutate(rng, rng.choice(base))


def judge(data: bytes) -> tuple[int, str]:
    """Referee one record file as `cardtable referee -q FILE` does, in this process:
    (exit status, stderr); a traceback's text if one escaped."""
    import contextlib
    import io
    import tempfile
    import traceback

    from cardtable_host import cli

    out, err = io.StringIO(), io.StringIO()
    with tempfile.NamedTemporaryFile(suffix=".jsonl", delete=False) as f:
        f.write(data)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = cli.main(["referee", "-q", f.name])
    except BaseException:  # noqa: BLE001 - what the fuzzer looks for
        return -1, traceback.format_exc()
    finally:
        os.unlink(f.name)
    return rc, err.getvalue()
