"""`cardtable serve`: the page's address, spectators who only read, the scorekeeper's secret,
the archive of a finished game, one serve per board, and a board unplugged and plugged back."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time

import pytest
from hostsupport import cardtable, need_node
from servesupport import PAGE_LINE, Serve, Viewer

pytest.importorskip("aiohttp")
pytest.importorskip("termios")
need_node()


def contiguous(v: Viewer) -> None:
    """Every message after the snapshot came, in order, none missing."""
    ns = [m["n"] for m in v.messages if m.get("type") not in ("refused",)]
    first = ns[0]
    later = [n for n in ns[1:] if n > first]
    assert later == list(range(first + 1, first + 1 + len(later))), ns[:50]


def test_a_simulated_table_served_read_only_with_its_archive(tmp_path) -> None:
    env_args = ("--sim", "nexus", "--seed", "1", "--delay", "0.02", "--http", "127.0.0.1:0",
                "--archive", str(tmp_path / "archive"), "--table", "Club <3>", "--players", "Ann,Bob")
    with Serve(*env_args) as s:
        assert any(PAGE_LINE.match(line) for line in s.lines), s.lines
        watcher = Viewer(s.url)
        rude = Viewer(s.url, send=["garbage", json.dumps({"cmd": "undo"}), b"\x00\xff", json.dumps({"cmd": "new"})])
        s.wait_for(lambda: sum(1 for m in rude.messages if m.get("type") == "refused") >= 4, 30, "refusals")
        # no secret, a wrong one, a near miss: refused, and nothing is undone
        for secret in (None, "", "wrong", s.secret[:-1], s.secret + "x"):
            status, reply = s.control({"cmd": "undo"}, secret)
            assert status == 403 and not reply["ok"] and "secret" in reply["error"]
        status, _ = s.control({"cmd": "new"}, headers={"Authorization": "Bearer nope"})
        assert status == 403
        time.sleep(0.5)
        assert not watcher.has(lambda m: "undone" in m), "a request without the secret changed the game"
        assert sum(1 for m in watcher.messages if m.get("type") == "hello" and m.get("seq") == 0) == 0
        # with it, the scorekeeper undoes the last action
        s.wait_for(lambda: watcher.has(lambda m: m.get("type") == "event" and (m.get("seq") or 0) > 3), 60, "play")
        status, reply = s.control({"cmd": "undo"}, s.secret)
        assert status == 200 and reply["ok"], reply
        s.wait_for(lambda: watcher.has(lambda m: "undone" in m), 10, "the undo on the page")
        status, reply = s.control({"cmd": "launch"}, s.secret)
        assert status == 400
        # the game ends and is archived with the occasion in its header
        s.wait_for(lambda: watcher.has(lambda m: m.get("type") == "note" and m.get("archived")), 180, "the archive")
        games = s.json("archive.json")
        assert len(games) == 1
        head = games[0]["header"]
        assert head["table"] == "Club <3>" and head["players"] == ["Ann", "Bob"]
        assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", head["start"]) and head["end"] >= head["start"]
        status, text = s.get("archive/1.jsonl")
        assert status == 200
        lines = text.splitlines()
        from cardtable import referee

        verdict = referee.referee(lines)
        assert verdict["over"] and s.json("archive/1/verdict.json") == json.loads(json.dumps(verdict))
        replay = s.json("archive/1.json")
        # one step per line, less each undo line and the action it took back (as record.load reads it)
        undos = sum(1 for line in lines if json.loads(line).get("act") == "undo")
        assert replay["steps"][-1]["view"]["over"] and len(replay["steps"]) == len(lines) - 2 * undos
        assert max(st["trick"] for st in replay["steps"]) == len(verdict["tricks"])
        r = subprocess.run([sys.executable, "-m", "cardtable_host.cli", "referee", "-"], input=text,
                           capture_output=True, text=True)
        assert r.returncode in (0, 1) and "line" not in r.stderr
        for page in ("", "overlay", "archive", "archive/1"):
            status, html = s.get(page)
            assert status == 200 and html.startswith("<!doctype html>\n<html"), html[:80]
            assert html.count("<title>cardtable: ") == 1 and 'href="/static/style.css"' in html  # the shared head
        assert s.get("archive/9.jsonl")[0] == 404 and s.get("archive/x")[0] == 404
        # other board commands are refused, naming serve; so is a second serve on its board
        r = cardtable("pull", "-o", str(tmp_path / "pulled"), "--port", s.port)
        assert r.returncode == 2 and "in use by cardtable serve" in r.stderr, r.stderr
        r = cardtable("pull", "-o", str(tmp_path / "pulled"))  # no board named: serve's is named, not taken
        assert r.returncode == 2 and "no board found, but " in r.stderr and s.port in r.stderr, r.stderr
        assert "in use" not in r.stderr
        r = cardtable("serve", "--port", s.port, "--http", "127.0.0.1:0")
        assert r.returncode == 2 and re.search(r"in use by cardtable serve, pid \d+", r.stderr), r.stderr
        assert r.stderr.count("\n") == 1
        contiguous(watcher)
        assert not rude.closed  # garbage is refused, the socket stays open
        watcher.close()
        rude.close()  # browsers gone without a goodbye: serve lets them go and goes on
        s.wait_for(lambda: s.json("snapshot.json")["viewers"] == 0, 30, "the viewers gone")
        late = Viewer(s.url)
        s.wait_for(lambda: late.has(lambda m: m.get("type") == "snapshot"), 30, "a new viewer served")
        late.close()
    assert s.proc.returncode == 143 or s.proc.returncode == 0, s.err


def test_the_page_follows_a_board_unplugged_and_plugged_back(tmp_path) -> None:
    from cardtable_host.sim.board import VirtualBoard

    with VirtualBoard("pico-i2c-2seat", game="california-jacks", period_ms=2) as vb:
        with Serve("--port", vb.stable_port, "--http", "127.0.0.1:0", "--archive", str(tmp_path)) as s:
            v = Viewer(s.url)
            snap = s.wait_for(lambda: [m for m in v.messages if m.get("type") == "snapshot"], 20, "snapshot")[0]
            assert snap["connected"] and snap["hello"]["game"]["game"] == "california-jacks"
            mon = subprocess.Popen([sys.executable, "-m", "cardtable_host.cli", "monitor", "--plain",
                                    "--port", vb.stable_port], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True)
            said: list[str] = []
            threading.Thread(target=lambda: [said.append(line) for line in mon.stdout], daemon=True).start()
            s.wait_for(lambda: any("california-jacks" in line for line in said), 30, "the monitor")
            s.wait_for(lambda: s.json("snapshot.json")["viewers"] == 2, 30, "the monitor following serve")
            vb.unplug()
            s.wait_for(lambda: v.has(lambda m: m.get("type") == "link" and m.get("connected") is False), 20, "down")
            assert "gone" in s.json("snapshot.json")["status"]
            vb.replug()
            s.wait_for(lambda: s.json("snapshot.json")["connected"], 30, "the board back")
            # (the viewer's copy may still be on its way when serve's own snapshot says so)
            s.wait_for(lambda: v.has(lambda m: m.get("type") == "hello" and m.get("connected")), 10, "the page told")
            s.wait_for(lambda: any("re-synced" in line for line in said), 20, "the monitor back")
            # a reader down is a fault on the page, and clears when it is mended
            vb.kill_reader("s0")
            s.wait_for(lambda: s.json("snapshot.json")["faults"], 30, "the fault on the page")
            s.wait_for(lambda: v.has(lambda m: m.get("type") == "fault" and not m.get("cleared")), 10, "the page told")
            vb.revive_reader("s0")
            s.wait_for(lambda: not s.json("snapshot.json")["faults"], 30, "the fault cleared")
            # the scorekeeper's controls: nothing without the secret; with it, the board's own answer
            seq = s.json("snapshot.json")["seq"]
            assert s.control({"cmd": "new"})[0] == 403 and s.control({"cmd": "new"}, "x" * 16)[0] == 403
            status, reply = s.control({"cmd": "act", "action": {"seat": 0, "act": "bid", "bid": 20}})
            assert status == 403
            time.sleep(0.5)
            assert s.json("snapshot.json")["seq"] == seq
            status, reply = s.control({"cmd": "act", "action": {"seat": 0, "act": "bid", "bid": 20}}, s.secret)
            assert status == 409 and "bid" in reply["error"], reply
            status, reply = s.control({"cmd": "new"}, s.secret)
            assert status == 200 and reply["ok"] and reply["game"]["game"] == "california-jacks", reply
            mon.terminate()
            mon.wait(10)
            out = "".join(said)
            assert "board gone" in out and "OFFLINE" not in out, out
            v.close()


def test_an_address_in_use_is_refused_in_one_line_before_any_board() -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        t0 = time.monotonic()
        r = cardtable("serve", "--sim", "nexus", "--http", "127.0.0.1:%d" % port)
    assert r.returncode == 2 and r.stdout == "", (r.stdout, r.stderr)
    assert r.stderr.startswith("cardtable serve: cannot listen on 127.0.0.1:%d" % port) and r.stderr.count("\n") == 1
    assert time.monotonic() - t0 < 10  # no virtual board was started first
    r = cardtable("serve", "--http", "localhost")
    assert r.returncode == 2 and "expected HOST:PORT" in r.stderr


def test_a_virtual_board_unplugged_mid_game_comes_back_and_the_game_goes_on(tmp_path) -> None:
    with Serve("--sim", "nexus", "--seed", "2", "--delay", "0.05", "--http", "127.0.0.1:0",
               "--archive", str(tmp_path)) as s:
        v = Viewer(s.url)

        def events() -> list[dict]:
            return [m for m in list(v.messages) if m.get("type") == "event"]

        s.wait_for(lambda: len(events()) >= 6, 60, "play")
        assert s.control({"cmd": "unplug"})[0] == 403  # the scorekeeper's secret, as for any control
        status, reply = s.control({"cmd": "unplug"}, s.secret)
        assert status == 200 and reply["ok"], reply
        down = s.wait_for(lambda: [m for m in list(v.messages) if m.get("type") == "link" and m["connected"] is False],
                          20, "the page told the board is gone")[0]
        assert "gone" in down["status"] and any("board gone" in text for text, _ in down["lines"])
        snap = s.json("snapshot.json")
        assert not snap["connected"] and "waiting for it" in snap["status"]
        time.sleep(1.5)
        at = len(events())
        time.sleep(1.5)
        assert len(events()) == at  # nothing reaches the page while the cable is out
        last = max(m["seq"] for m in events())
        status, reply = s.control({"cmd": "replug"}, s.secret)
        assert status == 200 and reply["ok"], reply
        s.wait_for(lambda: s.json("snapshot.json")["connected"], 30, "the board back")
        s.wait_for(lambda: any(m["seq"] > last + 3 for m in events()), 60, "the game going on")
        assert v.has(lambda m: m.get("type") == "link" and "re-syncing" in m["status"]
                     and any("the board is back" in text for text, _ in m["lines"]))
        assert v.has(lambda m: m.get("type") == "hello" and m["connected"] and m["status"] == "live")
        # the same game goes on: no new game, no stop; every event in order from the board's journal
        assert not v.has(lambda m: m.get("type") == "hello" and m.get("seq") == 0)
        assert not v.has(lambda m: any("stopped" in text for text, _ in m.get("lines") or ()))
        seqs = [m["seq"] for m in events() if "undone" not in m]
        assert all(b > a for a, b in zip(seqs, seqs[1:])), seqs
        out = s.out()
        assert "board gone: waiting for it to come back" in out and "the board is back" in out
        contiguous(v)
        v.close()
