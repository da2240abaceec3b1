"""The game record (DESIGN section 3): JSON Lines, a header line then one action per line."""
# A deal line names its piles at the top level: ``{"act": "deal", "hands": [[...], ...], "stock": [...]}``.
# The same format is the journal on flash, the input of ``cardtable referee``, test fixtures and
# simulator output. A journal line may carry ``"seq"`` and, as its last member, ``"crc"``: the CRC-32
# (hex) of the line's text with that member removed, so a torn or corrupted line is detected.
import json
from binascii import crc32

from cardtable import games
from cardtable.cards import BadCard

_CRC_TAIL = ', "crc": "'
_INT_FIELDS = ("at", "t", "n")
# A record is refereed within bounds (the director referees what tables send): at most this
# many lines after the header (the longest games the simulator plays have a few thousand).
MAX_LINES = 20000
try:
    json.loads("{}", object_pairs_hook=dict)
    _PAIRS = True   # CPython: a key given twice in a line is refused
except TypeError:
    _PAIRS = False  # MicroPython's json has no hook: the table reads only lines it wrote


class _Twice(Exception):
    """A key given twice in one JSON object (raised from inside json.loads)."""


def _pairs(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise _Twice(k)
        out[k] = v
    return out


class RecordError(ValueError):
    """A malformed record line: names the line and what was expected."""

    def __init__(self, line, message):
        if len(message) > 200:  # a huge value quoted back: one readable line is enough
            message = message[:197] + "..."
        super().__init__("line %d: %s" % (line, message))
        self.line = line
        self.message = message


# -- lines ----------------------------------------------------------------------------------
def parse_line(text, lineno):
    """The JSON object on a line, its CRC checked if it has one; raises RecordError."""
    text = text.strip()
    if text[:1] == "\ufeff":  # a byte-order mark, read as text
        text = text[1:]
    if "\x00" in text:
        raise RecordError(lineno, "NUL bytes: not text (UTF-16 without its mark? save the record as UTF-8)")
    at = text.rfind(_CRC_TAIL)
    if at >= 0:
        body = text[:at] + "}"
        want = text[at + len(_CRC_TAIL):]
        if len(want) != 10 or want[-2:] != '"}':
            raise RecordError(lineno, "the checksum must end the line as \"crc\": \"8 hex digits\"")
        if "%08x" % (crc32(body.encode()) & 0xFFFFFFFF) != want[:8].lower():
            raise RecordError(lineno, "checksum mismatch: the line is torn or corrupted")
        text = body
    try:
        obj = json.loads(text, object_pairs_hook=_pairs) if _PAIRS else json.loads(text)
    except _Twice as e:
        raise RecordError(lineno, "the key %s is given twice in the line" % _clip(str(e.args[0])))
    except (ValueError, RuntimeError):  # RuntimeError: CPython's RecursionError (deep nesting)
        raise RecordError(lineno, "not a JSON object: %s" % _clip(text))
    if not isinstance(obj, dict):
        raise RecordError(lineno, "expected a JSON object {...}, got %s" % _clip(text))
    return obj


def format_line(obj, seq=None):
    """One record line; with seq, also the sequence number and the line's CRC (journal form)."""
    if seq is None:
        return json.dumps(obj)
    body = json.dumps(obj)
    body = '{"seq": %d, %s' % (seq, body[1:]) if len(body) > 2 else '{"seq": %d}' % seq
    return body[:-1] + _CRC_TAIL + "%08x" % (crc32(body.encode()) & 0xFFFFFFFF) + '"}'


def _clip(text):
    return repr(text if len(text) < 60 else text[:57] + "...")


# -- the header -----------------------------------------------------------------------------
def header(game):
    """The header object of a game."""
    out = {"game": game.ID, "seats": game.seats}
    if game.HAS_DEALER:
        out["dealer"] = game.first_dealer
    changed = {}
    for k in game.rules:
        if game.rules[k] != game.OPTIONS[k]:
            changed[k] = game.rules[k]
    out["rules"] = changed
    return out


# Optional header fields about the occasion, kept by the host's archive (`cardtable serve`):
# the rules never read them. "table": the table's name; "players": a name per seat (null for
# an unnamed seat); "start", "end": when the game began and ended (ISO 8601 text); "times": per
# action line, when the host heard it, in ms since the game's first line (null where unheard);
# "undos": each action taken back, who asked and who agreed (objects, as the host kept them).
OCCASION = ("table", "players", "start", "end", "times", "undos")


def game_from_header(obj, lineno=1):
    """A new game from a header object; raises RecordError."""
    for key in obj:
        if key not in ("game", "seats", "dealer", "rules", "seq") and key not in OCCASION:
            raise RecordError(lineno, "unknown header key %r (expected game, seats, dealer, rules; "
                                      "optional table, players, start, end, times, undos)" % key)
        if key in OCCASION:
            _check_occasion(key, obj[key], lineno)
    name = obj.get("game")
    if not isinstance(name, str):
        raise RecordError(lineno, "the header must name the game: {\"game\": \"nexus\", ...}")
    try:
        cls = games.game_class(name)
    except ValueError as e:
        raise RecordError(lineno, str(e))
    seats = obj.get("seats", cls.SEATS[0])
    dealer = obj.get("dealer", 0)
    rules = obj.get("rules", {})
    if not isinstance(rules, dict):
        raise RecordError(lineno, "\"rules\" must be an object of rule options")
    if type(seats) is not int or type(dealer) is not int:
        raise RecordError(lineno, "\"seats\" and \"dealer\" must be whole numbers")
    try:
        return cls(seats, dealer, rules)
    except ValueError as e:
        raise RecordError(lineno, str(e))


def _check_occasion(key, value, lineno):
    if key == "players":
        if not isinstance(value, list) or not all(v is None or isinstance(v, str) for v in value):
            raise RecordError(lineno, "\"players\" must be a list of names (or null) per seat")
    elif key == "undos":
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise RecordError(lineno, "\"undos\" must be a list of objects (what was undone, who asked, who agreed)")
    elif key == "times":
        if not isinstance(value, list) or not all(v is None or type(v) is int and v >= 0 for v in value):
            raise RecordError(lineno, "\"times\" must be a list of whole ms (or null) per action line")
    elif not isinstance(value, str):
        raise RecordError(lineno, "%r must be text" % key)


# -- actions --------------------------------------------------------------------------------
def decode(game, obj, lineno):
    """The action tuple of a record object; raises RecordError."""
    verb = obj.get("act")
    fields = game.VERBS.get(verb) if isinstance(verb, str) else None
    if fields is None:
        raise RecordError(lineno, "unknown action %r for %s (expected one of: %s)"
                          % (verb, game.ID, ", ".join(sorted(game.VERBS))))
    if verb == "deal":
        if "seat" in obj:
            raise RecordError(lineno, "a deal has no seat")
        piles = {}
        for key in obj:
            if key not in ("act", "seq"):
                piles[key] = obj[key]
        return (None, "deal", _piles(game, piles, lineno))
    names = [f[:-1] if f[-1] == "?" else f for f in fields]
    for key in obj:
        if key not in ("act", "seat", "seq") and key not in names:
            raise RecordError(lineno, "%r takes no %r (it takes %s)" % (verb, key, ", ".join(names) or "nothing"))
    seat = obj.get("seat")
    if type(seat) is not int or not 0 <= seat < game.seats:
        raise RecordError(lineno, "\"seat\" must be a seat number 0..%d" % (game.seats - 1))
    out = [seat, verb]
    for f, name in zip(fields, names):
        if name not in obj:
            if f[-1] == "?":
                out.append(None)
                continue
            raise RecordError(lineno, "%r needs %r" % (verb, name))
        out.append(_decode_field(game, name, obj[name], lineno))
    return tuple(out)


def _decode_field(game, name, value, lineno):
    try:
        if name == "card":
            return _card(game, value)
        if name == "cards":
            if not isinstance(value, list):
                raise RecordError(lineno, "\"cards\" must be a list of card codes")
            return tuple(_card(game, v) for v in value)
        if name == "suit":
            if not isinstance(value, str):
                raise RecordError(lineno, "\"suit\" must be a suit letter")
            return game.deck.parse_suit(value)
        if name == "bid":
            if type(value) is int:
                return value
            if isinstance(value, str):
                return value.lower()
            raise RecordError(lineno, "\"bid\" must be a number or a word")
        if name in _INT_FIELDS:
            if type(value) is not int:
                raise RecordError(lineno, "%r must be a whole number" % name)
            return value
        if name == "end":
            if value not in ("top", "bottom"):
                raise RecordError(lineno, "\"end\" must be \"top\" or \"bottom\"")
            return value
    except BadCard as e:
        raise RecordError(lineno, str(e))
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    raise RecordError(lineno, "%r must be a plain value" % name)


def _card(game, value):
    if not isinstance(value, str):
        raise BadCard("a card must be a code in quotes, not %r" % (value,))
    return game.deck.parse(value)


def _piles(game, obj, lineno):
    """Decode a deal's piles: lists of codes, 'hands*' piles a list per seat (null = unseen)."""
    out = {}
    for name in obj:
        if name not in game.PILES:
            raise RecordError(lineno, "a %s deal has no pile %r (piles: %s)"
                              % (game.ID, name, ", ".join(game.PILES)))
        value = obj[name]
        if value is None:
            out[name] = None
        elif name.startswith("hands"):
            if not isinstance(value, list):
                raise RecordError(lineno, "%r must be a list with one list of cards per seat" % name)
            out[name] = [None if h is None else _card_list(game, h, name, lineno) for h in value]
        else:
            out[name] = _card_list(game, value, name, lineno)
    return out


def _card_list(game, value, name, lineno):
    if not isinstance(value, list):
        raise RecordError(lineno, "%r must be a list of card codes" % name)
    try:
        return [_card(game, v) for v in value]
    except BadCard as e:
        raise RecordError(lineno, "%r: %s" % (name, e))


def encode(game, action):
    """The record object of an action tuple."""
    seat, verb = action[0], action[1]
    if verb == "deal":
        obj = {"act": "deal"}
        obj.update(_encode_piles(game, action[2]))
        return obj
    obj = {"seat": seat, "act": verb}
    for f, value in zip(game.VERBS[verb], action[2:]):
        name = f[:-1] if f[-1] == "?" else f
        if value is None and f[-1] == "?":
            continue
        if name == "card":
            value = game.deck.fmt(value)
        elif name == "cards":
            value = [game.deck.fmt(c) for c in value]
        elif name == "suit":
            value = game.deck.fmt_suit(value)
        obj[name] = value
    return obj


def _encode_piles(game, piles):
    out = {}
    for name in piles:
        pile = piles[name]
        if pile is None:
            out[name] = None
        elif name.startswith("hands"):
            out[name] = [None if h is None else [game.deck.fmt(c) for c in h] for h in pile]
        else:
            out[name] = [game.deck.fmt(c) for c in pile]
    return out


# -- whole records --------------------------------------------------------------------------
UNDO = (None, "undo")  # an undo line: it takes back the last action not yet taken back


def reading(lines):
    """Yield the game (from the header), then (line number, action) per line (UNDO for an undo
    line); raises RecordError."""
    game = None
    lineno = 0
    count = 0
    for text in lines:
        lineno += 1
        if not text.strip():
            continue
        obj = parse_line(text, lineno)
        if game is not None:
            count += 1
            if count > MAX_LINES:
                raise RecordError(lineno, "more than %d actions: the referee's limit for a record"
                                  % MAX_LINES)
        if game is None:
            game = game_from_header(obj, lineno)
            yield game
        elif obj.get("act") == "undo":
            yield lineno, UNDO
        else:
            yield lineno, decode(game, obj, lineno)
    if game is None:
        raise RecordError(max(lineno, 1), "the record is empty: the first line must be a header")


def load(lines):
    """(game, [(line number, action), ...]) from an iterable of text lines, without the actions
    undo lines took back; raises RecordError."""
    it = reading(lines)
    game = next(it)
    out = []
    for lineno, action in it:
        if action is UNDO:
            if not out:
                raise RecordError(lineno, "an undo line with no action before it to take back")
            out.pop()
        else:
            out.append((lineno, action))
    return game, out


def dump(game, actions=None):
    """The record lines (without newlines) of a game and its actions (default: its history)."""
    out = [json.dumps(header(game))]
    for a in game.history if actions is None else actions:
        out.append(json.dumps(encode(game, a)))
    return out
