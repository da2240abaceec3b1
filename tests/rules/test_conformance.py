"""The conformance suite every registered game passes, on CPython and MicroPython.

Modelled on OpenSpiel's api_test: seeded random play-outs where ``legal()`` and ``check()``
agree, undo restores the exact state, views hide what they must, records round-trip through
the referee, every reason is a sentence, and a malformed deal gets a reason, never an
exception. A new game is covered by registering it.
"""
import json

from playout import refereeing
from support import MICROPYTHON, scaled, stepped

from cardtable import games, record
from cardtable.rng import Random

SEATS = {"nerts": 3}            # the rule book's minimum; every other game: its fewest
# per play-out: several hands of every game on CPython; on MicroPython a hand or so, since an
# undo replays the whole history in one call (the port collects garbage only between calls)
MAX_ACTIONS = 80 if MICROPYTHON else 400


def new(name):
    return games.load(name, seats=SEATS.get(name))


def secret(g, seat):
    """Cards of seat that nobody else may see: its known hand (drawn face-up cards excepted)
    or, for a layout game, every card of its layout."""
    lays = getattr(g, "layouts", None)
    if lays is not None:
        lay = lays[seat]
        if lay is None:
            return []
        out = list(lay.slots) + list(lay.stack) + list(lay.stock) + list(lay.waste)
        for p in lay.piles:
            out.extend(p)
        return [c for c in out if c is not None and c >= 0]
    hands = getattr(g, "hands", None)
    if hands is None:
        return []
    public = [c for _, c in getattr(g, "draws", ()) if c is not None]
    return [c for c in hands[seat] if c and c not in public]


def shown(g, view, cards):
    """The cards of `cards` whose codes appear in a view's JSON."""
    text = json.dumps(view)
    return [g.card_code(c) for c in cards if '"%s"' % g.card_code(c) in text]


def is_sentence(reason):
    """A reason a player reads: a non-empty string, lowercase first word, no Python repr."""
    if type(reason) is not str or not reason.strip():
        return False
    for bad in ("{'", "['", "(None", "None)", "<", "Traceback", "object at"):
        if bad in reason:
            return False
    first = reason.split()[0]
    # lowercase, unless it names a card ("AS", "10H") or the game's own capitalised words
    return not first[0].isupper() or first in ("Nerts!", "REVOKE") or any(
        ch.isdigit() for ch in first) or first.isupper() and len(first) <= 3


def playouts(name, seeds, each):
    """Seeded random play-outs of a game, calling each(g, rng) before every action."""
    for seed in seeds:
        g = new(name)
        rng = Random(seed * 7919 + 1)
        n = 0
        while not g.over and n < MAX_ACTIONS:
            each(g, rng)
            yield
            g.apply(g.bot_action(rng))
            n += 1
            yield
        g = None
        yield
    games.unload(name)              # one game's rules in memory at a time, as on a Pico
    yield


# -- legal() and check() agree ------------------------------------------------------------
def check_legal(g, rng):
    offers = [(seat, g.legal(seat)) for seat in g.turn]
    if offers and not g.dealing:      # someone to act has something to do
        assert [s for s, legal in offers if legal], "%s: nobody to act can act" % g.ID
    for seat, legal in offers:
        sample = legal
        if MICROPYTHON and len(legal) > 8:      # the heap: a sample of a long list
            sample = [legal[rng.below(len(legal))] for _ in range(8)]
        for a in sample:
            reason = g.check(a)
            assert reason is None, "%s: legal() offers %r but check() says %s" % (g.ID, a, reason)
        # a card play: every card of the hand is legal exactly when check() accepts it
        plays = [a for a in legal if a[1] == "play" and len(a) == 3]
        hands = getattr(g, "hands", None)
        if plays and hands is not None and getattr(g, "known", [True] * g.seats)[seat]:
            offered = set(a[2] for a in plays)
            for c in hands[seat]:
                ok = g.check((seat, "play", c)) is None
                assert ok == (c in offered), "%s: %s legal %s, check %s" % (
                    g.ID, g.card_code(c), c in offered, ok)
                if not ok:
                    assert is_sentence(g.check((seat, "play", c)))


@stepped
def test_legal_and_check_agree():
    for name in games.GAMES:
        yield from playouts(name, range(scaled(4)), check_legal)


# -- undo ----------------------------------------------------------------------------------
@stepped
def test_undo_restores_the_exact_state():
    def each(g, rng):
        if rng.below(12) == 0 and not g.dealing:
            before = json.dumps(g.dump())
            a = g.bot_action(rng)
            g.apply(a)
            assert g.undo() == a
            assert json.dumps(g.dump()) == before, "%s: undo of %r" % (g.ID, a)

    for name in games.GAMES:
        yield from playouts(name, range(scaled(4)), each)


# -- views ---------------------------------------------------------------------------------
@stepped
def test_views_hide_what_they_must():
    def each(g, rng):
        if g.dealing:
            return
        everyone = []
        for s in range(g.seats):
            everyone.append(secret(g, s))
        for s in range(g.seats):
            assert not shown(g, g.view(None), everyone[s]), \
                "%s: a spectator sees seat %d's %s" % (g.ID, s, shown(g, g.view(None), everyone[s]))
        s = rng.below(g.seats)
        for o in range(g.seats):
            if o != s:
                assert not shown(g, g.view(s), everyone[o]), \
                    "%s: seat %d sees seat %d's %s" % (g.ID, s, o, shown(g, g.view(s), everyone[o]))
        json.dumps(g.view(None))        # JSON-ready

    for name in games.GAMES:
        yield from playouts(name, range(scaled(3)), each)


# -- records -------------------------------------------------------------------------------
@stepped
def test_records_round_trip_through_the_referee():
    for name in games.GAMES:
        for seed in range(scaled(2)):
            g = new(name)
            rng = Random(seed + 31)
            lines = [json.dumps(record.header(g))]
            n = 0
            while not g.over and n < MAX_ACTIONS:
                a = g.bot_action(rng)
                obj = record.encode(g, a)
                assert record.decode(g, json.loads(json.dumps(obj)), n + 2) == a, (name, a)
                lines.append(json.dumps(obj))
                g.apply(a)
                n += 1
                yield
            scores, over, winner = g.scores, g.over, g.winner
            g = None
            yield
            r = yield from refereeing(lines)
            assert r["ok"], (name, r["rejected"][:1], r["revokes"][:1])
            assert (r["scores"], r["over"], r["winner"]) == (scores, over, winner), name
            lines = r = None
            yield
        games.unload(name)
        yield


# -- reasons -------------------------------------------------------------------------------
def wrong_actions(g, rng):
    """Actions a careless or confused table might send now."""
    seat = rng.below(g.seats)
    out = [(seat, "nonsense"), "play", (None,), (g.seats + 3, "play", 0),
           (-1, "play", 0)]
    for verb, fields in g.VERBS.items():
        if verb == "deal":
            continue
        n = len(fields)
        out.append((seat, verb) + (None,) * n)
        out.append((seat, verb) + (999,) * n)
        out.append((seat, verb) + ("AS",) * n)
        out.append((seat, verb) + (rng.below(60),) * n)
        out.append((seat, verb) + (0,) * (n + 1))
        other = (seat + 1) % g.seats
        out.append((other, verb) + (rng.below(60),) * n)
    return out


@stepped
def test_every_reason_is_a_sentence():
    def each(g, rng):
        for a in wrong_actions(g, rng):
            try:
                reason = g.check(a)
            except Exception as e:          # a reason, never an exception
                raise AssertionError("%s: check(%r) raised %r" % (g.ID, a, e))
            if reason is not None:
                assert is_sentence(reason), "%s: %r -> %r" % (g.ID, a, reason)

    for name in games.GAMES:
        yield from playouts(name, range(scaled(2)), each)


# -- malformed deals -----------------------------------------------------------------------
def malformed_deals(g, rng):
    """Deals whose piles are of the wrong shape or hold things that are not cards."""
    good = g.random_deal(rng)[2]
    out = [None, [], "hands", 7, {"nonsense": [1, 2]}]
    for name in good:
        for bad in (7, "AS", {"a": 1}, [None, 7], [[999]], [["AS"]], [-1], [1.5], [[1, 1]]):
            piles = dict(good)
            piles[name] = bad
            out.append(piles)
        pile = good[name]
        if isinstance(pile, list) and pile:
            piles = dict(good)
            piles[name] = pile[:-1]
            out.append(piles)
            piles = dict(good)
            piles[name] = pile + pile[:1]
            out.append(piles)
    return out


@stepped
def test_malformed_deals_get_a_reason():
    for name in games.GAMES:
        g = new(name)
        rng = Random(5)
        for piles in malformed_deals(g, rng):
            yield
            try:
                reason = g.check((None, "deal", piles))
            except Exception as e:
                raise AssertionError("%s: a deal of %r raised %r" % (name, piles, e))
            assert reason is not None or isinstance(piles, dict), (name, piles)
            if reason is not None:
                assert is_sentence(reason), "%s: %r" % (name, reason)
        g = None
        games.unload(name)
        yield


# -- the shared vocabulary of reasons ------------------------------------------------------
def check_turn_words(g, rng):
    """Out of turn or out of phase, a reason says who is to do what: 'not your turn: seat 1 is
    to name trump', 'the bidding is not over: seat 2 is to bid'."""
    turn = g.turn
    if g.dealing or not turn or len(turn) == g.seats:
        return
    phase = getattr(g, "phase", None)
    todo = [p[2] for p in g.PHASES if p[0] == phase] or ["play"]
    want = ": %s is to %s" % (" or ".join("seat %d" % s for s in turn), todo[0])
    others = [s for s in range(g.seats) if s not in turn]
    seat = others[rng.below(len(others))]
    for verb, fields in g.VERBS.items():
        if verb == "deal":
            continue
        reason = g.check((seat, verb) + (None,) * len(fields))
        assert reason is not None and reason.endswith(want), "%s: %s %s -> %r" % (
            g.ID, seat, verb, reason)
        head = reason[:-len(want)]
        assert head == "not your turn" or head.endswith(" is over") \
            or head.endswith(" is not over"), "%s: %r" % (g.ID, reason)
        if head.endswith("over"):   # a phase names itself in words, not by its id
            assert head.startswith("the ") or head.startswith("naming "), (g.ID, reason)


def check_phase_words(g, rng):
    """Every verb the phase forbids is refused with the shared reason, whoever sends it:
    'the bidding is not over: seat 2 is to bid', 'the round is over: seat 0 is to count their
    nerts'; before the deal 'the cards must be dealt first'."""
    seat = rng.below(g.seats)
    verbs = [v for v in g.VERBS if v != "deal"]
    if g.dealing:
        for verb in verbs:
            reason = g.check((seat, verb) + (None,) * len(g.VERBS[verb]))
            assert reason == "the cards must be dealt first", (g.ID, verb, reason)
        return
    names = [p[0] for p in g.PHASES]
    assert g.phase in names, "%s: its phase %r is not in its PHASES" % (g.ID, g.phase)
    now = names.index(g.phase)
    for verb in verbs:
        if verb in g.PHASES[now][3]:
            continue
        then = [i for i in range(len(names)) if verb in g.PHASES[i][3]][0]
        if then < now:
            want = "%s is over: %s" % (g.PHASES[then][1], g.to_act())
        else:
            want = "%s is not over: %s" % (g.PHASES[now][1], g.to_act())
        reason = g.check((seat, verb) + (None,) * len(g.VERBS[verb]))
        assert reason == want, "%s: %s %s in %s -> %r" % (g.ID, seat, verb, g.phase, reason)


def test_every_game_declares_its_phases():
    """PHASES: each phase named in words, its verbs the game's own, every verb in some phase."""
    for name in games.GAMES:
        cls = games.game_class(name)
        assert cls.PHASES, "%s declares no PHASES" % name
        allowed = []
        for phase, called, todo, verbs in cls.PHASES:
            assert called.startswith("the ") or called.startswith("naming "), (name, called)
            assert type(todo) is str and todo, (name, phase)
            for verb in verbs:
                assert verb in cls.VERBS and verb != "deal", (name, phase, verb)
            allowed.extend(verbs)
        for verb in cls.VERBS:
            assert verb == "deal" or verb in allowed, "%s: no phase allows %r" % (name, verb)
        cls = None
        games.unload(name)


@stepped
def test_turn_and_phase_reasons_name_what_the_seat_to_act_is_to_do():
    def each(g, rng):
        check_turn_words(g, rng)
        check_phase_words(g, rng)

    for name in games.GAMES:
        yield from playouts(name, range(scaled(2)), each)


def check_card_words(g, rng):
    """Every game words 'not a card' one way, naming the deck."""
    if g.dealing or not g.turn:
        return
    seat = g.turn[0]
    want = "is not a card of the %s deck" % g.ID
    firsts = {}                         # verb -> a legal action of it (the other fields)
    for a in g.legal(seat):
        if a[1] not in firsts and len(a) > 2 and g.VERBS[a[1]][0] == "card":
            firsts[a[1]] = a
    for verb in firsts:
        for bad in (999, "AS", -1):
            reason = g.check((seat, verb, bad) + firsts[verb][3:])
            assert reason is not None and reason.endswith(want), (g.ID, verb, bad, reason)


@stepped
def test_not_a_card_is_worded_one_way():
    for name in games.GAMES:
        yield from playouts(name, range(1), check_card_words)
