"""Text for terminals shared by every family: colours, painting a span, counting words. Each
family draws its own board (Family.board_text); qttt.quantum.text draws the quantum one."""

from __future__ import annotations

BOLD, DIM, UNDERLINE, RESET = "\x1b[1m", "\x1b[2m", "\x1b[4m", "\x1b[0m"
COLOURS = {"x": "\x1b[31m", "o": "\x1b[34m"}


def paint(text: str, style: str, colour: bool) -> str:
    """`text` in `style` when colour is on."""
    return f"{style}{text}{RESET}" if colour and style else text


def count(n: int, word: str, many: str | None = None) -> str:
    """`1 game`, `2 games` (`many`: the plural when it is not word + s)."""
    return f"{n} {word if n == 1 else many or word + 's'}"
