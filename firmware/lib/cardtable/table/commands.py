"""The host's commands over the link (link.py has the protocol), as functions of the controller."""
from cardtable import games, record
from cardtable import link as lk
from cardtable.compat import ticks_diff

_LOG_LINES = 4  # journal lines streamed per step


def handle(ctl, cmd):
    """Answer one host command (or report a bad line) with exactly one ok or error."""
    if isinstance(cmd, lk.LinkError):
        ctl.link.send(lk.error(cmd.id, cmd.msg))
        return
    cid = cmd.get("id")
    try:
        answer = COMMANDS[cmd["cmd"]](ctl, cmd)
    except Exception as e:  # noqa: BLE001 - a bad command must never stop the table
        ctl.errors += 1
        answer = "internal error: %s %s" % (type(e).__name__, e)
    if answer is None:
        return  # answered later (log)
    if isinstance(answer, str):
        ctl.link.send(lk.error(cid, answer))
    else:
        ctl.link.send(lk.ok(cid, answer))


def _hello(ctl, cmd):
    ctl.hello()
    return {}


def _new(ctl, cmd):
    name = cmd.get("game", ctl.game.ID)
    seats = cmd.get("seats")
    dealer = cmd.get("dealer", 0)
    rules = cmd.get("rules", {})
    layout = cmd.get("layout")
    if not isinstance(name, str):
        return "\"game\" must be a game id (%s)" % ", ".join(sorted(games.GAMES))
    if name not in games.GAMES:
        return "unknown game %r (games: %s)" % (name, ", ".join(sorted(games.GAMES)))
    if seats is not None and type(seats) is not int or type(dealer) is not int:
        return "\"seats\" and \"dealer\" must be whole numbers"
    if not isinstance(rules, dict):
        return "\"rules\" must be an object of rule options"
    if layout is not None and not isinstance(layout, str):
        return "\"layout\" must be a layout name"
    reason = ctl.new_game(name, seats, dealer, rules, layout)
    if reason:
        return reason
    ctl.hello()
    ctl.send_state()
    return {"game": record.header(ctl.game), "number": ctl.journal.number}


def _act(ctl, cmd):
    obj = cmd.get("action")
    if not isinstance(obj, dict):
        return "\"action\" must be a record line, e.g. {\"seat\": 1, \"act\": \"bid\", \"bid\": 20}"
    try:
        action = record.decode(ctl.game, obj, 1)
    except record.RecordError as e:
        return e.message
    done, what, events = ctl.play(action, "host")
    if not done:
        return what
    return {"seq": what, "events": events}


def _undo(ctl, cmd):
    seq = cmd.get("seq")
    if seq is not None and seq != ctl.journal.seq:
        return "the table moved on: line %s is no longer the last" % seq
    done, what = ctl.undo("host")
    if not done:
        return what
    return {"action": what, "seq": ctl.journal.seq}


def _state(ctl, cmd):
    seat = cmd.get("seat")
    if seat is not None and (type(seat) is not int or not 0 <= seat < ctl.game.seats):
        return "\"seat\" must be a seat 0..%d" % (ctl.game.seats - 1)
    out = ctl.state({}, seat)
    if seat is not None and cmd.get("teach"):
        from cardtable.games import teach
        out["teach"] = teach.marks(ctl.game, seat)
    return out


def _log(ctl, cmd):
    if ctl.streaming is not None:
        return "a log is already being sent"
    n = cmd.get("game", ctl.journal.number)
    if type(n) is not int or n not in ctl.journal.numbers():
        return "no journal %r (games: %s)" % (n, ", ".join([str(k) for k in ctl.journal.numbers()]) or "none")
    try:
        rd = ctl.journal.reader(n)
    except OSError as e:
        return "cannot read journal %d: %s" % (n, e)
    ctl.streaming = [cmd.get("id"), rd, n, 0]
    return None


def log_step(ctl):
    """Send the next few lines of a journal being streamed; the ok after the last."""
    cid, rd, n, count = ctl.streaming
    try:
        for _ in range(_LOG_LINES):
            line = rd.next()
            if line is None:
                rd.close()
                ctl.streaming = None
                ctl.link.send(lk.ok(cid, {"game": n, "lines": count}))
                return
            ctl.link.send({"type": "log", "id": cid, "game": n, "line": line[0]})
            count += 1
    except OSError as e:
        ctl.streaming = None
        ctl.link.send(lk.error(cid, "journal %d: %s" % (n, e)))
        return
    ctl.streaming[3] = count


def _config(ctl, cmd):
    new = cmd.get("set")
    if new is not None:
        if not isinstance(new, dict):
            return "\"set\" must be an object, e.g. {\"layout\": \"fortyfives\"}"
        for k in new:
            if k not in ("board", "layout") or not isinstance(new[k], str):
                return "config takes \"board\" and \"layout\" names"
        if "layout" in new and "board" not in new and new["layout"] not in ctl.board.layouts:
            return "no layout %r on %s" % (new["layout"], ctl.board.name)
        cfg = dict(ctl.config)
        cfg.update(new)
        try:
            save_config(ctl.hal.storage, cfg, ctl.config_path)
        except OSError as e:
            return "cannot save the config: %s" % e
        ctl.config = cfg
    lay = ctl.layout
    zones = {}
    for z in lay.roles:
        r, s = lay.roles[z]
        zones[z] = r if s is None else "%s %d" % (r, s)
    buttons = {}
    for name in lay.buttons:
        v, a = lay.buttons[name]
        buttons[name] = v if a is None else "%s %s" % (v, a)
    return {"board": ctl.board.name, "layout": lay.name, "game": lay.game,
            "layouts": sorted(ctl.board.layouts), "zones": zones, "buttons": buttons,
            "host_verbs": list(lay.host_verbs), "saved": ctl.config}


def _games(ctl, cmd):
    out = []
    for n, size in ctl.journal.games():
        out.append({"number": n, "bytes": size, "current": n == ctl.journal.number})
    return {"games": out}


def _health(ctl, cmd):
    readers = []
    for i in range(ctl.scanner.n):
        st = ctl.scanner.status(i)
        st["zone"] = ctl.board.reader_zone[i]
        readers.append(st)
    j = ctl.journal
    return {"readers": readers,
            "journal": {"number": j.number, "seq": j.seq, "bytes": j.size, "dropped": j.dropped,
                        "error": j.error},
            "flash_free": ctl.hal.storage.free(), "heap_free": ctl.hal.mem_free(),
            "uptime_ms": ticks_diff(ctl.clock.ticks_ms(), ctl.t_boot), "steps": ctl.steps,
            "link": {"sent": ctl.link.sent, "received": ctl.link.received,
                     "errors": ctl.link.errors}}


def _press(ctl, cmd):
    from cardtable.table import remote  # loaded when first used: most tables never need it

    return remote.press(ctl, cmd)


def _tag(ctl, cmd):
    from cardtable.table import remote

    return remote.tag(ctl, cmd)


# command name -> function(ctl, cmd) returning an answer dict, an error text, or None (later)
COMMANDS = {"hello": _hello, "new": _new, "act": _act, "undo": _undo, "state": _state,
            "log": _log, "config": _config, "games": _games, "health": _health, "press": _press,
            "tag": _tag}


def load_config(storage, path="config.json"):
    """The board's config file as a dict ({} if it is missing or unreadable)."""
    import json

    try:
        f = storage.open(path, "rb")
    except OSError:
        return {}
    try:
        obj = json.loads(f.read().decode())
    except ValueError:
        obj = {}
    finally:
        f.close()
    return obj if isinstance(obj, dict) else {}


def save_config(storage, cfg, path="config.json"):
    """Write the config file through a temp file and a rename."""
    import json

    tmp = path + ".tmp"
    f = storage.open(tmp, "wb")
    try:
        f.write(json.dumps(cfg).encode())
        f.flush()
    finally:
        f.close()
    storage.rename(tmp, path)
