// cardtable serve: the tempo. On the table page, a slow-play note once a turn passes the
// scorekeeper's threshold (set here with #secret=...); on an archived game's page, each seat's
// and each hand's time to act (median, slowest, a histogram), from the record's times.
"use strict";
const Tempo = (() => {
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) { if (k === "class") e.className = v; else e.setAttribute(k, v); }
    for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
    return e;
  }
  // tenths of a second, half up, as tempo.py's seconds() (toFixed alone: 1.15 s shows "1.1 s")
  const secs = (ms) => ms == null ? "-" : (Math.round(ms / 100) / 10).toFixed(1) + " s";

  function live() {
    const note = el("div", { id: "slownote", class: "fault hidden" });
    const main = document.querySelector("main");
    main.parentNode.insertBefore(note, main);
    const m = /secret=([^&]+)/.exec(location.hash);
    if (m) {
      const secret = decodeURIComponent(m[1]);
      const box = document.getElementById("scorekeeper") || document.body;
      const input = el("input", { id: "slowlimit", type: "number", min: "1", max: "3600", value: "60" });
      const set = el("button", { id: "slowset" }, "set");
      const said = el("span", { id: "slowsaid" });
      set.addEventListener("click", async () => {
        const r = await fetch("/tempo", { method: "POST", headers: { "Content-Type": "application/json", "X-Cardtable-Secret": secret },
                                          body: JSON.stringify({ seconds: Number(input.value) }) });
        const j = await r.json();
        said.textContent = j.ok ? " slow play after " + j.seconds + " s" : " refused: " + j.error;
      });
      box.append(el("div", {}, "Slow-play note after ", input, " s ", set, said));
    }
    async function poll() {
      try {
        const j = await (await fetch("/tempo.json")).json();
        note.textContent = j.note || "";
        note.classList.toggle("hidden", !j.note);
      } catch (e) { /* the server is away: the table page says so */ }
    }
    poll();
    setInterval(poll, 1000);
  }

  function table(title, rows, label, bins) {
    const t = el("table", { class: "seats tempo" });
    t.append(el("tr", {}, ...[title, "actions", "median", "slowest", "how long"].map(h => el("th", {}, h))));
    for (const r of rows) {
      const hist = r.histogram.map((n, k) => n ? bins[k] + ": " + n : null).filter(Boolean).join(", ");
      t.append(el("tr", {}, el("td", {}, label(r)), el("td", {}, String(r.actions)), el("td", {}, secs(r.median_ms)),
                  el("td", {}, secs(r.slowest_ms)), el("td", {}, hist)));
    }
    return t;
  }

  async function archived() {
    const m = /^\/archive\/(\d+)$/.exec(location.pathname);
    if (!m) return;
    const box = el("section", { id: "tempo" }, el("h2", {}, "Tempo: time to act"));
    (document.querySelectorAll("aside")[1] || document.body).append(box);
    const r = await fetch("/archive/" + m[1] + "/tempo.json");
    const j = await r.json();
    if (!r.ok || !j.tempo) { box.append("no times were kept for this game"); return; }
    const names = j.players || [];
    const who = (s) => names[s] || "seat " + s;
    box.append(table("seat", j.tempo.seats, (r) => who(r.seat), j.tempo.bins),
               table("hand", j.tempo.hands, (r) => "hand " + r.hand, j.tempo.bins));
  }

  return { live, archived, secs };
})();
