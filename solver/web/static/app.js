"use strict";
// District Noir analysis board: plain JavaScript over the server's JSON API (no build step).

const $ = (id) => document.getElementById(id);
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
const KINDS = ["5", "6", "7", "8", "+2", "+3", "+4", "-1", "-2", "-3", "C"];
const WORD = { support: "support", alliance: "alliance", betrayal: "betrayal", city: "city", back: "hidden" };

function kindOf(tok) {
  if (tok === "C") return "city";
  if (tok === "?") return "back";
  if (tok === "T") return "take";
  if (tok[0] === "+") return "alliance";
  if (tok[0] === "-") return "betrayal";
  return "support";
}
function face(tok) { return tok[0] === "-" ? "\u2212" + tok.slice(1) : tok; }

function cardEl(tok, opts = {}) {
  const kind = kindOf(tok);
  const c = el("span", "card " + kind + (opts.mini ? " mini" : ""));
  c.dataset.card = tok;
  c.title = tok === "?" ? "a hidden card" : `${WORD[kind]} ${tok}`;
  c.appendChild(document.createTextNode(tok === "?" ? "?" : face(tok)));
  c.appendChild(el("small", "", WORD[kind]));
  if (opts.count > 1) c.appendChild(el("span", "n", "\u00d7" + opts.count));
  if (opts.onClick) {
    c.classList.add(opts.legal === false ? "click" : "legal");
    c.setAttribute("role", "button");
    c.addEventListener("click", () => opts.onClick(tok));
  }
  return c;
}
function moveWord(tok) {
  const w = el("span", "moveword " + kindOf(tok), tok === "T" ? "T" : face(tok));
  w.dataset.move = tok;
  return w;
}
function fmt(x, d = 3) { return x === null || x === undefined ? "\u2014" : Number(x).toFixed(d); }
function pct(x) { return x === null || x === undefined ? "\u2014" : (100 * x).toFixed(1) + "%"; }
function compact(n) { return n >= 1e6 ? (n / 1e6).toFixed(1) + "M" : n >= 1e4 ? Math.round(n / 1e3) + "k" : String(n); }
function signed(x, d = 2) { return x === null || x === undefined ? "\u2014" : (x >= 0 ? "+" : "") + Number(x).toFixed(d); }

class ApiError extends Error {
  constructor(status, data) { super(data.error || `HTTP ${status}`); this.status = status; this.data = data; }
}
async function api(path, body) {
  const opts = body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const r = await fetch(path, opts);
  const data = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (!r.ok) throw new ApiError(r.status, data);
  return data;
}
// POST that answers NDJSON: onLine(obj) for each line; resolves when the stream ends.
async function stream(path, body, onLine, signal) {
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), signal });
  if (!r.ok) throw new ApiError(r.status, await r.json().catch(() => ({ error: `HTTP ${r.status}` })));
  const reader = r.body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.trim()) onLine(JSON.parse(line));
    }
  }
}

// ---- the board ------------------------------------------------------------------------

function grouped(tokens) {
  const counts = new Map();
  for (const t of tokens) counts.set(t, (counts.get(t) || 0) + 1);
  return KINDS.filter((k) => counts.has(k)).map((k) => [k, counts.get(k)]);
}

// opts: bottom ('a'|'b'), onMove(tok) when moves may be clicked, names {a, b}
function renderBoard(box, pos, opts = {}) {
  box.innerHTML = "";
  const bottom = opts.bottom || "a";
  const top = bottom === "a" ? "b" : "a";
  const status = el("div", "status");
  status.dataset.role = "status";
  let text = `Round ${pos.round} \u00b7 `;
  if (pos.over) {
    const r = pos.result;
    text += r.winner === "draw" ? "game over: a draw" : `game over: ${r.winner} wins (${r.how})`;
  } else {
    text += `${pos.to_move} to move \u00b7 taken this round: ${pos.taken}`;
  }
  text += ` \u00b7 ${pos.over ? "score" : "score so far"} a ${pos.scores.a}, b ${pos.scores.b}`;
  status.textContent = text;
  box.appendChild(status);
  box.appendChild(seatEl(pos, top, opts));
  const line = el("div", "linebox");
  line.appendChild(el("div", "label", `line (oldest first; the ${pos.take.length} newest are what a take gets)`));
  const lz = el("div", "zone");
  lz.dataset.zone = "line";
  const first = pos.line.length - pos.take.length;
  pos.line.forEach((t, i) => {
    const c = cardEl(t);
    if (i >= first) c.classList.add("takezone");
    lz.appendChild(c);
  });
  if (!pos.line.length) lz.appendChild(el("span", "hint", "empty"));
  line.appendChild(lz);
  box.appendChild(line);
  box.appendChild(seatEl(pos, bottom, opts));
  if (pos.removed || (pos.deck && pos.deck.length)) {
    const extra = el("div", "zone");
    extra.dataset.zone = "removed";
    if (pos.deck && pos.deck.length) extra.appendChild(el("span", "label", `deck: ${pos.deck.length} cards (known) \u00b7`));
    if (pos.removed) {
      extra.appendChild(el("span", "label", "removed at the deal:"));
      for (const t of pos.removed) extra.appendChild(cardEl(t, { mini: true }));
    }
    box.appendChild(extra);
  }
}

function seatEl(pos, p, opts) {
  const i = p === "a" ? 0 : 1;
  const s = el("div", "seat" + (pos.to_move === p ? " tomove" : ""));
  s.dataset.seat = p;
  const who = el("div", "who", (opts.names && opts.names[p]) || p);
  who.appendChild(el("small", "", pos.to_move === p ? "to move" : `score ${pos.scores[p]}`));
  s.appendChild(who);
  const zones = el("div");
  const hand = el("div", "zone");
  hand.dataset.zone = "hand-" + p;
  hand.appendChild(el("span", "label", "hand"));
  const mover = pos.to_move === p && !pos.over;
  const clickable = mover && opts.onMove;
  if (pos.hands[i] === null) {
    for (let k = 0; k < pos.hand_sizes[i]; k++) hand.appendChild(cardEl("?", { mini: true }));
    if (clickable && pos.playable) {
      hand.appendChild(el("span", "label", "they played:"));
      for (const t of pos.playable.filter((t) => t !== "T")) hand.appendChild(cardEl(t, { mini: true, onClick: opts.onMove }));
    }
  } else {
    for (const t of pos.hands[i]) {
      const legal = clickable && pos.legal && pos.legal.includes(t);
      hand.appendChild(cardEl(t, legal ? { onClick: opts.onMove } : {}));
    }
    if (!pos.hands[i].length) hand.appendChild(el("span", "hint", "empty"));
  }
  if (clickable && (pos.playable || []).includes("T")) {
    const b = el("button", "take", `Take (T): ${pos.take.length} card${pos.take.length === 1 ? "" : "s"}`);
    b.dataset.move = "T";
    b.addEventListener("click", () => opts.onMove("T"));
    hand.appendChild(b);
  }
  zones.appendChild(hand);
  const coll = el("div", "zone");
  coll.dataset.zone = "coll-" + p;
  coll.appendChild(el("span", "label", "collected"));
  for (const [t, n] of grouped(pos.colls[i])) coll.appendChild(cardEl(t, { mini: true, count: n }));
  if (!pos.colls[i].length) coll.appendChild(el("span", "hint", "nothing yet"));
  zones.appendChild(coll);
  s.appendChild(zones);
  return s;
}

// a link that saves `record` as the one-line JSON file `dnoir play --load` and `dnoir review` read
function downloadLink(record, name) {
  const a = el("a", "download", "Save the game (JSON)");
  a.href = URL.createObjectURL(new Blob([JSON.stringify(record) + "\n"], { type: "application/json" }));
  a.download = name;
  return a;
}

function renderBreakdown(box, result) {
  const d = el("div", "breakdown");
  const head = result.winner === "draw" ? "A draw" : `${result.winner} wins (${result.how})`;
  d.appendChild(el("h3", "", head));
  const t = el("table");
  t.innerHTML = "<tr><th></th><th>majorities</th><th>sets</th><th>alliances</th><th>betrayals</th><th>total</th></tr>";
  for (const p of ["a", "b"]) {
    const s = result.scores[p];
    const tr = el("tr");
    for (const v of [p, s.majorities, s.sets, "+" + s.alliances, "\u2212" + s.betrayals, s.total]) tr.appendChild(el("td", "", String(v)));
    t.appendChild(tr);
  }
  d.appendChild(t);
  box.appendChild(d);
  return d;
}

// ---- advice ---------------------------------------------------------------------------

// An advice panel bound to a container: start(dnp) streams, stop() aborts, goOn() resumes.
class AdvicePanel {
  constructor(box, opts = {}) {
    this.box = box; this.opts = opts; this.id = null; this.dnp = null; this.ctrl = null;
    this.advice = null; this.state = "idle"; this.error = null;
  }
  async start(dnp, goOn = false) {
    this.stop(true);
    if (!goOn) { this.id = null; this.advice = null; }
    this.dnp = dnp; this.error = null;
    const ctrl = new AbortController();
    this.ctrl = ctrl;
    this.state = "running";
    this.render();
    const secs = typeof this.opts.seconds === "function" ? this.opts.seconds() : this.opts.seconds;
    const body = { dnp, seconds: secs || 10 };
    if (goOn && this.id) body.id = this.id;
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          await stream("/api/advise", body, (line) => {
            if (this.ctrl !== ctrl) return;
            this.id = line.id; this.advice = line.advice;
            if (line.done) this.state = "done";
            this.render();
          }, ctrl.signal);
          break;
        } catch (e) {
          // the stopped search still winding down (409): ask again shortly
          if (!(e instanceof ApiError && e.status === 409 && attempt < 5)) throw e;
          await new Promise((r) => setTimeout(r, 300));
          if (this.ctrl !== ctrl) return;
        }
      }
      if (this.ctrl === ctrl) { this.state = "done"; this.ctrl = null; this.render(); }
    } catch (e) {
      if (this.ctrl !== ctrl) return;
      this.ctrl = null;
      if (e.name === "AbortError") { this.state = "stopped"; }
      else if (e.status === 429) { this.state = "stopped"; this.error = e.message; }
      else { this.state = "stopped"; this.error = e.message; }
      this.render();
    }
  }
  stop(silent) {
    if (this.ctrl) { const c = this.ctrl; this.ctrl = null; c.abort(); this.state = "stopped"; if (!silent) this.render(); }
  }
  clear(message) { this.stop(true); this.advice = null; this.id = null; this.state = "idle"; this.box.innerHTML = ""; if (message) this.box.appendChild(el("p", "hint", message)); }
  render() {
    const box = this.box, a = this.advice;
    box.innerHTML = "";
    const head = el("div", "head");
    const st = el("strong", "", this.state === "running" ? "searching\u2026" : this.state === "done" ? "done" : this.state === "stopped" ? "stopped" : "");
    st.dataset.role = "advice-state";
    head.appendChild(st);
    if (a) {
      const best = el("span", "", "best ");
      best.appendChild(moveWord(a.best));
      best.dataset.role = "best";
      head.appendChild(best);
      const m = a.method === "ismcts" ? "ISMCTS search" : a.method === "equilibrium"
        ? `exact: equilibrium (exploitability ${Number(a.exploitability).toExponential(1)})`
        : "exact: one-player view (optimistic)";
      head.appendChild(el("span", "method", m));
      if (a.close_call && a.close_call.length) head.appendChild(el("span", "close", "close call: " + a.close_call.join(", ")));
    }
    // the buttons are made once and only enabled or not: a click never lands on a button
    // that a progress update has just replaced
    if (!this.buttons) {
      this.buttons = el("span", "buttons");
      this.stopButton = el("button", "", "Stop"); this.stopButton.dataset.role = "stop";
      this.stopButton.addEventListener("click", () => this.stop());
      this.goButton = el("button", "", "Go on"); this.goButton.dataset.role = "go-on";
      this.goButton.addEventListener("click", () => { if (this.state !== "running") this.start(this.dnp, true); });
      this.buttons.append(this.stopButton, this.goButton);
    }
    this.stopButton.disabled = this.state !== "running";
    this.goButton.disabled = this.state === "running" || !this.dnp || Boolean(a && a.exact);
    head.appendChild(this.buttons);
    box.appendChild(head);
    if (this.error) box.appendChild(el("div", "err", this.error));
    if (!a) return;
    box.dataset.iterations = a.iterations;
    const eq = a.method === "equilibrium";
    const t = el("table");
    const hr = el("tr");
    for (const [h, c] of [["move", ""], ["expected score \u00b1 95%", "bar"], ["", ""], ["win \u00b7 draw \u00b7 loss", "w"], ["margin", ""], [eq ? "freq." : "visits", ""]]) hr.appendChild(el("th", c, h));
    t.appendChild(hr);
    for (const m of a.moves) {
      const tr = el("tr", m.move === a.best ? "best" : "");
      tr.dataset.move = m.move;
      const td0 = el("td"); td0.appendChild(moveWord(m.move)); tr.appendChild(td0);
      const bar = el("td", "bar");
      const track = el("div", "track");
      const fill = el("div", "fill"); fill.style.width = (100 * m.expected).toFixed(1) + "%";
      track.appendChild(fill);
      if (m.se > 0) {
        const lo = Math.max(0, m.expected - 1.96 * m.se), hi = Math.min(1, m.expected + 1.96 * m.se);
        const ci = el("div", "ci"); ci.style.left = (100 * lo).toFixed(1) + "%"; ci.style.width = Math.max(0.5, 100 * (hi - lo)).toFixed(1) + "%";
        track.appendChild(ci);
      }
      track.appendChild(el("div", "half"));
      bar.appendChild(track); tr.appendChild(bar);
      const p0 = (v) => (100 * v).toFixed(0) + "%";
      // an equilibrium, or playouts scored by the round-end model, gives no win/draw/loss split
      const split = !eq && m.win !== null && m.win !== undefined;
      const wdl = split ? `${p0(m.win)} \u00b7 ${p0(m.draw)} \u00b7 ${p0(m.loss)}` : "\u2014";
      const score = el("td", "", fmt(m.expected) + (m.se > 0 ? " \u00b1" + fmt(1.96 * m.se) : ""));
      // on a phone the win/draw/loss column does not fit: the same figures go under the score
      // (app.css shows one or the other)
      if (split) {
        const sub = el("div", "wdl-sub", `W ${p0(m.win)} D ${p0(m.draw)} L ${p0(m.loss)}`);
        sub.dataset.role = "wdl"; score.appendChild(sub);
      }
      tr.appendChild(score);
      const wcell = el("td", "w", wdl); wcell.dataset.role = "wdl"; tr.appendChild(wcell);
      tr.appendChild(el("td", "", signed(m.margin)));
      tr.appendChild(el("td", "", eq ? fmt(m.share, 2) : m.visits === null ? "\u2014" : `${compact(m.visits)} \u00b7 ${(100 * m.share).toFixed(0)}%`));
      t.appendChild(tr);
    }
    box.appendChild(t);
    const foot = el("div", "foot");
    foot.textContent = a.exact ? `exact \u00b7 ${a.seconds.toFixed(2)} s` + (a.worlds ? ` \u00b7 ${a.worlds} possible opponent hands` : "")
      : `${a.iterations.toLocaleString()} iterations \u00b7 ${Math.round(a.iterations_per_second).toLocaleString()}/s \u00b7 ${a.seconds.toFixed(1)} s \u00b7 recommended: ${a.rule}`;
    if (!a.exact && a.moves.every((m) => m.win === null)) {
      const model = el("div", "", "Playouts end with their round, scored by the round-end model: "
        + "no game is played out, so there is no win \u00b7 draw \u00b7 loss split or margin.");
      model.dataset.role = "round-model"; foot.appendChild(model);
    }
    box.appendChild(foot);
  }
}

// ---- errors next to their field ---------------------------------------------------------

const FIELD_ERR = { line: "err-line", "hand a": "err-hand-a", "hand b": "err-hand-b", hands: "err-hand-a",
  "collection a": "err-coll-a", "collection b": "err-coll-b", collections: "err-coll-a", round: "err-round",
  "to-move": "err-to-move", taken: "err-taken" };
function clearErrors(scope) { for (const e of (scope || document).querySelectorAll(".err")) e.textContent = ""; }
function showFieldError(data) {
  const id = FIELD_ERR[data.field];
  if (id && $(id)) { $(id).textContent = data.reason || data.error; return id; }
  $("err-setup").textContent = data.error;
  return "err-setup";
}

// ---- the analysis tab -------------------------------------------------------------------

const A = { pos: null, history: [], advice: null };

function setUrl(params) {
  const u = new URL(location.href);
  u.search = "";
  for (const [k, v] of Object.entries(params)) if (v) u.searchParams.set(k, v);
  history.replaceState(null, "", u);
}

async function loadDnp(dnp, fromSetup) {
  clearErrors($("analyse"));
  try {
    const pos = await api("/api/position?dnp=" + encodeURIComponent(dnp));
    A.history = [];
    showAnalysis(pos);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    $("err-dnp").textContent = e.message + (A.pos ? " (the board still shows the last valid position)" : "");
    A.advice.stop();
    $("a-board").classList.add("stale");
    if (!fromSetup) fillSetup(dnp);
    showFieldError(e.data);
    $("setup").open = true;
  }
}

function showAnalysis(pos) {
  A.pos = pos;
  $("a-board").classList.remove("stale");
  $("dnp-input").value = pos.dnp;
  setUrl({ tab: "analyse", dnp: pos.dnp });
  renderBoard($("a-board"), pos, { onMove: playAnalysis });
  $("a-history").textContent = A.history.length ? "moves: " + A.history.map((h) => h.move).join(" ") : "";
  $("a-back").disabled = !A.history.length;
  fillSetup(pos.dnp);
  if (pos.over) { A.advice.clear(); renderBreakdown($("a-advice"), pos.result); }
  else if (pos.legal === null) A.advice.clear("The side to move's hand is hidden: give it (set up) to get advice.");
  else A.advice.start(pos.dnp);
}

async function playAnalysis(tok) {
  clearErrors($("analyse"));
  try {
    const next = await api(`/api/position?dnp=${encodeURIComponent(A.pos.dnp)}&moves=${encodeURIComponent(tok)}`);
    A.history.push({ pos: A.pos, move: tok });
    showAnalysis(next);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    $("err-dnp").textContent = e.message;
  }
}

// the set-up editor: fields of card tokens, filled from a DNP and read back into one
const SETUP_FIELDS = [["line", "Line (oldest first)"], ["hand-a", "Hand a"], ["hand-b", "Hand b"], ["coll-a", "Collected by a"], ["coll-b", "Collected by b"]];
const S = { sel: "line", cards: { line: [], "hand-a": [], "hand-b": [], "coll-a": [], "coll-b": [] }, hiddenA: 0, hiddenB: 0, rest: "" };
function tokens(text) { return text === "." ? [] : (text.match(/[+-]\d|\d|C|\?/g) || []); }

function buildSetup() {
  const pal = $("palette");
  for (const k of KINDS) pal.appendChild(cardEl(k, { onClick: (t) => addSetup(t), legal: false }));
  const q = cardEl("?", { onClick: () => addSetup("?"), legal: false }); q.title = "a hidden card (hands only)";
  pal.appendChild(q);
  const box = $("setup-fields");
  for (const [key, label] of SETUP_FIELDS) {
    const f = el("div", "field"); f.dataset.field = key;
    const l = el("label", "", label); l.addEventListener("click", () => selectSetup(key));
    const z = el("div", "zone"); z.id = "s-" + key; z.addEventListener("click", (ev) => { if (ev.target === z) selectSetup(key); });
    f.append(l, z);
    const err = el("div", "err"); err.id = "err-" + key; f.appendChild(err);
    box.appendChild(f);
  }
  selectSetup("line");
  $("setup-apply").addEventListener("click", () => {
    clearErrors($("analyse"));
    loadDnp(setupDnp(), true);
  });
}
function selectSetup(key) {
  S.sel = key;
  for (const f of document.querySelectorAll("#setup-fields .field")) f.classList.toggle("sel", f.dataset.field === key);
}
function addSetup(tok) {
  const list = S.cards[S.sel];
  if (tok === "?" && !S.sel.startsWith("hand")) return;
  if (S.sel.startsWith("hand") && list.length >= 5) return;
  list.push(tok);
  renderSetup();
}
function renderSetup() {
  for (const [key] of SETUP_FIELDS) {
    const z = $("s-" + key); z.innerHTML = "";
    S.cards[key].forEach((t, i) => z.appendChild(cardEl(t, { mini: true, legal: false, onClick: () => { S.cards[key].splice(i, 1); renderSetup(); } })));
  }
}
function fillSetup(dnp) {
  const f = dnp.trim().split(/\s+/);
  if (f.length < 6) return;
  const [ha, hb] = (f[1] || "").split("/");
  const [ca, cb] = (f[2] || "").split("/");
  S.cards.line = tokens(f[0]); S.cards["hand-a"] = tokens(ha || "."); S.cards["hand-b"] = tokens(hb || ".");
  S.cards["coll-a"] = tokens(ca || "."); S.cards["coll-b"] = tokens(cb || ".");
  $("s-round").value = f[3]; $("s-tomove").value = f[4]; $("s-taken").value = f[5];
  S.rest = f.slice(6).join(" ");
  renderSetup();
}
function setupDnp() {
  const j = (k) => S.cards[k].length ? S.cards[k].join("") : ".";
  const parts = [j("line"), j("hand-a") + "/" + j("hand-b"), j("coll-a") + "/" + j("coll-b"), $("s-round").value, $("s-tomove").value, $("s-taken").value];
  if (S.rest) parts.push(S.rest);
  return parts.join(" ");
}

// ---- play against the engine ------------------------------------------------------------

const P = { game: null, advice: null, busy: false };

async function newGame() {
  clearErrors($("play"));
  const spec = $("p-spec").value.trim() || $("p-engine").value;
  const body = { seat: $("p-seat").value, engine: spec };
  if ($("p-seed").value.trim()) body.seed = $("p-seed").value.trim();
  try {
    P.game = await api("/api/game", body);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    $("err-p-new").textContent = e.message;
    return;
  }
  $("p-end").innerHTML = "";
  P.advice.clear();
  showGame();
  await engineTurn();
}

function showGame() {
  const g = P.game;
  const names = { [g.seat]: "you (" + g.seat + ")", [g.seat === "a" ? "b" : "a"]: "engine (" + (g.seat === "a" ? "b" : "a") + ")" };
  renderBoard($("p-board"), g.view, { bottom: g.seat, names, onMove: g.my_turn && !P.busy ? playMove : null });
  $("p-status").textContent = (g.over ? "Game over." : P.busy ? "The engine is thinking\u2026" : g.my_turn ? "Your move: click a card, or take." : "") + ` (engine: ${g.engine}, seed ${g.seed})`;
  $("p-status").dataset.state = g.over ? "over" : P.busy ? "thinking" : g.my_turn ? "your-move" : "";
  $("p-hint").disabled = !g.my_turn || P.busy;
  $("p-undo").disabled = P.busy || !g.history.some((h) => h.player === g.seat);
  const ml = $("p-moves"); ml.innerHTML = "";
  let round = 0;
  for (const h of g.history) {
    if (h.round !== round) { round = h.round; ml.appendChild(el("span", "rnd", "round " + round)); }
    ml.appendChild(el("span", "mv", `${h.ply}.${h.player} ${h.move}`));
  }
  if (g.over) {
    const end = $("p-end"); end.innerHTML = "";
    renderBreakdown(end, g.final.result);
    end.appendChild(el("p", "hint", "Every card, now that the game is over (with the 3 removed at the deal):"));
    const fb = el("div", "board"); end.appendChild(fb);
    renderBoard(fb, g.final, { bottom: g.seat, names });
    const rv = el("button", "primary", "Review my decisions"); rv.id = "p-review";
    rv.addEventListener("click", () => { openReview([g.record], 0, g.seat); });
    end.appendChild(rv);
    end.appendChild(downloadLink(g.record, `dnoir-game-${g.seed}.jsonl`));
  }
  setUrl({ tab: "play" });
}

async function playMove(tok) {
  if (P.pending) return;  // one move at a time: a second click while the first is sent is ignored
  P.pending = true;
  clearErrors($("play"));
  P.advice.clear();
  try {
    P.game = await api(`/api/game/${P.game.id}/move`, { move: tok });
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    $("err-p-move").textContent = e.message;
    return;
  } finally {
    P.pending = false;
  }
  showGame();
  await engineTurn();
}

async function engineTurn() {
  while (P.game && P.game.engine_to_move) {
    P.busy = true; showGame();
    try {
      P.game = await api(`/api/game/${P.game.id}/engine`, {});
    } catch (e) {
      if (e instanceof ApiError && e.status === 429) { await new Promise((r) => setTimeout(r, 700)); continue; }
      P.busy = false;
      showGame();
      $("err-p-move").textContent = e.message;
      $("p-status").textContent = "The engine did not answer: " + e.message;
      $("p-status").dataset.state = "engine-failed";
      return;
    }
    P.busy = false;
  }
  P.busy = false;
  showGame();
}

// ---- follow a real table ------------------------------------------------------------------

const T = { start: null, seat: "a", events: [], pos: null, advice: null };

async function trackStart() {
  clearErrors($("track"));
  try {
    const r = await api("/api/track", { seat: $("t-seat").value, first: $("t-first").value, line: $("t-line").value, hand: $("t-hand").value });
    T.start = r.start; T.seat = $("t-seat").value; T.events = [];
    showTrack(r.position);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    const f = e.data.field || "";
    const id = f === "line" ? "err-t-line" : f.startsWith("hand") || f === "cards" ? "err-t-hand" : "err-t-start";
    $(id).textContent = e.message;
  }
}

async function trackPush(event) {
  clearErrors($("track"));
  const events = T.events.concat([event]);
  try {
    const pos = await api(`/api/position?dnp=${encodeURIComponent(T.start)}&moves=${encodeURIComponent(events.join(" "))}`);
    T.events = events;
    showTrack(pos);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    $(event.startsWith("hand:") ? "err-t-newhand" : "err-t-move").textContent = e.data.reason || e.message;
  }
}

async function trackUndo() {
  if (!T.events.length) return;
  T.events.pop();
  const pos = await api(`/api/position?dnp=${encodeURIComponent(T.start)}&moves=${encodeURIComponent(T.events.join(" "))}`);
  showTrack(pos);
}

function showTrack(pos) {
  T.pos = pos;
  T.advice.clear();
  const i = T.seat === "a" ? 0 : 1;
  const needsHand = !pos.over && pos.hands[i] === null;
  renderBoard($("t-board"), pos, { bottom: T.seat, names: { [T.seat]: "you (" + T.seat + ")" }, onMove: needsHand ? null : (t) => trackPush(t) });
  const entry = $("t-entry"); entry.innerHTML = "";
  if (needsHand) {
    const inp = el("input"); inp.id = "t-newhand"; inp.placeholder = "568+2C"; inp.size = 10;
    const b = el("button", "primary", "Set my new hand"); b.id = "t-newhand-go";
    b.addEventListener("click", () => trackPush("hand:" + inp.value.trim()));
    const err = el("span", "err"); err.id = "err-t-newhand";
    entry.append(el("label", "", `Round ${pos.round}: your new hand `), inp, b, err);
  }
  $("t-status").textContent = pos.over ? "Game over." : needsHand ? "Enter your new hand." : pos.to_move === T.seat ? "Your move." : `${pos.to_move}'s move: click the card they played, or Take.`;
  $("t-hint").disabled = pos.over || needsHand || pos.to_move !== T.seat;
  $("t-undo").disabled = !T.events.length;
  const ml = $("t-moves"); ml.innerHTML = "";
  T.events.forEach((ev, k) => ml.appendChild(el("span", "mv", `${k + 1}. ${ev}`)));
  if (pos.over) {
    renderBreakdown($("t-advice"), pos.result);
    const rv = el("button", "primary", "Review my decisions"); rv.id = "t-review";
    // the record `dnoir play --track` saves, which `dnoir review` reads
    const record = { kind: "track", seat: T.seat, start: T.start, events: T.events.join(" ") };
    rv.addEventListener("click", () => openReview([record], 0, T.seat));
    $("t-advice").appendChild(rv);
    $("t-advice").appendChild(downloadLink(record, "dnoir-tracked-game.jsonl"));
  }
}

// ---- review -------------------------------------------------------------------------------

const R = { records: [], replay: null, decisions: {}, ctrl: null, sel: null, advice: null, seat: null };

function readRecords(text) {
  const out = [];
  text.split(/\r?\n/).forEach((line, k) => {
    if (!line.trim()) return;
    let rec;
    try { rec = JSON.parse(line); } catch (e) { throw new Error(`line ${k + 1}: not valid JSON (${e.message})`); }
    if (typeof rec !== "object" || rec === null || Array.isArray(rec)) throw new Error(`line ${k + 1}: not a game record (one JSON object a line)`);
    out.push(rec);
  });
  if (!out.length) throw new Error("no game record in this file");
  // `dnoir review --json` output: one decision a line, already graded; kept as one item a game
  if (out.every((r) => "ply" in r && "played" in r && "mark" in r)) {
    const games = new Map();
    for (const d of out) { const k = d.game ?? 0; if (!games.has(k)) games.set(k, []); games.get(k).push(d); }
    return [...games.entries()].map(([k, ds]) => ({ reviewed: ds, game: k }));
  }
  return out;
}

// a file of graded decisions: shown as it is, nothing searched again
function showReviewed(item) {
  R.decisions = {};
  const moves = item.reviewed.map((d, k) => ({ index: k + 1, ply: d.ply, move: d.played, player: d.player, round: d.round, before: d.dnp }));
  for (const d of item.reviewed) R.decisions[d.ply] = d;
  R.replay = { moves, seats: [...new Set(item.reviewed.map((d) => d.player))].sort() };
  renderReviewMoves();
  drawGraph();
  const parts = R.replay.seats.map((p) => {
    const mine = item.reviewed.filter((d) => d.player === p);
    const lost = mine.reduce((a, d) => a + Math.max(d.loss || 0, 0), 0);
    return `${p}: ${mine.length} decisions, ${mine.filter((d) => d.mark === "?").length} ?, ${mine.filter((d) => d.mark === "??").length} ??, expected score lost ${lost.toFixed(3)}`;
  });
  $("r-summary").textContent = "Reviewed decisions (from the file). " + parts.join(" \u00b7 ");
  $("r-summary").dataset.state = "done";
}

function listRecords(records) {
  R.records = records;
  const sel = $("r-game"); sel.innerHTML = "";
  records.forEach((r, k) => {
    const who = r.reviewed ? `${r.reviewed.length} reviewed decisions` : r.players ? `${r.players.a} vs ${r.players.b}` : r.seat ? `from seat ${r.seat}` : "";
    const o = el("option", "", `game ${k + 1}${who ? ": " + who : ""}`); o.value = k; sel.appendChild(o);
  });
}

function openReview(records, index, seat) {
  switchTab("review");
  listRecords(records);
  $("r-game").value = index;
  R.seat = seat || null;
  startReview();
}

async function startReview() {
  clearErrors($("review"));
  if (R.ctrl) R.ctrl.abort();
  const rec = R.records[Number($("r-game").value || 0)];
  if (!rec) { $("err-r-file").textContent = "choose a file of game records first"; return; }
  R.replay = null; R.decisions = {}; R.sel = null;
  if (rec.reviewed) { showReviewed(rec); return; }
  $("r-moves").innerHTML = ""; $("r-summary").textContent = "reviewing\u2026"; $("r-summary").dataset.state = "running";
  drawGraph();
  const ctrl = new AbortController(); R.ctrl = ctrl;
  const body = { record: rec, seconds: Number($("r-budget").value) };
  if (R.seat) body.seat = R.seat;
  try {
    await stream("/api/review", body, (line) => {
      if (line.replay) { R.replay = line.replay; renderReviewMoves(); }
      else if (line.decision) { R.decisions[line.decision.ply] = line.decision; renderReviewMoves(); drawGraph(); }
      else if (line.error) { $("err-r-file").textContent = line.error; }
      else if (line.done) {
        const parts = Object.entries(line.summary).map(([p, s]) => `${p}: ${s.decisions} decisions, ${s.mistakes} ?, ${s.blunders} ??, expected score lost ${s.lost.toFixed(3)}`);
        $("r-summary").textContent = "Review done. " + parts.join(" \u00b7 ");
        $("r-summary").dataset.state = "done";
      }
    }, ctrl.signal);
  } catch (e) {
    if (e.name === "AbortError") return;
    $("err-r-file").textContent = e.message;
    $("r-summary").textContent = "";
  } finally {
    if (R.ctrl === ctrl) R.ctrl = null;
  }
}

function renderReviewMoves() {
  const box = $("r-moves"); box.innerHTML = "";
  if (!R.replay) return;
  let round = 0;
  for (const m of R.replay.moves) {
    if (m.round !== round) { round = m.round; box.appendChild(el("span", "rnd", "round " + round)); }
    const d = m.ply ? R.decisions[m.ply] : null;
    const mv = el("span", "mv" + (R.sel === m.index ? " sel" : ""));
    mv.dataset.ply = m.ply || "";
    mv.appendChild(document.createTextNode(m.ply ? `${m.ply}.${m.player} ${m.move}` : `new hand ${m.move.slice(5)}`));
    if (d && d.mark) mv.appendChild(el("span", d.mark === "??" ? "mark2" : "mark1", d.mark));
    if (d && d.played !== d.best) mv.title = `best ${d.best}, loss ${fmt(d.loss)}` + (d.exact ? " (exact)" : ` (95% ${fmt(d.low)} to ${fmt(d.high)})`);
    mv.addEventListener("click", () => selectReviewMove(m));
    box.appendChild(mv);
  }
}

async function selectReviewMove(m) {
  R.sel = m.index;
  renderReviewMoves();
  drawGraph();
  const pos = await api("/api/position?dnp=" + encodeURIComponent(m.before));
  renderBoard($("r-board"), pos, {});
  const note = el("div", "hint", m.ply ? `before move ${m.ply}: ${m.player} played ${m.move}` : `before ${m.move}`);
  const d = m.ply ? R.decisions[m.ply] : null;
  if (d) note.textContent += ` \u00b7 best ${d.best}${d.mark ? " " + d.mark : ""}, loss ${fmt(d.loss)}`;
  $("r-board").prepend(note);
  if (m.ply && !pos.over && pos.legal !== null) R.advice.start(pos.dnp); else R.advice.clear();
}

// lichess-like: a's expected score after each reviewed decision, 0.5 the middle line. The
// graph is drawn at the width it has on screen (a stretched viewBox made the dots ovals) and
// spans the game's plies, not the decisions reviewed (one seat's are every other ply).
function drawGraph() {
  const svg = $("r-graph");
  const W = Math.round(svg.clientWidth) || 600, H = 160;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const n = R.replay ? Math.max(0, ...R.replay.moves.map((m) => m.ply || 0)) : 0;
  let inner = `<rect x="0" y="0" width="${W}" height="${H}" fill="#f3efe6"/><line x1="0" y1="${H / 2}" x2="${W}" y2="${H / 2}" stroke="#999" stroke-dasharray="4 3"/>`;
  const pts = Object.values(R.decisions).sort((p, q) => p.ply - q.ply).map((d) => {
    const ea = d.player === "a" ? d.expected_played : 1 - d.expected_played;
    return [d, ea === null ? 0.5 : ea];
  });
  if (n && pts.length) {
    const x = (ply) => ((ply - 0.5) / n) * W, y = (v) => H - v * H;
    const line = pts.map(([d, v]) => `${x(d.ply).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    inner += `<polygon points="${x(pts[0][0].ply).toFixed(1)},${H} ${line} ${x(pts[pts.length - 1][0].ply).toFixed(1)},${H}" fill="#ffffff" opacity="0.9"/>`;
    const sel = R.replay.moves.find((m) => m.index === R.sel);
    if (sel && sel.ply) inner += `<line x1="${x(sel.ply).toFixed(1)}" y1="0" x2="${x(sel.ply).toFixed(1)}" y2="${H}" stroke="#c77700" stroke-width="2"/>`;
    inner += `<polyline points="${line}" fill="none" stroke="#221d2b" stroke-width="1.5"/>`;
    for (const [d, v] of pts) {
      const c = d.mark === "??" ? "#b3261e" : d.mark === "?" ? "#c77700" : "#5b4c8a";
      inner += `<circle cx="${x(d.ply).toFixed(1)}" cy="${y(v).toFixed(1)}" r="${d.mark ? 5 : 2.5}" fill="${c}" data-ply="${d.ply}"/>`;
    }
  }
  svg.innerHTML = inner;
}

// a click on the graph shows the move nearest to it
function clickGraph(ev) {
  const plies = R.replay ? R.replay.moves.filter((m) => m.ply) : [];
  if (!plies.length) return;
  const box = $("r-graph").getBoundingClientRect();
  const n = Math.max(...plies.map((m) => m.ply));
  const at = ((ev.clientX - box.left) / box.width) * n + 0.5;  // the inverse of drawGraph's x
  selectReviewMove(plies.reduce((best, m) => (Math.abs(m.ply - at) < Math.abs(best.ply - at) ? m : best)));
}

// ---- live match ---------------------------------------------------------------------------

function eloText(p) {
  if (p.elo !== null && p.elo_low !== null && p.elo_high !== null) return `Elo ${signed(p.elo, 1)} [${signed(p.elo_low, 1)}, ${signed(p.elo_high, 1)}]`;
  if (p.elo_low !== null) return `Elo > ${signed(p.elo_low, 1)}`;
  if (p.elo_high !== null) return `Elo < ${signed(p.elo_high, 1)}`;
  return "Elo: not enough pairs yet";
}
async function refreshMatch() {
  if (!$("match").classList.contains("active")) return;
  let data;
  try { data = await api("/api/match"); } catch (e) { $("m-files").textContent = e.message; return; }
  const box = $("m-files"); box.innerHTML = "";
  if (!data.files.length) box.appendChild(el("p", "", "No match file: start the server with dnoir serve --match games.jsonl"));
  for (const f of data.files) {
    const card = el("div", "matchcard");
    card.appendChild(el("h3", "", `${f.name}: ${f.games} games` + (f.bad_lines ? ` (${f.bad_lines} lines skipped)` : "") + (f.exists ? "" : " (not there yet)")));
    for (const p of f.pairings) {
      const d = el("div"); d.dataset.role = "pairing";
      d.appendChild(el("div", "big", `${p.x} vs ${p.y}: score ${fmt(p.score)} [${fmt(p.score_low)}, ${fmt(p.score_high)}]`));
      d.appendChild(el("div", "", `${eloText(p)} \u00b7 wins ${p.wins}, draws ${p.draws}, losses ${p.losses} \u00b7 ${p.units} complete pairs` + (p.lone_games ? `, ${p.lone_games} lone games` : "") + ` \u00b7 mean margin ${signed(p.mean_margin)}`));
      const pen = el("div", "penta"); const mx = Math.max(1, ...p.pentanomial);
      p.pentanomial.forEach((c, k) => { const b = el("div", "", String(c)); b.style.height = (8 + 52 * c / mx) + "px"; b.title = `pairs with ${k / 2} points`; pen.appendChild(b); });
      d.appendChild(el("div", "hint", "pairs by points 0 / \u00bd / 1 / 1\u00bd / 2:"));
      d.appendChild(pen);
      if (p.sprt) {
        const s = p.sprt;
        d.appendChild(el("div", "", `SPRT ${s.model} [${s.elo0}, ${s.elo1}]: LLR ${fmt(s.llr, 2)} in (${fmt(s.lower, 2)}, ${fmt(s.upper, 2)})` + (s.decision ? ` \u2014 ${s.decision}` : " \u2014 running")));
        const bar = el("div", "llr"); const m = el("div", "mark");
        const frac = Math.min(1, Math.max(0, (s.llr - s.lower) / (s.upper - s.lower)));
        m.style.left = (100 * frac).toFixed(1) + "%"; bar.appendChild(m); d.appendChild(bar);
      }
      card.appendChild(d);
    }
    box.appendChild(card);
  }
}

// ---- tabs and start-up ----------------------------------------------------------------------

function switchTab(name) {
  for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("active", b.dataset.tab === name);
  for (const s of document.querySelectorAll(".tab")) s.classList.toggle("active", s.id === name);
  if (name !== "analyse" && A.advice) A.advice.stop();
  if (name === "match") refreshMatch();
  if (name === "analyse" && A.pos) setUrl({ tab: "analyse", dnp: A.pos.dnp }); else setUrl({ tab: name });
}

function init() {
  A.advice = new AdvicePanel($("a-advice"), { seconds: () => Number($("a-seconds").value) });
  P.advice = new AdvicePanel($("p-advice"), { seconds: 1 });
  T.advice = new AdvicePanel($("t-advice"), { seconds: 2 });
  R.advice = new AdvicePanel($("r-advice"), { seconds: 2 });
  for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => switchTab(b.dataset.tab));
  buildSetup();
  $("dnp-load").addEventListener("click", () => loadDnp($("dnp-input").value));
  $("dnp-input").addEventListener("keydown", (e) => { if (e.key === "Enter") loadDnp($("dnp-input").value); });
  $("dnp-copy").addEventListener("click", () => { navigator.clipboard && navigator.clipboard.writeText($("dnp-input").value).catch(() => {}); $("dnp-input").select(); });
  $("dnp-deal").addEventListener("click", async () => { const d = await api("/api/deal"); A.history = []; loadDnp(d.full); });
  $("a-back").addEventListener("click", () => { const h = A.history.pop(); if (h) showAnalysis(h.pos); });
  $("p-new").addEventListener("click", newGame);
  $("p-hint").addEventListener("click", () => { if (P.game && P.game.my_turn) P.advice.start(P.game.view.dnp); });
  $("p-undo").addEventListener("click", async () => {
    clearErrors($("play"));
    try { P.game = await api(`/api/game/${P.game.id}/undo`, {}); P.advice.clear(); $("p-end").innerHTML = ""; showGame(); }
    catch (e) { $("err-p-move").textContent = e.message; }
  });
  $("t-start").addEventListener("click", trackStart);
  $("t-hint").addEventListener("click", () => { if (T.pos) T.advice.start(T.pos.dnp); });
  $("t-undo").addEventListener("click", trackUndo);
  $("r-file").addEventListener("change", async () => {
    clearErrors($("review"));
    const f = $("r-file").files[0];
    if (!f) return;
    if (f.size > 20e6) { $("err-r-file").textContent = "this file is over 20 MB: review one game at a time"; return; }
    try { listRecords(readRecords(await f.text())); R.seat = null; }
    catch (e) { $("err-r-file").textContent = e.message; $("r-game").innerHTML = ""; R.records = []; }
  });
  $("r-go").addEventListener("click", startReview);
  $("r-graph").addEventListener("click", clickGraph);
  window.addEventListener("resize", drawGraph);
  setInterval(refreshMatch, 2000);
  drawGraph();
  const q = new URLSearchParams(location.search);
  const tab = q.get("tab") || "analyse";
  const dnp = q.get("dnp") || "68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a";
  switchTab(tab);
  if (tab === "analyse") loadDnp(dnp); else { $("dnp-input").value = dnp; }
}
document.addEventListener("DOMContentLoaded", init);
