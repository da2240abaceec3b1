"""Why an action was refused, as the table tells it to spectators and to every seat's page
(games/base.py ``public_reason``), says nothing of another seat's hidden cards: seeded games
with every hand known (dealt over the deal pad), each seat to act trying every card of the deck;
whichever other seat holds a card, the public reason reads the same and names no card of
another seat's hand but the one the action itself shows."""
from support import MICROPYTHON, stepped

from cardtable import games, record
from cardtable.rng import Random


def _one_card(verb, *rest):
    """The actions of a game whose seat lays one card: (seat, verb, card, *rest)."""
    return lambda g, seat, c: [((seat, verb, c) + rest, None)]


def _nonesuch(g, seat, c):
    out = [((seat, "play", c, None), None)]
    if c == g.deck.parse("X"):
        out.append(((seat, "excuse"), "X"))  # claiming the Excuse names it
    return out


def _fairies(g, seat, c):
    return [((seat, "sow", c, 0), None), ((seat, "meditate", "top", c), None)]


def _nerts(g, seat, c):
    return [((seat, "center", c, 1000), None), ((seat, "move", c, 0), None)]


# game -> the actions that lay a card: fn(game, seat, card) -> [(action, code it names), ...]
TRIES = {"nexus": _one_card("play"), "california-jacks": _one_card("play"),
         "fortyfives": _one_card("play"), "nonesuch": _nonesuch, "fairies": _fairies,
         "nerts": _nerts}


def _strings(v, out):
    if isinstance(v, str):
        out.append(v)
    elif isinstance(v, dict):
        for k in v:
            _strings(v[k], out)
    elif isinstance(v, (list, tuple)):
        for x in v:
            _strings(x, out)
    return out


def _named(text):
    """The words of text that may name a card (a number only after "the": Fairies' cards are
    numbers, and "move 3" is no card)."""
    for ch in "(),;:'\"":
        text = text.replace(ch, " ")
    words = text.split()
    return [w for i, w in enumerate(words) if not w.isdigit() or i and words[i - 1] == "the"]


def _hidden(g):
    """Per seat, the card codes its own view shows and a spectator's does not."""
    public = set(_strings(g.view(None), []))
    return [set(_strings(g.view(s), [])) - public for s in range(g.seats)]


def _refusals(g, seat, hidden, cards):
    """(verb and owner, public reason, what it may name, the card's code if another seat holds it) of every
    refused card action of seat, the codes its own public record shows allowed."""
    out = []
    for c in cards:
        code = g.card_code(c)
        for action, names in TRIES[g.ID](g, seat, c):
            if g.turn_reason(seat, action[1]) is not None:
                continue
            reason = g.check(action)
            if not reason:
                continue
            obj = record.encode(g, action)
            shown = set(_strings(g.public(obj), []))
            if names:
                shown.add(names)
            told = g.public_reason(obj, reason)
            other = [t for t in range(g.seats) if t != seat and code in hidden[t]]
            # a key per verb (and per owner where every player brings a deck: its back shows it)
            key = (action[1], c >> 6 if getattr(g, "OWNED", False) else None)
            out.append((key, told, shown, code if other else None))
    return out


def _check_seat(g, name, seat, hidden, cards, templates):
    """Assert what seat's refusals of cards tell at this point of the game (templates: each
    refusal's words less the card, by verb, so far); returns how many were judged."""
    judged = 0
    for key, told, shown, code in _refusals(g, seat, hidden, cards):
        judged += 1
        for t in range(g.seats):
            if t == seat:
                continue
            for w in _named(told):
                assert w not in hidden[t] or w in shown, \
                    "%s: seat %d is told %r: it names seat %d's hidden %s" % (name, seat, told, t, w)
            assert "seat %d's hand" % t not in told, \
                "%s: seat %d is told %r: it names seat %d's hand" % (name, seat, told, t)
        if code is not None:
            templates.setdefault(key, set()).add(told.replace(code, "#"))
    for key in templates:
        assert len(templates[key]) == 1, "%s: seat %d's refused %s tells whose hand a card is in: %r" \
            % (name, seat, key[0], sorted(templates[key]))
    return judged


def _blind(deal, seat):
    """The deal as the pad reads it with seat's hand unseen (every other hand known)."""
    piles = dict(deal[2])
    for name in piles:
        if name[:5] == "hands":
            piles[name] = [None if s == seat else h for s, h in enumerate(piles[name])]
    return deal[:2] + (piles,)


@stepped
def test_no_public_reason_tells_another_seats_hidden_cards():
    # A seat whose hand the table did not see may lay any card not seen elsewhere: laying one
    # that is in another seat's hand is refused, and the reason once said which seat holds it.
    steps = 12 if MICROPYTHON else 40
    for name in TRIES:
        cls = games.game_class(name)
        judged = {}
        for seed in (1, 2):
            seats = cls.SEATS[0] + (seed - 1) * (cls.SEATS[1] > cls.SEATS[0])
            g = games.load(name, seats=seats)          # one hand unseen, the rest known
            shadow = games.load(name, seats=seats)     # every card known: the bots' choices
            yield
            rng = Random(seed)
            n = 0
            while not g.over and n < steps:
                a = shadow.bot_action(rng)
                shadow.apply(a)
                g.apply(_blind(a, (seed + n) % seats) if a[1] == "deal" else a)
                n += 1
                yield
                if n % 3 == 1:
                    hidden = _hidden(g)
                    for seat in g.turn:
                        templates = {}
                        for i in range(0, len(g.CARDS), 8):
                            cards = g.CARDS[i:i + 8]
                            judged[seed] = judged.get(seed, 0) + _check_seat(g, name, seat, hidden,
                                                                             cards, templates)
                            yield
            g = shadow = None
        assert judged.get(1) and judged.get(2), "%s: no refusal judged: %r" % (name, judged)
        games.unload(name)
        yield


def test_the_referee_keeps_the_whole_reason():
    # check() and the journal name where the card lies; only what leaves the table is cut.
    g = games.load("california-jacks")
    deal = g.random_deal(Random(1))
    g.apply(_blind(deal, 1))
    c = deal[2]["hands"][0][0]
    code = g.card_code(c)
    full = g.check((1, "play", c)) if g.turn == (1,) else None
    if full is None:
        g.apply((0, "play", deal[2]["hands"][0][1]))
        full = g.check((1, "play", c))
    assert full == "the %s is in seat 0's hand" % code
    told = g.public_reason(record.encode(g, (1, "play", c)), full)
    assert told == "the table saw the %s elsewhere" % code
