"""One owner per board port: a lock file naming the holder, and pyserial's exclusive open.

Every cardtable command that opens the board's port holds it::

    with portlock.hold(port, "cardtable monitor"):
        ser = portlock.open_serial(port, 115200, timeout=0.05)
        ...

and any other program that tries it is refused at once with ``PortInUse``: "the table's port
is in use by cardtable monitor, pid 4242". The lock file lives in a runtime folder
($XDG_RUNTIME_DIR/cardtable, else the temp folder), is keyed by the port's real path (a
symlink and its target are one port) and holds "COMMAND\\nPID\\n"; its lock (flock) dies with
its process, so a holder that crashed leaves nothing to clear. Programs that are not
cardtable (mpremote, a serial terminal) are kept out, and named, by pyserial's exclusive
open. ``holder(port)`` answers who holds a port, for a later hub that owns the port and
serves other commands as its clients.

A pseudo-terminal is only taken for a board while a virtual board announces it
(``announce``): a stale --port-file may name a pty a shell now uses, and nothing is ever
written into someone's terminal (``check_board``).
"""
from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any

from cardtable_host.errors import CardtableError, USAGE

_me = ""  # the running command, as holders are named ("cardtable monitor"); see set_command


class PortInUse(CardtableError):
    """Another program holds the board's port; the message names it."""

    status = USAGE

    def __init__(self, port: str, command: str, pid: int | None) -> None:
        who = command if pid is None else "%s, pid %d" % (command, pid)
        super().__init__("the table's port is in use by %s" % who)
        self.port = port
        self.command = command
        self.pid = pid


class NotABoard(CardtableError):
    """The port is a terminal no virtual board serves (a stale --port-file?)."""

    status = USAGE


def set_command(command: str) -> None:
    """Name this process's holds (the cli sets "cardtable COMMAND")."""
    global _me
    _me = command


def me() -> str:
    """How this process is named as a holder."""
    return _me or "cardtable (%s)" % os.path.basename(sys.argv[0] or "python")


def is_url(port: str) -> bool:
    return "://" in port


def key(port: str) -> str:
    """The port's identity: its real path (URLs as they are)."""
    return port if is_url(port) else os.path.realpath(port)


class UnsafeFolder(CardtableError):
    """The lock folder or a file in it is not this user's alone: refused, never followed."""

    status = USAGE


def runtime_dir() -> Path:
    """Where lock files live: $XDG_RUNTIME_DIR/cardtable, else a per-user temp folder; either
    one this user owns, a real folder (no symlink) no one else may write (UnsafeFolder)."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and os.path.isdir(base):
        d = Path(base) / "cardtable"
    else:
        uid = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
        d = Path(tempfile.gettempdir()) / ("cardtable-%s" % uid)
    try:
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
    except FileExistsError:  # a file or a dangling symlink by that name: _check_folder says which
        pass
    except OSError as e:
        raise UnsafeFolder("cannot make the lock folder %s: %s" % (d, e.strerror or e)) from None
    _check_folder(d)
    return d


def _check_folder(d: Path) -> None:
    """UnsafeFolder unless d is a real folder of this user's that only this user may write."""
    import stat

    try:
        st = os.lstat(d)
    except OSError as e:
        raise UnsafeFolder("cannot use the lock folder %s: %s" % (d, e.strerror or e)) from None
    fix = "remove it (or set XDG_RUNTIME_DIR to a folder of your own)"
    if stat.S_ISLNK(st.st_mode):
        raise UnsafeFolder("the lock folder %s is a symbolic link: refused; %s" % (d, fix))
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeFolder("the lock folder %s is not a folder; %s" % (d, fix))
    if not hasattr(os, "getuid"):
        return
    if st.st_uid != os.getuid():
        raise UnsafeFolder("the lock folder %s belongs to another user (uid %d): refused; %s" % (d, st.st_uid, fix))
    if st.st_mode & 0o077:
        os.chmod(d, 0o700)  # this user's own: only this user may use it from now on


def open_private(path: Path, flags: int) -> int:
    """A file descriptor of path in the lock folder, opened without following a symlink; the
    file must be a regular file of this user's (UnsafeFolder otherwise)."""
    import stat

    nofollow = getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(str(path), flags | nofollow | getattr(os, "O_CLOEXEC", 0), 0o600)
    except IsADirectoryError:
        raise UnsafeFolder("%s is a folder, not a lock file: remove it" % path) from None
    except OSError as e:
        if nofollow and os.path.islink(path):
            raise UnsafeFolder("%s is a symbolic link, not a lock file: refused (remove it)" % path) from None
        raise UnsafeFolder("cannot open %s: %s" % (path, e.strerror or e)) from None
    st = os.fstat(fd)
    mine = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    if not stat.S_ISREG(st.st_mode) or not mine:
        os.close(fd)
        if stat.S_ISDIR(st.st_mode):
            raise UnsafeFolder("%s is a folder, not a lock file: remove it" % path)
        raise UnsafeFolder("%s is not a lock file of yours: refused (remove it)" % path)
    return fd


def write_private(path: Path, text: str) -> None:
    """Write text to path in the lock folder (this user's only; never through a symlink)."""
    fd = open_private(path, os.O_WRONLY | os.O_CREAT)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.truncate(0)
        f.write(text)


def read_private(path: Path) -> str | None:
    """The text of a file in the lock folder, or None (missing, a symlink, not this user's)."""
    try:
        fd = open_private(path, os.O_RDONLY)
    except UnsafeFolder:
        return None
    with os.fdopen(fd, "r", encoding="utf-8", errors="replace") as f:
        return f.read()


def _file(port: str, suffix: str) -> Path:
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", key(port)).strip("_") or "port"
    return runtime_dir() / (name + suffix)


def lock_path(port: str) -> Path:
    """The lock file of a port."""
    return _file(port, ".lock")


def alive(pid: int) -> bool:
    """True if a process with this id runs."""
    if pid <= 0:
        return False
    if os.name == "nt":  # os.kill(pid, 0) would send Ctrl-C there: ask for a handle instead
        import ctypes

        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        kernel32.CloseHandle(handle)
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def _read(path: Path) -> tuple[str, int] | None:
    text = read_private(path)
    if text is None:
        return None
    parts = text.split("\n")
    if len(parts) < 2 or not parts[1].strip().isdigit():
        return None
    return parts[0].strip() or "a cardtable command", int(parts[1])


def _locked(path: Path) -> bool:
    """True if some process holds the lock on path (POSIX flock; elsewhere: its pid lives)."""
    try:
        import fcntl
    except ImportError:  # Windows: the pid in the file decides
        found = _read(path)
        return found is not None and alive(found[1])
    try:
        fd = open_private(path, os.O_RDONLY)
    except UnsafeFolder:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # closing drops the shared lock if we got it
    return False


def holder(port: str) -> tuple[str, int] | None:
    """Who holds the port: (command, pid) of a cardtable command, else of another program
    that holds it open exclusively (Linux), else None."""
    path = lock_path(port)
    if path.exists() and _locked(path):
        found = _read(path)
        if found is not None and alive(found[1]):
            return found
    if not is_url(port) and exclusive_busy(port):
        return foreign(port) or ("another program (a serial terminal?)", 0)
    return None


def exclusive_busy(port: str) -> bool:
    """True if another program holds the port open exclusively (mpremote, a terminal)."""
    import serial

    try:
        s = serial.Serial(port, 115200, exclusive=True, timeout=0)
    except (serial.SerialException, OSError, ValueError) as e:
        return _busy_text(str(e))
    s.close()
    return False


def _busy_text(text: str) -> bool:
    low = text.lower()
    return "lock" in low or "busy" in low or "errno 16" in low or "errno 11" in low


def foreign(port: str) -> tuple[str, int] | None:
    """(command, pid) of another process with the port open, found in /proc (Linux only)."""
    want = key(port)
    proc = Path("/proc")
    if not proc.is_dir():
        return None
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            fds = list((entry / "fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target == want:
                return _command_of(entry), int(entry.name)
    return None


def _command_of(entry: Path) -> str:
    try:
        args = [a for a in (entry / "cmdline").read_bytes().decode(errors="replace").split("\0") if a]
    except OSError:
        args = []
    if not args:
        return "another program"
    name = os.path.basename(args[0])
    if name.startswith("python") and len(args) > 1:  # mpremote, a script: name the script
        rest = args[1:]
        if rest[0] == "-m" and len(rest) > 1:
            return rest[1].split(".")[0]
        return os.path.basename(rest[0])
    return name


def busy_error(port: str, who: tuple[str, int] | None = None) -> PortInUse:
    """The PortInUse for a port another program holds (who: its (command, pid), if known)."""
    who = who or foreign(port) or ("another program (a serial terminal?)", 0)
    return PortInUse(port, who[0], who[1] or None)


class Hold:
    """The lock on one port for this process (a context manager); see ``hold``."""

    def __init__(self, port: str, command: str | None = None) -> None:
        self.port = port
        self.command = command or me()
        self.path = lock_path(port)
        self._fd = -1

    @property
    def held(self) -> bool:
        return self._fd >= 0

    def acquire(self) -> "Hold":
        """Take the lock or raise PortInUse at once; a lock whose holder died is taken over."""
        if self.held:
            return self
        fd = open_private(self.path, os.O_RDWR | os.O_CREAT)
        try:
            try:
                import fcntl
            except ImportError:
                fcntl = None  # type: ignore[assignment]
            if fcntl is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    raise busy_error(self.port, _read(self.path) or ("a cardtable command", 0))
            else:
                found = _read(self.path)
                if found is not None and alive(found[1]) and found[1] != os.getpid():
                    raise busy_error(self.port, found)
            os.ftruncate(fd, 0)
            os.write(fd, ("%s\n%d\n" % (self.command, os.getpid())).encode())
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return self

    def release(self) -> None:
        """Let the port go (the lock file stays, empty)."""
        if self._fd < 0:
            return
        fd, self._fd = self._fd, -1
        try:
            os.ftruncate(fd, 0)
        except OSError:
            pass
        os.close(fd)

    def __enter__(self) -> "Hold":
        return self.acquire()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()


def hold(port: str, command: str | None = None) -> Hold:
    """Hold the port (raises PortInUse naming the holder); release() or use it in `with`."""
    return Hold(port, command).acquire()


def open_serial(port: str, baudrate: int = 115200, **kwargs: Any) -> Any:
    """The port opened exclusively with pyserial (device paths, socket://, rfc2217:// ...).

    Raises PortInUse if another program holds it, CardtableError if it cannot be opened.
    """
    import serial

    if not is_url(port):
        kwargs.setdefault("exclusive", True)
    try:
        return serial.serial_for_url(port, baudrate, **kwargs)
    except (serial.SerialException, OSError, ValueError) as e:
        text = str(e)
        if not is_url(port) and _busy_text(text):
            raise busy_error(port, foreign(port)) from None
        raise CardtableError("cannot open %s: %s" % (port, _short(text)), USAGE) from None


def _short(text: str) -> str:
    m = re.search(r"\[Errno \d+\] ([^:']+)", text)
    return m.group(1) if m else text


# -- which pseudo-terminals are boards --------------------------------------------------------

def _announce_path(port: str) -> Path:
    return _file(port, ".board")


def announce(port: str) -> None:
    """Say that this process serves a board on port (a virtual board's pty)."""
    write_private(_announce_path(port), "%d\n" % os.getpid())


def withdraw(port: str) -> None:
    """The board on port is gone."""
    try:
        path = _announce_path(port)
        if (read_private(path) or "").strip() == str(os.getpid()):
            path.unlink()
    except OSError:
        pass


def announced(port: str) -> bool:
    """True if a running virtual board serves port."""
    try:
        pid = int((read_private(_announce_path(port)) or "").strip())
    except (OSError, ValueError):
        return False
    return alive(pid)


def is_pty(port: str) -> bool:
    """True if the port is a pseudo-terminal (a virtual board's, or someone's shell)."""
    real = key(port)
    return real.startswith("/dev/pts/") or bool(re.match(r"/dev/ttys\d", real))


def check_board(port: str) -> None:
    """Raise NotABoard unless port may be a board: a real serial port, a URL, or a pty that a
    running virtual board announced. Called before anything is written to the port."""
    if is_url(port) or not is_pty(port) or announced(port):
        return
    raise NotABoard("%s is a terminal, not a cardtable board: no virtual board serves it (a stale "
                    "--port-file? start `cardtable sim` again and use the port it prints)" % port)
