"""One owner per board port: every board command refuses at once a port another program holds,
and nothing is written to a terminal that is not a board."""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Iterator

import pytest
from hostsupport import cardtable

pytest.importorskip("termios")  # ptys are POSIX only

import serial  # noqa: E402

from cardtable_host.board import portlock  # noqa: E402

BOARD_COMMANDS = [  # PORT: the port's path
    ("doctor", "--port", "PORT"),
    ("pull", "--list", "--port", "PORT"),
    ("flash", "--port", "PORT"),
    ("monitor", "--plain", "--port", "PORT"),
    ("enroll", "--game", "nexus", "--zone", "s0", "--board-port", "PORT"),
    ("run", "--port", "PORT"),
]


def command(args: tuple[str, ...], port: str) -> list[str]:
    return [port if a == "PORT" else a for a in args]


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A runtime folder of the test's own, for this process and the commands it starts."""
    d = tmp_path / "run"
    d.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(d))
    return d


@pytest.fixture
def pty(runtime: Path) -> Iterator[tuple[str, int]]:
    """A pseudo-terminal (path, master fd); nothing serves it yet."""
    master, slave = os.openpty()
    os.set_blocking(master, False)
    try:
        yield os.ttyname(slave), master
    finally:
        os.close(master)
        os.close(slave)


def written(master: int) -> bytes:
    try:
        return os.read(master, 4096)
    except BlockingIOError:
        return b""


def test_hold_names_the_holder_and_refuses_a_second(pty: tuple[str, int], tmp_path: Path) -> None:
    port, _ = pty
    assert portlock.holder(port) is None
    with portlock.hold(port, "cardtable monitor"):
        assert portlock.holder(port) == ("cardtable monitor", os.getpid())
        link = tmp_path / "ttyACM0"
        link.symlink_to(port)  # the same port by another name
        with pytest.raises(portlock.PortInUse) as e:
            portlock.hold(str(link), "cardtable pull")
        assert str(e.value) == "the table's port is in use by cardtable monitor, pid %d" % os.getpid()
        assert e.value.status == 2
    assert portlock.holder(port) is None
    portlock.hold(port, "cardtable pull").release()  # free again


def test_a_dead_holders_lock_is_taken_over(pty: tuple[str, int]) -> None:
    port, _ = pty
    dead = os.fork()
    if dead == 0:
        os._exit(0)
    os.waitpid(dead, 0)
    portlock.lock_path(port).write_text("cardtable monitor\n%d\n" % dead)  # it crashed holding it
    assert portlock.holder(port) is None
    with portlock.hold(port, "cardtable doctor"):
        assert portlock.holder(port) == ("cardtable doctor", os.getpid())


@pytest.mark.parametrize("args", BOARD_COMMANDS, ids=lambda a: a[0])
def test_every_board_command_refuses_a_held_port_at_once(pty: tuple[str, int], args: tuple[str, ...]) -> None:
    port, master = pty
    portlock.announce(port)  # a board serves it
    with portlock.hold(port, "cardtable monitor"):
        t0 = time.monotonic()
        r = cardtable(*command(args, port), timeout=60)
        took = time.monotonic() - t0
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.strip().splitlines()[-1] == (
        "cardtable %s: the table's port is in use by cardtable monitor, pid %d" % (args[0], os.getpid()))
    assert "Traceback" not in r.stderr
    assert took < 8  # at once: no waiting for the port (the command's start-up is most of it)
    assert written(master) == b""


def test_a_program_that_holds_the_port_is_named(pty: tuple[str, int]) -> None:
    port, master = pty
    portlock.announce(port)
    with serial.Serial(port, 115200, exclusive=True):  # e.g. mpremote or a serial terminal
        r = cardtable("doctor", "--port", port, timeout=60)
    assert r.returncode == 2
    line = r.stderr.strip().splitlines()[-1]
    assert line.startswith("cardtable doctor: the table's port is in use by ")
    assert line.endswith(", pid %d" % os.getpid())


def test_a_terminal_no_board_serves_gets_nothing_written(pty: tuple[str, int]) -> None:
    """A stale --port-file names a pty a shell now uses: no JSON into someone's terminal."""
    port, master = pty
    for args in BOARD_COMMANDS:
        r = cardtable(*command(args, port), timeout=60)
        assert r.returncode == 2, r.stdout + r.stderr
        assert "%s is a terminal, not a cardtable board" % port in r.stderr, r.stderr
        assert "Traceback" not in r.stderr
    assert written(master) == b""


def test_a_url_port_is_opened_as_a_url(runtime: Path) -> None:
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    free = s.getsockname()[1]
    s.close()  # nobody listens there now
    r = cardtable("doctor", "--port", "socket://127.0.0.1:%d" % free, timeout=60)
    assert r.returncode == 2
    line = r.stderr.strip().splitlines()[-1]
    assert line.startswith("cardtable doctor: cannot open socket://127.0.0.1:%d: " % free), r.stderr
    assert "No such file" not in line and "Traceback" not in r.stderr


def test_the_module_imports_without_posix_modules() -> None:
    import ast

    tree = ast.parse(Path(portlock.__file__).read_text())
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = {a.name for n in top for a in n.names} | {getattr(n, "module", None) for n in top}
    assert not names & {"fcntl", "termios", "tty", "pwd"}


def test_every_serial_port_the_host_opens_has_a_read_deadline() -> None:
    """A read with no timeout waits for ever on a board that stopped talking (the flash hang)."""
    import ast

    host = Path(portlock.__file__).resolve().parents[1]  # the whole host package (portlock is in board/)
    opens = 0
    for path in sorted(host.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            if name not in ("Serial", "serial_for_url", "SerialTransport", "open_serial"):
                continue
            if any(k.arg is None for k in node.keywords):
                continue  # passes its caller's keywords on (portlock.open_serial itself)
            opens += 1
            assert any(k.arg == "timeout" for k in node.keywords), "%s:%d" % (path.name, node.lineno)
    assert opens >= 4
