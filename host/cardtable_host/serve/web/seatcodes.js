// cardtable serve: on the scorekeeper's page (opened with #secret=...), each seat's QR code for
// its player's own page (drawn by serve), with a button to take a code back and the teaching toggle.
"use strict";
(() => {
  const m = /secret=([^&]+)/.exec(location.hash);
  if (!m) return;
  const secret = decodeURIComponent(m[1]);
  const aside = document.querySelector("aside") || document.body;
  const box = document.createElement("section");
  box.id = "seatcodes";
  box.innerHTML = "<h2>Seats' own pages</h2><p class=\"small\">Each player scans their seat's code: their hand, " +
    "their turn and their verdicts, on their phone alone. A new game draws new codes.</p><div id=\"seatqr\" class=\"seatqr\"></div>";
  aside.append(box);
  let game = null;
  async function post(body) {
    const r = await fetch("/seats", { method: "POST", headers: { "Content-Type": "application/json", "X-Cardtable-Secret": secret }, body: JSON.stringify(body) });
    return r.json();
  }
  async function load(force) {
    const r = await fetch("/seats.json", { headers: { "X-Cardtable-Secret": secret } });
    if (!r.ok) { document.getElementById("seatqr").textContent = "the seats' codes need the scorekeeper's secret"; return; }
    const j = await r.json();
    flags(j);
    if (!force && j.game === game) return;
    game = j.game;
    const qr = document.getElementById("seatqr");
    while (qr.firstChild) qr.removeChild(qr.firstChild);
    for (const s of j.seats) {
      const d = document.createElement("div");
      d.className = "seatcode";
      d.dataset.seat = s.seat;
      const h = document.createElement("div");
      h.className = "seatname";
      h.textContent = s.name;
      const pic = document.createElement("div");
      pic.className = "qr";
      pic.innerHTML = s.qr;  // an SVG drawn by serve itself (segno), never text from a viewer
      const a = document.createElement("a");
      a.href = s.url; a.textContent = "open"; a.target = "_blank"; a.rel = "noreferrer";
      const rv = document.createElement("button");
      rv.textContent = "take back";
      rv.addEventListener("click", async () => { await post({ cmd: "revoke", seat: s.seat }); load(true); });
      const tl = document.createElement("label");
      const tc = document.createElement("input");
      tc.type = "checkbox"; tc.checked = !!s.teach;
      tc.addEventListener("change", () => post({ cmd: "teach", seat: s.seat, on: tc.checked }));
      tl.append(tc, " teaching");
      d.append(h, pic, a, " ", rv, " ", tl);
      qr.append(d);
    }
  }
  const flag = document.createElement("div");
  flag.id = "directorflag";
  flag.className = "verdict hidden";
  box.insertBefore(flag, box.children[1]);
  const undo = undoBox();
  function flags(j) {
    flag.textContent = j.director ? j.director.name + " calls the director to the table " : "";
    if (j.director) {
      const b = document.createElement("button");
      b.textContent = "answered";
      b.addEventListener("click", async () => { await post({ cmd: "answered" }); flag.classList.add("hidden"); });
      flag.append(b);
    }
    flag.classList.toggle("hidden", !j.director);
    undo.show(j);
  }

  // Undo by consent: the scorekeeper asks for a seat (or the table); the other side agrees on
  // their own page; or the scorekeeper overrides, a second, explicit action.
  function undoBox() {
    const mk = (tag, attrs, text) => {
      const e = document.createElement(tag);
      for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
      if (text) e.textContent = text;
      return e;
    };
    const wrap = mk("div", { id: "undoask", class: "undoask" });
    const head = mk("h3", {}, "Undo the last action");
    const who = mk("select", { id: "undofor", "aria-label": "asked by" });
    const ask = mk("button", { id: "undoasked", type: "button" }, "ask to undo");
    const line = mk("div", { class: "undoline" });
    line.append(mk("label", { for: "undofor" }, "asked by "), who, " ", ask);
    const pend = mk("div", { id: "undopending", class: "verdict hidden" });
    const override = mk("button", { id: "undooverride", type: "button" }, "override: undo it now");
    const withdraw = mk("button", { id: "undowithdraw", type: "button" }, "withdraw");
    const actions = mk("div", { id: "undoactions", class: "hidden" });
    actions.append(override, " ", withdraw);
    const said = mk("div", { id: "undosaid", class: "small" });
    const auditHead = mk("h3", {}, "Undone in this game");
    const audit = mk("ul", { id: "undoaudit", class: "undoaudit" });
    wrap.append(head, line, pend, actions, said, auditHead, audit);
    const sk = document.getElementById("scorekeeper");
    if (sk && sk.querySelector("h2")) sk.querySelector("h2").after(wrap); else box.append(wrap);
    async function act(body) {
      try {
        const j = await post(body);
        said.textContent = j.ok ? j.said : "refused: " + j.error;
      } catch (e) { said.textContent = "the table did not answer"; }
      load(false);
    }
    ask.addEventListener("click", () => act({ cmd: "undo", for: who.value === "table" ? "table" : Number(who.value) }));
    override.addEventListener("click", () => act({ cmd: "override" }));
    withdraw.addEventListener("click", () => act({ cmd: "withdraw" }));
    let names = null;
    const cap = (t) => t.charAt(0).toUpperCase() + t.slice(1);
    function show(j) {
      const now = JSON.stringify(j.seats.map(s => s.name));
      if (now !== names) {
        names = now;
        const keep = who.value;
        while (who.firstChild) who.removeChild(who.firstChild);
        for (const s of j.seats) who.append(mk("option", { value: String(s.seat) }, s.name));
        who.append(mk("option", { value: "table" }, "the table"));
        if (keep) who.value = keep;
      }
      pend.textContent = j.undo ? cap(j.undo.asked) + " asks to undo " + j.undo.what + ": waiting for " + j.undo.agree +
        " to agree on their own page." : "";
      pend.classList.toggle("hidden", !j.undo);
      actions.classList.toggle("hidden", !j.undo);
      while (audit.firstChild) audit.removeChild(audit.firstChild);
      for (const u of j.undos || []) {
        audit.append(mk("li", {}, u.undone + ": asked by " + u.asked + ", " +
          (u.agreed === "the scorekeeper's override" ? "by the scorekeeper's override" : "agreed by " + u.agreed) +
          (u.at ? " at " + new Date(u.at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : "") + "."));
      }
      if (!(j.undos || []).length) audit.append(mk("li", {}, "nothing yet"));
    }
    return { show };
  }
  load(true);
  setInterval(() => load(false), 3000);
})();
