"""The board pictures' geometry, read from the layout the drawing uses (qttt.quantum.svg.layout):
no connecting line crosses a mark, no mark sits on a cell border, two lines never run on top of
each other; and the legend explains every piece a board draws, with the boards' own pieces."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples

from qttt import load_ruleset
from qttt.docgen.rulebook import languages
from qttt.notation import Record
from qttt.quantum.engine import State, playout
from qttt.quantum.rulebook import quantum_states
from qttt.quantum.svg import LEGEND, MARGIN, Box, Point, board_svg, layout, legend_svg

SVG = "{http://www.w3.org/2000/svg}"


def crosses(a: Point, b: Point, box: Box) -> bool:
    """Whether the axis-parallel segment a-b meets the box (its edge included)."""
    x0, y0, x1, y1 = box
    if a[1] == b[1]:
        lo, hi = sorted((a[0], b[0]))
        return y0 <= a[1] <= y1 and lo <= x1 and hi >= x0
    lo, hi = sorted((a[1], b[1]))
    return x0 <= a[0] <= x1 and lo <= y1 and hi >= y0


def overlap(p: tuple[Point, Point], q: tuple[Point, Point]) -> bool:
    """Whether two axis-parallel segments run along each other for more than a point."""
    (a, b), (c, d) = p, q
    for axis in (0, 1):
        other = 1 - axis
        if a[other] == b[other] == c[other] == d[other]:
            lo1, hi1 = sorted((a[axis], b[axis]))
            lo2, hi2 = sorted((c[axis], d[axis]))
            if min(hi1, hi2) - max(lo1, lo2) > 0.5:
                return True
    return False


def positions(name: str, seed: int) -> list[State]:
    """Every position of one seeded random game."""
    rs = load_ruleset(name)
    actions, _ = playout(rs, random.Random(seed))
    return quantum_states(Record(name, tuple(actions)))


def check(state: State, size: float) -> None:
    lay = layout(state, size)
    s, n = lay.cell, state.ruleset.board
    boxes = [placed[3] for placed in (*lay.marks.values(), *lay.classical.values())]
    for (k, c), (*_, box) in lay.marks.items():  # inside its cell, clear of the band along the borders
        r, col = divmod(c, n)
        x0, y0, x1, y1 = box
        m = s * MARGIN
        assert col * s + m <= x0 and x1 <= (col + 1) * s - m, (k, c)
        assert r * s + m <= y0 and y1 <= (r + 1) * s - m, (k, c)
    segments = {k: list(pairwise(path)) for k, path in lay.routes.items()}
    for k, segs in segments.items():
        assert all(a[0] == b[0] or a[1] == b[1] for a, b in segs), k
        for a, b in segs:
            assert not any(crosses(a, b, box) for box in boxes), (k, a, b)
    for k, segs in segments.items():
        for j, other in segments.items():
            if j > k:
                assert not any(overlap(p, q) for p in segs for q in other), (k, j)
    root = ET.fromstring(board_svg(state, size))
    assert len([e for e in root.iter(f"{SVG}path") if "edge" in (e.get("class") or "")]) == len(state.edges)


@settings(max_examples=examples(30), deadline=None)
@given(st.sampled_from(["wikipedia", "bonus4x4", "russian-unstable"]), st.integers(0, 2 ** 32),
       st.sampled_from([None, 48.0, 60.0]))
def test_no_line_crosses_a_mark_or_runs_along_another(name: str, seed: int, cell: float | None) -> None:
    for state in positions(name, seed):
        check(state, (cell or 80.0) * state.ruleset.board)


def test_a_crowded_cell_keeps_its_marks_clear_of_the_lines() -> None:
    """Cells with five and more quantum marks (a 3×3 grid of slots) and two-digit move numbers."""
    crowded = [st_ for seed in range(40) for st_ in positions("bonus4x4", seed)
               if max(len(m) for m in st_.spooky) >= 5]
    assert crowded
    for state in crowded[:20]:
        check(state, 64.0 * state.ruleset.board)


def test_the_legend_draws_each_piece_with_the_boards_own_pieces() -> None:
    """Every language's legend has a row per piece; its samples are the elements a board draws."""
    state = positions("wikipedia", 3)[6]
    board = board_svg(state)
    for code, w in languages().items():
        assert set(w["legend"]) == {*LEGEND, "title"}, code
        svg = legend_svg(w["legend"])
        root = ET.fromstring(svg)
        texts = ["".join(e.itertext()) for e in root.iter(f"{SVG}text")]
        assert all(w["legend"][k] in texts for k in LEGEND), code
        for cls in ('class="spooky x"', 'class="edge"', 'class="edge cycle-edge"', 'class="cycle-cell"',
                    'class="classical x"', 'class="scored line o"', 'class="square"'):
            assert cls in svg, (code, cls)
    for cls in ('class="spooky', 'class="edge', 'class="square"'):
        assert cls in board
