"""serve's web server against hostile clients (raw sockets on the real server): bodies the
board must never get, secrets that are wrong or not text, names and origins of other sites,
requests that never finish, more connections than it serves; and what spectators may get."""
from __future__ import annotations

import json
import os
import logging
import socket
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

pytest.importorskip("aiohttp")

from cardtable_host.serve.archive import Archive  # noqa: E402
from cardtable_host.serve.hub import PUBLIC, Hub  # noqa: E402
from cardtable_host.serve import netguard  # noqa: E402
from cardtable_host.serve.web import Server, make_app  # noqa: E402

SECRET = "s3cret-Of-the-table"


class Table:
    """A served table whose board takes what it is given (the commands it was sent)."""

    def __init__(self, tmp: Path, gate: netguard.Gate | None = None, names: set[str] | None = None) -> None:
        self.commands: list[dict[str, Any]] = []
        self.hub = Hub(table="t")
        app = make_app(self.hub, Archive(tmp / "archive"), SECRET, self.control, lambda: None,
                       *([names] if names is not None else []))
        self.server = Server(app, "127.0.0.1", 0, *([gate] if gate is not None else []))
        self.server.start()
        self.port = self.server.port

    def control(self, cmd: dict[str, Any]) -> dict[str, Any]:
        self.commands.append(cmd)
        return {"ok": True}

    def raw(self, request: bytes, timeout: float = 10) -> bytes:
        """Send request bytes as they are; the server's answer until it is whole (its head and
        Content-Length bytes of body; a 101's head alone: the socket stays open) or it closes."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as s:
            s.sendall(request)
            out = b""
            while not whole(out):
                try:
                    got = s.recv(65536)
                except socket.timeout:
                    break
                if not got:
                    break
                out += got
            return out

    def post(self, body: bytes, headers: dict[str, bytes] | None = None, path: str = "/control") -> tuple[int, bytes]:
        head = {b"Host": b"127.0.0.1:%d" % self.port, b"Content-Type": b"application/json",
                b"X-Cardtable-Secret": SECRET.encode(), b"Content-Length": b"%d" % len(body),
                b"Connection": b"close"}
        for k, v in (headers or {}).items():
            head[k.encode()] = v
        head = {k: v for k, v in head.items() if v is not None}
        req = b"POST " + path.encode() + b" HTTP/1.1\r\n" + b"".join(k + b": " + v + b"\r\n" for k, v in head.items())
        return status_of(self.raw(req + b"\r\n" + body))

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        head = {"Host": "127.0.0.1:%d" % self.port, "Connection": "close"}
        head.update(headers or {})
        req = "GET %s HTTP/1.1\r\n%s\r\n" % (path, "".join("%s: %s\r\n" % kv for kv in head.items()))
        return status_of(self.raw(req.encode()))


def whole(answer: bytes) -> bool:
    """Is this HTTP answer complete: its head, then as much body as its Content-Length says?"""
    head, sep, body = answer.partition(b"\r\n\r\n")
    if not sep:
        return False
    lines = head.split(b"\r\n")
    if lines[0].split()[1:2] == [b"101"]:
        return True
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value)
    return False


def status_of(answer: bytes) -> tuple[int, bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1."), answer[:200]
    return int(head.split()[1]), body


@pytest.fixture
def table(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> Iterator[Table]:
    caplog.set_level(logging.ERROR)
    t = Table(tmp_path)
    yield t
    t.server.stop()
    # nothing ended as an exception in serve's output (aiohttp logs a handler's traceback)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity"])
def test_a_number_json_cannot_carry_is_refused_at_once(table: Table, number: str) -> None:
    body = ('{"cmd": "act", "action": {"act": "bid", "seat": 0, "n": %s}}' % number).encode()
    t0 = time.monotonic()
    status, text = table.post(body)
    assert status == 400, text
    assert time.monotonic() - t0 < 3
    assert number.lstrip("-") in json.loads(text)["error"]
    assert table.commands == []  # the board never got it


def test_the_link_never_writes_nan_to_a_board() -> None:
    from cardtable_host.board.link import Link

    sent: list[bytes] = []

    class Fake(Link):
        def __init__(self) -> None:  # no port: only what command() writes
            import threading

            self._plock = threading.Lock()
            self._next_id = 0
            self._pending = {}
            self.timeout = 0.1
            self.port = "fake"

        def send_raw(self, data: bytes) -> None:
            sent.append(data)

    with pytest.raises(ValueError):
        Fake().act({"act": "bid", "seat": 0, "n": float("nan")})
    assert sent == []


def test_a_secret_that_is_not_ascii_is_a_refusal_not_an_error(table: Table) -> None:
    for given in ("sécret".encode("utf-8"), b"\xff\xfe", "s3cret-Of-the-tablé".encode("latin-1")):
        status, text = table.post(b'{"cmd": "undo"}', {"X-Cardtable-Secret": given})
        assert status == 403, text
        assert "wrong secret" in json.loads(text)["error"]
        status, text = table.post(b'{"cmd": "undo"}', {"X-Cardtable-Secret": None, "Authorization": b"Bearer " + given})
        assert status == 403, text
    assert table.commands == []


def test_a_deeply_nested_body_is_a_400(table: Table) -> None:
    for body in (b"[" * 100000 + b"]" * 100000, b'{"cmd": "act", "action": ' + b'{"a": ' * 5000 + b"1" + b"}" * 5001,
                 b'{"cmd": "act", "action": ' + b"[" * 20 + b"]" * 20 + b"}", b"\xff\xfe{}", b"{"):
        status, text = table.post(body)
        assert status == 400, (body[:40], text)
    assert table.commands == []


def test_the_secret_is_compared_in_constant_time_in_either_header(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    import hmac

    compared: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    status, _ = table.post(b'{"cmd": "undo"}', {"X-Cardtable-Secret": SECRET[:-1].encode() + b"x"})
    assert status == 403 and compared == [((SECRET[:-1] + "x").encode(), SECRET.encode())]
    status, text = table.post(b'{"cmd": "undo"}', {"X-Cardtable-Secret": None,
                                                   "Authorization": b"Bearer " + SECRET.encode()})
    assert status == 200, text
    assert table.commands == [{"cmd": "undo"}]
    assert compared[-1] == (SECRET.encode(), SECRET.encode())
    status, text = table.post(b'{"cmd": "undo"}', {"X-Cardtable-Secret": None})
    assert status == 403 and "secret is needed" in json.loads(text)["error"]
    status, text = table.post(b'{"cmd": "undo"}', {"X-Cardtable-Secret": b"nope"})
    assert status == 403 and "wrong secret" in json.loads(text)["error"]
    assert len(table.commands) == 1


def test_a_table_has_no_empty_secret(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        make_app(Hub(), Archive(tmp_path), "", None, lambda: None)


def test_another_sites_name_or_page_is_refused(table: Table) -> None:
    """DNS rebinding (the attacker's name resolving to 127.0.0.1) and a page of another site."""
    assert table.get("/archive.json")[0] == 200
    assert table.get("/archive.json", {"Host": "localhost:%d" % table.port})[0] == 200
    for host in ("evil.example:%d" % table.port, "evil.example", "127.0.0.1.evil.example", "", "[::1"):
        status, text = table.get("/archive.json", {"Host": host})
        assert status in (400, 403), (host, status)
    status, _ = table.post(b'{"cmd": "undo"}', {"Host": b"rebind.example:%d" % table.port})
    assert status == 403 and table.commands == []
    ws = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
          "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
    status, _ = table.get("/ws", dict(ws, Origin="http://evil.example"))
    assert status == 403
    status, _ = table.get("/ws", dict(ws, Origin="null"))
    assert status == 403
    status, _ = table.get("/ws", dict(ws, Origin="http://127.0.0.1:%d" % (table.port + 1)))
    assert status == 403  # another service of this machine is another site too
    status, _ = table.get("/ws", dict(ws, Origin="http://127.0.0.1:%d" % table.port))
    assert status == 101  # the page's own
    status, _ = table.post(b'{"cmd": "undo"}', {"Origin": b"http://evil.example"})
    assert status == 403 and table.commands == []


def test_a_name_the_user_allowed_is_served(tmp_path: Path) -> None:
    t = Table(tmp_path, names=netguard.host_names("127.0.0.1", ["http://table.club.lan:8719"]))
    try:
        assert t.get("/archive.json", {"Host": "table.club.lan:8719", "Origin": "http://table.club.lan:8719"})[0] == 200
        assert t.get("/archive.json", {"Host": "other.club.lan"})[0] == 403
        # by an address (a phone on the LAN): no name an attacker could point here
        assert t.get("/archive.json", {"Host": "192.0.2.7:8719", "Origin": "http://192.0.2.7:8719"})[0] == 200
        assert t.get("/archive.json", {"Host": "192.0.2.7:8719", "Origin": "http://192.0.2.9:8719"})[0] == 403
    finally:
        t.server.stop()


def test_a_request_that_never_finishes_is_let_go(tmp_path: Path) -> None:
    t = Table(tmp_path, gate=netguard.Gate(head_s=1.0))
    try:
        with socket.create_connection(("127.0.0.1", t.port), timeout=20) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # and nothing more
            t0 = time.monotonic()
            try:
                got = s.recv(100)
            except ConnectionResetError:
                got = b""
            assert got == b"" and time.monotonic() - t0 < 15
        assert t.get("/archive.json")[0] == 200  # others are still served
    finally:
        t.server.stop()


def test_connections_past_the_cap_are_turned_away(tmp_path: Path) -> None:
    t = Table(tmp_path, gate=netguard.Gate(max_connections=5, head_s=60))
    idle = [socket.create_connection(("127.0.0.1", t.port), timeout=10) for _ in range(5)]
    try:
        deadline = time.monotonic() + 10
        while t.server.gate.open < 5 and time.monotonic() < deadline:
            time.sleep(0.02)
        status, body = t.get("/archive.json")
        assert status == 503 and b"too many connections" in body
        idle.pop().close()
        deadline = time.monotonic() + 10
        while t.server.gate.open > 4 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert t.get("/archive.json")[0] == 200
    finally:
        for s in idle:
            s.close()
        t.server.stop()


def test_spectators_get_only_the_message_kinds_serve_lists() -> None:
    hub = Hub()
    got: list[dict[str, Any]] = []
    hub.subscribe(lambda n, t, text: got.append(json.loads(text)))
    for kind in ("ok", "error", "hand", "log", "journal", "config", "games", "private", "seat", None, 3):
        hub.feed({"type": kind, "id": 7, "hand": ["AS", "KD"], "view": {"hand": ["AS"]}})
    hub.feed({"type": "state", "seq": 1, "view": {"turn": 0}, "hands": [["AS"]], "id": 9})
    assert [m["type"] for m in got] == ["state"]
    assert "hands" not in got[0] and "id" not in got[0]
    assert "AS" not in json.dumps(got)
    assert set(PUBLIC) == {"hello", "state", "event", "verdict", "fault", "link", "agree", "consent", "say"}


def test_an_empty_secret_file_is_refused_at_start(tmp_path: Path) -> None:
    from hostsupport import cardtable

    for text in ("", "  \n\t\n"):
        f = tmp_path / "secret"
        f.write_text(text)
        r = cardtable("serve", "--sim", "nexus", "--secret-file", str(f), "--http", "127.0.0.1:0",
                      "--archive", str(tmp_path / "a"), timeout=60)
        assert r.returncode == 2, r.stdout + r.stderr
        assert r.stderr.strip() == "cardtable serve: --secret-file %s is empty" % f
        assert "table page" not in r.stdout


def test_serving_every_address_shows_addresses_a_phone_can_open_and_warns(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    from hostsupport import need_node

    pytest.importorskip("termios")
    need_node()
    proc = subprocess.Popen([sys.executable, "-m", "cardtable_host.cli", "serve", "--sim", "nexus", "--seed", "1",
                             "--http", "0.0.0.0:0", "--archive", str(tmp_path / "a"), "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, NO_COLOR="1"), start_new_session=True)
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("scorekeeper secret:"):
                break
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)
    page = [x for x in lines if x.startswith("table page: ")]
    assert len(page) == 1, lines
    url = page[0].split(": ", 1)[1]
    assert "0.0.0.0" not in "\n".join(lines)
    host = url.split("//", 1)[1].rsplit(":", 1)[0].strip("[]")
    assert host in netguard.lan_addresses() or (not netguard.lan_addresses() and host == "127.0.0.1"), lines
    assert any(x.startswith("warning: the page and the scorekeeper's secret travel as plain HTTP") for x in lines), lines


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """A tiny file system, full: (its archive folder, the file filling it)."""
    import subprocess

    if not hasattr(os, "getuid") or os.getuid() != 0:
        pytest.skip("mounting a tiny file system needs root")
    mnt = tmp_path / "disk"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip("cannot mount a tmpfs here: %s" % r.stderr.strip())
    try:
        (mnt / "archive").mkdir()
        filler = mnt / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while True:
                os.write(fd, b"x" * 1024)
        except OSError:
            pass
        finally:
            os.close(fd)
        yield mnt / "archive", filler
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_a_full_disk_keeps_the_game_until_it_is_archived(full_disk: tuple[Path, Path]) -> None:
    from hostsupport import need_node
    from servesupport import Serve, Viewer

    pytest.importorskip("termios")
    need_node()
    folder, filler = full_disk
    with Serve("--sim", "nexus", "--seed", "1", "--bot-delay", "0", "--games", "2", "--http", "127.0.0.1:0",
               "--archive", str(folder)) as s:
        v = Viewer(s.url)
        failed = s.wait_for(lambda: [m for m in v.messages if m.get("archive_status")], 240, "the archive failing")[0]
        assert "1 finished game not archived yet" in failed["archive_status"], failed
        assert "No space left on device" in failed["archive_status"]
        assert s.json("snapshot.json")["archive_status"] == failed["archive_status"]  # the page shows it
        assert not list(folder.iterdir())  # no half-written file left behind
        # the next game starts all the same
        s.wait_for(lambda: v.has(lambda m: m["n"] > failed["n"] and m.get("type") == "event" and m.get("seq") == 1),
                   60, "the next game")
        assert s.json("archive.json") == []
        filler.unlink()  # room again: the kept game is saved, once
        s.wait_for(lambda: s.json("snapshot.json")["archive_status"] == "", 60, "the game archived")

        def listed_and_filed() -> list[dict]:
            """The archive's list when its files are the same games (the second game may end meanwhile)."""
            games = s.json("archive.json")
            files = sorted(p.name for p in folder.iterdir())
            return games if files == sorted("%04d-nexus.jsonl" % g["number"] for g in games) else []

        games = s.wait_for(listed_and_filed, 30, "the archive's list and files alike")
        # the kept game first; the second too if it is over by now
        assert sorted(g["number"] for g in games) in ([1], [1, 2]) and all(g["over"] for g in games)
        assert len({(folder / ("%04d-nexus.jsonl" % g["number"])).read_text() for g in games}) == len(games)  # each once
        # the viewer's note may follow the snapshot that said it
        s.wait_for(lambda: v.has(lambda m: m.get("type") == "note" and (m.get("archived") or [None])[0] == 1),
                   30, "the note that game 1 is archived")
        v.close()
    assert "Traceback" not in "\n".join(s.err)


def test_with_no_board_a_running_serve_is_named_not_taken_for_the_table(tmp_path: Path) -> None:
    """Two serves of virtual boards run (another checkout's, say): flash, doctor and monitor
    with no board take neither for the table; they name each, to choose one with --port."""
    from hostsupport import cardtable, need_node
    from servesupport import Serve

    pytest.importorskip("termios")
    need_node()
    env = dict(os.environ, XDG_RUNTIME_DIR=str(tmp_path / "run"))  # these serves only
    (tmp_path / "run").mkdir(mode=0o700)
    env.pop("CARDTABLE_PORT", None)
    args = ("--sim", "nexus", "--seed", "1", "--bot-delay", "0.05", "--http", "127.0.0.1:0", "--quiet")
    with Serve(*args, "--archive", str(tmp_path / "a1"), env=env) as one:
        for cmd in (("doctor",), ("monitor", "--plain"), ("flash",)):
            r = cardtable(*cmd, env=env, timeout=60)
            assert r.returncode == 2, r.stdout + r.stderr
            assert "in use" not in r.stderr and "Traceback" not in r.stderr
            assert "no board found, but a cardtable serve runs one on %s (cardtable serve, pid %d" % (
                one.port, one.proc.pid) in r.stderr, r.stderr
            assert "--port %s" % one.port in r.stderr
        with Serve(*args, "--archive", str(tmp_path / "a2"), env=env) as two:
            for cmd in (("doctor",), ("monitor", "--plain"), ("flash",)):
                r = cardtable(*cmd, env=env, timeout=60)
                assert r.returncode == 2, r.stdout + r.stderr
                line = r.stderr.strip().splitlines()[-1]
                assert "2 cardtable serves run one each" in line and "choose one with --port" in line, line
                assert one.port in line and two.port in line
