"""A nested-classical state drawn as SVG."""

from __future__ import annotations

from xml.sax.saxutils import escape

from ..svg import CAPTION, GRID, INK, document, num
from .engine import NestedState

BLOCK_FILL = {"x": "#fde0dc", "o": "#dde8fb", "drawn": "#e0e0e0"}
TARGET_FILL = "#fff3c4"


def nested_svg(state: NestedState, size: float = 480, caption: str | None = None) -> str:
    """A nested-classical board (rule nested-board): the marks, each won block tinted in its
    winner's colour with the winner's letter large over it, drawn blocks grey, and the blocks the
    next move must use highlighted (rule nested-route); the previous move's mark is bold."""
    n = state.ruleset.board
    side = n * n
    cell = size / side
    x0 = y0 = 4.0
    body = [f'<g class="nested" data-variant="{escape(state.ruleset.canonical)}">']
    target = set(state.target or ())
    for b, status in enumerate(state.blocks):
        bx, by = x0 + (b % n) * n * cell, y0 + (b // n) * n * cell
        fill = TARGET_FILL if b in target else BLOCK_FILL.get(status, "#ffffff")
        body.append(f'<rect class="block {status}{" target" if b in target else ""}" data-block="{b}" '
                    f'x="{num(bx)}" y="{num(by)}" width="{num(n * cell)}" height="{num(n * cell)}" '
                    f'fill="{fill}"/>')
    for i in range(side + 1):
        width = 2.4 if i % n == 0 else 0.6
        p = num(x0 + i * cell)
        body.append(f'<line x1="{p}" y1="{num(y0)}" x2="{p}" y2="{num(y0 + size)}" stroke="{GRID}" '
                    f'stroke-width="{width}"/>')
        q = num(y0 + i * cell)
        body.append(f'<line x1="{num(x0)}" y1="{q}" x2="{num(x0 + size)}" y2="{q}" stroke="{GRID}" '
                    f'stroke-width="{width}"/>')
    for c, mark in enumerate(state.marks):
        if mark is None:
            continue
        r, col = divmod(c, side)
        weight = ' font-weight="bold"' if c == state.last else ""
        body.append(f'<text class="mark {mark[0]}" data-mark="{mark}" x="{num(x0 + (col + 0.5) * cell)}" '
                    f'y="{num(y0 + (r + 0.72) * cell)}" font-size="{num(cell * 0.7)}" text-anchor="middle" '
                    f'fill="{INK[mark[0]]}"{weight}>{mark[0]}</text>')
    for b, status in enumerate(state.blocks):
        if status in INK:
            cx, cy = x0 + ((b % n) + 0.5) * n * cell, y0 + ((b // n) + 0.5) * n * cell
            body.append(f'<text class="won {status}" x="{num(cx)}" y="{num(cy + n * cell * 0.3)}" '
                        f'font-size="{num(n * cell * 0.85)}" text-anchor="middle" fill="{INK[status]}" '
                        f'fill-opacity="0.35">{status.upper()}</text>')
    body.append("</g>")
    label = caption or f"board of {state.ruleset.canonical}"
    if caption:
        body.append(f'<text class="caption" x="{num(x0 + size / 2)}" y="{num(y0 + size + 22)}" '
                    f'font-size="14" text-anchor="middle" fill="{GRID}">{escape(caption)}</text>')
    return document(size + 8, size + 8 + (CAPTION if caption else 0), label, body)


LEGEND = ("mark", "last", "target", "won", "drawn")
"""What the nested boards' legend explains, in order; its words are LANG.toml's `nested.legend`."""


def legend_svg(words: dict[str, str]) -> str:
    """The key to the nested boards, drawn with their own colours and marks."""
    row, icon, font = 30.0, 44.0, 13.0
    body = []
    for i, key in enumerate(LEGEND):
        y = 4 + i * row
        if key in ("target", "won", "drawn"):
            fill = TARGET_FILL if key == "target" else BLOCK_FILL["x" if key == "won" else "drawn"]
            body.append(f'<rect class="block {key}" x="8" y="{num(y + 3)}" width="{num(row - 6)}" '
                        f'height="{num(row - 6)}" fill="{fill}" stroke="{GRID}" stroke-width="1"/>')
            if key == "won":
                body.append(f'<text x="{num(8 + (row - 6) / 2)}" y="{num(y + row - 7)}" font-size="20" '
                            f'text-anchor="middle" fill="{INK["x"]}" fill-opacity="0.35">X</text>')
        else:
            weight = ' font-weight="bold"' if key == "last" else ""
            for x, p in ((10, "x"), (24, "o")) if key == "mark" else ((10, "x"),):
                body.append(f'<text class="mark {p}" x="{x}" y="{num(y + row - 9)}" font-size="18" '
                            f'fill="{INK[p]}"{weight}>{p}</text>')
        body.append(f'<text x="{num(icon + 8)}" y="{num(y + row / 2 + font * 0.35)}" font-size="{num(font)}" '
                    f'fill="#212121">{escape(words[key])}</text>')
    width = icon + 16 + max(len(t) for t in words.values()) * font * 0.56
    return document(width, 8 + len(LEGEND) * row, words["title"], body)
