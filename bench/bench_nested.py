"""Random games per second of Intelligent Tic-Tac-Toe (ruleset `intelligent`), on one core, and
random-play statistics.

Four figures, all measured in this run, each by CPU time and by wall time: the compiled nested core
(qttt/nested/_core.c, `NestedCore.games`), `qttt.nested.engine.nested_playout` (the Python engine's
playout loop), a loop over the immutable `NestedState` API (`legal_actions` + `apply`), and the
baseline: a naive re-implementation in the style of the 2017 course simulator (a 16×16 list of '-',
'x', 'o', the valid cells found by scanning the routed block or the whole board, block and board
patterns checked cell by cell after each move), written here from the rules. Ratios are to that
baseline, and the compiled core's to the Python engine (target 100x); then the search player's
iterations per second, its rollouts in the compiled core and in the Python engine. Then the statistics of the
engine's random games: wins, draws, length and cells left empty (the course simulator's random
games leave about 39 of 256 cells empty and last 154 to 249 moves).

`--agree N` checks instead that the compiled core plays the Python engine's games, move by move
and point by point, for N seeded games of every nested-classical ruleset (built-in, editions,
coverage variants); it exits 1 at the first difference.

    python bench/bench_nested.py [--seconds S] [--games N] [--agree N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial

from qttt.conformance.suite import shipped_suites
from qttt.nested.compiled import available, core_for
from qttt.nested.engine import NestedState, nested_playout
from qttt.players import SearchPlayer
from qttt.ruleset import Ruleset
from qttt.variant import load_ruleset
from qttt.vocabulary import NESTED

PATTERNS = ([[(r, c) for c in range(4)] for r in range(4)] + [[(r, c) for r in range(4)] for c in range(4)]
            + [[(i, i) for i in range(4)], [(i, 3 - i) for i in range(4)]])


def simulator_game(rng: random.Random) -> int:
    """One random game as the course simulator plays it; returns its number of moves."""
    board = [["-"] * 16 for _ in range(16)]
    blocks = [["-"] * 4 for _ in range(4)]
    old: tuple[int, int] | None = None
    player, moves = "x", 0
    while True:
        cells = []
        if old is not None and blocks[old[0] % 4][old[1] % 4] == "-":
            br, bc = old[0] % 4, old[1] % 4
            cells = [(i, j) for i in range(4 * br, 4 * br + 4) for j in range(4 * bc, 4 * bc + 4)
                     if board[i][j] == "-"]
        if not cells:
            cells = [(i, j) for i in range(16) for j in range(16)
                     if board[i][j] == "-" and blocks[i // 4][j // 4] == "-"]
        r, c = cells[rng.randrange(len(cells))]
        board[r][c] = player
        moves += 1
        x, y = r // 4, c // 4
        if any(all(board[4 * x + i][4 * y + j] == player for i, j in p) for p in PATTERNS):
            blocks[x][y] = player
        elif all(board[4 * x + i][4 * y + j] != "-" for i in range(4) for j in range(4)):
            blocks[x][y] = "d"
        if any(all(blocks[i][j] == player for i, j in p) for p in PATTERNS):
            return moves
        if all(blocks[i][j] != "-" for i in range(4) for j in range(4)):
            return moves
        old = (r, c)
        player = "o" if player == "x" else "x"


def rate(play: Callable[[random.Random], int], seconds: float) -> tuple[float, float]:
    """Games per second of CPU time and of wall time: the best of three timed rounds of about
    seconds/3 each; `play` plays some games and returns how many."""
    rng = random.Random(2017)
    best_cpu = best_wall = 0.0
    for _ in range(3):
        games, cpu, wall = 0, time.process_time(), time.perf_counter()
        deadline = wall + seconds / 3
        while True:
            games += play(rng)
            now = time.perf_counter()
            if now >= deadline:
                break
        best_cpu = max(best_cpu, games / max(time.process_time() - cpu, 1e-9))
        best_wall = max(best_wall, games / (now - wall))
    return best_cpu, best_wall


def one(play: Callable[[random.Random], object]) -> Callable[[random.Random], int]:
    """`play` (one game per call) as a player of counted games."""
    def counted(rng: random.Random) -> int:
        play(rng)
        return 1
    return counted


def iterations(rs: Ruleset, core: str, rng: random.Random) -> int:
    """One move of the search player (`--core` rollouts) 20 moves into a random game, 200
    iterations: each a tree step and a random rollout to the end; returns the iterations."""
    state = NestedState.initial(rs)
    for _ in range(20):
        legal = state.legal_actions()
        state = state.apply(legal[rng.randrange(len(legal))])
    SearchPlayer(rng=rng, seconds=None, playouts=200, core=core).choose(state)
    return 200


def agree(games: int) -> int:
    """0 when the compiled core plays the engine's `games` games of every nested ruleset, else 1."""
    names = [n for n, _ in shipped_suites() if load_ruleset(n).game == NESTED]
    for name in names:
        rs = load_ruleset(name)
        core = core_for(rs)
        fast, slow = random.Random(f"agree:{games}"), random.Random(f"agree:{games}")
        start, done = time.perf_counter(), 0
        while done < games:
            batch = min(1000, games - done)
            cells, _, points = core.games(fast, batch)
            for i in range(batch):
                moves, final = nested_playout(rs, slow)
                if [m.cell for m in moves] != cells[i] or (core.points(points[i][0]), core.points(
                        points[i][1])) != (final.scores["x"], final.scores["o"]):
                    print(f"{rs.name}: game {done + i} differs")
                    return 1
            done += batch
        same = fast.getstate() == slow.getstate()
        print(f"{rs.name}: {games:,} games, the same moves and points in both "
              f"({time.perf_counter() - start:.0f} s); generator left in the same state: {same}", flush=True)
        if not same:
            return 1
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="time per measured figure")
    parser.add_argument("--games", type=int, default=2000, help="random games for the statistics")
    parser.add_argument("--agree", type=int, metavar="N",
                        help="check the compiled core against the engine on N games per ruleset")
    args = parser.parse_args()
    if args.agree is not None:
        return agree(args.agree)
    rs = load_ruleset("intelligent")

    def state_api(rng: random.Random) -> None:
        state = NestedState.initial(rs)
        while not state.over:
            legal = state.legal_actions()
            state = state.apply(legal[rng.randrange(len(legal))])

    print(f"{'games per second':<46} {'CPU':>10} {'wall':>10}  ratio (CPU)")
    base, _ = figure("course-simulator style (baseline)", rate(one(simulator_game), args.seconds), None)
    engine, _ = figure("qttt.nested.engine.nested_playout", rate(one(lambda rng: nested_playout(rs, rng)),
                                                           args.seconds), base)
    figure("NestedState legal_actions + apply", rate(one(state_api), args.seconds), base)
    reason = available()
    if reason is not None:
        print(f"compiled nested core: not measured: {reason}")
    else:
        core = core_for(rs)
        fast, _ = figure("compiled nested core", rate(lambda rng: len(core.games(rng, 20000, cells=False)[1]),
                                                      args.seconds), base)
        print(f"compiled nested core against the Python engine (CPU): {fast / engine:.0f}x (target 100x)")
        search = {c: figure(f"search player iterations, {c} rollouts", rate(partial(iterations, rs, c),
                                                                              args.seconds), None)
                  for c in ("python", "compiled")}
        print(f"search player, iterations per CPU-second with the compiled core: "
              f"{search['compiled'][0] / search['python'][0]:.0f}x the Python engine's")

    rng = random.Random(1)
    lengths, empty, ends = [], [], {"x": 0, "o": 0, "draw": 0}
    for _ in range(args.games):
        moves, final = nested_playout(rs, rng)
        lengths.append(len(moves))
        empty.append(sum(1 for m in final.marks if m is None))
        ends[final.winner or "draw"] += 1
    print(f"\n{args.games} random games: x wins {ends['x']}, o wins {ends['o']}, no pattern {ends['draw']}")
    print(f"moves: mean {statistics.mean(lengths):.1f}, min {min(lengths)}, max {max(lengths)}")
    print(f"cells left empty: mean {statistics.mean(empty):.1f} of 256 (course simulator: about 39)")
    return 0


def figure(label: str, rates: tuple[float, float], base: float | None) -> tuple[float, float]:
    """Print one figure (CPU and wall rates, the CPU ratio to `base`); return the rates."""
    cpu, wall = rates
    ratio = f"{cpu / base:.2f}x" if base else "1.00x"
    print(f"{label:<46} {cpu:10.1f} {wall:10.1f}  {ratio}", flush=True)
    return rates


if __name__ == "__main__":
    sys.exit(main())
