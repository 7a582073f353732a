"""A state drawn as text for terminals: classical marks large, spooky marks small, the pending
cycle highlighted. Squares are numbered from 1, as in the human notation."""

from __future__ import annotations

from .engine import Place, State, mark_name

BOLD, DIM, RESET = "\x1b[1m", "\x1b[2m", "\x1b[0m"
COLOURS = {"x": "\x1b[31m", "o": "\x1b[34m"}
CYCLE = "\x1b[43m\x1b[30m"
WIDTH = 12


def _paint(text: str, style: str, colour: bool) -> str:
    return f"{style}{text}{RESET}" if colour and style else text


def _cell_lines(state: State, c: int, colour: bool, height: int) -> list[str]:
    """The lines of one cell, each WIDTH wide, with the square number at the top right."""
    label = str(c + 1)
    k = state.classical[c]
    if k:
        big = mark_name(k).upper()
        plain = [""] * height
        plain[height // 2] = big.center(WIDTH - 2)
        styles = [BOLD + COLOURS[big[0].lower()]] * height
    else:
        marks = [mark_name(m) for m in state.spooky[c]]
        per = 3 if height > 2 else 4
        plain = [" " + " ".join(marks[i:i + per]) for i in range(0, len(marks), per)][:height]
        plain += [""] * (height - len(plain))
        styles = [""] * height
    out = []
    for h, (text, style) in enumerate(zip(plain, styles, strict=True)):
        room = WIDTH - (len(label) if h == 0 else 0)
        body = _paint(text[:room], style, colour) + " " * (room - len(text[:room]))
        if h == 0:
            body += _paint(label, DIM, colour)
        if c in (state.cycle or ()) and colour:
            body = CYCLE + body.replace(RESET, RESET + CYCLE) + RESET
        out.append(body)
    return out


def board_text(state: State, colour: bool = False) -> str:
    """The board, a status line, and the live entanglements."""
    n = state.ruleset.board
    height = 3 if n <= 3 else 2
    sep = "+" + "+".join(["-" * WIDTH] * n) + "+"
    lines = [sep]
    for r in range(n):
        cells = [_cell_lines(state, r * n + col, colour, height) for col in range(n)]
        for h in range(height):
            lines.append("|" + "|".join(cells[col][h] for col in range(n)) + "|")
        lines.append(sep)
    lines.append(status_line(state))
    edges = state.edges
    if edges:
        lines.append("entangled: " + ", ".join(
            f"{mark_name(k)} {a + 1}-{b + 1}" for k, (a, b) in sorted(edges.items())))
    if state.cycle:
        lines.append("pending cycle: squares " + ", ".join(str(c + 1) for c in state.cycle))
    return "\n".join(lines)


def status_line(state: State) -> str:
    """Who does what next, or the result."""
    if state.over:
        s = state.scores
        return f"game over: x {s['x']}, o {s['o']}"
    if state.phase == "measure":
        k = state.pending
        assert k is not None
        a, b = state.edges[k]
        cyc = ", ".join(str(c + 1) for c in state.cycle or ())
        return (f"cycle on squares {cyc} closed by {mark_name(k)}: {state.to_move} measures, "
                f"putting {mark_name(k)} in square {a + 1} or {b + 1}")
    legal = state.legal_actions()
    if not legal:
        return f"{state.to_move} to place {mark_name(state.move)}, but no placement is legal (deadlock)"
    only = legal[0]
    if len(legal) == 1 and isinstance(only, Place) and only.a == only.b:
        return f"{state.to_move} must fill the last square {only.a + 1} with {mark_name(state.move)}"
    return f"{state.to_move} to place {mark_name(state.move)}"
