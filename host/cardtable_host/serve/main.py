"""`cardtable serve` as a library: check the options, open the archive, serve a board on a port
(board_serve) or a simulated one (sim_serve), the web server and the serve file, and a
tournament table's reporter."""
from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
from typing import Any, Callable

from cardtable import games

from cardtable_host.config import logs
from cardtable_host.errors import USAGE, CardtableError, end_on_sigterm
from cardtable_host.serve import servefile
from cardtable_host.serve.archive import REVEALS, Archive, default_dir
from cardtable_host.serve.hub import Hub
from cardtable_host.serve.serving import ServeOptions, Serving, Table
from cardtable_host.term import paint, use_colour

ENV_SECRET = "CARDTABLE_SERVE_SECRET"


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


def serve(args: ServeOptions) -> int:
    """Serve the board on args.port (found when None), or a virtual board with --sim; the exit status."""
    try:
        host, http_port = parse_http(args.http)
        _check_options(args)
        secret = _secret(args.secret_file)
        archive = Archive(args.archive or default_dir(), reveal=args.reveal)
    except (ValueError, OSError) as e:
        raise CardtableError(str(e), USAGE) from None
    _can_listen(host, http_port)  # before a board is opened: a taken address says so at once
    players = [p.strip() for p in args.players.split(",")] if args.players else []
    from cardtable_host.serve import sim_serve, board_serve

    hub = Hub(table=args.table, players=players)
    logs.hide(secret)
    log_handler = logs.open_log(args.log)
    if log_handler is not None:
        hub.subscribe(logs.hub_logger())
        logging.getLogger("cardtable.serve").info("serve started: %s", "a simulated %s" % args.sim if args.sim
                                                  else "the board on %s" % (args.port or "the port found"))
    table = Table(hub, archive, players, args.table)
    rep = _tournament(args, table) if args.tournament or args.tournament_table is not None else None
    start = sim_serve.run if args.sim else board_serve.run
    with contextlib.ExitStack() as stack:
        stack.callback(logs.close_log, log_handler)
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


def _check_options(args: ServeOptions) -> None:
    """Refuse options that make no sense together (ValueError, said as a usage error)."""
    if args.delay is not None and args.delay < 0:
        raise ValueError("--bot-delay %g: the seconds between bot actions cannot be negative" % args.delay)
    if not 0 <= args.overlay_delay <= 3600:
        raise ValueError("--delay %g: seconds from 0 to 3600" % args.overlay_delay)
    if args.reveal not in REVEALS:
        raise ValueError("--reveal %s: one of %s" % (args.reveal, ", ".join(REVEALS)))
    if args.games < 0:
        raise ValueError("--games %d: a number of games, 0 for ever" % args.games)
    if args.sim is not None and args.sim not in games.GAMES:
        raise ValueError("unknown game %r (games: %s)" % (args.sim, ", ".join(sorted(games.GAMES))))
    if args.board is not None and args.sim is None:
        raise ValueError("--board %s: only a simulated table (--sim GAME) has a board to choose" % args.board)
    if args.deal_pad and args.sim is None:
        raise ValueError("--deal-pad: only a simulated table (--sim GAME) has bots to deal")
    from cardtable_host.serve.seats import parse_seats

    parse_seats(args.teach)
    if args.speak_to and not args.speak:
        raise ValueError("--speak-to DIR goes with --speak")
    if args.speak_hands and not args.speak:
        raise ValueError("--speak-hands goes with --speak")
    if args.speak:
        from cardtable_host.serve.speech import check_language

        check_language(args.speak_lang)


def _tournament(args: ServeOptions, table: Table) -> Any:
    """Connect a board's table to its tournament's broker (the Reporter), or CardtableError."""
    from cardtable_host.tournament import broker as brokers
    from cardtable_host.tournament.broker import hostport
    from cardtable_host.tournament.reporter import Reporter
    from cardtable_host.tournament.tablereport import TableReport
    from cardtable_host.tournament.tourney import Tournament

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


def page_addresses(host: str, port: int) -> tuple[str, list[str]]:
    """(the address this machine's own programs use, the addresses to show people) of a server
    listening on host:port: for all addresses, the machine's LAN ones (a phone can open them)."""
    from cardtable_host.serve import netguard

    if host in netguard.WILDCARD:
        here = "127.0.0.1" if host != "::" else "::1"
        shown = netguard.lan_addresses() or [here]
    else:
        here, shown = host, [host]
    form = "http://%s:%d/"
    return form % (netguard.url_host(here), port), [form % (netguard.url_host(a), port) for a in shown]


def _drawer(table: Table) -> Callable[[], tuple[str, dict[str, Any]] | None]:
    """The table's layout drawing (SVG and zone boxes) for its board, drawn once per layout."""
    from cardtable_host.draw import drawings

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

    return drawing


def _seat_room(args: ServeOptions, table: Table) -> Any:
    """The players' own pages (a seats.SeatRoom), each seat's view asked of the table's board."""
    from cardtable_host.serve.seats import SeatRoom, parse_seats

    def ask(seat: int, teach: bool) -> dict[str, Any]:
        if table.link is None:
            raise ConnectionError("no board yet")
        return dict(table.link.state(seat, teach=True) if teach else table.link.state(seat))

    room = SeatRoom(table.hub, ask)
    room.teach = parse_seats(args.teach)
    if table.report is not None:  # a tournament table: a seat's call reaches the director too
        room.on_director = table.report.director_call
    return room


def _say_where(args: ServeOptions, host: str, port: int, board_port: str, secret: str) -> Any:
    """Write the serve file and print the page's addresses; the serve file's path."""
    from cardtable_host.board import portlock
    from cardtable_host.serve import netguard

    path = servefile.path(board_port)
    here, shown = page_addresses(host, port)
    url = shown[0]
    info = {"url": here, "secret": secret, "pid": os.getpid(), "port": board_port, "command": "cardtable serve"}
    portlock.write_private(path, json.dumps(info))  # this user's only, never through a symlink
    print("table page: %s" % url, flush=True)
    for other in shown[1:]:
        print("       also: %s" % other, flush=True)
    if not netguard.is_loopback(host):
        print("warning: the page and the scorekeeper's secret travel as plain HTTP: anyone on this "
              "network can read them (use it on a network you trust)", flush=True)
    print("overlay: %soverlay   archive: %sarchive   board: %s" % (url, url, board_port), flush=True)
    print("scorekeeper secret: %s" % (secret if not (args.secret_file or os.environ.get(ENV_SECRET))
                                      else "(the configured one)"), flush=True)
    return path


def _listen(args: ServeOptions, table: Table, host: str, http_port: int, secret: str,
            board_port: str) -> Callable[[], None]:
    """Start the web server and say where; returns what stops it (and withdraws the serve file)."""
    from cardtable_host.serve import netguard
    from cardtable_host.serve.web import Server, make_app

    drawing = _drawer(table)
    drawing()  # drawn once, before the first page asks
    room = _seat_room(args, table)
    names = netguard.host_names(host, args.allow_origin)
    app = make_app(table.hub, table.archive, secret, table.control, drawing, names,
                   netguard.origins(args.allow_origin), overlay_delay=args.overlay_delay, seats=room)
    server = Server(app, host, http_port)
    try:
        server.start()
    except OSError as e:
        raise CardtableError("cannot listen on %s:%d: %s" % (host, http_port, e.strerror or e), USAGE) from None
    if not args.quiet:
        table.hub.subscribe(Printer())
    announcer = None
    if args.speak:
        from cardtable_host.serve.speech import Announcer

        def seat_view(seat: int | None) -> Any:
            if seat is None or room.ask is None:
                return table.hub.view()
            return room.ask(seat, False).get("view")

        announcer = Announcer(room.names, args.speak_lang, args.speak_to, game=table.hub.model.game,
                              view=seat_view, hands=args.speak_hands)
        table.hub.subscribe(announcer.heard)
    path = _say_where(args, host, server.port, board_port, secret)

    def stop() -> None:
        try:
            if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
                path.unlink()
        except (OSError, ValueError):
            pass
        server.stop()
        if announcer is not None:
            announcer.stop()

    return stop
