"""A quantum state drawn as SVG: classical marks large, spooky marks small with their move numbers as
subscripts, the entanglement edges drawn, the pending cycle highlighted, the patterns that score
on a final board marked in their owner's colour, and a measurement as the cycle above its two
outcomes (narrow enough for a phone). Output is deterministic text (standard library only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from xml.sax.saxutils import escape

from ..errors import IllegalAction
from ..geometry import patterns
from ..svg import GRID, INK, LABEL, band, caption_font, document, num
from .engine import Measure, State, mark_name, player_of

CYCLE_FILL, CYCLE_EDGE = "#fff3c4", "#f9a825"


MARGIN, GUTTER, GAP = 0.12, 0.10, 0.04
"""Parts of a cell's side: the band along each cell border where no mark stands (connecting lines
run there, beside the grid line), the gutter between rows of quantum-mark slots (lines leave a
mark into it) and the gap between slot columns."""
Box = tuple[float, float, float, float]
Point = tuple[float, float]
Placed = tuple[float, float, float, Box]  # a mark's x, baseline, font size and the box it covers


def _slots(state: State) -> int:
    """Columns of the grid of quantum-mark slots in one cell: room for the fullest cell of this
    position, so marks stay as large as the position allows (at least a 2×2 grid)."""
    most = max((len(m) for m in state.spooky), default=0)
    return max(2, math.ceil(math.sqrt(most)))


def mark_box(x: float, baseline: float, move: int, size: float) -> Box:
    """The box a mark drawn by `_mark_text` (anchored at its start) covers: the letter from its top
    down to the subscript's foot, the letter and the digits across (DejaVu Sans metrics, rounded up)."""
    width = size * (0.64 + 0.46 * len(str(move)))
    return x, baseline - size * 0.78, x + width, baseline + size * 0.32


@dataclass(frozen=True)
class Layout:
    """Where one board's pieces go, relative to its top-left corner: each quantum mark (by move and
    cell) and each classical mark (by cell) with the box it covers, and each move's connecting line
    as a path of points. The drawing and the tests read the same data."""

    cell: float
    marks: dict[tuple[int, int], Placed]
    classical: dict[int, Placed]
    routes: dict[int, list[Point]]


def layout(state: State, size: float) -> Layout:
    """Place the marks in a grid of slots inside each cell's margins, and route each move's line
    (rule entanglement) so that it touches no mark: out of the mark into the gutter under (or over)
    its slot row, along the gutter to a band beside a grid line, along the bands to the other cell,
    and in the same way to the other mark. Every move has its own offset (lane) in the gutters and
    bands, so two lines never run on top of each other."""
    n = state.ruleset.board
    s = size / n
    cols = _slots(state)
    m, g, h = s * MARGIN, s * GUTTER, s * GAP
    row = (s - 2 * m - (cols - 1) * g) / cols
    col = (s - 2 * m - (cols - 1) * h) / cols
    digits = max((len(str(k)) for k in state.edges), default=1)
    small = min(row * 0.95 / 1.1, col * 0.95 / (0.64 + 0.46 * digits))
    marks: dict[tuple[int, int], Placed] = {}
    for c in range(n * n):
        r0, c0 = divmod(c, n)
        for i, k in enumerate(() if state.classical[c] else state.spooky[c]):
            sr, sc = divmod(i, cols)
            _, top, x1, bottom = mark_box(0, 0, k, small)
            x = c0 * s + m + sc * (col + h) + (col - x1) / 2
            y = r0 * s + m + sr * (row + g) + (row - (bottom - top)) / 2 - top
            marks[(k, c)] = (x, y, small, mark_box(x, y, k, small))
    classical: dict[int, Placed] = {}
    for c, k in enumerate(state.classical):
        if k:
            big = s * 0.5
            _, top, x1, bottom = mark_box(0, 0, k, big)
            x, y = (c % n) * s + (s - x1) / 2, (c // n) * s + (s - (bottom - top)) / 2 - top
            classical[c] = (x, y, big, mark_box(x, y, k, big))
    lanes = sorted(state.edges)
    routes = {k: _route(k, a, b, lanes.index(k), len(lanes), marks, n, s, cols, row)
              for k, (a, b) in state.edges.items()}
    return Layout(s, marks, classical, routes)


def _route(k: int, a: int, b: int, lane: int, lanes: int, marks: dict[tuple[int, int], Placed],
           n: int, s: float, cols: int, row: float) -> list[Point]:
    """Move k's line from its mark in cell a to its mark in cell b (see `layout`)."""
    m, g = s * MARGIN, s * GUTTER
    u = (lane + 1) / (lanes + 1) - 0.5  # this move's place across a gutter, in (-1/2, 1/2)
    side = 1 if lane % 2 == 0 else -1  # and beside a grid line: never on it, where the line hides it
    band = side * (lane // 2 + 1) / ((lanes + 1) // 2 + 1) * m * 0.85

    def out_of(cell: int) -> tuple[Point, Point]:
        """The point just outside the mark, and where its line meets the gutter."""
        x0, y0, x1, y1 = marks[(k, cell)][3]
        top = (cell // n) * s + m
        sr = int((y0 - top) // (row + g))
        top += sr * (row + g)
        x = (x0 + x1) / 2 + u * (x1 - x0) * 0.6
        if sr < cols - 1:  # the gutter under the row
            return (x, y1 + 1), (x, top + row + g / 2 + u * g * 0.8)
        return (x, y0 - 1), (x, top - g / 2 + u * g * 0.8)

    (ra, ca), (rb, cb) = divmod(a, n), divmod(b, n)
    inner = ca + 1 if ca < n - 1 else ca
    ja = ca + 1 if cb > ca else ca if cb < ca else inner
    jb = cb if cb > ca else cb + 1 if cb < ca else ja
    (ea, ga), (eb, gb) = out_of(a), out_of(b)
    xa, xb = ja * s + band, jb * s + band
    if ja == jb:
        middle = [(xa, ga[1]), (xa, gb[1])]
    else:
        i = rb if rb > ra else rb + 1 if rb < ra else (ra + 1 if ra < n - 1 else ra)
        y = i * s + band
        middle = [(xa, ga[1]), (xa, y), (xb, y), (xb, gb[1])]
    return [ea, ga, *middle, gb, eb]


def _edge_style(on_cycle: bool, closing: bool, owner: str) -> tuple[str, float]:
    """A connecting line's colour and width: its owner's colour, thin; orange and thick on the
    cycle, thickest for the move that closed it."""
    return (CYCLE_EDGE if on_cycle else INK[owner]), (2.8 if closing else 2.0 if on_cycle else 1.1)


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
    return _scored_line(owner, centre(cells[0]), centre(cells[-1]), s * 0.22)


def _scored_line(owner: str, a: Point, b: Point, width: float) -> str:
    return (f'<line class="scored line {owner}" x1="{num(a[0])}" y1="{num(a[1])}" x2="{num(b[0])}" '
            f'y2="{num(b[1])}" stroke="{INK[owner]}" stroke-width="{num(width)}" '
            f'stroke-linecap="round" stroke-opacity="0.18"/>')


def _mark_text(x: float, y: float, move: int, size: float, cls: str) -> str:
    """A mark as a letter with its move number as a subscript, starting at x on baseline y."""
    p = player_of(move)
    return (f'<text class="{cls} {p}" x="{num(x)}" y="{num(y)}" font-size="{num(size)}" '
            f'fill="{INK[p]}" data-mark="{mark_name(move)}">{p}'
            f'<tspan dy="{num(size * 0.24)}" font-size="{num(size * 0.7)}">{move}</tspan></text>')


def _cell_number(c: int, x: float, y: float, s: float, font: float | None = None) -> str:
    """A square's number in its lower right corner, haloed in white so a line passing keeps it legible."""
    return (f'<text class="square" x="{num(x + s - 2)}" y="{num(y + s - 3)}" '
            f'font-size="{num(font or s * 0.16)}" '
            f'text-anchor="end" fill="{LABEL}" stroke="#ffffff" stroke-width="2.5" '
            f'paint-order="stroke">{c + 1}</text>')


def _path(points: list[Point]) -> str:
    return "M" + " L".join(f"{num(x)} {num(y)}" for x, y in points)


def _edge(k: int, points: list[Point], colour: str, width: float, cycle: bool) -> str:
    return (f'<path class="edge{" cycle-edge" if cycle else ""}" data-move="{k}" d="{_path(points)}" '
            f'fill="none" stroke="{colour}" stroke-width="{width}" stroke-linejoin="round" '
            f'stroke-linecap="round" stroke-opacity="0.85"/>')


def _panel(state: State, x0: float, y0: float, size: float, caption: str | None) -> list[str]:
    """The elements of one board whose top-left corner is (x0, y0)."""
    n = state.ruleset.board
    lay = layout(state, size)
    s = lay.cell
    cycle = set(state.cycle or ())
    out = [f'<g class="qttt-board" transform="translate({num(x0)},{num(y0)})">',
           f'<rect x="0" y="0" width="{num(size)}" height="{num(size)}" fill="#ffffff"/>']
    out += [f'<rect class="cycle-cell" x="{num(c % n * s)}" y="{num(c // n * s)}" width="{num(s)}" '
            f'height="{num(s)}" fill="{CYCLE_FILL}"/>' for c in sorted(cycle)]
    out += [_highlight(owner, kind, cells, n, s) for owner, kind, cells in _scored(state)]
    for i in range(1, n):
        out.append(f'<line class="grid" x1="{num(i * s)}" y1="0" x2="{num(i * s)}" '
                   f'y2="{num(size)}" stroke="{GRID}" stroke-width="1.5"/>')
        out.append(f'<line class="grid" x1="0" y1="{num(i * s)}" x2="{num(size)}" '
                   f'y2="{num(i * s)}" stroke="{GRID}" stroke-width="1.5"/>')
    for k, points in sorted(lay.routes.items()):
        a, b = state.edges[k]
        on_cycle = a in cycle and b in cycle
        out.append(_edge(k, points, *_edge_style(on_cycle, k == state.pending, player_of(k)), on_cycle))
    out += [_cell_number(c, c % n * s, c // n * s, s) for c in range(n * n)]
    out += [_mark_text(x, y, state.classical[c], big, "classical")
            for c, (x, y, big, _) in sorted(lay.classical.items())]
    out += [_mark_text(x, y, k, small, "spooky") for (k, _), (x, y, small, _) in sorted(lay.marks.items())]
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


LEGEND = ("spooky", "edge", "cycle-edge", "cycle-cell", "classical", "scored", "square")
"""What a legend explains, in the order it lists them; its words are LANG.toml's `legend` table."""


def legend_svg(words: dict[str, str]) -> str:
    """The key to the board pictures, drawn with the boards' own pieces (`_mark_text`, `_edge_style`,
    the cycle fill, `_highlight`, `_cell_number`), one row each, labelled in the words given."""
    row, icon, font = 30.0, 56.0, 13.0
    body = []
    for i, key in enumerate(LEGEND):
        y = 4 + i * row
        mid = y + row / 2
        if key == "spooky":
            body += [_mark_text(4, mid + 5, 3, 15, "spooky"), _mark_text(28, mid + 5, 4, 15, "spooky")]
        elif key in ("edge", "cycle-edge"):
            cycle = key == "cycle-edge"
            points: list[Point] = [(6, mid - 6), (6, mid), (icon - 6, mid), (icon - 6, mid + 6)]
            body.append(_edge(0, points, *_edge_style(cycle, False, "x"), cycle))
            if cycle:
                thick = _edge_style(True, True, "x")
                body.append(_edge(0, [(6, mid + 8), (icon - 6, mid + 8)], *thick, True))
        elif key == "cycle-cell":
            body.append(f'<rect class="cycle-cell" x="8" y="{num(y + 2)}" width="{num(row - 4)}" '
                        f'height="{num(row - 4)}" fill="{CYCLE_FILL}" stroke="{GRID}" stroke-width="1"/>')
        elif key == "classical":
            body.append(_mark_text(6, mid + 9, 5, 24, "classical"))
        elif key == "scored":
            body.append(_scored_line("o", (10, mid), (icon - 10, mid), row * 0.5))
        else:
            body.append(f'<rect x="8" y="{num(y + 2)}" width="{num(row - 4)}" height="{num(row - 4)}" '
                        f'fill="none" stroke="{GRID}" stroke-width="1"/>')
            body.append(_cell_number(6, 8, y + 2, row - 4, 11))
        body.append(f'<text class="legend-text" x="{num(icon + 8)}" y="{num(mid + font * 0.35)}" '
                    f'font-size="{num(font)}" fill="#212121">{escape(words[key])}</text>')
    width = icon + 16 + max(len(t) for t in words.values()) * font * 0.56
    return document(width, 8 + len(LEGEND) * row, words["title"], body)
