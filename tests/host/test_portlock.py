"""One owner per board port: every board command refuses at once a port another program holds,
and nothing is written to a terminal that is not a board."""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable, Iterator

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


def test_the_port_is_opened_exclusively_so_a_serial_terminal_is_kept_out(pty: tuple[str, int]) -> None:
    port, _ = pty
    ser = portlock.open_serial(port, 115200, timeout=0)
    try:
        with pytest.raises(serial.SerialException):
            serial.Serial(port, 115200, exclusive=True, timeout=0)  # mpremote, a terminal
        assert portlock.exclusive_busy(port)
    finally:
        ser.close()
    serial.Serial(port, 115200, exclusive=True, timeout=0).close()  # free once it is let go


@pytest.fixture
def no_runtime(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """No XDG_RUNTIME_DIR: the lock folder is in a temp folder everyone may write (as /tmp)."""
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="cardtable-test-tmp-", dir="/tmp" if os.path.isdir("/tmp") else None))
    base.chmod(0o1777)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("TMPDIR", str(base))
    monkeypatch.setattr(tempfile, "tempdir", str(base))
    try:
        yield base
    finally:
        import shutil

        shutil.rmtree(base, ignore_errors=True)


def as_nobody(step: Callable[[], None]) -> None:
    """Do step as another local user (nobody), in a child process."""
    import pwd

    who = pwd.getpwnam("nobody")
    pid = os.fork()
    if pid == 0:
        try:
            os.setgid(who.pw_gid)
            os.setuid(who.pw_uid)
            step()
        except BaseException:  # noqa: BLE001 - the child's failure is its exit status
            os._exit(1)
        os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0, "the other user's steps failed"


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="switching users needs root")
def test_another_users_lock_folder_is_refused_and_nothing_of_ours_is_truncated(no_runtime: Path, tmp_path: Path) -> None:
    victim = no_runtime / "victim.txt"  # a file of ours the other user wants truncated
    victim.write_text("my thesis\n")
    master, slave = os.openpty()
    try:
        port = os.ttyname(slave)
        folder = no_runtime / ("cardtable-%d" % os.getuid())
        lock = portlock.re.sub(r"[^A-Za-z0-9._-]+", "_", os.path.realpath(port)).strip("_")

        def plant() -> None:
            os.mkdir(folder, 0o777)
            os.chmod(folder, 0o777)
            os.symlink(victim, folder / (lock + ".lock"))
            os.symlink(victim, folder / (lock + ".board"))

        as_nobody(plant)
        with pytest.raises(portlock.UnsafeFolder) as e:
            portlock.hold(port, "cardtable monitor")
        assert "belongs to another user" in str(e.value) and str(folder) in str(e.value)
        r = cardtable("doctor", "--port", port, timeout=60,
                      env=dict(os.environ, TMPDIR=str(no_runtime)))
        assert r.returncode == 2, r.stdout + r.stderr
        assert "belongs to another user" in r.stderr and "Traceback" not in r.stderr
        assert victim.read_text() == "my thesis\n"
    finally:
        os.close(master)
        os.close(slave)


def test_a_lock_folder_open_to_others_is_made_ours_alone(no_runtime: Path) -> None:
    folder = no_runtime / ("cardtable-%d" % os.getuid())
    folder.mkdir()
    folder.chmod(0o777)
    assert portlock.runtime_dir() == folder
    assert folder.stat().st_mode & 0o777 == 0o700


def test_a_symlinked_lock_file_is_never_followed(runtime: Path, pty: tuple[str, int], tmp_path: Path) -> None:
    port, master = pty
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    lock = portlock.lock_path(port)
    lock.symlink_to(victim)
    with pytest.raises(portlock.UnsafeFolder) as e:
        portlock.hold(port, "cardtable monitor")
    assert "symbolic link" in str(e.value)
    board = portlock.lock_path(port).with_suffix(".board")
    board.symlink_to(victim)
    with pytest.raises(portlock.UnsafeFolder):
        portlock.announce(port)
    assert victim.read_text() == "keep me\n"
    folder_link = runtime / "cardtable"
    for p in folder_link.iterdir():
        p.unlink()
    folder_link.rmdir()
    folder_link.symlink_to(tmp_path)
    with pytest.raises(portlock.UnsafeFolder) as e:
        portlock.runtime_dir()
    assert "symbolic link" in str(e.value)


def test_a_lock_path_that_is_a_folder_is_a_message(runtime: Path, pty: tuple[str, int]) -> None:
    port, master = pty
    portlock.lock_path(port).mkdir()
    with pytest.raises(portlock.UnsafeFolder) as e:
        portlock.hold(port, "cardtable monitor")
    assert str(e.value) == "%s is a folder, not a lock file: remove it" % portlock.lock_path(port)
    portlock.announce(port)
    r = cardtable("doctor", "--port", port, timeout=60)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "is a folder, not a lock file" in r.stderr and "Traceback" not in r.stderr
    assert written(master) == b""
