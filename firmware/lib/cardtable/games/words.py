"""Games in words, for people: record lines and events as sentences (host only).

The table never imports this module; a game's ``describe`` and ``action_words`` call it, and a
game module adds the words of its own events on top (see its ``describe``).
"""
# host only: never imported on the board (tools/firmware/boardfiles.py leaves it out)


def show(g, code):
    """A card code as a person reads it (through card_style where the host set one)."""
    if code is None:
        return "an unseen card"
    return code if g.card_style is None else g.card_style(code)


def show_all(g, codes):
    """Card codes in words: '5C 9H', or 'nothing'."""
    return " ".join(show(g, c) for c in codes) if codes else "nothing"


def suit_words(g, letter):
    """'hearts' for 'H' (the deck's suit names)."""
    try:
        return g.deck.SUIT_NAMES[g.deck.SUIT_LETTERS.index(letter)]
    except (AttributeError, ValueError, TypeError):
        return str(letter)


def side(g, n):
    """Who keeps score n: 'seat 1', or 'seats 1 & 3' where partners share a score."""
    if g.TEAMS:
        return "seats %d & %d" % (n % 2, n % 2 + 2)
    return "seat %d" % n


def sides(g):
    """The score keepers: the seats, or the two partnerships."""
    return range(2) if g.TEAMS else range(g.seats)


def score_words(g, scores):
    """'seat 0 11, seat 1 7' (one entry per partnership where partners share a score)."""
    return ", ".join("%s %d" % (side(g, n), scores[n]) for n in sides(g))


def plain(v):
    """A value as a person reads it: lists as their items, no brackets, quotes or None."""
    if isinstance(v, dict):
        return ", ".join("%s %s" % (str(k).replace("_", " "), plain(x)) for k, x in v.items()
                         if x is not None)
    if isinstance(v, (list, tuple)):
        return " ".join(plain(x) for x in v) or "nothing"
    if v is True or v is False:
        return "yes" if v else "no"
    return "-" if v is None else str(v)


def per_seat(g, xs, sign=False):
    """Numbers kept per seat, or per partnership, in words: 'seat 0 11, seat 1 7'."""
    teams = g.TEAMS and len(xs) == 2
    fmt = "%s %+d" if sign else "%s %d"
    out = [fmt % (side(g, n) if teams else "seat %d" % n, x) for n, x in enumerate(xs) if type(x) is int]
    return ", ".join(out) if out else plain(xs)


def last_hand_words(g, last):
    """The last hand's result as a view keeps it, in words."""
    if isinstance(last, list) and all(type(x) is int for x in last):
        return per_seat(g, last, sign=True)
    return plain(last)


def action_words(g, obj):
    """A record line (as record.encode gives it) in words: 'seat 1 plays 10H'."""
    verb = obj.get("act")
    if verb == "deal":
        seen = [k for k in obj if k != "act" and obj[k] is not None]
        return "deal (%s)" % ", ".join(seen) if seen else "deal"
    who = "seat %s" % obj.get("seat")
    if verb == "play":
        s = "%s plays %s" % (who, show(g, obj.get("card")))
        return s + " calling %s" % suit_words(g, obj["suit"]) if obj.get("suit") else s
    if verb == "bid":
        return "%s bids %s" % (who, obj.get("bid"))
    if verb == "pass":
        return "%s passes" % who
    if verb == "trump":
        return "%s names %s trump" % (who, suit_words(g, obj.get("suit")))
    if verb == "discard":
        cards = obj.get("cards")
        if cards is None:
            return "%s discards %s unseen" % (who, obj.get("n", "some"))
        n = obj.get("n")
        down = n - len(cards) if type(n) is int and n > len(cards) else 0
        if down:  # face down, as a spectator is told (the game's public form): how many
            return "%s discards %s%d card%s face down" % (
                who, show_all(g, cards) + " and " if cards else "", down, "" if down == 1 else "s")
        return "%s discards %s" % (who, show_all(g, cards))
    rest = " ".join("%s %s" % (k, v) for k, v in obj.items() if k not in ("act", "seat"))
    return ("%s %s %s" % (who, verb, rest)).rstrip()


def describe(g, ev):
    """An event in words, or None where the action's own words already say it."""
    kind = ev.get("ev")
    seat = ev.get("seat")
    if kind in ("play", "bid", "pass", "discard", "excuse", "sow") \
            or kind == "trump" and seat is not None:
        return None                 # the action that made it says it
    if kind == "trick":
        return "seat %d wins trick %d" % (seat, ev["trick"])
    if kind == "revoke":
        return "REVOKE proven: seat %d revoked in trick %d of hand %d (it now plays %s)" \
            % (seat, ev["trick"], ev["hand"], show(g, ev["card"]))
    if kind == "deal":
        if "dealer" in ev:
            return "hand %d: seat %d deals" % (ev["hand"], ev["dealer"])
        return "the cards are dealt"
    if kind == "draw":
        if "card" in ev:
            return "seat %d draws %s" % (seat, show(g, ev["card"]))
        n = ev.get("n", 1)
        return "seat %d draws %s" % (seat, "a card" if n == 1 else "%d cards" % n)
    if kind == "penalty" or kind == "bonus":
        p = ev["points"]
        return "seat %d %s %d point%s: %s" % (seat, "loses" if p < 0 else "scores", abs(p),
                                             "" if abs(p) == 1 else "s", ev["reason"])
    if kind == "hand":
        return "hand %d: %s" % (ev["hand"], score_words(g, ev["scores"]))
    if kind == "over":
        w = ev.get("winner")
        return "game over: %s; final scores %s" % (
            "a draw" if w is None else side(g, w) + (" win" if g.TEAMS else " wins"),
            score_words(g, ev["scores"]))
    rest = ", ".join("%s %s" % (k, " ".join(str(x) for x in v) if isinstance(v, list) else v)
                     for k, v in ev.items() if k != "ev" and v is not None)
    return "%s: %s" % (kind, rest) if rest else str(kind)
