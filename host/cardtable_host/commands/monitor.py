"""`cardtable monitor`: the live mirror of the table - state, verdicts, scores, faults."""
from __future__ import annotations

import argparse
import os
import re
import select
import sys
import time
from typing import Any, Callable

from cardtable import record
from cardtable.games import words

from cardtable_host.board import boardfind, portlock
from cardtable_host.errors import USAGE, CardtableError
from cardtable_host.serve.model import Model, at_zone, seat_names
from cardtable_host.term import glyphs, paint, use_colour

DESCRIPTION = """\
A full-screen mirror of the table as a spectator sees it (never a hand or the kitty): the
game and hand, whose turn it is, the cards of the current trick, tricks and scores, every
accepted action and every rejected one with its reason, and reader or journal faults. It
reconnects by itself when the cable is pulled and re-syncs from the board's state.

Keys, for what the table has no buttons for (they act for the seat whose turn it is):
  b  bid: type the bid (15, 20 ... or some / most / none), then Enter
  p  pass            t  trump: then the suit letter (C D H S; Decktet M S W L Y K)
  s  suit: then the letter; presses that suit button (Nonesuch: the suit a lead names)
  u  undo the last action          r  re-sync the state from the board
  q  quit (Esc cancels a half-typed key)
With --plain (or when the output is not a terminal) it prints one line per event instead.
While `cardtable serve` holds the board (the one named with --port, or the only one
running), the monitor follows it instead of opening the port; its keys go through serve.

example:  cardtable monitor
          cardtable monitor --port /dev/ttyACM0 --plain
"""

RECONNECT_S = 0.5
SUITS = {"standard": "CDHS", "decktet": "MSWLYK"}
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


# -- the view as text ---------------------------------------------------------------------

def _seat(view: dict[str, Any], s: Any, names: list[str]) -> str:
    if not isinstance(s, int):
        return str(s)
    name = names[s] if s < len(names) and names[s] else ""
    return "seat %d%s" % (s, " " + name if name else "")


def _cards(pairs: list, names: list[str] | None = None) -> str:
    return ", ".join("%s %s" % (p[1], "(%d)" % p[0]) for p in pairs) or "-"


def table_lines(view: dict[str, Any] | None, names: list[str] | None = None) -> list[str]:
    """The spectator view as lines of plain text (no colour, no width limit)."""
    names = names or []
    if not view:
        return ["(no game state yet)"]
    game = view.get("game", "?")
    g = _game_of(view)
    seats = int(view.get("seats") or 0)
    turn = view.get("turn") or []
    head = [game]
    if "hand_no" in view:
        head.append("hand %s" % view["hand_no"])
    if view.get("phase"):
        head.append(str(view["phase"]))
    if view.get("dealer") is not None:
        head.append("dealer %s" % _seat(view, view["dealer"], names))
    if view.get("trump"):
        head.append("trump %s" % (words.suit_words(g, view["trump"]) if g else view["trump"]))
    elif view.get("no_trump"):
        head.append("no trump")
    if isinstance(view.get("bidder"), int) and view["bidder"] >= 0:  # an auction won
        head.append("bid %s by %s" % (view.get("bid"), _seat(view, view["bidder"], names)))
    lines = ["  ·  ".join(head)]
    if view.get("over"):
        w = view.get("winner")
        lines.append("GAME OVER: %s" % ("a draw" if w is None else _winner(view, w, names)))
    elif turn:
        lines.append("to act: %s" % ", ".join(_seat(view, s, names) for s in turn))
    if "trick" in view:
        lines.extend(_trick_table(view, seats, turn, names))
    elif "parade" in view:  # a parade game (Fairies)
        lines.extend(_fairies(view, names, g))
    elif "nerts_left" in view:  # a race to the centre (Nerts)
        lines.extend(_nerts(view, seats, turn, names))
    lines.extend(_extras(view, g))
    return lines


def _game_of(view: dict[str, Any]) -> Any:
    """The game a view is of, for its words (None if this host does not know it)."""
    from cardtable import games

    gid = view.get("game")
    if not isinstance(gid, str) or gid not in games.GAMES:
        return None
    try:
        g = games.load(gid)
        if isinstance(view.get("seats"), int) and view["seats"] != g.seats:
            g = games.load(gid, seats=view["seats"])
    except (ValueError, TypeError, KeyError):
        return None
    return g


def _winner(view: dict[str, Any], w: int, names: list[str]) -> str:
    if view.get("team_scores") is not None:  # partners share a score
        return "seats %d & %d win" % (w % 2, w % 2 + 2)
    return "%s wins" % _seat(view, w, names)


def _trick_table(view: dict[str, Any], seats: int, turn: list, names: list[str]) -> list[str]:
    trick = {p[0]: p[1] for p in view.get("trick") or []}
    lead = (view.get("trick") or [[None]])[0][0]
    held = view.get("held") or [None] * seats
    won = view.get("tricks_won") or [None] * seats
    scores = view.get("scores") or [None] * seats
    out = ["", "    %-16s %5s %6s %6s   %s" % ("seat", "cards", "tricks", "score", "in the trick")]
    for s in range(seats):
        card = trick.get(s, "")
        if card and s == lead:
            card += " (led)"
        out.append("%s %-16s %5s %6s %6s   %s" % (
            " >" if s in turn else "  ", _seat(view, s, names), _n(held, s), _n(won, s), _n(scores, s), card))
    if view.get("team_scores"):
        ts = view["team_scores"]
        out.append("teams: seats 0 & 2: %s   seats 1 & 3: %s" % (ts[0], ts[1]))
    if view.get("last_trick"):
        out.append("last trick: %s" % _cards(view["last_trick"]))
    return out


def _n(xs: list, i: int) -> str:
    return "" if i >= len(xs) or xs[i] is None else str(xs[i])


def _fairies(view: dict[str, Any], names: list[str], g: Any) -> list[str]:
    out = ["", "nexus:  %s" % (" ".join(view.get("nexus") or []) or "-"),
           "parade: %s%s" % (" ".join(view.get("parade") or []) or "-",
                             "  (seat %s's)" % view["parade_owner"] if view.get("parade_owner") is not None else ""),
           "deck: %s cards   moves: %s   refills: %s" % (view.get("deck"), view.get("moves"), view.get("refills"))]
    zones = view.get("zones") or []
    for s, z in enumerate(zones):
        out.append("%s: holds %s, score zones %s" % (_seat(view, s, names), _n(view.get("held") or [], s),
                                                      words.plain(z)))
    if view.get("scores"):
        out.append("scores: %s" % (words.per_seat(g, view["scores"]) if g is not None else words.plain(view["scores"])))
    return out


def _nerts(view: dict[str, Any], seats: int, turn: list, names: list[str]) -> list[str]:
    clock = view.get("clock")
    out = ["", "round clock: %s s" % ("%.1f" % (clock / 1000) if isinstance(clock, int) else "-"),
           "centre: %s" % (" ".join("%s×%s" % (c, n) for c, n in view.get("center") or []) or "-"),
           "    %-16s %9s %10s %6s" % ("seat", "in centre", "nerts left", "score")]
    inc = view.get("in_center") or []
    left = view.get("nerts_left") or []
    scores = view.get("scores") or []
    for s in range(seats):
        out.append("%s %-16s %9s %10s %6s" % (" >" if s in turn else "  ", _seat(view, s, names),
                                              _n(inc, s), _n(left, s), _n(scores, s)))
    if view.get("caller") is not None:
        out.append("Nerts! called by seat %s" % view["caller"])
    return out


def _extras(view: dict[str, Any], g: Any = None) -> list[str]:
    out = []
    bids = view.get("bids")
    if bids:
        if bids and isinstance(bids[0], list):
            out.append("bids: %s" % ", ".join("seat %s %s" % (s, b) for s, b in bids))
        else:
            out.append("bids: %s" % ", ".join("seat %d %s" % (s, b) for s, b in enumerate(bids) if b is not None))
    facts = []
    for key, label in (("up", "up"), ("kitty_left", "kitty"), ("stock_left", "stock"),
                       ("stock_top", "stock top"), ("led", "led"), ("excuse", "Excuse with seat"),
                       ("round", "round"), ("points", "points")):
        v = view.get(key)
        if v is None or v == [] or key == "round" and not v:
            continue
        if isinstance(v, list) and g is not None and all(type(x) is int for x in v):
            facts.append("%s: %s" % (label, words.per_seat(g, v)))
        else:
            facts.append("%s %s" % (label, words.plain(v)))
    if view.get("trump_broken"):
        facts.append("trump broken")
    if facts:
        out.append("   ".join(facts))
    if view.get("revokes"):
        out.append("revokes proven: %s" % "; ".join(
            "seat %s in trick %s of hand %s" % (r.get("seat"), r.get("trick"), r.get("hand"))
            for r in view["revokes"]))
    if view.get("last_hand"):
        last = view["last_hand"]
        out.append("last hand: %s" % (g.last_hand_words(last) if g is not None else words.plain(last)))
    return out




def render(model: Model, width: int = 80, height: int = 24, colour: bool = False) -> list[str]:
    """The whole screen as at most height lines of at most width columns."""
    cards = _card_glyphs(model, colour)

    def c(text: str, col: str | None) -> str:
        text = cards(text)
        return paint(text, col, colour) if col else text

    hello = model.hello or {}
    title = "cardtable monitor - %s on %s (%s)" % (
        (hello.get("game") or {}).get("game", "no game"), hello.get("board", "?"), model.port)
    state = "live" if model.connected else "OFFLINE"
    top = [_fit(title, width - len(state) - 3) + "  " + c(state, "green" if model.connected else "yellow")]
    if not model.connected:
        top.append(c(_fit(model.status, width), "yellow"))
    body = [cards(_fit(s, width)) for s in table_lines(model.view, model.seat_names)]
    if model.view and model.view.get("over"):
        body = [body[0], c(body[1], "bold")] + body[2:]
    faults = [c(_fit("FAULT %s%s: %s" % (f.get("kind"), at_zone(f), f.get("msg")), width), "yellow")
              for f in model.faults.values()]
    if model.prompt:
        foot = c(_fit("%s: %s_   (Enter sends, Esc cancels)" % (model.prompt, model.entry), width), "bold")
    elif model.note[0]:
        foot = c(_fit(model.note[0], width), model.note[1])
    else:
        foot = c(_fit("keys: b bid  p pass  t trump  s suit  u undo  r re-sync  q quit", width), "dim")
    room = height - len(top) - len(body) - len(faults) - 3
    log = list(model.log)[-room:] if room > 0 else []
    out = top + [""] + body + faults + [c("-" * min(width, 40), "dim")]
    out += [c(_fit(t, width), col) for t, col in log]
    out += [""] * max(0, height - len(out) - 1)
    out.append(foot)
    return out[:height]


def _card_glyphs(model: Model, colour: bool) -> Callable[[str], str]:
    """Card codes with suit glyphs where colour is on and the game plays the standard deck (a
    glyph takes the suit letter's column, so lines keep their width)."""
    game = model.game()
    if not colour or game is None or game.DECK != "standard":
        return lambda text: text
    return glyphs


def _fit(s: str, width: int) -> str:
    return s if len(s) <= width else s[:max(0, width - 1)] + "…"


def plain(text: str) -> str:
    """text without ANSI escapes (tests and logs)."""
    return _ANSI.sub("", text)


# -- keys -> link commands ------------------------------------------------------------------

class Keys:
    """Turns keystrokes into link commands for the seat whose turn it is."""

    def __init__(self, model: Model) -> None:
        self.model = model

    def _seat(self) -> int | None:
        turn = (self.model.view or {}).get("turn") or []
        if len(turn) == 1:
            return turn[0]
        self.model.note = ("nobody is to act alone now: the table must take this" if not turn else
                           "several seats may act: the table must take this", "yellow")
        return None

    def _suits(self) -> str:
        g = self.model.game()
        return SUITS.get(getattr(g, "DECK", "standard"), "CDHS")

    def press(self, ch: str) -> dict[str, Any] | str | None:
        """A command dict to send, "quit", or None (nothing to send yet)."""
        m = self.model
        if m.prompt:
            return self._entry(ch)
        m.note = ("", None)
        if ch in ("q", "Q", "\x03", "\x04"):
            return "quit"
        if ch == "u":
            return {"cmd": "undo"}
        if ch == "r":
            return {"cmd": "state"}
        if ch == "p":
            seat = self._seat()
            return None if seat is None else {"cmd": "act", "action": {"seat": seat, "act": "pass"}}
        if ch in ("b", "t", "s"):
            m.prompt = {"b": "bid", "t": "trump", "s": "suit"}[ch]
            m.entry = ""
            return None
        if ch.isprintable():
            m.note = ("unknown key %r: b bid, p pass, t trump, s suit, u undo, r re-sync, q quit" % ch,
                      "yellow")
        return None

    def _entry(self, ch: str) -> dict[str, Any] | None:
        m = self.model
        if ch in ("\x1b", "\x03"):
            m.prompt, m.entry = None, ""
            return None
        if ch in ("\x7f", "\x08"):
            m.entry = m.entry[:-1]
            return None
        if m.prompt in ("trump", "suit"):
            suit = ch.upper()
            if suit not in self._suits():
                m.note = ("no suit %r here: %s" % (ch, " ".join(self._suits())), "yellow")
                m.prompt = None
                return None
            if m.prompt == "suit":  # the table's suit button, pressed from here: it knows what for
                m.prompt = None
                return {"cmd": "press", "button": "suit " + suit}
            m.prompt = None
            seat = self._seat()
            return None if seat is None else {"cmd": "act", "action": {"seat": seat, "act": "trump", "suit": suit}}
        if ch in ("\r", "\n"):
            text, m.prompt, m.entry = m.entry.strip().lower(), None, ""
            if not text:
                return None
            words = {"s": "some", "m": "most", "n": "none"}
            bid: Any = int(text) if text.isdigit() else words.get(text, text)
            seat = self._seat()
            return None if seat is None else {"cmd": "act", "action": {"seat": seat, "act": "bid", "bid": bid}}
        if ch.isprintable():
            m.entry += ch
        return None


# -- the running monitor ----------------------------------------------------------------------

class Screen:
    """Full-screen redraws with ANSI escapes, or one printed line per event (plain)."""

    def __init__(self, out: Any, plain: bool, colour: bool) -> None:
        self.out = out
        self.plain = plain
        self.colour = colour
        self.printed = 0  # log lines printed so far (plain)
        self.last_status = ""
        self.last: list[str] = []

    def open(self) -> None:
        if not self.plain:
            self.out.write("\x1b[?1049h\x1b[?25l")  # alternate screen, cursor hidden
            self.out.flush()

    def close(self) -> None:
        if not self.plain:
            self.out.write("\x1b[?25h\x1b[?1049l")
            self.out.flush()

    def show(self, model: Model) -> None:
        if self.plain:
            self._lines(model)
            return
        import shutil

        size = shutil.get_terminal_size((100, 30))
        lines = render(model, size.columns, size.lines, self.colour)
        if lines == self.last:
            return
        self.last = lines
        self.out.write("\x1b[H" + "\x1b[K\r\n".join(lines) + "\x1b[K\x1b[J")
        self.out.flush()

    def _lines(self, model: Model) -> None:
        new = model.added - self.printed
        if new > 0:
            cards = _card_glyphs(model, self.colour)
            for text, col in list(model.log)[-min(new, len(model.log)):]:
                print(paint(cards(text), col, self.colour) if col else cards(text), file=self.out)
            self.printed = model.added
        status = status_line(model)
        if status != self.last_status:
            print(status, file=self.out)
            self.last_status = status
        if model.note[0]:
            print(paint(model.note[0], model.note[1], self.colour) if model.note[1] else model.note[0],
                  file=self.out)
            model.note = ("", None)
        self.out.flush()


def status_line(model: Model) -> str:
    """One line for --plain: the link, whose turn, the trick, the scores."""
    if not model.connected:
        return "-- %s" % model.status
    v = model.view or {}
    bits = ["%s hand %s %s" % (v.get("game", "?"), v.get("hand_no", "-"), v.get("phase", "")),]
    if v.get("over"):
        bits.append("GAME OVER: %s" % ("a draw" if v.get("winner") is None else
                                       _winner(v, v["winner"], model.seat_names)))
    elif v.get("turn"):
        bits.append("to act: %s" % " ".join(str(s) for s in v["turn"]))
    if v.get("trick"):
        bits.append("trick: %s" % _cards(v["trick"]))
    if v.get("scores") is not None:
        bits.append("scores: %s" % " ".join(str(x) for x in v["scores"]))
    return "-- " + " | ".join(bits)


class KeyReader:
    """Keystrokes from a terminal on stdin, without waiting (cbreak mode while it runs)."""

    def __init__(self, stream: Any) -> None:
        self.fd = -1
        self.saved: Any = None
        try:
            fd = stream.fileno()
        except (AttributeError, OSError, ValueError):
            return
        if not os.isatty(fd):
            return
        import termios
        import tty

        self.fd = fd
        self.saved = termios.tcgetattr(fd)
        tty.setcbreak(fd)

    def read(self) -> str:
        if self.fd < 0:
            return ""
        r, _, _ = select.select([self.fd], [], [], 0)
        if not r:
            return ""
        try:
            return os.read(self.fd, 64).decode("utf-8", "replace")
        except OSError:
            return ""

    def close(self) -> None:
        if self.fd >= 0 and self.saved is not None:
            import termios

            termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)
            self.fd = -1


class Monitor:
    """The loop: link messages into the model, keys into commands, the model onto the screen."""

    def __init__(self, port: str, auto: bool, screen: Screen, keys: KeyReader) -> None:
        self.port = port
        self.auto = auto  # the port was found, not named: look again if it vanishes
        self.screen = screen
        self.keyreader = keys
        self.model = Model(port)
        self.keys = Keys(self.model)
        self.link: Any = None
        self.down_since: float | None = None
        self.note_at = 0.0
        self.tried = time.monotonic()

    def connect(self, remote: Any = None) -> None:
        """Open the board's port, or follow a running `cardtable serve` (remote: its RemoteLink)."""
        from cardtable_host.board.link import Link

        if remote is not None:
            self.link = remote
            self.resync()
            return
        portlock.check_board(self.port)
        self.link = Link(self.port, timeout=5, reconnect=True, command="cardtable monitor")
        self.resync()

    def resync(self) -> None:
        """Ask the board who it is and what the table looks like now."""
        m = self.model
        before = m.seq
        try:
            m.hello = self.link.hello()  # its hello message also comes through the queue, and logs
            st = self.link.state()
            m.feed({"type": "state", "seq": st.get("seq"), "view": st.get("view")})
            cfg = self.link.config()
            m.seat_names = seat_names(cfg.get("board"), cfg.get("layout"))
            m.buttons = dict(cfg.get("buttons") or {})
        except Exception as e:  # noqa: BLE001 - LinkError and friends: try again later
            m.connected = False
            m.status = ("no answer from the table on %s (%s): is it at the REPL? (quit, then `cardtable "
                        "doctor --restart`) retrying" % (self.port, e))
            self.down_since = self.down_since or time.monotonic()
            return
        m.connected = True
        m.status = "live"
        self.down_since = None
        if before < 0:
            return
        if m.seq == before:
            m.add("re-synced from the board: nothing happened while away", "green")
            return
        m.add("re-synced from the board at journal line %s (was %s when the link went down)"
              % (m.seq, before), "green")
        if isinstance(m.seq, int) and m.seq > before:
            self.missed(before)

    def missed(self, after: int) -> None:
        """Log the actions the journal took while the link was down (seq > after)."""
        m = self.model
        try:
            lines = self.link.log(timeout=10)
        except Exception:  # noqa: BLE001 - the state is synced; the story is a bonus
            return
        for i, text in enumerate(lines):
            try:
                obj = record.parse_line(text, i + 1)
            except record.RecordError:
                continue
            if isinstance(obj.get("seq"), int) and obj["seq"] > after and "act" in obj:
                obj.pop("seq")
                g = m.game()  # the journal has every card: tell only what a spectator may see
                if g is not None:
                    m.add("while away: %s" % m.action_words(g.public(obj)), "magenta")

    def handle(self, msg: dict[str, Any]) -> bool:
        m = self.model
        if msg.get("type") == "link":
            if msg.get("up"):
                self.resync()
            else:
                m.connected = False
                m.status = "board gone (cable pulled? board reset?): waiting for it on %s" % self.port
                m.add("link down: %s" % m.status, "yellow")
                self.down_since = time.monotonic()
            return True
        return m.feed(msg)

    def send(self, cmd: dict[str, Any]) -> None:
        from cardtable_host.board.link import CommandError, LinkError

        m = self.model
        if not m.connected:
            m.note = ("not connected: the key is not sent", "yellow")
            return
        name = cmd.pop("cmd")
        try:
            reply = self.link.command(name, **cmd)
        except CommandError as e:
            m.note = ("refused: %s" % e.msg, "red")  # the board's verdict line logs it too
            self.note_at = time.monotonic()
            return
        except LinkError as e:
            m.note = ("not sent: %s" % e, "yellow")
            return
        if name == "undo":
            m.add("undone: %s" % m.action_words(reply.get("action")), "magenta")
        elif name == "press" and "seq" not in reply and "undone" not in reply:
            m.note = ("%s pressed: it names the suit of the next lead" % cmd["button"], "green")
            self.note_at = time.monotonic()
        elif name == "state":
            m.feed({"type": "state", "seq": reply.get("seq"), "view": reply.get("view")})
            m.note = ("re-synced", "green")

    def look_again(self) -> None:
        """A board found by its USB id may come back on another port: follow it."""
        if not self.auto or self.down_since is None or time.monotonic() - self.down_since < 2:
            return
        try:
            port = boardfind.resolve(None)
        except boardfind.BoardNotFound:
            return
        if port != self.port:
            self.link.close()
            self.port = self.model.port = port
            self.down_since = time.monotonic()
            try:
                self.connect()
            except Exception:  # noqa: BLE001 - LinkDown: keep looking
                pass

    def loop(self) -> int:
        screen = self.screen
        screen.show(self.model)
        last_draw = time.monotonic()
        while True:
            changed = False
            msg = self.link.next(timeout=0.05)
            while msg is not None:
                changed = self.handle(msg) or changed
                msg = self.link.next(timeout=0)
            for ch in self.keyreader.read():
                cmd = self.keys.press(ch)
                changed = True
                self.note_at = time.monotonic()
                if cmd == "quit":
                    return 0
                if isinstance(cmd, dict):
                    self.send(cmd)
            self.look_again()
            if not self.model.connected and self.link.up and time.monotonic() - self.tried > 2:
                self.tried = time.monotonic()  # the port is there but the table did not answer
                self.resync()
                changed = True
            if self.model.note[0] and time.monotonic() - self.note_at > 8:
                self.model.note = ("", None)
                changed = True
            if changed or time.monotonic() - last_draw > 1:
                screen.show(self.model)
                last_draw = time.monotonic()


def add_arguments(p: argparse.ArgumentParser) -> None:
    boardfind.add_port_argument(p)
    p.add_argument("--plain", action="store_true",
                   help="print one line per event instead of redrawing the screen")


def _served(port: str | None) -> Any:
    """A RemoteLink to the `cardtable serve` that holds the board (named, or the one Pico
    plugged in), or None: then the monitor opens the port itself (and, with no board, says
    which serves run, to choose one with --port)."""
    from cardtable_host.serve import servefile

    named = port or os.environ.get(boardfind.ENV)
    if named:
        info = servefile.find(named)  # a path serve holds, even while its board is unplugged
        if info is None:
            try:
                info = servefile.find(boardfind.resolve(named))
            except boardfind.BoardNotFound:
                info = None
    else:  # the one Pico plugged in, if a serve holds it; never a serve of some other board
        try:
            info = servefile.find(boardfind.resolve(None))
        except boardfind.BoardNotFound:
            info = None
    if info is None:
        return None
    from cardtable_host.board.link import LinkDown
    from cardtable_host.serve.serveclient import RemoteLink

    try:
        return RemoteLink(str(info["url"]), info.get("secret"))
    except LinkDown as e:
        raise CardtableError(str(e), USAGE) from None


def run(args: argparse.Namespace) -> int:
    from cardtable_host.board.link import LinkDown

    served = _served(args.port)
    port = served.port if served is not None else boardfind.board_port(args.port)
    out = sys.stdout
    plain = args.plain or not out.isatty()
    screen = Screen(out, plain, use_colour(out))
    auto = served is None and not args.port and not os.environ.get(boardfind.ENV)
    mon = Monitor(port, auto, screen, KeyReader(sys.stdin))
    try:
        mon.connect(served)
    except LinkDown as e:
        mon.keyreader.close()
        raise CardtableError(str(e), USAGE) from None
    except BaseException:  # another program holds the port, or it is not a board
        mon.keyreader.close()
        raise
    screen.open()
    try:
        return mon.loop()
    except KeyboardInterrupt:
        return 0
    finally:
        screen.close()
        mon.keyreader.close()
        if mon.link is not None:
            mon.link.close()
