"""Random games per second of Intelligent Tic-Tac-Toe (ruleset `intelligent`), on one core, and
random-play statistics.

Three figures, all measured in this run: `qttt.nested.nested_playout` (the engine's playout loop),
a loop over the immutable `NestedState` API (`legal_actions` + `apply`), and the baseline: a naive
re-implementation in the style of the 2017 course simulator (a 16×16 list of '-', 'x', 'o', the
valid cells found by scanning the routed block or the whole board, block and board patterns checked
cell by cell after each move), written here from the rules. Ratios are to that baseline. Then the
statistics of the engine's random games: wins, draws, length and cells left empty (the course
simulator's random games leave about 39 of 256 cells empty and last 154 to 249 moves).

    python bench/bench_nested.py [--seconds S] [--games N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import qttt
from qttt.nested.engine import NestedState, nested_playout

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


def rate(play: Callable[[random.Random], object], seconds: float) -> float:
    """Games per second: the best of three timed rounds of about seconds/3 each."""
    rng = random.Random(2017)
    best = 0.0
    for _ in range(3):
        games, start = 0, time.perf_counter()
        deadline = start + seconds / 3
        while True:
            play(rng)
            games += 1
            now = time.perf_counter()
            if now >= deadline:
                break
        best = max(best, games / (now - start))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="time per measured figure")
    parser.add_argument("--games", type=int, default=2000, help="random games for the statistics")
    args = parser.parse_args()
    rs = qttt.load_ruleset("intelligent")

    def state_api(rng: random.Random) -> None:
        state = NestedState.initial(rs)
        while not state.over:
            legal = state.legal_actions()
            state = state.apply(legal[rng.randrange(len(legal))])

    base = rate(simulator_game, args.seconds)
    print(f"course-simulator style (baseline) {base:10.1f} games/s  1.00x")
    for label, play in (("qttt.nested.nested_playout", lambda rng: nested_playout(rs, rng)),
                        ("NestedState legal_actions + apply", state_api)):
        r = rate(play, args.seconds)
        print(f"{label:<33} {r:10.1f} games/s  {r / base:.2f}x")

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


if __name__ == "__main__":
    main()
