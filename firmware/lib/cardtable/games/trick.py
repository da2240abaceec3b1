"""The trick-taking core every trick game reuses: hands, tricks, obligations, revoke proof."""
# A game says what following means through ``follow_rules(seat)``: a list of
# ``(holds, allowed, reason)``. A play is fine as soon as a card meets ``allowed``; a rule whose
# ``allowed`` it misses is broken if the seat holds a card meeting ``holds``. With known hands the
# breach is rejected at once. With unknown hands each missed rule proves the seat holds no card
# meeting ``holds`` (marked in ``absent``); playing such a card later proves a revoke, named by the
# trick where it happened; a revoke is proven once (the first card that shows it).
from binascii import hexlify

from cardtable.compat import const
from cardtable.games.base import Game

UNKNOWN = const(0)   # where[]: somewhere hidden (a hand we cannot see, the deck, ...)
PLAYED = const(200)  # played to a trick this hand
KITTY = const(201)
STOCK = const(202)
OUT = const(203)     # discarded or otherwise out of play, known
UP = const(204)      # face up on the table, not in any hand

_PLACES = {PLAYED: "was already played", KITTY: "is in the kitty", STOCK: "is in the stock",
           OUT: "is out of play", UP: "is face up on the table"}


class TrickGame(Game):
    """A Game with hands and tricks; subclasses add bidding, trumps and scoring."""

    PRIVATE_PLACES = ("is in seat ", "is in the kitty", "is in the stock")  # hidden places where_reason names

    def reset_hand(self):
        """Clear the per-hand state before a deal."""
        n = self.seats
        self.hands = [[] for _ in range(n)]   # known cards held (all of them when known[s]; a
        # hand that took an unseen card is partly known: known[s] False, these still its own)
        self.known = [False] * n
        self.held = [0] * n                   # how many cards each seat holds
        self.where = bytearray(64)            # card -> UNKNOWN, seat + 1, or a place above
        self.absent = [bytearray(64) for _ in range(n)]   # card -> trick (1-based) it was proven absent
        self.trick = []                       # (seat, card) played to the current trick
        self.led = -1                         # the suit to follow in the current trick
        self.hand_tricks = []                 # (leader, ((seat, card), ...), winner) this hand
        self.won = [[] for _ in range(n)]     # cards taken in tricks this hand
        self.leader = 0

    def reset_tricks(self):
        """Clear whole-game trick bookkeeping (called from reset)."""
        self.trick_winners = []               # winner of every trick of the game
        self.revokes = []                     # proven revokes: dicts (seat, hand, trick, card)
        self.hand_no = 0

    # -- dealing helpers --------------------------------------------------------------------
    def give(self, seat, cards):
        """Seat receives these known cards."""
        for c in cards:
            self.hands[seat].append(c)
            self.where[c] = seat + 1
            self.absent[seat][c] = 0
        self.held[seat] += len(cards)

    def give_unseen(self, seat, count):
        """Seat receives count cards the table cannot see; earlier absence proofs lapse, and a
        known hand becomes partly known (hands[seat] keeps the cards the table saw): every game
        that draws an unseen card, deals or takes a kitty unseen comes through here."""
        self.held[seat] += count
        if count:
            self.known[seat] = False
            a = self.absent[seat]
            for i in range(64):
                a[i] = 0

    def take(self, seat, card):
        """Card leaves seat's hand (it was checked to be there or unseen)."""
        if self.where[card] == seat + 1:
            self.hands[seat].remove(card)
        self.held[seat] -= 1

    def place(self, cards, where):
        """Mark cards as lying in a known place (KITTY, STOCK, OUT, UP)."""
        for c in cards:
            self.where[c] = where

    def deal_hands(self, hands, size):
        """Give each seat its dealt hand, or size unseen cards where hands[seat] is None."""
        for s in range(self.seats):
            h = hands[s] if hands is not None else None
            if h is None:
                self.give_unseen(s, size)
            else:
                self.give(s, h)
                self.known[s] = True

    # -- playing --------------------------------------------------------------------------
    def follow_rules(self, seat):
        """Subclass: the obligations of a seat following to the current trick."""
        return ()

    def lead_reason(self, seat, card, action):
        """Subclass: None if seat may lead card, else why not."""
        return None

    def led_suit(self, card, action):
        """Subclass: the suit the rest must follow when card is led."""
        raise NotImplementedError

    def power(self, card):
        """Subclass: how strongly card bids for the current trick (higher wins; ties never)."""
        raise NotImplementedError

    def trick_done(self, winner):
        """Subclass hook after a trick is won: returns events (draws, trick scoring ...)."""
        return []

    def hand_done(self):
        """True when every card of the hand has been played."""
        return not self.trick and not any(self.held)

    def end_hand(self):
        """Subclass: score the hand, start the next or end the game; returns events."""
        raise NotImplementedError

    def holds(self, seat, pred):
        """True if seat is known to hold a card meeting pred."""
        for c in self.hands[seat]:
            if pred(c):
                return True
        return False

    def where_reason(self, seat, card):
        """None if the table may believe seat holds card, else why it cannot."""
        w = self.where[card]
        if w == seat + 1 or w == UNKNOWN and not self.known[seat]:
            return None if self.held[seat] else "you have no cards left"
        code = self.card_code(card)
        if self.known[seat]:
            if w == PLAYED:
                return "the %s was already played" % code
            return "you do not hold the %s" % code
        if w <= self.seats:
            return "the %s is in seat %d's hand" % (code, w - 1)
        return "the %s %s" % (code, _PLACES.get(w, "is not in play"))

    def check_play_card(self, seat, card, action):
        """None if seat may play card to the current trick now."""
        cards = self._cards  # card_reason's table, tested here first (a play is checked often)
        if type(card) is not int or not 0 <= card < len(cards) or not cards[card]:
            why = self.card_reason(card)
            if why:
                return why
        w = self.where[card]
        if w != seat + 1 or not self.held[seat]:  # (else the card is in this hand: no reason)
            reason = self.where_reason(seat, card)
            if reason:
                return reason
        if not self.trick:
            return self.lead_reason(seat, card, action)
        for holds, allowed, why in self.follow_rules(seat):
            if allowed(card):
                return None
            if self.holds(seat, holds):
                return why
        return None

    def play_card(self, seat, card, action):
        """Play a checked card to the trick; returns events."""
        events = []
        trick = self.trick
        if not self.known[seat]:
            if self.where[card] == UNKNOWN and self.absent[seat][card] \
                    and not self._proven(seat, self.absent[seat][card]):
                rv = {"ev": "revoke", "seat": seat, "hand": self.hand_no,
                      "trick": self.absent[seat][card], "card": self.card_code(card)}
                self.revokes.append(rv)
                events.append(rv)
            if trick:
                self._prove_absent(seat, card)
        self.take(seat, card)
        self.where[card] = PLAYED
        if not trick:
            self.leader = seat
            self.led = self.led_suit(card, action)
        trick.append((seat, card))
        events.append({"ev": "play", "seat": seat, "card": self.deck.fmt(card)})
        if len(trick) == self.players_in_trick():
            events.extend(self._finish_trick())
        return events

    def _proven(self, seat, trick):
        """True if seat's revoke in that trick of this hand is proven already: one offence,
        proven once, however many of the cards it held back turn up later."""
        for rv in self.revokes:
            if rv["seat"] == seat and rv["trick"] == trick and rv["hand"] == self.hand_no:
                return True
        return False

    def players_in_trick(self):
        """How many cards make a trick."""
        return self.seats

    def _prove_absent(self, seat, card):
        n = len(self.hand_tricks) + 1
        mark = self.absent[seat]
        for holds, allowed, why in self.follow_rules(seat):
            if allowed(card):
                return
            for c in self.CARDS:
                if self.where[c] == UNKNOWN and holds(c) and not mark[c]:
                    mark[c] = n

    def _finish_trick(self):
        best = -1
        winner = self.trick[0][0]
        for seat, card in self.trick:
            p = self.power(card)
            if p > best:
                best, winner = p, seat
        plays = tuple(self.trick)
        self.hand_tricks.append((self.leader, plays, winner))
        self.trick_winners.append(winner)
        for seat, card in plays:
            self.won[winner].append(card)
        self.trick = []
        self.led = -1
        self.leader = winner
        events = [{"ev": "trick", "seat": winner, "trick": len(self.hand_tricks)}]
        events.extend(self.trick_done(winner))
        if self.hand_done():
            events.extend(self.end_hand())
        return events

    def next_in_trick(self):
        """The seat to play next to the current trick."""
        if not self.trick:
            return self.leader
        return (self.trick[-1][0] + 1) % self.seats

    def legal_plays(self, seat):
        """Play actions for each card seat is known to hold that it may play now."""
        out = []
        for c in self.hands[seat]:
            a = (seat, "play", c)
            if self.check_play_card(seat, c, a) is None:
                out.append(a)
        return out

    # -- views ----------------------------------------------------------------------------
    def trick_view(self, seat):
        """The trick-game part of a view: public table state plus seat's own hand."""
        out = {
            "game": self.ID, "seats": self.seats, "phase": self.phase, "turn": list(self.turn),
            "hand_no": self.hand_no, "held": list(self.held),
            "trick": [[s, self.card_code(c)] for s, c in self.trick],
            "leader": self.leader,
            "tricks_won": [sum(1 for t in self.hand_tricks if t[2] == s) for s in range(self.seats)],
            "last_trick": [[s, self.card_code(c)] for s, c in self.hand_tricks[-1][1]]
            if self.hand_tricks else [],
            "scores": self.scores, "over": self.over, "winner": self.winner,
        }
        if seat is not None and self.known[seat]:
            out["hand"] = self.codes(sorted(self.hands[seat]))
        return out

    def trick_dump(self):
        """The trick-game part of a dump: everything."""
        out = self.trick_view(None)
        out["hands"] = [self.codes(h) for h in self.hands]
        out["known"] = list(self.known)
        out["won"] = [self.codes(w) for w in self.won]
        out["where"] = hexlify(self.where).decode()
        out["absent"] = [hexlify(a).decode() for a in self.absent]
        out["revokes"] = list(self.revokes)
        out["trick_winners"] = list(self.trick_winners)
        return out
