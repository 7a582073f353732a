#!/usr/bin/env node
// A small engine for the `wikipedia` ruleset of quantum tic-tac-toe, written from the rulebook
// (the site's rules/common and rules/wikipedia pages, from spec/rules.toml) and the protocol
// (spec/protocol.md) alone.
// Documented in docs/implementers.md, the implementer's guide.
// It shares no code with the qttt package. Node.js, no dependencies.
//
//   node qttt-wikipedia.js            serve qttt-engine/1 on standard input/output
//   qttt conform --engine "node qttt-wikipedia.js" --ruleset wikipedia
//
// Rule ids in comments (R1, `board-cells`, ...) point at the rulebook.
"use strict";

const readline = require("readline");

const N = 3;                 // W1: a 3x3 board, cells 0..8 row by row
const SIZE = N * N;
const PLAYERS = ["x", "o"];
// Parameters of canonical names and their allowed values (reference/parameters.md); a name that
// uses only these is a valid ruleset, which this engine still does not implement (`unsupported`).
const PARAMETERS = {
  game: ["quantum"], board: ["2", "3", "4", "5", "6", "7", "8"], measurer: ["opponent", "creator"],
  two_cycles: ["true", "false"], last_square: ["forced", "end"], untouched: ["keep", "vanish"],
  end: ["first-line", "full"], end_line: ["0", "1", "2", "3", "4", "5", "6", "7", "8"],
  double_line: null, tiebreak: null, scoring: null,  // any value: this engine does not judge them
};
const BUILT_IN = ["wikipedia", "russian", "russian-unstable", "bonus4x4", "kumar", "ishizeki-complete"];

class Refusal extends Error {
  constructor(kind, rule, message) {
    super(message);
    this.kind = kind;
    this.rule = rule;
  }
}

const illegal = (rule, message) => new Refusal("illegal", rule, message);
const owner = (move) => (move % 2 === 1 ? "x" : "o");          // R2 turn-order
const other = (player) => (player === "x" ? "o" : "x");

// The 8 lines of 3: rows, columns, both diagonals (R20 pattern-line, length 0 = board size).
const LINES = (() => {
  const out = [];
  for (let i = 0; i < N; i++) {
    out.push([...Array(N).keys()].map((j) => i * N + j));
    out.push([...Array(N).keys()].map((j) => j * N + i));
  }
  out.push([...Array(N).keys()].map((j) => j * N + j));
  out.push([...Array(N).keys()].map((j) => j * N + (N - 1 - j)));
  return out;
})();

class Game {
  constructor(variant) {
    this.variant = variant;
    this.classical = new Array(SIZE).fill(null);  // cell -> move number of its classical mark
    this.spooky = new Map();                      // move number -> [a, b], a < b (R3 mark)
    this.move = 1;                                // the next placement's number
    this.phase = "place";
    this.closing = null;                          // the move that closed the pending cycle
    this.cycle = null;
    this.scores = { x: "0", o: "0" };            // R22: 0 until the end
  }

  clone() {
    const g = new Game(this.variant);
    g.classical = this.classical.slice();
    g.spooky = new Map([...this.spooky].map(([k, e]) => [k, e.slice()]));
    g.move = this.move;
    g.phase = this.phase;
    g.closing = this.closing;
    g.cycle = this.cycle && this.cycle.slice();
    g.scores = { ...this.scores };
    return g;
  }

  openCells() {
    return [...Array(SIZE).keys()].filter((c) => this.classical[c] === null);
  }

  toMove() {
    if (this.phase === "over") return null;
    // W2: the opponent of the cycle's closer measures; R15: then the next move's owner places.
    if (this.phase === "measure") return other(owner(this.closing));
    return owner(this.move);
  }

  state() {
    const board = [];
    for (let c = 0; c < SIZE; c++) {
      if (this.classical[c] !== null) {
        board.push(owner(this.classical[c]) + this.classical[c]);
      } else {
        const marks = [...this.spooky].filter(([, e]) => e.includes(c)).map(([k]) => k);
        board.push(marks.sort((a, b) => a - b).map((k) => owner(k) + k));
      }
    }
    return { variant: this.variant, board, to_move: this.toMove(), phase: this.phase,
             move: this.move, cycle: this.cycle, over: this.phase === "over", scores: this.scores };
  }

  // Legal actions, sorted: placements by (a, b), measurements by cell.
  legal() {
    if (this.phase === "over") return [];
    if (this.phase === "measure") {
      return this.spooky.get(this.closing).map((c) => ({ measure: c }));
    }
    const open = this.openCells();
    if (open.length === 1) return [{ place: [open[0], open[0]] }];  // W4 last-square
    const out = [];
    for (let i = 0; i < open.length; i++) {
      for (let j = i + 1; j < open.length; j++) out.push({ place: [open[i], open[j]] });
    }
    return out;  // W3: a pair already joined by a spooky move is allowed (a 2-cycle)
  }

  // R28 record-format, then the other checks in the order of R27 check-order.
  apply(action) {
    const keys = action !== null && typeof action === "object" && !Array.isArray(action)
      ? Object.keys(action) : [];
    const isCell = (v) => Number.isInteger(v);
    let cells;
    if (keys.length === 1 && keys[0] === "place" && Array.isArray(action.place)
        && action.place.length === 2 && action.place.every(isCell)) {
      cells = action.place;
    } else if (keys.length === 1 && keys[0] === "measure" && isCell(action.measure)) {
      cells = [action.measure];
    } else {
      throw new Refusal("malformed", "record-format", "an action is {place: [a, b]} or {measure: c}");
    }
    if (this.phase === "over") throw illegal("over-no-action", "the game is over");
    const measuring = keys[0] === "measure";
    if (measuring !== (this.phase === "measure")) {
      throw illegal("measure-pending", measuring ? "no cycle to measure" : "a cycle must be measured first");
    }
    for (const c of cells) {
      if (c < 0 || c >= SIZE) throw illegal("board-cells", `cell ${c} is not on the board`);
    }
    if (measuring) return this.measure(cells[0]);
    for (const c of cells) {
      if (this.classical[c] !== null) throw illegal("place-open", `cell ${c} holds a classical mark`);
    }
    const [a, b] = cells;
    if (a === b) {
      if (this.openCells().length !== 1) throw illegal("place-distinct", "two different cells are needed");
      this.classical[a] = this.move;  // W4: classical at once
      this.move += 1;
      return this.endCheck();
    }
    return this.place(Math.min(a, b), Math.max(a, b));
  }

  place(a, b) {
    const path = this.path(a, b);  // R8: already entangled cells close a cycle
    const k = this.move;
    this.spooky.set(k, [a, b]);
    this.move += 1;
    if (path !== null) {
      this.phase = "measure";      // R9
      this.closing = k;
      this.cycle = path.sort((x, y) => x - y);
    }
  }

  // The cells of the path joining a and b in the entanglement graph (R7), or null.
  path(a, b) {
    const previous = new Map([[a, null]]);
    const queue = [a];
    while (queue.length) {
      const cell = queue.shift();
      if (cell === b) {
        const out = [];
        for (let c = b; c !== null; c = previous.get(c)) out.push(c);
        return out;
      }
      for (const [x, y] of this.spooky.values()) {
        const next = x === cell ? y : y === cell ? x : null;
        if (next !== null && !previous.has(next)) {
          previous.set(next, cell);
          queue.push(next);
        }
      }
    }
    return null;
  }

  // R11 measure-cell, R12 collapse-component, W5: other components stay.
  measure(cell) {
    const closing = this.spooky.get(this.closing);
    if (!closing.includes(cell)) throw illegal("measure-cell", `cell ${cell} is not a cell of the closing move`);
    const queue = [[this.closing, cell]];
    while (queue.length) {
      const [k, c] = queue.shift();
      if (!this.spooky.has(k)) continue;
      this.spooky.delete(k);
      this.classical[c] = k;
      for (const [m, [x, y]] of [...this.spooky]) {   // every other mark in c must go elsewhere
        if (x === c) queue.push([m, y]);
        else if (y === c) queue.push([m, x]);
      }
    }
    this.phase = "place";
    this.closing = null;
    this.cycle = null;
    this.endCheck();
  }

  // W6: a line of 3 for either player, or a full board, ends the game; then W8 scores it.
  endCheck() {
    const owned = { x: [], o: [] };
    for (const line of LINES) {
      const marks = line.map((c) => this.classical[c]);
      if (marks.every((k) => k !== null && owner(k) === owner(marks[0]))) {
        owned[owner(marks[0])].push(Math.max(...marks));   // a line's time: its largest move number
      }
    }
    if (!owned.x.length && !owned.o.length && this.openCells().length > 0) return;
    this.phase = "over";
    if (owned.x.length && owned.o.length) {
      const winner = Math.min(...owned.x) < Math.min(...owned.o) ? "x" : "o";
      this.scores = { [winner]: "1", [other(winner)]: "1/2" };
    } else {
      for (const p of PLAYERS) this.scores[p] = owned[p].length ? "1" : "0";
    }
  }

  perft(depth) {
    if (depth === 0) return 1;
    let total = 0;
    for (const action of this.legal()) {
      if (depth === 1) { total += 1; continue; }
      const g = this.clone();
      g.apply(action);
      total += g.perft(depth - 1);
    }
    return total;
  }
}

// `new`: wikipedia is played; other valid rulesets are unsupported; anything else is no ruleset.
function checkVariant(name) {
  if (name === "wikipedia") return;
  const m = /^([a-z0-9-]+)\((.*)\)$/.exec(name);
  const base = m ? m[1] : name;
  if (base !== "qttt" && !BUILT_IN.includes(base)) {
    throw new Refusal("variant", "record-variant", `unknown ruleset ${JSON.stringify(name)}`);
  }
  if (m) {
    for (const item of m[2] ? m[2].split(",") : []) {
      const eq = item.indexOf("=");
      const key = eq < 0 ? item : item.slice(0, eq);
      if (eq < 0 || !(key in PARAMETERS)) {
        throw new Refusal("variant", "variant-file", `unknown parameter ${JSON.stringify(key)}`);
      }
      if (PARAMETERS[key] && !PARAMETERS[key].includes(item.slice(eq + 1))) {
        throw new Refusal("variant", "variant-file", `${key} = ${item.slice(eq + 1)} is not allowed`);
      }
    }
  }
  throw new Refusal("unsupported", null, `this engine plays wikipedia only, not ${name}`);
}

let game = null;

function handle(request) {
  const cmd = request.cmd;
  if (cmd === "hello") {
    return { ok: true, protocol: 1, engine: "qttt-wikipedia.js 1", rulesets: ["wikipedia"], commands: ["perft"] };
  }
  if (cmd === "quit") return { ok: true };
  if (cmd === "new") {
    if (typeof request.variant !== "string") throw new Refusal("protocol", null, "new needs a variant");
    checkVariant(request.variant);
    game = new Game(request.variant);
    return { ok: true };
  }
  if (!["apply", "state", "legal", "perft"].includes(cmd)) {
    throw new Refusal("protocol", null, `unknown command ${JSON.stringify(cmd)}`);
  }
  if (game === null) throw new Refusal("protocol", null, `${cmd} before new`);
  if (cmd === "apply") {
    const next = game.clone();  // a refused action leaves the game unchanged
    next.apply(request.action);
    game = next;
    return { ok: true };
  }
  if (cmd === "state") return { ok: true, state: game.state() };
  if (cmd === "legal") return { ok: true, legal: game.legal() };
  const depth = request.depth;
  if (!Number.isInteger(depth) || depth < 0) throw new Refusal("protocol", null, "perft needs a depth >= 0");
  if (!request.divide) return { ok: true, nodes: game.perft(depth) };
  const divide = depth === 0 ? [] : game.legal().map((action) => {
    const g = game.clone();
    g.apply(action);
    return { action, nodes: g.perft(depth - 1) };
  });
  return { ok: true, nodes: depth === 0 ? 1 : divide.reduce((s, d) => s + d.nodes, 0), divide };
}

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (!line.trim()) return;
  let request;
  let response;
  try {
    request = JSON.parse(line);
    response = handle(request);
  } catch (e) {
    if (!(e instanceof Refusal) && !(e instanceof SyntaxError)) throw e;
    const kind = e instanceof Refusal ? e.kind : "protocol";
    response = { ok: false, error: { kind, rule: e.rule || null, message: e.message } };
  }
  const id = request && typeof request === "object" ? request.id : undefined;
  process.stdout.write(JSON.stringify(id === undefined ? response : { id, ...response }) + "\n");
  if (request && request.cmd === "quit") lines.close();
});
