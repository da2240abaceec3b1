"""Find the table's board: --port, $CARDTABLE_PORT, or a Raspberry Pi Pico by its USB id.

A board is named by its device path (/dev/ttyACM0, COM5), a pyserial URL (socket://...), or
its USB serial number (or a unique prefix of it), so a table keeps its identity whatever
order the ports come up in.
"""
from __future__ import annotations

import argparse
import os
import sys

PICO_VID = 0x2E8A  # Raspberry Pi
PICO_PIDS = (0x0005,)  # MicroPython's USB CDC on RP2040 (and RP2350)
ENV = "CARDTABLE_PORT"


class BoardNotFound(Exception):
    """No board (or no single board) to talk to; the message says what to do."""


def add_port_argument(p: argparse.ArgumentParser) -> None:
    """The --port option every board command shares."""
    p.add_argument("--port", "-p", metavar="PORT",
                   help="the board's serial port, URL or USB serial number "
                        "(default: $%s, else the one Raspberry Pi Pico plugged in)" % ENV)


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
        raise BoardNotFound("no serial port or board serial number %s; plugged in: %s" % (
            want, ", ".join(_describe(p) for p in _ports()) or "nothing"))
    found = picos()
    if len(found) == 1:
        return found[0].device
    if not found:
        raise BoardNotFound(
            "no board found: plug the Pico in by USB (a data cable, not a charging one), or "
            "name its port with --port /dev/ttyACM0 (or set %s)" % ENV)
    raise BoardNotFound("%d Picos are plugged in: %s; choose one with --port (a device or a "
                        "serial number)" % (len(found), ", ".join(_describe(p) for p in found)))


def busy(port: str) -> str | None:
    """Why the port cannot be used now (another program holds it), or None if it is free.

    Programs that lock the port (mpremote, `cardtable flash`, most serial terminals) are
    seen; a program that opened it without a lock is not.
    """
    import serial

    if "://" in port:
        return None
    try:
        s = serial.Serial(port, 115200, exclusive=True, timeout=0.1)
    except serial.SerialException as e:
        text = str(e)
        if "lock" in text.lower() or "busy" in text.lower() or "Errno 16" in text:
            return ("the board is busy: another program has %s open (a cardtable monitor, mpremote "
                    "or a serial terminal?): close it and try again" % port)
        return "cannot open %s: %s" % (port, text)
    s.close()
    return None


def free_port(command: str, port: str | None) -> str | None:
    """The board's port, free for us; else None after telling the user why (as `cardtable COMMAND`)."""
    try:
        found = resolve(port)
    except BoardNotFound as e:
        print("cardtable %s: %s" % (command, e), file=sys.stderr)
        return None
    why = busy(found)
    if why:
        print("cardtable %s: %s" % (command, why), file=sys.stderr)
        return None
    return found


def open_link(command: str, port: str | None):
    """A Link to the board, free for us; else None after telling the user why."""
    from cardtable_host.link import Link, LinkError

    found = free_port(command, port)
    if found is None:
        return None
    try:
        return Link(found, timeout=5, reconnect=False)
    except LinkError as e:
        print("cardtable %s: %s" % (command, e), file=sys.stderr)
        return None
