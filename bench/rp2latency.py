"""Placement to verdict, timed on the rp2 board's emulated clock (issue 18).

The bots play a seeded California Jacks game on the rp2 board (the frozen image on the emulated
RP2040, PN532s behind TCA9548A muxes on its I2C bus, host/cardtable_host/sim/rp2), in lockstep:
the chip stands, its clock stopped, from each line it sends until the host has done what it does
in answer (issue 35), so the figures are the same at any load of the machine. Every card a bot
lays lands at a random emulated time (`Readers.arm`: up to SPREAD_MS after the chip's next bus
request; an IRQ reader's: up to SPREAD_MS after the chip runs on), and
its verdict is the LED frame that shows it (accepted green or rejected red), latched on the
chip's WS2812 pin: the latency is that frame's latch time less the landing time, both on the
emulated clock. The bus trace between the two says where the time went (`parts`):

- `wait`: the landing to the first InListPassiveTarget sent to that reader (its turn), or, for
  a reader that waited for the card armed (`edge`: issue 35), to its answer read at the edge;
- `poll`: from there to the last bus transaction with that reader before the LED frame (the
  sighting, the card-code READ, the field switched off; with a debounce, its second poll);
- `verdict`: from there to the LED frame (the scanner's event, check(), the LED write).

A card the table has read before is named by its UID, not READ again (table/scanner.py): the
bots deal every card across the board's deal pad (`Bots(deal_pad=True)`), so each card a seat
lays has been read there; its `poll` is then the armed answer read alone. `first_sight=True`
(`rp2latency.py PLAYS LOG first`) times cards the table has not read before instead: the deck
dealt over the link, unseen, each game's deck with tags of its own (new UIDs), and a card's
first lay only (a new game once one is laid again). Each sample says which (`known`); by
default (`rp2latency.py PLAYS LOG`, `measure_both`) both are measured, one after the other,
into one log. A card laid on a play pad lands once that pad's LED no longer flashes the last
verdict (the chip runs on until then, sim/rp2race.dark: in lockstep the bots' next card can
come that soon): a verdict in the colour the LED already shows latches no frame of its own and
could not be timed (`not_timed_led_already_showing_it` counts any such card).

`cycle` figures are the same bus trace read for the parts of the model (bench/latency.py):
per poll of an empty reader, the time from its InListPassiveTarget to the next reader's, less
the PN532's own processing (pn532_emu's timing model) and the wire time the model counts.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any

from benchlib import REPO_ROOT, summary

BOARD = "pico-i2c-4seat"
GAME = "california-jacks"
SEED = 171  # a California Jacks game on the rp2 board (tests/host/test_rp2_games.py)
SPREAD_MS = 100.0  # a card lands up to this long after the chip's next bus request
CMD_LIST = 0x4A
CMD_RFCONFIG = 0x32
ANSWER = -1  # a trace entry: an answer read (else the command code written)
COLOURS = {"accepted": (0, 64, 0), "rejected": (96, 0, 0)}  # table/feedback.py


def _host() -> None:
    sys.path.insert(0, str(REPO_ROOT / "host"))


def parts_of(trace: list[tuple[float, int, int]], reader: int, land: float, verdict: float) -> dict[str, float]:
    """Where the time went between a landing and its verdict, in ms (see the module's doc)."""
    mine = [t for t in trace if t[1] == reader and land <= t[0] <= verdict]
    first = next((t[0] for t in mine if t[2] == CMD_LIST), None)
    edge = first is None and bool(mine)
    if edge:  # a reader that waited for the card: its answer read at the edge, then the READ
        first = mine[0][0]
    if first is None:
        return {}
    last = mine[-1][0]
    others = sum(1 for t in trace if t[2] == CMD_LIST and t[1] != reader and land <= t[0] < first)
    # the longest the bus was quiet while the card waited: the chip busy with something else
    # (a collection of the heap, a report over USB, a journal flush)
    times = [land] + [t[0] for t in trace if land <= t[0] <= first]
    quiet = max((b - a for a, b in zip(times, times[1:])), default=0.0)
    return {"wait": (first - land) / 1e6, "poll": (last - first) / 1e6, "verdict": (verdict - last) / 1e6,
            "other_polls_before": others, "bus_quiet": quiet / 1e6, "edge": edge}


def empty_steps(trace: list[tuple[float, int, int]]) -> list[float]:
    """Each empty poll's step in ms: from a reader's InListPassiveTarget to the next one sent
    to another reader, when nothing but that poll's own exchanges came between (no READ)."""
    out = []
    lists = [k for k, t in enumerate(trace) if t[2] == CMD_LIST]
    for a, b in zip(lists, lists[1:]):
        r = trace[a][1]
        if trace[b][1] != r and all(t[1] == r and t[2] in (CMD_RFCONFIG, ANSWER) for t in trace[a + 1:b]):
            out.append((trace[b][0] - trace[a][0]) / 1e6)
    return out


def measure(plays: int = 120, seed: int = SEED, spread_ms: float = SPREAD_MS, log: Any = None,
            first_sight: bool = False) -> dict[str, Any]:
    """Bots play on the rp2 board until `plays` cards laid by the seat to play were judged
    (log: a text file that gets each one as a JSON line): cards the table has read before (the
    deal across its deal pad), or with first_sight cards it has not (the deal over the link,
    a card's first lay only). The board runs in lockstep (the chip stands while the host acts),
    so the same seed gives the same figures at any load."""
    _host()
    from cardtable_host.sim.rp2board import missing

    why = missing()
    if why:
        return {"skipped": why}
    t0 = time.monotonic()
    board = _timed_board(random.Random(seed), spread_ms, first_sight)
    board.start(board.BOOT_S)
    try:
        judge = _Judge(board, plays, log, first_sight)
        _play(board, judge, seed, not first_sight)
        emulated = board.status().get("emulated_ns")
    finally:
        board.close()
    out = summarize(judge.samples, judge.steps, judge.readers, seed, spread_ms)
    out.update({"first_sight": first_sight, "not_timed_led_already_showing_it": judge.hidden, "out_of_turn_ms": summary(judge.other) if judge.other else None,
                "emulated_s": round((emulated or 0) / 1e9, 1), "wall_s": round(time.monotonic() - t0, 1)})
    return out


def measure_both(plays: int, log: Any = None) -> dict[str, Any]:
    """measure() of `plays` cards the table has read before, then of `plays` it has not, on two
    boards one after the other; the figures of both (`by_sight` tells them apart)."""
    known = measure(plays, log=log)
    if "skipped" in known:
        return known
    return combine(known, measure(plays, log=log, first_sight=True))


def combine(known: dict[str, Any], first: dict[str, Any]) -> dict[str, Any]:
    """One figure of two measure() runs: cards the table had read, cards it had not."""
    if "skipped" in known or "skipped" in first:
        return known if "skipped" in known else first
    out = summarize(known["_samples"] + first["_samples"], known["_steps"] + first["_steps"])
    out.update({k: round(known[k] + first[k], 1) for k in ("emulated_s", "wall_s")})
    out["not_timed_led_already_showing_it"] = (known["not_timed_led_already_showing_it"]
                                               + first["not_timed_led_already_showing_it"])
    return out


def _timed_board(rng: random.Random, spread_ms: float, first_sight: bool = False) -> Any:
    """An rp2 board in lockstep on which a card laid without waiting lands at a random
    emulated time (up to spread_ms after the chip runs on) instead of at once. first_sight:
    each game's deck has tags of its own (`deck`: UIDs the table has not read before)."""
    from cardtable_host.sim.board import uid_hex
    from cardtable_host.sim.rp2board import Rp2Board
    from cardtable_host.sim.rp2race import dark
    from cardtable_host.sim.table import uid_for

    class Timed(Rp2Board):
        """Cards land at a random emulated time instead of at once."""

        armed: tuple[str, int] | None = None
        laid: set[tuple[str, int]] = set()  # the tags laid so far: read by the table (scanner.py keeps them)
        known = False  # the armed card's tag had been laid before
        play_leds: dict[str, int] = {}  # the play pads' LEDs (set by _Judge)
        deck = 0  # first_sight: the deck of tags in play (a new one for each game, _play)

        def place(self, zone: str, text: str | None, uid: bytes | str | None = None, kind: int | str = 213,
                  wait: bool = True) -> None:
            tag = (text or "", self.deck)
            self.known = tag in self.laid
            if text is not None:
                self.laid = self.laid | {tag}
                if first_sight and uid_hex(zone, text, uid, kind) == uid_for(text).hex():  # (a deck's tag)
                    uid = uid_for("%s@%d" % tag)
            if wait or self.readers is None:
                return Rp2Board.place(self, zone, text, uid, kind, wait)
            if zone in self.play_leds:  # the pad's LED flashing the last verdict would hide this one's
                dark(self, [self.play_leds[zone]])
            rd = self.readers
            rd.trace = []
            i = rd.index(zone)
            if rd.waits(zone):  # (its PN532 may wait for the card: it comes on its IRQ line)
                rd.after_lift(i)
                rd.landed_ns = self._arrive([(i, uid_hex(zone, text, uid, kind), text, kind,
                                              rng.uniform(0, spread_ms))])[0]
            else:
                rd.arm(zone, uid_hex(zone, text, uid, kind), text, rng.uniform(0, spread_ms) * 1e6, kind)
            self.armed = (zone, i)

    return Timed(BOARD, game=GAME, speed=0, lockstep=True)


class _Judge:
    """The bots' on_message: each judgement of an armed card becomes a sample (the seat to
    play's, in turn) or an `other` figure."""

    def __init__(self, board: Any, plays: int, log: Any, first_sight: bool = False) -> None:
        from cardtable_host.sim.table import VirtualTable

        self.board = board
        self.plays = plays
        self.first_sight = first_sight  # only cards the table has not read before are samples
        self.stale = False  # first_sight: a card of this deck was laid again (a new game's due)
        self.hidden = 0  # verdicts the pad's LED already showed when the card landed: not timed
        self.log = log
        self.table = VirtualTable(board, BOARD, table_layout(board))
        roles = self.table.layout.roles
        board.play_leds = {z: led for z, led in self.table.board.zone_led.items() if roles.get(z, ("",))[0] == "play"}
        self.readers = len(self.table.board.readers)
        self.samples: list[dict[str, Any]] = []
        self.other: list[float] = []
        self.steps: list[float] = []

    def __call__(self, msg: dict[str, Any], before: Any) -> None:
        board = self.board
        src = msg.get("from") or ""
        if msg.get("type") not in ("event", "verdict") or not src.startswith("zone ") or board.armed is None:
            return
        zone, reader = board.armed
        if src != "zone " + zone:
            return
        board.armed = None
        readers = board.readers
        land = readers.landed_ns
        trace, readers.trace = readers.trace or [], None
        if land is None:
            return
        self.steps.extend(empty_steps(trace))
        want = COLOURS["accepted" if msg["type"] == "event" else "rejected"]
        led = self.table.board.zone_led[zone]
        if _shown_at(board, land, led) == want:  # (the last verdict's flash still on: no frame)
            self.hidden += 1
            return
        at = _frame_at(board, land, led, want)
        if at is None:
            return
        ms = (at - land) / 1e6
        role, seat = self.table.layout.roles[zone]
        if role == "play" and before is not None and seat in before.turn and self.first_sight and board.known:
            self.stale = True
        elif role == "play" and before is not None and seat in before.turn:
            parts = parts_of(trace, reader, land, at)
            self._sample(ms, msg["type"] == "event", {**parts, "known": board.known}, empty_steps(trace))
        else:
            self.other.append(ms)

    def _sample(self, ms: float, accepted: bool, parts: dict[str, Any], steps: list[float]) -> None:
        import json

        self.samples.append({"ms": ms, "accepted": accepted, **parts})
        print("rp2 latency: %d/%d: %.1f ms" % (len(self.samples), self.plays, ms), file=sys.stderr)
        if self.log is not None:  # (a run stopped early keeps what it measured)
            self.log.write(json.dumps({"sample": self.samples[-1], "steps": steps}) + "\n")
            self.log.flush()


def _shown_at(board: Any, land: float, led: int) -> tuple[int, ...] | None:
    """The colour the LED showed when the card landed (its last frame before; None: none kept).
    A verdict the LED already shows (the seat's last flash of that colour not over, in lockstep
    its next card can come that soon) latches no frame of its own: it cannot be timed."""
    frames = board._request({"op": "led_frames", "since": land - 10e9})["frames"]
    before = [f for f in frames if f[0] <= land]
    return tuple(before[-1][1][led]) if before else None


FRAME_STEPS = 100  # emulated steps (2 ms each) a verdict's LED frame may come after its line


def _frame_at(board: Any, land: float, led: int, want: tuple[int, int, int]) -> float | None:
    """The emulated ns the LED showed `want` at, since land (None: not within FRAME_STEPS):
    the chip stands at the verdict's line, and its LED frame may come a little after it."""
    for _ in range(FRAME_STEPS):
        frames = board._request({"op": "led_frames", "since": land})["frames"]
        at = next((f[0] for f in frames if tuple(f[1][led]) == want), None)
        if at is not None:
            return float(at)
        board.step()
    return None


def _play(board: Any, judge: _Judge, seed: int, deal_pad: bool = True) -> None:
    """The bots play (new games as they end) until the judge has its samples; deal_pad: every
    card dealt across the board's deal pad (read there before it is played)."""
    from cardtable_host.sim.bots import Bots

    with board.lockstep_link() as link:
        bots = Bots(link, judge.table, seed=seed, timeout=board.JUDGE_S, on_message=judge, deal_pad=deal_pad)
        hello = link.hello()
        link.drain()
        bots.new_game({}, hello=hello)
        while len(judge.samples) < judge.plays:
            if bots.over or judge.stale:  # (first sight: a new game, a deck of new tags)
                judge.stale = False
                board.deck += judge.first_sight
                bots.new_game({})
            if bots.bot_turn():
                bots.step()
                bots.settle(0.0)
            else:
                bots.pump(0.05)


def summarize(samples: list[dict[str, Any]], steps: list[float], readers: int = 10, seed: int = SEED,
              spread_ms: float = SPREAD_MS) -> dict[str, Any]:
    """The placements' figures from their samples (and the empty polls' steps)."""
    ms = [s["ms"] for s in samples]
    parts = {k: summary([s[k] for s in samples if k in s]) for k in ("wait", "poll", "verdict")}
    return {"board": BOARD, "readers": readers, "game": GAME, "seed": seed,
            "plays": len(samples), "spread_ms": spread_ms, "ms": summary(ms),
            "accepted": sum(1 for s in samples if s["accepted"]), "parts_ms": parts,
            "by_sight": by_sight(samples),
            "empty_poll_step_ms": summary(steps, 2), "_samples": samples, "_steps": steps}


def by_sight(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of the cards the table had read before (`known`: named by their UID) and of
    those it had not (`first`: READ), each with its parts (a sample without `known`: first)."""
    out = {}
    for name, sub in (("known", [s for s in samples if s.get("known")]),
                      ("first", [s for s in samples if not s.get("known")])):
        if sub:
            out[name] = {"plays": len(sub), "ms": summary([s["ms"] for s in sub]),
                         "parts_ms": {k: summary([s[k] for s in sub if k in s]) for k in ("wait", "poll", "verdict")}}
    return out


def from_log(path: str) -> dict[str, Any]:
    """The placements' figures from the JSON lines a run wrote (`rp2latency.py PLAYS LOG`)."""
    import json

    samples: list[dict[str, Any]] = []
    steps: list[float] = []
    with open(path) as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                samples.append(d["sample"])
                steps.extend(d["steps"])
    out = summarize(samples, steps)
    out["log"] = path
    return out


def undo_one(game: str, seeds: tuple[int, ...] = (1, 2, 3), max_actions: int = 1500,
             image: str | None = None) -> dict[str, Any]:
    """Undo at the end of the longest seeded bot game of `game` on the rp2 board, timed on its
    emulated clock: the journal up to the table's last checkpoint written to the chip's flash,
    a power-up (the table resumes it: a checkpoint), the actions since played over the link,
    then `undo`: from the chip taking the command's line to its answer's line leaving (in
    lockstep: the chip's state when the command comes does not hang on the host's speed)."""
    _host()
    import tempfile

    import latency
    from cardtable import games, record
    from cardtable.hal import FileStorage
    from cardtable.journal import Journal
    from cardtable.table import config
    from cardtable_host.sim.choice import board_for, pick_layout
    from cardtable_host.sim.rp2board import Rp2Board
    from cardtable_host.sim.table import _boards_dir

    board_name = board_for(game)
    layout = pick_layout(game, board_name, None, None)
    seats = len(config.load_board(board_name, str(_boards_dir())).layouts[layout].seats)
    seed, acts, k = latency.longest_game(game, seats, seeds, max_actions)
    cut = len(acts) - k
    if acts[cut][1] == "deal" and getattr(games.game_class(game), "AUTO_DEAL", False):
        cut += 1  # a table that deals by itself would deal (unseen) at boot: the deal goes in too
    g = games.load(game, seats=seats)
    g.keep_history = False
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="cardtable-undo-") as tmp:
        j = Journal(FileStorage(tmp))
        j.start(record.header(g))
        for a in acts[:cut]:
            j.append(record.encode(g, a))
            g.apply(a)
        j.close()
        journal = (Path(tmp) / "games" / "0001.jsonl").read_bytes()
    with Rp2Board(board_name, layout=layout, speed=0, repl=True, image=image, lockstep=True) as b:
        b.put_journal(journal)
        if b.reset(timeout=1800) != "table":
            raise RuntimeError("the table did not resume %s's journal" % game)
        with b.lockstep_link(timeout=120) as link:  # (the chip stands while the host types)
            if link.hello()["seq"] != cut:
                raise RuntimeError("the table resumed %s at another action" % game)
            for a in acts[cut:]:
                link.act(record.encode(g, a))
                g.apply(a)
            link.drain()
            since = b._request({"op": "lines"})["now_ns"]
            r = link.undo()
            lines = b._request({"op": "lines", "since": since})["lines"]
    at = next(k for k, ln in enumerate(lines) if ln[0] == "in" and '"undo"' in ln[2])
    sent = lines[at][1]
    # (the answer after it in the log: in lockstep the last answer before it left at the same ns)
    answered = next(ln[1] for ln in lines[at:] if ln[0] == "out" and '"type": "ok"' in ln[2])
    return {"board": board_name, "layout": layout, "seats": seats, "seed": seed, "actions": len(acts),
            "replayed": len(acts) - cut - 1, "undone": r.get("action"), "ms": round((answered - sent) / 1e6, 1),
            "wall_s": round(time.monotonic() - t0, 1)}


def undo(games: list[str], jobs: int = 2, max_actions: int = 1500) -> dict[str, Any]:
    """undo_one for each game, `jobs` boards at a time; {game: result or {"error": ...}}."""
    from concurrent.futures import ThreadPoolExecutor

    _host()

    def one(game: str) -> dict[str, Any]:
        try:
            return undo_one(game, max_actions=max_actions)
        except Exception as e:  # noqa: BLE001 - one game's failure is reported, the others go on
            return {"error": "%s: %s" % (type(e).__name__, e)}

    from cardtable.table import config
    from cardtable_host.sim.table import _boards_dir

    for name in config.board_names(str(_boards_dir())):  # its lazy imports before the threads
        config.load_board(name, str(_boards_dir()))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return dict(zip(games, pool.map(one, games)))


def table_layout(board: Any) -> str:
    """The layout the board was installed with."""
    return board.chosen_layout() or GAME


def main(argv: list[str]) -> int:
    import contextlib
    import json

    if argv and argv[0] == "undo":
        print(json.dumps(undo(argv[1].split(",")), indent=1))
        return 0
    plays = int(argv[0]) if argv else 120
    which = argv[2] if len(argv) > 2 else "both"  # known, first or both (one after the other)
    if which not in ("known", "first", "both"):
        print("usage: rp2latency.py [PLAYS [LOG [known|first|both]]] | undo GAMES", file=sys.stderr)
        return 2
    with (open(argv[1], "w") if len(argv) > 1 else contextlib.nullcontext()) as log:
        if which == "both":
            out = measure_both(plays, log=log)
        else:
            out = measure(plays, log=log, first_sight=which == "first")
    out.pop("_samples", None)
    out.pop("_steps", None)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    raise SystemExit(main(sys.argv[1:]))
