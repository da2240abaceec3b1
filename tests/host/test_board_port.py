"""The board's port on the virtual board: `cardtable sim` owns it while it plays and leaves no
stale --port-file; a board reached by a URL (socket://) works like one on a device path."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hostsupport import cardtable, need_node

pytest.importorskip("termios")  # ptys are POSIX only

from cardtable_host.sim.board import VirtualBoard  # noqa: E402

need_node()


def relay(port: str) -> tuple[int, Any]:
    """A TCP server on localhost relaying one client to the serial port (ser2net's job);
    (its TCP port, a function that stops it)."""
    import select
    import socket
    import threading

    import serial

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    stop = threading.Event()

    def run() -> None:
        client, _ = server.accept()
        with serial.Serial(port, 115200, timeout=0, exclusive=True) as ser:
            while not stop.is_set():
                r, _, _ = select.select([client, ser.fileno()], [], [], 0.1)
                if client in r:
                    data = client.recv(4096)
                    if not data:
                        break
                    ser.write(data)
                if ser.fileno() in r:
                    client.sendall(ser.read(4096))
        client.close()

    t = threading.Thread(target=run, daemon=True)
    t.start()

    def close() -> None:
        stop.set()
        server.close()
        t.join(timeout=5)

    return server.getsockname()[1], close


def test_a_board_behind_a_socket_url() -> None:
    import json

    with VirtualBoard("pico-i2c-2seat", game="nexus") as vb:
        tcp, close = relay(vb.port)
        try:
            r = cardtable("doctor", "--port", "socket://127.0.0.1:%d" % tcp, "--sample", "0.2", "--json",
                          timeout=60)
        finally:
            close()
    assert r.returncode == 0, r.stdout + r.stderr
    rep = json.loads(r.stdout)
    assert rep["ok"] and rep["board"] == "pico-i2c-2seat" and rep["port"] == "socket://127.0.0.1:%d" % tcp


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_the_sim_holds_its_port_and_removes_its_port_file(tmp_path: Path, sig: int) -> None:
    port_file = tmp_path / "board.port"
    out = open(tmp_path / "sim.out", "w+")
    # one seat is a person's: the simulator waits at its prompt, holding the board
    proc = subprocess.Popen([sys.executable, "-m", "cardtable_host.cli", "sim", "nexus", "--bots", "1",
                             "--port-file", str(port_file)], stdin=subprocess.PIPE, stdout=out,
                            stderr=subprocess.STDOUT, env=dict(os.environ, NO_COLOR="1"))
    try:
        deadline = time.monotonic() + 60
        while not (port_file.exists() and "you play seat" in (tmp_path / "sim.out").read_text()):
            assert proc.poll() is None and time.monotonic() < deadline, (tmp_path / "sim.out").read_text()
            time.sleep(0.1)
        port = port_file.read_text().strip()
        for args in (("monitor", "--plain"), ("doctor",)):
            r = cardtable(args[0], "--port", port, *args[1:], timeout=60)
            assert r.returncode == 2, r.stdout + r.stderr
            assert r.stderr.strip() == ("cardtable %s: the table's port is in use by cardtable sim, pid %d"
                                        % (args[0], proc.pid))
        assert proc.poll() is None  # the game goes on: nobody took its link

        proc.send_signal(sig)
        proc.wait(timeout=30)
        said = (tmp_path / "sim.out").read_text()
        assert "Traceback" not in said, said
        assert not port_file.exists()  # a stale one would name a pty some shell may get next
        r = cardtable("doctor", "--port", port, timeout=60)
        assert r.returncode == 2 and "Traceback" not in r.stderr
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        out.close()
