"""A round-robin tournament of teams: schedule, results log with audit trail, and standings.

State lives in a tournament directory, no database:

- ``tournament.json``: id, name, start time, teams (name + two players), tables, the rounds
  (each game: id, round, table, sitting, the two teams), options (tie-breaks, prizes, forfeit score);
- ``results.jsonl``: one line per event, never rewritten: ``result`` (a table's game, with its
  record's hash and archive file), ``forfeit``, ``correction`` (who, what, when, why, the score
  before), ``dispute``; the standings are recomputed from it;
- ``refused.jsonl``: results the director's service refused (wrong table, replays), with why;
- ``archive/``: every counted game's record (``cardtable serve``'s archive format).
"""
from __future__ import annotations

import csv
import io
import json
import os
import secrets
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

from cardtable_host.errors import UsageError

TIEBREAKS = ("head-to-head", "point-difference", "points-for")
DEFAULT_TIEBREAKS = list(TIEBREAKS)
PLACES = ("First Place Team", "Second Place Team")
FORFEIT_SCORE = (120, 0)  # the Nevins sheet plays to 120: a forfeit counts as a game won 120-0


REFEREE = "the referee"  # who flags a result its record does not bear out
HEALTH = "director.json"  # the director's service's health, written by it (director.Director.health)


def circle(n_teams: int) -> list[list[tuple[int, int | None]]]:
    """Round-robin pairings by the circle method: per round, (team, team or None for a bye)."""
    ids: list[int | None] = list(range(n_teams))
    if n_teams % 2:
        ids.append(None)
    n = len(ids)
    rounds = []
    for _ in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = ids[i], ids[n - 1 - i]
            if a is None:
                a, b = b, None
            assert a is not None
            pairs.append((a, b))
        rounds.append(pairs)
        ids = [ids[0], ids[-1]] + ids[1:-1]
    return rounds


def parse_teams(specs: list[str] | None, csv_path: str | None) -> list[dict[str, Any]]:
    """Teams from 'Name=Player A+Player B' arguments or a CSV (team,player1,player2)."""
    teams: list[dict[str, Any]] = []
    if csv_path:
        try:
            with open(csv_path, "rb") as fb:
                raw = fb.read()
        except OSError as e:
            raise UsageError("cannot read %s: %s" % (csv_path, e.strerror))
        text = _decode_csv(csv_path, raw)
        reader = csv.reader(io.StringIO(text, newline=""))
        rows: list[tuple[int, list[str]]] = []
        try:
            for r in reader:  # each row with the file line it starts on
                if r and any(c.strip() for c in r):
                    rows.append((reader.line_num - sum(c.count("\n") for c in r), r))
        except csv.Error as e:
            raise UsageError("%s line %d: %s" % (csv_path, reader.line_num, e))
        if rows and [c.strip().lower() for c in rows[0][1][:1]] == ["team"]:
            rows = rows[1:]
        for line, r in rows:
            if len(r) != 3 or not all(c.strip() for c in r):
                raise UsageError("%s line %d: expected team,player1,player2" % (csv_path, line))
            teams.append({"name": r[0].strip(), "players": [r[1].strip(), r[2].strip()]})
    for s in specs or []:
        name, eq, rest = s.partition("=")
        players = [p.strip() for p in rest.split("+")]
        if not eq or not name.strip() or len(players) != 2 or not all(players):
            raise UsageError("bad team %r: expected NAME=PLAYER+PLAYER" % s)
        teams.append({"name": name.strip(), "players": players})
    names = [t["name"] for t in teams]
    if len(set(names)) != len(names):
        raise UsageError("two teams share a name: %s" % sorted({n for n in names if names.count(n) > 1}))
    if len(teams) < 2:
        raise UsageError("a tournament needs at least two teams")
    return teams


def _decode_csv(path: str, raw: bytes) -> str:
    """A CSV file's text: UTF-8 (with or without a byte-order mark) or a spreadsheet's UTF-16."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        enc = "utf-16"
    elif len(raw) >= 2 and (raw[0] == 0) != (raw[1] == 0):  # UTF-16 without its mark
        enc = "utf-16-be" if raw[0] == 0 else "utf-16-le"
    else:
        enc = "utf-8-sig"
    try:
        return raw.decode(enc)
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1 if enc == "utf-8-sig" else 0
        where = " line %d" % line if line else ""
        raise UsageError("%s%s: not UTF-8 or UTF-16 text (save it from the spreadsheet as CSV UTF-8)"
                         % (path, where))


def parse_clock(text: str) -> int:
    """Minutes after midnight of '18:00', '6pm' or '6:30pm'; raises UsageError."""
    t = text.strip().lower().replace(" ", "")
    pm = t.endswith("pm")
    am = t.endswith("am")
    if pm or am:
        t = t[:-2]
    h, _, m = t.partition(":")
    try:
        hh, mm = int(h), int(m or 0)
    except ValueError:
        raise UsageError("bad start time %r: expected HH:MM or 6pm" % text)
    if pm and hh < 12:
        hh += 12
    if am and hh == 12:
        hh = 0
    if not (0 <= hh < 24 and 0 <= mm < 60):
        raise UsageError("bad start time %r" % text)
    return hh * 60 + mm


def clock(minutes: int) -> str:
    """'18:45' from minutes after midnight."""
    return "%02d:%02d" % ((minutes // 60) % 24, minutes % 60)


def create(folder: str | os.PathLike[str], teams: list[dict[str, Any]], tables: int, *,
           name: str = "45s Tournament", start: str = "6pm", round_minutes: int = 45,
           tiebreaks: list[str] | None = None, prizes: list[str] | None = None,
           tid: str | None = None, then: Callable[[Path, str], Any] | None = None) -> "Tournament":
    """Make a new tournament directory with its round-robin schedule; then(folder, id) adds to
    it before it appears. All or nothing: a failure leaves no folder behind."""
    if tables < 1:
        raise UsageError("--tables must be at least 1")
    tiebreaks = DEFAULT_TIEBREAKS if tiebreaks is None else tiebreaks
    for tb in tiebreaks:
        if tb not in TIEBREAKS:
            raise UsageError("unknown tie-break %r (choose from %s)" % (tb, ", ".join(TIEBREAKS)))
    d = Path(folder)
    if (d / "tournament.json").exists():
        raise UsageError("%s already holds a tournament" % d)
    if d.exists() and (not d.is_dir() or any(d.iterdir())):
        raise UsageError("%s exists and is not an empty folder" % d)
    tid = tid or "t" + secrets.token_hex(3)
    rounds = []
    for r, pairs in enumerate(circle(len(teams)), 1):
        games, byes = [], []
        k = 0
        for a, b in pairs:
            if b is None:
                byes.append(a)
                continue
            games.append({"id": "%s-r%d-g%d" % (tid, r, k + 1), "round": r, "table": k % tables + 1,
                          "sitting": k // tables + 1, "teams": [a, b]})
            k += 1
        rounds.append({"round": r, "games": games, "byes": byes})
    state = {"id": tid, "name": name, "start": clock(parse_clock(start)), "round_minutes": round_minutes,
             "tables": tables, "teams": teams, "rounds": rounds,
             "options": {"tiebreaks": tiebreaks, "prizes": list(prizes or []),
                         "forfeit_score": list(FORFEIT_SCORE)}}
    d.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="." + d.name + ".new-", dir=d.parent))
    try:
        (work / "tournament.json").write_text(json.dumps(state, indent=1) + "\n", encoding="utf-8")
        (work / "results.jsonl").touch()
        if then is not None:
            then(work, tid)
        if d.exists():
            d.rmdir()  # empty (checked above): the made folder takes its place
        os.replace(work, d)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return Tournament(d)


class Tournament:
    """A tournament directory: its schedule, its results log and the standings from them."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.dir = Path(folder)
        try:
            self.state = json.loads((self.dir / "tournament.json").read_text(encoding="utf-8"))
        except OSError:
            raise UsageError("%s is not a tournament directory (no tournament.json)" % self.dir)
        except ValueError as e:
            raise UsageError("%s/tournament.json is not JSON: %s" % (self.dir, e))
        self.id: str = self.state["id"]
        self.teams: list[dict[str, Any]] = self.state["teams"]
        self.games: dict[str, dict[str, Any]] = {g["id"]: g for r in self.state["rounds"] for g in r["games"]}
        self._log: list[dict[str, Any]] = []
        self._log_pos = 0
        self._lines = 0  # lines of results.jsonl read so far
        self.skipped: list[dict[str, Any]] = []  # lines of results.jsonl that are not events
        self._log_lock = threading.Lock()

    # -- the schedule ---------------------------------------------------------------------

    def round_start(self, r: int, sitting: int = 1) -> str:
        """The clock time round r (and its sitting) begins."""
        before = sum(max([g["sitting"] for g in rr["games"]] or [1]) for rr in self.state["rounds"][:r - 1])
        return clock(parse_clock(self.state["start"]) + (before + sitting - 1) * self.state["round_minutes"])

    def team_name(self, i: int) -> str:
        return self.teams[i]["name"]

    def seat_players(self, game: dict[str, Any]) -> list[str]:
        """The players per seat: seats 0 and 2 the first team, 1 and 3 the second (partners sit across)."""
        a, b = (self.teams[t]["players"] for t in game["teams"])
        return [a[0], b[0], a[1], b[1]]

    def game(self, gid: str) -> dict[str, Any]:
        try:
            return self.games[gid]
        except KeyError:
            raise UsageError("no game %r in this tournament (see `cardtable tournament schedule`)" % gid)

    def schedule_text(self) -> str:
        """The schedule as a director prints it."""
        s = self.state
        out = ["%s (%s): %d teams, %d tables, %d rounds; first round begins at %s"
               % (s["name"], s["id"], len(self.teams), s["tables"], len(s["rounds"]), s["start"])]
        for r in s["rounds"]:
            out.append("")
            out.append("Round %d" % r["round"])
            for g in r["games"]:
                a, b = g["teams"]
                out.append("  %s  table %d  %-20s v  %-20s  (%s)" % (
                    self.round_start(r["round"], g["sitting"]), g["table"], self.team_name(a),
                    self.team_name(b), g["id"]))
            for t in r["byes"]:
                out.append("  bye: %s" % self.team_name(t))
        return "\n".join(out)

    # -- the results log -------------------------------------------------------------------

    def log(self) -> list[dict[str, Any]]:
        """Every event of results.jsonl (read incrementally: the file is only ever appended to);
        a line that is not an event (a crash's torn fragment) is skipped and kept in skipped."""
        path = self.dir / "results.jsonl"
        with self._log_lock:
            try:
                size = path.stat().st_size
            except FileNotFoundError:
                return []
            if size < self._log_pos:
                self._log, self._log_pos, self._lines, self.skipped = [], 0, 0, []
            if size > self._log_pos:
                with open(path, "rb") as f:
                    f.seek(self._log_pos)
                    data = f.read()
                end = data.rfind(b"\n") + 1  # a line being written is read next time
                for raw in data[:end].split(b"\n")[:-1]:
                    self._lines += 1
                    if not raw.strip():
                        continue
                    try:
                        e = json.loads(raw.decode("utf-8"))
                    except (ValueError, RecursionError):
                        e = None
                    if isinstance(e, dict):
                        self._log.append(e)
                    else:
                        text = raw.decode("utf-8", "replace")
                        self.skipped.append({"line": self._lines,
                                             "text": text if len(text) <= 60 else text[:57] + "..."})
                self._log_pos += end
            return list(self._log)

    def append(self, entry: dict[str, Any], name: str = "results.jsonl", sync: bool = True) -> dict[str, Any]:
        """Append one event to a log (with the time it was written); on disk when this returns,
        unless sync=False (then sync() makes it so). A torn last line (a crash mid-write) is
        left as it is and the entry starts on a line of its own."""
        entry = dict(entry)
        entry.setdefault("at", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        line = (json.dumps(entry) + "\n").encode("utf-8")
        fd = os.open(self.dir / name, os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o644)
        try:
            end = os.lseek(fd, 0, os.SEEK_END)
            if end and (os.lseek(fd, end - 1, os.SEEK_SET), os.read(fd, 1))[1] != b"\n":
                line = b"\n" + line
            os.write(fd, line)
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        from cardtable_host.config.logs import log_entry

        log_entry(entry, name)
        return entry

    def sync(self, name: str = "results.jsonl") -> None:
        """Flush a log's appended lines to disk."""
        fd = os.open(self.dir / name, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def outcomes(self, disputed_too: bool = False) -> dict[str, dict[str, Any]]:
        """Each decided game's outcome after every correction: scores per team, winner, how
        (disputed_too: a disputed game's claimed outcome too)."""
        out: dict[str, dict[str, Any]] = {}
        disputed: set[str] = set()
        corrected: set[str] = set()
        for e in self.log():
            gid = str(e.get("game"))
            kind = e.get("kind")
            if kind in ("result", "dispute"):
                if gid in out:
                    continue  # a resend: the first result stands (corrections change it)
                out[gid] = {"scores": e["scores"], "winner": e.get("winner", _higher(e["scores"])),
                            "how": "played", "record": e.get("record"), "late": e.get("late", False)}
                if kind == "dispute":
                    disputed.add(gid)
            elif kind == "forfeit":
                fs = self.state["options"]["forfeit_score"]
                g = self.games[gid]
                w = 0 if e["winner"] == g["teams"][0] else 1
                out[gid] = {"scores": list(fs) if w == 0 else list(reversed(fs)), "winner": w,
                            "how": "forfeit", "record": None}
            elif kind == "correction":
                prev = out.get(gid, {})
                out[gid] = dict(prev, scores=e["scores"], winner=e.get("winner", _higher(e["scores"])),
                                how=prev.get("how", "played"), corrected=True)
                disputed.discard(gid)
                corrected.add(gid)
            elif kind == "refereed" and not e.get("ok") and gid not in corrected:
                disputed.add(gid)  # the referee does not bear the result out: the director decides
        if not disputed_too:
            for gid in disputed:
                out.pop(gid, None)  # a disputed game counts once the director corrects or confirms it
        return out

    def disputes(self) -> list[dict[str, Any]]:
        """The games flagged for the director (by a team, or by the referee's replay of the
        record) and not yet settled by a correction."""
        open_: dict[str, dict[str, Any]] = {}
        corrected: set[str] = set()
        for e in self.log():
            gid = str(e.get("game"))
            if e.get("kind") == "dispute":
                open_[gid] = e
            elif e.get("kind") == "refereed" and not e.get("ok") and gid not in corrected:
                open_[gid] = dict(e, disputed_by=REFEREE)
            elif e.get("kind") == "correction":
                open_.pop(gid, None)
                corrected.add(gid)
        return list(open_.values())

    def result_recorded(self, gid: str) -> bool:
        return any(e.get("game") == gid and e.get("kind") in ("result", "dispute", "forfeit") for e in self.log())

    # -- standings ------------------------------------------------------------------------

    def standings(self) -> list[dict[str, Any]]:
        """Per team: name, players, played, won, lost, points for/against, rank (wins, then tie-breaks)."""
        rows = [{"name": t["name"], "players": list(t["players"]), "played": 0, "won": 0, "lost": 0,
                 "points_for": 0, "points_against": 0} for t in self.teams]
        beat: dict[tuple[int, int], int] = {}
        for gid, o in self.outcomes().items():
            a, b = self.games[gid]["teams"]
            sa, sb = o["scores"]
            for me, mine, theirs in ((a, sa, sb), (b, sb, sa)):
                rows[me]["played"] += 1
                rows[me]["points_for"] += mine
                rows[me]["points_against"] += theirs
            w, lo = (a, b) if o["winner"] == 0 else (b, a)
            rows[w]["won"] += 1
            rows[lo]["lost"] += 1
            beat[(w, lo)] = beat.get((w, lo), 0) + 1
        tbs = self.state["options"]["tiebreaks"]
        order = _rank(list(range(len(rows))), rows, beat, tbs)
        pos = 1
        for group in order:  # equals share a rank; the next rank skips past them
            for i in group:
                rows[i]["rank"] = pos
            pos += len(group)
        out = [rows[i] for group in order for i in group]
        return out

    def health_lines(self) -> list[str]:
        """What a director should know about the counting: when a result was last counted, the
        director's storage errors (its HEALTH file), lines of the log that were skipped."""
        log = self.log()
        counted = [e for e in log if e.get("kind") in ("result", "dispute") and str(e.get("by", "")).startswith("table")]
        out = []
        if counted:
            out.append("the director last counted a result at %s (%s)" % (_when(counted[-1].get("at")), counted[-1].get("game")))
        else:
            out.append("the director has counted no result from a table yet")
        try:
            h = json.loads((self.dir / HEALTH).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            h = None
        if isinstance(h, dict):
            err = h.get("storage_error")
            if isinstance(err, dict):
                out.append("STORAGE ERROR since %s: %s; %d result(s) kept until the folder takes them"
                           % (_when(err.get("since")), err.get("error"), len(h.get("waiting") or [])))
            elif h.get("storage_errors"):
                out.append("the director's storage errors since it started: %d (writing again since)" % h["storage_errors"])
            if isinstance(h.get("alive"), (int, float)) and time.time() - h["alive"] > 60:
                out.append("the director's service last said it was running at %s" % _when(h["alive"]))
        for sk in self.skipped:
            out.append("results.jsonl line %d skipped: not a whole entry (a crash cut it?): %s" % (sk["line"], sk["text"]))
        return out

    def over(self) -> bool:
        """Whether every game of the tournament is decided."""
        return len(self.outcomes()) == len(self.games)

    def prizes_text(self, table: list[dict[str, Any]], over: bool | None = None) -> list[str]:
        """The first and second place called out (with the sheet's prizes) once every game is
        decided; before that, who is leading."""
        if not table or not table[0]["played"]:
            return []
        if not (self.over() if over is None else over):
            lead = [r for r in table if r["rank"] == 1]
            return ["Leading so far: %s" % " and ".join("%s (%s)" % (r["name"], " & ".join(r["players"]))
                                                     for r in lead)]
        prizes = self.state["options"].get("prizes") or []
        out = []
        for place in (1, 2):
            teams = [r for r in table if r["rank"] == place]
            if not teams:
                continue
            names = " and ".join("%s (%s)" % (r["name"], " & ".join(r["players"])) for r in teams)
            prize = (": " + prizes[place - 1]) if place <= len(prizes) else ""
            out.append("%s%s — %s" % (PLACES[place - 1], prize, names))
        return out


def _when(t: Any) -> str:
    """A time as a person reads it: '2026-11-28 20:15:03 UTC' (from unix time or ISO text)."""
    if isinstance(t, (int, float)):
        return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(t))
    if isinstance(t, str):
        return t.replace("T", " ").replace("Z", " UTC")
    return "an unknown time"


def _higher(scores: list[int]) -> int:
    """The winner by score (0 or 1) when nothing else says."""
    return 0 if scores[0] >= scores[1] else 1


def _rank(ids: list[int], rows: list[dict[str, Any]], beat: dict[tuple[int, int], int],
          tbs: list[str]) -> list[list[int]]:
    """Teams in order as groups of equals: wins first, then each tie-break in turn."""
    groups = _split(ids, lambda i: rows[i]["won"])
    for tb in tbs:
        nxt: list[list[int]] = []
        for g in groups:
            if len(g) == 1:
                nxt.append(g)
            elif tb == "head-to-head":
                inside = set(g)
                wins = dict.fromkeys(g, 0)  # games won against the others of the group
                for (w, lo), n in beat.items():
                    if w in inside and lo in inside:
                        wins[w] += n
                nxt.extend(_split(g, wins.__getitem__))
            elif tb == "point-difference":
                nxt.extend(_split(g, lambda i: rows[i]["points_for"] - rows[i]["points_against"]))
            else:
                nxt.extend(_split(g, lambda i: rows[i]["points_for"]))
        groups = nxt
    return [sorted(g, key=lambda i: rows[i]["name"].lower()) for g in groups]


def _split(ids: list[int], key: Any) -> list[list[int]]:
    """Groups of ids by key, highest key first."""
    by: dict[Any, list[int]] = {}
    for i in ids:
        by.setdefault(key(i), []).append(i)
    return [by[k] for k in sorted(by, reverse=True)]
