"""Placement-to-verdict latency of the real table: a Monte Carlo over the scanner's poll cycle.

What happens between a card landing on a pad and its LED changing colour:

1. The scanner polls the readers round robin, one RF field on at a time (DESIGN §6). Each
   poll is InListPassiveTarget (bounded: MxRtyPassiveActivation=1) and RFConfiguration
   "field off"; a reader with a card on it takes longer than an empty one.
2. The card lands at a uniformly random moment of that cycle. Its reader sees it at its next
   poll and must see it again in `place_polls` consecutive polls (debounce, scanner.py); the
   scanner polls a reader with a card being debounced again as soon as `settle_ms` have passed
   since it saw it (not a whole cycle later); in that last poll it also reads the card code
   (one NTAG READ of 4 pages: a code like "10H" fits, embedded-facts §6). The card lands on
   the play zone of the seat to play, which the scanner polls between every two other
   readers (its `focus`, set by the controller); `focus="other"` models a card laid out of
   turn (another zone has the focus) and `focus="off"` the plain round robin. A card the
   table has read before is named by its UID and not READ again (scanner.py): the edge path
   models both (`simulate(known=...)`), the polled paths READ every card.
3. The controller turns the event into a play in the same step: check(), then the LED frame
   at once, accepted or rejected (controller.play: Feedback.show_flash writes that LED and
   shows the chain; the other LEDs wait for the step's update); only then apply(), the tag
   bookkeeping (inputs.placed), the journal line's flush and the event and state report over
   USB, so none of them delays the verdict a player sees.

Bus times come from byte counts of the real driver (drivers/pn532.py), PN532 and tag times
from the parameters below (cited; ranges are sampled uniformly), and the firmware's CPU terms
from what bench/probe.py measured on the WebAssembly MicroPython, scaled to an RP2040 by a
factor that is an estimate (see bench/README.md, "From wasm to an RP2040").
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from benchlib import summary

READERS = tuple(range(2, 17))
# A focus reader's field left on between its empty polls: not built (a what-if: the card then
# answers only once it has been in the field the guard time, which takes back most of the gain).
FIELD_ON = False
# controller.refresh: a play pad holding the card of a seat not to play is polled every
# RARE_EVERY-th lap only (scanner.Scanner.rare_every)
RARE_EVERY = 8


@dataclass(frozen=True)
class Bus:
    key: str
    label: str
    byte_us: float  # wire time of one byte
    head: int = 1  # per transaction: the I2C address byte, or the SPI direction prefix
    status: int = 0  # I2C reads start with the PN532's status byte
    switch: int = 0  # bytes to switch the TCA9548A to the reader's channel (address + control)
    cpu: str = "i2c"  # which measured driver CPU applies


def i2c_bus(hz: int = 400_000) -> Bus:
    # 8 data bits + ACK = 9 clocks per byte: 22.5 us at 400 kHz (embedded-facts §6).
    return Bus(f"i2c-{hz // 1000}k", f"I2C {hz // 1000} kHz, TCA9548A", 9e6 / hz, 1, 1, 2, "i2c")


def spi_bus(hz: int) -> Bus:
    # SPI mode 0, 8 clocks per byte; the PN532 takes 1-5 MHz (embedded-facts §6).
    return Bus(f"spi-{hz // 1_000_000}m", f"SPI {hz / 1e6:g} MHz", 8e6 / hz, 1, 0, 0, "spi")


BUSES = (i2c_bus(400_000), spi_bus(1_000_000), spi_bus(5_000_000))

# (frame bytes sent, answer bytes read) per command, as drivers/pn532.py does it: a frame is
# 9 bytes + parameters; answers are read with the driver's length hint in one transaction.
LIST = (11, 22)  # InListPassiveTarget 4A 01 00
LIST2 = (11, 22)  # InListPassiveTarget 4A 02 00: targets(), two tags on one pad? (read for one tag)
RF_OFF = (11, 9)  # RFConfiguration 32 01 00: field off before the next reader
READ = (12, 26)  # InDataExchange 40 01 30 page: NTAG READ of 16 bytes
ACK_BYTES = 6


@dataclass(frozen=True)
class Timing:
    """PN532, tag, flash, LED and USB times in ms; (lo, hi) ranges are sampled uniformly."""

    ack: tuple[float, float] = (0.2, 1.0)  # ACK after a command frame: estimate
    # InListPassiveTarget with an empty field and MxRtyPassiveActivation=1: "a few ms"
    # (field-notes §5, an inference; no datasheet figure).
    list_empty: tuple[float, float] = (2.0, 6.0)
    # ... with an NTAG21x (7-byte UID) in the field, the field switched on for the poll: the
    # ISO 14443-3 floor, ~9.7 ms (5.1 ms power-up guard after the field comes on, REQA/ATQA,
    # two cascade levels of anticollision and SELECT for a 7-byte UID), the figure issue 18
    # says to use. What the PN532's own handling adds on top is not known without a reader on
    # a bench: LIST_TAG_SLOW is an estimate, and what_if() shows its effect.
    list_tag: tuple[float, float] = (9.7, 9.7)
    # targets(): InListPassiveTarget MaxTg 2 right after the sighting, the field still on (no
    # power-up guard): the same exchange less 5.1 ms. The scanner asks once per placement.
    count: tuple[float, float] = (4.6, 4.6)
    # poll(2) on the focus reader lists up to two tags in its one InListPassiveTarget: after
    # the first is selected the PN532 halts it and asks again (REQA, no ATQA): an estimate.
    second_tag: tuple[float, float] = (0.5, 2.0)
    rf_off: tuple[float, float] = (0.1, 0.5)  # RFConfiguration: estimate
    # NTAG READ: 368 us + 1,548 us on the air (NXP NTAG213/215/216 datasheet 265330),
    # plus the PN532's own handling (estimate).
    read: tuple[float, float] = (2.1, 3.0)
    # drivers/pn532.py _wait(): the status is checked at once, then every POLL_US (100 us).
    sleep: float = 0.1
    # The journal's flush per accepted action: littlefs rewrites the file's tail block, one
    # 4 KiB erase per flushed append (embedded-facts §7.6, measured) = W25Q16JV sector erase
    # tSE 45 ms typical (400 ms max; Winbond W25Q16JV datasheet), plus re-programming up to
    # 16 pages of 256 B at tPP 0.4 ms typical. The CPU stalls meanwhile (code runs from flash).
    journal: tuple[float, float] = (45.0, 51.4)
    # ISO 14443-3 power-up guard: a PCD that switches its field on gives a card this long
    # before its first REQA (a polled reader's every poll; the "_on" what-if's card).
    guard: float = 5.1
    # The seat to play's armed reader (issue 35, table/irqwait.py): its PN532 repeats its
    # activation with its field already on, so nothing in it waits a guard. The card answers
    # the first REQA once it is ready: ISO/IEC 14443-3 (§5, polling) makes a card "able to
    # accept a request within 5 ms" of being exposed to an unmodulated field (the 5.1 ms
    # above is the PCD's side of that bound: "but it may poll faster, since a PICC may respond
    # faster"). The standard bounds it and says no more: sampled uniformly up to the bound.
    power_up: tuple[float, float] = (0.0, 5.0)
    # ... a card ready between two of the PN532's REQAs waits for the next: at least the
    # ISO 14443-3 Request Guard Time apart (7000/fc = 0.52 ms, §6.2.2), 1 ms per empty
    # attempt in the emulator (an estimate): up to 1 ms.
    attempt: tuple[float, float] = (0.0, 1.0)
    # ... then its activation, the field on: REQA/ATQA, ANTICOLLISION and SELECT at two
    # cascade levels for a 7-byte UID, ~4.1 ms of frames at 106 kbit/s (ISO 14443-3 §6; the
    # 9.7 ms floor less its guard) + the PN532's own 0.5 ms (estimate, as pn532_emu).
    activate: tuple[float, float] = (4.6, 4.6)
    # ... and MaxTg 2 looks for a second tag before it answers (the two-tag check): as
    # second_tag, an estimate. The emulator's armed answer does not charge it
    # (pn532_emu._pending), so emulated_timing() has it 0.
    armed_second: tuple[float, float] = (0.5, 2.0)
    # scanner.Scanner(settle_ms=20): the confirming poll of a debounce comes this long after
    # the first sighting at the earliest.
    settle_ms: float = 20.0
    # WS2812: 24 bits x 1.25 us per LED, then >= 50 us low to latch (WS2812B datasheet).
    led_per_led: float = 0.030
    led_latch: float = 0.050
    # USB CDC to the host: ~500 kB/s of a 12 Mbit/s full-speed bulk endpoint (estimate).
    usb_bytes_per_ms: float = 500.0
    event_bytes: int = 160  # the "event" line sent before the state report (estimate)


# The PN532 taking up to 15 ms to list a tag with its field switched on (estimate): what_if().
LIST_TAG_SLOW = {"list_tag": (9.7, 15.0), "count": (4.6, 9.9), "activate": (4.6, 9.9)}


def emulated_timing() -> Timing:
    """The PN532 as the rp2 board's emulator times it (firmware/lib/cardtable/sim/pn532_emu.py):
    point values, for the model's comparison with the emulated board."""
    from cardtable.sim import pn532_emu as e

    def pt(us: float) -> tuple[float, float]:
        return (us / 1000, us / 1000)

    cmd = e.T_FIRMWARE_US
    return Timing(ack=(0.0, 0.0), list_empty=pt(cmd + 2 * e.T_ATTEMPT_US),  # MxRtyPassiveActivation 1
                  list_tag=pt(cmd + e.T_ACTIVATE_US + e.T_GUARD_US), count=pt(cmd + e.T_ACTIVATE_US + e.T_SECOND_US),
                  second_tag=pt(e.T_SECOND_US), rf_off=pt(cmd), read=pt(cmd + e.T_READ_US),
                  guard=e.T_GUARD_US / 1000, power_up=(0.0, 0.0), attempt=(0.0, 0.0),
                  activate=pt(cmd + e.T_ACTIVATE_US), armed_second=(0.0, 0.0))


# RP2040 time = wasm time x factor: an estimate with a wide range (README, "From wasm to an
# RP2040"); every CPU term of the model scales with it.
RP2040_FACTORS = {"fast": 5.0, "nominal": 12.0, "slow": 30.0}
# Used when the probe could not measure an idle controller step (wasm us).
DEFAULT_STEP_US = 25.0


@dataclass
class Cpu:
    """The firmware's CPU terms in ms on the target: measured wasm cost x factor."""

    factor: float
    poll: dict[str, dict[str, float]]  # bus cpu key -> poll kind -> ms (driver)
    step: float  # the rest of one controller step (scanner bookkeeping, LEDs, link, watchdog)
    check: Sequence[float]  # per-action samples, ms: check() (a rejected play)
    action: Sequence[float]  # check() + apply()
    view: Sequence[float]  # json of the spectator view (the state report)
    view_len: Sequence[float]  # its length in bytes
    # measured on the rp2 board: from the sighting poll's last bus transaction to the LED
    # frame latched (the NDEF parse, the event, the card's action, check(), that LED written
    # and the chain shown); None: LEDs + check() as above
    verdict: Sequence[float] | None = None
    # measured on the rp2 board: one loop step's CPU whatever its bus work (a step with an
    # empty poll less its bus and PN532 time); 0: step + the driver's share of the poll
    loop: float = 0.0
    # ... the same as verdict for a card the table had not read before (its READ, then the
    # NDEF parse); None: verdict (the measurement did not tell the two apart)
    verdict_new: Sequence[float] | None = None

    @classmethod
    def scaled(cls, factor: float, driver: Mapping[str, Any], rules: Mapping[str, Sequence[float]]) -> "Cpu":
        poll = {bus: {kind: driver[bus][kind]["ns"] / 1e6 * factor for kind in ("empty", "tag", "read")}
                for bus in ("i2c", "spi")}
        step_us = (driver.get("step") or {}).get("ns", DEFAULT_STEP_US * 1000) / 1000
        f = factor / 1000  # us -> ms
        check = rules.get("check_play_us") or rules["check_us"]  # (a deal is no card on a pad)
        return cls(factor, poll, step_us * f, [x * f for x in check],
                   [x * f for x in rules["action_us"]], [x * f for x in rules["view_us"]],
                   list(rules["view_len"]))


def _wait(ready: float, check: float, t: Timing) -> float:
    """Time until the driver sees the PN532 ready: a status check at once, then one after
    every sleep_ms(1)."""
    if ready <= check:
        return check
    return check + math.ceil((ready - check) / (t.sleep + check)) * (t.sleep + check)


def send_ms(bus: Bus, cmd: tuple[int, int], rng: random.Random, t: Timing) -> float:
    """A command's first half: send the frame, wait for and read the ACK."""
    byte = bus.byte_us / 1000
    check = (bus.head + 1) * byte
    return (bus.head + cmd[0]) * byte + _wait(rng.uniform(*t.ack), check, t) + (bus.head + bus.status + ACK_BYTES) * byte


def answer_ms(bus: Bus, cmd: tuple[int, int], busy: float, t: Timing) -> float:
    """A command's second half: wait for and read the answer."""
    byte = bus.byte_us / 1000
    return _wait(busy, (bus.head + 1) * byte, t) + (bus.head + bus.status + cmd[1]) * byte


def exchange(bus: Bus, cmd: tuple[int, int], busy: float, rng: random.Random, t: Timing) -> float:
    """One command: send the frame, wait for and read the ACK, wait for and read the answer."""
    return send_ms(bus, cmd, rng, t) + answer_ms(bus, cmd, busy, t)


def poll_ms(bus: Bus, kind: str, rng: random.Random, t: Timing, cpu: Cpu) -> float:
    """One reader's poll in one controller step. kind: empty, tag (a card lies there) or
    read (the debounced sighting, which also counts the tags and reads the card code) or
    read2 (the focus reader's sighting: poll(2) counts the tags in its own exchange); with
    "_on", a focus reader whose field was left on: no power-up guard in its poll, and an empty
    poll leaves the field on (no RFConfiguration)."""
    ms = bus.switch * bus.byte_us / 1000
    if kind.startswith("read2"):
        busy = rng.uniform(*t.list_tag) + rng.uniform(*t.second_tag)
        ms += exchange(bus, LIST2, busy - t.guard if kind == "read2_on" else busy, rng, t)
        ms += exchange(bus, READ, rng.uniform(*t.read), rng, t)
    else:
        ms += exchange(bus, LIST, rng.uniform(*(t.list_empty if kind.startswith("empty") else t.list_tag)), rng, t)
    if kind == "read":
        ms += exchange(bus, LIST2, rng.uniform(*t.count), rng, t)
        ms += exchange(bus, READ, rng.uniform(*t.read), rng, t)
    if kind != "empty_on" and not kind.startswith("read2"):
        # (after a focus reader's sighting the field goes off at the next poll, after the verdict)
        ms += exchange(bus, RF_OFF, rng.uniform(*t.rf_off), rng, t)
    c = cpu.poll[bus.cpu]
    return ms + c.get(kind, c["read" if kind.startswith("read") else kind.split("_")[0]]) + cpu.step


def verdict_ms(accepted: bool, leds: int, rng: random.Random, t: Timing, cpu: Cpu, known: bool = True) -> float:
    """From the card code read (or, for a card the table has read before, named by its UID) to
    the LED showing the verdict: controller.play lights it on check()'s answer, accepted or
    not, before apply(), the messages and the journal."""
    measured = cpu.verdict if known or not cpu.verdict_new else cpu.verdict_new
    if measured:
        return measured[rng.randrange(len(measured))]
    i = rng.randrange(len(cpu.check))
    return leds * t.led_per_led + t.led_latch + cpu.check[i]


def armed_answer_ms(rng: random.Random, t: Timing) -> float:
    """From a card coming into an armed reader's live field to its PN532's answer (the IRQ
    edge): the card ready, the next REQA, its activation and the search for a second tag."""
    return (rng.uniform(*t.power_up) + rng.uniform(*t.attempt) + rng.uniform(*t.activate)
            + rng.uniform(*t.armed_second))


def edge_ms(n: int, bus: Bus, rng: random.Random, t: Timing, cpu: Cpu, occupancy: float,
            cycle: float, armed: int = 0, idle: int = 0, split: bool = True,
            known: bool = True) -> tuple[float, float, float]:
    """The seat to play's reader 0 armed (issue 35: it waits for its card with its field on,
    table/irqwait.py): from the card landing to its IRQ edge's step ending, in the parts
    detect_ms gives. The PN532 answers at armed_answer_ms; the loop meanwhile polls the other
    readers (loop_until); the first step after the edge reads the answer and, for a card the
    table has not read before (known False), the card (READ), and polls no one else
    (edge_read_ms): the verdict follows."""
    occupied = [i > armed and rng.random() < occupancy for i in range(n)]
    land = rng.uniform(0.0, cycle)
    edge = land + armed_answer_ms(rng, t)
    now = loop_until(edge, n, bus, rng, t, cpu, occupied, armed, idle, split)
    return now - land, 0.0, edge_read_ms(bus, rng, t, cpu, known)


def next_polled(rr: list[int], n: int, armed: int, idle: int, occupied: list[bool]) -> int:
    """The reader the round robin polls next (rr: [next reader, lap], moved on), or -1: readers
    0..armed wait armed and are skipped, the last `idle` and the pads holding a card are polled
    every RARE_EVERY-th lap only (Scanner._choose)."""
    for _ in range(n):
        r = rr[0]
        if r + 1 < n:
            rr[0] = r + 1
        else:
            rr[0] = 0
            rr[1] += 1
        if r <= armed:
            continue
        if (occupied[r] or r >= n - idle) and rr[1] % RARE_EVERY:
            continue
        return r
    return -1


def step_cpu(cpu: Cpu, bus: Bus, occupied: bool, work: bool) -> float:
    """One loop step's CPU while a reader is armed: the board's measured step, or the idle step
    plus, in a step that sends a command or reads an answer (work), half the driver's poll."""
    if cpu.loop:
        return cpu.loop
    return cpu.step + (cpu.poll[bus.cpu]["tag" if occupied else "empty"] / 2 if work else 0.0)


def loop_until(edge: float, n: int, bus: Bus, rng: random.Random, t: Timing, cpu: Cpu,
               occupied: list[bool], armed: int, idle: int, split: bool = True) -> float:
    """The controller loop from 0 while the seat to play's reader waits armed: the end of the
    step the edge falls in (the next step serves it first, Scanner.step). split (the firmware):
    a poll of another reader in halves over several steps (split_poll); False: whole polls, a
    what-if."""
    rr = [rng.randrange(n), rng.randrange(RARE_EVERY)]
    now = 0.0
    while now < edge:
        r = next_polled(rr, n, armed, idle, occupied)
        if r < 0:
            now += step_cpu(cpu, bus, False, False)  # a step with no reader to poll
        elif split:
            now = split_poll(now, edge, bus, rng, t, cpu, occupied[r])
        else:
            now += poll_ms(bus, "tag" if occupied[r] else "empty", rng, t, cpu)
    return now


def split_poll(now: float, edge: float, bus: Bus, rng: random.Random, t: Timing, cpu: Cpu,
               occupied: bool) -> float:
    """One reader polled in halves from `now` (PN532.poll_start, ready, poll_end): a step sends
    InListPassiveTarget and takes its ACK; each step after reads the PN532's status, and the one
    that finds the answer reads it and switches that field off. Returns the end of the poll's
    last step, or of the step the edge falls in if that comes first."""
    byte = bus.byte_us / 1000
    sent = now + bus.switch * byte + (bus.head + LIST[0]) * byte  # the PN532 starts here
    now += bus.switch * byte + send_ms(bus, LIST, rng, t) + step_cpu(cpu, bus, occupied, True)
    ready = sent + rng.uniform(*(t.list_tag if occupied else t.list_empty))
    look = step_cpu(cpu, bus, occupied, False) + (bus.switch + bus.head + bus.status) * byte
    while now < edge:
        now += look
        if now >= ready:  # (this step reads the answer and switches the field off)
            now += (bus.head + bus.status + LIST[1]) * byte + exchange(bus, RF_OFF, rng.uniform(*t.rf_off), rng, t)
            now += step_cpu(cpu, bus, occupied, True) - step_cpu(cpu, bus, occupied, False)
            break
    return now


def edge_read_ms(bus: Bus, rng: random.Random, t: Timing, cpu: Cpu, known: bool = True) -> float:
    """The step that serves the edge: the armed answer read (sized for one tag, as
    pn532_wait.answer reads it), the scanner's CPU, and for a card the table has not read
    before the card's READ at once (a card it has read is named by its UID: scanner.py)."""
    byte = bus.byte_us / 1000
    last = bus.switch * byte + (bus.head + bus.status + LIST2[1]) * byte
    c = cpu.poll[bus.cpu]
    # (drawn for both, so that a card seen the first time and one read before share every other
    # draw of a trial: the two summary lines differ by the READ alone, whatever the samples)
    read = exchange(bus, READ, rng.uniform(*t.read), rng, t)
    if known:
        return last + c.get("named", c["read"]) + cpu.step
    return last + read + c["read"] + cpu.step


def detect_ms(n: int, bus: Bus, rng: random.Random, t: Timing, cpu: Cpu, place_polls: int,
              occupancy: float, cycle: float, focus: str = "on",
              read_confirms: bool = True, field_on: bool = FIELD_ON,
              rare_occupied: bool = True) -> tuple[float, float, float]:
    """From the card landing on reader 0 to its debounced sighting's poll ending, in three
    parts: waiting for the first sighting, the debounce polls, and the last poll (with the
    READ). focus: reader 0 is the scanner's focus ("on"), another empty reader is ("other"),
    or there is none ("off"); "edge": reader 0 is the focus and waits armed (edge_ms).
    field_on: the focus reader's field stays on between its empty polls (the card then answers
    once it has been in the field the guard time). rare_occupied: a pad holding a card (a play
    pad of a seat that has played) is polled every RARE_EVERY-th lap of the round robin only."""
    if focus == "edge":
        return edge_ms(n, bus, rng, t, cpu, occupancy, cycle)
    occupied = [i > 0 and rng.random() < occupancy for i in range(n)]
    f = {"on": 0, "other": n - 1, "off": -1}[focus]
    if f > 0:
        occupied[f] = False  # the pad of the seat to play is empty
    lit = field_on and read_confirms and f >= 0
    land = rng.uniform(0.0, cycle)
    sc = _Polled(n, f, occupied, rare_occupied and f >= 0, rng)  # (a table without play zones: no seat to play)
    hits = 0
    first = seen = 0.0
    while True:
        r = sc.choose(0 < hits < place_polls, now=sc.now, seen=seen, settle=t.settle_ms)
        on = lit and r == f
        if r == 0 and sc.now >= land + (t.guard if on else 0.0):
            hits += 1
            if hits == 1:
                first = sc.now
            # on the focus reader the READ in the sighting's poll is the confirmation
            if read_confirms and f == 0:
                return first - land, 0.0, poll_ms(bus, "read2_on" if on else "read2", rng, t, cpu)
            if hits == place_polls:
                return first - land, sc.now - first, poll_ms(bus, "read", rng, t, cpu)
            seen = sc.now
            sc.now += poll_ms(bus, "tag", rng, t, cpu)
        else:
            sc.now += poll_ms(bus, "tag" if occupied[r] else "empty_on" if on else "empty", rng, t, cpu)


class _Polled:
    """The scanner's choice of the reader to poll (Scanner._choose) for detect_ms, one whole
    poll per step, and the time."""

    def __init__(self, n: int, f: int, occupied: list[bool], rare_occupied: bool, rng: random.Random) -> None:
        self.n, self.f, self.occupied, self.rare_occupied = n, f, occupied, rare_occupied
        self.now = 0.0
        self.i = rng.randrange(n)
        self.alt = rng.random() < 0.5  # where in its alternation the scanner is
        self.lap = rng.randrange(RARE_EVERY)

    def choose(self, waiting: bool, now: float, seen: float, settle: float) -> int:
        """A card being debounced is polled again once settle ms have passed since it was seen;
        else every other time the focus reader (not while a card there waits for that
        confirming poll); else round robin."""
        f = self.f
        if waiting and now - seen >= settle:
            return 0
        if self.alt and f >= 0 and not (waiting and f == 0):
            self.alt = False
            return f
        while True:
            r = self.i
            if r + 1 < self.n:
                self.i = r + 1
            else:
                self.i = 0
                self.lap += 1
            if not (self.rare_occupied and self.occupied[r] and r != f and self.lap % RARE_EVERY):
                break
        self.alt = True
        return r


def mean_cycle(n: int, bus: Bus, t: Timing, cpu: Cpu, occupancy: float, rng: random.Random) -> float:
    """Average time to poll all n readers once."""
    k = 200
    empty = sum(poll_ms(bus, "empty", rng, t, cpu) for _ in range(k)) / k
    tag = sum(poll_ms(bus, "tag", rng, t, cpu) for _ in range(k)) / k
    return n * (occupancy * tag + (1 - occupancy) * empty)


def simulate(n: int, bus: Bus, cpu: Cpu, trials: int, seed: int, place_polls: int = 2,
             occupancy: float = 0.5, leds: int | None = None, t: Timing = Timing(),
             focus: str = "on", read_confirms: bool = True, field_on: bool = FIELD_ON,
             rare_occupied: bool = True, armed: int = 0, idle: int = 0, known: bool = True) -> dict[str, Any]:
    """Latency distributions (ms) of a rejected and an accepted play with n readers (focus
    "edge": armed and idle as edge_ms takes them; known: a card the table has read before, named
    by its UID at the edge, else one seen the first time, READ)."""
    rng = random.Random(seed)
    cycle = mean_cycle(n, bus, t, cpu, occupancy, rng)
    leds = n if leds is None else leds
    rejected = []
    accepted = []
    parts = [0.0, 0.0, 0.0, 0.0, 0.0]
    for _ in range(trials):
        if focus == "edge":
            wait, debounce, last = edge_ms(n, bus, rng, t, cpu, occupancy, cycle, armed, idle, known=known)
        else:
            wait, debounce, last = detect_ms(n, bus, rng, t, cpu, place_polls, occupancy, cycle, focus,
                                             read_confirms, field_on, rare_occupied)
        d = wait + debounce + last
        k = known and focus == "edge"  # (a polled pad's model READs every card: the CPU after a READ)
        r = verdict_ms(False, leds, rng, t, cpu, k)
        a = verdict_ms(True, leds, rng, t, cpu, k)
        rejected.append(d + r)
        accepted.append(d + a)
        for k, v in enumerate((wait, debounce, last, r, a)):
            parts[k] += v
    names = ("first_sighting", "debounce", "read_poll", "verdict_rejected", "verdict_accepted")
    return {"cycle_ms": round(cycle, 1), "rejected": summary(rejected), "accepted": summary(accepted),
            "mean_parts_ms": {k: round(v / trials, 1) for k, v in zip(names, parts)}}


@dataclass
class Model:
    """The whole grid: buses x reader counts x RP2040 factor."""

    driver: Mapping[str, Any]
    rules: Mapping[str, Sequence[float]]
    place_polls: int = 2
    occupancy: float = 0.5
    trials: int = 2000
    timing: Timing = field(default_factory=Timing)

    def cpu(self, factor: float) -> Cpu:
        return Cpu.scaled(factor, self.driver, self.rules)

    def grid(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for b, bus in enumerate(BUSES):
            per: dict[str, Any] = {}
            for name, factor in RP2040_FACTORS.items():
                cpu = self.cpu(factor)
                counts = READERS if name == "nominal" else (2, 4, 8, 12, 16)
                per[name] = {str(n): simulate(n, bus, cpu, self.trials if name == "nominal" else self.trials // 2,
                                              seed=1000 * b + n, place_polls=self.place_polls,
                                              occupancy=self.occupancy, t=self.timing)
                             for n in counts}
            # the worst table: every other pad holds a card, slow CPU
            cpu = self.cpu(RP2040_FACTORS["slow"])
            per["full_table_slow"] = {"8": simulate(8, bus, cpu, self.trials, seed=7000 + b,
                                                    place_polls=self.place_polls, occupancy=1.0, t=self.timing)}
            out[bus.key] = per
        return out

    def what_if(self, readers: int = 8) -> dict[str, Any]:
        """The same table (I2C, nominal factor) with one thing changed at a time."""
        import dataclasses

        bus = BUSES[0]
        cpu = self.cpu(RP2040_FACTORS["nominal"])
        t = self.timing
        cases: dict[str, dict[str, Any]] = {
            "as_built": dict(focus="edge"),  # the seat to play's pad armed (its IRQ line wired)
            "seat_pad_without_irq_line": dict(),  # its reader polled between every two others
            "no_focus_polling": dict(focus="off"),
            "a_play_out_of_turn": dict(focus="other"),
            "second_sighting_confirms": dict(read_confirms=False),
            "focus_field_left_on": dict(field_on=True),
            "played_pads_every_lap": dict(rare_occupied=False),
            "status_every_1_ms": dict(t=dataclasses.replace(t, sleep=1.0)),
            "pn532_lists_a_tag_in_up_to_15_ms": dict(t=dataclasses.replace(t, **LIST_TAG_SLOW)),
            # the armed pad's card at the ISO bound every time (the model samples up to it)
            "armed_card_ready_after_the_whole_5_ms": dict(focus="edge", t=dataclasses.replace(t, power_up=(5.0, 5.0))),
            "armed_answer_without_a_second_tag_search": dict(focus="edge", t=dataclasses.replace(t, armed_second=(0.0, 0.0))),
            "debounce_1_poll": dict(place_polls=1),
            "empty_table": dict(occupancy=0.0),
            "only_3_readers_no_focus": dict(n=3, focus="off"),
        }
        out = {}
        for i, (name, kw) in enumerate(cases.items()):
            args: dict[str, Any] = dict(n=readers, place_polls=self.place_polls, occupancy=self.occupancy,
                                        t=t, leds=readers)  # (a case may replace t)
            args.update(kw)
            n = args.pop("n")
            res = simulate(n, bus, cpu, self.trials, seed=8000 + i, **args)
            out[name] = {"rejected_p99": res["rejected"]["p99"], "accepted_p99": res["accepted"]["p99"],
                         "rejected_p95": res["rejected"]["p95"], "accepted_p95": res["accepted"]["p95"],
                         "rejected_p50": res["rejected"]["p50"], "accepted_p50": res["accepted"]["p50"]}
        return out

    def board(self, kind: str, hz: int, readers: int, leds: int, seed: int, focus: str = "on",
              armed: int = 0, idle: int = 0, cpu: Cpu | None = None) -> dict[str, Any]:
        bus = i2c_bus(hz) if kind == "i2c" else spi_bus(hz)
        cpu = cpu or self.cpu(RP2040_FACTORS["nominal"])
        res = simulate(readers, bus, cpu, self.trials, seed=seed, place_polls=self.place_polls,
                       occupancy=self.occupancy, leds=leds, t=self.timing, focus=focus, armed=armed, idle=idle)
        res["bus"] = bus.label
        return res


def board_cpu(cpu: Cpu, bus: Bus, steps_ms: Sequence[float], polls_ms: Sequence[float],
              verdicts_ms: Sequence[float], edge_ms_: Sequence[float] = (), named_ms: Sequence[float] = (),
              verdicts_new: Sequence[float] = ()) -> Cpu:
    """The CPU terms of the model as the rp2 board measured them (bench/rp2latency.py), on its
    emulated clock: a whole step with an empty poll, the focus reader's sighting poll, and the
    time from that poll's last bus transaction to the LED frame (edge_ms_: the same "poll" of
    an armed reader, its answer read and READ; named_ms: the same for a card named by its UID,
    its answer read alone; verdicts_ms: the cards named by their UID where named_ms is given,
    verdicts_new the cards READ). The PN532 and wire time the model counts itself (with the
    emulator's own timing) is taken off."""
    t = emulated_timing()
    rng = random.Random(0)
    zero = Cpu(cpu.factor, {bus.cpu: {"empty": 0.0, "tag": 0.0, "read": 0.0}}, 0.0, [0.0], [0.0], [0.0], [0])
    step = max(0.0, _median(steps_ms) - poll_ms(bus, "empty", rng, t, zero))
    read = max(0.0, _median(polls_ms) - poll_ms(bus, "read2", rng, t, zero))
    byte = bus.byte_us / 1000
    answer = bus.switch * byte + (bus.head + bus.status + LIST2[1]) * byte  # the armed answer read
    if edge_ms_:  # the armed reader's answer read at its edge, then the READ (edge_ms's last part)
        read = max(0.0, _median(edge_ms_) - answer - exchange(bus, READ, t.read[0], rng, t))
    poll = dict(cpu.poll)
    poll[bus.cpu] = {"empty": step, "tag": step, "read": read}
    if named_ms:
        poll[bus.cpu]["named"] = max(0.0, _median(named_ms) - answer)
    # (a split poll's every step costs the whole step's CPU: `loop`, an upper bound, as the
    # measured step also holds the driver's CPU of a whole poll)
    return Cpu(cpu.factor, poll, 0.0, cpu.check, cpu.action, cpu.view, cpu.view_len, list(verdicts_ms), step,
               list(verdicts_new) or None)


def _median(xs: Sequence[float]) -> float:
    s = sorted(xs)
    return s[len(s) // 2] if s else 0.0


def parameters(model: Model) -> dict[str, Any]:
    """The model's inputs, for the JSON."""
    t = model.timing
    return {
        "place_polls": model.place_polls,
        "focus": "the card's zone is the scanner's focus (the seat to play), polled between every two others",
        "occupancy": model.occupancy,
        "trials": model.trials,
        "rp2040_factors": RP2040_FACTORS,
        "buses": {b.key: {"label": b.label, "byte_us": round(b.byte_us, 3)} for b in BUSES},
        "timing_ms": {k: getattr(t, k) for k in t.__dataclass_fields__},
        "commands_bytes": {"list": LIST, "rf_off": RF_OFF, "read": READ, "ack": ACK_BYTES},
        "driver_wasm_ns": {bus: {k: model.driver[bus][k]["ns"] for k in ("empty", "tag", "read")}
                           for bus in ("i2c", "spi")},
        "step_wasm_ns": (model.driver.get("step") or {}).get("ns"),
    }


def place_polls_default() -> tuple[int, str]:
    """The scanner's debounce count as the firmware sets it (2 if it cannot be read)."""
    import inspect

    for modname, clsname in (("cardtable.table.controller", "Controller"), ("cardtable.table.scanner", "Scanner")):
        try:
            mod = __import__(modname, fromlist=[clsname])
            p = inspect.signature(getattr(mod, clsname).__init__).parameters.get("place_polls")
            if p is not None and isinstance(p.default, int):
                return p.default, f"{modname}.{clsname}(place_polls={p.default})"
        except Exception:  # noqa: BLE001 - fall back to the documented default
            continue
    return 2, "default (scanner not importable)"


def longest_game(name: str, seats: int, seeds: Sequence[int], max_actions: int) -> tuple[int, list[tuple], int]:
    """(seed, actions, k) of the longest seeded bot game: k = the actions after the table's
    last undo checkpoint at its end (one at each deal and every SINCE_MAX actions, as
    controller.play takes them), which an undo there replays."""
    from cardtable import games
    from cardtable.rng import Random
    from cardtable.table.controller import SINCE_MAX

    best: tuple[int, list[tuple], int] = (0, [], 0)
    for seed in seeds:
        g = games.load(name, seats=seats)
        g.keep_history = False
        rng = Random(seed)
        acts: list[tuple] = []
        k = 0
        while not g.over and len(acts) < max_actions:
            a = g.bot_action(rng)
            if g.check(a):
                continue
            if a[1] == "deal" or k >= SINCE_MAX:
                k = 0
            g._apply(a)
            acts.append(a)
            k += 1
        if len(acts) > len(best[1]):
            best = (seed, acts, k)
    return best


def since_at_end(name: str, seats: int, seeds: Sequence[int], max_actions: int) -> tuple[int, int, int]:
    """(seed, actions, k) of the longest seeded bot game (see longest_game)."""
    seed, acts, k = longest_game(name, seats, seeds, max_actions)
    return seed, len(acts), k


def undo_ms(k: int, apply_ms: float, t: Timing = Timing()) -> float:
    """An undo with k actions since the checkpoint: the state copied back (costed as one
    action), k - 1 actions applied again, and one undo line flushed to flash (an erase)."""
    return t.journal[1] + k * apply_ms


def race(n: int, bus: Bus, cpu: Cpu, trials: int, seed: int, apart_ms: float, rare: int = 0,
         rare_every: int = 8, t: Timing = Timing()) -> float:
    """Two centre plays on two different foundation readers apart_ms apart on a Nerts table of
    n readers, no focus, `rare` of them idle (polled every rare_every-th lap): the fraction of
    trials in which the earlier play gets the earlier first-sighting time (the t the rules
    judge the race by; a tie is decided by which is read first, half the time)."""
    rng = random.Random(seed)
    busy = n - rare
    good = 0.0
    for _ in range(trials):
        a, b = rng.sample(range(busy), 2)  # the two foundations
        land_a = rng.uniform(0, 300.0)
        land_b = land_a + apart_ms
        seen = {a: -1.0, b: -1.0}
        now = 0.0
        i = rng.randrange(n)
        lap = rng.randrange(rare_every)
        while seen[a] < 0 or seen[b] < 0:
            if i >= busy and lap % rare_every:
                pass  # an idle pad skipped this lap
            else:
                for r, land in ((a, land_a), (b, land_b)):
                    if i == r and seen[r] < 0 and now >= land:
                        seen[r] = now
                kind = "tag" if i in (a, b) and seen.get(i, -1) >= 0 else "empty"
                now += poll_ms(bus, kind, rng, t, cpu)
            i += 1
            if i == n:
                i = 0
                lap += 1
        ta, tb = int(seen[a]), int(seen[b])  # ticks_ms
        good += 1.0 if ta < tb else 0.5 if ta == tb else 0.0
    return good / trials


def deal_reads(n: int, bus: Bus, cpu: Cpu, trials: int, seed: int, dwell_ms: float = 120.0,
               t: Timing = Timing()) -> dict[str, Any]:
    """Cards dealt across the deal pad (the scanner's focus while a deal is due) on a table of
    n readers, each over the pad for dwell_ms: the time from a card reaching the pad to its
    READ done (it must be done before the card leaves: else it is missed), and the dealing
    rate that leaves no card missed. A card is never doubled: the scanner reports a UID once
    while it lies there, and a new UID is a new card."""
    rng = random.Random(seed)
    cycle = mean_cycle(n, bus, t, cpu, 0.0, rng)
    done = []
    for _ in range(trials):
        wait, debounce, last = detect_ms(n, bus, rng, t, cpu, 2, 0.0, cycle, "on")
        done.append(wait + debounce + last)
    s = summary(done)
    missed = sum(1 for x in done if x > dwell_ms) / trials
    # one card after another: the next may reach the pad once the last is read and gone
    return {"dwell_ms": dwell_ms, "read_ms": s, "missed_at_dwell": missed,
            "cards_per_s_at_p99": round(1000.0 / max(s["p99"], dwell_ms), 1)}
