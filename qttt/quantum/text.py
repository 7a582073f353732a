"""A quantum state drawn as text for terminals: classical marks large, spooky marks small, the pending
cycle highlighted. Squares are numbered from 1, as in the human notation.

Without colour the drawing still tells the kinds apart: classical marks are upper case and, on
boards drawn three lines high, framed (`\\ /` for X, `( )` for O); spooky marks are lower case;
cells of the pending cycle carry `*` beside the square number and the cycle-closing mark is
written `[x3]`. With colour X is red, O blue, the cycle cells have a yellow background and the
cycle-closing mark is underlined.
"""

from __future__ import annotations

from ..text import BOLD, COLOURS, DIM, RESET, UNDERLINE, paint
from .engine import Place, State, mark_name

CYCLE = "\x1b[43m\x1b[30m"
WIDTH = 12
LINE = 79  # wrap the list of entanglements at this width

# Three-line frames around a classical mark, by player: (top, middle template, bottom).
FRAMES = {"x": ("\\    /", "{}", "/    \\"), "o": ("/ -- \\", "( {} )", "\\ -- /")}

Span = tuple[str, str]  # a piece of text and its style ("" for none)


def _classical(k: int, height: int) -> list[list[Span]]:
    """A classical mark: centred, framed when three lines are available."""
    big = mark_name(k).upper()
    style = BOLD + COLOURS[big[0].lower()]
    rows: list[list[Span]] = [[] for _ in range(height)]
    if height >= 3:
        top, mid, bottom = FRAMES[big[0].lower()]
        mid = mid.format(big)
        width = max(len(top), len(mid))
        for h, text in zip((height // 2 - 1, height // 2, height // 2 + 1), (top, mid, bottom), strict=True):
            rows[h] = [(text.center(width).center(WIDTH - 2).rstrip(), style)]
    else:
        rows[height // 2] = [(big.center(WIDTH - 2).rstrip(), style)]
    return rows


def _spooky(state: State, c: int, height: int, room: list[int]) -> list[list[Span]]:
    """A cell's spooky marks packed into lines of the given room; `+N` when some do not fit."""
    pending = state.pending
    marks = list(state.spooky[c])
    rows: list[list[Span]] = [[] for _ in range(height)]
    used = [0] * height
    h = 0
    for i, m in enumerate(marks):
        name = mark_name(m)
        word = f"[{name}]" if m == pending else name
        while h < height and used[h] + 1 + len(word) > room[h]:
            h += 1
        if h == height:
            rest = f"+{len(marks) - i}"
            last = rows[-1]
            while last and used[-1] + 1 + len(rest) > room[-1]:
                used[-1] -= 1 + len(last.pop()[0])
            last += [(" ", ""), (rest, DIM)]
            break
        style = COLOURS[name[0]] + (UNDERLINE + BOLD if m == pending else "")
        rows[h] += [(" ", ""), (word, style)]
        used[h] += 1 + len(word)
    return rows


def _cell_lines(state: State, c: int, colour: bool, height: int) -> list[str]:
    """The lines of one cell, each WIDTH wide, with the square number at the top right."""
    in_cycle = c in (state.cycle or ())
    label = str(c + 1) + ("*" if in_cycle and not colour else "")
    room = [WIDTH - len(label) - 1] + [WIDTH - 1] * (height - 1)
    k = state.classical[c]
    rows = _classical(k, height) if k else _spooky(state, c, height, room)
    out = []
    for h, spans in enumerate(rows):
        width = WIDTH - (len(label) if h == 0 else 0)
        plain = "".join(text for text, _ in spans)[:width]
        body = "".join(paint(text, style, colour) for text, style in spans) if len(
            "".join(text for text, _ in spans)) <= width else plain
        body += " " * (width - len(plain))
        if h == 0:
            body += paint(label, DIM, colour)
        if in_cycle and colour:
            body = CYCLE + body.replace(RESET, RESET + CYCLE) + RESET
        out.append(body)
    return out


def drawing(state: State, colour: bool = False) -> str:
    """The board and the live entanglements, without the status line."""
    n = state.ruleset.board
    height = 3 if n <= 3 else 2
    sep = "+" + "+".join(["-" * WIDTH] * n) + "+"
    lines = [sep]
    for r in range(n):
        cells = [_cell_lines(state, r * n + col, colour, height) for col in range(n)]
        for h in range(height):
            lines.append("|" + "|".join(cells[col][h] for col in range(n)) + "|")
        lines.append(sep)
    line, used, items = "entangled:", len("entangled:"), 0
    for k, (a, b) in sorted(state.edges.items()):
        item = f"{mark_name(k)} {a + 1}-{b + 1}"
        if items and used + len(item) + 2 > LINE:
            lines.append(line + ",")
            line, used = " ", 1
        elif items:
            line += ","
            used += 1
        line += " " + paint(mark_name(k), COLOURS[mark_name(k)[0]], colour) + item[len(mark_name(k)):]
        used += 1 + len(item)
        items += 1
    if items:
        lines.append(line)
    return "\n".join(lines)


def board_text(state: State, colour: bool = False) -> str:
    """The board, the live entanglements and a status line (which names the pending cycle)."""
    return drawing(state, colour) + "\n" + status_line(state)


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
        if state.ruleset.rules.collapse != "choice":
            return (f"cycle on squares {cyc} closed by {mark_name(k)}: {state.to_move} names square "
                    f"{a + 1} or {b + 1} for {mark_name(k)}, then chance decides")
        return (f"cycle on squares {cyc} closed by {mark_name(k)}: {state.to_move} measures, "
                f"putting {mark_name(k)} in square {a + 1} or {b + 1}")
    if state.phase == "chance":
        k = state.pending
        assert k is not None
        odds = " or ".join(f"square {o.cell + 1} ({p})" for o, p in state.chance_outcomes())
        return f"chance decides where {mark_name(k)} lands: {odds}"
    legal = state.legal_actions()
    if not legal:
        return f"{state.to_move} to place {mark_name(state.move)}, but no placement is legal (deadlock)"
    only = legal[0]
    if len(legal) == 1 and isinstance(only, Place) and only.a == only.b:
        return f"{state.to_move} must fill the last square {only.a + 1} with {mark_name(state.move)}"
    return f"{state.to_move} to place {mark_name(state.move)}"

