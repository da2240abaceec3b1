"""Games in words, for people: record lines and events as sentences (host only).

The table never imports this module; a game's ``describe`` and ``action_words`` call it, and a
game module adds the words of its own events on top (see its ``describe``).
"""
# host only: never imported on the board (tools/firmware/boardfiles.py leaves it out)


def show(g, code, seat=None):
    """A card code as a person reads it (through card_style where the host set one). Where
    every player brings a deck (g.OWNED) the code's mark says whose ('8S#2'): that is said in
    words, '8S (Ann's deck)', unless the card is seat's own (who acts on it needs no mark)."""
    if code is None:
        return "an unseen card"
    owner = None
    if getattr(g, "OWNED", False) and isinstance(code, str) and "#" in code:
        base, mark = code.split("#", 1)
        if mark.isdigit():
            code, owner = base, int(mark)
    text = code if g.card_style is None else g.card_style(code)
    if owner is None or owner == seat:
        return text
    return "%s (%s's deck)" % (text, who(g, owner))


def show_all(g, codes):
    """Card codes in words: '5C 9H', or 'nothing'."""
    return " ".join(show(g, c) for c in codes) if codes else "nothing"


def suit_words(g, letter):
    """'hearts' for 'H' (the deck's suit names)."""
    try:
        return g.deck.SUIT_NAMES[g.deck.SUIT_LETTERS.index(letter)]
    except (AttributeError, ValueError, TypeError):
        return str(letter)


def who(g, s):
    """A seat as people call it: its player's name where the host gave names (g.names), else 'seat 1'."""
    names = getattr(g, "names", None)
    if type(s) is int and names and 0 <= s < len(names) and names[s]:
        return names[s]
    return "seat %s" % s


def side(g, n):
    """Who keeps score n: 'seat 1', or 'seats 1 & 3' where partners share a score ('Ann & Cy'
    where the host gave names)."""
    if g.TEAMS:
        if getattr(g, "names", None):
            return "%s & %s" % (who(g, n % 2), who(g, n % 2 + 2))
        return "seats %d & %d" % (n % 2, n % 2 + 2)
    return who(g, n)


def name_seats(g, text):
    """Text from the table ('seat 2 is to play') with the players' names for its seats, and
    (where every player brings a deck) a card's deck mark in words: 'the AH (Bob's deck)'."""
    import re
    if getattr(g, "OWNED", False) and isinstance(text, str) and "#" in text:
        text = re.sub(r"[0-9A-Za-z]+#[0-9]+", lambda m: _marked(g, m.group(0)), text)
    if not getattr(g, "names", None) or not isinstance(text, str):
        return text
    text = re.sub(r"\bseats (\d+) & (\d+)\b",
                  lambda m: "%s & %s" % (who(g, int(m.group(1))), who(g, int(m.group(2)))), text)
    text = re.sub(r"\bseat (\d+)'s\b", lambda m: who(g, int(m.group(1))) + "'s", text)
    return re.sub(r"\bseat (\d+)\b", lambda m: who(g, int(m.group(1))), text)


def _marked(g, code):
    """A code with its deck's mark as show() says it; anything else as it is."""
    try:
        g.deck.parse(code)
    except (ValueError, KeyError, TypeError, IndexError):
        return code
    return show(g, code)


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
    who_ = who(g, obj.get("seat"))
    if verb == "play":
        s = "%s plays %s" % (who_, show(g, obj.get("card")))
        return s + " calling %s" % suit_words(g, obj["suit"]) if obj.get("suit") else s
    if verb == "bid":
        return "%s bids %s" % (who_, obj.get("bid"))
    if verb == "pass":
        return "%s passes" % who_
    if verb == "trump":
        return "%s names %s trump" % (who_, suit_words(g, obj.get("suit")))
    if verb == "discard":
        cards = obj.get("cards")
        if cards is None:
            return "%s discards %s unseen" % (who_, obj.get("n", "some"))
        n = obj.get("n")
        down = n - len(cards) if type(n) is int and n > len(cards) else 0
        if down:  # face down, as a spectator is told (the game's public form): how many
            return "%s discards %s%d card%s face down" % (
                who_, show_all(g, cards) + " and " if cards else "", down, "" if down == 1 else "s")
        return "%s discards %s" % (who_, show_all(g, cards))
    rest = " ".join("%s %s" % (k, v) for k, v in obj.items() if k not in ("act", "seat"))
    return ("%s %s %s" % (who_, verb, rest)).rstrip()


def describe(g, ev):
    """An event in words, or None where the action's own words already say it."""
    kind = ev.get("ev")
    seat = ev.get("seat")
    if kind in ("play", "bid", "pass", "discard", "excuse", "sow") \
            or kind == "trump" and seat is not None:
        return None                 # the action that made it says it
    if kind == "trick":
        return "%s wins trick %d" % (who(g, seat), ev["trick"])
    if kind == "revoke":
        return "revoke proven: %s revoked in trick %d of hand %d (and now plays %s)" \
            % (who(g, seat), ev["trick"], ev["hand"], show(g, ev["card"]))
    if kind == "deal":
        if "dealer" in ev:
            return "hand %d: %s deals" % (ev["hand"], who(g, ev["dealer"]))
        return "the cards are dealt"
    if kind == "draw":
        if "card" in ev:
            return "%s draws %s" % (who(g, seat), show(g, ev["card"]))
        n = ev.get("n", 1)
        return "%s draws %s" % (who(g, seat), "a card" if n == 1 else "%d cards" % n)
    if kind == "penalty" or kind == "bonus":
        p = ev["points"]
        return "%s %s %d point%s: %s" % (who(g, seat), "loses" if p < 0 else "scores", abs(p),
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


# -- the table as people read it (the pages of cardtable serve) --------------------------------

PHASE_VERBS = {"play": "play", "bid": "bid", "bidding": "bid", "trump": "name trump",
               "discard": "discard", "kitty": "take the kitty", "deal": "deal"}


def count_words(n, one, many=None):
    """'1 card', '3 cards', 'no cards'."""
    if n == 0:
        return "no " + (many or one + "s")
    return "%d %s" % (n, one if n == 1 else (many or one + "s"))


def place_names(n):
    """Where n players sit round a table, by compass point: South first, then clockwise."""
    if n == 2:
        return ["South", "North"]
    if n == 4:
        return ["South", "West", "North", "East"]
    points = ["South", "South-West", "West", "North-West", "North", "North-East", "East", "South-East"]
    return [points[int(round(i * 8.0 / n)) % 8] for i in range(n)]


def title(g):
    """The game's name as people write it."""
    return getattr(g, "TITLE", None) or str(g.ID).replace("-", " ").title()


def scores_of(g, view):
    """Each side's score in a view (a list over words.sides), or None."""
    sc = view.get("team_scores") if g.TEAMS else None
    if sc is None:
        sc = view.get("scores")
        if isinstance(sc, list) and g.TEAMS:
            sc = sc[:2]
    return list(sc) if isinstance(sc, list) else None


def result_words(g, view):
    """'Ann & Cy win, 120 to 85' once the game is over, else None."""
    if not view.get("over"):
        return None
    sc = scores_of(g, view)
    w = view.get("winner")
    tail = ""
    if sc:
        order = sorted(range(len(sc)), key=lambda n: -(sc[n] if type(sc[n]) is int else 0))
        tail = ": " + ", ".join("%s %s" % (side(g, n), sc[n]) for n in order)
    tail = tail.replace(": ", " \u2014 ", 1)
    if w is None:
        return "Game over, a draw" + tail
    return "Game over: %s%s" % (side(g, w) + (" win" if g.TEAMS else " wins"), tail)


def turn_words(g, view):
    """'Cy is to play', or '' when nobody is to act."""
    turn = view.get("turn") or []
    if view.get("over") or not turn:
        return ""
    verb = PHASE_VERBS.get(view.get("phase"), "play")
    if view.get("phase") == "deal":
        return "waiting for the deal"
    if len(turn) > 2 and len(turn) == (view.get("seats") or 0):
        return "everyone plays at once"
    return "%s %s to %s" % (" or ".join(who(g, s) for s in turn), "is" if len(turn) == 1 else "are", verb)


def reading(g, view):
    """A spectator view (the board's view(None)) as people read it: the page of cardtable
    serve draws this and nothing else. The game adds its own furniture with
    ``furniture(view, out)`` (the rows of cards and words only it knows)."""
    if not isinstance(view, dict):
        return None
    facts = table_facts(g, view)
    last = view.get("last_trick") or []
    leader = view.get("leader")
    out = {
        "game": title(g), "seats": seat_rows(g, view), "sides": side_rows(g, view),
        "teams": bool(g.TEAMS), "facts": facts, "rows": up_rows(view), "turn": turn_words(g, view),
        "over": result_words(g, view), "trick": bool(view.get("trick")) or "trick" in view,
        "last_trick": [[p[0], p[1]] for p in last if isinstance(p, list) and len(p) == 2],
        "last_winner": leader if last and not view.get("trick") and type(leader) is int else None,
    }
    furniture = getattr(g, "furniture", None)
    if furniture is not None:
        furniture(view, out)
    shown = [st["card"] for st in out["seats"] if st["card"]] + [p[1] for p in out["last_trick"]]
    out["card_names"] = card_names(g, shown + [c for r in out["rows"] for c in r["cards"]])
    out["headline"] = " \u00b7 ".join([out["game"]] + [("hand " + f[1]) if f[0] == "hand" else f[1]
                                                         for f in facts if f[0] in ("hand", "contract")]
                                       + ([out["turn"]] if out["turn"] else []))
    return out


def seat_rows(g, view):
    """Per seat of a view: its name, side, whether it is to act, its card in the trick, facts."""
    n = view.get("seats") or g.seats
    turn = view.get("turn") or []
    trick = {}
    for p in view.get("trick") or []:
        trick[p[0]] = p[1]
    held = view.get("held") if isinstance(view.get("held"), list) else None
    won = view.get("tricks_won") if isinstance(view.get("tricks_won"), list) else None
    seats = []
    for s in range(n):
        facts = []
        if held is not None and type(held[s]) is int:
            facts.append(count_words(held[s], "card") + " in hand")
        if won is not None and type(won[s]) is int and (view.get("phase") == "play" or won[s]):
            facts.append(count_words(won[s], "trick"))
        seats.append({"name": who(g, s), "side": g.team(s),
                      "turn": s in turn and not view.get("over") and not (len(turn) > 2 and len(turn) == n),
                      "card": trick.get(s), "facts": facts})
    return seats


def side_rows(g, view):
    """Per score keeper (a seat, or a partnership): its name, score and seats."""
    sc = scores_of(g, view)
    return [{"name": side(g, k), "score": sc[k] if sc and k < len(sc) else None,
             "seats": [k, k + 2] if g.TEAMS else [k]} for k in sides(g)]


def table_facts(g, view):
    """The table's facts of a view as [label, words] pairs: hand, dealer, bids, contract, trump,
    suit led, what lies in the kitty, stock and deck, round."""
    facts = []
    if view.get("hand_no"):
        facts.append(["hand", str(view["hand_no"])])
    if type(view.get("dealer")) is int:
        facts.append(["dealer", who(g, view["dealer"])])
    bids = view.get("bids")
    if isinstance(bids, list) and bids and all(isinstance(b, list) and len(b) == 2 for b in bids):
        facts.append(["bids", ", ".join("%s %s" % (who(g, b[0]), "passed" if b[1] == "pass" else b[1])
                                        for b in bids)])
    if type(view.get("bidder")) is int and view["bidder"] >= 0 and view.get("bid") is not None:
        facts.append(["contract", "%s bid %s" % (who(g, view["bidder"]), view["bid"])])
    if view.get("trump"):
        facts.append(["trump", suit_words(g, view["trump"])])
    elif view.get("no_trump"):
        facts.append(["trump", "no trump"])
    if view.get("led"):
        facts.append(["suit led", suit_words(g, view["led"])])
    for key, label, unit in (("kitty_left", "kitty", "card"), ("stock_left", "stock", "card"),
                             ("deck", "deck", "card")):
        if type(view.get(key)) is int:
            facts.append([label, count_words(view[key], unit)])
    if type(view.get("round")) is int:
        facts.append(["round", str(view["round"])])
    return facts


def up_rows(view):
    """The rows of cards every game may show: the up card(s)."""
    rows = []
    up = view.get("up")
    if isinstance(up, str):
        up = [up]
    if isinstance(up, list) and up:
        rows.append({"label": "up card" if len(up) == 1 else "up cards", "cards": list(up)})
    return rows


def card_names(g, codes):
    """code -> the card's name where its deck has names (the Decktet's 'the Sailor'), for the page."""
    name = getattr(g.deck, "name", None)
    out = {}
    if name is None:
        return out
    for code in codes:
        try:
            out[code] = name(g.deck.parse(code))
        except (ValueError, KeyError, TypeError, IndexError):
            pass
    return out


def sheet_note(g, ev):
    """A hand's line on the score sheet: 'Ann & Cy bid 30: made' (the game may say more)."""
    if type(ev.get("bidder")) is int and ev.get("bid") is not None and "made" in ev:
        return "%s bid %s: %s" % (who(g, ev["bidder"]),
                                  ev["bid"], "made" if ev["made"] else "set")
    return ""
