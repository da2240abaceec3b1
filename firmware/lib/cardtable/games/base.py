"""The shape every game shares: options, the action log, undo by replay, and the public API."""
# An action is a tuple ``(seat, verb, field, ...)`` whose fields follow ``VERBS[verb]``; a deal is
# ``(None, "deal", piles)`` with piles a dict of pile name -> list of cards (a pile the table did not
# see may be absent or None). Events are small dicts such as ``{"ev": "trick", "seat": 1}``.


# Old names of rule options, still read from rule options and record headers: old name -> the
# one name a rule has in every game that has it.
RENAMED = {"may_trump_when_following": "may_trump_instead_of_following"}

# The turn of one seat and of the first n seats, made once: a game's ``turn`` returns one of
# these, so asking whose turn it is allocates nothing (ONE[s] is (s,), FIRST[n] is (0, .., n-1)).
ONE = tuple((s,) for s in range(8))
FIRST = tuple(tuple(range(n)) for n in range(9))

# What check() and apply() look up on every action, set on each game class at its first game
# (class attributes: a table's checkpoint copies the game's own attributes, not these):
# _fns, verb -> (check_<verb>, do_<verb>), plain functions called with the game (no name built
# and no bound method made per action); _verbs, phase -> the verbs it allows; _cards, card -> 1
# for the cards of the deck; _owner, the class they were made for (a subclass makes its own).
# Nothing outside the class refers to it: games.unload() still frees a game's rules.


def _strings(v, out):
    """Every string inside a record object's values (codes of cards among them) into out."""
    if isinstance(v, str):
        out.append(v)
    elif isinstance(v, dict):
        for k in v:
            _strings(v[k], out)
    elif isinstance(v, (list, tuple)):
        for x in v:
            _strings(x, out)


class IllegalAction(ValueError):
    """An action the rules do not allow; ``reason`` says why in words a player understands."""

    def __init__(self, reason, action=None):
        super().__init__(reason)  # MicroPython: ValueError has no __init__ attribute
        self.reason = reason
        self.action = action


def _named(pairs, name):
    for p in pairs:
        if p[0] == name:
            return True
    return False


class Game:
    """Base class of every game's rules. Subclasses fill in the hooks marked 'subclass'."""

    ID = ""
    DECK = "standard"           # card family of cardtable.cards
    SEATS = (2, 2)              # fewest and most players
    HAS_DEALER = True
    TEAMS = False               # True: seats s and s+2 are partners and share a score
    OPTIONS = {}                # rule option name -> seed-literal default
    VERBS = {}                  # verb -> field names; a name ending in '?' is optional
    CARDS = ()                  # the cards of the game's deck (ints)
    PILES = ()                  # piles a deal may name
    PUBLIC_PILES = ()           # deal piles every spectator sees (face up); the rest stay hidden
    SECRET = {}                 # verb -> (field, count field or None): cards a spectator sees
                                # only counted (None: not at all)
    PRIVATE_PLACES = ()         # words after "the QD " in a reason that tell where a card lies
                                # hidden ("is in seat "): public_reason says "elsewhere"
    # The phases of a hand in order, the vocabulary of turn reasons: (phase, what it is called,
    # what the seat to act is to do, the verbs it allows). A game without them plays all along.
    PHASES = ()
    DEAL_PATTERN = ()           # the dealing order across a deal pad: (pile, n) steps; "hands"
                                # gives n to each seat in turn from the dealer's left, n None
                                # is the rest of the pack (table/dealpad.py)
    # What the table does for a game beyond its zone roles (table/inputs.py, controller.py),
    # set by the games that need them and read with a default (an attribute here would keep
    # heap on the board for every game): AUTO_DEAL (the table never sees the hands dealt: it
    # deals them unseen, default False), TIMED (actions carry ms since the round began), LEAD_SUIT
    # (a lead of several suits waits for a suit button to name one), CONFIRM (the verb a confirm,
    # tap pad or button, makes mid-hand; default None), OWNED (every player brings a deck; a
    # card's code names its owner), reset_table(t) (a method: sets on the table t the scratch
    # its inputs keep for this game between actions, e.g. cards laid on a pad until confirmed;
    # the table calls it for each new game).
    # Host only, where a game needs them (read with a default too): DEMO_SEED and SIM_SEED,
    # seeds whose bot games end at a watchable length (cardtable demo, cardtable sim; default
    # 1), and DEMO_SEATS (default: the fewest).

    def __init__(self, seats, dealer=0, rules=None):
        lo, hi = self.SEATS
        if not isinstance(seats, int) or not lo <= seats <= hi:
            if lo == hi:
                raise ValueError("%s is for %d players, not %r" % (self.ID, lo, seats))
            raise ValueError("%s is for %d to %d players, not %r" % (self.ID, lo, hi, seats))
        if not isinstance(dealer, int) or not 0 <= dealer < seats:
            raise ValueError("dealer must be a seat 0..%d, not %r" % (seats - 1, dealer))
        self.seats = seats
        self.first_dealer = dealer
        self.rules = self.check_rules(rules or {})
        from cardtable.cards import deck
        self.deck = deck(self.DECK)
        self.history = []
        self._checked = None        # the action check() last passed, while the game is unchanged
        self.reset()
        self._lookups()

    def _lookups(self):
        """Give this game's class its per-action lookups, once."""
        cls = type(self)
        if getattr(cls, "_owner", None) is cls:
            return
        fns = {}
        for verb in cls.VERBS:
            fns[verb] = (getattr(cls, "check_" + verb, None), getattr(cls, "do_" + verb, None))
        verbs = {}
        for ph in cls.PHASES:  # the same phases whatever their order (Nonesuch's rules vary it)
            verbs[ph[0]] = ph[3]
        cards = b""
        if cls.card_reason is Game.card_reason and cls.CARDS:  # not for a game with its own test
            cards = bytearray(max(cls.CARDS) + 1)
            for c in cls.CARDS:
                cards[c] = 1
        cls._fns, cls._verbs, cls._cards = fns, verbs, cards
        cls._owner = cls

    @classmethod
    def check_rules(cls, rules):
        """The full option dict: defaults overridden by rules; raises ValueError on a bad one."""
        out = dict(cls.OPTIONS)
        for key in rules:
            got = rules[key]
            if key not in out and RENAMED.get(key) in out:
                key = RENAMED[key]
                if key in rules and rules[key] != got:
                    raise ValueError("rule option %r is given twice, under its old name too" % key)
            if key not in out:
                raise ValueError("unknown rule option %r for %s (options: %s)"
                                 % (key, cls.ID, ", ".join(sorted(out)) or "none"))
            want = out[key]
            if type(want) is bool and type(got) is not bool \
                    or type(want) is int and type(got) is not int \
                    or type(want) is str and type(got) is not str:
                raise ValueError("rule option %r takes a %s like %r, not %r"
                                 % (key, type(want).__name__, want, got))
            out[key] = got
        cls.check_rule_values(out)
        return out

    @classmethod
    def check_rule_values(cls, rules):
        """Subclass: raise ValueError for option values that make no sense together."""

    # -- subclass hooks ----------------------------------------------------------------------
    def reset(self):
        """Subclass: set up the state before the first action."""
        raise NotImplementedError

    def _check(self, action):
        """None if action is legal now, else the reason: calls the game's ``check_<verb>``."""
        return self._fns[action[1]][0](self, action)

    def _apply(self, action):
        """Make a legal action happen and return its events: calls the game's ``do_<verb>``."""
        self._checked = None
        return self._fns[action[1]][1](self, action)

    @property
    def turn(self):
        """Subclass: tuple of seats that may act now (empty while a deal is awaited or at the end)."""
        raise NotImplementedError

    def legal(self, seat):
        """Subclass: the legal actions of seat now, as far as the table knows its cards."""
        raise NotImplementedError

    def random_deal(self, rng):
        """Subclass: a complete deal action from a seeded shuffle."""
        raise NotImplementedError

    def view(self, seat=None):
        """Subclass: what seat (None = a spectator) may see, as a JSON-ready dict."""
        raise NotImplementedError

    def dump(self):
        """Subclass: the whole state as a JSON-ready dict (never leaves the device)."""
        raise NotImplementedError

    over = False
    winner = None
    keep_history = True         # False on the table: undo replays the journal on flash instead

    # -- the end of the game -----------------------------------------------------------------
    def end(self, winner):
        """The game is over: winner is the winning seat or team (None: a tie). Every game ends here."""
        self.over = True
        self.winner = winner

    # -- the deal ------------------------------------------------------------------------------
    def check_deal_piles(self, piles, sizes, unseen=False):
        """None if piles is a deal of this game, else the reason: only the piles of sizes ((name,
        cards) pairs, None: any number), a "hands..." pile one list per seat (None: not seen),
        every card of the deck (deal_card_reason) and none dealt twice (an OWNED game: none twice
        in one seat's deck); unseen: a card may be None (not seen)."""
        if not isinstance(piles, dict):
            return "a deal names its piles: %s" % ", ".join([p[0] for p in sizes])
        for name in piles:
            if not _named(sizes, name):
                return "a %s deal has no pile %r (piles: %s)" % (self.ID, name, ", ".join([p[0] for p in sizes]))
        seen = bytearray(64)
        owned = getattr(self, "OWNED", False)
        # a card of the deck passes deal_card_reason at once where it is card_reason (not
        # varied) and the deck has its table (_cards): no two calls per card of a deal
        deck = self._cards if type(self).deal_card_reason is Game.deal_card_reason else b""  # type: ignore[attr-defined]  # _lookups sets it
        for name, want in sizes:
            pile = piles.get(name)
            if pile is None:
                continue
            if not isinstance(pile, (list, tuple)):
                return "the %s pile must be a list of cards" % name
            groups = (pile,)
            if name[:5] == "hands":
                if len(pile) != self.seats:
                    return self.deal_reason("hands", name, self.seats, len(pile), None)
                groups = pile
            seat = -1
            for g in groups:
                seat += 1
                if g is None:
                    continue
                if not isinstance(g, (list, tuple)):
                    return self.deal_reason("list", name, want, None, seat)
                if want is not None and len(g) != want:
                    return self.deal_reason("size", name, want, len(g), seat)
                if owned:
                    for i in range(64):
                        seen[i] = 0
                for c in g:
                    if c is None and unseen:
                        continue
                    if type(c) is not int or not 0 <= c < len(deck) or not deck[c]:
                        why = self.deal_card_reason(c, seat if groups is pile else -1)
                        if why:
                            return why
                    k = c & 63 if owned else c
                    if seen[k]:
                        return "the %s is dealt twice" % self.card_code(c)
                    seen[k] = 1
        return None

    def deal_card_reason(self, c, seat):
        """None if c may be dealt (to seat's hand, -1: another pile), else why not (subclass may vary)."""
        return self.card_reason(c)

    def deal_reason(self, kind, name, want, got, seat):
        """The words for a misshapen deal pile (kind "hands": not one per seat, "list": not a
        list, "size": not want cards); a subclass may word them its own way."""
        if kind == "hands":
            return "the deal has %d hands for %d seats" % (got, want)
        if kind == "list":
            return "each hand must be a list of cards"
        return "the %s pile must hold %d cards, not %d" % (name, want, got)

    def deal_pattern(self):
        """The (pile, n) steps of a deal across the pad under these rules (subclass may vary)."""
        return self.DEAL_PATTERN

    @property
    def dealing(self):
        """True while the next action must be a deal."""
        return self.phase == "deal"

    @property
    def scores(self):
        """Cumulative score per seat (partners share theirs)."""
        return list(self.score)

    # -- what a spectator sees of an action -----------------------------------------------------
    def public(self, obj):
        """A record line as a spectator may see it: everything the table tells (an event, a
        verdict, an undo) passes through here. A deal keeps only its face-up piles, a SECRET
        field is emptied and its cards only counted."""
        verb = obj.get("act")
        if verb == "deal":
            out = {"act": "deal"}
            for name in self.PUBLIC_PILES:
                if obj.get(name) is not None:
                    out[name] = self.public_pile(name, obj[name])
            return out
        hide = self.SECRET.get(verb)
        if hide is None or not obj.get(hide[0]):
            return obj
        out = dict(obj)
        if hide[1] is None:  # not even counted: the field goes
            del out[hide[0]]
            return out
        out[hide[0]] = []
        if out.get(hide[1]) is None:
            out[hide[1]] = len(obj[hide[0]])
        return out

    def public_reason(self, obj, reason):
        """Why obj was refused, as a spectator or another seat may read it: a card public()
        hides (a face-down discard, a hand in a deal) is not named, "the AC" becomes "the card";
        where a hidden card lies is not told, "the QD is in seat 1's hand" becomes "the table
        saw the QD elsewhere" (check() and the journal keep the whole reason)."""
        if not reason:
            return reason
        pub = self.public(obj)
        if pub is not obj:
            reason = self._unnamed(obj, pub, reason)
        return self._unplaced(reason) if self.PRIVATE_PLACES else reason

    def _unplaced(self, reason):
        """reason without where a hidden card lies (the places of PRIVATE_PLACES)."""
        for place in self.PRIVATE_PLACES:
            i = reason.find(" " + place)
            j = reason.rfind("the ", 0, i) if i > 0 else -1
            code = reason[j + 4:i] if j >= 0 else ""
            if code and code != "card" and " " not in code:
                return reason[:j] + "the table saw the %s elsewhere" % code
        return reason

    def _unnamed(self, obj, pub, reason):
        """reason with no card named that obj shows and pub (its public form) hides."""
        hidden = []
        _strings(obj, hidden)
        shown = []
        _strings(pub, shown)
        words = reason.split(" ")
        for i in range(len(words)):
            w = words[i]
            core = w.strip("(),.;:'\"")
            if core and core in hidden and core not in shown:
                words[i] = w.replace(core, "card" if i and words[i - 1] == "the" else "a card")
        return " ".join(words)

    def public_pile(self, name, pile):
        """Subclass: what a spectator sees of a public deal pile (default: all of it)."""
        return pile

    # -- the API -------------------------------------------------------------------------------
    def check(self, action):
        """None if action is legal now, else a short reason a player understands."""
        # The shape, then the game's state, then whose turn and phase it is, then the game's
        # check_<verb>: each test once, inline (this runs on every card a player lays).
        if not isinstance(action, tuple) or len(action) < 2:
            return "an action is a tuple (seat, verb, ...)"
        seat = action[0]
        verb = action[1]
        fields = self.VERBS.get(verb)
        if fields is None:
            return "%s has no action %r" % (self.ID, verb)
        if len(action) != len(fields) + 2:
            return "%r takes %s" % (verb, ", ".join(fields) or "nothing")
        if verb == "deal":
            if seat is not None:
                return "a deal has no seat"
            if self.over:
                return "the game is over"
            if self.phase != "deal":  # (dealing, inline)
                return "no deal is due now"
        else:
            if not isinstance(seat, int) or not 0 <= seat < self.seats:
                return "no seat %r at a %d-player table" % (seat, self.seats)
            if self.over:
                return "the game is over"
            phase = self.phase
            if phase == "deal":  # (dealing, inline)
                return "the cards must be dealt first"
            allowed = self._verbs.get(phase)
            if allowed is not None and verb not in allowed or seat not in self.turn:
                return self.turn_reason(seat, verb)
        reason = self._check(action)  # the hook a game (and a test) may wrap
        if reason is None:
            self._checked = action
        return reason

    def apply(self, action):
        """Make action happen and return its events; raises IllegalAction (state unchanged).
        The action check() has just passed (the same tuple, nothing applied since) is not
        checked twice: check-then-apply, as the referee does, costs one check."""
        if action is not self._checked:
            reason = self.check(action)
            if reason:
                raise IllegalAction(reason, action)
        self._checked = None  # (_apply, inline)
        events = self._fns[action[1]][1](self, action)
        if self.keep_history:
            self.history.append(action)
        return events

    def undo(self):
        """Take back the last action (replays the rest from the start); returns it."""
        if not self.keep_history:
            raise IllegalAction("this game keeps no history in memory: undo replays the journal")
        if not self.history:
            raise IllegalAction("nothing to undo")
        keep = self.history[:-1]
        last = self.history[-1]
        self.history = []
        self._checked = None
        self.reset()
        for action in keep:
            self._apply(action)
            self.history.append(action)
        return last

    def bot_action(self, rng):
        """A random legal action (or a random deal) for the seats whose turn it is."""
        if self.dealing:
            return self.random_deal(rng)
        seats = self.turn
        choices = self.legal(seats[rng.below(len(seats))])
        return choices[rng.below(len(choices))]

    # -- the shared vocabulary of reasons ------------------------------------------------------
    def _phase_at(self, phase=None, verb=None):
        """Index of the PHASES entry for a phase (or the one allowing verb); -1 if none."""
        ph = self.PHASES
        for i in range(len(ph)):
            if ph[i][0] == phase or verb is not None and verb in ph[i][3]:
                return i
        return -1

    def to_act(self):
        """Who is to do what now: 'seat 2 is to bid', 'seat 0 or seat 2 is to reveal the Excuse'."""
        i = self._phase_at(self.phase) if self.PHASES else -1
        do = self.PHASES[i][2] if i >= 0 else "play"
        turn = self.turn
        if not turn:
            return "nobody is to %s" % do
        return "%s is to %s" % (" or ".join("seat %d" % s for s in turn), do)

    def turn_reason(self, seat, verb):
        """None if it is seat's turn to use verb, else why not: the phase, then the turn."""
        allowed = self._verbs.get(self.phase)
        if allowed is not None and verb not in allowed:
            now = self._phase_at(self.phase)
            then = self._phase_at(verb=verb)
            if 0 <= then < now:
                return "%s is over: %s" % (self.PHASES[then][1], self.to_act())
            return "%s is not over: %s" % (self.PHASES[now][1], self.to_act())
        if seat not in self.turn:
            return self.not_your_turn(seat)
        return None

    def not_your_turn(self, seat):
        """The reason given to a seat that acts out of turn: 'not your turn: seat 1 is to play'."""
        return "not your turn: " + self.to_act()

    def not_a_card(self, c):
        """The one wording for something that is no card of this game's deck."""
        try:
            name = "the " + self.card_code(c)
        except Exception:
            name = "that"
        return "%s is not a card of the %s deck" % (name, self.ID)

    def card_reason(self, c):
        """None if c is a card of this game's deck, else not_a_card."""
        if type(c) is int and 0 <= c < len(self._cards) and self._cards[c]:
            return None
        return self.not_a_card(c)

    @staticmethod
    def option_error(key, allowed, got):
        """The one message for a bad option value: "rule option 'kitty' is bidder or none, not 'x'"."""
        if type(allowed) is tuple:
            allowed = " or ".join(repr(a) for a in allowed)
        return ValueError("rule option %r is %s, not %r" % (key, allowed, got))

    @classmethod
    def check_choices(cls, rules, choices):
        """Raise option_error for the first option (of choices: (key, allowed tuple), ...) out of range."""
        for key, allowed in choices:
            if rules[key] not in allowed:
                raise cls.option_error(key, allowed, rules[key])

    def team(self, seat):
        """The seat's team number (its own seat number when there are no teams)."""
        return seat % 2 if self.TEAMS else seat

    def card_code(self, c):
        """Canonical code of a card of this game's deck."""
        return self.deck.fmt(c)

    def codes(self, cards):
        """Codes of a list of cards."""
        return [self.deck.fmt(c) for c in cards]

    # -- words (host only: the table never imports cardtable.games.words) ----------------------
    card_style = None           # the host may set a function: card code -> text (glyphs, colour)

    def action_words(self, obj):
        """A record line (as record.encode gives it) in words: 'seat 1 plays 10H'."""
        from cardtable.games import words
        return words.action_words(self, obj)

    def describe(self, ev):
        """An event in words, or None where the action's own words already say it."""
        from cardtable.games import words
        return words.describe(self, ev)

    def last_hand_words(self, last):
        """The last hand's result, as the game's view keeps it ("last_hand"), in words."""
        from cardtable.games import words
        return words.last_hand_words(self, last)

    def side(self, n):
        """Who keeps score n: 'seat 1', or 'seats 1 & 3' where partners share a score."""
        from cardtable.games import words
        return words.side(self, n)

    def score_words(self, scores):
        """'seat 0 11, seat 1 7' (one entry per partnership where partners share a score)."""
        from cardtable.games import words
        return words.score_words(self, scores)
