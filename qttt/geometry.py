"""Board geometry: cells, lines (rule `pattern-line`) and squares (rule `pattern-square`)."""

from __future__ import annotations

from functools import cache
from typing import NamedTuple


class Pattern(NamedTuple):
    """A set of cells, as a bitmask and as sorted cell numbers."""

    mask: int
    cells: tuple[int, ...]


def _pattern(cells: list[int]) -> Pattern:
    return Pattern(sum(1 << c for c in cells), tuple(sorted(cells)))


@cache
def lines(n: int, length: int = 0) -> tuple[Pattern, ...]:
    """Every run of `length` consecutive cells in a row, column or diagonal (0: the board size)."""
    length = length or n
    found: list[Pattern] = []
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(n):
            for c in range(n):
                end_r, end_c = r + dr * (length - 1), c + dc * (length - 1)
                if 0 <= end_r < n and 0 <= end_c < n:
                    found.append(_pattern([(r + dr * i) * n + c + dc * i for i in range(length)]))
    return tuple(found)


@cache
def squares(n: int, side: int = 2) -> tuple[Pattern, ...]:
    """Every side×side block of cells."""
    return tuple(_pattern([(r + i) * n + c + j for i in range(side) for j in range(side)])
                 for r in range(n - side + 1) for c in range(n - side + 1))


def patterns(n: int, kind: str, length: int) -> tuple[Pattern, ...]:
    """The patterns of a scoring component: `line` or `square` of the given length."""
    return lines(n, length) if kind == "line" else squares(n, length)


@cache
def board_symmetries(n: int) -> tuple[tuple[int, ...], ...]:
    """The 8 symmetries of the n×n square as cell permutations p (cell c goes to p[c]), identity first."""
    def image(r: int, c: int, s: int) -> int:
        for _ in range(s & 3):
            r, c = c, n - 1 - r
        if s & 4:
            c = n - 1 - c
        return r * n + c
    return tuple(tuple(image(*divmod(cell, n), s) for cell in range(n * n)) for s in range(8))


_CELLS: dict[int, tuple[int, ...]] = {}


def cells_of(mask: int) -> tuple[int, ...]:
    """The cell numbers set in a bitmask, in increasing order (memoised)."""
    cells = _CELLS.get(mask)
    if cells is None:
        cells = tuple(i for i in range(mask.bit_length()) if mask >> i & 1)
        _CELLS[mask] = cells
    return cells


@cache
def grid_patterns(n: int, kinds: tuple[str, ...]) -> tuple[Pattern, ...]:
    """The patterns of an n×n grid of the given kinds (rule nested-patterns): rows, columns, the two
    diagonals, and diamonds (the four cells around the centre of each 3×3 square)."""
    found: list[Pattern] = []
    for kind in kinds:
        if kind == "rows":
            found += [_pattern([r * n + c for c in range(n)]) for r in range(n)]
        elif kind == "columns":
            found += [_pattern([r * n + c for r in range(n)]) for c in range(n)]
        elif kind == "diagonals":
            found += [_pattern([i * n + i for i in range(n)]),
                      _pattern([i * n + n - 1 - i for i in range(n)])]
        elif kind == "diamonds":
            found += [_pattern([(r + 1) * n + c, r * n + c + 1, (r + 2) * n + c + 1, (r + 1) * n + c + 2])
                      for r in range(n - 2) for c in range(n - 2)]
        else:
            raise ValueError(f"unknown pattern kind {kind!r}")
    return tuple(found)
