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
  const audit = document.createElement("div");
  audit.id = "undoaudit";
  box.append(audit);
  function flags(j) {
    flag.textContent = j.director ? j.director.name + " calls the director to the table " : "";
    if (j.director) {
      const b = document.createElement("button");
      b.textContent = "answered";
      b.addEventListener("click", async () => { await post({ cmd: "answered" }); flag.classList.add("hidden"); });
      flag.append(b);
    }
    flag.classList.toggle("hidden", !j.director);
    audit.textContent = (j.undo ? j.undo.asked + " asks to undo " + j.undo.what + " (waiting for the other side). " : "") +
      (j.undos || []).map(u => "Undone: " + u.undone + ", asked by " + u.asked + ", agreed by " + u.agreed + ".").join(" ");
  }
  load(true);
  setInterval(() => load(false), 3000);
})();
