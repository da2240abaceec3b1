"""Find the table's board: --port, $CARDTABLE_PORT, or a Raspberry Pi Pico by its USB id.

A board is named by its device path (/dev/ttyACM0, COM5), a pyserial URL (socket://...), or
its USB serial number (or a unique prefix of it), so a table keeps its identity whatever
order the ports come up in.
"""
from __future__ import annotations

import argparse
import os

from cardtable_host.board import portlock
from cardtable_host.errors import USAGE, CardtableError

PICO_VID = 0x2E8A  # Raspberry Pi
PICO_PIDS = (0x0005,)  # MicroPython's USB CDC on RP2040 (and RP2350)
ENV = "CARDTABLE_PORT"


class BoardNotFound(CardtableError):
    """No board (or no single board) to talk to; the message says what to do."""

    status = USAGE


def add_port_argument(p: argparse.ArgumentParser) -> None:
    """The --port option every board command shares."""
    p.add_argument("--port", "-p", metavar="PORT",
                   help="the board's serial port (/dev/ttyACM0, COM5), a pyserial URL "
                        "(socket://HOST:PORT, rfc2217://HOST:PORT) or the board's USB serial "
                        "number (default: $%s, else the one Raspberry Pi Pico plugged in)" % ENV)


def _ports() -> list:
    try:
        from serial.tools import list_ports
    except ImportError:  # pragma: no cover - pyserial is a dependency
        return []
    return list(list_ports.comports())


def picos() -> list:
    """The serial ports that are a Pico running MicroPython."""
    return [p for p in _ports() if p.vid == PICO_VID and p.pid in PICO_PIDS]


def _describe(p) -> str:
    sn = " serial %s" % p.serial_number if p.serial_number else ""
    return "%s (%s%s)" % (p.device, p.description or "USB serial", sn)


def resolve(port: str | None = None) -> str:
    """The device path or URL to open; raises BoardNotFound with advice."""
    want = port or os.environ.get(ENV) or None
    if want:
        if "://" in want or os.path.exists(want) or want.upper().startswith("COM"):
            return want
        matches = [p for p in _ports() if p.serial_number and p.serial_number.upper().startswith(want.upper())]
        if len(matches) == 1:
            return matches[0].device
        if len(matches) > 1:
            raise BoardNotFound("%d boards have a serial number starting %s: %s" % (
                len(matches), want, ", ".join(_describe(p) for p in matches)))
        what = "serial port" if os.sep in want or want.startswith("/") else "serial port or board serial number"
        raise BoardNotFound("no %s %s; plugged in: %s" % (
            what, want, ", ".join(_describe(p) for p in _ports()) or "nothing"))
    found = picos()
    if len(found) == 1:
        return found[0].device
    if not found:
        raise BoardNotFound(
            "no board found: plug the Pico in by USB (a data cable, not a charging one), or "
            "name its port with --port /dev/ttyACM0 (or set %s)" % ENV)
    raise BoardNotFound("%d Picos are plugged in: %s; choose one with --port (a device or a "
                        "serial number)" % (len(found), ", ".join(_describe(p) for p in found)))


def board_port(port: str | None) -> str:
    """The board's port (resolve), checked to be a board before anything is written to it."""
    try:
        found = resolve(port)
    except BoardNotFound:
        if not (port or os.environ.get(ENV)):
            _refuse_if_served()
        raise
    portlock.check_board(found)
    return found


def _refuse_if_served() -> None:
    """No board found but `cardtable serve`s run (of a virtual board, or a port they were
    given): none is taken for the table; BoardNotFound names each, to choose with --port."""
    from cardtable_host.serve import servefile

    found = servefile.running()
    if not found:
        return
    each = ["%s (cardtable serve, pid %s, its page %s)" % (info.get("port"), info.get("pid"), info.get("url"))
            for info in found]
    if len(found) == 1:
        raise BoardNotFound("no board found, but a cardtable serve runs one on %s: name it with --port %s "
                            "to use that one" % (each[0], found[0].get("port")))
    raise BoardNotFound("no board found, but %d cardtable serves run one each: %s; choose one with --port"
                        % (len(found), "; ".join(each)))


def claim(command: str, port: str | None) -> tuple[str, "portlock.Hold"]:
    """The board's port, checked to be a board and held for `cardtable COMMAND`.

    Raises BoardNotFound, portlock.NotABoard or portlock.PortInUse (all CardtableErrors).
    """
    found = board_port(port)
    return found, portlock.hold(found, "cardtable " + command)


def open_link(command: str, port: str | None, timeout: float = 5):
    """A Link to the board, held for `cardtable COMMAND` (raises a CardtableError if not)."""
    from cardtable_host.board.link import Link, LinkError

    found = board_port(port)
    try:
        return Link(found, timeout=timeout, reconnect=False, command="cardtable " + command)
    except LinkError as e:
        raise CardtableError(str(e), USAGE) from None
