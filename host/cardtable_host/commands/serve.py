"""`cardtable serve`: one owner of the board; the live table in the browser; the archive."""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import queue
import secrets
import time
from typing import Any, Callable

from cardtable import games

from cardtable_host import boardfind, servefile
from cardtable_host.archive import REVEALS, Archive, default_dir, iso
from cardtable_host.commands import options
from cardtable_host.errors import USAGE, CardtableError, end_on_sigterm
from cardtable_host.hub import Hub
from cardtable_host.term import paint, use_colour

DESCRIPTION = """\
Owns the board's port (every other cardtable command is refused, naming this one, while it
runs; `cardtable monitor` becomes its client) and serves, on a local web server:
  /          the table: the board's layout drawing with the cards in their zones, whose
             turn, the trick, bids and trump, verdicts with their reason, faults, scores
  /overlay   for streaming software: the trick and the scores on a transparent page
  /archive   every finished game: replay it trick by trick, download its record, read the
             referee's verdict
Spectators only read: what they see is the board's spectator view, never a hand. The
scorekeeper's controls (POST /control: undo, a typed bid or pass, a new game; with --sim,
unplug and replug the virtual board's USB cable) need the
secret printed at start (or $CARDTABLE_SERVE_SECRET / --secret-file). It binds to
127.0.0.1 unless --http names another address (0.0.0.0: phones on the same network).
It follows the board across an unplug and a replug.

With --sim GAME it serves a virtual board with bots in every seat (see cardtable sim);
--board rp2 puts the firmware image on the emulated RP2040 instead.
Prints `table page: http://HOST:PORT/` on a line of its own once it listens.

examples:
  cardtable serve                                   # the plugged-in board
  cardtable serve --sim fortyfives --seed 7         # the demo table
  cardtable serve --sim nexus --board rp2           # ... served from the emulated RP2040
  cardtable serve --http 0.0.0.0:8719 --table "Club night" --players Ann,Bob,Cy,Di
  cardtable serve --tournament club --tournament-table 2 --broker 192.168.1.10
                                                    # a Forty-Fives tournament's table 2: its
                                                    # status and each game both teams confirmed
"""
DEFAULT_HTTP = "127.0.0.1:8719"
ENV_SECRET = "CARDTABLE_SERVE_SECRET"
SIM_DELAY = 0.4  # seconds between bot actions on the demo table: watchable


@dataclasses.dataclass
class ServeOptions:
    """What serve is asked to do: its command line (add_arguments), typed."""

    sim: str | None = None
    seed: int | None = None
    board: str | None = None
    games: int = 1
    delay: float | None = None
    rule: list[str] = dataclasses.field(default_factory=list)
    no_mistakes: bool = False
    deal_pad: bool = False
    wait_viewers: int = 0
    http: str = DEFAULT_HTTP
    table: str = ""
    players: str = ""
    reveal: str = "hand"
    overlay_delay: float = 0.0
    archive: str | None = None
    secret_file: str | None = None
    quiet: bool = False
    port: str | None = None
    tournament: str | None = None
    tournament_table: int | None = None
    broker: str = "127.0.0.1:1883"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sim", metavar="GAME",
                   help="serve a virtual board playing GAME with bots (%s)" % ", ".join(sorted(games.GAMES)))
    p.add_argument("--seed", type=int, help="(--sim) shuffle and bot seed")
    p.add_argument("--board", metavar="NAME",
                   help="(--sim) the simulated board, as for cardtable sim: a board config, or 'rp2' for "
                        "the emulated RP2040 running the firmware image ('rp2:NAME' with board config NAME)")
    p.add_argument("--games", type=int, default=ServeOptions.games, metavar="N",
                   help="(--sim) games to play one after another, 0 for ever (default 1); serving goes on")
    p.add_argument("--delay", type=float, default=None,
                   help="(--sim) seconds between bot actions (default %g)" % SIM_DELAY)
    p.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                   help="(--sim) a rule option, as for cardtable sim; repeatable")
    p.add_argument("--deal-pad", action="store_true",
                   help="(--sim) the bots deal every card across the board's deal pad: the table knows "
                        "the hands (see --reveal)")
    p.add_argument("--no-mistakes", action="store_true",
                   help="(--sim) bots never lay a wrong card (by default one now and then)")
    p.add_argument("--wait-viewers", type=int, default=ServeOptions.wait_viewers, metavar="N",
                   help="(--sim) start the first game once N spectators have the page open")
    p.add_argument("--http", default=DEFAULT_HTTP, metavar="HOST:PORT",
                   help="where the web server listens (default %s; port 0 picks a free one)" % DEFAULT_HTTP)
    p.add_argument("--table", default="", help="the table's name, kept in each archived game")
    p.add_argument("--players", default="", metavar="A,B,...", help="players' names by seat, for the "
                   "page and the archive")
    p.add_argument("--reveal", choices=REVEALS, default=ServeOptions.reveal,
                   help="when the hands the deal pad read reach spectators (the archive): once the hand "
                        "is over (hand, the default), once the game is over (game), or never")
    p.add_argument("--overlay-delay", type=float, default=ServeOptions.overlay_delay, metavar="SECONDS",
                   help="show the overlay (/overlay, for a stream) this many seconds behind the table; "
                        "the table page stays live")
    p.add_argument("--archive", metavar="DIR", help="where finished games are kept (default %s)" % default_dir())
    p.add_argument("--secret-file", metavar="F", help="the scorekeeper's password, from a file")
    p.add_argument("--quiet", "-q", action="store_true", help="print only the addresses, not the game")
    t = p.add_argument_group("a tournament table (a board on a port; see cardtable tournament)")
    t.add_argument("--tournament", metavar="DIR", help="the tournament directory (its schedule and "
                   "broker/credentials.json): report this table's status and finished games over MQTT")
    t.add_argument("--tournament-table", type=int, metavar="N", help="this table's number in the tournament")
    t.add_argument("--broker", default=ServeOptions.broker, metavar="HOST[:PORT]",
                   help="the tournament's broker (default 127.0.0.1:1883)")
    boardfind.add_port_argument(p)


def parse_http(text: str) -> tuple[str, int]:
    """HOST:PORT as (host, port); ValueError if it is not one."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) < 65536:
        raise ValueError("--http %s: expected HOST:PORT, e.g. 127.0.0.1:8719" % text)
    return host, int(port)


class Printer:
    """The story on the terminal, one line per event."""

    def __init__(self) -> None:
        self.colour = use_colour()

    def __call__(self, _n: int, _t: float, text: str) -> None:
        try:
            msg = json.loads(text)
        except ValueError:
            return
        for line, colour in msg.get("lines") or ():
            print(paint(line, colour, self.colour) if colour else line, flush=True)


class Table:
    """What serve owns: the link, the hub, the archive, and the scorekeeper's commands."""

    def __init__(self, hub: Hub, archive: Archive, players: list[str], table: str) -> None:
        self.hub = hub
        self.archive = archive
        self.players = players
        self.table = table
        self.link: Any = None
        self.archived_game: Any = None  # the journal number of the last game archived
        self.cable: Callable[[bool], None] | None = None  # a virtual board's USB cable: plug(True/False)
        self.report: Any = None  # a tournament table's reporter (tablereport.TableReport)
        self.requests: queue.Queue[tuple[dict[str, Any], queue.Queue[dict[str, Any]]]] = queue.Queue()

    def control(self, cmd: dict[str, Any]) -> dict[str, Any]:
        """Run a scorekeeper's command on the main loop (any thread); its answer."""
        if cmd.get("cmd") in ("unplug", "replug"):  # at once: the main loop may be waiting for the board
            if self.cable is None:
                return {"ok": False, "error": "only a virtual board's cable can be pulled from here "
                        "(cardtable serve --sim)", "status": 409}
            self.cable(cmd["cmd"] == "replug")
            return {"ok": True}
        answer: queue.Queue[dict[str, Any]] = queue.Queue()
        self.requests.put((cmd, answer))
        try:
            return answer.get(timeout=20)
        except queue.Empty:
            return {"ok": False, "error": "the table did not answer in time", "status": 504}

    def run_requests(self, new_game: Callable[[], dict[str, Any]]) -> None:
        """Carry out the scorekeeper's commands that wait (main thread)."""
        from cardtable_host.link import CommandError, LinkError

        while True:
            try:
                cmd, answer = self.requests.get_nowait()
            except queue.Empty:
                return
            try:
                name = cmd.get("cmd")
                if name == "new":
                    reply = new_game()
                elif name == "act":
                    if not isinstance(cmd.get("action"), dict):
                        raise ValueError("act needs an action object")
                    reply = self.link.act(cmd["action"])
                elif name == "press":
                    reply = self.link.press(str(cmd.get("button")))
                elif name == "undo":
                    reply = self.link.undo()
                else:
                    reply = self.link.state()
                    self.hub.feed({"type": "state", "seq": reply.get("seq"), "view": reply.get("view")})
                out = {"ok": True}
                out.update({k: v for k, v in reply.items() if k in ("seq", "game", "number", "action")})
                answer.put(out)
            except CommandError as e:
                answer.put({"ok": False, "error": e.msg, "status": 409})
            except (LinkError, ValueError) as e:
                answer.put({"ok": False, "error": str(e), "status": 503 if isinstance(e, LinkError) else 400})

    def resync(self) -> bool:
        """Ask the board who it is and what the table looks like; False if it did not answer."""
        from cardtable_host.commands.monitor import seat_names

        try:
            hello = self.link.hello()
            state = self.link.state()
            cfg = self.link.config()
        except Exception:  # noqa: BLE001 - LinkError and friends: the caller tries again
            return False
        self.hub.board = cfg.get("board") or self.hub.board
        self.hub.layout = cfg.get("layout") or self.hub.layout
        self.hub.resynced(None if hello is None else dict(hello), state,
                          seat_names(cfg.get("board"), cfg.get("layout")))
        return True

    def archive_if_over(self) -> None:
        """A game that is over goes to the archive once (its journal, with the occasion)."""
        view = self.hub.view()
        if not view or not view.get("over"):
            return
        try:
            current = [g["number"] for g in self.link.games() if g.get("current")]
        except Exception:  # noqa: BLE001 - try again on the next change
            return
        key = current[0] if current else None
        if key is not None and key == self.archived_game:
            return
        try:
            journal = self.link.log()
        except Exception:  # noqa: BLE001
            return
        if self.report is not None:
            self.report.finished(key, journal)
        start = self.hub.started or time.time()
        occasion = {"table": self.table, "players": self.hub.seat_names() or None, "start": iso(start),
                    "end": iso(time.time())}
        try:
            number = self.archive.save(journal, occasion)
        except (ValueError, OSError) as e:
            self.hub.note("the finished game could not be archived: %s" % e, "red")
            self.archived_game = key
            return
        self.archived_game = key
        self.hub.games_archived.append(number)
        self.hub.note("game archived as number %d" % number, "green")


def run(args: argparse.Namespace) -> int:
    return serve(options(ServeOptions, args))


def serve(args: ServeOptions) -> int:
    """Serve the board on args.port (found when None), or a virtual board with --sim; the exit status."""
    try:
        host, http_port = parse_http(args.http)
        if args.delay is not None and args.delay < 0:
            raise ValueError("--delay %g: the seconds between bot actions cannot be negative" % args.delay)
        if not 0 <= args.overlay_delay <= 3600:
            raise ValueError("--overlay-delay %g: seconds from 0 to 3600" % args.overlay_delay)
        if args.reveal not in REVEALS:
            raise ValueError("--reveal %s: one of %s" % (args.reveal, ", ".join(REVEALS)))
        if args.games < 0:
            raise ValueError("--games %d: a number of games, 0 for ever" % args.games)
        if args.sim is not None and args.sim not in games.GAMES:
            raise ValueError("unknown game %r (games: %s)" % (args.sim, ", ".join(sorted(games.GAMES))))
        if args.board is not None and args.sim is None:
            raise ValueError("--board %s: only a simulated table (--sim GAME) has a board to choose" % args.board)
        secret = _secret(args.secret_file)
        archive = Archive(args.archive or default_dir(), reveal=args.reveal)
    except (ValueError, OSError) as e:
        raise CardtableError(str(e), USAGE) from None
    _can_listen(host, http_port)  # before a board is opened: a taken address says so at once
    players = [p.strip() for p in args.players.split(",")] if args.players else []
    from cardtable_host import sim_serve, board_serve

    hub = Hub(table=args.table, players=players)
    table = Table(hub, archive, players, args.table)
    rep = _tournament(args, table) if args.tournament or args.tournament_table is not None else None
    start = sim_serve.run if args.sim else board_serve.run
    with contextlib.ExitStack() as stack:
        stack.callback(end_on_sigterm())
        if rep is not None:
            stack.callback(rep.stop)
        serving = Serving(table, stack, lambda port: _listen(args, table, host, http_port, secret, port))
        try:
            return start(args, serving)
        except KeyboardInterrupt:
            return 0
        except SystemExit as e:  # SIGTERM
            return int(e.code or 0)
    return 0  # (not reached: mypy cannot tell that the with block always returns)


class Serving:
    """What serve's two ways (a board on a port: board_serve, a simulated one: sim_serve) share:
    the table, the link that follows the board, the web server; `stack` closes them at the end."""

    def __init__(self, table: Table, stack: contextlib.ExitStack,
                 listen: Callable[[str], Callable[[], None]]) -> None:
        self.table = table
        self.stack = stack
        self._listen = listen

    def attach(self, port: str, timeout: float, shown: str | None = None) -> Any:
        """The link to the board on port, kept alive (it reconnects) and feeding the hub; the
        table asked who it is. shown: the port to name (default port)."""
        from cardtable_host.link import Link, LinkDown

        try:
            link = Link(port, timeout=timeout, reconnect=True, command="cardtable serve", tap=self.table.hub.feed)
        except LinkDown as e:
            raise CardtableError(str(e), USAGE) from None
        self.stack.callback(link.close)
        self.table.link = link
        self.table.hub.model.port = shown or port
        self.table.resync()
        return link

    def listen(self, board_port: str) -> None:
        """Start the web server (stopped at the end) and say where."""
        self.stack.callback(self._listen(board_port))


def _tournament(args: ServeOptions, table: Table) -> Any:
    """Connect a board's table to its tournament's broker (the Reporter), or CardtableError."""
    from cardtable_host import broker as brokers
    from cardtable_host.commands.tournament import hostport
    from cardtable_host.reporter import Reporter
    from cardtable_host.tablereport import TableReport
    from cardtable_host.tourney import Tournament

    if args.sim:
        raise CardtableError("--tournament: a board on a port reports to a tournament; virtual tables "
                             "play with `cardtable tournament report --virtual-board`", USAGE)
    if not args.tournament or args.tournament_table is None:
        raise CardtableError("--tournament DIR and --tournament-table N go together", USAGE)
    tour = Tournament(args.tournament)
    bhost, bport = hostport(args.broker)
    creds = brokers.credentials(tour.dir / "broker")
    user = brokers.table_user(args.tournament_table)
    if user not in creds:
        raise CardtableError("no table %d in this tournament (tables 1 to %d)" % (
            args.tournament_table, tour.state["tables"]), USAGE)
    try:
        rep = Reporter(tour, args.tournament_table, bhost, bport, creds[user]).start()
    except ConnectionError as e:
        raise CardtableError(str(e)) from None
    table.report = TableReport(rep, table.hub.note)
    print("tournament %s: table %d reports to %s:%d" % (tour.id, args.tournament_table, bhost, bport), flush=True)
    return rep


def _can_listen(host: str, port: int) -> None:
    """CardtableError now if the web server could not listen on host:port."""
    import socket

    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        with socket.socket(infos[0][0], socket.SOCK_STREAM) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(infos[0][4])
    except OSError as e:
        raise CardtableError("cannot listen on %s:%d: %s" % (host, port, e.strerror or e), USAGE) from None


def _secret(path: str | None) -> str:
    if path:
        with open(path, encoding="utf-8") as f:
            text = f.read().strip()
        if not text:
            raise ValueError("--secret-file %s is empty" % path)
        return text
    return os.environ.get(ENV_SECRET) or secrets.token_urlsafe(12)


def _listen(args: ServeOptions, table: Table, host: str, http_port: int, secret: str,
            board_port: str) -> Callable[[], None]:
    """Start the web server and say where; returns what stops it (and withdraws the serve file)."""
    from cardtable_host import drawings
    from cardtable_host.web import Server, make_app

    cache: dict[tuple[str, str], Any] = {}

    def drawing() -> tuple[str, dict[str, Any]] | None:
        b, lay = table.hub.board, table.hub.layout
        if not b or not lay:
            return None
        if (b, lay) not in cache:
            found = None
            for d in drawings.load_boards(drawings.BOARDS_DIR):
                if d.name == b and lay in d.board.layouts:
                    found = (drawings.layout_svg(d, lay), drawings.zone_boxes(d, lay))
            cache[(b, lay)] = found
        return cache[(b, lay)]

    drawing()  # drawn once, before the first page asks
    app = make_app(table.hub, table.archive, secret, table.control, drawing, overlay_delay=args.overlay_delay)
    server = Server(app, host, http_port)
    try:
        url = server.start()
    except OSError as e:
        raise CardtableError("cannot listen on %s:%d: %s" % (host, http_port, e.strerror or e), USAGE) from None
    if not args.quiet:
        table.hub.subscribe(Printer())
    path = servefile.path(board_port)
    info = {"url": url, "secret": secret, "pid": os.getpid(), "port": board_port, "command": "cardtable serve"}
    fd = os.open(str(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(info, f)
    print("table page: %s" % url, flush=True)
    print("overlay: %soverlay   archive: %sarchive   board: %s" % (url, url, board_port), flush=True)
    print("scorekeeper secret: %s" % (secret if not (args.secret_file or os.environ.get(ENV_SECRET))
                                      else "(the configured one)"), flush=True)

    def stop() -> None:
        try:
            if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
                path.unlink()
        except (OSError, ValueError):
            pass
        server.stop()

    return stop
