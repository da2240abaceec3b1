"""JSON from the network, read without trusting it: a size limit, a nesting limit, one object."""
from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 16  # a result is an object of lists of text: three levels; a status, two


class Refused(ValueError):
    """Why a message is not one to read (its text says so to a person)."""


def load_object(raw: bytes, max_bytes: int, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """The JSON object in raw; Refused if it is too large, not UTF-8 JSON, too deeply nested
    or not an object."""
    if len(raw) > max_bytes:
        raise Refused("too large: %d bytes (at most %d)" % (len(raw), max_bytes))
    try:
        got = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise Refused("not UTF-8 text: %s" % e.reason)
    except RecursionError:
        raise Refused("not JSON this program reads: nested too deeply")
    except ValueError as e:
        raise Refused("not JSON: %s" % e)
    if not isinstance(got, dict):
        raise Refused("not a JSON object")
    if depth(got, max_depth) > max_depth:
        raise Refused("nested more than %d deep" % max_depth)
    return got


def depth(value: Any, stop: int) -> int:
    """How deeply value nests lists and objects (counted no further than stop + 1)."""
    deepest = 0
    todo: list[tuple[Any, int]] = [(value, 1)]
    while todo:
        v, d = todo.pop()
        if isinstance(v, (dict, list)):
            deepest = max(deepest, d)
            if deepest > stop:
                return deepest
            todo.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return deepest
