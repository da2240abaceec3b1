"""`cardtable rules GAME`: a game's rules as the table referees them, for the players."""
from __future__ import annotations

import argparse
import io
import json
import re
import shutil
import sys
import textwrap

from cardtable import games

from cardtable_host.errors import UsageError
from cardtable_host.gameids import resolve

DESCRIPTION = """\
Prints how the table referees the game, the rule options (the rule book's reading and the
common variant), and the rule book's worked examples the table is tested against. Game
names take common spellings (45s, forty-fives, cal-jacks). Without a game, lists the games.

example:  cardtable rules fortyfives
          cardtable rules 45s
          cardtable rules nexus --json     # options, record verbs and deal piles, for programs
"""

# Paragraphs about the record format or the code: for programmers (--json), not for players.
_FOR_PROGRAMMERS = ("Verbs", "Deal piles", "Card values are data", "Known and unknown",
                    "Seats:", "Fixed by the seed")
# Decision ids such as (F4, F5), (C1), (R4), (2a), (F45-3) refer to the project's notes.
_IDS = re.compile(r"\s*\((?:[A-Z]\d+(?:-\d+)?[a-z]?|\d[a-z]|F45-\d+)"
                  r"(?:,\s*(?:[A-Z]\d+(?:-\d+)?[a-z]?|\d[a-z]|F45-\d+))*\)")
_NOTES = re.compile(r"\s*\((?:seed [^()]*;\s*)?research/[^()]*\)|research/rules-decisions\.md"
                    r"(?: section [0-9a-z]+)?[^.;:)]*")
_BARE_ID = re.compile(r"\b(?:[A-Z]|F45-)\d+ \(")
_WORDS = (("seed-literal", "as the rule book reads"), ("the seed's", "the rule book's"),
          ("The seed's", "The rule book's"), ("the seed", "the rule book"),
          ("The seed", "The rule book"), ("(seed)", "(rule book)"), ("seed:", "rule book:"),
          ("= seed", "= rule book"))


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", nargs="?", help="game name (e.g. fortyfives, 45s, cal-jacks)")
    p.add_argument("--json", action="store_true", help="options, verbs and piles as JSON")


def for_players(doc: str) -> str:
    """A rules module's summary as players read it: no notes ids, no record-format detail."""
    keep = []
    for para in doc.strip("\n").split("\n\n"):
        if para.lstrip().startswith(_FOR_PROGRAMMERS):
            continue
        lines = []
        for line in para.split("\n"):
            if line.startswith("|"):
                cells = line.split("|")[1:-1]
                line = "|" + "|".join(cells[:-1]) + "|" if len(cells) > 3 else line
            line = _IDS.sub("", _NOTES.sub("", line)).replace("``", "")
            line = _BARE_ID.sub("(", line).replace("| seed ", "| rule book ")
            for old, new in _WORDS:
                line = line.replace(old, new)
            lines.append(line.rstrip())
        keep.append("\n".join(_align(lines)))
    return "\n\n".join(keep)


def _align(lines: list[str]) -> list[str]:
    """Table rows ('| a | b |') re-padded to their column widths; other lines unchanged."""
    rows = [[c.strip() for c in ln.split("|")[1:-1]] for ln in lines if ln.startswith("|")]
    if not rows:
        return lines
    widths = [max(len(r[i]) for r in rows if i < len(r)) for i in range(len(rows[0]))]
    out = []
    for ln in lines:
        if not ln.startswith("|"):
            out.append(ln)
            continue
        cells = [c.strip() for c in ln.split("|")[1:-1]]
        if all(set(c) <= set("-") for c in cells):
            cells = ["-" * w for w in widths]
        out.append("| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |")
    return out


_LITERALS = re.compile(r"(?<![\w\"'])(True|False|None)(?![\w\"'])")
_JSON = {"True": "true", "False": "false", "None": "null"}


def as_record(cell: str) -> str:
    """An option value spelt as in a record (JSON): True -> true, None -> null."""
    return _LITERALS.sub(lambda m: _JSON[m.group(1)], cell)


def _table(lines: list[str], width: int) -> str:
    """A rules table ('| a | b |' rows, a row with an empty first cell continuing the one above)
    drawn by rich at width, its values spelt as in a record."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    rows: list[list[str]] = []
    for ln in lines:
        cells = [c.strip() for c in ln.split("|")[1:-1]]
        if all(set(c) <= set("-") for c in cells):
            continue
        if rows and not cells[0] and len(cells) == len(rows[-1]):
            rows[-1] = [(a + " " + b).strip() for a, b in zip(rows[-1], cells)]
        else:
            rows.append(cells)
    table = Table(box=box.ASCII, show_edge=False, header_style="", pad_edge=False)
    for i, name in enumerate(rows[0]):  # an option's name whole, on one line
        table.add_column(name, overflow="fold", no_wrap=i == 0, min_width=max(len(r[0]) for r in rows) if i == 0 else None)
    for r in rows[1:]:
        table.add_row(*(as_record(c) for c in r))
    out = io.StringIO()
    Console(file=out, width=width, no_color=True, highlight=False, emoji=False, markup=False).print(table)
    return "\n".join(ln.rstrip() for ln in out.getvalue().rstrip("\n").split("\n"))


def _prose(lines: list[str], width: int) -> str:
    """Lines of text re-wrapped to width: a '- ' item and the indented lines under it as one."""
    items: list[tuple[str, list[str]]] = []
    for ln in lines:
        if ln.startswith("- "):
            items.append(("- ", [ln[2:].strip()]))
        elif ln.startswith("  ") and items and items[-1][0] == "- ":
            items[-1][1].append(ln.strip())
        elif items and items[-1][0] == "" and not ln.endswith(":"):
            items[-1][1].append(ln.strip())
        else:
            items.append(("", [ln.strip()]))
    return "\n".join(textwrap.fill(" ".join(words), width, initial_indent=lead,
                                   subsequent_indent=" " * len(lead), break_on_hyphens=False)
                     for lead, words in items)


def at_width(text: str, width: int) -> str:
    """The rules as players read them, at the terminal's width."""
    out = []
    for para in text.split("\n\n"):
        lines = para.split("\n")
        table = [ln for ln in lines if ln.startswith("|")]
        rest = [ln for ln in lines if not ln.startswith("|")]
        parts = ([_prose(rest, width)] if rest else []) + ([_table(table, width)] if table else [])
        out.append("\n".join(parts))
    return "\n\n".join(out)


def run(args: argparse.Namespace) -> int:
    if not args.game:
        for name in games.GAMES:
            print(name)
        return 0
    try:
        cls = games.game_class(resolve(args.game))
    except (ValueError, ImportError) as e:
        raise UsageError(str(e)) from None
    if args.json:
        print(json.dumps({"game": cls.ID, "seats": list(cls.SEATS), "options": cls.OPTIONS,
                          "verbs": {k: list(v) for k, v in cls.VERBS.items()},
                          "piles": list(cls.PILES)}, indent=2))
    else:
        width = shutil.get_terminal_size((80, 24)).columns
        print(at_width(for_players(sys.modules[cls.__module__].__doc__ or ""), max(40, width)))
    return 0
