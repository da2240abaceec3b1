"""The serial link (DESIGN section 4): JSON Lines both ways over USB CDC, protocol version 1."""
# Every line is one JSON object. The link shares the USB serial port with the MicroPython
# REPL: the host ignores lines that are not JSON objects with a "type". While the table runs,
# Ctrl-C (0x03) is data (main.run turns MicroPython's keyboard interrupt off), so line noise or
# another program cannot stop it; a line of nothing but Ctrl-C - ``\r\x03\r``, as mpremote sends
# to break in (``\r\x03`` then ``\r\x01``), or Ctrl-C then Enter at a terminal - is the
# deliberate stop: the table leaves the loop for the REPL (STOP below), with Ctrl-C working
# again there. The device never blocks on the link: it reads the bytes that are waiting, up
# to a budget per step(); a line longer than LINE_MAX is refused as soon as it is (an
# ``error`` with id null) and the rest of it is discarded as it arrives.
#
# Device -> host ("type" names the message):
#
# - ``hello``: ``fw`` firmware version, ``build`` (the frozen image's build hash, or
#   ``"source"`` when the package runs from files), ``proto`` (1), ``board``, ``layout``,
#   ``game`` (the current game's record header or null), ``seq`` (its last journal line).
#   Sent at boot and in answer to the ``hello`` command.
# - ``event``: an accepted action. ``seq`` (its journal line; null if the journal failed),
#   ``action`` (the action as a record line, e.g. ``{"seat": 1, "act": "play", "card": "5H"}``),
#   ``events`` (what the rules said happened: ``{"ev": "trick", "seat": 1, ...}``, hand
#   scored, game over), ``from`` (``"zone s1"``, ``"button k4"``, ``"tap t2"``, ``"host"``,
#   ``"auto"``). An undo is an ``event`` with ``undone`` (the record line taken back) instead
#   of ``action``, and ``seq`` the journal's last line after it. Actions are told as a
#   spectator may see them (the game's ``public``: no hidden pile of a deal, discards counted).
# - ``verdict``: a rejected action. ``action`` (record form, or null when the input made no
#   action), ``seat``, ``reason`` (in words a player understands), ``from``.
# - ``state``: ``seq`` and ``view``, the spectator view (``view(None)``: never a hand, the
#   kitty's hidden cards or the deck order). Sent after every change and on request.
#   A finished team game (Forty-Fives) adds ``agree``: each team's answer to the result,
#   0 not yet, 1 agreed, 2 disputed.
# - ``agree``: a team answered the finished game's result (its ``agree``/``dispute`` button,
#   a tap on a partner's tap pad, or the host's ``press``): ``team``, ``answer``
#   (``"agree"`` or ``"dispute"``), ``agree`` (both teams' answers, as in ``state``), ``from``.
# - ``consent``: a team's ``agree``/``dispute`` button pressed while the game goes on (no result
#   is asked): ``team``, ``answer``, ``from``. The host may hold an undo asked from a seat page
#   that waits for that team's agreement; the table holds nothing pending.
# - ``say``: seat ``seat``'s ``say`` button (``from``): the seat asks to hear its hand and the
#   trick. No card travels: the host asks ``state`` with that ``seat`` for the hand.
# - ``fault``: ``kind`` (``reader``: a reader stopped answering; ``tag``: a foreign tag, no
#   card of this game; ``two_tags``: two tags on one pad; ``torn``: the card left mid-read;
#   ``duplicate``: two tags say they are the same card; ``journal``: flash trouble;
#   ``error``: the firmware caught an error; ``board``: a wiring warning of the board file, at
#   start; ``misdeal``: a deal across the deal pad went wrong and starts over), ``msg``, and
#   ``zone`` where there is one.
#   ``cleared: true`` says the fault is over (the reader answers again). The LEDs' side:
#   hardware/README.md, "Faults at the table".
# - ``dealt``: a card counted on the deal pad: ``n`` of ``of``, ``zone`` (never which card);
#   the last card's answer is the deal's ``event``.
# - ``bringup``: while the ``bringup`` command has it on, a button pressed (``button``: its
#   name) or an encoder turned (``encoder``, ``steps``), played as nothing.
# - ``log``: one journal line, in answer to ``log``: ``id``, ``game`` (its number), ``line``
#   (the journal line's exact text, seq and CRC included).
# - ``ok``: ``id`` echoed, plus the command's answer fields.
# - ``error``: ``id`` echoed (null when the line had none or was not JSON), ``msg``; ``tag``
#   for a tag the ``tag`` command could not use (see there).
#
# Host -> device: ``{"cmd": NAME, "id": ID, ...}``; ID is a JSON whole number or string, echoed
# in exactly one ``ok`` or ``error``. Lines longer than LINE_MAX bytes, lines that are not JSON
# objects, unknown commands and bad fields get an ``error``, never a crash. The device takes
# one host line per step (CR, LF or CRLF ends a line; empty lines are skipped).
#
# - ``hello``: sends a ``hello``; ok.
# - ``new``: ``game`` (id), optional ``seats``, ``dealer``, ``rules`` (options), ``layout``
#   (the board layout to use; default: the board's layout for that game and seat count).
#   Starts a new game and journal; ok with ``game`` (the header) and ``number``.
# - ``act``: ``action`` as a record line, for inputs the table has no button for:
#   ``{"cmd": "act", "id": 7, "action": {"seat": 1, "act": "bid", "bid": 20}}``.
#   ok with ``seq`` and ``events``; error with the reason if the rules reject it.
# - ``undo``: takes back the last action; ok with ``action`` (what was undone) and ``seq``. With
#   ``seq``: only if that is still the journal's last line (an undo agreed for that action).
# - ``state``: ok with ``seq`` and ``view`` (spectator), and ``agree`` as in the message. With
#   ``seat`` (a seat number): ``view`` is that seat's (the game's ``view(seat)``: its own hand
#   when the table knows it, never another's), for the host to hand to that seat's player alone.
# - ``log``: optional ``game`` (a number from ``games``; default the current game). Streams
#   the journal as ``log`` messages, a few per step, then ok with ``game`` and ``lines``.
# - ``config``: ok with ``board``, ``layout``, ``game``, ``layouts``, ``zones`` (zone ->
#   role), ``buttons`` (button -> meaning), ``host_verbs`` (what the host must type for this
#   layout) and ``saved`` (the config file). With ``set`` (an object of ``board``,
#   ``layout``): saves them to the board's config file, used from the next boot.
# - ``games``: ok with ``games``: ``[{"number": 3, "bytes": 2048, "current": true}, ...]``.
# - ``press``: ``button``, a button meaning of the layout's game (``"bid 20"``, ``"pass"``,
#   ``"trump H"``, ``"suit M"``, ``"nerts 2"``, ``"confirm"``, ``"undo"``, ``"agree 1"``,
#   ``"dispute 0"`` (a team game's answer to its result; refused while the game goes on),
#   ``"say 1"`` (where the layout has that button)), pressed as that
#   button would be, whether or not the table has one. ok with ``seq`` and ``events`` if it
#   made an action, ``undone`` and ``seq`` if it took one back, nothing more if it only set
#   something up (a suit for the next lead); error with the reason if the rules reject it,
#   or naming the meanings there are.
# - ``tag``: enrolling through the table's own readers. ``zone``: reads the tag on that
#   zone's reader; ok with ``zone``, ``uid`` (hex; null: no tag there), ``text`` (its NDEF
#   text, or null and ``why`` it has none). With ``write`` (a card code) the NDEF text record
#   is written (NTAG pages from 4) and read back; ok as above, ``text`` the code read back;
#   with ``uid`` the write happens only on that tag. A tag it cannot use is an error with
#   ``tag``: ``"lost"`` (no tag, another tag, or it left the field: try again) or
#   ``"unusable"`` (not an NDEF-formatted NTAG, read-only, too small). The first ``tag``
#   command that succeeds starts enrolling (one that fails leaves the table as it was): zone
#   events are no actions until ``{"cmd": "tag", "done": true}`` (or a reboot).
# - ``health``: ok with ``readers`` (per reader: ``zone``, ``up``, ``polls``, ``failures``,
#   ``card``, ``error`` (the last), ``fw`` (the PN532's firmware version, e.g. ``"1.6"``,
#   as its last init() said), ``driver`` counters), ``journal`` (``number``, ``seq``,
#   ``bytes``, ``dropped`` (torn bytes cut at boot), ``error``), ``flash_free``, ``heap_free``
#   (-1 if unknown), ``uptime_ms``, ``steps``, ``link`` (``sent``, ``received``, ``errors``).
# - ``bringup``: a first power-up's checks (``cardtable doctor --bringup``). ``on`` (true or
#   false): while on, a button press or an encoder turn is no game action but a ``bringup``
#   message, until ``"on": false`` (or a reboot); ``beep`` (true): the piezo plays its
#   ``over`` pattern (an error where the board has no piezo). ok with ``on``, ``buttons``
#   (name -> GP), ``encoders`` (name -> [GP A, GP B]), ``piezo`` (its GP or null), ``beep``.
import json

from cardtable.compat import const

PROTO = const(1)
LINE_MAX = const(1024)
NEST_MAX = const(64)  # [ and { in a host line
COMMANDS = ("hello", "new", "act", "undo", "state", "log", "config", "games", "health", "press",
            "tag", "bringup")


class LinkError(ValueError):
    """A host line the device cannot take; `id` is the command's id, if it had one."""

    def __init__(self, msg, cid=None):
        super().__init__(msg)
        self.msg = msg
        self.id = cid


class Stop(KeyboardInterrupt):
    """The host stopped the table on purpose: a line of nothing but Ctrl-C (see the top)."""


class LineReader:
    """Assembles host lines from a non-blocking byte source (read_byte() -> int or -1) in a
    buffer of `limit` bytes: a longer line is refused once, as soon as it is too long, and
    the rest of it is read and dropped (the board's memory never holds more)."""

    def __init__(self, source, limit=LINE_MAX):
        self.source = source
        self.limit = limit
        self.buf = bytearray(limit)
        self.n = 0
        self.overflow = False
        self.ctrl_c = True  # the line so far is nothing but Ctrl-C bytes

    def poll(self, budget=256):
        """Read up to budget waiting bytes; a complete line (str), TOO_LONG, STOP or None."""
        src = self.source
        buf = self.buf
        for _ in range(budget):
            b = src.read_byte()
            if b < 0:
                return None
            if b == 10 or b == 13:
                stop = self.ctrl_c and self.n > 0
                self.ctrl_c = True
                if self.overflow:
                    self.overflow = False
                    self.n = 0
                    continue  # refused when it grew too long
                if self.n == 0:
                    continue
                n = self.n
                self.n = 0
                if stop:
                    return STOP
                try:
                    return bytes(buf[:n]).decode()
                except UnicodeError:
                    return BAD_TEXT
            if b != 3:
                self.ctrl_c = False
            if self.overflow:
                continue
            if self.n >= self.limit:
                self.overflow = True
                return TOO_LONG
            buf[self.n] = b
            self.n += 1
        return None


TOO_LONG = "\x00too long"
BAD_TEXT = "\x00not utf-8"
STOP = "\x00stop"


def parse(line):
    """The command object of a host line; raises LinkError (with the id once it is known)."""
    if line == TOO_LONG:
        raise LinkError("line too long: at most %d bytes a line; the rest of it is discarded"
                        % LINE_MAX)
    if line == BAD_TEXT:
        raise LinkError("the line is not UTF-8 text")
    # No command nests deeper than a few levels; a line of brackets would cost the heap a
    # list per bracket (MemoryError on the board, RecursionError on CPython).
    if line.count("[") + line.count("{") > NEST_MAX:
        raise LinkError("too many [ and { (at most %d in a line)" % NEST_MAX)
    try:
        obj = json.loads(line)
    except (ValueError, RuntimeError):
        raise LinkError("not JSON: send one object per line, e.g. {\"cmd\": \"state\", \"id\": 1}")
    except MemoryError:
        raise LinkError("the line does not fit in the table's memory now")
    if not isinstance(obj, dict):
        raise LinkError("expected a JSON object {\"cmd\": ..., \"id\": ...}")
    cid = obj.get("id")
    if cid is not None and not isinstance(cid, (int, str)) or isinstance(cid, bool):
        raise LinkError("\"id\" must be a number or a string")
    cmd = obj.get("cmd")
    if not isinstance(cmd, str):
        raise LinkError("missing \"cmd\" (commands: %s)" % ", ".join(COMMANDS), cid)
    if cmd not in COMMANDS:
        raise LinkError("unknown command %r (commands: %s)" % (cmd, ", ".join(COMMANDS)), cid)
    if "id" not in obj:
        raise LinkError("missing \"id\": every command needs one, echoed in the answer")
    return obj


def encode(msg):
    """The bytes of one message line."""
    return (json.dumps(msg) + "\n").encode()


def ok(cid, fields=None):
    out = {"type": "ok", "id": cid}
    if fields:
        out.update(fields)
    return out


def error(cid, msg):
    return {"type": "error", "id": cid, "msg": msg}


def fault(kind, msg, zone=None, cleared=False):
    out = {"type": "fault", "kind": kind, "msg": msg}
    if zone is not None:
        out["zone"] = zone
    if cleared:
        out["cleared"] = True
    return out


class Link:
    """Reads host commands and writes device messages over a hal Serial."""

    def __init__(self, serial, limit=LINE_MAX):
        self.serial = serial
        self.reader = LineReader(serial, limit)
        self.sent = 0
        self.received = 0
        self.errors = 0

    def poll(self, budget=256):
        """The next host command (dict), a LinkError for a bad line, or None."""
        line = self.reader.poll(budget)
        if line is None:
            return None
        if line is STOP:
            raise Stop()  # out of step() and main.run: the REPL (main.py)
        self.received += 1
        try:
            return parse(line)
        except LinkError as e:
            self.errors += 1
            return e

    def send(self, msg):
        self.serial.write(encode(msg))
        self.sent += 1
