"""Nexus (Curtis Parks, pagat): two players, 42 cards, trumps from the kitty, honours scoring.

As refereed (research/rules-decisions.md section 1):
- Deck: 52 cards without the 2s, 3s and 4s, plus the Little and Big jokers (42). Plain suits rank
  A K Q J 10 9 8 7 6 5 (N1); the jokers are the top trumps: Big > Little > ace of trumps.
- Deal: 6 cards to the kitty, whose last two are set apart face down as the trump indicators,
  then 9 to each player for round 1 and, after its 9 tricks, 9 more each for round 2. The first
  indicator names trump for round 1, the second is turned up for round 2 only (N2).
- Play: the non-dealer leads round 1 and (N3) round 2; any card may be led. Follow suit if you
  can (the jokers belong to the trump suit); no need to beat or to trump. A trump beats any
  plain card, the higher card of the suit led wins, and of two different plain suits the card
  led wins. The winner of a trick leads the next.
- A joker turned up as indicator: that round's trump suit is the jokers alone, so a joker lead
  must be followed by the other joker if held (N4); the dealer scores ``joker_bonus`` per joker
  turned up, when it is turned.
- Scoring: one point per honour (A K Q J, LJ, BJ: 18 in all) among the cards a player took; the
  winner of round 2's last trick takes the six kitty cards (both indicators included) and their
  honours. A deal is 18 points plus the joker bonuses. One deal is one game by default (N5),
  higher score wins, equal scores draw; match play is an option and alternates the dealer.
- Unknown hands: any hand may be unseen; the indicators must be in the deal (the table reads them
  face down, the second stays out of every view until round 2). The kitty is secret until it is
  taken (N6); if it was not scanned it is whatever remains after the 36 plays.

Rule options:

| option          | default (seed)  | variant                                                  | decision |
|-----------------|-----------------|----------------------------------------------------------|----------|
| (ranks)         | A high, 5 low   | fixed: the seed's "... 2" is a template leftover         | N1 |
| ``up2_hidden``  | True            | False: both indicators visible from the deal ("plain view") | N2 |
| ``round2_leader`` | "nondealer"   | "winner": the winner of round 1's last trick leads round 2 | N3 |
| ``joker_bonus`` | 4               | any points per joker indicator (0: none); both jokers turned = twice | N4 |
| ``match_points``| 0 (one deal)    | N: deals until a player has N or more at a deal's end, higher total wins (a tie plays on) | N5 |
| ``match_deals`` | 0 (one deal)    | K: best of K deals (more deals won; decided as soon as the other cannot catch up; equal = draw) | N5 |
| (kitty)         | secret          | fixed: seen only when taken after the last trick         | N6 |

Verbs: ``play`` (card). Deal piles: ``up`` (the two indicators, round 1's first; required),
``kitty`` (the other 4 kitty cards), ``hands`` (round 1: two lists of 9) and ``hands2``
(round 2: two lists of 9); in ``hands``/``hands2`` either seat may be null = not seen, and
``kitty``, ``hands``, ``hands2`` may be absent. Tricks are numbered 1..18 through a deal.
"""
from cardtable.cards import standard as std
from cardtable.compat import const
from cardtable.games import seat_range
from cardtable.games.base import ONE
from cardtable.games.trick import KITTY, PLAYED, UP, TrickGame

_LATER = const(205)     # where[]: in a round 2 hand, not yet dealt
_JOKERS = const(4)      # trump "suit" when a joker is the indicator; std.suit(joker) is 4
_TRICKS = const(9)      # tricks per round


def _order(c):
    """Strength inside its suit: 5 low, ace 14, Little Joker 15, Big Joker 16."""
    r = std.rank(c)
    if r == 1:
        return 14
    return r + 1 if r >= 14 else r


def honour(c):
    """True for the scoring cards: aces, kings, queens, jacks and the jokers."""
    r = std.rank(c)
    return r == 1 or r >= 11


class Nexus(TrickGame):
    """Nexus on the trick core: two rounds of nine tricks per deal."""

    ID = "nexus"
    DECK = "standard"
    SEATS = seat_range("nexus")  # its registry entry (games/__init__.py)
    CARDS = tuple(c for c in std.DECK_WITH_JOKERS if c >= std.LJ or std.rank(c) == 1
                  or std.rank(c) >= 5)
    OPTIONS = {
        "up2_hidden": True,
        "round2_leader": "nondealer",
        "joker_bonus": 4,
        "match_points": 0,
        "match_deals": 0,
    }
    VERBS = {"deal": ("piles",), "play": ("card",)}
    PILES = ("up", "kitty", "hands", "hands2")
    PUBLIC_PILES = ("up",)
    PRIVATE_PLACES = TrickGame.PRIVATE_PLACES + ("is dealt in round 2",)
    # six to the kitty, the last two of them the indicators, nine each for round 1, then nine
    # each for round 2, set aside face down (the same cards the pack would give after round 1)
    DEAL_PATTERN = (("kitty", 4), ("up", 2), ("hands", 9), ("hands2", 9))
    _SIZES = (("up", 2), ("kitty", 4), ("hands", 9), ("hands2", 9))  # a deal's piles

    PHASES = (("play", "the play", "play", ("play",)),)

    @classmethod
    def check_rule_values(cls, rules):
        cls.check_choices(rules, (("round2_leader", ("nondealer", "winner")),))
        for key in ("joker_bonus", "match_points", "match_deals"):
            if rules[key] < 0:
                raise cls.option_error(key, "0 or more", rules[key])
        if rules["match_points"] and rules["match_deals"]:
            raise cls.option_error("match_deals", "0 when match_points is set (match play is to points or over deals, not both)",
                                   rules["match_deals"])

    def reset_table(self, t):
        """The table's scratch for this game's inputs, cleared for each new game (table/inputs.py)."""
        t.indicators = []  # trump indicators seen while dealing

    def reset(self):
        self.reset_tricks()
        self.reset_hand()
        self.dealer = self.first_dealer
        self.totals = [0, 0]          # points of finished deals
        self.deals = []               # [seat 0, seat 1] points of each finished deal
        self.deal_wins = [0, 0]
        self.over = False
        self.winner = None
        self._clear_deal()
        self.phase = "deal"
        self._follow = {}             # led suit (+ 8 when it is trump) -> its follow rules, made once

    def _clear_deal(self):
        """Forget the last deal's piles."""
        self.round = 0                # 1 or 2 while a deal is played, 0 between deals
        self.trump = -1
        self.up = None                # the two indicators
        self.shown = 0                # how many indicators are turned up
        self.kitty = None             # the other four kitty cards, if scanned
        self.hands2 = None            # round 2 hands (None per seat not seen) until dealt
        self.bonus = [0, 0]
        self.taken = None             # the six kitty cards once taken
        self.kitty_to = None

    @property
    def scores(self):
        if not self.round:
            return list(self.totals)
        pts = self.deal_points()
        return [self.totals[0] + pts[0], self.totals[1] + pts[1]]

    @property
    def turn(self):
        if self.phase != "play":
            return ()
        return ONE[self.next_in_trick()]

    def deal_points(self):
        """This deal's points so far: honours taken plus joker bonuses."""
        out = list(self.bonus)
        for s in (0, 1):
            for c in self.won[s]:
                if honour(c):
                    out[s] += 1
        return out

    # -- the deal -------------------------------------------------------------------------
    def check_deal(self, action):
        piles = action[2]
        if isinstance(piles, dict) and piles.get("up") is None:
            return "the deal must show the two trump indicators: an 'up' pile"
        return self.check_deal_piles(piles, self._SIZES)

    def deal_reason(self, kind, name, want, got, seat):
        if kind == "hands":
            return "the %s pile holds one hand per seat (2), not %d" % (name, got)
        return "each %s must hold %d cards" % ("hand" if want == 9 else name + " pile", want)

    def do_deal(self, action):
        piles = action[2]
        self.reset_hand()
        self._clear_deal()
        self.hand_no += 1
        self.round = 1
        self.up = (piles["up"][0], piles["up"][1])
        kitty = piles.get("kitty")
        if kitty is not None:
            self.kitty = list(kitty)
            self.place(kitty, KITTY)
        self.place(self.up, KITTY)
        h2 = piles.get("hands2") or (None, None)
        self.hands2 = [None if h is None else list(h) for h in h2]
        for h in self.hands2:
            if h is not None:
                self.place(h, _LATER)
        self.deal_hands(piles.get("hands"), _TRICKS)
        self.leader = 1 - self.dealer
        self.phase = "play"
        events = [{"ev": "deal", "hand": self.hand_no, "dealer": self.dealer}]
        return events + self._turn_up()

    def _turn_up(self):
        """Turn up the next indicator: it names this round's trump; a joker pays the dealer."""
        card = self.up[self.shown]
        self.shown += 1
        self.where[card] = UP
        self.trump = std.suit(card)
        events = [{"ev": "trump", "round": self.round, "up": self.card_code(card),
                   "trump": self.trump_code()}]
        bonus = self.rules["joker_bonus"]
        if card >= std.LJ and bonus:
            self.bonus[self.dealer] += bonus
            events.append({"ev": "bonus", "seat": self.dealer, "points": bonus,
                           "reason": "a joker turned up as trump"})
        return events

    def trump_code(self):
        """The trump as shown: a suit letter, 'jokers', or None between deals."""
        if self.trump < 0:
            return None
        return "jokers" if self.trump == _JOKERS else std.fmt_suit(self.trump)

    def random_deal(self, rng):
        cards = rng.shuffle(list(self.CARDS))
        first = 1 - self.dealer      # the non-dealer is dealt first
        hands, hands2 = [None, None], [None, None]
        hands[first], hands[self.dealer] = cards[6:15], cards[15:24]
        hands2[first], hands2[self.dealer] = cards[24:33], cards[33:42]
        return (None, "deal", {"kitty": cards[0:4], "up": cards[4:6],
                               "hands": hands, "hands2": hands2})

    # -- play -----------------------------------------------------------------------------
    def esuit(self, c):
        """The suit a card belongs to this round: a joker is a trump."""
        return self.trump if c >= std.LJ else std.suit(c)

    def follow_rules(self, seat):
        led = self.led
        key = led + 8 if led == self.trump else led
        rules = self._follow.get(key)
        if rules is None:
            if led == _JOKERS:
                why = "must follow with the other joker"
            elif led == self.trump:
                why = "must follow trumps: %s or a joker" % std.SUIT_NAMES[led]
            else:
                why = "must follow %s" % std.SUIT_NAMES[led]
            rules = self._follow[key] = ((self.follows, self.follows, why),)
        return rules

    def follows(self, c):
        """c belongs to the suit led this round."""
        return self.esuit(c) == self.led

    def led_suit(self, card, action):
        return self.esuit(card)

    def power(self, card):
        s = self.esuit(card)
        if s == self.trump:
            return 100 + _order(card)
        return _order(card) if s == self.led else 0

    def where_reason(self, seat, card):
        if self.where[card] == _LATER:
            return "the %s is dealt in round 2" % self.card_code(card)
        return TrickGame.where_reason(self, seat, card)

    def check_play(self, action):
        return self.check_play_card(action[0], action[2], action)

    def do_play(self, action):
        return self.play_card(action[0], action[2], action)

    def legal(self, seat):
        if self.phase != "play" or seat not in self.turn:
            return []
        return self.legal_plays(seat)

    def trick_done(self, winner):
        if len(self.hand_tricks) != _TRICKS:
            return []
        # Round 1 is over: deal round 2 and turn up the second indicator.
        self.round = 2
        for s in (0, 1):
            self.hands[s] = []
            self.known[s] = False
            h = self.hands2[s]
            if h is None:
                self.give_unseen(s, _TRICKS)
            else:
                self.give(s, h)
                self.known[s] = True
        self.hands2 = None
        if self.rules["round2_leader"] == "nondealer":
            self.leader = 1 - self.dealer
        events = [{"ev": "round", "round": 2, "leader": self.leader}]
        return events + self._turn_up()

    # -- scoring --------------------------------------------------------------------------
    def end_hand(self):
        last = self.trick_winners[-1]
        # Every card not played is in the kitty, so an unscanned kitty is known by now.
        self.taken = [c for c in self.CARDS if self.where[c] != PLAYED]
        self.kitty_to = last
        self.won[last].extend(self.taken)
        pts = self.deal_points()
        self.deals.append(pts)
        for s in (0, 1):
            self.totals[s] += pts[s]
        if pts[0] != pts[1]:
            self.deal_wins[0 if pts[0] > pts[1] else 1] += 1
        self.round = 0
        self.trump = -1
        events = [{"ev": "kitty", "seat": last, "cards": self.codes(self.taken)},
                  {"ev": "hand", "hand": self.hand_no, "points": pts,
                   "scores": list(self.totals)}]
        self._match_end()
        if self.over:
            self.phase = "over"
            events.append({"ev": "over", "winner": self.winner, "scores": list(self.totals)})
        else:
            self.dealer = 1 - self.dealer
            self.phase = "deal"
        return events

    def _match_end(self):
        """Decide whether the game is over after a deal, and who won (None: a draw)."""
        t, w = self.totals, self.deal_wins
        target, deals = self.rules["match_points"], self.rules["match_deals"]
        if target:
            if max(t) >= target and t[0] != t[1]:
                self.end(0 if t[0] > t[1] else 1)
        elif deals:
            left = deals - len(self.deals)
            if left <= 0 or abs(w[0] - w[1]) > left:
                self.end(None if w[0] == w[1] else (0 if w[0] > w[1] else 1))
        else:
            self.end(None if t[0] == t[1] else (0 if t[0] > t[1] else 1))

    # -- views ----------------------------------------------------------------------------
    def public_pile(self, name, pile):
        """The indicators as laid: the second stays face down until round 2 (up2_hidden)."""
        return pile[:1] if name == "up" and self.rules["up2_hidden"] else pile

    # -- words ----------------------------------------------------------------------------
    def describe(self, ev):
        from cardtable.games import words
        kind = ev.get("ev")
        if kind == "trump":
            t = ev["trump"]
            return "round %d: the %s turns up: %s" % (
                ev["round"], words.show(self, ev["up"]),
                "the jokers alone are trumps" if t == "jokers"
                else words.suit_words(self, t) + " are trumps")
        if kind == "round":
            return "round 2: seat %d leads" % ev["leader"]
        if kind == "kitty":
            return "seat %d takes the kitty: %s" % (ev["seat"], words.show_all(self, ev["cards"]))
        if kind == "hand":
            return "hand %d: honours taken %s" % (ev["hand"], words.score_words(self, ev["points"]))
        return words.describe(self, ev)

    def view(self, seat=None):
        out = self.trick_view(seat)
        out["dealer"] = self.dealer
        out["round"] = self.round
        out["trump"] = self.trump_code()
        up = []
        if self.up is not None:
            shown = self.shown if self.rules["up2_hidden"] and self.taken is None else 2
            up = self.codes(self.up[:shown])
        out["up"] = up
        out["kitty"] = None if self.taken is None else self.codes(self.taken)
        out["kitty_to"] = self.kitty_to
        out["points"] = self.deal_points() if self.hand_no else [0, 0]
        out["deals"] = [list(p) for p in self.deals]
        out["deal_wins"] = list(self.deal_wins)
        return out

    def dump(self):
        out = self.trick_dump()
        out.update(self.view(None))
        out["all_up"] = None if self.up is None else self.codes(self.up)
        out["kitty_pile"] = None if self.kitty is None else self.codes(self.kitty)
        out["hands2"] = None if self.hands2 is None else \
            [None if h is None else self.codes(h) for h in self.hands2]
        out["bonus"] = list(self.bonus)
        out["totals"] = list(self.totals)
        out["shown"] = self.shown
        return out
