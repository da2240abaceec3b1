"""The tournament director under fire: a whole evening through a real Mosquitto while a table's
credential publishes six poison payloads, the archive folder turns read-only for a round and a
crash tears the results log's last line. Run by the test suite (tests/host/
test_tournament_faults.py, which asserts on it) and by `make bench` (which reports its counts).

Counted: the honest games sent and counted (each exactly once), the hostile messages sent and
the lines refused.jsonl gives them, the results kept while the folder was read-only, the log
lines the restarted director skipped.
"""
from __future__ import annotations

import contextlib
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

from cardtable_host.tournament import broker as brokers
from cardtable_host.tournament import mqttwire
from cardtable_host.tournament.director import Director
from cardtable_host.tournament.evening import Evening
from cardtable_host.tournament.tourney import Tournament, create

HOSTILE_TABLE = 3


def poisons(tour: Tournament) -> list[bytes]:
    """Six messages a table's credential can publish to its own result topic that once stopped
    the director (a TypeError or RecursionError in its network thread, or worse)."""
    g = next(g for g in tour.state["rounds"][0]["games"] if g["table"] == HOSTILE_TABLE)
    base = {"game": g["id"], "table": HOSTILE_TABLE, "round": 1,
            "teams": [tour.team_name(t) for t in g["teams"]], "scores": [120, 0], "confirmed": []}
    numbers = [1, 2, 3]
    lists = [["header"], ["play"]]
    return [
        json.dumps({"game": [1], "hash": "poison-1"}).encode(),
        json.dumps({"game": {"a": 1}, "hash": "poison-2"}).encode(),
        json.dumps(dict(base, record=numbers, hash="poison-3")).encode(),
        json.dumps(dict(base, record=lists, hash="poison-4")).encode(),
        b'{"game": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        b"\xff\xfe not text at all",
    ]


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """The folder read-only while inside (as root, whom permissions do not stop: a read-only
    bind mount of it; where root may not mount, the folder moved aside and a file in its place,
    so that every write into it fails all the same)."""
    if os.geteuid() != 0:
        mode = folder.stat().st_mode & 0o777
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(mode)
        return
    if subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True).returncode == 0:
        try:
            subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)], check=True)
            yield
        finally:
            subprocess.run(["umount", "-l", str(folder)], check=True)  # lazy: a reader still inside keeps its view
        return
    aside = folder.with_name(folder.name + ".aside")
    folder.rename(aside)
    folder.write_text("not a folder: writes here fail\n")
    try:
        yield
    finally:
        folder.unlink()
        aside.rename(folder)


def drill(work: Path, seed: int = 3) -> dict[str, Any]:
    """Six teams, three tables, five rounds; the faults on the way; the counts and evidence."""
    teams = [{"name": "Team %d" % i, "players": ["P%dA" % i, "P%dB" % i]} for i in range(1, 7)]
    tour = create(work / "t", teams, 3)
    creds = brokers.write_config(tour.dir / "broker", tour.id, 3)
    b = brokers.LocalBroker(tour.dir / "broker", verbose_log=False).start()
    out: dict[str, Any] = {"dir": str(tour.dir), "hostile_sent": 0, "storage_waiting": 0,
                           "storage_error_shown": None, "restarted": False}
    bad = poisons(tour)
    ev = Evening(tour, "127.0.0.1", b.port, creds, seed=seed, pace=0.0)
    hold = contextlib.ExitStack()

    def hook(stage: str, rnd: int, e: Evening) -> None:
        if rnd == 1 and stage == "start":
            _hostile_table(e, tour, b.port, creds, bad, out)
        if rnd == 2 and stage == "start":
            hold.enter_context(read_only(tour.dir / "archive"))
        if rnd == 2 and stage == "end":
            _results_wait(e, tour, out)
            hold.close()  # writable again: the kept results are counted
        if rnd == 4 and stage == "start":
            _torn_restart(e, tour, b.port, creds, out)

    t0 = time.monotonic()
    try:
        ev.start()
        snap = ev.run(hook)
    finally:
        hold.close()
        ev.stop()
        b.stop()
    out["seconds"] = round(time.monotonic() - t0, 1)
    out.update(_counts(tour, snap))
    return out


def _hostile_table(e: Evening, tour: Tournament, port: int, creds: dict[str, str], bad: list[bytes],
                   out: dict[str, Any]) -> None:
    """The hostile table claims the director's client id, then publishes the poison, all refused."""
    # with its own credential, its table offline meanwhile
    e.tables[HOSTILE_TABLE].go_offline()
    user, password = brokers.table_user(HOSTILE_TABLE), creds[brokers.table_user(HOSTILE_TABLE)]
    thief = mqttwire.client("cardtable-director-%s" % tour.id, user, password, clean=False)
    mqttwire.connect(thief, "127.0.0.1", port)
    thief.disconnect()
    thief.loop_stop()
    rogue = mqttwire.client("rogue", user, password)
    mqttwire.connect(rogue, "127.0.0.1", port)
    for p in bad:
        rogue.publish(mqttwire.topic(tour.id, "table", HOSTILE_TABLE, "result"), p, qos=1).wait_for_publish(10)
        out["hostile_sent"] += 1
    rogue.disconnect()
    rogue.loop_stop()
    e.tables[HOSTILE_TABLE].go_online()
    mqttwire.wait_for(lambda: len(refused(tour)) >= len(bad), 20)


def _results_wait(e: Evening, tour: Tournament, out: dict[str, Any]) -> None:
    """With the archive read-only: round 2's results wait, the director shows the storage error."""
    ids = [g["id"] for g in tour.state["rounds"][1]["games"]]
    d = e.director

    def health() -> dict[str, Any]:
        return dict(d.snapshot(tables=False).get("health") or {})

    mqttwire.wait_for(lambda: sorted(health().get("waiting") or []) == sorted(ids), 20)
    out["storage_waiting"] = len(health().get("waiting") or [])
    out["storage_error_shown"] = (health().get("storage_error") or {}).get("error")
    out["counted_while_read_only"] = [i for i in ids if tour.result_recorded(i)]


def _torn_restart(e: Evening, tour: Tournament, port: int, creds: dict[str, str], out: dict[str, Any]) -> None:
    """A crash while the director wrote: its last line cut in half; the director restarted."""
    assert mqttwire.wait_for(lambda: all(t.pending() == 0 for t in e.tables.values()), 20)
    assert mqttwire.wait_for(lambda: not e.director.refereeing, 30)
    e.director.stop()
    log = tour.dir / "results.jsonl"
    last = log.read_bytes().splitlines()[-1]
    with open(log, "ab") as f:
        f.write(last[: len(last) // 2])
    e.director = Director(tour, "127.0.0.1", port, creds[brokers.DIRECTOR]).start()
    out["restarted"] = True


def _counts(tour: Tournament, snap: dict[str, Any]) -> dict[str, Any]:
    """What the tournament counted, read afresh from its folder: once each, none missing, refusals."""
    fresh = Tournament(tour.dir)
    log = fresh.log()
    results = [e["game"] for e in log if e.get("kind") == "result"]
    lines = refused(tour)
    return {
        "games": len(tour.games), "honest_sent": len(tour.games),
        "counted": len(set(results)), "counted_twice": sorted({g for g in results if results.count(g) > 1}),
        "missing": sorted(set(tour.games) - set(results)),
        "refused_lines": len(lines), "refused": lines,
        "refused_honest": [r for r in lines if r.get("hash") and not str(r["hash"]).startswith("poison")],
        "torn_skipped": fresh.skipped, "snapshot": snap, "results": results,
        "standings_equal": snap["standings"] == fresh.standings(),
    }


def refused(tour: Tournament) -> list[dict[str, Any]]:
    try:
        text = (tour.dir / "refused.jsonl").read_text(encoding="utf-8")
    except OSError:
        return []
    return [json.loads(x) for x in text.splitlines() if x.strip()]


def section() -> dict[str, Any]:
    """The counts for `make bench`."""
    with tempfile.TemporaryDirectory(prefix="cardtable-bench-faults-") as tmp:
        r = drill(Path(tmp))
    keep = ("seconds", "games", "honest_sent", "counted", "counted_twice", "missing", "hostile_sent",
            "refused_lines", "storage_waiting", "storage_error_shown", "standings_equal")
    out = {k: r[k] for k in keep}
    out["refused_honest"] = len(r["refused_honest"])
    out["torn_lines_skipped"] = len(r["torn_skipped"])
    return out


def report(res: dict[str, Any]) -> str:
    """The section's lines for `make bench`."""
    if "error" in res:
        return "\nTournament director under fire: %s" % res["error"]
    once = res["counted"] == res["honest_sent"] and not res["counted_twice"]
    return "\n".join([
        "", "Tournament director under fire (six poison payloads, a read-only archive for a round, a torn log; %.1f s):"
        % res["seconds"],
        "  honest games   %d sent, %d counted%s" % (res["honest_sent"], res["counted"],
                                                   " exactly once each" if once else "  NOT EACH ONCE"),
        "  hostile        %d sent, %d refused in refused.jsonl, %d honest results refused"
        % (res["hostile_sent"], res["refused_lines"], res["refused_honest"]),
        "  read-only      %d results kept while the archive was read-only (%s), counted after"
        % (res["storage_waiting"], res["storage_error_shown"]),
        "  torn log       %d line(s) skipped and reported after the restart" % res["torn_lines_skipped"],
    ])


if __name__ == "__main__":
    r = section()
    print(json.dumps(r, indent=1))
    print(report(r))
