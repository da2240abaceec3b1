"""Replay a game record and judge every action, as a referee would (DESIGN section 3)."""
from cardtable import record


def replay(game, actions):
    """Yield (line, action, reason, events) for each action; rejected ones are not applied."""
    for lineno, action in actions:
        reason = game.check(action)
        if reason:
            yield lineno, action, reason, ()
        else:
            yield lineno, action, None, game.apply(action)


def verdict(game, steps):
    """The referee's summary of a replay: rejected actions, revokes, tricks, scores, result."""
    rejected = []
    revokes = []
    for lineno, action, reason, events in steps:
        if reason:
            rejected.append({"line": lineno, "seat": action[0], "reason": reason})
        for ev in events:
            if ev.get("ev") == "revoke":
                rv = dict(ev)
                rv["line"] = lineno
                revokes.append(rv)
    out = {"ok": not rejected and not revokes, "game": game.ID, "rejected": rejected,
           "revokes": revokes}
    if hasattr(game, "trick_winners"):
        out["tricks"] = list(game.trick_winners)
    out["scores"] = game.scores
    out["over"] = game.over
    out["winner"] = game.winner
    return out


def referee(lines):
    """Referee a record given as text lines; raises record.RecordError if it is malformed."""
    game, actions = record.load(lines)
    return verdict(game, replay(game, actions))
