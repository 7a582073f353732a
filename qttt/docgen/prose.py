"""Rules in words: the reading each parameter value of a ruleset selects."""

from __future__ import annotations

from ..ruleset import Ruleset
from ..vocabulary import format_value


def _line_words(n: int, length: int) -> str:
    length = length or n
    return f"line of {length}" + (" (a full row, column or long diagonal)" if length == n else "")


def parameter_statement(rs: Ruleset, name: str) -> str:
    """The reading a ruleset's value of one parameter selects, in words."""
    v, n = rs.value(name), rs.board
    if name == "game":
        return "Quantum tic-tac-toe: each placement puts two spooky marks; X places first."
    if name == "board":
        return f"The board is {n}×{n}: cells 0 to {n * n - 1} row by row, squares 1 to {n * n} in notation."
    if name == "measurer":
        return ("The opponent of the player who closed a cycle measures it." if v == "opponent"
                else "The player who closed a cycle measures it.")
    if name == "two_cycles":
        return ("A placement may use the same two cells as a live spooky move; it closes a 2-cycle."
                if v else "A placement may not use the same two cells as a live spooky move.")
    if name == "last_square":
        return ("With one open cell left and the game not over, the player to move puts both marks "
                "of their move there and it is classical at once." if v == "forced"
                else "With one open cell left, the game is over.")
    if name == "untouched":
        return ("Spooky marks outside the collapsed component stay on the board." if v == "keep"
                else "After each collapse every spooky mark outside the collapsed component vanishes.")
    if name == "end":
        return (f"The game ends after the first collapse or forced placement that completes a classical "
                f"{_line_words(n, rs.rules.end_line)} for either player; otherwise on a full board."
                if v == "first-line" else "Lines do not end the game: it ends only on a full board.")
    return f"{name} = {format_value(v)}."
