"""Power cuts on the rp2 board's real flash path: the chip stopped dead during play, then a new
chip booted from the same flash, checked against what the host saw accepted.

Each trial arms one cut on the running board (host/cardtable_host/sim/rp2/board.mjs ``powercut``): at a random
emulated time within the next actions (``time``), or a random fraction of the way through the
next flash sector erase (``erase``) or page program (``program``) - littlefs's commits, the
journal's appends. The host keeps playing legal actions over the link (``act``) until the
power goes; a new chip boots from the flash as the cut left it, and then:

- every action the board had answered as accepted is in the journal, once, in order, each
  line byte for byte what the journal writes (no accepted action lost or doubled);
- the action under way when the power went (sent, never answered) is either there whole, as
  the next line, or not at all - never torn;
- the board resumes exactly: its seq is the journal's, its view of the game is the view the
  host computes from those actions.

Two more kinds cut where the journal is not appending: ``reboot`` cuts as above, then cuts the
chip that boots from that flash again before its table is up (at a random time of its boot -
the replay, the repair of a torn tail - or inside one of its flash operations), so a third
chip resumes from what two cuts left; ``new`` cuts inside a ``new`` command (the new journal
file, the header, dropping the oldest game): an accepted ``new`` is the current game after the
reboot; one never answered is either not there (the old game resumes, exact) or there whole;
the game it replaced stays in the journal, every accepted line of it.

``run(board, link, trials, seed)`` returns the tally (``Tally``) that the test asserts and
``make bench`` prints. sim/cutreplay.py places the same kinds of cuts on one recorded play
instead (a boot per trial, no play), for hundreds of trials at a time.
"""
from __future__ import annotations

import concurrent.futures
import json
import random
import time
from typing import Any

from cardtable import games, record
from cardtable.rng import Random

from cardtable_host.progress import Progress

KINDS = ("time", "erase", "program", "reboot", "new")
ACT_TIMEOUT = 60.0  # wall seconds an answer may take (an answer lost to a cut waits this long)
TIME_NS = 300_000_000  # a cut at a random time within the next ~2 actions (emulated ns)
SKIP = {"erase": 3, "program": 8}  # the cut falls in one of the next few: data or metadata commits
NEW_OPS = {"erase": 1, "program": 2}  # flash operations of a `new` (measured on the rp2 board)
BOOT_NS = 1_500_000_000  # a boot's emulated length until the first one is measured


class Trial:
    """What one cut did: kind, where, and what the board kept."""

    def __init__(self, kind: str, where: float) -> None:
        self.kind = kind
        self.where = where  # ns for "time", fraction of the operation otherwise
        self.accepted = 0  # actions answered as accepted before the power went, this game
        self.inflight = False  # an action sent and not answered
        self.kept = False  # ... and the journal has it
        self.skip = 0  # erase/program: that many finished before the cut one
        self.reboot: dict[str, Any] | None = None  # reboot: the second cut, in the boot
        self.reboot_fell: bool | None = None  # ... and whether it fell before the table was up
        self.new = ""  # new: "accepted", "kept" (done, its answer lost), "dropped" (not done)
        self.error = ""
        self.fault = ""  # with error: "lost", "doubled" (accepted lines missing, or too many), "wrong"

    def outcome(self) -> str:
        if self.error:
            return "FAILED"
        if self.new:
            return "new game " + self.new
        if not self.inflight:
            return "between actions"
        return "in-flight action kept" if self.kept else "in-flight action dropped"


def journal_line(obj: dict[str, Any], seq: int) -> dict[str, Any]:
    """A journal line as parsed back (its CRC checked by record.parse_line)."""
    return dict(obj, seq=seq)


def parsed(lines: list[str]) -> list[Any]:
    """The journal's text lines parsed (a torn or corrupt one as a string saying so)."""
    out: list[Any] = []
    for i, text in enumerate(lines):
        try:
            out.append(record.parse_line(text, i + 1))
        except record.RecordError as e:
            out.append("torn: %s" % e)
    return out


def view_of(game: Any) -> Any:
    """The spectators' view of game, as it comes over the link."""
    return json.loads(json.dumps(game.view(None)))


def boot_cut(rng: random.Random, boot_ns: int) -> dict[str, Any]:
    """Where a reboot's second cut falls: a random time of the boot (the replay), or inside one
    of its first page programs (a boot writes only to repair: a torn tail, a new game's file
    without its header)."""
    if rng.randrange(4):
        return {"in_ns": rng.randrange(boot_ns * 9 // 10)}  # boots differ a little
    return {"op_kind": "program", "frac": rng.uniform(0.001, 0.999), "skip": rng.randrange(2)}


def fault(got: list[Any], want: list[Any]) -> str:
    """What is wrong with a journal that is not the accepted lines: "lost" (one missing),
    "doubled" (one there twice, or more lines than accepted), else "wrong" (torn, changed)."""
    if len(got) < len(want) and got == want[:len(got)]:
        return "lost"
    if len(got) > len(want) or any(x in got[:i] for i, x in enumerate(got) if isinstance(x, dict)):
        return "doubled"
    return "wrong"


def first_difference(got: list[Any], want: list[Any]) -> int:
    """The index of the first line where got and want differ."""
    return next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))


class Tally:
    """The trials' outcomes, per kind: trials, resumed exactly, lost, doubled, wrong."""

    def __init__(self) -> None:
        self.out: dict[str, Any] = {
            "trials": 0, "by_kind": {k: 0 for k in KINDS}, "outcomes": {}, "failures": [],
            "per_kind": {k: {"trials": 0, "exact": 0, "lost": 0, "doubled": 0, "wrong": 0} for k in KINDS},
            "reboot_cuts": {"fell": 0, "missed": 0}, "log": []}

    def add(self, i: int, t: Trial) -> None:
        out = self.out
        out["trials"] += 1
        out["by_kind"][t.kind] += 1
        o = t.outcome()
        out["outcomes"][o] = out["outcomes"].get(o, 0) + 1
        pk = out["per_kind"][t.kind]
        pk["trials"] += 1
        pk[(t.fault or "wrong") if t.error else "exact"] += 1
        if t.reboot_fell is not None:
            out["reboot_cuts"]["fell" if t.reboot_fell else "missed"] += 1
        out["log"].append([t.kind, t.where, t.skip, t.accepted, o, t.reboot, t.reboot_fell])
        if t.error:
            out["failures"].append({"trial": i, "kind": t.kind, "where": t.where, "skip": t.skip,
                                    "fault": t.fault or "wrong", "error": t.error})

    def result(self) -> dict[str, Any]:
        return self.out


class Cutter:
    """Plays one game over the link on an Rp2Board and cuts its power, trial after trial."""

    def __init__(self, board: Any, link: Any, game_id: str = "california-jacks", seats: int = 2,
                 seed: int = 1) -> None:
        self.board = board
        self.link = link
        self.game_id = game_id
        self.seats = seats
        self.rng = Random(seed)  # the bots' actions, as the device's own generator makes them
        self.cuts = random.Random(seed)  # where the cuts fall
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=32)  # answers abandoned by a cut time out here
        self.game: Any = None
        self.lines: list[dict[str, Any]] = []  # the journal's lines as the host expects them
        self.next: Any = None  # the next action to play (kept until the board accepts it)
        self.games = 0
        self.boot_ns = BOOT_NS  # the last boot's length (emulated ns from power-on to the table)

    def new_game(self) -> None:
        self.link.new(self.game_id, seats=self.seats)
        self.game = games.load(self.game_id, seats=self.seats)
        self.lines = [journal_line(record.header(self.game), 0)]
        self.next = None
        self.games += 1

    def _action(self) -> Any:
        if self.next is None:
            self.next = self.game.bot_action(self.rng)
        return self.next

    def _accept(self, action: Any) -> None:
        obj = record.encode(self.game, action)
        self.game.apply(action)
        self.lines.append(journal_line(obj, len(self.lines)))
        self.next = None

    def _arm(self, t: Trial, how: str, skips: int = 0) -> Any:
        """Arm t's cut (how: time, erase or program, in one of the next skips operations) on
        the running board; its future."""
        if how == "time":
            t.where = self.cuts.randrange(TIME_NS)
            return self.pool.submit(self.board.power_cut_at, in_ns=int(t.where), reboot=t.reboot)
        t.where = self.cuts.uniform(0.001, 0.999)
        t.skip = self.cuts.randrange(skips or SKIP[how])
        return self.pool.submit(self.board.power_cut_at, op_kind=how, frac=t.where, skip=t.skip, reboot=t.reboot)

    def _cut_and_boot(self, cut: Any, t: Trial) -> None:
        """Cut the power now unless the armed cut fell already; wait for the next chip's table."""
        if not cut.done():
            self.board.power_cut()
            cut.cancel()
        else:
            reply = cut.result()
            if t.reboot is not None:
                t.reboot_fell = reply.get("reboot_at_ns") is not None
        self._booted()

    def _booted(self) -> None:
        """Wait for the table of the chip booted after a cut; note how long its boot took."""
        self.board.wait_mode(("table",), 120)
        ns = self.board.status().get("boot_ns")
        if ns:
            self.boot_ns = int(ns)

    def trial(self, kind: str) -> Trial:
        """Arm one cut, play until it falls, check what the new chip resumed."""
        if kind == "new":
            return self.new_trial()
        if self.game is None or self.game.over:
            self.new_game()
        t = Trial(kind, 0)
        how = kind
        if kind == "reboot":
            t.reboot = boot_cut(self.cuts, self.boot_ns)
            how = self.cuts.choice(("time", "erase", "program", "program"))
        cut = self._arm(t, how)
        sent: Any = None
        while not cut.done():
            if self.game.over:
                time.sleep(0.05)  # nothing left to play: wait for the time cut (a write never comes)
                if how != "time":
                    break
                continue
            action = self._action()
            obj = record.encode(self.game, action)
            sent = self.pool.submit(self.link.command, "act", ACT_TIMEOUT, True, action=obj)
            while not sent.done() and not cut.done():
                time.sleep(0.002)
            if sent.done():
                e = sent.exception()
                if e is not None and not cut.done():
                    raise RuntimeError("the board did not take a legal action: %s" % e)
                if e is None:
                    self._accept(action)
                    t.accepted += 1
                    sent = None
        self._cut_and_boot(cut, t)  # a game over with an erase/program cut armed: cut now
        if sent is not None:
            t.inflight = True
            try:
                sent.result(timeout=0.5)  # the answer made it out before the power went
                self._accept(self.next)
                t.accepted += 1
                t.inflight = False
            except Exception:  # noqa: BLE001 - no answer: the action is in flight
                pass
        self._check(t)
        return t

    def new_trial(self) -> Trial:
        """A few actions, then a cut inside a `new` command (its file, its header, the oldest
        game dropped); check both games after the reboot."""
        if self.game is None or self.game.over:
            self.new_game()
        for _ in range(self.cuts.randrange(4)):  # the game it replaces has some lines
            if self.game.over:
                break
            action = self._action()
            self.link.command("act", ACT_TIMEOUT, True, action=record.encode(self.game, action))
            self._accept(action)
        old = [g["number"] for g in self.link.games() if g.get("current")]
        old_lines = list(self.lines)
        t = Trial("new", 0)
        answered = self._cut_in_new(t)
        hello = self.link.hello(timeout=30)
        kept = self.link.games()
        if self._old_game_kept(t, kept, old, old_lines) and self._new_game_judged(t, kept, old, old_lines, answered):
            if hello.get("seq") != len(self.lines) - 1:
                t.error = "the board resumed at seq %s, its journal has %d actions" % (
                    hello.get("seq"), len(self.lines) - 1)
            elif self.link.state()["view"] != view_of(self.game):
                t.error = "the board's view after the reboot is not the game of its journal"
        return t

    def _cut_in_new(self, t: Trial) -> bool:
        """Send `new` with a cut armed inside it, cut, reboot; True if the board answered first."""
        if self.cuts.randrange(2):
            t.reboot = boot_cut(self.cuts, self.boot_ns)  # and again while the next chip boots (and repairs)
        # A new game's file and header are two page programs; an erase comes now and then
        # (littlefs compacting its metadata, the oldest game dropped).
        how = self.cuts.choice(("program", "program", "program", "erase"))
        cut = self._arm(t, how, NEW_OPS[how])
        time.sleep(0.05)  # armed before the command reaches the chip
        sent = self.pool.submit(self.link.command, "new", ACT_TIMEOUT, True, game=self.game_id, seats=self.seats)
        while not cut.done():
            if sent.done() and sent.exception() is not None:
                raise RuntimeError("the board refused a new game: %s" % sent.exception())
            if sent.done():
                break  # the new game was written without reaching the armed operation: cut now
            time.sleep(0.002)
        self._cut_and_boot(cut, t)
        try:
            sent.result(timeout=0.5)
            return True
        except Exception:  # noqa: BLE001 - no answer: the new game is in flight
            return False

    def _old_game_kept(self, t: Trial, kept: list[dict[str, Any]], old: list[int], old_lines: list[Any]) -> bool:
        """The replaced game's journal is whole after the cut (else t says what is wrong)."""
        if old and old[0] in [g["number"] for g in kept]:
            got = parsed(self.link.log(old[0], timeout=60))
            if got != old_lines:
                t.fault = fault(got, old_lines)
                t.error = "the replaced game's journal has %d lines, the host accepted %d" % (len(got), len(old_lines))
                return False
        elif old:
            t.error, t.fault = "the replaced game %d is gone from the journal" % old[0], "lost"
            return False
        return True

    def _new_game_judged(self, t: Trial, kept: list[dict[str, Any]], old: list[int], old_lines: list[Any],
                         answered: bool) -> bool:
        """The board resumed the old game (the new one dropped) or holds the new one's header
        alone; the host follows it. False (t says why) when neither."""
        current = [g["number"] for g in kept if g.get("current")]
        if current == old:
            if answered:
                t.error = "the board answered the new game, then resumed the old one"
                return False
            t.new = "dropped"
            self.lines = old_lines
            return True
        got = parsed(self.link.log(timeout=60))
        fresh = games.load(self.game_id, seats=self.seats)
        if got != [journal_line(record.header(fresh), 0)]:
            t.fault = fault(got, [journal_line(record.header(fresh), 0)])
            t.error = "the new game's journal is not its header alone: %r" % (got[:3],)
            return False
        t.new = "accepted" if answered else "kept"
        self.game, self.lines, self.next = fresh, got, None
        self.games += 1
        return True

    def _check(self, t: Trial) -> None:
        hello = self.link.hello(timeout=30)
        got = parsed(self.link.log(timeout=60))
        want = self.lines
        if t.inflight and len(got) == len(want) + 1:
            action = self._action()
            if got[-1] == journal_line(record.encode(self.game, action), len(want)):
                self._accept(action)
                t.kept = True
        if got != self.lines:
            t.fault = fault(got, self.lines)
            t.error = "journal %d lines, host expects %d; first difference at line %d" % (
                len(got), len(self.lines), first_difference(got, self.lines))
            return
        seq = hello.get("seq")
        if seq != len(self.lines) - 1:
            t.error = "the board resumed at seq %s, its journal has %d actions" % (seq, len(self.lines) - 1)
            return
        view = self.link.state()["view"]
        if view != view_of(self.game):
            t.error = "the board's view after the reboot is not the game of its journal"

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


def run(board: Any, link: Any, trials: int, seed: int = 1, game_id: str = "california-jacks",
        seats: int = 2) -> dict[str, Any]:
    """Run trials cuts (kinds in turn) on a board running the table; the tally."""
    c = Cutter(board, link, game_id, seats, seed)
    tally = Tally()
    bar = Progress(trials, "power cuts")  # drawn only on a terminal
    t0 = time.monotonic()
    try:
        for i in range(trials):
            tally.add(i, c.trial(KINDS[i % len(KINDS)]))
            bar.update(i + 1)
    finally:
        bar.close()
        c.close()
    out = tally.result()
    out["games"] = c.games
    out["wall_s"] = round(time.monotonic() - t0, 1)
    return out
