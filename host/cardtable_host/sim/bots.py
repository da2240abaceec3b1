"""Bots at the virtual table: they play the seats no person takes, through the table itself.

The simulator is the dealer: it shuffles with the seed, so it knows every hand. Everything
else goes through the board as a real table would get it:

- a card play: the bot lays that card's tag on its seat's play zone and lifts it once the
  board has judged it (Nonesuch: a named lead suit is a press of the suit button first; the
  Excuse is laid on the play zone too). Nerts: a centre play is laid on a foundation zone
  (the board stamps its time), a Nerts call is the seat's button. NEXUS-Fairies: meditating
  shows the resolved Nexus card on the Nexus zone; sowing sets the position selector with
  the encoder (or the position buttons), then lays the card on the sow zone.
- whatever the table has no input for (bids, passes, trump, discards, a Nerts count or
  private moves, the deal itself) goes over the link as an ``act`` command.

Each bot chooses with a shadow copy of the game on CPython, fed only from the ``event``
messages the board sends, so the bots play legal moves and the host follows the game
exactly as the board judged it. A deal the board does not take in full (Forty-Fives deals
itself unseen; a Nerts deal of six decks is longer than a link line) reaches the shadow as
the simulator dealt it. Now and then a bot lays a wrong card, as a careless player would:
the board rejects it with its reason, the bot takes it back and plays a legal one.
"""
from __future__ import annotations

import json
import time
from typing import Any, Callable

from cardtable import games, record
from cardtable.rng import Random

from cardtable_host.board.link import CommandError, Link
from cardtable_host.sim.table import VirtualTable

LINE_LIMIT = 1000  # the board's link lines are at most 1024 bytes (cardtable/link.py LINE_MAX)
MISTAKE_ONE_IN = 10
MAX_REJECTED = 20  # bot actions the board rejects in a row before the simulation gives up


class SimError(RuntimeError):
    """The simulation cannot go on (the board disagreed with the bots, or went silent)."""


class Bots:
    """The simulated players of one game on one virtual table.

    link: the serial link to the board; table: its zones and deck (a VirtualTable over the
    VirtualBoard); bots: the game seats the bots play; seed: the shuffle and the bots'
    choices; on_message(msg, shadow_before): called for every message the board sends.
    """

    def __init__(self, link: Link, table: VirtualTable, bots: set[int] | None = None,
                 seed: int = 1, mistakes: bool = True,
                 on_message: Callable[[dict[str, Any], Any], None] | None = None,
                 timeout: float = 20.0, deal_pad: bool = False) -> None:
        self.link = link
        self.deal_pad = deal_pad  # deal every card across the board's deal pad
        self.table = table
        self.game_id = table.layout.game
        self.seats = len(table.layout.seats)
        self.bots = set(range(self.seats)) if bots is None else set(bots)
        self.rng = Random(seed)
        self.mistake_rng = Random(seed * 7919 + 17) if mistakes else None
        self.on_message = on_message
        self.timeout = timeout
        self.shadow: Any = None
        self.mirror: Any = None  # the game exactly as the board judged it (its deals as it saw them)
        self.pending_deal: tuple | None = None
        self.applied = 0  # seq of the last event applied to the shadow
        self.scores: list[int] | None = None  # from the board's hand/over events
        self.winner: Any = None
        self.over = False
        self.actions = 0
        self.rejected = 0
        self.divergences: list[str] = []
        self.selector = 0  # where the Fairies position selector is, as far as the bots know
        self.at_most = 64  # the encoder's selector is at most here (the game only lowers it)
        self.sent: dict[str, Any] | None = None  # the record line last typed over the link

    # -- the game ---------------------------------------------------------------------

    def new_game(self, rules: dict[str, Any] | None = None, dealer: int = 0,
                 hello: dict[str, Any] | None = None) -> dict[str, Any]:
        """Start a new game on the board and follow it; the board's answer to ``new``:
        ``{"game": header, "number": journal number}``.

        hello: the board's hello; if it is already at the start of just such a game (a board
        that booted into it), that game is played instead of journaling another one.
        """
        want = {"game": self.game_id, "seats": self.seats, "dealer": dealer, "rules": rules or {}}
        header = (hello or {}).get("game")
        # A board that dealt at boot by itself (the game's AUTO_DEAL) is at the start of that game too.
        fresh = (0, 1) if getattr(games.game_class(self.game_id), "AUTO_DEAL", False) else (0,)
        if (hello is not None and hello.get("seq") in fresh and header == want
                and hello.get("layout") == self.table.layout.name):
            current = [g["number"] for g in self.link.games() if g.get("current")]
            if current:
                self.follow(header)
                if hello.get("seq") == 1:  # its deal, unseen: the simulator deals it all the same
                    self.handle({"type": "event", "seq": 1, "action": {"act": "deal"}, "events": [],
                                 "from": "auto"})
                return {"game": dict(header), "number": current[0]}
        r = self.link.new(self.game_id, seats=self.seats, dealer=dealer, rules=rules or {},
                          layout=self.table.layout.name)
        self.follow(r["game"])
        return r

    def follow(self, header: dict[str, Any]) -> None:
        """Follow a game the board started (header: its record header)."""
        self.shadow = record.game_from_header(dict(header))
        self.mirror = record.game_from_header(dict(header))
        self.applied = 0
        self.pending_deal = None
        self.scores = list(self.shadow.scores)
        self.over = False
        self.selector = 0

    # -- messages -----------------------------------------------------------------------

    def pump(self, timeout: float = 0.0) -> dict[str, Any] | None:
        """Handle one message from the board (waiting up to timeout); it, or None."""
        msg = self.link.next(timeout)
        if msg is not None:
            self.handle(msg)
        return msg

    def handle(self, msg: dict[str, Any]) -> None:
        """Bring the shadow up to date with a message, then tell on_message."""
        before = self.shadow
        if msg.get("type") == "hello" and msg.get("game") and self.shadow is not None:
            if msg.get("seq") == 0 and self.applied and msg["game"].get("game") == self.game_id:
                self.follow(msg["game"])  # a new game started at the table (a tap after the end)
        if msg.get("type") == "event" and self.shadow is not None:
            self._event(msg)
        if self.on_message is not None:
            self.on_message(msg, before)

    def _event(self, msg: dict[str, Any]) -> None:
        g = self.shadow
        if "undone" in msg:
            for game in (g, self.mirror):
                if game.history:
                    game.undo()
            self.applied = msg.get("seq") or 0
            return
        seq = msg.get("seq")
        if isinstance(seq, int) and 0 < seq <= self.applied:
            # Already followed: the boot deal's own event, queued behind the hello that told of it.
            return
        obj = msg.get("action") or {}
        sent = self.sent
        if sent is not None and g.public(sent) == obj:
            obj = sent  # what we typed, of which the board tells spectators less (a deal, discards)
            self.sent = None
        try:
            action = record.decode(g, obj, msg.get("seq") or 0)
        except record.RecordError as e:
            self.divergences.append("undecodable event %s: %s" % (obj, e))
            return
        if self.mirror.check(action) is None:
            self.mirror.apply(action)
        else:
            self.divergences.append("the board accepted %s, which its own rules reject: %s" % (
                obj, self.mirror.check(action)))
        substituted = False
        if action[1] == "deal":
            if self.pending_deal is None and self.bots and not _full(action[2]):
                # The board dealt by itself, unseen: the simulator is the dealer all the same.
                self.pending_deal = g.bot_action(self.rng)
            if self.pending_deal is not None and self.pending_deal != action:
                action = self.pending_deal  # the deal as the simulator made it (the board saw less)
                substituted = True
        self.pending_deal = None
        msg["_shadow_action"] = action
        reason = g.check(action)
        if reason:
            self.divergences.append("the board accepted %s, the host's copy says: %s" % (obj, reason))
            return
        events = g.apply(action)
        device = msg.get("events")
        if isinstance(device, list) and not substituted and _plain(events) != _plain(device):
            self.divergences.append("events differ for %s: board %s, host %s" % (obj, device, events))
        self.applied = msg.get("seq") or self.applied
        for ev in device if isinstance(device, list) else events:
            if ev.get("ev") in ("hand", "over") and isinstance(ev.get("scores"), list):
                self.scores = list(ev["scores"])
            if ev.get("ev") == "over":
                self.winner = ev.get("winner")
        if g.over:
            self.over = True
            self.winner = g.winner
            if self.scores is None:
                self.scores = list(g.scores)

    def _await(self, pred: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise SimError("no answer from the board: waited %g s for %s" % (self.timeout, what))
            msg = self.pump(left)
            if msg is not None and pred(msg):
                return msg

    def settle(self, quiet: float = 0.05) -> None:
        """Handle every message until the board has been quiet for `quiet` seconds."""
        while self.pump(quiet) is not None:
            pass

    # -- choosing -----------------------------------------------------------------------

    def bot_turn(self) -> bool:
        """True when a bot (or the dealer) is to act now."""
        g = self.shadow
        if g is None or g.over:
            return False
        if g.dealing:
            return True
        return any(s in self.bots for s in g.turn)

    def choose(self) -> tuple:
        """The next bot action (a deal when one is due)."""
        g = self.shadow
        if g.dealing or all(s in self.bots for s in g.turn):
            return g.bot_action(self.rng)
        seats = [s for s in g.turn if s in self.bots]
        seat = seats[self.rng.below(len(seats))]
        if hasattr(g, "bot_seat"):
            a = g.bot_seat(seat, self.rng, g.clock + 1)
            if a is not None:
                return a
        choices = g.legal(seat)
        return choices[self.rng.below(len(choices))]

    def mistake(self, action: tuple) -> tuple | None:
        """Now and then, a wrong card the bot's player lays instead (trick games)."""
        g = self.shadow
        if self.mistake_rng is None or action[1] != "play" or self.mistake_rng.below(MISTAKE_ONE_IN):
            return None
        hands = getattr(g, "hands", None)
        seat = action[0]
        if not hands or not isinstance(hands[seat], (list, tuple)):
            return None
        legal = {a[2] for a in g.legal(seat) if a[1] == "play"}
        wrong = []
        for c in hands[seat]:
            if not isinstance(c, int) or c in legal:
                continue
            a = (seat, "play", c, None) if len(action) > 3 else (seat, "play", c)
            if self.mirror.check(a) is not None:  # only what the board can prove wrong
                wrong.append(a)
        other = (seat + 1) % self.seats
        if other != seat and other not in g.turn and isinstance(hands[other], (list, tuple)) and hands[other]:
            c = hands[other][self.mistake_rng.below(len(hands[other]))]
            # (Not a Nonesuch lead of two suits: the board would keep it waiting for a suit.)
            if isinstance(c, int) and not (len(action) > 3 and not getattr(g, "trick", True)
                                           and len(g.deck.suits(c)) > 1):
                wrong.append((other, "play", c, None) if len(action) > 3 else (other, "play", c))
        if not wrong:
            return None
        return wrong[self.mistake_rng.below(len(wrong))]

    # -- acting -------------------------------------------------------------------------

    def step(self) -> bool:
        """Let a bot act once (a wrong card first, sometimes); False if no bot is to act."""
        if self.divergences and self.bots == set(range(self.seats)):
            raise SimError("the host's copy of the game left the board's: " + self.divergences[0])
        if not self.bot_turn():
            return False
        action = self.choose()
        wrong = self.mistake(action)
        if wrong is not None:
            self.perform(wrong, expect_reject=True)
        ok = self.perform(action)
        self.actions += 1
        if ok:
            self.rejected = 0
        else:
            self.rejected += 1
            if self.rejected >= MAX_REJECTED:
                raise SimError("the board rejected %d bot actions in a row; the last: %s" % (
                    self.rejected, record.encode(self.shadow, action)))
        return True

    def run(self, max_actions: int = 100000, until: Callable[[], bool] | None = None) -> None:
        """Play until the game is over (or until() says stop); people's seats are waited for."""
        while not self.over and self.actions < max_actions:
            if until is not None and until():
                return
            if not self.step():
                self.pump(0.1)
            else:
                self.settle(0.0)
        if not self.over:
            raise SimError("the game did not end within %d bot actions" % max_actions)

    def perform(self, action: tuple, expect_reject: bool = False) -> bool:
        """Do an action at the table; True if the board accepted it."""
        g = self.shadow
        verb = action[1]
        if verb == "deal":
            return self._deal(action)
        t = self.table
        seat = action[0]
        if verb in ("play", "excuse"):
            zone = t.zone("play", seat)
            if zone is not None:
                if verb == "excuse":
                    return self._lay(zone, "X")
                suit = action[3] if len(action) > 3 else None
                if suit is None:
                    return self._lay(zone, g.card_code(action[2]))
                found = t.button("suit %s" % g.deck.fmt_suit(suit))
                if found is None:
                    return self._act(action)
                t.vb.press(found)  # the suit first, then the card (the board takes either order)
                msg = self._lay(zone, g.card_code(action[2]), keep=True)
                if msg["type"] == "verdict" and str(msg.get("reason", "")).startswith("name the suit"):
                    t.vb.press(found)  # the press went to an earlier card: name it again
                    named = "button " + found
                    msg = self._await(lambda m: m.get("type") in ("event", "verdict")
                                      and m.get("from") == named, "the named suit")
                t.lift(zone, wait=False)
                return msg["type"] == "event"
        elif verb == "center":
            zones = t.zones("foundation")
            if zones:
                return self._lay(zones[seat % len(zones)], g.card_code(action[2]))
        elif verb == "nerts":
            call = t.button("nerts %d" % seat)
            if call is not None:
                t.vb.press(call)
                src = "button " + call
                msg = self._await(lambda m: m.get("type") in ("event", "verdict") and m.get("from") == src,
                                  "the Nerts call")
                return msg["type"] == "event"
        elif verb == "sow":
            zone = t.zone("sow")
            if zone is not None and self._select(action[3]):
                return self._lay(zone, g.card_code(action[2]))
        elif verb == "meditate":
            zone = t.zone("nexus")
            end = action[2]
            card = action[3] if action[3] is not None else self._nexus_card(end)
            if zone is not None and card is not None and self._select(0 if end != "bottom" else 1):
                return self._lay(zone, g.card_code(card))
        return self._act(action)

    def _deal(self, action: tuple) -> bool:
        g = self.shadow
        pad = self.table.zone("deal") if self.deal_pad else None
        if pad is not None:
            return self._deal_across(pad)
        self.pending_deal = action
        if getattr(g, "AUTO_DEAL", False):
            # The board deals unseen by itself, at once: follow its deal event.
            self._await(lambda m: m.get("type") == "event" and "_shadow_action" in m
                        and m["_shadow_action"][1] == "deal", "the board's deal")
            return True
        obj = record.encode(g, action)
        if len(json.dumps({"cmd": "act", "id": 99999, "action": obj})) > LINE_LIMIT:
            obj = {"act": "deal"}  # too long for a link line: the board takes it unseen
        return self._act_obj(obj)

    def _deal_across(self, pad: str) -> bool:
        """Deal a shuffled pack across the deal pad, card by card, in the game's order: the
        board assigns each card by the game's deal pattern (table/dealpad.py)."""
        from cardtable.table import dealpad

        g = self.shadow
        cards = self.rng.shuffle(list(g.CARDS))[:dealpad.total(g)]
        self.pending_deal = (None, "deal", dealpad.piles(g, cards))
        self.sent = record.encode(g, self.pending_deal)  # what the board saw: every card
        src = "deal pad"
        for i, c in enumerate(cards):
            self.table.lay(pad, g.card_code(c), wait=False)
            last = i == len(cards) - 1
            msg = self._await(lambda m: m.get("type") == "fault" and m.get("kind") == "misdeal"
                              or (m.get("type") == "dealt" and m.get("n") == i + 1 and not last)
                              or (last and m.get("type") in ("event", "verdict")
                                  and m.get("from") == src),
                              "the deal pad to count card %d" % (i + 1))
            self.table.lift(pad, wait=False)
            if msg["type"] in ("fault", "verdict"):
                self.pending_deal = None
                raise SimError("the board refused the deal across its pad: %s" % (
                    msg.get("msg") or msg.get("reason")))
        return True

    def _act(self, action: tuple) -> bool:
        return self._act_obj(record.encode(self.shadow, action))

    def send(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Type an action over the link (a person's too), remembering it: the board's event
        tells spectators less than the typist knows (CommandError if it is rejected)."""
        self.sent = obj
        try:
            return self.link.act(obj)
        except CommandError:
            self.sent = None
            raise

    def _act_obj(self, obj: dict[str, Any]) -> bool:
        try:
            r = self.send(obj)
        except CommandError:
            self.pending_deal = None
            return False
        seq = r.get("seq")
        self._await(lambda m: m.get("type") == "event" and m.get("seq") == seq and "action" in m,
                    "the event of %s" % obj.get("act"))
        return True

    def _lay(self, zone: str, code: str, keep: bool = False) -> Any:
        """Lay a card on a zone, wait for the board's judgement, take the card back.

        True if the board accepted it; keep: leave the card there and return the message.
        """
        self.table.lay(zone, code, wait=False)
        src = "zone " + zone
        msg = self._await(lambda m: m.get("type") in ("event", "verdict") and m.get("from") == src,
                          "the board to judge %s on %s" % (code, zone))
        if keep:
            return msg
        self.table.lift(zone, wait=False)
        return msg["type"] == "event"

    def _select(self, at: int) -> bool:
        """Set the Fairies position selector to at (encoder, or the position buttons)."""
        t = self.table
        enc = next((n for n, m in t.layout.encoders.items() if m[0] == "at"), None)
        if enc is not None:
            # All the way up (it stops at 0), then down to at. Every detent costs the rp2
            # board ~14 ms of emulated time, so only as far up as it can be.
            if self.at_most:
                t.vb.turn(enc, -self.at_most)
            if at:
                t.vb.turn(enc, at)
            self.selector = self.at_most = at
            return True
        up, down = t.button("at up"), t.button("at down")
        if up is None or down is None:
            return False
        while self.selector > at:
            t.vb.press(up)
            self.selector -= 1
        while self.selector < at:
            t.vb.press(down)
            self.selector += 1
        return True

    def _nexus_card(self, end: str | None) -> int | None:
        nexus = getattr(self.shadow, "nexus", None)
        if not nexus:
            return None
        c = nexus[-1] if end == "bottom" else nexus[0]
        return c if c else None


def _full(piles: Any) -> bool:
    """True if a deal's piles name at least one card (the board saw the deal)."""
    if not isinstance(piles, dict):
        return False
    for pile in piles.values():
        if isinstance(pile, list) and any(p is not None and p != [] for p in pile):
            return True
    return False


def _plain(obj: Any) -> Any:
    """obj as JSON would carry it (tuples become lists)."""
    return json.loads(json.dumps(obj))
