"""California Jacks: two players, trump from the cut card, stock draws, High/Low/Jack/Game to 10.

As refereed (research/rules-decisions.md section 5):
- Each player is dealt 6; the rest is the stock, face up. Its first card (the cut card) names
  trump (C1). The non-dealer leads the first trick, then each trick's winner leads.
- Following (seed): follow suit if you can; if you cannot, trump if you can; if you can do
  neither, play anything and lose ``void_penalty`` points at once (C2, C3).
- The winner of a trick draws the top stock card, the loser the next; both are public (C6).
  With the stock gone the last six tricks are played out: 26 tricks a hand.
- A hand scores 1 each for High (ace of trumps), Low (two of trumps), Jack (jack of trumps) to
  whoever took it, and Game to the higher count of card points (10 = 10, A = 4, K = 3, Q = 2,
  J = 1; 80 in all). Every point won in the hand is scored; whoever reaches ``target`` wins.
  When both reach it in the same hand, the points are counted in the order High, Low, Jack,
  Game and the first to reach it wins (C5). In the ``count_out`` variant the counting stops at
  the point that reaches the target: the points after it are not scored, and the hand's result
  says so. The dealer alternates.

Rule options:

| option                          | default (seed) | variant                                   | decision |
|---------------------------------|----------------|-------------------------------------------|----------|
| ``may_trump_instead_of_following`` | False       | True: follow or trump if you can (standard) | C2 |
| ``void_penalty``                | 1              | 0: no penalty (standard)                  | C3 |
| ``game_tie``                    | "nobody"       | "non-dealer": a tie for Game goes to the non-dealer | C4 |
| ``target``                      | 10             | 7 (Foster)                                | C5 |
| ``end_count``                   | "all": every point of the last hand scores | "count_out": stop at the point that reaches the target | C5 |

``may_trump_instead_of_following`` is the same rule, under the same name, in Forty-Fives.

Verbs: ``play`` (card). Deal piles: ``hands`` (two lists of 6, either may be null = not seen),
``stock`` (40 cards, top first: the first is the cut card) or, when the stock was not scanned,
``up`` (the cut card alone; later draws are then unseen).
"""
from cardtable.cards import standard as std
from cardtable.games import seat_range
from cardtable.games.base import ONE
from cardtable.games.trick import STOCK, UP, TrickGame

_POINTS = (0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 10, 1, 2, 3)   # by rank: A=4, 10=10, J=1, Q=2, K=3


def _order(c):
    """Rank strength inside a suit: 2 low .. ace high."""
    r = std.rank(c)
    return 14 if r == 1 else r


_SIZES = (("hands", 6), ("stock", 40), ("up", 1))  # a deal's piles (the stock and up: as scanned)


class CaliforniaJacks(TrickGame):
    """California Jacks on the trick core."""

    ID = "california-jacks"
    DECK = "standard"
    SEATS = seat_range("california-jacks")  # its registry entry (games/__init__.py)
    DEMO_SEED = 7  # a seed-literal game can run to dozens of hands (the void penalty)
    SIM_SEED = 171
    CARDS = std.DECK
    OPTIONS = {
        "may_trump_instead_of_following": False,
        "void_penalty": 1,
        "game_tie": "nobody",
        "target": 10,
        "end_count": "all",
    }
    VERBS = {"deal": ("piles",), "play": ("card",)}
    PILES = ("hands", "stock", "up")
    DEAL_PATTERN = (("hands", 6), ("stock", None))  # six each, then the face-up stock, top first
    PUBLIC_PILES = ("up",)  # the cut card; the deal event names it when the stock was scanned

    PHASES = (("play", "the play", "play", ("play",)),)

    @classmethod
    def check_rule_values(cls, rules):
        cls.check_choices(rules, (("game_tie", ("nobody", "non-dealer")),
                                  ("end_count", ("all", "count_out"))))
        if rules["target"] < 1:
            raise cls.option_error("target", "a positive score", rules["target"])
        if rules["void_penalty"] < 0:
            raise cls.option_error("void_penalty", "0 or more", rules["void_penalty"])

    def reset(self):
        self.score = [0, 0]
        self.dealer = self.first_dealer
        self.over = False
        self.winner = None
        self.reset_tricks()
        self.reset_hand()
        self.phase = "deal"
        self.make_rules()

    def make_rules(self):
        """The follow obligations per led suit, made once: checking a play allocates nothing."""
        out = []
        for s in range(4):
            name = std.SUIT_NAMES[s]
            if self.rules["may_trump_instead_of_following"]:
                out.append(((self.either, self.either, "must follow %s or trump" % name),))
            else:
                out.append(((self.follows, self.follows, "must follow %s" % name),
                            (self.trumps, self.trumps, "cannot follow %s, so must trump" % name)))
        self._rules = tuple(out)

    def follows(self, c):
        return std.suit(c) == self.led

    def trumps(self, c):
        return std.suit(c) == self.trump

    def either(self, c):
        return std.suit(c) == self.led or std.suit(c) == self.trump

    @property
    def turn(self):
        if self.phase != "play":
            return ()
        return ONE[self.next_in_trick()]

    # -- the deal -------------------------------------------------------------------------
    def check_deal(self, action):
        piles = action[2]
        reason = self.check_deal_piles(piles, _SIZES)
        if reason:
            return reason
        if piles.get("stock") is None and piles.get("up") is None:
            return "the deal must show the cut card: a 'stock' or an 'up' pile"
        if piles.get("stock") is not None and piles.get("up") is not None \
                and piles["up"][0] != piles["stock"][0]:
            return "the up card must be the top of the stock"
        return None

    def do_deal(self, action):
        piles = action[2]
        self.reset_hand()
        self.hand_no += 1
        self.deal_hands(piles.get("hands"), 6)
        stock = piles.get("stock")
        self.stock = list(stock) if stock is not None else None
        self.up = stock[0] if stock is not None else piles["up"][0]
        self.stock_left = 40
        if stock is not None:
            self.place(stock, STOCK)
        self.where[self.up] = UP
        self.trump = std.suit(self.up)
        self.draws = []                      # (seat, card or None) in draw order: public
        self.leader = 1 - self.dealer
        self.phase = "play"
        return [{"ev": "deal", "hand": self.hand_no, "dealer": self.dealer,
                 "trump": std.fmt_suit(self.trump), "up": self.card_code(self.up)}]

    def random_deal(self, rng):
        cards = rng.shuffle(list(std.DECK))
        return (None, "deal", {"hands": [cards[0:6], cards[6:12]], "stock": cards[12:]})

    # -- play -----------------------------------------------------------------------------
    def follow_rules(self, seat):
        return self._rules[self.led]

    def led_suit(self, card, action):
        return std.suit(card)

    def power(self, card):
        s = std.suit(card)
        if s == self.trump:
            return 100 + _order(card)
        return _order(card) if s == self.led else 0

    def check_play(self, action):
        return self.check_play_card(action[0], action[2], action)

    def do_play(self, action):
        seat, card = action[0], action[2]
        events = []
        penalty = self.rules["void_penalty"]
        if self.trick and penalty and std.suit(card) != self.led and std.suit(card) != self.trump:
            self.score[seat] -= penalty
            events.append({"ev": "penalty", "seat": seat, "points": -penalty,
                           "reason": "could neither follow nor trump"})
        if not events:
            return self.play_card(seat, card, action)
        return events + self.play_card(seat, card, action)

    def trick_done(self, winner):
        events = []
        for seat in (winner, 1 - winner):
            if not self.stock_left:
                break
            n = 40 - self.stock_left
            self.stock_left -= 1
            if n == 0:
                card = self.up
            elif self.stock is not None:
                card = self.stock[n]
            else:
                card = None
            if card is None:
                self.give_unseen(seat, 1)
            else:
                self.give(seat, (card,))
            self.draws.append((seat, card))
            events.append({"ev": "draw", "seat": seat,
                           "card": None if card is None else self.card_code(card)})
        return events

    def legal(self, seat):
        if self.phase != "play" or seat not in self.turn:
            return []
        return self.legal_plays(seat)

    # -- scoring --------------------------------------------------------------------------
    def end_hand(self):
        trump = self.trump
        taker = [0] * 64
        count = [0, 0]
        for s in (0, 1):
            for c in self.won[s]:
                taker[c] = s
                count[s] += _POINTS[std.rank(c)]
        points = {"high": taker[std.card(std.ACE, trump)], "low": taker[std.card(2, trump)],
                  "jack": taker[std.card(std.JACK, trump)]}
        if count[0] != count[1]:
            points["game"] = 0 if count[0] > count[1] else 1
        elif self.rules["game_tie"] == "non-dealer":
            points["game"] = 1 - self.dealer
        else:
            points["game"] = None
        target = self.rules["target"]
        count_out = self.rules["end_count"] == "count_out"
        ev = {"ev": "hand", "hand": self.hand_no, "points": points, "card_points": count}
        names = ("high", "low", "jack", "game")
        for i in range(4):
            s = points[names[i]]
            if s is None:
                continue
            self.score[s] += 1
            if not self.over and self.score[s] >= target:
                # the first to reach the target in the order High, Low, Jack, Game wins
                self.end(s)
                if count_out:
                    ev["counted_out"] = names[i]
                    ev["uncounted"] = [n for n in names[i + 1:] if points[n] is not None]
                    break
                if self.score[1 - s] + sum(1 for n in names[i + 1:] if points[n] == 1 - s) \
                        >= target:
                    ev["decided_on"] = names[i]     # both reach it: the count order decides
        ev["scores"] = list(self.score)
        events = [ev]
        if self.over:
            self.phase = "over"
            events.append({"ev": "over", "winner": self.winner, "scores": list(self.score)})
        else:
            self.dealer = 1 - self.dealer
            self.phase = "deal"
        return events

    # -- views ----------------------------------------------------------------------------
    # -- words ----------------------------------------------------------------------------
    def furniture(self, view, out):
        """The stock's face-up top card (the next a trick's winner draws), for the page (host only)."""
        if view.get("stock_top"):
            out["rows"].append({"label": "top of the stock", "cards": [view["stock_top"]]})

    def describe(self, ev):
        from cardtable.games import words
        kind = ev.get("ev")
        if kind == "deal":
            return "hand %d: seat %d deals; the cut card %s makes %s trumps" % (
                ev["hand"], ev["dealer"], words.show(self, ev["up"]),
                words.suit_words(self, ev["trump"]))
        if kind == "hand":
            cap = {"high": "High", "low": "Low", "jack": "Jack", "game": "Game"}
            pts = ev["points"]
            won = []
            for name in ("high", "low", "jack", "game"):
                s = pts[name]
                won.append("%s %s" % (cap[name], "nobody (a tie)" if s is None
                                      else "seat %d" % s))
            out = "hand %d: %s (card points %d to %d)" % (
                ev["hand"], ", ".join(won), ev["card_points"][0], ev["card_points"][1])
            if "counted_out" in ev:
                out += "; counted out on %s%s" % (cap[ev["counted_out"]], (
                    ": %s not counted" % ", ".join(cap[n] for n in ev["uncounted"])
                    if ev["uncounted"] else ""))
            if "decided_on" in ev:
                out += "; both reach %d: %s decides" % (self.rules["target"],
                                                       cap[ev["decided_on"]])
            return out
        return words.describe(self, ev)

    def view(self, seat=None):
        out = self.trick_view(seat)
        out["dealer"] = self.dealer
        if self.phase != "deal" or self.hand_no:
            out["trump"] = std.fmt_suit(self.trump)
            out["stock_left"] = self.stock_left
            top = None
            if self.stock_left:
                n = 40 - self.stock_left
                top = self.up if n == 0 else (self.stock[n] if self.stock is not None else None)
            out["stock_top"] = None if top is None else self.card_code(top)
            out["draws"] = [[s, None if c is None else self.card_code(c)] for s, c in self.draws]
        return out

    def dump(self):
        out = self.trick_dump()
        out.update(self.view(None))
        out["stock"] = None if self.phase == "deal" and not self.hand_no or self.stock is None \
            else self.codes(self.stock)
        return out
