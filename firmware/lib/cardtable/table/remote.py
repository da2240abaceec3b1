"""The link's press, tag and bringup commands (link.py has the protocol): a button meaning
pressed from the host, tags read and written through the table's own readers, and the buttons
and piezo checked one by one at a first power-up. Imported when first used."""
from cardtable.table import inputs

_ARG = {"bid": " <bid>", "trump": " <suit>", "suit": " <suit>", "nerts": " <seat>", "at": " up|down"}


def press(ctl, cmd):
    """The press command (link.py): a button meaning pressed from the host."""
    text = cmd.get("button")
    lay = ctl.layout
    free = list(lay.host_verbs)  # verbs some meaning of which has no button: any argument
    for v, a in lay.encoders.values():
        if a is None:
            free.append(v)
    verb, _, arg = (text if isinstance(text, str) else "").strip().partition(" ")
    verb = verb.lower()
    arg = int(arg) if arg.isdigit() else arg or None
    found = verb in ("confirm", "undo") and arg is None
    if verb in ("agree", "dispute") and getattr(ctl.game, "TEAMS", False):
        found = arg == 0 or arg == 1  # a team's answer to the result (inputs.answer)
    if not found and verb in free:
        found = arg is None if verb == "pass" else arg is not None
        if verb == "nerts":
            found = type(arg) is int and arg < len(lay.seats)
        elif verb == "at":
            found = arg in ("up", "down")
        elif verb in ("trump", "suit") and found:
            try:
                ctl.game.deck.parse_suit(arg)
            except ValueError as e:
                return str(e)
    names = []
    for b in sorted(lay.buttons):
        v, a = lay.buttons[b]
        if not found and v == verb and (a == arg or type(a) is str and str(arg).lower() == a.lower()):
            found = True
            arg = a
        names.append(v if a is None else "%s %s" % (v, a))
    if not found:
        extra = ["confirm", "undo"]
        if getattr(ctl.game, "TEAMS", False) and "agree 0" not in names:
            extra += ["agree <team>", "dispute <team>"]
        for v in free + extra:
            if v not in names:
                names.append(v + _ARG.get(v, ""))
        return "no button means %r here (%s: %s)" % (text, lay.name, ", ".join(names))
    r = inputs.press(ctl, verb, arg, "host")
    if r is None:
        return {}
    if not r[0]:
        return r[1]
    if len(r) == 2:
        return {"undone": r[1], "seq": ctl.journal.seq}
    return {"seq": r[1], "events": r[2]}


def tag(ctl, cmd):
    """The tag command (link.py): read or write the tag on a zone's reader, for enrolling."""
    if cmd.get("done"):
        ctl.enroll = None
        return {}
    zone = cmd.get("zone")
    i = ctl.board.zone_reader.get(zone) if isinstance(zone, str) else None
    if i is None:
        return "no zone %r (zones: %s)" % (zone, ", ".join(ctl.board.reader_zone))
    text = cmd.get("write")
    if text is not None and not (isinstance(text, str) and text):
        return "\"write\" must be a card code, e.g. \"AS\""
    if ctl.scanner.down[i]:
        return "the reader of zone %s is down: %s" % (zone, ctl.scanner.last_error[i])
    was = ctl.enroll
    ctl.enroll = zone  # from now on zone events are no actions, until "done"
    out = None
    try:
        ctl.scanner.quiet()  # one field at a time
        out = _tag(ctl, cmd, zone, ctl.scanner.readers[i], text)
    finally:
        if out is None or isinstance(out, str):
            ctl.enroll = was  # a tag command that fails starts no enrolling: the table plays on
    return out


def _tag(ctl, cmd, zone, r, text):
    """Read (and write) the tag on reader r: the ok object, or None once the error is sent."""
    out = {"zone": zone, "uid": None}
    kind = "lost"
    try:
        uid = r.poll()
        if uid is not None:
            out["uid"] = "".join(["%02x" % b for b in uid])
            ctl.scanner.forget(uid)  # (enrolling may write it: the scanner READs it again)
        if uid is None or out["uid"] != cmd.get("uid", out["uid"]):
            if text is None:
                return out
            msg = "no tag on zone %s" % zone if uid is None else "the tag on zone %s is %s, not %s" % (
                zone, out["uid"], cmd["uid"])
        else:
            if text is not None:
                r.write_text(text)
            try:
                out["text"] = r.read_text()
            except ValueError as e:  # no card code on it
                out["text"] = None
                out["why"] = str(e)
            if text is None or out["text"] == text:
                if text is not None:
                    ctl.feedback.flash(ctl.board.zone_led.get(zone, -1), "accepted", ctl.clock.ticks_ms())
                return out
            msg = "tag %s reads back %r, not %r" % (out["uid"], out["text"], text)
    except ValueError as e:  # NdefError from the write: not formatted, read-only, too small
        kind = "unusable"
        msg = "tag %s: %s" % (out["uid"], e)
    except OSError as e:
        st = getattr(e, "status", None)
        if st is None:
            return "the reader of zone %s failed: %s" % (zone, e)
        kind = "lost" if st == 1 else "unusable"
        msg = "tag %s: %s" % (out["uid"], e)
    finally:
        try:
            r.release()
        except OSError:
            pass
    ctl.link.send({"type": "error", "id": cmd.get("id"), "msg": msg, "tag": kind})
    return None


def bringup(ctl, cmd):
    """The bringup command (link.py): buttons and encoders reported instead of played while
    "on" (inputs.input_event); "beep" plays the piezo's "over" pattern."""
    on = cmd.get("on")
    beep = cmd.get("beep", False)
    if on is not None and on is not True and on is not False or beep is not True and beep is not False:
        return "\"on\" and \"beep\" must be true or false"
    b = ctl.board
    if beep and (b.piezo_pin is None or ctl.feedback.buzzer is None):
        return "no piezo on %s to sound" % b.name
    if on is not None:
        ctl.bringup = on
    if beep:
        ctl.feedback.sound("over", ctl.clock.ticks_ms())
    enc = {}
    for name in b.encoders:
        enc[name] = list(b.encoders[name])
    return {"on": ctl.bringup, "buttons": dict(b.buttons), "encoders": enc, "piezo": b.piezo_pin,
            "beep": beep}

