"""Power cuts on the rp2 board's real flash path, placed on one recorded play: each trial boots
a new chip from the flash a cut at that point leaves, and checks it against what the host had
seen accepted by then.

The board plays a seeded game over the link once (actions, and now and then a `new` game)
while it keeps a record (host/cardtable_host/sim/rp2/flashlog.mjs): the flash when the play began, every flash
erase and program after it in order, and every serial line both ways with the emulated time it
crossed the USB. A cut at emulated time T leaves the operations finished by T done and the one
under way cut part-way (an erase: the sectors before done, the one in progress half-erased; a
program: the pages so far), as the chip's own cut does (host/cardtable_host/sim/rp2/chip.mjs); RAM is lost, so
that flash is everything a real cut at T leaves. What the host saw by T is in the record too:
the answers that left the chip by T, and the command it had received and not answered (the
action or `new` in flight). So a trial is: rebuild the flash for T (``Rp2Board.restore``), boot
a new chip from it (and, for ``reboot`` trials, cut that chip too while it boots, live, as in
sim/powercut.py), and check, over the link, that

- the current game's journal is every action the host saw accepted, once, in order, byte for
  byte as journaled (CRCs checked) - plus the action in flight, whole, or not at all (when the
  chip had not yet received it: not at all);
- after a `new` in flight the old game resumes exact, or the new game is there with its header
  alone; either way the replaced game keeps every accepted line;
- the chip resumed exactly: its seq is the journal's and its view the host's game after those
  actions.

Kinds (sim/powercut.py's): ``time`` (a random time in a random action's handling, from the
previous answer to its own; every other one from its last flash write on, the action committed
and not yet answered: the kept side of the commit point, a short window), ``erase`` and ``program`` (a random fraction into a random flash
erase or program of the play: the journal's data, littlefs's block copies and metadata
commits), ``reboot`` (one of those, then a second cut while the next chip boots), ``new`` (a
random fraction into one of a `new` command's flash operations, half of them with a second cut
in the boot). Each trial costs one boot (two for a second cut that falls), not a play: the
play is recorded once. ``run`` returns the tally (powercut.Tally) the tests assert and `make
bench` prints.
"""
from __future__ import annotations

import concurrent.futures
import json
import random
import time
from typing import Any

from cardtable import games, record
from cardtable.rng import Random
from cardtable_host.sim import powercut
from cardtable_host.progress import Progress

ACT_TIMEOUT = 120.0  # wall seconds an answer may take on a loaded machine


class Cmd:
    """One command of the play as the host sent it, and when it crossed the USB."""

    def __init__(self, kind: str, cid: int, before: tuple[int, int], after: tuple[int, int]) -> None:
        self.kind = kind  # "act" | "new"
        self.id = cid
        self.before = before  # (game index, journal lines) before it ...
        self.after = after  # ... and once it is done
        self.delivered = -1  # emulated ns: the chip had the whole line
        self.answered = -1  # emulated ns: its answer had left the chip


class Game:
    """A game of the play: the board's number for it, its journal lines, the view after each."""

    def __init__(self, number: int, header: dict[str, Any], view: Any) -> None:
        self.number = number
        self.lines: list[dict[str, Any]] = [powercut.journal_line(header, 0)]
        self.views: list[Any] = [view]  # views[n - 1]: the view when the journal has n lines


class Play:
    """A recorded play: its games, commands, and the flash operations ([kind, start_ns, ns,
    offset, size]) the board logged, in order."""

    def __init__(self) -> None:
        self.games: list[Game] = []
        self.cmds: list[Cmd] = []
        self.ops: list[list[Any]] = []

    def window(self, c: Cmd) -> list[int]:
        """Indices of the flash operations that started while c was being handled."""
        return [i for i, op in enumerate(self.ops) if c.delivered <= op[1] < c.answered]

    def split(self, t: int) -> tuple[int, int | None]:
        """A cut at emulated time t as (operations done before it, ns into the next or None)."""
        n = 0
        for kind, start, ns, _off, _size in self.ops:
            if start + ns <= t:
                n += 1
                continue
            if start <= t:
                return n, t - start
            break
        return n, None

    def seen(self, t: int) -> tuple[int, Cmd | None]:
        """What the host had seen by t: the number of commands answered, and the command the
        chip had received and not answered (None: none)."""
        done = 0
        for c in self.cmds:
            if c.answered <= t:
                done += 1
                continue
            return done, (c if c.delivered <= t else None)
        return done, None


def record_play(board: Any, link: Any, game_id: str, seats: int, seed: int, actions: int,
                news: int) -> Play:
    """Play `actions` legal actions of seeded games over the link with `news` new games
    among them, the board recording; the play."""
    rng = Random(seed)  # the bots' actions, as the device's own generator makes them
    where = random.Random(seed)
    play = Play()
    game = _new_game(link, game_id, seats, play)  # before the record: the state a cut starts from
    at_new = sorted(where.sample(range(1, actions), min(news, actions - 1)))
    board.record(True)
    for i in range(actions):
        if at_new and i == at_new[0]:
            at_new.pop(0)
            before = (len(play.games) - 1, len(play.games[-1].lines))
            reply, game = _new_game(link, game_id, seats, play, with_reply=True)
            play.cmds.append(Cmd("new", reply["id"], before, (len(play.games) - 1, 1)))
        if game.over:
            before = (len(play.games) - 1, len(play.games[-1].lines))
            reply, game = _new_game(link, game_id, seats, play, with_reply=True)
            play.cmds.append(Cmd("new", reply["id"], before, (len(play.games) - 1, 1)))
        g = play.games[-1]
        action = game.bot_action(rng)
        obj = record.encode(game, action)
        reply = link.command("act", ACT_TIMEOUT, True, action=obj)
        game.apply(action)
        g.lines.append(powercut.journal_line(obj, len(g.lines)))
        g.views.append(powercut.view_of(game))
        play.cmds.append(Cmd("act", reply["id"], (len(play.games) - 1, len(g.lines) - 1),
                             (len(play.games) - 1, len(g.lines))))
    rec = board.record(False)
    if rec.get("broken"):
        raise RuntimeError("the record of the play ended early: %s" % rec["broken"])
    play.ops = rec["ops"]
    _times(play, rec["lines"])
    return play


def _new_game(link: Any, game_id: str, seats: int, play: Play, with_reply: bool = False) -> Any:
    reply = link.command("new", ACT_TIMEOUT, True, game=game_id, seats=seats)
    game = games.load(game_id, seats=seats)
    number = reply.get("number")
    if not isinstance(number, int):
        raise RuntimeError("the board's answer to new has no game number: %r" % (reply,))
    play.games.append(Game(number, record.header(game), powercut.view_of(game)))
    return (reply, game) if with_reply else game


def _times(play: Play, lines: list[list[Any]]) -> None:
    """Each command's delivery and answer times from the record's serial lines."""
    by_id = {c.id: c for c in play.cmds}
    for direction, ns, text in lines:
        try:
            msg = json.loads(text)
        except ValueError:
            continue
        if not isinstance(msg, dict) or msg.get("id") not in by_id:
            continue
        c = by_id[msg["id"]]
        if direction == "in" and "cmd" in msg:
            c.delivered = int(ns)
        elif direction == "out" and msg.get("type") in ("ok", "error"):
            c.answered = int(ns)
    for c in play.cmds:
        if c.delivered < 0 or c.answered < c.delivered:
            raise RuntimeError("the record has no times for command %d (%s)" % (c.id, c.kind))


class Replayer:
    """Trials on one board: cut points chosen on the play, each booted and checked."""

    def __init__(self, board: Any, link: Any, play: Play, seed: int) -> None:
        self.board = board
        self.link = link
        self.play = play
        self.cuts = random.Random(seed)
        self.boot_ns = powercut.BOOT_NS
        self.times = 0  # cuts at a time chosen so far (every other one after the commit point)
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=4)
        acts = [c for c in play.cmds if c.kind == "act"]
        self.acts = acts
        self.news = [c for c in play.cmds if c.kind == "new"]
        self.by_kind = {k: [i for i, op in enumerate(play.ops) if op[0] == k] for k in ("erase", "program")}
        for k, ops in self.by_kind.items():
            if not ops:
                raise RuntimeError("the play has no flash %s to cut" % k)
        if not acts or not self.news:
            raise RuntimeError("the play needs actions and new games")

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)

    def _at(self, how: str) -> tuple[int, int | None, int, float]:
        """A cut point of kind how (time, erase, program): (op index, ns into it or None,
        emulated time, where: ns for time, the fraction of the operation otherwise)."""
        if how == "time":
            c = self.cuts.choice(self.acts)
            i = self.play.cmds.index(c)
            start = self.play.cmds[i - 1].answered if i else c.delivered
            self.times += 1
            if self.times % 2 == 0:  # every other one after the action's last flash write
                start = self._committed(c, start)
            t = self.cuts.randrange(start, c.answered + 1)
            upto, into = self.play.split(t)
            return upto, into, t, float(t - start)
        return self._in_op(self.cuts.choice(self.by_kind[how]))

    def _committed(self, c: Cmd, start: int) -> int:
        """When the last flash operation in c's handling ended (its journal line committed), or
        start if it wrote nothing: a cut after it and before the answer keeps the action, which
        a cut at a uniform time hits rarely (the window is short)."""
        ops = [self.play.ops[i] for i in self.play.window(c)]
        return max([start] + [op[1] + op[2] for op in ops if op[1] + op[2] <= c.answered])

    def _in_op(self, i: int) -> tuple[int, int | None, int, float]:
        kind, start, ns, _off, _size = self.play.ops[i]
        frac = self.cuts.uniform(0.001, 0.999)
        into = max(1, int(ns * frac))
        return i, into, start + into, frac

    def trial(self, kind: str) -> powercut.Trial:
        """One cut of that kind, booted and checked."""
        t = powercut.Trial(kind, 0)
        if kind == "new":
            c = self.cuts.choice(self.news)
            window = self.play.window(c)
            how = self.cuts.choice(("program", "program", "program", "erase"))
            pick = [i for i in window if self.play.ops[i][0] == how] or window
            if not pick:
                raise RuntimeError("new game %d wrote nothing to the flash" % c.id)
            upto, into, at, t.where = self._in_op(self.cuts.choice(pick))
            if self.cuts.randrange(2):
                t.reboot = powercut.boot_cut(self.cuts, self.boot_ns)
        else:
            how = kind
            if kind == "reboot":
                t.reboot = powercut.boot_cut(self.cuts, self.boot_ns)
                how = self.cuts.choice(("time", "erase", "program", "program"))
            upto, into, at, t.where = self._at(how)
        t.skip = upto
        reply = self.board.restore(upto, into, t.reboot, timeout=ACT_TIMEOUT)
        if t.reboot is not None:
            t.reboot_fell = reply.get("reboot_at_ns") is not None
        if not self.board.wait_mode(("table",), ACT_TIMEOUT):
            t.error = "the chip did not come up after the cut (mode %s)" % self.board.mode
            t.fault = "wrong"
            return t
        ns = self.board.status().get("boot_ns")
        if ns:
            self.boot_ns = int(ns)
        self._check(t, at)
        return t

    def _check(self, t: powercut.Trial, at: int) -> None:
        play = self.play
        done, flight = play.seen(at)
        gi, n = play.cmds[done - 1].after if done else play.cmds[0].before
        t.accepted = done
        t.inflight = flight is not None
        last = play.cmds[done - 1] if done else None
        # The read-only questions at once (the chip answers one a step), the journals one by one.
        link = self.link
        asked = {"hello": self.pool.submit(link.hello, ACT_TIMEOUT), "state": self.pool.submit(link.state),
                 "log": self.pool.submit(link.log, None, ACT_TIMEOUT)}
        if flight is not None and flight.kind == "new":
            asked["games"] = self.pool.submit(link.games)
        got = powercut.parsed(asked["log"].result())
        hello, state = asked["hello"].result(), asked["state"].result()
        if last is not None and last.kind == "new" and flight is None:
            if t.kind == "new":
                t.new = "accepted"
            g_old, n_old = play.games[last.before[0]], last.before[1]
            old = powercut.parsed(link.log(g_old.number, timeout=ACT_TIMEOUT))
            if not self._same(t, old, g_old.lines[:n_old], "the replaced game's journal"):
                return
        if flight is not None and flight.kind == "new":
            g_old, g_new = play.games[gi], play.games[flight.after[0]]
            current = [x["number"] for x in asked["games"].result() if x.get("current")]
            # A new game file cut before its header is kept for inspection, and the board begins
            # the game again in the next file (journal.resume): renumbered.
            if current == [g_new.number] or len(current) == 1 and current[0] > g_new.number:
                old = powercut.parsed(link.log(g_old.number, timeout=ACT_TIMEOUT))
                if not self._same(t, old, g_old.lines[:n], "the replaced game's journal"):
                    return
                t.new = "kept" if current == [g_new.number] else "renumbered"
                gi, n = flight.after[0], 1
            elif current == [g_old.number]:
                t.new = "dropped"
            else:
                t.error, t.fault = "the current game is %s, not %d or %d" % (current, g_old.number, g_new.number), "wrong"
                return
        want = play.games[gi].lines[:n]
        if flight is not None and flight.kind == "act" and len(got) == n + 1:
            nxt = play.games[gi].lines[:n + 1]
            if got == nxt:
                want, n, t.kept = nxt, n + 1, True
        if not self._same(t, got, want, "the journal"):
            return
        if hello.get("seq") != n - 1:
            t.error, t.fault = "the board resumed at seq %s, its journal has %d actions" % (hello.get("seq"), n - 1), "wrong"
        elif state["view"] != play.games[gi].views[n - 1]:
            t.error, t.fault = "the board's view after the reboot is not the game of its journal", "wrong"

    @staticmethod
    def _same(t: powercut.Trial, got: list[Any], want: list[Any], what: str) -> bool:
        if got == want:
            return True
        t.fault = powercut.fault(got, want)
        t.error = "%s has %d lines, the host accepted %d (%s); first difference at line %d" % (
            what, len(got), len(want), t.fault, powercut.first_difference(got, want))
        return False


def run(board: Any, link: Any, trials: int, seed: int = 1, game_id: str = "california-jacks", seats: int = 2,
        actions: int = 30, news: int = 4) -> dict[str, Any]:
    """Record a play of `actions` actions and `news` new games on a board running the table,
    then `trials` cuts placed on it (kinds in turn); the tally."""
    t0 = time.monotonic()
    play = record_play(board, link, game_id, seats, seed, actions, news)
    record_s = time.monotonic() - t0
    r = Replayer(board, link, play, seed)
    tally = powercut.Tally()
    bar = Progress(trials, "power cuts")  # drawn only on a terminal
    try:
        for i in range(trials):
            tally.add(i, r.trial(powercut.KINDS[i % len(powercut.KINDS)]))
            bar.update(i + 1)
    finally:
        bar.close()
        r.close()
    out = tally.result()
    out.update(games=len(play.games), actions=len([c for c in play.cmds if c.kind == "act"]),
               flash_ops=len(play.ops), record_s=round(record_s, 1), wall_s=round(time.monotonic() - t0, 1))
    return out
