"""Rules in words: the reading each parameter value of a ruleset selects, from the declarations
(qttt.vocabulary: each value's reading)."""

from __future__ import annotations

from ..ruleset import Ruleset
from ..vocabulary import PARAMETER_BY_NAME, format_value


def _line_words(n: int, length: int) -> str:
    length = length or n
    return f"line of {length}" + (" (a full row, column or long diagonal)" if length == n else "")


def parameter_statement(rs: Ruleset, name: str) -> str:
    """The reading a ruleset's value of one parameter selects, in words."""
    v, n, p = rs.value(name), rs.board, PARAMETER_BY_NAME[name]
    if name == "game":
        return "Quantum tic-tac-toe: each placement puts two spooky marks; X places first."
    if name == "board":
        return f"The board is {n}×{n}: cells 0 to {n * n - 1} row by row, squares 1 to {n * n} in notation."
    if name == "draw_second":  # rule score-draw-second
        return ("A drawn game is scored as its points stand." if not v else
                f"A drawn game (both players' points equal) gives O {format_value(v)} more points and X "
                f"{format_value(v)} fewer.")
    if p.values:
        chance = rs.rules.p
        return p.reading(v).format(n=n, line=_line_words(n, rs.rules.end_line), p=chance, q=1 - chance)
    return f"{name} = {format_value(v)}."
