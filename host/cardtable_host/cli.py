"""The `cardtable` command: one table of subcommands."""
# Ctrl-C while Python imports the commands (the first tenth of a second) ends quietly with
# status 130 instead of a traceback: this handler is set before any other import, and main()
# gives Ctrl-C back to the commands once the parser is built.
import os
import signal
import sys

if __name__ == "__main__" or os.path.basename(sys.argv[0]).startswith("cardtable"):
    signal.signal(signal.SIGINT, lambda _sig, _frame: os._exit(130))

import argparse  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402

from cardtable_host.board import portlock  # noqa: E402
from cardtable_host.errors import INTERRUPTED, CardtableError  # noqa: E402

# name -> its one-line help. Each is the module cardtable_host.commands.NAME, with DESCRIPTION,
# add_arguments(parser) and run(args) -> exit status; only the command being run is imported,
# so `cardtable --help` and every command start fast and do not need another's imports.
COMMANDS = {
    "run": "the main job: serve the table live (a board is plugged in) or the simulated table",
    "serve": "serve the table: one owner of the board, its live page, an overlay and the archive",
    "sim": "play a game on a simulated table: real firmware on a virtual board, bots at the seats",
    "monitor": "watch the table live: trick, turn, verdicts, scores, faults; type bids and trumps",
    "referee": "judge a game record: every action legal? who won each trick? the scores",
    "pull": "download the board's game journals as game records (for cardtable referee)",
    "flash": "put the firmware on the board: the cardtable image (or .mpy files), board files, hello",
    "enroll": "tag a deck: write each card's code on its NFC sticker, read it back, check it",
    "doctor": "check the table's health: every reader, the journal, free flash and heap",
    "demo": "watch bots play a full seeded game of each game, with the referee's verdicts",
    "rules": "show a game's rules as the table referees them, and its rule options",
    "test": "run the rules tests (CPython; add --micropython for the device runtime too)",
    "draw": "regenerate hardware/ wiring tables and table drawings from the board files",
    "tournament": "run a Forty-Fives round-robin: schedule, tables over MQTT, live standings",
    "completion": "print a shell completion script (bash or zsh) for cardtable's commands and options",
    "config": "show the settings from cardtable.toml (port, board, table, players, ...) and their files",
}

EXIT_STATUS = """\
exit status: 0 done, 1 the command failed or found a problem, 2 bad arguments or input, no
board, or the board's port is held by another program, 130 interrupted (Ctrl-C), 143 stopped
by SIGTERM (a command that serves or simulates)."""


def version() -> str:
    """The installed cardtable's version."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("cardtable")
    except PackageNotFoundError:  # pragma: no cover - run from a bare checkout
        return "unknown"


def command_module(name: str) -> str:
    """The module of a command."""
    return "cardtable_host.commands." + name


def chosen_command(argv: list[str]) -> str | None:
    """The subcommand argv names (its first word that is one), or None."""
    for word in argv:
        if word in COMMANDS:
            return word
        if not word.startswith("-"):
            return None
    return None


def build_parser(only: str | None = None, *, full: bool = True) -> argparse.ArgumentParser:
    """The argument parser: every subcommand in full, or (full=False) only `only` in full
    and the others by name and help line."""
    parser = argparse.ArgumentParser(
        prog="cardtable",
        description="An instrumented card table: referee records, run the simulated table, "
                    "flash and watch the board.",
        epilog="Run 'cardtable COMMAND --help' for a command's own help and examples.\n" + EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version="cardtable %s" % version())
    _common(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_line in COMMANDS.items():
        if not full and name != only:
            sub.add_parser(name, help=help_line)
            continue
        mod = importlib.import_module(command_module(name))
        p = sub.add_parser(name, help=help_line, description=mod.DESCRIPTION,
                           formatter_class=argparse.RawDescriptionHelpFormatter,
                           epilog=EXIT_STATUS if "xit status" not in mod.DESCRIPTION else None)
        mod.add_arguments(p)
        _common(p, argparse.SUPPRESS)
        p.set_defaults(run=mod.run)
    return parser


def _common(p: argparse.ArgumentParser, default: object = None) -> None:
    """The options every command takes, before or after its name."""
    p.add_argument("--config", metavar="FILE", default=default,
                   help="read settings from FILE too (after ./cardtable.toml and the user's own)")
    p.add_argument("--color", action="store_true", default=default,
                   help="colour even when the output is no terminal (over NO_COLOR and FORCE_COLOR)")


def fail(args: argparse.Namespace, e: CardtableError) -> int:
    """Report a CardtableError: one line on stderr (and a JSON object under --json); the only
    place a command's error is printed."""
    report = e.json_report()
    if getattr(args, "json", False) and report is not None:
        print(json.dumps(report))
    print("cardtable %s: %s" % (args.command, e), file=sys.stderr)
    return e.status


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `cardtable` command."""
    words = sys.argv[1:] if argv is None else argv
    parser = build_parser(chosen_command(words), full=False)
    from cardtable_host.config import settings

    try:
        settings.apply(parser, settings.load(settings.config_option(words)))
    except CardtableError as e:  # a settings file that cannot be read, said as the command's error
        return fail(argparse.Namespace(command=chosen_command(words) or "--config"), e)
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:  # not the main thread: Ctrl-C is not ours to handle
        pass
    try:
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        return INTERRUPTED
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    if getattr(args, "color", False):
        from cardtable_host.term import force_colour

        force_colour()
    portlock.set_command("cardtable " + args.command)
    try:
        return int(args.run(args) or 0)
    except CardtableError as e:
        return fail(args, e)
    except KeyboardInterrupt:
        return INTERRUPTED
    except BrokenPipeError:                 # e.g. `cardtable demo | head`
        sys.stdout = open(os.devnull, "w")
        return 0
    finally:
        if argv is None:  # the `cardtable` program itself, not a caller in this process
            _quiet_from_now()


def _quiet_from_now() -> None:
    """The command is done: a Ctrl-C while Python shuts down (waiting for a thread) ends it at
    once with 130, what was printed kept, rather than a traceback from Python's own exit."""
    def now(signum: int, frame: object) -> None:
        for f in (sys.stdout, sys.stderr):
            try:
                f.flush()
            except (OSError, ValueError):
                pass
        os._exit(INTERRUPTED)

    try:
        signal.signal(signal.SIGINT, now)
    except ValueError:  # not the main thread
        pass


if __name__ == "__main__":
    sys.exit(main())
