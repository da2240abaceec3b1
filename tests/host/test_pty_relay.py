"""The one pty relay (sim/pty.py) that both virtual boards and the PN532 on a pty stand on: a
program opens `.port` with pyserial as it would a board, and the device behind it answers."""
from __future__ import annotations

import os
import threading
import time

import pytest

pytest.importorskip("termios")  # ptys are POSIX only

import serial  # noqa: E402

from cardtable_host.board import portlock  # noqa: E402
from cardtable_host.sim.pty import PtyRelay  # noqa: E402


class Shouter:
    """A device that answers every line it is sent in capitals, and can say things unasked."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.lock = threading.Lock()
        self.gone = False

    def write(self, data: bytes) -> None:
        with self.lock:
            self.out.extend(data.upper())

    def say(self, data: bytes) -> None:
        with self.lock:
            self.out.extend(data)

    def read(self) -> bytes | None:
        with self.lock:
            if self.gone:
                return None
            data, self.out = bytes(self.out), bytearray()
            return data


def readline(ser: serial.Serial) -> bytes:
    line = ser.readline()
    assert line.endswith(b"\n"), line
    return line


def test_a_program_talks_to_the_device_through_the_pty() -> None:
    dev = Shouter()
    with PtyRelay(dev.write, dev.read, poll_s=0.005) as relay:
        assert relay.port.startswith("/dev/") and os.path.realpath(relay.stable_port) == relay.port
        with serial.Serial(relay.port, timeout=5) as ser:
            ser.write(b"hello board\n")
            assert readline(ser) == b"HELLO BOARD\n"
            big = b"x" * 20000 + b"\n"  # more than one read of the pty
            ser.write(big)
            assert ser.read(len(big)) == big.upper()


def test_unplug_drops_the_pty_and_replug_brings_a_new_one_behind_the_stable_port() -> None:
    dev = Shouter()
    with PtyRelay(dev.write, dev.read, poll_s=0.005, announce=True) as relay:
        first, stable = relay.port, relay.stable_port
        assert portlock.announced(first)  # a board serves it: cardtable's commands accept it
        relay.unplug()
        assert relay.port == "" and not portlock.announced(first)
        # the name goes with the cable: the pty's number may be another pty's at once
        assert not os.path.lexists(stable)
        dev.say(b"said while unplugged\n")  # nobody hears it
        time.sleep(0.1)
        port = relay.replug()
        assert port and relay.stable_port == stable and os.path.realpath(stable) == port
        with serial.Serial(stable, timeout=5) as ser:
            ser.write(b"again\n")
            assert readline(ser) == b"AGAIN\n"  # nothing from before the cable came back


def test_the_relay_ends_when_the_device_is_gone() -> None:
    dev = Shouter()
    relay = PtyRelay(dev.write, dev.read, poll_s=0.005).start()
    try:
        dev.gone = True
        thread = relay._thread
        assert thread is not None
        thread.join(timeout=5)
        assert not thread.is_alive()
    finally:
        relay.stop()
    assert not os.path.lexists(relay.stable_port)
