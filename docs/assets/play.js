// The play page: draws what the qttt engine (Python, under Pyodide) says, and sends it the clicks.
// It holds no rules of its own: legal actions, boards, scores and records all come from qttt.webplay.
(() => {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const root = $("qttt-play");
  if (!root) return;
  const statusEl = $("play-status");
  let call = null, view = null, selected = null, game = 0, botTimer = null;

  function say(text, isError) {
    statusEl.textContent = text;
    statusEl.classList.toggle("error", Boolean(isError));
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

  function render() {
    const n = view.ruleset.board, full = view.board_pixels + 2 * view.margin;
    $("play-board").innerHTML = view.svg;
    const squares = $("play-squares");
    const inset = (100 * view.margin / full) + "%", side = (100 * view.board_pixels / full) + "%";
    Object.assign(squares.style, {left: inset, top: inset, width: side, height: side,
      gridTemplateColumns: `repeat(${n}, 1fr)`, gridTemplateRows: `repeat(${n}, 1fr)`});
    squares.replaceChildren();
    const canClick = !view.state.over && !isBot(view.state.to_move);
    for (let c = 0; c < n * n; c++) {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.cell = String(c);
      b.setAttribute("aria-label", `square ${c + 1}`);
      if (canClick && view.selectable.includes(c)) b.classList.add("selectable");
      if (c === selected) b.classList.add("selected");
      b.addEventListener("click", () => clickSquare(c));
      squares.appendChild(b);
    }
    const choices = $("play-choices");
    choices.replaceChildren();
    if (canClick && view.state.phase === "measure") {
      for (const a of view.legal) {
        const b = document.createElement("button");
        b.type = "button";
        b.dataset.measure = String(a.measure);
        b.textContent = `collapse into square ${a.measure + 1}`;
        b.addEventListener("click", () => show(request({cmd: "act", action: a})));
        choices.appendChild(b);
      }
    }
    $("play-ply").textContent = `${view.ply} / ${view.plies}`;
    $("play-notation").textContent = view.notation;
    $("play-record-out").textContent = JSON.stringify(view.record);
    root.dataset.over = String(view.state.over);
    root.dataset.ply = String(view.ply);
  }

  function atEnd() { return view.ply === view.plies; }
  function playerKind(mark) { return mark === "x" ? $("play-x").value : $("play-o").value; }
  function isBot(mark) { return mark !== null && playerKind(mark) !== "person"; }

  function clickSquare(c) {
    if (view.state.over) return;
    if (isBot(view.state.to_move) || !view.selectable.includes(c)) return;
    if (view.state.phase === "measure") { show(request({cmd: "act", action: {measure: c}})); return; }
    if (selected === null) { selected = c; render(); say(`${view.status}: now the second square`); return; }
    if (selected === c && !isLegal({place: [c, c]})) { selected = null; render(); say(view.status); return; }
    const first = selected;
    show(request({cmd: "act", action: {place: [first, c]}}));
    if (selected === first) { selected = null; render(); }
  }

  function schedule() {
    clearTimeout(botTimer);
    if (view.state.over || !atEnd() || !isBot(view.state.to_move)) return;
    botTimer = setTimeout(() => show(request({cmd: "bot", player: playerKind(view.state.to_move), seed: game})), 120);
  }

  function newGame(req) { game += 1; show(request(req)); }

  async function start() {
    const runtime = await (await fetch("runtime.json")).json();
    if (!runtime.bundled) {
      say("This build of the site does not bundle the Python runtime: run `npm ci` before `mkdocs build`.");
      root.dataset.ready = "no-runtime";
      return;
    }
    await new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = "pyodide/pyodide.js";
      s.onload = resolve; s.onerror = reject;
      document.head.appendChild(s);
    });
    const py = await loadPyodide({indexURL: new URL("pyodide/", location.href).href});
    py.unpackArchive(await (await fetch("qttt.zip")).arrayBuffer(), "zip", {extractDir: "/home/pyodide/site"});
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
    newGame({cmd: "new", variant: $("play-ruleset").value});
    root.dataset.ready = "yes";
  }

  start().catch((e) => { say(`The engine could not start: ${e}`, true); root.dataset.ready = "failed"; });
})();
