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
