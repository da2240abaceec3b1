"""Words for actions and events, shared by `referee`, `demo` and `monitor`."""
from __future__ import annotations

from typing import Any

from cardtable import record


def action_text(game: Any, action: tuple) -> str:
    """A short sentence for an action, e.g. 'seat 1 plays 10H'."""
    obj = record.encode(game, action)
    verb = obj.pop("act")
    if verb == "deal":
        seen = [k for k in obj if obj[k] is not None]
        return "deal (%s)" % ", ".join(seen) if seen else "deal"
    who = "seat %d" % obj.pop("seat")
    if verb == "play":
        s = "%s plays %s" % (who, obj.pop("card"))
        if "suit" in obj:
            s += " calling %s" % obj.pop("suit")
        return s
    if verb == "bid":
        return "%s bids %s" % (who, obj.pop("bid"))
    if verb == "pass":
        return "%s passes" % who
    if verb == "trump":
        return "%s names trump %s" % (who, obj.pop("suit"))
    if verb == "discard":
        cards = obj.pop("cards")
        n = obj.pop("n", None)
        unseen = n - len(cards) if isinstance(n, int) and n > len(cards) else 0
        if unseen:  # face down: the table says how many
            return "%s discards %s%d card%s face down" % (
                who, " ".join(cards) + " and " if cards else "", unseen, "" if unseen == 1 else "s")
        return "%s discards %s" % (who, " ".join(cards) if cards else "nothing")
    rest = " ".join("%s=%s" % (k, v) for k, v in obj.items())
    return ("%s %s %s" % (who, verb, rest)).rstrip()


def event_text(ev: dict) -> str | None:
    """A short sentence for an event, or None for events the action text already says."""
    kind = ev.get("ev")
    if kind == "play":
        return None
    if kind == "trick":
        return "trick %s to seat %s" % (ev.get("trick"), ev.get("seat"))
    if kind == "revoke":
        return "REVOKE proven: seat %s revoked in trick %s of hand %s (now plays %s)" % (
            ev.get("seat"), ev.get("trick"), ev.get("hand"), ev.get("card"))
    if kind == "over":
        w = ev.get("winner")
        return "game over: %s; scores %s" % ("a draw" if w is None else "seat %s wins" % w,
                                             ev.get("scores", ""))
    if kind == "hand":
        extra = {k: v for k, v in ev.items() if k not in ("ev", "hand", "scores")}
        return "hand %s scored %s -> scores %s" % (ev.get("hand", ""), extra, ev.get("scores"))
    rest = ", ".join("%s %s" % (k, v) for k, v in ev.items() if k != "ev")
    return "%s: %s" % (kind, rest)


def source_words(src: str, buttons: dict[str, str]) -> str:
    """Where an action came from, a button named by what it does: 'button k4' -> 'pass button'."""
    kind, _, name = src.partition(" ")
    if kind == "button" and name in buttons:
        return "%s button" % buttons[name]
    return src


def result_text(game) -> str:
    """Who won, in words: 'seat 1 wins', 'seats 1 & 3 win', 'a draw'."""
    w = game.winner
    if w is None:
        return "a draw" if game.over else "not over yet"
    if getattr(game, "TEAMS", False):
        mates = [s for s in range(game.seats) if game.team(s) == game.team(w)]
        return "seats %s win" % " & ".join(str(s) for s in mates)
    return "seat %d wins" % w
