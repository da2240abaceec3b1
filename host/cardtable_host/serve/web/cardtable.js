// cardtable serve's pages: the live table, the overlay, the archive. Spectators only read:
// nothing here sends a command on the socket; the scorekeeper's panel posts to /control with
// the secret given in the page's address (#secret=...).
"use strict";
const Cardtable = (() => {
  const GLYPH = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  const RED = { D: true, H: true };
  const SVGNS = "http://www.w3.org/2000/svg";

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else e.setAttribute(k, v);
    }
    for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
    return e;
  }

  // A card code in words and colour: 10H -> 10♥ (red); AS#2 -> A♠ (deck 2); others as they are.
  function face(code) {
    const m = /^(10|[2-9AJQK])([CDHS])(#\d+)?$/.exec(String(code));
    if (!m) return { text: String(code), red: false };
    return { text: m[1] + GLYPH[m[2]] + (m[3] || ""), red: !!RED[m[2]] };
  }
  function card(code) {
    const f = face(code);
    return el("span", { class: "card " + (f.red ? "red" : "black") }, f.text);
  }
  function suitWord(s) {
    if (GLYPH[s]) { const e = el("span", { class: RED[s] ? "red" : "black" }, GLYPH[s]); return e; }
    return document.createTextNode(String(s));
  }

  function seatName(s, names, players) {
    if (typeof s !== "number") return String(s);
    const p = players && players[s];
    const n = names && names[s];
    return "seat " + s + (p ? " " + p : n ? " " + n : "");
  }

  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }

  // The spectator view (the board's view(None)) as the seats table and the facts.
  function renderView(view, names, players) {
    const seatsBox = clear(document.getElementById("seats"));
    const facts = clear(document.getElementById("facts"));
    const over = document.getElementById("over");
    if (!view) { seatsBox.append("no game yet"); over.textContent = ""; return; }
    const n = view.seats || 0;
    const turn = view.turn || [];
    const trick = {};
    for (const p of view.trick || []) trick[p[0]] = p[1];
    const head = ["seat"];
    const cols = [];
    const add = (key, label) => { if (Array.isArray(view[key])) { head.push(label); cols.push(key); } };
    add("held", "cards"); add("tricks_won", "tricks"); add("in_center", "in centre");
    add("nerts_left", "nerts left"); add("scores", "score");
    if (view.trick) head.push("in the trick");
    const t = el("table", { class: "seats" });
    t.append(el("tr", {}, ...head.map(h => el("th", {}, h))));
    for (let s = 0; s < n; s++) {
      const tr = el("tr", { class: turn.includes(s) ? "turn" : "" },
                    el("td", {}, (turn.includes(s) ? "\u25b6 " : "") + seatName(s, names, players)));
      for (const c of cols) tr.append(el("td", {}, view[c][s] == null ? "" : view[c][s]));
      if (view.trick) tr.append(el("td", {}, trick[s] ? card(trick[s]) : ""));
      t.append(tr);
    }
    seatsBox.append(t);
    if (view.over) {
      const w = view.winner;
      over.textContent = "Game over: " + (w == null ? "a draw" :
        Array.isArray(view.team_scores) ? "seats " + (w % 2) + " & " + (w % 2 + 2) + " win" : seatName(w, names, players) + " wins");
    } else over.textContent = "";
    const fact = (label, value) => facts.append(el("span", {}, label + " ", value));
    fact("game", view.game);
    if (view.hand_no != null) fact("hand", view.hand_no);
    if (view.phase) fact("phase", view.phase);
    if (view.dealer != null) fact("dealer", seatName(view.dealer, names, players));
    if (view.trump) fact("trump", suitWord(view.trump));
    if (view.bidder != null && view.bidder >= 0) fact("bid", view.bid + " by " + seatName(view.bidder, names, players));
    if (Array.isArray(view.bids) && view.bids.length) {
      fact("bids", view.bids.map(b => Array.isArray(b) ? seatName(b[0], names, players) + " " + b[1] : b).join(", "));
    }
    if (Array.isArray(view.team_scores)) fact("teams", "0&2: " + view.team_scores[0] + "  1&3: " + view.team_scores[1]);
    if (Array.isArray(view.up) && view.up.length) { const s = el("span", {}, "up "); view.up.forEach(c => s.append(card(c))); facts.append(s); }
    if (Array.isArray(view.last_trick) && view.last_trick.length) {
      const s = el("span", {}, "last trick "); view.last_trick.forEach(p => s.append(card(p[1]))); facts.append(s);
    }
    if (Array.isArray(view.center) && view.center.length) {
      const s = el("span", {}, "centre "); view.center.forEach(p => s.append(card(p[0]), "\u00d7" + p[1] + " ")); facts.append(s);
    }
    for (const k of ["nexus", "parade"]) {
      if (Array.isArray(view[k]) && view[k].length) { const s = el("span", {}, k + " "); view[k].forEach(c => s.append(card(c))); facts.append(s); }
    }
    for (const [k, label] of [["kitty_left", "kitty"], ["stock_left", "stock"], ["deck", "deck"], ["round", "round"], ["led", "led"]]) {
      if (view[k] != null && typeof view[k] !== "object") fact(label, view[k]);
    }
    if (view.caller != null) fact("Nerts! called by", seatName(view.caller, names, players));
    if (Array.isArray(view.revokes) && view.revokes.length) fact("revokes", JSON.stringify(view.revokes));
  }

  // Live cards on the board's own drawing: the trick in the play zones, up cards on theirs.
  function drawCards(svg, zones, view) {
    if (!svg || !zones) return;
    let g = svg.querySelector("#live");
    if (!g) { g = document.createElementNS(SVGNS, "g"); g.setAttribute("id", "live"); svg.append(g); }
    while (g.firstChild) g.removeChild(g.firstChild);
    if (!view) return;
    const turn = view.turn || [];
    const trick = {};
    for (const p of view.trick || []) trick[p[0]] = p[1];
    const up = (view.up || []).slice();
    const centre = (view.center || []).map(p => p[0]);  // Nerts: the centre piles' top cards
    const names = Object.keys(zones).sort();
    for (const name of names) {
      const z = zones[name];
      let code = null;
      if (z.role === "play" && trick[z.seat] != null) code = trick[z.seat];
      else if ((z.role === "up" || z.role === "indicator") && up.length) code = up.shift();
      else if (z.role === "foundation" && centre.length) code = centre.shift();
      if (z.role === "play" && turn.includes(z.seat) && !view.over) {
        const r = document.createElementNS(SVGNS, "rect");
        for (const [k, v] of Object.entries({ x: z.x - z.w / 2 - 5, y: z.y - z.h / 2 - 5, width: z.w + 10,
          height: z.h + 10, rx: 8, fill: "none", stroke: "#e0a800", "stroke-width": 5 })) r.setAttribute(k, v);
        g.append(r);
      }
      if (code == null) continue;
      const f = face(code);
      const r = document.createElementNS(SVGNS, "rect");
      for (const [k, v] of Object.entries({ x: z.x - z.w / 2, y: z.y - z.h / 2, width: z.w, height: z.h, rx: 5,
        fill: "#fffdf6", stroke: "#333", "stroke-width": 2 })) r.setAttribute(k, v);
      const t = document.createElementNS(SVGNS, "text");
      for (const [k, v] of Object.entries({ x: z.x, y: z.y + 10, "text-anchor": "middle", "font-size": 26,
        "font-weight": "bold", fill: f.red ? "#c8102e" : "#111", class: "livecard" })) t.setAttribute(k, v);
      t.textContent = f.text;
      g.append(r, t);
    }
  }

  // The live feed: a snapshot, then every message in order (numbered n; older ones skipped).
  function follow(onSnapshot, onMessage, onStatus) {
    let last = -1;
    let delay = 500;
    function connect() {
      const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
      ws.onmessage = (e) => {
        let msg;
        try { msg = JSON.parse(e.data); } catch (err) { return; }
        if (msg.type === "snapshot") { last = msg.n; delay = 500; onSnapshot(msg); return; }
        if (msg.type === "refused" || typeof msg.n !== "number" || msg.n <= last) return;
        last = msg.n;
        onMessage(msg);
      };
      ws.onclose = () => { onStatus(false); setTimeout(connect, delay); delay = Math.min(delay * 2, 5000); };
    }
    connect();
  }

  function tablePage() {
    const st = { view: null, names: [], players: [], zones: null, faults: {}, connected: false, status: "" };
    const logBox = document.getElementById("log");
    let svg = null;
    let layoutKey = null;
    function loadDrawing(board, layout) {
      const key = board + "/" + layout;
      if (!board || key === layoutKey) return;
      layoutKey = key;
      Promise.all([fetch("/layout.svg").then(r => r.ok ? r.text() : ""), fetch("/layout.json").then(r => r.ok ? r.json() : null)])
        .then(([text, zones]) => {
          const box = document.getElementById("drawing");
          box.innerHTML = text;  // our own server's drawing of firmware/boards
          svg = box.querySelector("svg");
          if (svg) { svg.removeAttribute("width"); svg.removeAttribute("height"); }
          st.zones = zones;
          drawCards(svg, st.zones, st.view);
        });
    }
    function log(lines) {
      for (const [text, colour] of lines || []) {
        logBox.append(el("div", { class: colour || "" }, text));
        if (text.startsWith("REJECTED")) showVerdict(text);
      }
      while (logBox.childNodes.length > 200) logBox.removeChild(logBox.firstChild);
      logBox.scrollTop = logBox.scrollHeight;
    }
    let verdictTimer = null;
    function showVerdict(text) {
      const v = document.getElementById("verdict");
      v.textContent = text;
      v.classList.remove("hidden");
      clearTimeout(verdictTimer);
      verdictTimer = setTimeout(() => v.classList.add("hidden"), 8000);
    }
    function faults() {
      const box = clear(document.getElementById("faults"));
      for (const f of Object.values(st.faults)) {
        box.append(el("div", { class: "fault" }, "FAULT " + f.kind + (f.zone ? " at " + f.zone : "") + ": " + f.msg));
      }
    }
    function status() {
      const b = document.getElementById("badge");
      b.textContent = st.connected ? "live" : "offline";
      b.className = "badge " + (st.connected ? "live" : "down");
      const s = document.getElementById("status");
      s.textContent = st.connected ? "" : st.status || "connecting to the table...";
      s.classList.toggle("hidden", st.connected);
    }
    function draw() {
      renderView(st.view, st.names, st.players);
      drawCards(svg, st.zones, st.view);
      const v = st.view || {};
      document.getElementById("headline").textContent = v.game ? v.game + (v.hand_no != null ? " \u00b7 hand " + v.hand_no : "") : "";
      status();
    }
    follow((snap) => {
      st.view = snap.view; st.names = snap.seat_names || []; st.players = snap.players || [];
      st.connected = snap.connected; st.status = snap.status; st.faults = {};
      for (const f of snap.faults || []) st.faults[f.kind + " " + (f.zone || "")] = f;
      document.getElementById("title").textContent = snap.table || "cardtable";
      clear(logBox); log(snap.log);
      loadDrawing(snap.board, snap.layout);
      draw(); faults();
    }, (msg) => {
      st.connected = msg.connected; st.status = msg.status;
      if (msg.type === "state") st.view = msg.view;
      if (msg.type === "hello" && msg.board) loadDrawing(msg.board, msg.layout);
      if (msg.type === "fault") {
        const key = msg.kind + " " + (msg.zone || "");
        if (msg.cleared) delete st.faults[key]; else st.faults[key] = msg;
        faults();
      }
      log(msg.lines);
      draw();
    }, (up) => { st.connected = up && st.connected; st.status = "the page lost the server: reconnecting..."; status(); });
    scorekeeper(() => st.view);
  }

  function scorekeeper(view) {
    const m = /secret=([^&]+)/.exec(location.hash);
    if (!m) return;
    const secret = decodeURIComponent(m[1]);
    document.getElementById("scorekeeper").classList.remove("hidden");
    const say = (t) => { document.getElementById("skmsg").textContent = t; };
    async function send(cmd) {
      const r = await fetch("/control", { method: "POST", headers: { "Content-Type": "application/json", "X-Cardtable-Secret": secret }, body: JSON.stringify(cmd) });
      const j = await r.json();
      say(j.ok ? "done" : "refused: " + j.error);
    }
    for (const b of document.querySelectorAll("#scorekeeper button")) {
      b.addEventListener("click", () => {
        const v = view() || {};
        const seat = (v.turn || [])[0];
        const c = b.dataset.cmd;
        if (c === "undo") send({ cmd: "undo" });
        else if (c === "new") send({ cmd: "new" });
        else if (c === "pass") send({ cmd: "act", action: { seat: seat, act: "pass" } });
        else if (c === "bid") {
          const t = document.getElementById("bid").value.trim();
          send({ cmd: "act", action: { seat: seat, act: "bid", bid: /^\d+$/.test(t) ? Number(t) : t } });
        }
      });
    }
  }

  function overlayPage() {
    let view = null, players = [], names = [];
    function draw() {
      const v = view || {};
      document.getElementById("ovhead").textContent = (v.game || "") + (v.hand_no != null ? " \u00b7 hand " + v.hand_no : "") +
        (v.trump ? " \u00b7 trump " + face("A" + v.trump).text.slice(1) : "");
      const tr = clear(document.getElementById("ovtrick"));
      for (const p of v.trick || []) tr.append(card(p[1]));
      for (const p of v.center || []) tr.append(card(p[0]));
      const sc = clear(document.getElementById("ovscores"));
      const scores = v.team_scores ? [["0&2", v.team_scores[0]], ["1&3", v.team_scores[1]]] :
        (v.scores || []).map((x, i) => [players[i] || names[i] || "seat " + i, x]);
      for (const [who, x] of scores) sc.append(el("span", {}, who + ": " + x));
    }
    follow((snap) => { view = snap.view; players = snap.players || []; names = snap.seat_names || []; draw(); },
           (msg) => { if (msg.type === "state") { view = msg.view; draw(); } }, () => {});
  }

  function archivePage() {
    fetch("/archive.json").then(r => r.json()).then((games) => {
      const box = clear(document.getElementById("games"));
      if (!games.length) { box.append("no finished game yet"); return; }
      const t = el("table", { class: "seats" }, el("tr", {}, ...["#", "game", "table", "players", "ended", "scores", "verdict", ""].map(h => el("th", {}, h))));
      for (const g of games) {
        const h = g.header;
        t.append(el("tr", {},
          el("td", {}, el("a", { href: "/archive/" + g.number }, String(g.number))),
          el("td", {}, h.game), el("td", {}, h.table || ""), el("td", {}, (h.players || []).map(p => p || "-").join(", ")),
          el("td", {}, h.end || ""), el("td", {}, JSON.stringify(g.scores)),
          el("td", {}, g.ok ? "all legal" : "something was rejected"),
          el("td", {}, el("a", { href: "/archive/" + g.number + ".jsonl" }, "record"))));
      }
      box.append(t);
    });
  }

  function gamePage() {
    const n = /\/archive\/(\d+)/.exec(location.pathname)[1];
    document.getElementById("download").href = "/archive/" + n + ".jsonl";
    document.getElementById("title").textContent = "Game " + n;
    let steps = [], i = 0, players = [];
    function show() {
      const s = steps[i];
      renderView(s.view, [], players);
      document.getElementById("where").textContent = "step " + i + " of " + (steps.length - 1) + ", record line " + s.line + ", tricks done " + s.trick;
      const w = clear(document.getElementById("words"));
      for (const t of s.words) w.append(el("div", { class: s.rejected ? "verdict" : "" }, t));
    }
    function toTrick(dir) {
      const t = steps[i].trick;
      let j = i + dir;
      while (j > 0 && j < steps.length - 1 && steps[j].trick === t) j += dir;
      i = Math.max(0, Math.min(steps.length - 1, j)); show();
    }
    fetch("/archive/" + n + ".json").then(r => r.json()).then((rp) => {
      steps = rp.steps; players = rp.header.players || [];
      const h = rp.header;
      const occ = document.getElementById("occasion");
      occ.append(el("div", {}, "game " + h.game + ", " + h.seats + " seats"), el("div", {}, "table: " + (h.table || "-")),
                 el("div", {}, "players: " + (h.players || []).map(p => p || "-").join(", ")),
                 el("div", {}, "from " + (h.start || "?") + " to " + (h.end || "?")));
      show();
    });
    fetch("/archive/" + n + "/verdict.json").then(r => r.json()).then((v) => {
      const box = clear(document.getElementById("verdictbox"));
      box.append(el("div", { class: "over" }, v.ok ? "Every action was legal." : "Something was rejected or a revoke was proven."));
      for (const r of v.rejected || []) box.append(el("div", { class: "verdict" }, "line " + r.line + ": seat " + r.seat + ": " + r.reason));
      for (const r of v.revokes || []) box.append(el("div", { class: "verdict" }, "REVOKE: seat " + r.seat + " in trick " + r.trick + " (line " + r.line + ")"));
      box.append(el("div", {}, "scores: " + JSON.stringify(v.scores)), el("div", {}, "winner: " + (v.winner == null ? "none" : v.winner)));
      if (v.tricks) box.append(el("div", {}, "tricks won by: " + v.tricks.join(" ")));
    });
    const go = (id, f) => document.getElementById(id).addEventListener("click", f);
    go("first", () => { i = 0; show(); }); go("last", () => { i = steps.length - 1; show(); });
    go("prev", () => { i = Math.max(0, i - 1); show(); }); go("next", () => { i = Math.min(steps.length - 1, i + 1); show(); });
    go("prevtrick", () => toTrick(-1)); go("nexttrick", () => toTrick(1));
  }

  return { tablePage, overlayPage, archivePage, gamePage, face };
})();
