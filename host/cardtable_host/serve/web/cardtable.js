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
    // a Nerts card's deck mark ("#2") is not printed on it: it says whose deck in the tooltip
    return { text: m[1] + GLYPH[m[2]], red: !!RED[m[2]], deck: m[3] ? m[3].slice(1) : "" };
  }
  function card(code) {
    const f = face(code);
    const attrs = { class: "card " + (f.red ? "red" : "black") };
    if (f.deck) attrs.title = "from deck " + f.deck;
    return el("span", attrs, f.text);
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

  // Text with its suit glyphs coloured: red hearts and diamonds, black clubs and spades.
  function rich(text) {
    const out = document.createDocumentFragment();
    for (const part of String(text).split(/([\u2663\u2666\u2665\u2660])/)) {
      if (!part) continue;
      if (/^[\u2666\u2665]$/.test(part)) out.append(el("span", { class: "red" }, part));
      else if (/^[\u2663\u2660]$/.test(part)) out.append(el("span", { class: "black" }, part));
      else out.append(part);
    }
    return out;
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
  function follow(onSnapshot, onMessage, onStatus, path) {
    let last = -1;
    let delay = 500;
    function connect() {
      const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + (path || "/ws"));
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

  // One colour per team (or player), the same on every page.
  const TEAM = ["#1f5fbf", "#c0561b", "#2e8b4e", "#8a2c8a", "#a07800", "#0b6c80", "#b03060", "#555"];
  const teamColour = (k) => TEAM[(k || 0) % TEAM.length];

  // A card face: rank and suit glyph (red or black), as a small card.
  function cardFace(code, extra, label) {
    const f = face(code);
    const m = /^(.*?)([\u2663\u2666\u2665\u2660])(.*)$/.exec(f.text);
    const e = el("span", { class: "cardface " + (f.red ? "red" : "black") + (extra ? " " + extra : ""), role: "img",
                           "aria-label": label || cardName(code) });
    if (f.deck) e.title = "from deck " + f.deck;
    if (m) e.append(el("span", { class: "rank" }, m[1] + m[3]), el("span", { class: "pip" }, m[2]));
    else e.append(el("span", { class: "rank" }, f.text));
    if (label) e.append(el("span", { class: "cname" }, label));  // a deck with named cards (the Decktet)
    return e;
  }
  const RANKS = { A: "ace", K: "king", Q: "queen", J: "jack" };
  const SUITS = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
  function cardName(code) {
    const m = /^(10|[2-9AJQK])([CDHS])/.exec(String(code));
    return m ? (RANKS[m[1]] || m[1]) + " of " + SUITS[m[2]] : String(code);
  }

  // Where seat i of n sits round the table, in % of the felt: South first, then clockwise.
  function seatAt(i, n, r, xr) {
    const a = 2 * Math.PI * i / n;
    return { x: 50 - r * xr * Math.sin(a), y: 50 + r * Math.cos(a) };
  }

  // The table drawn for people from the server's reading (cardtable.games.words.reading).
  function drawTable(rd, opts) {
    const felt = document.getElementById("felt");
    for (const x of [...felt.querySelectorAll(".seat, .played")]) x.remove();
    const centre = clear(document.getElementById("centre"));
    const rows = clear(document.getElementById("rows"));
    if (!rd) { centre.append(el("div", { class: "waiting" }, "waiting for a game")); return; }
    const n = rd.seats.length;
    felt.classList.toggle("ring", n > 4);
    const showLast = opts.showLast || (rd.last_winner != null && !rd.seats.some(s => s.card));
    const last = {};
    if (showLast) for (const p of rd.last_trick || []) last[p[0]] = p[1];
    const narrow = felt.clientWidth < 560;
    rd.seats.forEach((s, i) => {
      const at = seatAt(i, n, 40, narrow ? 0.85 : 0.9);
      const box = el("div", { class: "seat" + (s.turn ? " turn" : ""), "data-seat": i,
                              style: "left:" + at.x + "%;top:" + at.y + "%;--team:" + teamColour(s.side) });
      box.append(el("div", { class: "name" }, s.name));
      if (s.turn) box.append(el("div", { class: "toact" }, / (is|are) (to .*)$/.test(rd.turn) ? / (is|are) (to .*)$/.exec(rd.turn)[2] : "to act"));
      if (s.facts && s.facts.length) box.append(el("div", { class: "sfacts" }, s.facts.join(" \u00b7 ")));
      const v = opts.verdicts && opts.verdicts[i];
      if (v) box.append(el("div", { class: "seatverdict" }, rich(v)));
      felt.append(box);
      const code = s.card || last[i];
      if (code) {
        const p = seatAt(i, n, n > 4 ? 24 : 21, narrow ? 0.6 : 0.9);
        const won = !s.card && rd.last_winner === i;
        const c = cardFace(code, (s.card ? "" : "past") + (won ? " won" : ""), (rd.card_names || {})[code]);
        const wrap = el("div", { class: "played", style: "left:" + p.x + "%;top:" + p.y + "%" }, c);
        if (won) wrap.append(el("div", { class: "wonby" }, "wins the trick"));
        felt.append(wrap);
      }
    });
    if (rd.over) centre.append(el("div", { class: "centreword" }, rd.over));
    else if (!rd.seats.some(s => s.card) && !showLast && rd.turn) centre.append(el("div", { class: "centreword" }, rd.turn));
    for (const r of rd.rows || []) {
      const line = el("div", { class: "row" }, el("span", { class: "rowlabel" }, r.label));
      const cards = el("span", { class: "rowcards" });
      (r.cards || []).forEach((c, k) => {
        const cf = cardFace(c, "", (rd.card_names || {})[c]);
        if (r.counts && r.counts[k] != null) cards.append(el("span", { class: "pile" }, cf, el("small", {}, "\u00d7" + r.counts[k])));
        else cards.append(cf);
      });
      line.append(cards);
      rows.append(line);
    }
  }

  function drawFacts(rd, box) {
    clear(box);
    if (!rd) return;
    for (const [label, text] of rd.facts || []) {
      if (label === "hand") continue;
      box.append(el("span", { class: "fact" }, el("b", {}, label[0].toUpperCase() + label.slice(1) + ": "), text));
    }
  }

  function drawSides(rd, box) {
    clear(box);
    if (!rd) return;
    for (let k = 0; k < rd.sides.length; k++) {
      const sd = rd.sides[k];
      box.append(el("span", { class: "side", style: "--team:" + teamColour(k) }, el("span", { class: "sname" }, sd.name),
                    el("span", { class: "sscore" }, sd.score == null ? "\u2013" : String(sd.score))));
    }
  }

  // The score sheet (hands x sides) and the running totals as an SVG graph drawn here.
  function drawSheet(sheet, sideNames, box, graph) {
    clear(box); clear(graph);
    if (!sheet || !sheet.length) { box.append("no hand scored yet"); return; }
    const t = el("table", { class: "sheet" });
    const hr = el("tr", {}, el("th", {}, "Hand"));
    sideNames.forEach((nm, k) => hr.append(el("th", { style: "color:" + teamColour(k) }, nm)));
    if (sheet.some(r => r.note)) hr.append(el("th", {}, "Contract"));
    t.append(el("thead", {}, hr));
    const tb = el("tbody");
    for (const r of sheet) {
      const tr = el("tr", {}, el("td", {}, String(r.hand)));
      r.totals.forEach((x, k) => tr.append(el("td", {}, el("span", { class: "pts" }, (r.points[k] > 0 ? "+" : "") + r.points[k]),
                                                       " ", el("b", {}, String(x)))));
      if (sheet.some(q => q.note)) tr.append(el("td", {}, r.note || ""));
      tb.append(tr);
    }
    t.append(tb);
    box.append(el("div", { class: "scroll" }, t));
    const W = 360, H = 180, P = 28;
    let lo = 0, hi = 1;
    for (const r of sheet) for (const x of r.totals) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
    const X = (i) => P + (W - P - 8) * i / Math.max(1, sheet.length);
    const Y = (v) => H - P - (H - P - 8) * (v - lo) / (hi - lo);
    const svg = document.createElementNS(SVGNS, "svg");
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", "running totals: " + sideNames.map((nm, k) => nm + " " + sheet[sheet.length - 1].totals[k]).join(", "));
    const add = (tag, attrs, text) => {
      const e = document.createElementNS(SVGNS, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      if (text != null) e.textContent = text;
      svg.append(e); return e;
    };
    add("line", { x1: P, y1: Y(0), x2: W - 8, y2: Y(0), stroke: "#999" });
    add("text", { x: 2, y: Y(hi) + 4, "font-size": 11, fill: "#444" }, String(hi));
    add("text", { x: 2, y: Y(lo) + 4, "font-size": 11, fill: "#444" }, String(lo));
    add("text", { x: W - 8, y: H - 6, "font-size": 11, fill: "#444", "text-anchor": "end" }, "hand " + sheet[sheet.length - 1].hand);
    sideNames.forEach((nm, k) => {
      const pts = [[X(0), Y(0)]].concat(sheet.map((r, i) => [X(i + 1), Y(r.totals[k])]));
      add("polyline", { points: pts.map(p => p.join(",")).join(" "), fill: "none", stroke: teamColour(k), "stroke-width": 3 });
      const lastp = pts[pts.length - 1];
      add("circle", { cx: lastp[0], cy: lastp[1], r: 4, fill: teamColour(k) });
    });
    graph.append(svg);
    graph.append(el("div", { class: "legend" }, ...sideNames.map((nm, k) => el("span", { style: "color:" + teamColour(k) }, "\u25a0 " + nm + " " + sheet[sheet.length - 1].totals[k]))));
  }

  function tabs() {
    const buttons = [...document.querySelectorAll(".tabs [role=tab]")];
    for (const b of buttons) {
      b.addEventListener("click", () => {
        for (const o of buttons) {
          o.setAttribute("aria-selected", String(o === b));
          document.getElementById(o.dataset.tab).classList.toggle("hidden", o !== b);
        }
      });
    }
  }

  function tablePage() {
    const st = { view: null, reading: null, names: [], zones: null, faults: {}, connected: false, status: "",
                 sheet: [], showLast: false, verdicts: {}, timers: {}, over: null, zstate: {}, reveals: [] };
    const logBox = document.getElementById("log");
    let svg = null;
    let layoutKey = null;
    tabs();
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
          zoneStatus();
        });
    }
    function log(lines) {
      for (const [text, colour] of lines || []) logBox.append(el("div", { class: colour || "" }, rich(text)));
      while (logBox.childNodes.length > 200) logBox.removeChild(logBox.firstChild);
      logBox.scrollTop = logBox.scrollHeight;
    }
    // A verdict shows at the seat that acted, and goes when that seat's next action is
    // accepted, when the trick moves on, or after a few seconds.
    function verdict(seat, text) {
      const live = document.getElementById("verdict");
      live.textContent = text;
      if (typeof seat !== "number") return;
      st.verdicts[seat] = text;
      clearTimeout(st.timers[seat]);
      st.timers[seat] = setTimeout(() => { delete st.verdicts[seat]; draw(); }, 6000);
    }
    function unverdict(seat) {
      if (st.verdicts[seat] == null) return;
      delete st.verdicts[seat]; clearTimeout(st.timers[seat]);
    }
    function faults() {
      const box = clear(document.getElementById("faults"));
      for (const f of Object.values(st.faults)) {
        if (f.kind === "reader" || f.kind === "journal" || f.kind === "board") box.append(el("div", { class: "fault" }, faultWords(f)));
      }
      zoneStatus();
    }
    function zoneStatus() { drawZoneStatus(st.zones, st.zstate, st.names, document.getElementById("zonestatus"), svg, st.view); }
    function status() {
      const b = document.getElementById("badge");
      b.textContent = st.connected ? "live" : "offline";
      b.className = "badge " + (st.connected ? "live" : "down");
      const s = document.getElementById("status");
      s.textContent = st.connected ? st.archive || "" : st.status || "connecting to the table...";
      s.classList.toggle("hidden", st.connected && !st.archive);
    }
    function draw() {
      const rd = st.reading;
      drawTable(rd, { showLast: st.showLast, verdicts: st.verdicts });
      drawFacts(rd, document.getElementById("facts"));
      drawSides(rd, document.getElementById("sides"));
      drawCards(svg, st.zones, st.view);
      document.getElementById("headline").textContent = rd ? rd.headline : "";
      document.getElementById("turn").textContent = rd ? rd.turn : "";
      lastBtn.classList.toggle("hidden", !(rd && rd.trick && rd.last_trick && rd.last_trick.length));
      const over = document.getElementById("over");
      over.textContent = rd && rd.over ? rd.over : "";
      over.classList.toggle("hidden", !(rd && rd.over));
      if (rd && rd.over && st.over !== rd.over) document.getElementById("verdict").textContent = rd.over;
      st.over = rd ? rd.over : null;
      status();
    }
    function reveals() {
      const box = clear(document.getElementById("reveals"));
      document.getElementById("revealbox").classList.toggle("hidden", !st.reveals.length);
      for (const [hand, hands] of st.reveals.slice().reverse()) {
        const d = el("div", { class: "played-list" }, el("b", {}, "Hand " + hand + ":"));
        hands.forEach((cards, s) => {
          const line = el("div", {}, el("span", { class: "who" }, (st.names[s] || "") + ": "));
          cards.forEach(c => { const f = face(c); line.append(el("span", { class: f.red ? "red" : "black" }, f.text + " ")); });
          d.append(line);
        });
        box.append(d);
      }
    }
    function sheet() {
      const names = st.reading ? st.reading.sides.map(s => s.name) : [];
      if (names.length) drawSheet(st.sheet, names, document.getElementById("sheet"), document.getElementById("graph"));
    }
    const lastBtn = document.getElementById("lasttrick");
    lastBtn.addEventListener("click", () => {
      st.showLast = !st.showLast;
      lastBtn.setAttribute("aria-pressed", String(st.showLast));
      lastBtn.textContent = st.showLast ? "hide the last trick" : "show the last trick";
      draw();
    });
    function trickKey(v) { return v ? JSON.stringify([v.hand_no, (v.last_trick || []).length, (v.tricks_won || [])]) : ""; }
    follow((snap) => {
      st.view = snap.view; st.reading = snap.reading; st.names = snap.names || [];
      st.connected = snap.connected; st.status = snap.status; st.faults = {}; st.sheet = snap.sheet || []; st.archive = snap.archive_status || "";
      for (const f of snap.faults || []) {
        st.faults[f.kind + " " + (f.zone || "")] = f;
        if (f.zone) st.zstate[f.zone] = [faultStatus(f), false];
      }
      document.getElementById("title").textContent = snap.table || "cardtable";
      clear(logBox); log(snap.log);
      loadDrawing(snap.board, snap.layout);
      st.reveals = snap.reveals || [];
      draw(); faults(); sheet(); reveals();
    }, (msg) => {
      st.connected = msg.connected; st.status = msg.status;
      if (msg.type === "note") st.archive = msg.archive_status || "";
      if (msg.type === "state") {
        if (trickKey(st.view) !== trickKey(msg.view)) { st.verdicts = {}; }
        st.view = msg.view; st.reading = msg.reading || st.reading;
        if (msg.names) st.names = msg.names;
      }
      if (msg.type === "verdict") verdict(msg.seat, msg.words || "");
      if (msg.type === "event" && msg.action && typeof msg.action.seat === "number") unverdict(msg.action.seat);
      const src = /^zone (\S+)$/.exec(String(msg.from || ""));
      if (src && (msg.type === "event" || msg.type === "verdict")) {
        const card = msg.action && msg.action.card;
        st.zstate[src[1]] = ["card read" + (card ? ": " + face(card).text : ""), true];
        zoneStatus();
      }
      if (msg.sheet) { st.sheet = msg.sheet; if (!msg.sheet.length) { st.reveals = []; reveals(); } }
      if (msg.type === "reveal") { st.reveals.push([msg.hand, msg.hands]); reveals(); }
      if (msg.type === "hello" && msg.board) loadDrawing(msg.board, msg.layout);
      if (msg.type === "fault") {
        const key = msg.kind + " " + (msg.zone || "");
        if (msg.cleared) delete st.faults[key]; else st.faults[key] = msg;
        if (msg.zone) st.zstate[msg.zone] = msg.cleared ? ["reader answers again", true] : [faultStatus(msg), false];
        faults();
      }
      log(msg.lines);
      draw();
      if (msg.sheet || msg.type === "state") sheet();
    }, (up) => { st.connected = up && st.connected; st.status = "the page lost the server: reconnecting..."; status(); });
    scorekeeper(() => st.view);
  }

  // A fault from the board in words, and the read status it gives its pad.
  function faultStatus(f) {
    const m = String(f.msg || "");
    if (f.kind === "reader") return /stuck|bus|SDA|SCL/i.test(m) ? "bus stuck" : "reader down";
    if (f.kind === "tag") return "tag not enrolled";
    if (f.kind === "two_tags") return "two tags on one pad";
    if (f.kind === "duplicate") return "two tags claim one card";
    if (f.kind === "torn") return "card lifted before it was read";
    if (f.kind === "journal") return "journal trouble";
    return "board warning";
  }
  function faultWords(f) {
    const m = String(f.msg || "").replace(/^zone \S+: /, "");
    return faultStatus(f) + (f.zone ? " at pad " + f.zone : "") + (m ? ": " + m : "");
  }

  // The maker's view: each pad's read status, from the faults the board reports and the cards
  // it reads (zstate: pad -> [status, good]).
  function drawZoneStatus(zones, zstate, names, box, svg, view) {
    if (!box) return;
    clear(box);
    if (!zones) { box.append("no drawing of this board"); return; }
    const t = el("table", { class: "zones" }, el("thead", {}, el("tr", {}, el("th", {}, "pad"), el("th", {}, "for"), el("th", {}, "status"))));
    const tb = el("tbody");
    let g = svg ? svg.querySelector("#zstat") : null;
    if (svg && !g) { g = document.createElementNS(SVGNS, "g"); g.setAttribute("id", "zstat"); svg.append(g); }
    if (g) while (g.firstChild) g.removeChild(g.firstChild);
    for (const name of Object.keys(zones).sort()) {
      const z = zones[name];
      const lying = z.role === "play" && view && (view.trick || []).find(p => p[0] === z.seat);
      const [word, good] = zstate[name] || (lying ? ["card read: " + face(lying[1]).text, true] : ["waiting for a card", true]);
      const role = z.role + (typeof z.seat === "number" ? " \u00b7 " + (names[z.seat] || "place " + (z.seat + 1)) : "");
      tb.append(el("tr", { class: good ? "ok" : "bad" }, el("td", {}, name), el("td", {}, role), el("td", {}, word)));
      if (g && (zstate[name] || lying)) {
        const r = document.createElementNS(SVGNS, "rect");
        for (const [k, v] of Object.entries({ x: z.x - z.w / 2 - 9, y: z.y - z.h / 2 - 9, width: z.w + 18, height: z.h + 18, rx: 10,
          fill: "none", stroke: good ? "#2e9e55" : "#c8102e", "stroke-width": 4, "stroke-dasharray": good ? "" : "8 5" })) r.setAttribute(k, v);
        g.append(r);
      }
    }
    t.append(tb);
    box.append(el("div", { class: "scroll" }, t));
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
        if (c === "new") send({ cmd: "new" });
        else if (c === "pass") send({ cmd: "act", action: { seat: seat, act: "pass" } });
        else if (c === "bid") {
          const t = document.getElementById("bid").value.trim();
          send({ cmd: "act", action: { seat: seat, act: "bid", bid: /^\d+$/.test(t) ? Number(t) : t } });
        }
      });
    }
  }

  // The overlay for streaming software: ?corner=bl|br|tl|tr&scale=1.5&parts=names,trick,bid,turn,scores
  function overlayPage() {
    const q = new URLSearchParams(location.search);
    const box = document.getElementById("ov");
    const corner = q.get("corner") || "bl";
    if (/^(bl|br|tl|tr)$/.test(corner)) box.className = "ov " + corner;
    const scale = parseFloat(q.get("scale") || "1");
    if (scale > 0.2 && scale < 5) box.style.transform = "scale(" + scale + ")";
    const parts = new Set((q.get("parts") || "names,trick,bid,turn,scores").split(","));
    for (const e of box.querySelectorAll("[data-part]")) e.classList.toggle("hidden", !parts.has(e.dataset.part));
    let rd = null;
    function draw() {
      const head = clear(document.getElementById("ovhead"));
      const names = clear(document.getElementById("ovnames"));
      const sc = clear(document.getElementById("ovscores"));
      document.getElementById("ovturn").textContent = rd ? (rd.over || rd.turn) : "";
      if (!rd) { head.append("waiting for a game"); return; }
      const facts = {};
      for (const [k, v] of rd.facts) facts[k] = v;
      head.append(el("b", {}, rd.game), rich((facts.hand ? " \u00b7 hand " + facts.hand : "") +
        (facts.contract ? " \u00b7 " + facts.contract : "") + (facts.trump ? " \u00b7 trump " + facts.trump : "")));
      const lastWon = rd.last_winner;
      const last = {};
      if (!rd.seats.some(s => s.card)) for (const p of rd.last_trick || []) last[p[0]] = p[1];
      rd.seats.forEach((s, i) => {
        const slot = el("div", { class: "ovplay" + (s.turn ? " turn" : ""), style: "--team:" + teamColour(s.side) },
                        el("span", { class: "who" }, (s.turn ? "\u25b8 " : "") + s.name));
        const code = s.card || last[i];
        if (parts.has("trick")) {
          if (code) slot.append(cardFace(code, (s.card ? "" : "past") + (!s.card && lastWon === i ? " won" : ""), (rd.card_names || {})[code]));
          else slot.append(el("span", { class: "cardface empty" }, ""));
        }
        names.append(slot);
      });
      rd.sides.forEach((sd, k) => sc.append(el("span", { style: "--team:" + teamColour(k) }, sd.name + " " + (sd.score == null ? "\u2013" : sd.score))));
    }
    follow((snap) => { rd = snap.reading; draw(); },
           (msg) => { if (msg.type === "state" && msg.reading) { rd = msg.reading; draw(); } }, () => {}, "/ws/overlay");
  }

  // Times as people read them: the viewer's local date and time, a length in minutes.
  function when(iso) {
    const d = iso ? new Date(iso) : null;
    if (!d || isNaN(d)) return "";
    return d.toLocaleString(undefined, { weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });
  }
  function localDate(iso) {
    const d = iso ? new Date(iso) : null;
    if (!d || isNaN(d)) return "";
    const p = (x) => String(x).padStart(2, "0");
    return d.getFullYear() + "-" + p(d.getMonth() + 1) + "-" + p(d.getDate());
  }
  // A game's undos by consent: each action taken back, who asked, who agreed (or the
  // scorekeeper's override), when.
  function undoList(undos) {
    if (!(undos || []).length) return el("span", { class: "noundo" }, "none");
    const ul = el("ul", { class: "undos" });
    for (const u of undos) {
      const at = u.at ? new Date(u.at) : null;
      const time = at && !isNaN(at) ? " at " + at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : "";
      const agreed = u.agreed === "the scorekeeper's override" ? "by the scorekeeper's override" : "agreed by " + u.agreed;
      ul.append(el("li", {}, el("b", {}, rich(u.undone)), " \u2014 asked by " + u.asked + ", " + agreed + time));
    }
    return ul;
  }
  function length(sec) {
    if (typeof sec !== "number") return "";
    if (sec < 60) return sec + " s";
    const m = Math.round(sec / 60);
    return m < 60 ? m + " min" : Math.floor(m / 60) + " h " + (m % 60) + " min";
  }

  function archivePage() {
    let games = [];
    const fp = document.getElementById("fplayer"), fg = document.getElementById("fgame"), fd = document.getElementById("fdate");
    function show() {
      const box = clear(document.getElementById("games"));
      const who = fp.value.trim().toLowerCase();
      const shown = games.filter(g => (!who || g.players.some(p => p.toLowerCase().includes(who))) &&
        (!fg.value || g.title === fg.value) && (!fd.value || localDate(g.header.end || g.header.start) === fd.value));
      document.getElementById("count").textContent = games.length ? "Finished games: " + shown.length + " of " + games.length : "Finished games";
      if (!games.length) { box.append("No game has finished at this table yet."); return; }
      if (!shown.length) { box.append("No game matches."); return; }
      const heads = ["No.", "When", "Table", "Players", "Game", "Result", "Length", "Referee", "Undone", "Record"];
      const t = el("table", { class: "list" }, el("thead", {}, el("tr", {}, ...heads.map(h => el("th", {}, h)))));
      const tb = el("tbody");
      for (const g of shown) {
        const h = g.header;
        const cell = (i, ...kids) => el("td", { "data-label": heads[i] }, ...kids);
        tb.append(el("tr", {},
          cell(0, el("a", { href: "/archive/" + g.number }, "game " + g.number)),
          cell(1, when(h.end || h.start)), cell(2, h.table || "\u2013"), cell(3, g.players.join(", ")),
          cell(4, g.title), cell(5, rich(g.result)), cell(6, length(g.seconds)),
          cell(7, g.ok ? "all legal" : g.problems + (g.problems === 1 ? " problem" : " problems")),
          cell(8, undoList(g.undos)),
          cell(9, el("a", { href: "/archive/" + g.number + ".jsonl" }, "download"))));
      }
      t.append(tb);
      box.append(t);
    }
    fetch("/archive.json").then(r => r.json()).then((list) => {
      games = list;
      for (const t of [...new Set(list.map(g => g.title))].sort()) fg.append(el("option", { value: t }, t));
      show();
    }).catch(() => { clear(document.getElementById("games")).append("The archive could not be read."); });
    for (const f of [fp, fg, fd]) f.addEventListener("input", show);
  }

  // A hand's trick grid: names as column heads, the leader and the winner marked, revokes flagged.
  function gridTable(g) {
    const t = el("table", { class: "grid" });
    t.append(el("caption", {}, "Hand " + g.hand));
    t.append(el("thead", {}, el("tr", {}, el("th", {}, "Trick"), ...g.columns.map(c => el("th", {}, c)))));
    const tb = el("tbody");
    for (const row of g.tricks) {
      const tr = el("tr", {}, el("th", {}, String(row.trick)));
      for (const c of row.cells) {
        if (!c) { tr.append(el("td", {}, "")); continue; }
        const f = face(c.card);
        const td = el("td", { class: (c.won ? "won " : "") + (c.revoke ? "revoke" : ""), title: "line " + c.line },
                      c.led ? el("span", { class: "mark", title: "led" }, "\u25b8") : "",
                      el("span", { class: f.red ? "red" : "black" }, f.text),
                      c.won ? el("span", { class: "mark" }, " \u2605") : "",
                      c.revoke ? el("span", { class: "revokemark" }, " revoke") : "");
        tr.append(td);
      }
      tb.append(tr);
    }
    t.append(tb);
    return el("div", { class: "scroll" }, t);
  }

  function gamePage() {
    const n = /\/archive\/(\d+)/.exec(location.pathname)[1];
    document.getElementById("download").href = "/archive/" + n + ".jsonl";
    let steps = [], i = 0;
    function show() {
      const s = steps[i];
      drawTable(s.reading, {});
      drawFacts(s.reading, document.getElementById("facts"));
      document.getElementById("where").textContent = i === 0 ? "Before the first action" :
        "Step " + i + " of " + (steps.length - 1) + " (record line " + s.line + ")" + (s.trick ? ", " + s.trick + (s.trick === 1 ? " trick" : " tricks") + " played" : "");
      const w = clear(document.getElementById("words"));
      for (const t of s.words) w.append(el("div", { class: s.rejected ? "verdictline" : "" }, rich(t)));
    }
    function toTrick(dir) {
      const t = steps[i].trick;
      let j = i + dir;
      while (j > 0 && j < steps.length - 1 && steps[j].trick === t) j += dir;
      i = Math.max(0, Math.min(steps.length - 1, j)); show();
    }
    fetch("/archive/" + n + "/referee.json").then(r => r.json()).then((rf) => {
      const h = rf.header;
      document.getElementById("title").textContent = rf.title + (h.table ? " at " + h.table : "") + ", game " + rf.number;
      const occ = document.getElementById("occasion");
      const fact = (label, text) => occ.append(el("span", { class: "fact" }, el("b", {}, label + ": "), text));
      fact("Players", rf.players.join(", "));
      if (rf.teams) fact("Partners", rf.sides.join(" against "));
      if (h.start) fact("Started", when(h.start));
      if (rf.seconds != null) fact("Length", length(rf.seconds));
      clear(document.getElementById("result")).append(rich(rf.result));
      const vb = clear(document.getElementById("verdictbox"));
      for (const v of rf.verdict) vb.append(el("p", { class: rf.ok ? "" : "verdictline" }, rich(v)));
      drawSheet(rf.sheet, rf.sides, document.getElementById("sheet"), document.getElementById("graph"));
      clear(document.getElementById("undos")).append(undoList(rf.undos));
      const gb = clear(document.getElementById("grids"));
      if (!rf.grids.length) gb.append("This game has no tricks.");
      rf.grids.forEach((g, k) => {
        gb.append(gridTable(g));
        const pl = rf.played[k];
        const dl = el("div", { class: "played-list" });
        const list = (title, hands) => {
          dl.append(el("b", {}, title + " in hand " + g.hand + ":"));
          hands.forEach((cards, s) => {
            const line = el("div", {}, el("span", { class: "who" }, g.columns[s] + ": "));
            cards.forEach(c => { const f = face(c); line.append(el("span", { class: f.red ? "red" : "black" }, f.text + " ")); });
            dl.append(line);
          });
        };
        if (pl.dealt) list("The hands dealt", pl.dealt);
        list("The cards played", pl.cards);
        gb.append(dl);
      });
    }).catch(() => { document.getElementById("result").textContent = "The record could not be read."; });
    fetch("/archive/" + n + ".json").then(r => r.json()).then((rp) => { steps = rp.steps; i = 0; show(); });
    const go = (id, f) => document.getElementById(id).addEventListener("click", f);
    go("first", () => { i = 0; show(); }); go("last", () => { i = steps.length - 1; show(); });
    go("prev", () => { i = Math.max(0, i - 1); show(); }); go("next", () => { i = Math.min(steps.length - 1, i + 1); show(); });
    go("prevtrick", () => toTrick(-1)); go("nexttrick", () => toTrick(1));
  }

  return { tablePage, overlayPage, archivePage, gamePage, face, cardFace, drawTable, drawSheet, teamColour };
})();
