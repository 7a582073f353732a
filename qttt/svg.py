"""Boards drawn as SVG, for any family: `board_svg` asks the state's family to draw it
(Family.svg); the shared palette, number format and document frame live here. Output is
deterministic text (standard library only).
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from .family import GameState, family_of

INK = {"x": "#c62828", "o": "#1565c0"}
GRID, LABEL = "#444444", "#9e9e9e"
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
CAPTION = 34  # least height of the caption band under a board, in pixels


def caption_font(size: float) -> float:
    """Caption text grows with the board, so it stays readable where the board is scaled down."""
    return min(24.0, max(14.0, size * 0.075))


def band(size: float) -> float:
    """Height of the caption band under a board of `size`."""
    return max(CAPTION, caption_font(size) * 2.2)


def num(v: float) -> str:
    """A coordinate with at most two decimals and no trailing zeros."""
    return f"{v:.2f}".rstrip("0").rstrip(".")


def document(width: float, height: float, label: str, body: list[str]) -> str:
    """A standalone SVG document of `body`, labelled for screen readers."""
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{num(width)}" height="{num(height)}" '
        f'viewBox="0 0 {num(width)} {num(height)}" role="img" aria-label="{escape(label)}" '
        f'font-family="{FONT}">',
        f"<title>{escape(label)}</title>",
        *body,
        "</svg>",
    ]) + "\n"


def board_svg(state: GameState, size: float | None = None, caption: str | None = None) -> str:
    """One board of any family as a standalone SVG document, with an optional caption under it
    (default size: the family's)."""
    return family_of(state.ruleset).svg(state, size, caption)


def curve_svg(series: list[tuple[str, str, list[tuple[float, float]], list[float]]], label: str,
              x_name: str = "p", y_name: str = "value") -> str:
    """A line plot: each series (name, colour, points (x, y) in order, marked x positions where it
    crosses zero), on shared axes with a zero line and a legend; deterministic text."""
    w, h, left, right, top, bottom = 640.0, 360.0, 64.0, 16.0, 16.0, 72.0
    xs = [x for _, _, pts, _ in series for x, _ in pts] or [0.0, 1.0]
    ys = [y for _, _, pts, _ in series for _, y in pts] + [0.0]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys), max(ys)
    if y1 - y0 < 1e-9:
        y0, y1 = y0 - 1, y1 + 1
    pad = (y1 - y0) * 0.08
    y0, y1 = y0 - pad, y1 + pad

    def sx(x: float) -> float:
        return left + (x - x0) / ((x1 - x0) or 1) * (w - left - right)

    def sy(y: float) -> float:
        return top + (y1 - y) / (y1 - y0) * (h - top - bottom)

    body = [f'<rect x="{num(left)}" y="{num(top)}" width="{num(w - left - right)}" '
            f'height="{num(h - top - bottom)}" fill="none" stroke="{LABEL}"/>',
            f'<line x1="{num(left)}" y1="{num(sy(0))}" x2="{num(w - right)}" y2="{num(sy(0))}" '
            f'stroke="{GRID}" stroke-dasharray="4 3"/>']
    for k in range(6):  # x ticks
        x = x0 + (x1 - x0) * k / 5
        body.append(f'<text x="{num(sx(x))}" y="{num(h - bottom + 16)}" font-size="12" '
                    f'text-anchor="middle">{x:.2f}</text>')
    for k in range(5):  # y ticks
        y = y0 + (y1 - y0) * k / 4
        body.append(f'<text x="{num(left - 6)}" y="{num(sy(y) + 4)}" font-size="12" '
                    f'text-anchor="end">{y:.2f}</text>')
    body.append(f'<text x="{num((left + w - right) / 2)}" y="{num(h - bottom + 34)}" font-size="13" '
                f'text-anchor="middle">{escape(x_name)}</text>')
    body.append(f'<text x="14" y="{num((top + h - bottom) / 2)}" font-size="13" text-anchor="middle" '
                f'transform="rotate(-90 14 {num((top + h - bottom) / 2)})">{escape(y_name)}</text>')
    for i, (name, colour, pts, zeros) in enumerate(series):
        path = " ".join(f"{'M' if j == 0 else 'L'}{num(sx(x))},{num(sy(y))}" for j, (x, y) in enumerate(pts))
        body.append(f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        body += [f'<circle cx="{num(sx(x))}" cy="{num(sy(y))}" r="2.5" fill="{colour}"/>' for x, y in pts]
        body += [f'<circle cx="{num(sx(z))}" cy="{num(sy(0))}" r="6" fill="none" stroke="{colour}" '
                 f'stroke-width="2"/>' for z in zeros]
        lx, ly = left + (i % 2) * (w - left - right) / 2, h - 20 + (i // 2) * 14
        body.append(f'<line x1="{num(lx)}" y1="{num(ly - 4)}" x2="{num(lx + 22)}" y2="{num(ly - 4)}" '
                    f'stroke="{colour}" stroke-width="2"/>')
        body.append(f'<text x="{num(lx + 28)}" y="{num(ly)}" font-size="12">{escape(name)}</text>')
    return document(w, h, label, body)
