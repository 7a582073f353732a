// The play page: draws what the qttt engine (Python, under Pyodide) says, and sends it the clicks.
// It holds no rules of its own: legal actions, boards, hints, measurement outcomes, scores and
// records all come from qttt.webplay.
(() => {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const root = document.querySelector("div#qttt-play");  // the script is on every page (and a heading may be #qttt-play)
  if (!root) return;
  const statusEl = $("play-status");
  const started = performance.now();
  const STEPS = ["downloading the Python runtime", "starting Python", "unpacking the engine", "ready"];
  let call = null, view = null, selected = null, game = 0, botTimer = null, pointer = "mouse";

  function say(text, isError) {
    statusEl.textContent = text;
    statusEl.classList.toggle("error", Boolean(isError));
  }

  const timings = {};  // milliseconds from the start to the beginning of each loading step
  function progress(step) {
    $("play-progress").value = step;
    root.dataset.loading = String(step);
    timings[STEPS[step]] = Math.round(performance.now() - started);
    root.dataset.timings = JSON.stringify(timings);
    if (step < STEPS.length) say(`Loading the engine (${step + 1}/${STEPS.length}): ${STEPS[step]}…`);
  }

  function request(obj) {
    const reply = JSON.parse(call(JSON.stringify(obj)));
    if (reply.error) { say(reply.error, true); return null; }
    return reply;
  }

  function show(reply) {
    if (!reply) return;
    view = reply;
    selected = null;
    render();
    say(view.status, false);
    schedule();
  }

  function sameAction(a, b) { return JSON.stringify(a) === JSON.stringify(b); }
  function isLegal(action) { return view.legal.some((a) => sameAction(a, action)); }
  // A legal action naming one cell only (a measurement, or a classical mark): one click does it.
  function oneClick(c) { return view.legal.find((a) => !("place" in a) && Object.values(a)[0] === c); }

  function showPreview(c) {
    const p = view.previews.find((q) => q.measure === c);
    if (!p) return;
    $("play-board").innerHTML = p.svg;
    root.dataset.preview = String(c);
    $("play-preview-text").textContent = `Preview: ${p.text}`;
    for (const b of document.querySelectorAll("#play-choices button"))
      b.classList.toggle("previewing", b.dataset.measure === String(c));
  }

  function endPreview() {
    if (!view || root.dataset.preview === undefined) return;
    $("play-board").innerHTML = view.svg;
    delete root.dataset.preview;
    $("play-preview-text").textContent = "";
    for (const b of document.querySelectorAll("#play-choices button")) b.classList.remove("previewing");
  }

  function measure(c) {
    // on a touch screen the first tap previews, the second measures
    if (pointer === "touch" && root.dataset.preview !== String(c)) { showPreview(c); return; }
    show(request({cmd: "act", action: {measure: c}}));
  }

  function render() {
    const n = view.grid, full = view.board_pixels + 2 * view.margin;
    delete root.dataset.preview;
    $("play-board").innerHTML = view.svg;
    $("play-preview-text").textContent = "";
    const squares = $("play-squares");
    const inset = (100 * view.margin / full) + "%", side = (100 * view.board_pixels / full) + "%";
    Object.assign(squares.style, {left: inset, top: inset, width: side, height: side,
      gridTemplateColumns: `repeat(${n}, 1fr)`, gridTemplateRows: `repeat(${n}, 1fr)`});
    squares.replaceChildren();
    const canClick = !view.state.over && !isChance() && !isBot(view.state.to_move);
    const measuring = view.state.phase === "measure";
    for (let c = 0; c < n * n; c++) {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.cell = String(c);
      b.setAttribute("aria-label", `square ${c + 1}`);
      if (canClick && view.selectable.includes(c)) {
        b.classList.add("selectable");
        if (measuring) {
          b.classList.add("measurable");
          b.addEventListener("pointerenter", () => showPreview(c));
          b.addEventListener("pointerleave", endPreview);
        }
      }
      if (c === selected) b.classList.add("selected");
      b.addEventListener("click", () => clickSquare(c));
      squares.appendChild(b);
    }
    const choices = $("play-choices");
    choices.replaceChildren();
    if (canClick && measuring) {
      for (const p of view.previews) {
        const b = document.createElement("button");
        b.type = "button";
        b.dataset.measure = String(p.measure);
        b.innerHTML = p.svg;
        const label = document.createElement("span");
        label.textContent = `collapse into square ${p.measure + 1}`;
        b.appendChild(label);
        b.addEventListener("pointerenter", () => showPreview(p.measure));
        b.addEventListener("focus", () => showPreview(p.measure));
        b.addEventListener("pointerleave", endPreview);
        b.addEventListener("blur", endPreview);
        b.addEventListener("click", () => measure(p.measure));
        choices.appendChild(b);
      }
    }
    $("play-hint").textContent = canClick || view.state.over || isChance() ? view.hint
      : `${view.state.to_move} is a built-in player: watch it move.`;
    $("play-drawn").textContent = view.drawn || "";
    root.dataset.drawn = view.drawn || "";
    renderResult();
    const link = $("play-rules-link");
    link.hidden = !view.ruleset.page;
    if (view.ruleset.page) {
      link.href = "../" + view.ruleset.page;
      link.textContent = `How to play ${view.ruleset.name}: the rules`;
    }
    $("play-ply").textContent = `${view.ply} / ${view.plies}`;
    $("play-notation").textContent = view.notation;
    $("play-record-out").textContent = JSON.stringify(view.record);
    root.dataset.over = String(view.state.over);
    root.dataset.ply = String(view.ply);
    root.dataset.phase = view.state.phase;
  }

  function renderResult() {
    const box = $("play-result");
    box.replaceChildren();
    box.hidden = !view.result;
    if (!view.result) return;
    const head = document.createElement("p");
    head.className = "qttt-winner";
    head.textContent = view.result.headline;
    box.appendChild(head);
    const table = document.createElement("table");
    const row = (cells, tag) => {
      const tr = document.createElement("tr");
      for (const text of cells) {
        const td = document.createElement(tag);
        td.textContent = text;
        tr.appendChild(td);
      }
      table.appendChild(tr);
    };
    row(["scored for", "X", "O"], "th");
    const owned = (pats) => pats.length ? ` (squares ${pats.join(", ")})` : "";
    for (const r of view.result.rows) row([r.what, r.x + owned(r.x_patterns), r.o + owned(r.o_patterns)], "td");
    box.appendChild(table);
    for (const note of view.result.notes) {
      const p = document.createElement("p");
      p.textContent = `Note: ${note}`;
      box.appendChild(p);
    }
  }

  function atEnd() { return view.ply === view.plies; }
  function playerKind(mark) { return mark === "x" ? $("play-x").value : $("play-o").value; }
  function isBot(mark) { return mark === "x" || mark === "o" ? playerKind(mark) !== "person" : false; }
  function isChance() { return view.state.to_move === "chance"; }

  function clickSquare(c) {
    if (view.state.over) return;
    if (isBot(view.state.to_move) || !view.selectable.includes(c)) return;
    const one = oneClick(c);
    if (one && "measure" in one) { measure(c); return; }
    if (one) { show(request({cmd: "act", action: one})); return; }
    if (selected === null) {
      selected = c; render(); say(view.status);
      $("play-hint").textContent = `Now a second square for the same move (or square ${c + 1} again to take it back).`;
      return;
    }
    if (selected === c && !isLegal({place: [c, c]})) { selected = null; render(); say(view.status); return; }
    const first = selected;
    show(request({cmd: "act", action: {place: [first, c]}}));
    if (selected === first) { selected = null; render(); }
  }

  function schedule() {
    clearTimeout(botTimer);
    if (view.state.over || !atEnd()) return;
    if (isChance()) {  // the engine draws chance's outcome, after a moment to read the hint
      botTimer = setTimeout(() => show(request({cmd: "draw", seed: game})), 600);
      return;
    }
    if (!isBot(view.state.to_move)) return;
    botTimer = setTimeout(() => show(request({cmd: "bot", player: playerKind(view.state.to_move), seed: game})), 120);
  }

  function newGame(req) { game += 1; show(request(req)); }

  async function start() {
    progress(0);
    const runtime = await (await fetch("runtime.json")).json();
    if (!runtime.bundled) {
      say("This build of the site does not bundle the Python runtime: run `npm ci` before `mkdocs build`.");
      root.dataset.ready = "no-runtime";
      return;
    }
    const base = runtime.base || "";  // another language's build shares the default build's runtime
    const engine = fetch(base + "qttt.zip").then((r) => r.arrayBuffer());  // downloads while Python starts
    await new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = base + "pyodide/pyodide.js";
      s.onload = resolve; s.onerror = reject;
      document.head.appendChild(s);
    });
    progress(1);
    const py = await loadPyodide({indexURL: new URL(base + "pyodide/", location.href).href});
    progress(2);
    py.unpackArchive(await engine, "zip", {extractDir: "/home/pyodide/site"});
    py.runPython("import sys; sys.path.insert(0, '/home/pyodide/site')");
    call = py.pyimport("qttt.webplay").call;
    const meta = request({cmd: "rulesets"});
    for (const r of meta.rulesets) $("play-ruleset").add(new Option(`${r.name}: ${r.title}`, r.name));
    for (const sel of document.querySelectorAll(".play-player"))
      for (const p of meta.players) sel.add(new Option(p, p));
    $("play-o").value = meta.players.includes("greedy") ? "greedy" : "person";
    $("play-new").addEventListener("click", () => newGame({cmd: "new", variant: $("play-ruleset").value}));
    $("play-ruleset").addEventListener("change", () => newGame({cmd: "new", variant: $("play-ruleset").value}));
    for (const sel of document.querySelectorAll(".play-player")) sel.addEventListener("change", () => { render(); schedule(); });
    $("play-variant-new").addEventListener("click", () => newGame({cmd: "new", variant_file: $("play-variant").value}));
    $("play-load").addEventListener("click", () => newGame({cmd: "load", record: $("play-record").value}));
    const step = (ply) => show(request({cmd: "goto", ply}));
    $("play-first").addEventListener("click", () => step(0));
    $("play-prev").addEventListener("click", () => step(view.ply - 1));
    $("play-next").addEventListener("click", () => step(view.ply + 1));
    $("play-last").addEventListener("click", () => step(view.plies));
    root.addEventListener("pointerdown", (e) => { pointer = e.pointerType || "mouse"; }, true);
    newGame({cmd: "new", variant: $("play-ruleset").value});
    progress(3);
    $("play-progress").hidden = true;
    root.dataset.tti = String(Math.round(performance.now() - started));
    root.dataset.ready = "yes";
  }

  start().catch((e) => { say(`The engine could not start: ${e}`, true); root.dataset.ready = "failed"; });
})();
