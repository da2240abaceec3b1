// cardtable serve: a player's own seat page. It reads its seat's view alone (the board's view for
// this seat, through /seat/N/ws with the seat's code) and sends nothing.
"use strict";
const Seat = (() => {
  const GLYPH = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  const RED = { D: true, H: true };

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else e.setAttribute(k, v);
    }
    for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
    return e;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }

  // A card code as a player reads it: 10H -> 10♥ in red; other decks' codes as they are.
  function card(code) {
    const m = /^(10|[2-9AJQK])([CDHS])(#\d+)?$/.exec(String(code));
    const text = m ? m[1] + GLYPH[m[2]] + (m[3] || "") : String(code);
    return el("span", { class: "card " + (m && RED[m[2]] ? "red" : "black"), "data-code": String(code) }, text);
  }

  const state = { msg: null, heard: undefined, question: null, asked: undefined };

  // The seat's say button at the table: its hand and the trick, said on this phone alone (the
  // room's loudspeaker says the trick only: a hand said aloud is told to every player). Each
  // press once, as it happens (not the one already answered when the page opened).
  function sayAsked(m) {
    const key = m.say ? String(m.say.n) : null;
    if (state.asked === undefined || key === state.asked || !m.say) { state.asked = key; return; }
    state.asked = key;
    document.getElementById("asked").textContent = m.say.text;
    try {
      if (window.speechSynthesis && window.SpeechSynthesisUtterance) {
        const u = new SpeechSynthesisUtterance(m.say.text);
        u.lang = document.documentElement.lang || "en";
        window.speechSynthesis.speak(u);
      }
    } catch (e) { /* a phone without speech: the words are on the page all the same */ }
  }

  // This seat's verdicts aloud (the browser's speech synthesis) and a buzz on a refusal: each
  // verdict once, as it happens (not the one already standing when the page opened).
  function speak(m) {
    const v = m.verdict;
    const key = v ? String(v.n) : null;
    if (state.heard === undefined) { state.heard = key; return; }
    if (!v || key === state.heard) { state.heard = key; return; }
    state.heard = key;
    try {
      if (window.speechSynthesis && window.SpeechSynthesisUtterance) {
        const u = new SpeechSynthesisUtterance(v.spoken || v.text);
        u.lang = document.documentElement.lang || "en";
        window.speechSynthesis.speak(u);  // the browser queues: no verdict cuts another
      }
      if (navigator.vibrate) navigator.vibrate([200, 100, 200]);
    } catch (e) { /* a phone without speech: the verdict is on the page all the same */ }
  }

  function draw() {
    const m = state.msg;
    if (!m) return;
    const w = m.words || {};
    document.getElementById("who").textContent = m.name + (m.table ? " \u00b7 " + m.table : "");
    document.title = "cardtable: " + m.name;
    const badge = document.getElementById("badge");
    badge.textContent = m.connected ? "live" : "board gone";
    badge.className = "badge " + (m.connected ? "live" : "down");
    const st = document.getElementById("status");
    st.textContent = m.connected ? "" : (m.status || "");
    st.classList.toggle("hidden", !!m.connected);
    const tb = document.getElementById("turnbox");
    document.getElementById("turn").textContent = w.turn ? w.turn.charAt(0).toUpperCase() + w.turn.slice(1) : "";
    tb.classList.toggle("mine", !!w.my_turn);
    const v = document.getElementById("verdict");
    v.textContent = m.verdict ? m.verdict.text : "";
    v.classList.toggle("hidden", !m.verdict);
    drawHand(m, w);
    const ub = document.getElementById("undobox");
    ub.textContent = m.undo ? undoWords(m.undo) : "";
    const key = m.undo && m.undo.may_agree ? m.undo.asked + "|" + m.undo.what : null;
    if (key && key !== state.question) document.getElementById("asked").textContent = "";  // a new question: the last answer goes
    state.question = key;
    ub.classList.toggle("hidden", !m.undo);
    document.getElementById("agreeundo").classList.toggle("hidden", !(m.undo && m.undo.may_agree));
    const tr = clear(document.getElementById("trick"));
    if (!(w.trick || []).length) tr.append("no card in the trick yet");
    for (const [who, code] of w.trick || []) tr.append(el("div", { class: "play" }, card(code), who));
    const sc = clear(document.getElementById("score"));
    const t = el("table", {});
    for (const [who, pts] of w.score || []) {
      const mine = who === m.name || who.split(" & ").includes(m.name);
      t.append(el("tr", { class: mine ? "me" : "" }, el("td", {}, who), el("td", {}, String(pts))));
    }
    sc.append((w.score || []).length ? t : "no score yet");
  }

  // The undo asked, as this seat reads it: its own ask, or another's it may agree to.
  function undoWords(u) {
    const waiting = ": waiting for " + (u.agree || "the other side") + " to agree.";
    if (u.mine) return (u.through ? "The scorekeeper asked, for you, to undo " : "You asked to undo ") + u.what + waiting;
    return u.asked.charAt(0).toUpperCase() + u.asked.slice(1) + " asks to undo " + u.what + (u.may_agree ? ": do you agree?" : waiting);
  }

  function drawHand(m, w) {
    const box = clear(document.getElementById("hand"));
    const note = document.getElementById("teachnote");
    const teach = {};
    for (const [code, why] of m.teach || []) teach[code] = why;
    const teaching = Array.isArray(m.teach);
    note.classList.toggle("hidden", !teaching);
    note.textContent = teaching ? "Teaching: the cards you may play now are framed in green." : "";
    if (!Array.isArray(w.hand)) { box.append("the table does not know your hand (deal over the deal pad to see it here)"); return; }
    if (!w.hand.length) { box.append("no cards in your hand"); return; }
    for (const code of w.hand) {
      const slot = el("div", { class: "slot" }, card(code));
      if (teaching && code in teach) {
        if (teach[code] === null) { slot.classList.add("legal"); slot.append(el("span", { class: "ok" }, "may play")); }
        else { slot.classList.add("illegal"); slot.append(el("span", { class: "why" }, teach[code])); }
      }
      box.append(slot);
    }
  }

  function page() {
    const m = /^\/seat\/([^/]+)$/.exec(location.pathname);
    const token = new URLSearchParams(location.search).get("token") || "";
    if (!m) return;
    async function ask(what) {
      const said = document.getElementById("asked");
      try {
        const r = await fetch("/seat/" + m[1] + "?token=" + encodeURIComponent(token),
                              { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ do: what }) });
        const j = await r.json();
        said.textContent = j.ok ? j.said : "refused: " + j.error;
      } catch (e) { said.textContent = "the table did not answer"; }
    }
    document.getElementById("askundo").addEventListener("click", () => ask("undo"));
    document.getElementById("agreeundo").addEventListener("click", () => ask("agree"));
    document.getElementById("director").addEventListener("click", () => ask("director"));
    let delay = 500;
    function connect() {
      const proto = location.protocol === "https:" ? "wss:" : "ws:";
      const ws = new WebSocket(proto + "//" + location.host + "/seat/" + m[1] + "/ws?token=" + encodeURIComponent(token));
      ws.onmessage = (ev) => {
        let msg;
        try { msg = JSON.parse(ev.data); } catch (e) { return; }
        if (msg.type === "seat") { delay = 500; state.msg = msg; draw(); speak(msg); sayAsked(msg); }
      };
      ws.onclose = (ev) => {
        const st = document.getElementById("status");
        st.classList.remove("hidden");
        if (ev.code === 4001) { st.textContent = ev.reason || "this seat's code is no longer valid: ask the scorekeeper"; return; }
        st.textContent = "the page lost the table: reconnecting...";
        setTimeout(connect, delay);
        delay = Math.min(delay * 2, 8000);
      };
    }
    connect();
  }

  return { page, card, state };
})();
