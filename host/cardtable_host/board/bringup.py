"""A guided first power-up (`cardtable doctor --bringup`): one zone at a time, a card read on
each reader (its read time), each zone's LED seen by the maker, then each button pressed and
each encoder turned (the table reports them instead of playing them), the buzzer heard, and
what to measure where a step fails."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from cardtable.table import config
from cardtable_host.board.link import CommandError, Link, LinkError

POLL_S = 0.2  # between two looks for the card on the zone being brought up

Say = Callable[[str], None]
Ask = Callable[[str], str | None]


@dataclass
class ZoneResult:
    """What one zone's bring-up found."""

    zone: str
    reader: int
    where: str
    read_ms: float | None = None
    uid: str | None = None
    text: str | None = None
    led: int | None = None
    led_lit: bool | None = None  # None: not asked (no LED, no card code, no answer)
    two_tags: bool | None = None  # the table said two tags when two were laid (None: not tried)
    problem: str | None = None


@dataclass
class InputResult:
    """What one button, encoder or the buzzer's check found."""

    name: str
    kind: str  # "button", "encoder" or "buzzer"
    pins: list[int]
    ok: bool | None = None  # seen (heard) as asked; None: not asked (no answer)
    problem: str | None = None


@dataclass
class Report:
    """The whole walk: a result per zone and per input, and the problems, each naming its part."""

    board: str
    zones: list[ZoneResult] = field(default_factory=list)
    inputs: list[InputResult] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def load_board(name: str, boards_dir: Path) -> config.Board | None:
    """The board file the table runs, for its wiring (None: not in boards_dir)."""
    try:
        return config.load_board(name, str(boards_dir))
    except (config.ConfigError, OSError):
        return None


def where(b: config.Board | None, i: int) -> str:
    """Reader i's wiring in a few words: its mux channel or chip select."""
    if b is None or i >= len(b.readers) or b.readers[i] is None:
        return "reader %d" % i
    return "reader %d on %s" % (i, config.reader_label(b.readers[i]))


def measure(b: config.Board | None, i: int) -> str:
    """What to measure when reader i does not read: its bus lines, power and switch."""
    if b is None or i >= len(b.readers) or b.readers[i] is None:
        return "check its cable, 5 V at the module and its interface switch"
    bus, mux, ch, cs = b.readers[i]
    kind = b.buses[bus]["kind"]
    power = "5 V between the module's VCC and GND (RJ45 pins 4 and 5)"
    if kind == "i2c" and mux is not None:
        return ("at mux 0x%02x: SD%d and SC%d idle at 3.3 V (about 2 V: the channel has no"
                " pull-ups of its own); %s; the module's switch at I2C" % (mux, ch, ch, power))
    if kind == "i2c":
        return "SDA GP%d and SCL GP%d idle at 3.3 V; %s; the module's switch at I2C" % (
            b.buses[bus]["sda"], b.buses[bus]["scl"], power)
    if kind == "spi":
        return ("its chip select GP%d idles at 3.3 V (its 10 kohm pull-up); MISO GP%d at the"
                " Pico never above 3.3 V; %s; the module's switch at SPI" % (
                    cs, b.buses[bus]["miso"], power))
    return "TX and RX crossed to the Pico's UART pins; %s" % power


def _down(health: dict[str, Any]) -> dict[str, str]:
    return {str(r.get("zone")): str(r.get("error") or "it does not answer")
            for r in health.get("readers") or [] if not r.get("up")}


def _wait_card(link: Link, zone: str, wait_s: float) -> tuple[dict[str, Any] | None, float, str | None]:
    """Look for a tag on zone until one answers: (the tag reply, its round trip in ms, an
    error); the reply is None if no card came within wait_s."""
    deadline = time.monotonic() + wait_s
    err = None
    while True:
        t0 = time.monotonic()
        try:
            r = link.tag(zone)
        except CommandError as e:
            r, err = None, e.msg
            if not e.reply.get("tag"):  # the reader failed or is down: no use waiting
                return None, 0.0, err
        ms = (time.monotonic() - t0) * 1000
        if r is not None and r.get("uid"):
            return r, ms, None
        if time.monotonic() >= deadline:
            return None, 0.0, err
        time.sleep(POLL_S)


def _yes(answer: str | None) -> bool | None:
    if answer is None:
        return None
    a = answer.strip().lower()
    if a in ("y", "yes", ""):
        return True
    if a in ("n", "no"):
        return False
    return None


def walk(link: Link, boards_dir: Path, say: Say, ask: Ask, wait_s: float = 120.0,
         two: bool = True) -> Report:
    """Bring the table up zone by zone over link; say() prints, ask() reads the maker's answer
    (None: none given); two: the two-tag check on each zone too."""
    hello = link.hello()
    cfg = link.config()
    name = str(hello.get("board"))
    b = load_board(name, boards_dir)
    roles = cfg.get("zones") or {}
    rep = Report(name)
    health = link.health()
    order = [str(r.get("zone")) for r in health.get("readers") or []]
    down = _down(health)
    say("bring-up of %s: %d readers, one zone at a time" % (name, len(order)))
    try:
        for i, zone in enumerate(order):
            role = roles.get(zone)
            z = ZoneResult(zone, i, where(b, i), led=b.zone_led.get(zone) if b else None)
            rep.zones.append(z)
            label = "zone %s%s, %s" % (zone, " (%s)" % role if role else "", z.where)
            if i:
                down = _down(link.health())  # (one may have gone down since)
            if zone in down:
                z.problem = "%s is down (%s): measure %s" % (label, down[zone], measure(b, i))
                say("%s: DOWN, skipped" % label)
                continue
            _zone(link, b, z, label, say, ask, wait_s, two)
    finally:
        try:
            link.tag(done=True)  # zone events are plays again
        except (LinkError, CommandError):
            pass
    inputs(link, rep, say, ask, wait_s)
    for z in rep.zones:
        if z.problem:
            rep.problems.append(z.problem)
    rep.problems += led_problems(rep.zones)
    rep.problems += [x.problem for x in rep.inputs if x.problem]
    return rep


def _zone(link: Link, b: config.Board | None, z: ZoneResult, label: str, say: Say, ask: Ask,
          wait_s: float, two: bool) -> None:
    """One zone that answers: a card read on it, its LED flashed, then two tags laid together."""
    zone, i = z.zone, z.reader
    say("%s: lay any tagged card on it" % label)
    r, ms, err = _wait_card(link, zone, wait_s)
    if r is None:
        z.problem = "%s read no card%s: measure %s" % (
            label, " (%s)" % err if err else " in %g s" % wait_s, measure(b, i))
        say("  no card read: %s" % (err or "timed out"))
        return
    z.read_ms, z.uid, z.text = round(ms, 1), r.get("uid"), r.get("text")
    say("  read in %.0f ms: tag %s, %s" % (ms, z.uid, "card %s" % z.text if z.text
                                            else "no card code (%s)" % r.get("why")))
    if z.led is not None and z.text:
        _flash_led(link, z, say, ask)
    if two:
        _two_tags(link, z, label, say, wait_s)
        return
    say("  lift the card")


def _flash_led(link: Link, z: ZoneResult, say: Say, ask: Ask) -> None:
    """Flash the zone's LED (its card's own code written back) and ask whether it lit."""
    # Writing the card's own code back makes the table flash the zone's LED.
    try:
        link.tag(z.zone, write=z.text, uid=z.uid)
    except CommandError as e:
        say("  (could not flash its LED: %s)" % e.msg)
    else:
        z.led_lit = _yes(ask("  did LED %d flash green at zone %s? [y/n] " % (z.led, z.zone)))


def _two_tags(link: Link, z: ZoneResult, label: str, say: Say, wait_s: float) -> None:
    """Two tags laid on the zone together must be reported as a fault (a weak field misses them)."""
    zone = z.zone
    link.tag(done=True)  # the table watches the zone again: two tags are a fault
    say("  lift it, then lay two tagged cards on it together")
    z.two_tags = link.wait_for(lambda m, zn=zone: m.get("type") == "fault" and m.get(
        "kind") == "two_tags" and m.get("zone") == zn, wait_s) is not None
    if z.two_tags:
        say("  two tags seen: nothing played")
    else:
        z.problem = ("%s did not report two tags laid together within %g s: lay them"
                     " squarely on the pad; a reader that never counts two has a weak"
                     " field (metal under the pad, a module detuned or too deep under"
                     " the felt)" % (label, wait_s))
        say("  no two tags seen")
    say("  lift both cards")


def _gp(pins: list[int]) -> str:
    return " and ".join("GP%d" % p for p in pins)


def inputs(link: Link, rep: Report, say: Say, ask: Ask, wait_s: float) -> None:
    """Each button pressed and each encoder turned in bring-up mode (the table reports them and
    plays nothing), then the buzzer sounded; the results go into rep.inputs."""
    try:
        info = link.bringup(on=True)
    except CommandError as e:
        rep.inputs.append(InputResult("buttons", "button", [], problem=(
            "buttons and buzzer not checked: the firmware has no bringup command (%s); flash the"
            " current firmware (`cardtable flash`)" % e.msg)))
        return
    buttons = {str(k): int(v) for k, v in (info.get("buttons") or {}).items()}
    encoders = {str(k): [int(p) for p in v] for k, v in (info.get("encoders") or {}).items()}
    try:
        for name in sorted(buttons, key=lambda n: (buttons[n], n)):
            rep.inputs.append(_button(link, say, name, buttons, wait_s))
        for name in sorted(encoders):
            rep.inputs.append(_encoder(link, say, name, encoders[name], wait_s))
    finally:
        try:
            link.bringup(on=False)  # presses are plays again
        except (LinkError, CommandError):
            pass
    if info.get("piezo") is not None:
        rep.inputs.append(_buzzer(link, say, ask, int(info["piezo"])))


def _pressed(link: Link, wait_s: float) -> dict[str, Any] | None:
    return link.wait_for(lambda m: m.get("type") == "bringup", wait_s)


def _button(link: Link, say: Say, name: str, buttons: dict[str, int], wait_s: float) -> InputResult:
    gp = buttons[name]
    x = InputResult(name, "button", [gp])
    say("button %s (GP%d): press it" % (name, gp))
    m = _pressed(link, wait_s)
    if m is not None and m.get("button") == name:
        x.ok = True
        say("  seen")
        return x
    x.ok = False
    other = m.get("button") if m is not None else None
    if isinstance(other, str) and other in buttons:
        x.problem = ("button %s (GP%d): the table saw button %s (GP%d) instead: their wires are"
                     " swapped at the Pico, or the wrong button was pressed" % (
                         name, gp, other, buttons[other]))
        say("  saw %s instead" % other)
    else:
        x.problem = ("button %s (GP%d) was not seen within %g s: measure GP%d to GND at the Pico,"
                     " 3.3 V released and 0 V pressed (the button between GP%d and GND)" % (
                         name, gp, wait_s, gp, gp))
        say("  not seen")
    return x


def _encoder(link: Link, say: Say, name: str, pins: list[int], wait_s: float) -> InputResult:
    x = InputResult(name, "encoder", pins)
    say("encoder %s (A %s): turn it one detent clockwise" % (name, _gp(pins)))
    m = _pressed(link, wait_s)
    steps = m.get("steps") if m is not None and m.get("encoder") == name else None
    x.ok = isinstance(steps, int) and steps > 0
    if x.ok:
        say("  seen")
    elif isinstance(steps, int) and steps < 0:
        x.problem = ("encoder %s turned clockwise counts backwards: swap its A and B wires (%s)"
                     % (name, _gp(pins)))
        say("  seen backwards")
    else:
        x.problem = ("encoder %s was not seen turning within %g s: measure %s to GND at the Pico"
                     " (3.3 V and 0 V in turn as it turns; its common pin on GND)" % (
                         name, wait_s, _gp(pins)))
        say("  not seen")
    return x


def _buzzer(link: Link, say: Say, ask: Ask, gp: int) -> InputResult:
    x = InputResult("piezo", "buzzer", [gp])
    try:
        link.bringup(beep=True)
    except CommandError as e:
        x.ok = False
        x.problem = "the buzzer (GP%d) could not be sounded: %s" % (gp, e.msg)
        return x
    x.ok = _yes(ask("buzzer (GP%d): did it play four rising notes? [y/n] " % gp))
    if x.ok is False:
        x.problem = ("the buzzer (GP%d) did not sound: the piezo between GP%d and GND (polarity"
                     " as marked), a passive piezo (an active buzzer needs its own drive)" % (gp, gp))
    return x


def led_problems(zones: list[ZoneResult]) -> list[str]:
    """The LED chain's faults from the maker's answers: where a chain stops, or a lone LED."""
    seen = sorted((z.led, z.led_lit, z.zone) for z in zones if z.led is not None and z.led_lit is not None)
    out = []
    for k, (led, lit, zone) in enumerate(seen):
        if lit:
            continue
        later = [x for x in seen[k + 1:]]
        if later and not any(x[1] for x in later) or not later:
            prev = max((x[0] for x in seen[:k] if x[1]), default=None)
            if prev is None and led == 0:
                fix = ("check the data line: the Pico's pin, the 74AHCT125 (1OE at 0 V), the"
                       " 330 ohm, DIN of LED 0, and 5 V and GND at LED 0")
            else:
                fix = ("the chain stops %s: check DOUT of LED %d to DIN of LED %d, and 5 V and"
                       " GND at LED %d" % ("between LED %d and LED %d" % (led - 1, led), led - 1,
                                           led, led))
            out.append("LED chain stuck at LED %d (zone %s)%s: %s" % (
                led, zone, " and every LED after it" if later else "", fix))
            break
        out.append("LED %d (zone %s) did not light while the LEDs after it did: the LED itself,"
                   " or its 5 V and GND" % (led, zone))
    return out
