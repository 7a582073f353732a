"""A quantum state drawn as SVG: classical marks large, spooky marks small with their move numbers as
subscripts, the entanglement edges drawn, the pending cycle highlighted, the patterns that score
on a final board marked in their owner's colour, and a measurement as the cycle above its two
outcomes (narrow enough for a phone). Output is deterministic text (standard library only).
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape

from ..errors import IllegalAction
from ..geometry import patterns
from ..svg import GRID, INK, LABEL, band, caption_font, document, num
from .engine import Measure, State, mark_name, player_of

CYCLE_FILL, CYCLE_EDGE = "#fff3c4", "#f9a825"


def _slots(state: State) -> int:
    """Columns of the grid of spooky-mark slots in one cell: room for the fullest cell of this
    position, so marks stay as large as the position allows (at least a 2×2 grid)."""
    most = max((len(m) for m in state.spooky), default=0)
    return max(2, math.ceil(math.sqrt(most)))


def _scored(state: State) -> list[tuple[str, str, tuple[int, ...]]]:
    """(owner, pattern kind, cells) of every pattern a scoring component counts on a final board."""
    if not state.over:
        return []
    n = state.ruleset.board
    found: dict[tuple[int, ...], tuple[str, str, tuple[int, ...]]] = {}
    for comp in state.ruleset.scoring:
        for pat in patterns(n, comp.pattern, comp.length or n):
            marks = [state.classical[c] for c in pat.cells]
            if all(marks) and len({player_of(m) for m in marks}) == 1:
                found[pat.cells] = (player_of(marks[0]), comp.pattern, pat.cells)
    return [found[k] for k in sorted(found, key=lambda cells: (-len(cells), cells))]


def _highlight(owner: str, kind: str, cells: tuple[int, ...], n: int, s: float) -> str:
    """A scored line as a broad stroke through its cells, a scored square as a frame round it."""
    def centre(c: int) -> tuple[float, float]:
        return (c % n + 0.5) * s, (c // n + 0.5) * s
    if kind == "square":
        xs = [c % n for c in cells]
        ys = [c // n for c in cells]
        x, y = min(xs) * s + 5, min(ys) * s + 5
        w, h = (max(xs) - min(xs) + 1) * s - 10, (max(ys) - min(ys) + 1) * s - 10
        return (f'<rect class="scored square {owner}" x="{num(x)}" y="{num(y)}" width="{num(w)}" '
                f'height="{num(h)}" rx="8" fill="none" stroke="{INK[owner]}" stroke-width="3" '
                f'stroke-dasharray="6 4" stroke-opacity="0.7"/>')
    (ax, ay), (bx, by) = centre(cells[0]), centre(cells[-1])
    return (f'<line class="scored line {owner}" x1="{num(ax)}" y1="{num(ay)}" x2="{num(bx)}" '
            f'y2="{num(by)}" stroke="{INK[owner]}" stroke-width="{num(s * 0.22)}" '
            f'stroke-linecap="round" stroke-opacity="0.18"/>')


def _mark_text(x: float, y: float, move: int, size: float, cls: str, anchor: str = "middle") -> str:
    """A mark as a letter with its move number as a subscript."""
    p = player_of(move)
    return (f'<text class="{cls} {p}" x="{num(x)}" y="{num(y)}" font-size="{num(size)}" '
            f'text-anchor="{anchor}" fill="{INK[p]}" data-mark="{mark_name(move)}">{p}'
            f'<tspan dy="{num(size * 0.28)}" font-size="{num(size * 0.62)}">{move}</tspan></text>')


def _panel(state: State, x0: float, y0: float, size: float, caption: str | None) -> list[str]:
    """The elements of one board whose top-left corner is (x0, y0)."""
    n = state.ruleset.board
    s = size / n
    cols = _slots(state)
    slot = s / cols
    small = slot * 0.6
    cycle = set(state.cycle or ())
    pending = state.pending
    out = [f'<g class="qttt-board" transform="translate({num(x0)},{num(y0)})">',
           f'<rect x="0" y="0" width="{num(size)}" height="{num(size)}" fill="#ffffff"/>']
    spot: dict[tuple[int, int], tuple[float, float]] = {}
    out += [_highlight(owner, kind, cells, n, s) for owner, kind, cells in _scored(state)]
    for c in range(n * n):
        r, col = divmod(c, n)
        cx, cy = col * s, r * s
        if c in cycle:
            out.append(f'<rect class="cycle-cell" x="{num(cx)}" y="{num(cy)}" width="{num(s)}" '
                       f'height="{num(s)}" fill="{CYCLE_FILL}"/>')
        out.append(f'<text class="square" x="{num(cx + s - 3)}" y="{num(cy + s - 4)}" '
                   f'font-size="{num(s * 0.13)}" text-anchor="end" fill="{LABEL}">{c + 1}</text>')
        k = state.classical[c]
        if k:
            out.append(_mark_text(cx + s * 0.45, cy + s * 0.66, k, s * 0.55, "classical"))
            continue
        for i, m in enumerate(state.spooky[c]):
            sr, sc = divmod(i, cols)
            mx, my = cx + (sc + 0.42) * slot, cy + (sr + 0.62) * slot
            spot[(m, c)] = (mx, my - small * 0.3)
            out.append(_mark_text(mx, my, m, small, "spooky"))
    for k, (a, b) in sorted(state.edges.items()):
        (ax, ay), (bx, by) = spot[(k, a)], spot[(k, b)]
        on_cycle = a in cycle and b in cycle
        width = 2.4 if k == pending else (1.6 if on_cycle else 1.0)
        colour = CYCLE_EDGE if on_cycle else INK[player_of(k)]
        out.append(f'<line class="edge{" cycle-edge" if on_cycle else ""}" data-move="{k}" '
                   f'x1="{num(ax)}" y1="{num(ay)}" x2="{num(bx)}" y2="{num(by)}" '
                   f'stroke="{colour}" stroke-width="{width}" stroke-opacity="0.7"/>')
    for i in range(1, n):
        out.append(f'<line class="grid" x1="{num(i * s)}" y1="0" x2="{num(i * s)}" '
                   f'y2="{num(size)}" stroke="{GRID}" stroke-width="1.5"/>')
        out.append(f'<line class="grid" x1="0" y1="{num(i * s)}" x2="{num(size)}" '
                   f'y2="{num(i * s)}" stroke="{GRID}" stroke-width="1.5"/>')
    out.append(f'<rect x="0" y="0" width="{num(size)}" height="{num(size)}" fill="none" '
               f'stroke="{GRID}" stroke-width="2"/>')
    if caption:
        f = caption_font(size)
        out.append(f'<text class="caption" x="{num(size / 2)}" y="{num(size + f * 1.45)}" '
                   f'font-size="{num(f)}" text-anchor="middle" fill="#212121">{escape(caption)}</text>')
    out.append("</g>")
    return out


def board_svg(state: State, size: float | None = None, caption: str | None = None) -> str:
    """One board as a standalone SVG document, with an optional caption under it (default size:
    80 pixels a cell)."""
    size = size or 80.0 * state.ruleset.board
    height = size + (band(size) if caption else 0)
    label = caption or f"board of {state.ruleset.canonical}"
    return document(size + 8, height + 8, label, _panel(state, 4, 4, size, caption))


def measurement_svg(state: State, size: float | None = None) -> str:
    """A pending cycle above its two measurement outcomes side by side (rule collapse-component)."""
    size = size or 64.0 * state.ruleset.board
    k = state.pending
    if k is None:
        raise IllegalAction("measure-pending", "no cycle is pending; there is nothing to measure")
    a, b = state.edges[k]
    name = mark_name(k).upper()
    who = (state.to_move or "").upper()
    panels = [(state, f"{name} closes a cycle; {who} measures"),
              (state.apply(Measure(a)), f"{name} measured into square {a + 1}"),
              (state.apply(Measure(b)), f"{name} measured into square {b + 1}")]
    gap = 28
    wide = 2 * size + gap  # the cycle is drawn across the whole width, its marks twice as large
    body = _panel(panels[0][0], 4, 4, wide, panels[0][1])
    top = wide + band(wide) + 12
    for i, (st, caption) in enumerate(panels[1:]):
        body += _panel(st, 4 + i * (size + gap), top, size, caption)
    body.append(f'<text class="arrow" x="{num(4 + size + gap / 2)}" y="{num(top + size / 2)}" '
                f'font-size="18" text-anchor="middle" fill="{LABEL}">or</text>')
    width = 2 * size + gap + 8
    label = f"{name} closes a cycle; the two outcomes of measuring it"
    return document(width, top + size + band(size) + 4, label, body)
