"""Fairness: the first player's advantage under perfect and random play, and scoring variants
whose perfect-play value is a draw."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from ...ruleset import Ruleset
from ...vocabulary import Component
from ..compiled import DEFAULT_LOG2, FastSolver
from .count import board_after
from .solve import Solver, choose_solver

F = Fraction


def _with_settings(c: Component, **changes: Any) -> Component:
    settings = tuple((k, changes.get(k, v)) for k, v in c.settings)
    return replace(c, settings=settings)


def scoring_variants(rs: Ruleset) -> Iterator[Ruleset]:
    """Small changes of the scoring: for rank awards other rank values, for first-line awards other
    first/second/tie points (sole stays). Per-pattern points only scale the value, so are not varied."""
    for i, c in enumerate(rs.scoring):
        options: list[dict[str, Any]] = []
        if c.award == "rank":
            for ranks in ("harmonic", (F(1),), (F(1), F(1)), (F(1), F(1, 2)), (F(1), F(1, 3)),
                          (F(1), F(1, 2), F(1, 2)), (F(1), F(1, 4)), (F(1), F(0), F(1))):
                options.append({"ranks": ranks})
        elif c.award == "first-line":
            for first in (F(1), F(3, 4), F(1, 2)):
                for second in (F(0), F(1, 4), F(1, 2), F(1)):
                    if second <= first:
                        options.append({"first": first, "second": second})
        for change in options:
            comp = _with_settings(c, **change)
            if comp == c:
                continue
            scoring = (*rs.scoring[:i], comp, *rs.scoring[i + 1:])
            out = replace(rs, scoring=scoring, path=None)
            yield replace(out, name=out.canonical)


def variant_value(rs: Ruleset, core: str = "auto") -> Fraction:
    """The perfect-play value of `rs` from the empty board (`solve.choose_solver` picks the search)."""
    if choose_solver(rs, core) == "compiled":
        fs = FastSolver(rs, DEFAULT_LOG2)
        try:
            return fs.exact_value(())
        finally:
            fs.close()
    return Solver(rs).exact_value(board_after(rs, ()))


def fairness_report(rs: Ruleset, known: Mapping[str, Any], *, search: bool = False, core: str = "auto",
                    progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Perfect-play and random-play first-player advantage from the `solve` and `random` results of
    `known` (each left out when missing), and with `search` the value of every scoring variant
    (solved here with `core`)."""
    report: dict[str, Any] = {"ruleset": rs.canonical}
    if "solve" in known:
        report["perfect"] = known["solve"]["value"]
    if "random" in known:
        report["random_mean"] = known["random"]["mean"]["diff"]
        report["random_ci95"] = known["random"]["ci95"]["diff"]
    if search:
        variants = list(scoring_variants(rs))
        found = []
        for i, v in enumerate(variants):
            value = variant_value(v, core)
            found.append({"scoring": [c.to_dict() for c in v.scoring], "value": str(value)})
            if progress:
                progress(i + 1, len(variants))
        report["search"] = found
        report["draws"] = [f["scoring"] for f in found if f["value"] == "0"]
    return report
