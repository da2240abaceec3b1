"""Terminal output helpers: colour only where a person watches."""
from __future__ import annotations

import os
import re
import sys

_RESET = "\x1b[0m"
_CODES = {"red": "31", "green": "32", "yellow": "33", "blue": "34", "magenta": "35",
          "cyan": "36", "bold": "1", "dim": "2"}


def use_colour(stream=None) -> bool:
    """Colour or not: a non-empty NO_COLOR turns it off (no-color.org: set but empty does not),
    a non-empty FORCE_COLOR (which `--color` sets) turns it on, else only on a terminal."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    stream = stream or sys.stdout
    return hasattr(stream, "isatty") and stream.isatty()


def force_colour() -> None:
    """`--color`: colour from now on, in this process and the commands it starts, even into a pipe."""
    os.environ.pop("NO_COLOR", None)
    os.environ["FORCE_COLOR"] = "1"


def paint(text: str, colour: str, on: bool | None = None) -> str:
    """text in colour when on (default: stdout is a terminal)."""
    if on is None:
        on = use_colour()
    if not on:
        return text
    code = "\x1b[%sm" % _CODES[colour]
    # a painted card inside the text resets the colour: take this one up again after it
    return code + text.replace(_RESET, _RESET + code) + _RESET


_GLYPHS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def card_glyph(code: str) -> str:
    """A standard card code with its suit glyph, red for hearts and diamonds: '10H' -> '10♥'.

    Black suits take the terminal's own foreground colour (true black vanishes on a dark screen).
    Codes that are not standard cards (jokers, other decks) come back unchanged.
    """
    base, sep, owner = code.partition("#")
    suit = base[-1:]
    if suit not in _GLYPHS or base[:-1] not in _RANKS:
        return code
    text = base[:-1] + _GLYPHS[suit] + sep + owner
    return ("\x1b[31m" if suit in "DH" else "\x1b[39m") + text + _RESET


_CODE = re.compile(r"(?<![\w#])(?:10|[2-9AJQK])[CDHS](?:#\d+)?(?!\w)")


def glyphs(text: str) -> str:
    """Every standard card code in text with its suit glyph: 'led 10H' -> 'led 10♥' (coloured)."""
    return _CODE.sub(lambda m: card_glyph(m.group(0)), text)


def style_cards(game, on: bool | None = None) -> None:
    """Show a standard deck's cards with suit glyphs where colour is on (plain codes otherwise)."""
    if on is None:
        on = use_colour()
    game.card_style = card_glyph if on and game.DECK == "standard" else None
