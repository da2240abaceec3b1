"""The players' own pages: a private seat page on each player's phone, behind a code per seat.

The scorekeeper's page shows a QR code per seat (drawn here by segno, no web service); it opens
`/seat/N?token=...`. Each seat's token is for that seat and that game: a new game draws new
tokens, and the scorekeeper can revoke one (a new token; the old page is closed). A token is
compared in constant time against every seat's, so a refusal (401) says nothing of the seat.

What a seat page gets is the board's view for that seat - the game's `view(state, seat)`, the
one projection the spectators' `view(None)` comes from, asked of the board by `state` with
`seat` - with its seat's own last verdict and words for the page. Never another seat's hand:
the board's view of a seat holds its own cards alone, and only its own verdicts are added.
"""
from __future__ import annotations

import asyncio
import hmac
import json
import re
import secrets
import threading
from pathlib import Path
from typing import Any, Callable

from aiohttp import WSMsgType, web

from cardtable_host.serve import netguard, speech
from cardtable_host.serve.hub import Hub

PAGES = Path(__file__).resolve().with_name("web")
REFUSED_401 = "this page needs a seat's code from the scorekeeper (scan it again)"
UNDO_CMDS = ("undo", "override", "withdraw")  # the scorekeeper's, on POST /seats
SEAT_REFUSED = json.dumps({"type": "refused", "msg": "a seat's page only reads: this socket takes no commands"})
TOKEN_BYTES = 18
MAX_SEATS = 8  # tokens drawn before the first game tells its seats (nerts: up to 8)
Ask = Callable[[int, bool], dict[str, Any]]  # (seat, teach) -> the board's state reply for that seat


class SeatKeys:
    """Each seat's token for the current game (thread-safe)."""

    def __init__(self, seats: int = MAX_SEATS) -> None:
        self._lock = threading.Lock()
        self.game = 0  # the tokens' game (a count of new games seen)
        self._tokens: list[str] = []
        self.new_game(seats)

    def new_game(self, seats: int) -> None:
        """A new game: every seat gets a new token; the old ones open nothing any more."""
        with self._lock:
            self.game += 1
            self._tokens = [secrets.token_urlsafe(TOKEN_BYTES) for _ in range(max(1, min(seats, MAX_SEATS)))]

    def fit(self, seats: int) -> None:
        """The game has this many seats (told by the board's hello): tokens for them alone."""
        with self._lock:
            n = max(1, min(seats, MAX_SEATS))
            self._tokens = self._tokens[:n] + [secrets.token_urlsafe(TOKEN_BYTES) for _ in range(n - len(self._tokens))]

    def revoke(self, seat: int) -> bool:
        """A new token for seat (the old one is refused from now); False if there is no such seat."""
        with self._lock:
            if not 0 <= seat < len(self._tokens):
                return False
            self._tokens[seat] = secrets.token_urlsafe(TOKEN_BYTES)
            return True

    def tokens(self) -> list[str]:
        with self._lock:
            return list(self._tokens)

    def check(self, seat_text: str, token: str) -> int | None:
        """The seat whose page this is, or None: the token is compared in constant time with
        every seat's, whatever the seat asked, so the answer's time says nothing of the seat."""
        given = token.encode("utf-8", "replace")[:256]
        found = None
        for s, mine in enumerate(self.tokens()):
            if hmac.compare_digest(given, mine.encode()) and seat_text == str(s):
                found = s
        return found


def parse_seats(text: str) -> set[int]:
    """--teach SEATS: "0,2" or "all" (every seat); ValueError naming what is wrong."""
    text = (text or "").strip().lower()
    if not text:
        return set()
    if text == "all":
        return set(range(MAX_SEATS))
    out = set()
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit() or int(part) >= MAX_SEATS:
            raise ValueError("--teach %s: seat numbers 0 to %d, comma-separated, or all" % (text, MAX_SEATS - 1))
        out.add(int(part))
    return out


def qr_svg(url: str) -> str:
    """A QR code of url as an inline SVG (segno, drawn on this machine)."""
    import segno

    return str(segno.make(url, error="m").svg_inline(scale=4, border=2, dark="#000", light="#fff", omitsize=True))


OVERRIDE = "the scorekeeper's override"
# the story's lines this room adds (hub.note), never an action to undo
_OWN_NOTES = (" asks to undo ", " calls the director", " asked is withdrawn", "did not reach the tournament")


def _now_iso() -> str:
    """Now as ISO 8601 UTC text, to the second (as the archive's times are)."""
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


_SEAT_WORD = re.compile(r"\bseats? (\d+)(?: (&|and|or) (\d+))?\b")


class SeatRoom:
    """The open seat pages and what each is sent: its seat's view, asked of the board after
    every change, with its own last verdict (any thread in; the event loop writes)."""

    def __init__(self, hub: Hub, ask: Ask | None) -> None:
        self.hub = hub
        self.ask = ask
        self.keys = SeatKeys()
        self.teach: set[int] = set()  # seats whose pages mark the legal cards
        self.slow_s = 60.0  # the scorekeeper's slow-play threshold (seconds on one turn)
        self.archive_lines: Callable[[int], list[str] | None] = lambda n: None  # an archived game's lines
        self.control: Callable[[dict[str, Any]], dict[str, Any]] | None = None  # the scorekeeper's commands
        self.pending: dict[str, Any] | None = None  # an undo asked from a seat page, waiting for the other side
        self.director: dict[str, Any] | None = None  # a seat's call for the director, until answered
        self.on_director: Callable[[int, str], None] | None = None  # a tournament's: the call told the director
        self._agreed: tuple[str, str] | None = None  # (asked, agreed) of the undo under way
        self.says: dict[int, int] = {}  # seat -> presses of its say button (its page says each once)
        self._seq: int | None = None  # the journal's last line as last heard
        self.loop: asyncio.AbstractEventLoop | None = None
        self.socks: dict[int, set[web.WebSocketResponse]] = {}
        self.verdicts: dict[int, dict[str, Any]] = {}  # seat -> its last verdict, in words
        self.sent: dict[int, int] = {}  # seat -> messages sent to its pages
        self.last: dict[int, str] = {}  # seat -> the last message its pages were sent
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = False
        self._thread: threading.Thread | None = None
        self._sub: int | None = None

    # -- life ------------------------------------------------------------------------------

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        hdr = (self.hub.model.hello or {}).get("game")
        if isinstance(hdr, dict) and isinstance(hdr.get("seats"), int):
            self.keys.fit(hdr["seats"])
        self._sub = self.hub.subscribe(self._heard)[0]
        self._thread = threading.Thread(target=self._run, name="cardtable-seats", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop = True
        self._wake.set()
        if self._sub is not None:
            self.hub.unsubscribe(self._sub)

    # -- the board's messages ------------------------------------------------------------------

    def _heard(self, _n: int, _t: float, text: str) -> None:
        """A spectator message of the hub (any thread): a new game draws new tokens; a verdict
        is kept for its seat; any change wakes the writer."""
        try:
            msg = json.loads(text)
        except ValueError:
            return
        kind = msg.get("type")
        hdr = msg.get("game") if kind == "hello" and isinstance(msg.get("game"), dict) else {}
        if kind == "hello" and isinstance(hdr.get("seats"), int) and msg.get("seq") != 0:
            self.keys.fit(hdr["seats"])  # the board (re)introduced itself: the same game
        if kind == "hello" and msg.get("seq") == 0:
            seats = hdr.get("seats")
            self.keys.new_game(seats if isinstance(seats, int) else MAX_SEATS)
            with self._lock:
                self.last.clear()
            with self._lock:
                self.verdicts.clear()
                old = [s for group in self.socks.values() for s in group]
                self.socks.clear()
            self._close(old, "a new game: scan the seat's new code")
            return
        prev = self._seq
        if kind in ("event", "state", "hello") and isinstance(msg.get("seq"), int):
            self._seq = msg["seq"]
        if kind == "event" and "undone" in msg:
            asked, agreed = self._agreed or ("the scorekeeper", OVERRIDE)
            line = self.pending["seq"] if self._agreed and self.pending else prev
            self._agreed = None
            with self._lock:
                self.pending = None
            self.hub.undos.append({"line": line, "undone": self._card_words(self.named(
                self.hub.model.action_words(msg.get("undone")))), "asked": asked, "agreed": agreed,
                "from": msg.get("from"), "at": _now_iso()})
        elif kind == "event" and self.pending is not None:
            with self._lock:
                self.pending = None  # the table moved on: the undo asked is void
        if kind == "event" and isinstance(msg.get("action"), dict) and msg["action"].get("act") == "deal":
            with self._lock:
                self.verdicts.clear()  # a new hand: a verdict of the last one names a card now elsewhere
        if kind == "verdict" and isinstance(msg.get("seat"), int):
            with self._lock:
                self.verdicts[msg["seat"]] = {"text": self._verdict_words(msg), "reason": msg.get("reason"),
                                              "seq": self.hub.model.seq, "n": msg.get("n"),
                                              "spoken": speech.verdict_words(msg, self.names())}
        if kind == "say" and isinstance(msg.get("seat"), int):
            with self._lock:  # the seat's page is sent its hand and the trick to say (message)
                self.says[msg["seat"]] = self.says.get(msg["seat"], 0) + 1
        if kind == "consent" and msg.get("team") in (0, 1):  # (the undo waits for the board: not here)
            threading.Thread(target=self.table_consents, args=(msg["team"], msg.get("answer") == "dispute"),
                             name="cardtable-consent", daemon=True).start()
        if kind in ("state", "event", "verdict", "hello", "link", "agree", "say"):
            self._wake.set()

    def _card_words(self, text: str) -> str:
        """A standard deck's card codes as people write them ('Ann plays 10♥')."""
        from cardtable_host.serve.grid import glyph_text

        g = self.hub.model.game()
        return text if g is None else glyph_text(g, text)

    def _verdict_words(self, msg: dict[str, Any]) -> str:
        what = self.hub.model.action_words(msg["action"]) if msg.get("action") else "your card"
        return self.named("refused: %s: %s" % (what, msg.get("reason")))

    # -- the seats' pages ----------------------------------------------------------------------

    def names(self) -> list[str]:
        """The players' names by seat (the table's players, else the board's seat names)."""
        given = self.hub.seat_names()  # the player's, else the place's (as every page says it)
        n = max(len(given), len(self.keys.tokens()))
        return [given[s] if s < len(given) and given[s] else "seat %d" % s for s in range(n)]

    def named(self, text: str) -> str:
        """Words with "seat 1" said as the player's name ("seats 0 & 2": "Ann & Cy")."""
        names = self.names()

        def one(s: str) -> str:
            i = int(s)
            return names[i] if i < len(names) else "seat %d" % i

        def sub(m: re.Match[str]) -> str:
            if m.group(3) is None:
                return one(m.group(1))
            return "%s %s %s" % (one(m.group(1)), m.group(2), one(m.group(3)))
        return _SEAT_WORD.sub(sub, str(text))

    def message(self, seat: int, reply: dict[str, Any]) -> dict[str, Any]:
        """What seat's page is sent: its view (the board's, for that seat) and the words for it."""
        view = reply.get("view") if isinstance(reply.get("view"), dict) else None
        names = self.names()
        with self._lock:
            verdict = self.verdicts.get(seat)
        out: dict[str, Any] = {"type": "seat", "seat": seat, "name": names[seat] if seat < len(names) else "seat %d" % seat,
                               "names": names, "table": self.hub.table, "seq": reply.get("seq"),
                               "view": view, "verdict": verdict, "teach": self._teach(reply.get("teach")),
                               "connected": self.hub.model.connected, "status": self.hub.model.status}
        out["words"] = self.words(seat, view, names)
        asked = self.says.get(seat)
        if asked:  # its say button: the hand (this seat's own view) and the trick, for this page alone
            out["say"] = {"n": asked, "text": speech.say_words(self.hub.model.game(), view, seat, names)}
        pending = self.pending
        if pending is not None:
            out["undo"] = {"asked": pending["asked"], "what": pending["what"], "through": pending["through"],
                           "mine": pending["seat"] == seat, "may_agree": self.other_side(pending["seat"], seat),
                           "agree": self.who_may_agree(pending["seat"])}
        return out

    def _teach(self, marks: Any) -> list[list[Any]] | None:
        """The board's teaching marks ([code, None or check()'s reason], ...), seats named."""
        if not isinstance(marks, list):
            return None
        return [[m[0], None if m[1] is None else self.named(str(m[1]))] for m in marks
                if isinstance(m, list) and len(m) == 2]

    def words(self, seat: int, view: dict[str, Any] | None, names: list[str]) -> dict[str, Any]:
        """The seat's view in words: whose turn, the trick, the score, its hand."""
        if not view:
            return {"turn": "no game yet", "trick": [], "score": [], "hand": None}
        turn = [s for s in view.get("turn") or [] if isinstance(s, int)]

        def who(s: Any) -> str:
            return names[s] if isinstance(s, int) and 0 <= s < len(names) else "seat %s" % s
        if view.get("over"):
            turn_text = "the game is over"
        elif seat in turn:
            turn_text = "your turn" if len(turn) == 1 else "your turn (with %s)" % ", ".join(who(s) for s in turn if s != seat)
        elif turn:
            turn_text = "%s's turn" % " or ".join(who(s) for s in turn)
        else:
            turn_text = "waiting for the deal" if view.get("phase") == "deal" else "nobody's turn"
        trick = [[who(p[0]), p[1]] for p in view.get("trick") or [] if isinstance(p, list) and len(p) == 2]
        score: list[list[Any]] = []
        if isinstance(view.get("team_scores"), list):
            ts = view["team_scores"]
            score = [["%s & %s" % (who(t), who(t + 2)), ts[t]] for t in (0, 1) if t < len(ts)]
        elif isinstance(view.get("scores"), list):
            score = [[who(s), x] for s, x in enumerate(view["scores"])]
        hand = view.get("hand") if isinstance(view.get("hand"), list) else None
        return {"turn": turn_text, "my_turn": seat in turn, "trick": trick, "score": score, "hand": hand,
                "phase": view.get("phase")}

    def _run(self) -> None:
        """The writer: after each change, each open seat's view asked of the board and sent."""
        while not self._stop:
            self._wake.wait()
            self._wake.clear()
            if self._stop:
                return
            with self._lock:
                seats = sorted(s for s, group in self.socks.items() if group)
            for seat in seats:
                self.refresh(seat)

    def refresh(self, seat: int) -> None:
        """Ask the board for seat's view and send it to the seat's pages (the writer's thread)."""
        if self.ask is None:
            return
        try:
            reply = self.ask(seat, seat in self.teach)
        except Exception as e:  # noqa: BLE001 - the board gone, a bad seat: the page says so
            reply = {"seq": None, "view": None, "error": str(e)}
        text = json.dumps(self.message(seat, reply))
        with self._lock:
            if self.last.get(seat) == text:
                return  # nothing new for this seat
            self.last[seat] = text
        loop = self.loop
        if loop is not None:
            try:
                loop.call_soon_threadsafe(self._send, seat, text)
            except RuntimeError:
                pass  # stopping

    def _send(self, seat: int, text: str) -> None:
        with self._lock:
            group = list(self.socks.get(seat, ()))
        for sock in group:
            if not sock.closed:
                asyncio.get_running_loop().create_task(self._write(sock, seat, text))

    async def _write(self, sock: web.WebSocketResponse, seat: int, text: str) -> None:
        try:
            await sock.send_str(text)
            self.sent[seat] = self.sent.get(seat, 0) + 1
        except (ConnectionError, RuntimeError):
            pass

    def _close(self, socks: list[web.WebSocketResponse], why: str) -> None:
        loop = self.loop
        if loop is None or not socks:
            return

        def close() -> None:
            for sock in socks:
                if not sock.closed:
                    asyncio.get_running_loop().create_task(sock.close(code=4001, message=why.encode()[:120]))
        try:
            loop.call_soon_threadsafe(close)
        except RuntimeError:
            pass

    def tempo_now(self) -> dict[str, Any]:
        """Who is to act now and for how long (ms, from when serve heard the action that made it
        their turn), with the scorekeeper's slow-play threshold and a note past it."""
        import time

        view = self.hub.view() or {}
        times = dict(self.hub.times)
        turn = [s for s in view.get("turn") or [] if isinstance(s, int)] if not view.get("over") else []
        since = times[max(times)] if times else None
        names = self.names()
        out: dict[str, Any] = {"threshold_s": self.slow_s, "turn": [], "note": None}
        if since is None or not turn:
            return out
        ms = int((time.time() - since) * 1000)
        out["turn"] = [{"seat": s, "name": names[s] if s < len(names) else "seat %d" % s, "ms": ms} for s in turn]
        if ms >= self.slow_s * 1000:
            out["note"] = "slow play: %s %s had the turn for %d s (the limit is %d s)" % (
                " or ".join(t["name"] for t in out["turn"]), "has" if len(turn) == 1 else "have",
                ms // 1000, int(self.slow_s))
        return out

    def other_side(self, asker: int | None, seat: int) -> bool:
        """seat may agree to asker's undo: the other team's (partners share a score), any other
        seat's; any seat's to the scorekeeper's for the table (asker None)."""
        if asker is None:
            return True
        g = self.hub.model.game()
        if g is not None and getattr(g, "TEAMS", False):
            return seat % 2 != asker % 2
        return seat != asker

    def seat_asks(self, seat: int, what: Any) -> tuple[int, dict[str, Any]]:
        """A seat page's request (the seat's code checked): undo, agree, director; (status, answer)."""
        names = self.names()
        me = names[seat] if seat < len(names) else "seat %d" % seat
        if what == "director":
            return self.call_director(seat, me)
        if what == "undo":
            return self.ask_undo(seat, me, by_scorekeeper=False)
        if what == "agree":
            return self.agree(seat, me)
        return 400, {"ok": False, "error": "a seat page asks undo, agree or director"}

    def call_director(self, seat: int, me: str) -> tuple[int, dict[str, Any]]:
        """A seat calls the director: the scorekeeper's page is flagged (and a tournament's director)."""
        self.director = {"seat": seat, "name": me, "seq": self.hub.model.seq, "at": _now_iso()}
        self.hub.note("%s calls the director to the table" % me, "yellow")
        told = self.on_director
        if told is not None:
            try:
                told(seat, me)
            except Exception as e:  # noqa: BLE001 - the table's flag stands; the page says the rest
                self.hub.note("the director's call did not reach the tournament: %s" % e, "red")
        return 200, {"ok": True, "said": "the director is called"}

    def ask_undo(self, seat: int | None, asker: str, by_scorekeeper: bool) -> tuple[int, dict[str, Any]]:
        """An undo of the last action asked by seat (None: by the scorekeeper for the table), pending
        until the other side agrees on a seat page or the scorekeeper overrides."""
        seq = self.hub.model.seq
        if not isinstance(seq, int) or seq < 1:
            return 409, {"ok": False, "error": "nothing to undo"}
        last = self._last_action()
        if seat is None:
            asked = "the scorekeeper (for the table)"
        else:
            asked = "%s (through the scorekeeper)" % asker if by_scorekeeper else asker
        with self._lock:
            self.pending = {"seat": seat, "asked": asked, "seq": seq, "what": last, "through": by_scorekeeper,
                            "at": _now_iso()}
        self.hub.note("%s asks to undo %s: %s agrees on their page" % (asked, last, self.who_may_agree(seat)), "yellow")
        self._wake.set()
        return 200, {"ok": True, "said": "asked: %s must agree" % self.who_may_agree(seat)}

    def pending_words(self) -> dict[str, Any] | None:
        """The undo asked, for the scorekeeper's page: who asked, what, who may agree."""
        with self._lock:
            pending = None if self.pending is None else dict(self.pending)
        if pending is not None:
            pending["agree"] = self.who_may_agree(pending["seat"])
        return pending

    def who_may_agree(self, asker: int | None) -> str:
        """The names of the seats whose agreement carries the undo, in words ("Bob or Di")."""
        names = self.names()
        seats = [s for s in range(len(self.keys.tokens())) if self.other_side(asker, s)]
        return " or ".join(names[s] if s < len(names) else "seat %d" % s for s in seats) or "the other side"

    def agree(self, seat: int, me: str) -> tuple[int, dict[str, Any]]:
        """seat agrees to the undo asked: it happens (if seat is of the other side, and the table
        has not moved on)."""
        with self._lock:
            pending = self.pending
        if pending is None:
            return 409, {"ok": False, "error": "no undo is asked"}
        if not self.other_side(pending["seat"], seat):
            return 409, {"ok": False, "error": "the other side must agree to %s's undo" % pending["asked"]}
        return self.carry_out(pending, me)

    def override(self) -> tuple[int, dict[str, Any]]:
        """The scorekeeper's override (the secret checked by the caller): the undo asked happens
        without the other side's agreement."""
        with self._lock:
            pending = self.pending
        if pending is None:
            return 409, {"ok": False, "error": "no undo is asked: ask for one first"}
        return self.carry_out(pending, OVERRIDE)

    def withdraw(self) -> tuple[int, dict[str, Any]]:
        """The scorekeeper withdraws the undo asked: nothing is undone."""
        with self._lock:
            pending, self.pending = self.pending, None
        if pending is None:
            return 409, {"ok": False, "error": "no undo is asked"}
        self.hub.note("the undo %s asked is withdrawn" % pending["asked"], "yellow")
        self._wake.set()
        return 200, {"ok": True, "said": "withdrawn"}

    def carry_out(self, pending: dict[str, Any], agreed: str) -> tuple[int, dict[str, Any]]:
        """Undo the action pending names, agreed by agreed; refused if the table moved on."""
        if pending["seq"] != self.hub.model.seq:
            with self._lock:
                self.pending = None
            self._wake.set()
            return 409, {"ok": False, "error": "the table moved on: ask again"}
        if self.control is None:
            return 503, {"ok": False, "error": "no board to control"}
        self._agreed = (pending["asked"], agreed)
        reply = self.control({"cmd": "undo", "seq": pending["seq"]})  # that action, or none
        if not reply.get("ok"):
            self._agreed = None
            return int(reply.get("status", 409)), {"ok": False, "error": reply.get("error")}
        return 200, {"ok": True, "said": "undone"}

    def table_consents(self, team: int, dispute: bool) -> str:
        """A team's agree (dispute) button at the table while the game goes on: its consent to
        (refusal of) the undo asked, when that team is the other side. What came of it, told to
        the story too (its own thread: the undo waits for the board)."""
        names = self.names()
        who = " & ".join(names[s] for s in range(team, len(names), 2))
        with self._lock:
            pending = self.pending
        if pending is None:
            said = "%s pressed %s at the table: no undo is asked" % (who, "dispute" if dispute else "agree")
        elif isinstance(pending.get("seat"), int) and not self.other_side(pending["seat"], team):
            said = "the other side must agree to %s's undo, not %s" % (pending["asked"], who)
        elif dispute:
            with self._lock:
                self.pending = None
            said = "%s refuse %s's undo at the table" % (who, pending["asked"])
        else:
            status, reply = self.carry_out(pending, "%s at the table" % who)
            if status == 200:
                return "undone: %s asked; %s agreed at the table" % (pending["asked"], who)
            said = "the undo %s asked did not happen: %s" % (pending["asked"], reply.get("error"))
        self.hub.note(said, "yellow")
        self._wake.set()
        return said

    def _last_action(self) -> str:
        for text, _colour in reversed(list(self.hub.model.log)):
            if not text.startswith((" ", "hello", "REJECTED", "FAULT", "the board", "board gone", "game archived")) \
                    and not any(note in text for note in _OWN_NOTES):
                return self.named(text.split("  (")[0])
        return "the last action"

    def revoke(self, seat: int) -> bool:
        """A new token for seat; its open pages are closed."""
        if not self.keys.revoke(seat):
            return False
        with self._lock:
            old = list(self.socks.pop(seat, ()))
        self._close(old, "the scorekeeper took this seat's code back")
        return True

    def join(self, seat: int, sock: web.WebSocketResponse) -> None:
        with self._lock:
            self.socks.setdefault(seat, set()).add(sock)
            self.last.pop(seat, None)  # the newcomer is sent the seat's view at once
        self._wake.set()

    def leave(self, seat: int, sock: web.WebSocketResponse) -> None:
        with self._lock:
            self.socks.get(seat, set()).discard(sock)


def _forbidden() -> web.Response:
    return web.json_response({"ok": False, "error": "the scorekeeper's secret is needed "
                              "(printed when cardtable serve started)"}, status=403)


def _refused() -> web.Response:
    return web.Response(status=401, text=REFUSED_401, headers={"Cache-Control": "no-store"})


async def _body(request: web.Request) -> Any:
    """The request's JSON body, or None when it is not one."""
    try:
        return await netguard.read_body(request)
    except netguard.BadBody:
        return None


class SeatRoutes:
    """The seat pages' handlers: a seat's page, socket and requests (the seat's code checked),
    and the scorekeeper's (the secret checked): the codes, revoke and teach, the tempo."""

    def __init__(self, room: SeatRoom, scorekeeper: Callable[[web.Request], bool]) -> None:
        self.room = room
        self.scorekeeper = scorekeeper
        self.page_text = (PAGES / "head.html").read_text(encoding="utf-8") + (PAGES / "seat.html").read_text(encoding="utf-8")

    def add(self, app: web.Application) -> None:
        """The routes on the table's app."""
        app.router.add_get("/tempo.json", self.tempo_now)
        app.router.add_post("/tempo", self.set_slow)
        app.router.add_get("/archive/{n:\\d+}/tempo.json", self.tempo_of)
        app.router.add_post("/seat/{n}", self.seat_post)
        app.router.add_get("/seat/{n}", self.page)
        app.router.add_get("/seat/{n}/ws", self.ws)
        app.router.add_get("/seats.json", self.codes)
        app.router.add_post("/seats", self.change)

    def seat_of(self, request: web.Request) -> int | None:
        return self.room.keys.check(request.match_info.get("n", ""), request.query.get("token", ""))

    # -- a seat's own ------------------------------------------------------------------------

    async def page(self, request: web.Request) -> web.StreamResponse:
        if self.seat_of(request) is None:
            return _refused()
        return web.Response(text=self.page_text, content_type="text/html",
                            headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})

    async def ws(self, request: web.Request) -> web.StreamResponse:
        seat = self.seat_of(request)
        if seat is None:
            return _refused()
        sock = web.WebSocketResponse(heartbeat=20, max_msg_size=4096, compress=False)
        await sock.prepare(request)
        self.room.join(seat, sock)
        try:
            async for msg in sock:
                if msg.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                    await sock.send_str(SEAT_REFUSED)
                elif msg.type == WSMsgType.ERROR:
                    break
        except (ConnectionError, RuntimeError):
            pass
        finally:
            self.room.leave(seat, sock)
        return sock

    async def seat_post(self, request: web.Request) -> web.StreamResponse:
        seat = self.seat_of(request)
        if seat is None:
            return _refused()
        cmd = await _body(request)
        if not isinstance(cmd, dict) or cmd.get("do") not in ("undo", "agree", "director"):
            return web.json_response({"ok": False, "error": "send {\"do\": \"undo\"}, agree or director"}, status=400)
        status, answer = await asyncio.to_thread(self.room.seat_asks, seat, cmd["do"])
        return web.json_response(answer, status=status)

    # -- the scorekeeper's -------------------------------------------------------------------

    async def codes(self, request: web.Request) -> web.StreamResponse:
        if not self.scorekeeper(request):
            return _forbidden()
        room = self.room
        base = "%s://%s" % (request.scheme, request.host)
        names = room.names()
        out = []
        for s, token in enumerate(room.keys.tokens()):
            url = "%s/seat/%d?token=%s" % (base, s, token)
            out.append({"seat": s, "name": names[s] if s < len(names) else "seat %d" % s, "url": url,
                        "qr": await asyncio.to_thread(qr_svg, url), "teach": s in room.teach})
        return web.json_response({"game": room.keys.game, "seats": out, "director": room.director,
                                  "undos": list(room.hub.undos),
                                  "undo": room.pending_words()})

    async def change(self, request: web.Request) -> web.StreamResponse:
        if not self.scorekeeper(request):
            return _forbidden()
        cmd = await _body(request)
        if not isinstance(cmd, dict):
            return web.json_response({"ok": False, "error": "the body must be a JSON object"}, status=400)
        room = self.room
        if cmd.get("cmd") == "answered":  # the director came: the flag goes
            room.director = None
            return web.json_response({"ok": True})
        if cmd.get("cmd") in UNDO_CMDS:
            return await self.undo_cmd(cmd)
        seat = cmd.get("seat")
        if type(seat) is not int or not 0 <= seat < len(room.keys.tokens()):
            return web.json_response({"ok": False, "error": "\"seat\" must be a seat 0..%d"
                                      % (len(room.keys.tokens()) - 1)}, status=400)
        if cmd.get("cmd") == "revoke":
            room.revoke(seat)
            return web.json_response({"ok": True})
        if cmd.get("cmd") == "teach" and isinstance(cmd.get("on"), bool):
            (room.teach.add if cmd["on"] else room.teach.discard)(seat)
            room._wake.set()
            return web.json_response({"ok": True})
        return web.json_response({"ok": False, "error": "cmd must be revoke, or teach with on: true or false; "
                                  "or undo (for a seat, or \"table\"), override, withdraw, answered"},
                                 status=400)

    async def undo_cmd(self, cmd: dict[str, Any]) -> web.StreamResponse:
        """The scorekeeper's undo: asked for a seat (or the table), then agreed on the other
        side's page; or overridden, or withdrawn."""
        room = self.room
        if cmd["cmd"] == "override":
            status, answer = await asyncio.to_thread(room.override)
        elif cmd["cmd"] == "withdraw":
            status, answer = await asyncio.to_thread(room.withdraw)
        else:
            who = cmd.get("for")
            n = len(room.keys.tokens())
            if who != "table" and (type(who) is not int or not 0 <= who < n):
                return web.json_response({"ok": False, "error": "\"for\" must be the seat asking "
                                          "(0..%d) or \"table\"" % (n - 1)}, status=400)
            seat = None if who == "table" else int(who)
            names = room.names()
            asker = "the table" if seat is None else names[seat] if seat < len(names) else "seat %d" % seat
            status, answer = await asyncio.to_thread(room.ask_undo, seat, asker, True)
        return web.json_response(answer, status=status)

    async def set_slow(self, request: web.Request) -> web.StreamResponse:
        if not self.scorekeeper(request):
            return _forbidden()
        cmd = await _body(request)
        sec = cmd.get("seconds") if isinstance(cmd, dict) else None
        if not isinstance(sec, (int, float)) or isinstance(sec, bool) or not 1 <= sec <= 3600:
            return web.json_response({"ok": False, "error": "\"seconds\" must be a number from 1 to 3600"}, status=400)
        self.room.slow_s = float(sec)
        return web.json_response({"ok": True, "seconds": self.room.slow_s})

    # -- anyone's ----------------------------------------------------------------------------

    async def tempo_now(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(self.room.tempo_now())

    async def tempo_of(self, request: web.Request) -> web.StreamResponse:
        from cardtable_host.serve import tempo

        lines = await asyncio.to_thread(self.room.archive_lines, int(request.match_info["n"]))
        if lines is None:
            raise web.HTTPNotFound(text="no such game in the archive")
        try:
            fig = await asyncio.to_thread(tempo.figures, lines)
        except (ValueError, KeyError, TypeError) as e:
            return web.json_response({"ok": False, "error": "the record cannot be timed: %s" % e}, status=422)
        names = json.loads(lines[0]).get("players") if lines else None
        return web.json_response({"tempo": fig, "players": names if isinstance(names, list) else None})


def add_routes(app: web.Application, room: SeatRoom, scorekeeper: Callable[[web.Request], bool]) -> None:
    """The seat pages' routes on the table's app: /seat/N (page), /seat/N/ws (its socket), and
    the scorekeeper's /seats.json (codes) and POST /seats (revoke, teach)."""
    SeatRoutes(room, scorekeeper).add(app)
