"""Plain Tricks: two players, six cards each, follow suit, a point a trick, first to 5.

A throwaway trick game for tests/host/test_new_game.py: copied into a temporary tree as
firmware/lib/cardtable/games/plaintricks.py with one registry line and one board layout, it
must pass the conformance suite, the referee and a game on the virtual board with no other
change (a game is its module). Rules: the dealer deals six cards to each player, the rest stay
aside unseen; the non-dealer leads; follow suit if you can, else play anything; the highest
card of the suit led wins (ace high) and leads next; each trick scores a point. After six
tricks the hand ends: whoever has ``target`` points or more and more than the other wins,
else the dealer changes and another hand is dealt.
"""
from cardtable.cards import standard as std
from cardtable.games import seat_range
from cardtable.games.trick import TrickGame

HAND = 6


def _order(c):
    """Rank strength inside a suit: 2 low .. ace high."""
    r = std.rank(c)
    return 14 if r == std.ACE else r


class PlainTricks(TrickGame):
    """Plain Tricks on the trick core."""

    ID = "plain-tricks"
    DECK = "standard"
    SEATS = seat_range("plain-tricks")
    CARDS = std.DECK
    OPTIONS = {"target": 5}
    VERBS = {"deal": ("piles",), "play": ("card",)}
    PILES = ("hands",)
    DEAL_PATTERN = (("hands", HAND),)
    PHASES = (("play", "the play", "play", ("play",)),)

    @classmethod
    def check_rule_values(cls, rules):
        if rules["target"] < 1:
            raise cls.option_error("target", "a positive score", rules["target"])

    def reset(self):
        self.score = [0, 0]
        self.dealer = self.first_dealer
        self.over = False
        self.winner = None
        self.reset_tricks()
        self.reset_hand()
        self.phase = "deal"

    @property
    def turn(self):
        return (self.next_in_trick(),) if self.phase == "play" else ()

    def check_deal(self, action):
        # one hand of HAND cards per seat (None: a hand not seen), no card dealt twice
        piles = action[2]
        if not isinstance(piles, dict) or [k for k in piles if k != "hands"]:
            return "a plain-tricks deal names one pile: hands"
        hands = piles.get("hands")
        if hands is None:
            return None
        if not isinstance(hands, list) or len(hands) != self.seats:
            return "the deal has one hand per seat, %d in all" % self.seats
        seen = []
        for h in hands:
            if h is not None and (not isinstance(h, list) or len(h) != HAND):
                return "each hand must be a list of %d cards" % HAND
            for c in h or ():
                why = self.card_reason(c)
                if why:
                    return why
                if c in seen:
                    return "the %s is dealt twice" % self.card_code(c)
                seen.append(c)
        return None

    def do_deal(self, action):
        self.reset_hand()
        self.hand_no += 1
        self.deal_hands(action[2].get("hands"), HAND)
        self.leader = 1 - self.dealer
        self.phase = "play"
        return [{"ev": "deal", "hand": self.hand_no, "dealer": self.dealer}]

    def random_deal(self, rng):
        cards = rng.shuffle(list(std.DECK))
        return (None, "deal", {"hands": [cards[0:HAND], cards[HAND:2 * HAND]]})

    def follow_rules(self, seat):
        led = self.led

        def follows(c):
            return std.suit(c) == led

        return ((follows, follows, "must follow %s" % std.SUIT_NAMES[led]),)

    def led_suit(self, card, action):
        return std.suit(card)

    def power(self, card):
        return _order(card) if std.suit(card) == self.led else 0

    def check_play(self, action):
        return self.check_play_card(action[0], action[2], action)

    def do_play(self, action):
        return self.play_card(action[0], action[2], action)

    def trick_done(self, winner):
        self.score[winner] += 1
        return []

    def legal(self, seat):
        if self.phase != "play" or seat not in self.turn:
            return []
        return self.legal_plays(seat)

    def end_hand(self):
        events = [{"ev": "hand", "hand": self.hand_no, "scores": list(self.score)}]
        hi = max(self.score)
        if hi >= self.rules["target"] and self.score.count(hi) == 1:
            self.end(self.score.index(hi))
            self.phase = "over"
            events.append({"ev": "over", "winner": self.winner, "scores": list(self.score)})
        else:
            self.dealer = 1 - self.dealer
            self.phase = "deal"
        return events

    def view(self, seat=None):
        out = self.trick_view(seat)
        out["dealer"] = self.dealer
        return out

    def dump(self):
        out = self.trick_dump()
        out["dealer"] = self.dealer
        return out
