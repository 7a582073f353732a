"""Naive reference model of the nested-classical family (Intelligent Tic-Tac-Toe and its editions).

Written from the documents only (the seed README 002, design/rulesets.md and design/competitions.md,
the rule statements of spec/rules.toml and the variant files), independently of qttt/nested.py,
in the style of the course simulators: a board of '-', 'x' and 'o' addressed by (row, column), a
list of block states, every check a loop over coordinates. Nothing is cached or masked.
"""

from __future__ import annotations

import random
import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

SPEC = Path(__file__).resolve().parents[2] / "spec"

Params = dict[str, Any]
Action = dict[str, Any]

DEFAULTS: dict[str, Any] = {
    "board": 3,
    "route": "same",
    "block_patterns": ["rows", "columns", "diagonals"],
    "board_patterns": ["rows", "columns", "diagonals"],
    "full_block": "pattern-first",
    "bonus": "none",
}


class RefIllegal(Exception):
    """A move the rules forbid; ``rule`` is the id from spec/rules.toml."""

    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        self.rule = rule


def load_nested(path_or_name: str | Path) -> Params:
    """Rules and scoring of a nested-classical variant file (following `extends`)."""
    text = str(path_or_name)
    path = Path(text) if text.endswith(".toml") else SPEC / "variants" / f"{text}.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    parent = data.get("variant", {}).get("extends")
    if parent is None:
        params: Params = {**DEFAULTS, "scoring": []}
    else:
        target = parent if not parent.endswith(".toml") else str((path.parent / parent).resolve())
        params = load_nested(target)
    params.update(data.get("rules", {}))
    if "scoring" in data:
        params["scoring"] = data["scoring"]
    assert params.get("game") == "nested-classical", path
    return params


def grid_sets(n: int, kinds: list[str]) -> list[list[tuple[int, int]]]:
    """Pattern cells of an n×n grid as (row, column) pairs, per the kinds of rule nested-patterns."""
    sets: list[list[tuple[int, int]]] = []
    if "rows" in kinds:
        sets += [[(r, c) for c in range(n)] for r in range(n)]
    if "columns" in kinds:
        sets += [[(r, c) for r in range(n)] for c in range(n)]
    if "diagonals" in kinds:
        sets.append([(i, i) for i in range(n)])
        sets.append([(i, n - 1 - i) for i in range(n)])
    if "diamonds" in kinds:
        for top in range(n - 2):
            for left in range(n - 2):
                sets.append([(top, left + 1), (top + 1, left), (top + 1, left + 2), (top + 2, left + 1)])
    return sets


class RefNested:
    """One game, simulator style."""

    def __init__(self, params: Params, variant: str = "custom") -> None:
        self.params = params
        self.variant = variant
        self.n: int = params["board"]
        self.side = self.n * self.n
        self.board = [["-"] * self.side for _ in range(self.side)]
        self.number = [[0] * self.side for _ in range(self.side)]
        self.block_status = ["-"] * self.side  # '-' open, 'x' / 'o' won, 'd' drawn
        self.old_move: tuple[int, int] | None = None
        self.player = "x"
        self.bonus_now = False
        self.moves = 0
        self.winner: str | None = None
        self.finished = False
        self.points = {"x": Fraction(0), "o": Fraction(0)}

    # ----- geometry

    def block_no(self, r: int, c: int) -> int:
        return (r // self.n) * self.n + c // self.n

    def block_cells(self, b: int) -> list[tuple[int, int]]:
        top, left = (b // self.n) * self.n, (b % self.n) * self.n
        return [(top + i, left + j) for i in range(self.n) for j in range(self.n)]

    def routed_blocks(self) -> list[int]:
        """The blocks the route names for the previous move's position."""
        assert self.old_move is not None
        r, c = self.old_move
        position = (r % self.n) * self.n + c % self.n
        route = self.params["route"]
        return [position] if route == "same" else list(route[position])

    # ----- legal moves

    def allowed_cells(self) -> list[tuple[int, int]]:
        if self.finished:
            return []
        cells: list[tuple[int, int]] = []
        if self.old_move is not None:
            for b in self.routed_blocks():
                if self.block_status[b] == "-":
                    cells += [(r, c) for r, c in self.block_cells(b) if self.board[r][c] == "-"]
        if not cells:  # first move, or free move
            for r in range(self.side):
                for c in range(self.side):
                    if self.board[r][c] == "-" and self.block_status[self.block_no(r, c)] == "-":
                        cells.append((r, c))
        return sorted(cells)

    def legal(self) -> list[Action]:
        return [{"mark": r * self.side + c} for r, c in self.allowed_cells()]

    def target(self) -> list[int] | None:
        if self.finished or self.old_move is None:
            return None
        found = [b for b in self.routed_blocks() if self.block_status[b] == "-"
                 and any(self.board[r][c] == "-" for r, c in self.block_cells(b))]
        return found or None

    # ----- moves

    def apply(self, action: Action) -> None:
        if not isinstance(action, dict) or list(action) != ["mark"]:
            raise RefIllegal("record-format")
        cell = action["mark"]
        if not isinstance(cell, int) or isinstance(cell, bool):
            raise RefIllegal("record-format")
        if self.finished:
            raise RefIllegal("over-no-action")
        if not 0 <= cell < self.side * self.side:
            raise RefIllegal("nested-board")
        r, c = divmod(cell, self.side)
        if self.board[r][c] != "-":
            raise RefIllegal("nested-cell-empty")
        if self.block_status[self.block_no(r, c)] != "-":
            raise RefIllegal("nested-block-closed")
        if (r, c) not in self.allowed_cells():
            raise RefIllegal("nested-route")
        self._play(r, c)

    def _play(self, r: int, c: int) -> None:
        ply = self.player
        self.moves += 1
        self.board[r][c] = ply
        self.number[r][c] = self.moves
        b = self.block_no(r, c)
        cells = self.block_cells(b)
        top, left = cells[0]
        full = all(self.board[i][j] != "-" for i, j in cells)
        won = any(all(self.board[top + i][left + j] == ply for i, j in pat)
                  for pat in grid_sets(self.n, self.params["block_patterns"]))
        block_won = False
        if full and self.params["full_block"] == "drawn-first":
            self.block_status[b] = "d"
        elif won:
            self.block_status[b] = ply
            block_won = True
        elif full:
            self.block_status[b] = "d"
        self.old_move = (r, c)
        for pat in grid_sets(self.n, self.params["board_patterns"]):
            if all(self.block_status[i * self.n + j] == ply for i, j in pat):
                self.winner = ply
                self._end()
                return
        if "-" not in self.block_status:
            self._end()
            return
        if block_won and (self.params["bonus"] == "chain"
                          or (self.params["bonus"] == "block-win" and not self.bonus_now)):
            self.bonus_now = True
        else:
            self.bonus_now = False
            self.player = "o" if ply == "x" else "x"

    def _end(self) -> None:
        self.finished = True
        for comp in self.params["scoring"]:
            award = comp["award"]
            if award == "win":
                if self.winner is not None:
                    self.points[self.winner] += Fraction(str(comp.get("points", "1")))
                continue
            if self.winner is not None:
                continue
            weights = comp.get("weights", "equal")
            worth = {p: Fraction(0) for p in ("x", "o")}
            for b, s in enumerate(self.block_status):
                if s in worth:
                    worth[s] += Fraction(1) if weights == "equal" else Fraction(str(weights[b]))
            if award == "draw-blocks":
                for p in worth:
                    self.points[p] += worth[p]
            else:  # draw-majority
                if worth["x"] == worth["o"]:
                    for p in worth:
                        self.points[p] += Fraction(str(comp.get("equal", "1/2")))
                else:
                    best = "x" if worth["x"] > worth["o"] else "o"
                    self.points[best] += Fraction(str(comp.get("more", "1")))
                    self.points["o" if best == "x" else "x"] += Fraction(str(comp.get("fewer", "0")))

    # ----- the interchange state

    def state(self) -> dict[str, Any]:
        board: list[Any] = []
        for r in range(self.side):
            for c in range(self.side):
                board.append(f"{self.board[r][c]}{self.number[r][c]}" if self.board[r][c] != "-" else [])
        names = {"-": "open", "x": "x", "o": "o", "d": "drawn"}
        return {
            "variant": self.variant,
            "board": board,
            "to_move": None if self.finished else self.player,
            "phase": "over" if self.finished else "place",
            "move": self.moves + 1,
            "cycle": None,
            "over": self.finished,
            "scores": {p: str(self.points[p]) for p in ("x", "o")},
            "blocks": [names[s] for s in self.block_status],
            "target": self.target(),
            "bonus": self.bonus_now and not self.finished,
        }


def random_nested(params: Params, rng: random.Random, variant: str = "custom") -> list[Action]:
    """A game of uniformly random legal moves."""
    game = RefNested(params, variant)
    actions: list[Action] = []
    while True:
        options = game.legal()
        if not options:
            return actions
        action = rng.choice(options)
        game.apply(action)
        actions.append(action)
