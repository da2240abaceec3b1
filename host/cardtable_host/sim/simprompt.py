"""The sim> prompt of `cardtable sim`: a person plays the seats no bot takes, in a player's words."""
from __future__ import annotations

import json
import os
import select
import sys
from typing import Any

from cardtable import record

from cardtable_host.board.link import CommandError, LinkError
from cardtable_host.sim.board import BoardError
from cardtable_host.sim.bots import Bots, SimError
from cardtable_host.sim.table import FOREIGN

HELP = """\
commands (you play the seats no bot takes; cards as AS 10H KD, suits by their letter):
  play CARD [SEAT]     lay a card on your play zone             hand [SEAT]   your cards
  bid N   /   pass     bid (Forty-Fives 15..30, Nonesuch some, most or none), or pass
  trump SUIT           name trump                     suit SUIT   the suit your next lead names
  discard [CARD ...]   discard those cards face down (none: keep your hand)
  excuse               Nonesuch: show the Excuse and take the up card
  press WHAT           press a button by what it does: press bid 20, press confirm, press undo
  buttons              the table's buttons and what each one does
  place ZONE CARD      lay a tag on a zone (CARD may be bank, junk or blank)    lift ZONE
  turn ENCODER STEPS   turn an encoder           kill ZONE / revive ZONE   cut / mend a reader
  state                the board's spectator view               quit   end the simulation"""

USAGE = {
    "play": "play CARD [SEAT]", "bid": "bid N", "trump": "trump SUIT", "suit": "suit SUIT",
    "place": "place ZONE CARD", "lift": "lift ZONE", "press": "press WHAT (e.g. press bid 20)",
    "turn": "turn ENCODER STEPS", "kill": "kill ZONE", "revive": "revive ZONE",
    "hand": "hand [SEAT]", "act": "act JSON",
}
_MIN_ARGS = {"play": 1, "bid": 1, "trump": 1, "suit": 1, "place": 2, "lift": 1, "press": 1,
             "turn": 2, "kill": 1, "revive": 1, "act": 1}
_MAX_ARGS = {"play": 2, "bid": 1, "trump": 1, "suit": 1, "place": 2, "lift": 1, "turn": 2,
             "kill": 1, "revive": 1, "hand": 1, "pass": 0, "excuse": 0, "buttons": 0,
             "state": 0, "quit": 0, "exit": 0, "help": 0, "?": 0}
_LIST_MAX = 14  # choices named in a turn note before "..."


_GAME_WORDS = ("bid", "pass", "excuse", "trump", "discard", "suit", "press", "buttons")
_TABLE_WORDS = ("place", "lift", "turn", "kill", "revive", "act")


class Usage(ValueError):
    """A command typed without what it needs."""


class People:
    """The sim> prompt for the seats no bot plays (show: the simulator's printer)."""

    def __init__(self, bots: Bots, show: Any, vb: Any) -> None:
        self.bots = bots
        self.show = show
        self.vb = vb
        self.quit = False
        self.buf = ""
        self.people = [s for s in range(bots.seats) if s not in bots.bots]
        self.announced: Any = None  # the (seq, turn) last announced

    # -- the terminal -------------------------------------------------------------------

    def prompt(self) -> None:
        if not self.show.json and not self.show.prompting:
            sys.stdout.write("sim> ")
            sys.stdout.flush()
            self.show.prompting = True

    def poll(self) -> None:
        """Read and run the commands typed so far (never blocks); say when a person is to act."""
        try:
            r, _, _ = select.select([sys.stdin], [], [], 0)
        except (OSError, ValueError):
            r = []
        if r:
            data = os.read(sys.stdin.fileno(), 4096).decode(errors="replace")
            if not data:
                self.quit = True
                return
            self.buf += data
            while "\n" in self.buf and not self.quit:
                line, self.buf = self.buf.split("\n", 1)
                self.show.prompting = False  # the person's Enter ended the prompt's line
                self.command(line.strip())
                if not self.quit:
                    self.prompt()
        if not self.quit:
            self.announce()
            if self.show.tty:
                self.prompt()  # on a terminal the prompt is cleared before the board's lines

    def command(self, line: str) -> None:
        """Run one typed line; whatever goes wrong is said, and the game goes on."""
        try:
            self.run(line)
        except Usage as e:
            self.show.line("usage: %s" % e)
        except CommandError as e:
            if self.show.quiet:  # else the board's verdict says it, with the action
                self.show.line(self.show.paint("rejected: %s" % e.msg, "red"))
        except (ValueError, KeyError, IndexError, TypeError, BoardError, LinkError, SimError) as e:
            self.show.line(self.show.paint("error: %s" % e, "red"))

    # -- whose turn ---------------------------------------------------------------------

    def announce(self) -> None:
        """Say once per turn when one of the people is to act, and what they may do."""
        g = self.bots.shadow
        if g is None or g.over or g.dealing:
            return
        mine = [s for s in g.turn if s in self.people]
        # Everyone at once (Nerts): once per hand, not after every card of the others.
        hand = getattr(g, "hand_no", 0)
        key = (hand, tuple(g.turn)) if len(g.turn) > 1 else (self.bots.applied, tuple(g.turn))
        if not mine or key == self.announced:
            return
        self.announced = key
        for seat in mine:
            self.show.line(self.show.paint("seat %d, your turn: %s" % (seat, choices(g, seat)), "bold"))
        self.prompt()

    def _seat(self, what: str) -> int:
        g = self.bots.shadow
        mine = [s for s in g.turn if s in self.people] if g is not None else []
        if not mine:  # the rules' own words: "not your turn: seat 1 is to name trump"
            raise ValueError("not your turn to %s: %s" % (
                what, g.to_act() if g is not None and g.turn else "nobody is to act now"))
        return mine[0]

    # -- commands -----------------------------------------------------------------------

    def run(self, line: str) -> None:
        """Run one command line typed at the sim> prompt."""
        if not line:
            return
        word, _, rest = line.partition(" ")
        word = word.lower()
        args = rest.split()
        if word in _MIN_ARGS and len(args) < _MIN_ARGS[word] \
                or word in _MAX_ARGS and len(args) > _MAX_ARGS[word]:
            raise Usage(USAGE.get(word, word))
        if word in ("help", "?"):
            self.show.line(HELP)
        elif word in ("quit", "exit"):
            self.quit = True
        elif word == "play":
            self._play(args)
        elif word in _GAME_WORDS:
            self._game_word(word, args, rest)
        elif word in _TABLE_WORDS:
            self._table_word(word, args, rest)
        elif word == "hand":
            self._hand(args)
        elif word == "state":
            from cardtable.games import words

            view = self.bots.link.state().get("view") or {}
            self.show.line("\n".join("%s: %s" % (str(k).replace("_", " "), words.plain(v)) for k, v in view.items()))
        else:
            raise ValueError("unknown command %r (try help)" % word)

    def _play(self, args: list[str]) -> None:
        """play CARD [SEAT]: lay the card on the seat's play zone (the seat to play by default)."""
        b = self.bots
        g = b.shadow
        seat = _int(args[1], "SEAT") if len(args) > 1 else (
            g.turn[0] if g is not None and g.turn else self.people[0])
        zone = b.table.zone("play", seat)
        if zone is None:
            raise ValueError("this layout has no play zone for seat %d" % seat)
        before = (b.applied, getattr(self.show, "heard", 0))
        b.table.lay(zone, args[0])
        b.settle(0.3)
        b.table.lift(zone, wait=False)
        if (b.applied, getattr(self.show, "heard", 0)) == before:
            self.show.line(self.show.paint(
                "the table took no play of %s at seat %d's zone: it is not that seat's turn to play, or the "
                "card is one the table has seen played already (each card is played once)" % (args[0], seat),
                "yellow"))

    def _game_word(self, word: str, args: list[str], rest: str) -> None:
        """A game's own words (bid, pass, trump, discard, suit) and the table's buttons."""
        g = self.bots.shadow
        if word == "bid":
            self._act("bid", "bid", bid=int(args[0]) if args[0].isdigit() else args[0].lower())
        elif word in ("pass", "excuse"):
            self._act(word, word)
        elif word == "trump":
            self._act("name trump", "trump", suit=_suit(g, args[0]))
        elif word == "discard":
            self._act("discard", "discard", cards=[_code(g, c) for c in args])
        elif word == "suit":
            self.press("suit %s" % _suit(g, args[0]))
        elif word == "press":
            self.press(rest.strip())
        else:  # buttons
            self.show.line(buttons_text(self.bots.table.layout))

    def _table_word(self, word: str, args: list[str], rest: str) -> None:
        """Hands on the table: lay or lift a tag, turn an encoder, cut or mend a reader, send an action."""
        t = self.bots.table
        if word == "place":
            if args[1] in FOREIGN:
                t.lay_tag(args[0], FOREIGN[args[1]])
            else:
                t.lay(args[0], args[1])
        elif word == "lift":
            t.lift(args[0])
        elif word == "turn":
            self.vb.turn(args[0], _int(args[1], "STEPS"))
        elif word == "kill":
            self.vb.kill_reader(args[0])
        elif word == "revive":
            self.vb.revive_reader(args[0])
        else:  # act
            self.bots.send(json.loads(rest))

    def _hand(self, args: list[str]) -> None:
        """hand [SEAT]: the seat's hand as the host's copy of the game knows it."""
        g = self.bots.shadow
        seat = _int(args[0], "SEAT") if args else self.people[0]
        view = g.view(seat) if g is not None else {}
        hand = view.get("hand")
        self.show.line("seat %d: %s" % (seat, " ".join(hand) if hand else "(no hand known)"))

    def _act(self, what: str, verb: str, **fields: Any) -> None:
        g = self.bots.shadow
        if g is None or verb not in g.VERBS:
            raise ValueError("%s has no %r" % (g.ID if g is not None else "this game", verb))
        obj = {"seat": self._seat(what), "act": verb}
        obj.update(fields)
        self.bots.send(obj)
        self.bots.settle(0.2)

    def press(self, meaning: str) -> None:
        """Press a button by what it does (or by its name on the board)."""
        t = self.bots.table
        name = meaning if meaning in t.layout.buttons else t.button(meaning)
        if name is not None:
            self.vb.press(name)
        else:  # no such button on this table: the board presses it for us
            self.bots.link.press(meaning)
        self.bots.settle(0.2)


def choices(g: Any, seat: int) -> str:
    """What seat may do now, in the prompt's words: 'bid 15, 20 or pass'."""
    legal = g.legal(seat)
    by: dict[str, list[str]] = {}
    for a in legal:
        obj = record.encode(g, a)
        verb = obj.get("act")
        if verb == "play":
            by.setdefault("play", []).append(obj["card"] + (" (suit %s)" % obj["suit"] if "suit" in obj else ""))
        elif verb == "bid":
            by.setdefault("bid", []).append(str(obj["bid"]))
        elif verb == "trump":
            by.setdefault("trump", []).append(obj["suit"])
        elif verb == "discard":
            by.setdefault("discard", []).append(str(len(obj["cards"])))
        else:
            by.setdefault(verb, [])
    parts = []
    for verb, items in by.items():
        uniq = list(dict.fromkeys(items))
        if verb == "discard":
            n = sorted(int(i) for i in uniq)
            parts.append("discard %s of your cards (discard CARD ...)" % (
                n[0] if n[0] == n[-1] else "%d to %d" % (n[0], n[-1])))
        elif uniq:
            shown = uniq[:_LIST_MAX] + (["..."] if len(uniq) > _LIST_MAX else [])
            parts.append("%s %s" % (verb, " | ".join(shown)))
        else:
            parts.append(verb)
    return "; ".join(parts) if parts else "wait (nothing the table knows of is legal for you now)"


def buttons_text(layout: Any) -> str:
    """The layout's buttons by what they do."""
    rows = []
    for name in sorted(layout.buttons):
        verb, arg = layout.buttons[name]
        rows.append("  %-14s (button %s)" % (verb if arg is None else "%s %s" % (verb, arg), name))
    if not rows:
        return "this table has no buttons: type bid, pass, trump ... (help)"
    return "press WHAT, e.g. press %s:\n%s" % (rows[0].split("(")[0].strip(), "\n".join(rows))


def _suit(g: Any, text: str) -> str:
    """A suit's letter from its letter or its name ('W' for waves), or ValueError naming the suits."""
    if g is None:
        return text.upper()
    try:
        return str(g.deck.fmt_suit(g.deck.parse_suit(text)))
    except Exception:  # noqa: BLE001 - BadCard and friends
        names = getattr(g.deck, "SUIT_NAMES", ()) or ()
        raise ValueError("%r is not a suit of the %s deck%s" % (
            text, g.ID, " (suits: %s)" % ", ".join(names) if names else "")) from None


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise Usage("%s must be a whole number, not %r" % (what, text)) from None


def _code(g: Any, text: str) -> str:
    """A card's canonical code, or ValueError naming the bad card."""
    try:
        return str(g.deck.fmt(g.deck.parse(text)))
    except Exception:  # noqa: BLE001 - BadCard and friends
        raise ValueError("%r is not a card of the %s deck" % (text, g.ID)) from None
