"""A nested-classical state drawn as text for terminals (rule nested-board): one character per
cell, blocks separated by rules, the map of block states and a status line."""

from __future__ import annotations

from ..text import BOLD, COLOURS, DIM, paint
from .engine import NestedState

# Block states in the block map: won by x or o, drawn, open; `*` marks a block the next move must use.
BLOCK_GLYPH = {"x": "X", "o": "O", "drawn": "#", "open": "."}
TARGET = "\x1b[43m\x1b[30m"


def nested_text(state: NestedState, colour: bool = False) -> str:
    """A nested-classical board: one character per cell with row and column numbers, blocks
    separated by rules, then the map of block states and the status line.

    Cells: `x`/`o` a mark (upper case: the previous move), `.` empty, ` ` empty in a closed block.
    Without colour the blocks the next move must use carry `*` in the map and `:` instead of `.`
    for their empty cells; with colour they have a yellow background.
    """
    n = state.ruleset.board
    side = n * n
    blocks, target = state.blocks, set(state.target or ())
    marks, last = state.marks, state.last
    head = "    " + " │ ".join(" ".join(f"{c:>2}" for c in range(b * n, b * n + n)) for b in range(n))
    rule = "    " + "─┼─".join(["─" * (3 * n - 1)] * n)
    lines = [head, rule.replace("┼", "┬")]
    for r in range(side):
        if r and r % n == 0:
            lines.append(rule)
        groups = []
        for bc in range(n):
            b = (r // n) * n + bc
            cells = []
            for c in range(bc * n, bc * n + n):
                cell = r * side + c
                m = marks[cell]
                if m is not None:
                    text = m[0].upper() if cell == last else m[0]
                    style = BOLD + COLOURS[m[0]] if cell == last else COLOURS[m[0]]
                elif blocks[b] != "open":
                    text, style = " ", ""
                else:
                    text, style = (":" if b in target and not colour else "."), DIM
                if colour and b in target:
                    style = TARGET
                cells.append(paint(f"{text:>2}", style, colour))
            groups.append(" ".join(cells))
        lines.append(f"{r:>2}  " + " │ ".join(groups))
    lines.append("")
    lines.append("blocks:")
    for br in range(n):
        row = []
        for bc in range(n):
            b = br * n + bc
            glyph = BLOCK_GLYPH[blocks[b]]
            mark = "*" if b in target else " "
            row.append(paint(f"{b:>2}{glyph}{mark}", TARGET if colour and b in target else "", colour))
        lines.append("  " + " ".join(row))
    return "\n".join(lines) + "\n" + nested_status(state)


def nested_status(state: NestedState) -> str:
    """Who moves next and where, or the result."""
    if state.over:
        s = state.scores
        how = f"{state.winner} wins a pattern of blocks" if state.winner else "no pattern of blocks"
        return f"game over: {how}; x {s['x']}, o {s['o']}"
    bonus = " (bonus move)" if state.bonus else ""
    if state.target is None:
        return f"{state.to_move} to move {state.move}{bonus}: any empty cell of an open block"
    where = " or ".join(str(b) for b in state.target)
    return f"{state.to_move} to move {state.move}{bonus} in block {where}"
