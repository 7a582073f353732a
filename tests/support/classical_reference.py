"""Naive reference model of the classical family (n×n tic-tac-toe, k in a row), written from the
rule statements classical-* of spec/rules.toml, independently of qttt/classical: a list of '-', 'x'
and 'o', and a win found by walking from every cell in each of four directions. Nothing is masked.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


class RefClassical:
    """One game: `apply` takes a JSON action and returns None or the id of the rule it breaks."""

    def __init__(self, n: int, end_line: int, variant: str) -> None:
        self.n, self.k, self.variant = n, end_line or n, variant
        self.cells = ["-"] * (n * n)
        self.numbers = [0] * (n * n)
        self.moves = 0
        self.winner: str | None = None

    def player(self) -> str:
        return "x" if self.moves % 2 == 0 else "o"

    def over(self) -> bool:
        return self.winner is not None or self.moves == self.n * self.n

    def wins(self, who: str) -> bool:
        n, k = self.n, self.k
        for r in range(n):
            for c in range(n):
                for dr, dc in DIRECTIONS:
                    run = [(r + i * dr, c + i * dc) for i in range(k)]
                    if all(0 <= rr < n and 0 <= cc < n and self.cells[rr * n + cc] == who for rr, cc in run):
                        return True
        return False

    def legal(self) -> list[dict[str, int]]:
        if self.over():
            return []
        return [{"mark": c} for c in range(self.n * self.n) if self.cells[c] == "-"]

    def apply(self, action: dict[str, Any]) -> str | None:
        if set(action) != {"mark"}:
            return "record-format"
        if self.over():
            return "over-no-action"
        c = action["mark"]
        if not 0 <= c < self.n * self.n:
            return "classical-board"
        if self.cells[c] != "-":
            return "classical-cell-empty"
        who = self.player()
        self.cells[c] = who
        self.moves += 1
        self.numbers[c] = self.moves
        if self.wins(who):
            self.winner = who
        return None

    def scores(self) -> dict[str, str]:
        if not self.over():
            return {"x": "0", "o": "0"}
        if self.winner is None:
            return {"x": "1/2", "o": "1/2"}
        return {p: str(Fraction(int(p == self.winner))) for p in ("x", "o")}

    def state(self) -> dict[str, Any]:
        over = self.over()
        return {"variant": self.variant,
                "board": [f"{self.cells[c]}{self.numbers[c]}" if self.numbers[c] else []
                          for c in range(self.n * self.n)],
                "to_move": None if over else self.player(), "phase": "over" if over else "place",
                "move": self.moves + 1, "cycle": None, "over": over, "scores": self.scores()}
