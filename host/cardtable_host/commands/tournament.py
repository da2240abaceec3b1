"""`cardtable tournament`: a round-robin evening of Forty-Fives teams over an MQTT broker."""
from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

from cardtable import record
from cardtable import referee as rules_referee

from cardtable_host.tournament import broker as brokers
from cardtable_host.tournament.broker import hostport
from cardtable_host.tournament import mqttwire
from cardtable_host.errors import INTERRUPTED, CardtableError, UsageError
from cardtable_host.progress import Progress
from cardtable_host.tournament.tourney import TIEBREAKS, Tournament, create, parse_teams

DESCRIPTION = """\
A round-robin tournament of teams (two players each) in a directory of JSON files: the
schedule (rounds, tables, byes, times), the results log with every correction (who, what,
when) and the archive of game records. Tables report over MQTT to a Mosquitto broker; the
director's service checks and counts each game once.

subcommands:
  new DIR        make a tournament: teams, tables, start time, tie-breaks; broker credentials
  schedule DIR   print the rounds, tables and byes
  standings DIR  the standings, first and second place called out
  result DIR GAME RECORD   enter a (late) result from a game's record file
  forfeit DIR GAME --winner TEAM     a forfeited game
  correct DIR GAME A B --by NAME --reason TEXT   the director's correction (audited)
  disputes DIR   games flagged for the director, with the record to open in the referee
  broker DIR     run a local Mosquitto with the tournament's password file and ACL
  direct DIR     run the director's service (counts results, publishes standings)
  report DIR --table N   a headless table: bots play its games and it publishes them
  demo           a whole evening on this machine: a broker, virtual tables, every round

Exit status: 0 done, 1 the evening failed (a broker or table problem), 2 bad arguments or
input (an unknown game or team, a directory that is not a tournament); 130 Ctrl-C.

example:  cardtable tournament new club --team "Aces=Ann+Bob" --team "Kings=Cy+Di" --tables 1
          cardtable tournament demo --teams 6 --tables 3 --seed 4 --json
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="sub", metavar="SUBCOMMAND", required=True)
    _book_commands(sub)
    _evening_commands(sub)


def _book_commands(sub: Any) -> None:
    """The book: new, schedule, standings, result, forfeit, correct, disputes."""
    n = sub.add_parser("new", help="make a tournament directory")
    n.add_argument("dir")
    n.add_argument("--team", action="append", metavar="NAME=PLAYER+PLAYER", help="a team (repeat)")
    n.add_argument("--csv", help="teams from a CSV file: team,player1,player2")
    _options(n)
    s = sub.add_parser("schedule", help="print the schedule")
    s.add_argument("dir")
    s.add_argument("--json", action="store_true", help="the rounds as JSON")
    st = sub.add_parser("standings", help="the standings")
    st.add_argument("dir")
    st.add_argument("--json", action="store_true", help="the standings as JSON")
    r = sub.add_parser("result", help="enter a result from a record file")
    r.add_argument("dir")
    r.add_argument("game")
    r.add_argument("record")
    r.add_argument("--by", default="director", help="who enters it (default: director)")
    f = sub.add_parser("forfeit", help="a forfeited game")
    f.add_argument("dir")
    f.add_argument("game")
    f.add_argument("--winner", required=True, help="the team that wins by forfeit")
    f.add_argument("--by", default="director")
    f.add_argument("--reason", default="")
    c = sub.add_parser("correct", help="the director's correction of a game's score")
    c.add_argument("dir")
    c.add_argument("game")
    c.add_argument("scores", type=int, nargs=2, metavar="SCORE")
    c.add_argument("--by", required=True, help="the director's name (kept in the audit trail)")
    c.add_argument("--reason", required=True)
    d = sub.add_parser("disputes", help="games flagged for the director")
    d.add_argument("dir")
    d.add_argument("--json", action="store_true")


def _evening_commands(sub: Any) -> None:
    """The evening's services: the broker, the director, a headless table, a whole demo evening."""
    b = sub.add_parser("broker", help="run a local Mosquitto for the tournament")
    b.add_argument("dir")
    b.add_argument("--port", type=int, default=1883)
    b.add_argument("--listen", default="127.0.0.1", metavar="ADDR",
                   help="the address to listen on (default 127.0.0.1; 0.0.0.0 for tables on the club's network)")
    for name, helptext in (("direct", "run the director's service"), ("report", "run a headless table")):
        x = sub.add_parser(name, help=helptext)
        x.add_argument("dir")
        x.add_argument("--broker", default="127.0.0.1:1883", metavar="HOST[:PORT]")
        x.add_argument("--log", metavar="FILE", help="log results, corrections, refusals and connections "
                       "to FILE (rotated at 5 MB; never a password or an unseen card)")
        if name == "direct":
            x.add_argument("--web", type=int, metavar="PORT", help="also serve the director's page on PORT")
        if name == "report":
            x.add_argument("--table", type=int, required=True)
            x.add_argument("--seed", type=int, default=1)
            x.add_argument("--pace", type=float, default=0.05, help="seconds per action (default 0.05)")
            x.add_argument("--ask", action="store_true", help="ask both teams to confirm each game here")
            x.add_argument("--virtual-board", action="store_true",
                           help="play each game on a virtual board (the firmware on MicroPython; ~50 s a game)")
    dm = sub.add_parser("demo", help="a whole evening on this machine")
    dm.add_argument("--teams", type=int, default=6)
    dm.add_argument("--tables", type=int, default=3)
    dm.add_argument("--seed", type=int, default=1)
    dm.add_argument("--dir", help="the tournament directory (default: a new temporary one)")
    dm.add_argument("--pace", type=float, default=0.0, help="seconds per action (default 0)")
    dm.add_argument("--json", action="store_true", help="the final standings and record paths as JSON")
    dm.add_argument("--web", type=int, metavar="PORT",
                    help="serve the director's page on PORT while the evening runs (try --pace 0.05)")


def _options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tables", type=int, default=None, help="tables (default: one per game of a round)")
    p.add_argument("--name", default="45s Tournament")
    p.add_argument("--start", default="6pm", help="when the first round begins (default 6pm)")
    p.add_argument("--round-minutes", type=int, default=45)
    p.add_argument("--tiebreak", action="append", choices=TIEBREAKS,
                   help="tie-breaks after wins, in order (default: %s)" % ", ".join(TIEBREAKS))
    p.add_argument("--prize", action="append", help="first place's prize, then second's")


def run(args: argparse.Namespace) -> int:
    return int(globals()["_" + args.sub](args))


def _new(args: argparse.Namespace) -> int:
    teams = parse_teams(args.team, args.csv)
    tables = args.tables or max(1, len(teams) // 2)
    tour = create(args.dir, teams, tables, name=args.name, start=args.start,
                  round_minutes=args.round_minutes, tiebreaks=args.tiebreak, prizes=args.prize,
                  then=lambda folder, tid: brokers.write_config(folder / "broker", tid, tables))
    print(tour.schedule_text())
    print("\ncredentials for each table and the director: %s" % (tour.dir / "broker" / "credentials.json"))
    return 0


def _schedule(args: argparse.Namespace) -> int:
    tour = Tournament(args.dir)
    print(json.dumps(tour.state["rounds"]) if args.json else tour.schedule_text())
    return 0


def standings_text(tour: Tournament, rows: list[dict[str, Any]]) -> str:
    out = ["%-4s %-20s %6s %4s %4s %6s %6s" % ("rank", "team", "played", "won", "lost", "for", "against")]
    for r in rows:
        out.append("%-4d %-20s %6d %4d %4d %6d %6d" % (r["rank"], r["name"], r["played"], r["won"], r["lost"],
                                                      r["points_for"], r["points_against"]))
    out.append("")
    out += tour.prizes_text(rows)
    out.append("")
    out += tour.health_lines()
    return "\n".join(out)


def _standings(args: argparse.Namespace) -> int:
    tour = Tournament(args.dir)
    rows = tour.standings()
    print(json.dumps({"standings": rows, "tiebreaks": tour.state["options"]["tiebreaks"], "health": tour.health_lines()})
          if args.json else standings_text(tour, rows))
    return 0


def _result(args: argparse.Namespace) -> int:
    from cardtable_host.serve.archive import Archive

    tour = Tournament(args.dir)
    g = tour.game(args.game)
    if tour.result_recorded(g["id"]):
        raise UsageError("game %s already has a result: use `correct` to change it" % g["id"])
    try:
        lines = Path(args.record).read_text(encoding="utf-8").splitlines()
        v = rules_referee.referee(lines)
    except OSError as e:
        raise UsageError("cannot read %s: %s" % (args.record, e.strerror))
    except record.RecordError as e:
        raise UsageError("%s: %s" % (args.record, e))
    if not v["over"]:
        raise UsageError("%s: the game is not over" % args.record)
    a = Archive(tour.dir / "archive")
    number = a.save(lines, {"table": "table %d, round %d (%s)" % (g["table"], g["round"], g["id"]),
                            "players": tour.seat_players(g)})
    scores = v["scores"][:2]
    tour.append({"kind": "result", "game": g["id"], "table": g["table"], "scores": scores,
                 "winner": v["winner"], "hash": mqttwire.record_hash(lines), "record": str(a.path(number)),
                 "by": args.by, "late": True})
    print("%s: %s %d, %s %d (entered by %s)" % (g["id"], tour.team_name(g["teams"][0]), scores[0],
                                               tour.team_name(g["teams"][1]), scores[1], args.by))
    return 0


def _forfeit(args: argparse.Namespace) -> int:
    tour = Tournament(args.dir)
    g = tour.game(args.game)
    names = [tour.team_name(t) for t in g["teams"]]
    if args.winner not in names:
        raise UsageError("%s is not playing %s (%s)" % (args.winner, g["id"], " v ".join(names)))
    if tour.result_recorded(g["id"]):
        raise UsageError("game %s already has a result: use `correct` to change it (audited)" % g["id"])
    tour.append({"kind": "forfeit", "game": g["id"], "winner": g["teams"][names.index(args.winner)],
                 "by": args.by, "reason": args.reason})
    print("%s: %s wins by forfeit" % (g["id"], args.winner))
    return 0


def _correct(args: argparse.Namespace) -> int:
    tour = Tournament(args.dir)
    g = tour.game(args.game)
    if any(s < -1000 or s > 1000 for s in args.scores):
        raise UsageError("scores must be between -1000 and 1000")
    before = tour.outcomes(disputed_too=True).get(g["id"], {}).get("scores")
    e = tour.append({"kind": "correction", "game": g["id"], "scores": list(args.scores), "before": before,
                     "winner": 0 if args.scores[0] >= args.scores[1] else 1, "by": args.by,
                     "reason": args.reason})
    names = [tour.team_name(t) for t in g["teams"]]
    print("%s corrected by %s at %s: %s -> %s (%s)" % (
        g["id"], args.by, e["at"].replace("T", " ").replace("Z", " UTC"),
        scores_text(names, before) if before else "no result", scores_text(names, args.scores), args.reason))
    return 0


def scores_text(names: list[str], scores: list[int]) -> str:
    """'Aces 120, Kings 95'."""
    return "%s %d, %s %d" % (names[0], scores[0], names[1], scores[1])


def _disputes(args: argparse.Namespace) -> int:
    tour = Tournament(args.dir)
    ds = tour.disputes()
    if args.json:
        print(json.dumps(ds))
        return 0
    for d in ds:
        print("%s: disputed by %s%s; open it: cardtable referee %s" % (
            d["game"], d.get("disputed_by"), " (%s)" % d["why"] if d.get("why") else "", d["record"]))
    if not ds:
        print("no disputed games")
    return 0


def _broker(args: argparse.Namespace) -> int:
    tour = Tournament(args.dir)
    if brokers.add_watcher(tour.dir / "broker", tour.id, tour.state["tables"]):
        print("added the director's watcher user to %s (made by an older cardtable)" % (tour.dir / "broker"), flush=True)
    b = brokers.LocalBroker(tour.dir / "broker", args.port, listen=args.listen).start()
    print("mosquitto on %s:%d for %s (Ctrl-C stops it)" % (args.listen, b.port, tour.id), flush=True)
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, _terminated)  # stopped by a service manager: Mosquitto too
        code = b.proc.wait()  # type: ignore[union-attr]
    except KeyboardInterrupt:
        b.stop()
        raise
    finally:
        b.stop()
    why = b.last_words()
    raise CardtableError("mosquitto stopped by itself (exit status %s)%s; its log: %s"
                         % (code, ": " + why if why else "", tour.dir / "broker" / "mosquitto.log"))


def _terminated(_sig: int, _frame: Any) -> None:
    raise KeyboardInterrupt


def _open_log(args: argparse.Namespace, creds: dict[str, str]) -> None:
    """--log FILE: the run's log, every broker password kept out of it."""
    from cardtable_host.config import logs

    for password in creds.values():
        logs.hide(password)
    logs.open_log(args.log)


def _direct(args: argparse.Namespace) -> int:
    from cardtable_host.tournament.director import Director

    tour = Tournament(args.dir)
    host, port = hostport(args.broker)
    creds = brokers.credentials(tour.dir / "broker")
    _open_log(args, creds)
    logging.getLogger("cardtable.tournament").info("the director's service for %s, broker %s:%d", tour.id, host, port)
    try:
        d = Director(tour, host, port, creds[brokers.DIRECTOR]).start()
    except ConnectionError as e:
        raise CardtableError(str(e))
    print("director's service for %s on %s:%d (Ctrl-C stops it)" % (tour.id, host, port), flush=True)
    if args.web is not None:
        _page(d, creds[brokers.DIRECTOR], args.web, args)
    _wait_forever(lambda stop: watch_replays(d, stop))
    d.stop()
    return INTERRUPTED


def _report(args: argparse.Namespace) -> int:
    from cardtable_host.tournament.reporter import Reporter, bots_agree

    tour = Tournament(args.dir)
    host, port = hostport(args.broker)
    creds = brokers.credentials(tour.dir / "broker")
    user = brokers.table_user(args.table)
    if user not in creds:
        raise UsageError("no table %d in this tournament (tables 1 to %d)" % (args.table, tour.state["tables"]))
    _open_log(args, creds)
    logging.getLogger("cardtable.tournament").info("table %d of %s reports to %s:%d", args.table, tour.id, host, port)

    def ask(g: dict[str, Any], team: str, scores: list[int]) -> bool:
        names = [tour.team_name(t) for t in g["teams"]]
        return input("%s: %s. %s, confirm? [y/n] " % (g["id"], scores_text(names, scores), team)).strip().lower() == "y"

    try:
        rep = Reporter(tour, args.table, host, port, creds[user], confirm=ask if args.ask else bots_agree,
                       pace=args.pace).start()
    except ConnectionError as e:
        raise CardtableError(str(e))
    for rnd in tour.state["rounds"]:
        for g in rnd["games"]:
            if g["table"] == args.table and not tour.result_recorded(g["id"]):
                seed = args.seed * 1000 + rnd["round"] * 50 + int(g["id"].rsplit("g", 1)[1])
                if args.virtual_board:
                    from cardtable_host.tournament.boardreport import play_virtual

                    p = play_virtual(rep, g["id"], seed)
                else:
                    p = rep.play(g["id"], seed)
                print("round %d, table %d: %s %d, %s %d" % (rnd["round"], args.table, p["teams"][0],
                                                           p["scores"][0], p["teams"][1], p["scores"][1]), flush=True)
    mqttwire.wait_for(lambda: rep.pending() == 0, 30)
    rep.stop()
    return 0


def _page(director: Any, password: str, port: int, args: argparse.Namespace) -> None:
    from cardtable_host.tournament.directorweb import run_in_thread

    _stop, real = run_in_thread(director, password, port)
    print("the director's page: http://127.0.0.1:%d/login?key=%s" % (real, password),
          file=sys.stderr if getattr(args, "json", False) else sys.stdout, flush=True)  # --json: stdout is the report


def _wait_forever(watch: Callable[[threading.Event], None] | None = None) -> None:
    stop = threading.Event()
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if watch is not None:
            watch(stop)
        stop.wait()
    except KeyboardInterrupt:
        stop.set()


def watch_replays(d: Any, stop: threading.Event, bar: Progress | None = None, every: float = 0.5) -> None:
    """The director's replays as a progress bar on the terminal: results refereed of those
    received (drawn only on a terminal), until stop is set."""
    bar = bar or Progress(1, "replays")
    if not bar.enabled:
        return
    try:
        while not stop.wait(every):
            with d.lock:
                received, waiting = len(d.hashes), len(d.refereeing)
            bar.update(received - waiting, "%d waiting for the referee" % waiting if waiting else "all refereed",
                       total=received)
    finally:
        bar.close()


def _demo(args: argparse.Namespace) -> int:
    from cardtable_host.tournament.evening import Evening
    from cardtable_host.tournament.tourney import DEFAULT_TIEBREAKS

    if args.teams < 2 or args.tables < 1:
        raise UsageError("a demo needs at least 2 teams and 1 table")
    folder = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="cardtable-tournament-"))
    teams = [{"name": "Team %d" % (i + 1), "players": ["Player %d%s" % (i + 1, x) for x in "AB"]}
             for i in range(args.teams)]
    tour = create(folder, teams, args.tables, tiebreaks=DEFAULT_TIEBREAKS,
                  prizes=["$200 ($100 each)", "Wine Gift Baskets"])
    creds = brokers.write_config(tour.dir / "broker", tour.id, args.tables)
    b = brokers.LocalBroker(tour.dir / "broker").start()
    t0 = time.monotonic()
    out_lock = threading.Lock()

    def said(p: dict[str, Any]) -> None:
        if args.json:
            return
        with out_lock:
            print("round %d, table %d: %s %d, %s %d" % (p["round"], p["table"], p["teams"][0], p["scores"][0],
                                                       p["teams"][1], p["scores"][1]), flush=True)

    if not args.json:
        print(tour.schedule_text() + "\n", flush=True)
    ev = Evening(tour, "127.0.0.1", b.port, creds, seed=args.seed, pace=args.pace, on_game=said)
    try:
        ev.start()
        if args.web is not None:
            _page(ev.director, creds[brokers.DIRECTOR], args.web, args)
        snap = ev.run()
    except ConnectionError as e:
        raise CardtableError(str(e))
    finally:
        ev.stop()
        b.stop()
    outcomes = tour.outcomes()
    recs = [{"game": gid, "round": tour.games[gid]["round"], "table": tour.games[gid]["table"],
             "teams": [tour.team_name(t) for t in tour.games[gid]["teams"]], "path": o["record"]}
            for gid, o in sorted(outcomes.items(), key=lambda kv: (tour.games[kv[0]]["round"], kv[0]))]
    if args.json:
        print(json.dumps({"tournament": tour.id, "dir": str(tour.dir), "standings": snap["standings"],
                          "records": recs, "prizes": tour.prizes_text(snap["standings"]),
                          "seconds": round(time.monotonic() - t0, 2)}))
    else:
        print("\n" + standings_text(tour, snap["standings"]))
        print("\nthe evening took %.1f s; the records: %s" % (time.monotonic() - t0, tour.dir / "archive"))
    return 0
