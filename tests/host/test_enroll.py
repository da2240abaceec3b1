"""`cardtable enroll` tags whole decks on emulated NTAG stickers through a PN532 on a pty."""
from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from hostsupport import need_node

pytest.importorskip("termios")  # the pty bridge is POSIX only

from cardtable.drivers import ndef  # noqa: E402
from cardtable_host.commands.enroll import deck_codes  # noqa: E402
from cardtable.sim.pn532_emu import PN532Emu, Tag  # noqa: E402
from cardtable_host.sim.pty import PtyPN532  # noqa: E402

PROMPT = re.compile(r"^place (\S+) on the reader \((\d+)/(\d+)\)$")


def blank(n: int, kind: int = 213) -> Tag:
    """A new NDEF-formatted, empty sticker with a UID of its own."""
    return Tag("04%012x" % (0xC0DE000000 + n), kind=kind)


class Session:
    """Runs `cardtable enroll` as a user would and plays the person at the reader.

    On each prompt `hand(code, n)` says what the person does: a Tag to put on the reader
    (the previous one is lifted first), or a list of tags to offer one after the other,
    each after the command has said something about the previous one.
    """

    def __init__(self, bridge: PtyPN532 | None, args: list[str]) -> None:
        self.bridge = bridge
        env = dict(os.environ, NO_COLOR="1")
        where = ["--port", bridge.port] if bridge is not None else []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cardtable_host.cli", "enroll"] + where + ["--wait", "15"] + args,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1, env=env)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.output: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def next_line(self) -> str | None:
        try:
            line = self.lines.get(timeout=30)
        except queue.Empty:
            self.proc.kill()
            raise AssertionError("enroll said nothing for 30 s; so far:\n" + "\n".join(self.output))
        if line is not None:
            self.output.append(line)
        return line

    def present(self, tag: Any) -> Any:
        assert self.bridge is not None
        with self.bridge.lock:
            self.bridge.emu.remove()
            self.bridge.emu.place(tag)
        return tag

    def play(self, hand: Callable[[str, int], list[Any]]) -> int:
        pending: list[Any] = []
        while True:
            line = self.next_line()
            if line is None:
                break
            m = PROMPT.match(line)
            if m:
                pending = list(hand(m.group(1), int(m.group(2))))
                self.present(pending.pop(0))
            elif line.startswith("  ") and pending:
                self.present(pending.pop(0))  # told off: offer the next sticker
        return self.proc.wait(timeout=30)


class BoardSession(Session):
    """`cardtable enroll --board-port` on a virtual board: the person lays tags on a zone."""

    def __init__(self, vb: Any, zone: str, args: list[str]) -> None:
        self.vb = vb
        self.zone = zone
        super().__init__(None, ["--board-port", vb.port, "--zone", zone] + args)

    def present(self, tag: Any) -> Any:
        uid, text, kind = tag
        self.vb.place(self.zone, text, uid=uid, kind=kind)
        return tag


@pytest.fixture
def bridge():
    with PtyPN532(PN532Emu()) as b:
        yield b


def test_enrolls_a_whole_deck(bridge: PtyPN532) -> None:
    stickers: dict[str, Tag] = {}

    def hand(code: str, n: int) -> list[Tag]:
        stickers[code] = blank(n)
        return [stickers[code]]

    s = Session(bridge, ["--game", "fortyfives"])
    assert s.play(hand) == 0, "\n".join(s.output)
    codes = deck_codes("fortyfives")
    assert len(codes) == 52 and sorted(stickers) == sorted(codes)
    with bridge.lock:
        assert {code: tag.text() for code, tag in stickers.items()} == {c: c for c in codes}
    assert len({t.uid for t in stickers.values()}) == 52
    assert "AS written and verified on tag 04%012x (%d/52)" % (
        0xC0DE000000 + codes.index("AS") + 1, codes.index("AS") + 1) in s.output
    assert s.output[-1].startswith("52/52 cards enrolled (52 written, 0 already held their code)")


def test_refuses_a_sticker_holding_another_card_and_keeps_one_already_right(bridge: PtyPN532) -> None:
    taken = Tag("04aaaaaaaaaa01", text="KD")  # a card of the deck already
    right = Tag("04aaaaaaaaaa02", text="2S")  # already holds the card asked for
    foreign = Tag("04aaaaaaaaaa03", kind=215, message=ndef.uri_record("https://example.org"))
    bank = Tag("08a1b2c3", kind="bank")  # a payment card left on the reader
    fresh = blank(9)

    def hand(code: str, n: int) -> list[Tag]:
        return {"AS": [taken, bank, foreign], "2S": [right], "3S": [fresh]}[code]

    s = Session(bridge, ["--game", "fortyfives", "--cards", "as,2S,3s", "--json"])
    assert s.play(hand) == 0, "\n".join(s.output)
    text = "\n".join(s.output)
    assert "refused tag 04aaaaaaaaaa01 for AS: it already holds KD, another card of the deck" in text
    assert "refused tag 08a1b2c3 for AS: a 4-byte UID is no NTAG sticker" in text
    assert "2S already held its code on tag 04aaaaaaaaaa02 (2/3)" in text
    with bridge.lock:
        assert taken.text() == "KD"  # refused: untouched
        assert foreign.text() == "AS"  # a URL sticker is no card: written over
        assert fresh.text() == "3S"
    summary = json.loads(s.output[-1])
    assert summary["complete"] is True and summary["left"] == []
    assert [(c["card"], c["written"]) for c in summary["cards"]] == [("AS", True), ("2S", False), ("3S", True)]
    assert [r["uid"] for r in summary["refused"]] == ["04aaaaaaaaaa01", "08a1b2c3"]


def test_overwrite_retags_a_card_of_the_deck(bridge: PtyPN532) -> None:
    old = Tag("04bbbbbbbbbb01", text="KD")
    s = Session(bridge, ["--game", "fortyfives", "--cards", "QH", "--overwrite"])
    assert s.play(lambda code, n: [old]) == 0, "\n".join(s.output)
    with bridge.lock:
        assert old.text() == "QH"


def test_nerts_deck_carries_its_owner(bridge: PtyPN532) -> None:
    tags: list[Tag] = []

    def hand(code: str, n: int) -> list[Tag]:
        tags.append(blank(n))
        return [tags[-1]]

    s = Session(bridge, ["--game", "nerts", "--owner", "2", "--cards", "AS#2,10h#2"])
    assert s.play(hand) == 0, "\n".join(s.output)
    with bridge.lock:
        assert [t.text() for t in tags] == ["AS#2", "10H#2"]
    assert deck_codes("nerts", 2)[:2] == ["AC#2", "2C#2"] and len(deck_codes("nerts", 2)) == 52


def test_a_card_lifted_mid_write_is_written_again(bridge: PtyPN532) -> None:
    tag = blank(1)
    first = [True]

    def hand(code: str, n: int) -> list[Tag]:
        if first[0]:
            first[0] = False
            with bridge.lock:
                bridge.emu.vanish_after = 3  # CC + 2 reads + ... then the tag leaves the field
            return [tag, tag]  # the person puts it back when told
        return [blank(n)]

    s = Session(bridge, ["--game", "nexus", "--cards", "BJ,LJ"])
    assert s.play(hand) == 0, "\n".join(s.output)
    with bridge.lock:
        assert tag.text() == "BJ"
    assert any("hold" in line for line in s.output)  # it told the person what went wrong


def test_no_tag_in_time_stops_and_says_how_to_finish(bridge: PtyPN532) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "cardtable_host.cli", "enroll", "--game", "fairies", "--port",
         bridge.port, "--wait", "0.5", "--cards", "1,M6"],
        capture_output=True, text=True, timeout=30, env=dict(os.environ, NO_COLOR="1"))
    assert proc.returncode == 1
    assert "no new tag for 1 within 0.5 s" in proc.stdout
    assert "to finish later: cardtable enroll --game fairies --port %s --cards 1,M6" % bridge.port in proc.stdout


def test_no_reader_is_a_clear_error(bridge: PtyPN532) -> None:
    with bridge.lock:
        bridge.emu.mute = -1  # nothing answers: a wrong port, or TX/RX swapped
    proc = subprocess.run(
        [sys.executable, "-m", "cardtable_host.cli", "enroll", "--game", "fortyfives", "--port", bridge.port],
        capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert "no PN532 answers on %s" % bridge.port in proc.stderr


def test_bad_card_names_are_refused_before_touching_the_reader() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "cardtable_host.cli", "enroll", "--game", "fortyfives",
         "--port", "/nonexistent", "--cards", "AS,1Z"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert "'1Z' is not a card of the fortyfives deck" in proc.stderr


def test_progress_bar_only_on_a_terminal() -> None:
    import io

    from cardtable_host.progress import Progress

    import re

    shown = io.StringIO()
    bar = Progress(52, "enroll", stream=shown, enabled=True)
    bar.update(13, "place AS#2 on the reader")
    bar.note("refused tag 04aa for AS#2")
    bar.update(14, "place 2S#2 on the reader")
    bar.close()
    out = shown.getvalue()
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out).replace("\r", "\n")
    lines = [ln.rstrip() for ln in screen.split("\n") if ln.strip()]
    assert "refused tag 04aa for AS#2" in lines  # a line of its own, above the bar
    drawn = [ln for ln in lines if ln.startswith("enroll ")]
    assert any(re.fullmatch(r"enroll \S+ 13/52 place AS#2 on the reader", re.sub(r" +", " ", ln)) for ln in drawn), drawn
    assert re.fullmatch(r"enroll \S+ 14/52 place 2S#2 on the reader", re.sub(r" +", " ", lines[-1])), lines
    assert lines.index("refused tag 04aa for AS#2") < len(lines) - 1 and screen.endswith("\n")
    piped = io.StringIO()  # not a terminal: the bar draws nothing, callers print plain lines
    quiet = Progress(52, "enroll", stream=piped)
    quiet.update(13, "x")
    quiet.close()
    assert not quiet.enabled and piped.getvalue() == ""


def test_enrolls_a_whole_deck_through_the_boards_own_reader() -> None:
    from cardtable_host.board.link import Link
    from cardtable_host.sim.board import VirtualBoard

    need_node(module=False)
    codes = deck_codes("nexus")
    uids: dict[str, str] = {}
    taken = ("04aaaaaaaaaa01", "KD", 213)  # a sticker of the deck already: refused, untouched
    bank = ("08a1b2c3", None, "bank")
    unformatted = ("04aaaaaaaaaa02", None, "blank")  # an NTAG never NDEF-formatted

    def hand(code: str, n: int) -> list[Any]:
        uids[code] = "04%012x" % (0xB0A2D000000 + n)
        fresh = (uids[code], None, 213)  # a new sticker: formatted, empty
        return [taken, bank, unformatted, fresh] if code == "5C" else [fresh]

    with VirtualBoard("pico-i2c-2seat", game="nexus") as vb:
        s = BoardSession(vb, "s0", ["--game", "nexus", "--json"])
        assert s.play(hand) == 0, "\n".join(s.output)
        text = "\n".join(s.output)
        assert s.output[0].startswith("reader of zone s0 on pico-i2c-2seat (%s, PN532 firmware 1.6); "
                                      "nexus deck: 42 cards" % vb.port), s.output[0]
        assert [PROMPT.match(line).group(1) for line in s.output if PROMPT.match(line)] == codes
        assert "refused tag 04aaaaaaaaaa01 for 5C: it already holds KD, another card of the deck" in text
        assert "refused tag 08a1b2c3 for 5C: a 4-byte UID is no NTAG sticker" in text
        assert "refused tag 04aaaaaaaaaa02 for 5C: it cannot take a card code (tag is not NDEF " \
               "formatted (CC 00))" in text
        assert "BJ written and verified on tag %s (42/42)" % uids["BJ"] in text
        summary = json.loads(s.output[-1])
        assert summary["complete"] is True and len(summary["cards"]) == 42
        assert all(c["written"] for c in summary["cards"])
        assert [c["uid"] for c in summary["cards"]] == [uids[c] for c in codes]
        with Link(vb.port, timeout=10) as link:
            assert link.tag("s0")["text"] == "BJ"  # the last sticker, read again: what was written
            link.tag(done=True)
            assert link.state()["seq"] == 0  # 46 tags on seat 0's play spot, and not one play
            vb.place("c", "AS")  # enrolling is over: the trump indicators deal the hand
            vb.lift("c")
            vb.place("c", "7D")
            msg = link.wait_for(lambda m: m.get("type") == "event", 10)
            assert msg is not None and msg["action"]["act"] == "deal"


def test_board_port_needs_a_zone_of_the_board() -> None:
    from cardtable_host.sim.board import VirtualBoard

    need_node(module=False)
    with VirtualBoard("pico-i2c-2seat", game="nexus") as vb:
        for zone, words in ((["--zone", "z9"], "no zone z9 on this board"), ([], "--zone is needed")):
            proc = subprocess.run(
                [sys.executable, "-m", "cardtable_host.cli", "enroll", "--game", "nexus", "--board-port",
                 vb.port] + zone, capture_output=True, text=True, timeout=60)
            assert proc.returncode == 2
            assert words in proc.stderr and "--zone s0|s1|c|k|t0|t1" in proc.stderr, proc.stderr
        vb.kill_reader("s1")  # its cable comes off
        time.sleep(0.5)
        proc = subprocess.run(
            [sys.executable, "-m", "cardtable_host.cli", "enroll", "--game", "nexus", "--board-port",
             vb.port, "--zone", "s1"], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2
        assert "the reader of zone s1 is down (" in proc.stderr, proc.stderr
