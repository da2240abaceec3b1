"""The director's page: every table live, the standings as games finish, the next round.

An aiohttp application (``make_app``) that ``cardtable serve`` can mount as a sub-application.
It needs the director's credential: open ``/login?key=PASSWORD`` once (it sets a cookie);
corrections from the page are posted to ``correct`` and audited like the command's.
"""
from __future__ import annotations

import hmac
import json
import time
from typing import Any

from aiohttp import web

from cardtable_host.tournament.director import Director

COOKIE = "cardtable_director"

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Tournament director</title>
<style>
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;margin:0;padding:1em;background:#0b3d20;color:#f4f4f4;overflow-wrap:break-word}
th,.num,.nowrap{white-space:nowrap}.s{display:none}#disputes,#c-said{overflow-wrap:anywhere}
table{border-collapse:collapse;margin:.5em 0;max-width:100%}td,th{padding:.25em .6em;border-bottom:1px solid #2c6b44;text-align:left}
.num{text-align:right}input,select{max-width:100%}input{width:5em}#c-reason{width:14em}
.prize{font-weight:bold;color:#ffd76a}.leading{font-weight:bold}.dispute{color:#ff9a8a}
section{display:inline-block;vertical-align:top;margin-right:2em;max-width:100%}
#health{color:#cfe8d6;font-size:.9em}#health .trouble{color:#1a0000;background:#ffb3a7;padding:.3em .5em;border-radius:.3em;font-weight:bold}
.calls .call{background:#ffd76a;color:#1a1a00;font-weight:bold;padding:.5em .7em;border-radius:.3em;margin:.4em 0;
  display:flex;flex-wrap:wrap;gap:.5em;align-items:center;justify-content:space-between}
.calls .call button{font-size:1em}
@media (max-width:600px){
  body{padding:.5em;font-size:15px} h1{font-size:1.4em} section{display:block;margin-right:0}
  td,th{padding:.2em .3em} th{font-size:.8em} #c-reason{width:100%} .l{display:none} .s{display:inline}
  table{font-size:.92em}
}
</style></head><body>
<h1 id="title">Tournament</h1>
<div id="calls" class="calls" role="alert"></div>
<p id="progress"></p>
<div id="health"></div>
<section><h2>Tables</h2><table id="tables"><thead><tr><th>table</th><th><span class="l">round</span><span class="s">rd</span></th><th>teams</th>
<th class="num">score</th><th>dealer</th><th>state</th></tr></thead><tbody></tbody></table></section>
<section><h2>Standings</h2><table id="standings"><thead><tr><th><span class="l">rank</span><span class="s">#</span></th><th>team</th>
<th class="num"><span class="l">played</span><span class="s">P</span></th>
<th class="num"><span class="l">won</span><span class="s">W</span></th><th class="num"><span class="l">lost</span><span class="s">L</span></th>
<th class="num">for</th><th class="num"><span class="l">against</span><span class="s">agst</span></th></tr></thead>
<tbody></tbody></table><div id="prizes"></div></section>
<section><h2>Next round</h2><table id="next"><tbody></tbody></table><div id="disputes"></div></section>
<section><h2>Correct a result</h2>
<form id="correct"><p><select id="c-game" required></select></p>
<p><label><span id="c-team0">first team</span> <input id="c-s0" type="number" min="-1000" max="1000" required></label>
<label><span id="c-team1">second team</span> <input id="c-s1" type="number" min="-1000" max="1000" required></label></p>
<p><label>why <input id="c-reason" required></label> <label>by <input id="c-by" value="director"></label>
<button type="submit">correct</button></p><p id="c-said"></p></form></section>
<script>
const SEATS = ["north", "east", "south", "west"];
function cell(row, text, cls) { const td = row.insertCell(); td.textContent = text; if (cls) td.className = cls; }
function fill(id, rows, build) {
  const body = document.querySelector("#" + id + " tbody"); body.textContent = "";
  for (const r of rows) build(body.insertRow(), r);
}
async function tick() {
  try {
    const s = await (await fetch("state.json", {cache: "no-store"})).json();
    document.getElementById("title").textContent = s.name;
    document.getElementById("progress").textContent = s.decided + " of " + s.of + " games decided" +
      (s.round ? "; round " + s.round + " under way" : "; the evening is over") +
      (s.refereeing.length ? "; the referee is checking " + s.refereeing.length + " record(s)" : "");
    fill("tables", Object.values(s.tables), (tr, t) => {
      cell(tr, "table " + t.table, "nowrap"); cell(tr, t.round ?? "", "num"); cell(tr, (t.teams || []).join(" v "));
      cell(tr, t.scores ? t.scores.join(" - ") : "", "num");
      cell(tr, t.dealer === undefined ? "" : SEATS[t.dealer]); cell(tr, t.state);
    });
    fill("standings", s.standings, (tr, r) => {
      for (const k of ["rank", "name", "played", "won", "lost", "points_for", "points_against"])
        cell(tr, r[k], typeof r[k] === "number" ? "num" : "");
    });
    const prizes = document.getElementById("prizes"); prizes.textContent = "";
    for (const p of s.prizes) { const d = document.createElement("div"); d.className = s.over ? "prize" : "leading";
      d.textContent = p; prizes.append(d); }
    health(s.health || {});
    calls(s.calls || []);
    fill("next", s.next, (tr, g) => { cell(tr, "table " + g.table, "nowrap"); cell(tr, g.teams.join(" v ")); });
    if (!s.next.length) fill("next", [s.round ? "the last round is being played" : "every round is played"],
                             (tr, text) => { tr.className = "none"; cell(tr, text); });
    const dd = document.getElementById("disputes"); dd.textContent = "";
    for (const g of s.disputes) { const d = document.createElement("div"); d.className = "dispute";
      d.textContent = "disputed by " + g.by + ": " + g.game + (g.why ? " (" + g.why + ")" : "") +
        " (open it: cardtable referee " + g.record + ")"; dd.append(d); }
    games = s.games; const sel = document.getElementById("c-game");
    const keep = sel.value, ids = JSON.stringify(games);
    if (sel.dataset.ids !== ids) {
      sel.textContent = ""; sel.dataset.ids = ids;
      for (const g of games) { const o = document.createElement("option"); o.value = g.game;
        o.textContent = g.game + ": " + g.teams.join(" v ") + " " + g.scores.join(" - ") + (g.disputed ? " (disputed)" : "");
        sel.append(o); }
      if (keep) sel.value = keep;
      chosen();
    }
    document.body.dataset.updated = String(s.t);
  } catch (e) { document.getElementById("progress").textContent = "reconnecting ..."; }
}
let games = [];
function clockTime(t) { return new Date(t * 1000).toLocaleTimeString([], {hour: "2-digit", minute: "2-digit", second: "2-digit"}); }
function health(h) {
  const box = document.getElementById("health"); box.textContent = "";
  const line = (text, trouble) => { const d = document.createElement("div"); d.textContent = text;
    if (trouble) d.className = "trouble"; box.append(d); };
  line(h.last_counted ? "last counted a result at " + clockTime(h.last_counted) + (h.last ? " (" + h.last + ")" : "")
                      : "no result counted since the director's service started");
  if (h.storage_error)
    line("Cannot save to the tournament folder since " + clockTime(h.storage_error.since) + ": " + h.storage_error.error +
         ". " + (h.waiting || []).length + " result(s) kept and tried again every second; tables keep theirs until then.", true);
  else if (h.storage_errors) line("storage errors since the start: " + h.storage_errors + " (saving again since)");
  for (const sk of h.skipped || []) line("results log line " + sk.line + " skipped: not a whole entry (a crash cut it?)", true);
}
let callsShown = "";
function calls(list) {
  const now = JSON.stringify(list);
  if (now === callsShown) return;  // redrawn only when a call comes or goes (the box is an alert)
  callsShown = now;
  const box = document.getElementById("calls"); box.textContent = "";
  for (const c of list) {
    const d = document.createElement("div"); d.className = "call"; d.dataset.table = c.table;
    const words = document.createElement("span"); words.textContent = c.text + ", since " + clockTime(c.received);
    const b = document.createElement("button"); b.type = "button"; b.textContent = "cleared";
    b.addEventListener("click", async () => {
      await fetch("clear", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({table: c.table})});
      tick();
    });
    d.append(words, b); box.append(d);
  }
}
function chosen() {
  const g = games.find(x => x.game === document.getElementById("c-game").value);
  if (!g) return;
  document.getElementById("c-team0").textContent = g.teams[0];
  document.getElementById("c-team1").textContent = g.teams[1];
}
document.getElementById("c-game").addEventListener("change", chosen);
document.getElementById("correct").addEventListener("submit", async ev => {
  ev.preventDefault();
  const v = id => document.getElementById(id).value;
  const body = {game: v("c-game"), scores: [Number(v("c-s0")), Number(v("c-s1"))], reason: v("c-reason"), by: v("c-by")};
  const said = document.getElementById("c-said");
  try {
    const r = await fetch("correct", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
    const got = await r.json();
    said.textContent = got.ok ? "corrected " + body.game + ": " + body.scores.join(" - ") : "refused: " + got.error;
  } catch (e) { said.textContent = "not sent: " + e; }
  tick();
});
tick(); setInterval(tick, 500);
</script></body></html>
"""


async def _json_body(request: web.Request) -> Any:
    """The request's body as JSON, or None when it is not JSON."""
    try:
        return json.loads(await request.text())
    except ValueError:
        return None


def state_of(director: Director) -> dict[str, Any]:
    """What the director's page shows: the snapshot, the prizes, the disputes, the games to
    correct and the tables calling the director, in words."""
    with director.lock:
        snap = director.snapshot()
        calls = sorted(director.calls.values(), key=lambda c: c["received"])
    tour = director.tour
    snap["name"] = tour.state["name"]
    snap["over"] = snap["decided"] == snap["of"]
    snap["prizes"] = tour.prizes_text(snap["standings"], snap["over"])
    snap["disputes"] = [{"game": d["game"], "record": d.get("record"), "by": d.get("disputed_by"),
                         "why": d.get("why")} for d in tour.disputes()]
    disputed = {d["game"] for d in snap["disputes"]}
    snap["games"] = [{"game": gid, "round": tour.games[gid]["round"], "table": tour.games[gid]["table"],
                      "teams": [tour.team_name(t) for t in tour.games[gid]["teams"]],
                      "scores": o["scores"], "how": o["how"], "disputed": gid in disputed}
                     for gid, o in sorted(tour.outcomes(disputed_too=True).items())]
    snap["calls"] = [{"table": c["table"], "t": c["t"], "received": c["received"],
                      "text": "Table %d calls the director: %s%s" % (
                          c["table"], c["who"], " (%s)" % " v ".join(c["teams"]) if c["teams"] else "")}
                     for c in calls]
    return snap


def make_app(director: Director, password: str) -> web.Application:
    """The page's routes (relative, so serve can mount it under any prefix)."""
    app = web.Application()

    def allowed(request: web.Request) -> bool:
        return hmac.compare_digest(request.cookies.get(COOKIE, ""), password)

    async def login(request: web.Request) -> web.StreamResponse:
        if not hmac.compare_digest(request.query.get("key", ""), password):
            raise web.HTTPForbidden(text="the director's credential is needed\n")
        resp = web.HTTPFound("./")
        resp.set_cookie(COOKIE, password, httponly=True, samesite="Strict")
        raise resp

    async def page(request: web.Request) -> web.StreamResponse:
        if not allowed(request):
            raise web.HTTPForbidden(text="the director's credential is needed: open login?key=...\n")
        return web.Response(text=PAGE, content_type="text/html")

    async def state(request: web.Request) -> web.StreamResponse:
        if not allowed(request):
            raise web.HTTPForbidden(text="forbidden\n")
        return web.json_response(state_of(director))

    async def clear(request: web.Request) -> web.StreamResponse:
        if not allowed(request):
            raise web.HTTPForbidden(text="forbidden\n")
        body = await _json_body(request)
        table = body.get("table") if isinstance(body, dict) else None
        if type(table) is not int:
            return web.json_response({"ok": False, "error": "send {\"table\": n}"}, status=400)
        if not director.clear_call(table):
            return web.json_response({"ok": False, "error": "table %d is not calling" % table}, status=409)
        return web.json_response({"ok": True})

    async def correct(request: web.Request) -> web.StreamResponse:
        if not allowed(request):
            raise web.HTTPForbidden(text="forbidden\n")
        body = await _json_body(request)
        if not isinstance(body, dict):
            return web.json_response({"ok": False, "error": "the body must be a JSON object"}, status=400)
        why = director.correct(body, where="the director's page")
        if why:
            return web.json_response({"ok": False, "error": why}, status=400)
        return web.json_response({"ok": True, "t": time.time()})

    app.router.add_get("/login", login)
    app.router.add_get("/", page)
    app.router.add_get("/state.json", state)
    app.router.add_post("/correct", correct)
    app.router.add_post("/clear", clear)
    return app


def run_in_thread(director: Director, password: str, port: int) -> tuple[Any, int]:
    """Serve the page on 127.0.0.1:port (0: any free port) in a thread; (stop function, port)."""
    import asyncio
    import threading

    loop = asyncio.new_event_loop()
    ready = threading.Event()
    box: dict[str, Any] = {}

    async def start() -> None:
        runner = web.AppRunner(make_app(director, password))
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", port)
        await site.start()
        box["runner"] = runner
        box["port"] = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        ready.set()

    def main() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(start())
        loop.run_forever()

    t = threading.Thread(target=main, daemon=True)
    t.start()
    ready.wait(10)

    def stop() -> None:
        fut = asyncio.run_coroutine_threadsafe(box["runner"].cleanup(), loop)
        fut.result(5)
        loop.call_soon_threadsafe(loop.stop)

    return stop, box["port"]
