"""The final rules of the 2016 IIIT Hyderabad evaluator (susobhang70/mod_uttt `evaluator_code.py`
at 41ea572, 2016-03-04), written for these tests from a reading of those rules, not from the
variant file: nothing here is a parameter. It is the reference the edition
spec/editions/intelligent-2016.toml is replayed against.

The rules as the final evaluator applies them:
- a 9×9 board addressed (row, column); block b holds rows 3(b//3).., columns 3(b%3)..;
- the first move may go anywhere;
- afterwards the position of the last move inside its block, (row % 3, column % 3), names the
  blocks the next move must use: a corner or an edge position the two blocks beside the
  matching one, the centre position the centre block; blocks already won or drawn drop out;
- if none of those blocks has an empty cell, any empty cell of an undecided block may be used;
- after a move, the block's lines are looked at first: a line of three equal marks wins the
  block for the mover; only then, a block without an empty cell that nobody won is drawn;
- the game ends when a line of three blocks won by one player exists (the mover wins), or when
  no block is undecided: more blocks won wins; equal is a draw.
Points as the edition file states them: 1 for a win, 1/2 each for a draw.
"""

from __future__ import annotations

from fractions import Fraction

# The blocks a move at (row % 3, column % 3) sends the opponent to.
NEXT_BLOCKS = {
    (0, 0): (1, 3), (0, 1): (0, 2), (0, 2): (1, 5),
    (1, 0): (0, 6), (1, 1): (4,), (1, 2): (2, 8),
    (2, 0): (3, 7), (2, 1): (6, 8), (2, 2): (5, 7),
}
LINES = [[(0, 0), (0, 1), (0, 2)], [(1, 0), (1, 1), (1, 2)], [(2, 0), (2, 1), (2, 2)],
         [(0, 0), (1, 0), (2, 0)], [(0, 1), (1, 1), (2, 1)], [(0, 2), (1, 2), (2, 2)],
         [(0, 0), (1, 1), (2, 2)], [(0, 2), (1, 1), (2, 0)]]


class Evaluator2016:
    """One game under the final 2016 rules: `cells()` the legal cells, `play(r, c)` a move."""

    def __init__(self) -> None:
        self.board = [["-"] * 9 for _ in range(9)]
        self.blocks = ["-"] * 9  # "-" undecided, "x"/"o" won, "D" drawn
        self.last: tuple[int, int] | None = None
        self.mover = "x"
        self.won = {"x": 0, "o": 0}
        self.result: dict[str, Fraction] | None = None

    def _empty_in(self, block: int) -> list[tuple[int, int]]:
        r0, c0 = 3 * (block // 3), 3 * (block % 3)
        return [(r, c) for r in range(r0, r0 + 3) for c in range(c0, c0 + 3) if self.board[r][c] == "-"]

    def cells(self) -> list[tuple[int, int]]:
        """The cells the player to move may mark, sorted; [] when the game is over."""
        if self.result is not None:
            return []
        if self.last is None:
            return [(r, c) for r in range(9) for c in range(9)]
        allowed = [b for b in NEXT_BLOCKS[(self.last[0] % 3, self.last[1] % 3)] if self.blocks[b] == "-"]
        cells = [cell for b in allowed for cell in self._empty_in(b)]
        if not cells:
            cells = [cell for b in range(9) if self.blocks[b] == "-" for cell in self._empty_in(b)]
        return sorted(cells)

    def play(self, r: int, c: int) -> None:
        """The mover marks (r, c), which must be among `cells()`."""
        assert (r, c) in self.cells(), (r, c)
        me = self.mover
        self.board[r][c] = me
        block = 3 * (r // 3) + c // 3
        r0, c0 = 3 * (block // 3), 3 * (block % 3)
        if any(all(self.board[r0 + i][c0 + j] == me for i, j in line) for line in LINES):
            self.blocks[block] = me
            self.won[me] += 1
        elif not self._empty_in(block):
            self.blocks[block] = "D"
        self.last = (r, c)
        other = "o" if me == "x" else "x"
        grid = [self.blocks[3 * i:3 * i + 3] for i in range(3)]
        if any(all(grid[i][j] == me for i, j in line) for line in LINES):
            self.result = {me: Fraction(1), other: Fraction(0)}
        elif "-" not in self.blocks:
            if self.won["x"] == self.won["o"]:
                self.result = {"x": Fraction(1, 2), "o": Fraction(1, 2)}
            else:
                best = "x" if self.won["x"] > self.won["o"] else "o"
                self.result = {best: Fraction(1), ("o" if best == "x" else "x"): Fraction(0)}
        self.mover = other
