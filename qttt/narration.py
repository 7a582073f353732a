"""Words shared by every family's narration: squares numbered from 1 and scores as the docs write
them. Each family narrates its own actions (qttt.quantum.narration for the quantum one)."""

from __future__ import annotations

from fractions import Fraction


def squares(cells: tuple[int, ...]) -> str:
    """Cells as human squares: `1, 5 and 9`."""
    names = [str(c + 1) for c in cells]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def frac(v: Fraction) -> str:
    """A score as the docs write it: ½ for one half."""
    return {Fraction(1, 2): "½"}.get(v, str(v))
