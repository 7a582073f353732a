"""Claims checked: the numbers the sources state (spec/claims.toml), recomputed by the engine or read
from the committed analysis and verification results."""

from __future__ import annotations

import random
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from ...games import replay_actions
from ...jsonstream import loads
from ...spec import results_dir, spec_dir
from ...variant import load_ruleset
from ..engine import Place, State, playout
from ..notation import from_notation


@dataclass(frozen=True)
class Claim:
    """One figure a source states, and the computation that checks it."""

    id: str
    source: str
    says: str
    published: str
    how: str
    args: dict[str, Any]
    expect: str | None
    check: str | None


def load_claims(path: Path | None = None) -> list[Claim]:
    """spec/claims.toml, in file order."""
    data = tomllib.loads((path or spec_dir() / "claims.toml").read_text(encoding="utf-8"))
    fixed = {"id", "source", "says", "published", "how", "expect", "check"}
    return [Claim(c["id"], c["source"], c["says"], c["published"], c["how"],
                  {k: v for k, v in c.items() if k not in fixed}, c.get("expect"), c.get("check"))
            for c in data["claim"]]


def _frac(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


def _star(n2: int) -> list[Place]:
    """Placements joining cell 0 to every other cell in turn: one cell entangled with all others."""
    return [Place(0, c) for c in range(1, n2)]


def marks_per_cell(claim: Claim) -> str:
    """Most spooky marks in one cell: between turns (a star of n²−1 moves) and with a measurement
    pending (one more move closing a 2-cycle at the star's centre)."""
    rs = load_ruleset(claim.args["ruleset"])
    star = _star(rs.board ** 2)
    settled = replay_actions(State.initial(rs), star)
    pending = settled.apply(Place(0, 1))
    return (f"{len(settled.spooky[0])} between turns; "
            f"{len(pending.spooky[0])} while a measurement is pending")


def opening_placements(claim: Claim) -> str:
    """Legal actions on the empty board."""
    return str(len(State.initial(load_ruleset(claim.args["ruleset"])).legal_actions()))


def separate_entanglements(claim: Claim) -> str:
    """Components of two or more cells after placements on disjoint pairs, as many as fit."""
    rs = load_ruleset(claim.args["ruleset"])
    n2 = rs.board ** 2
    state = replay_actions(State.initial(rs), [Place(c, c + 1) for c in range(0, n2 - 1, 2)])
    return str(len({comp for comp in state.component.values() if len(comp) > 1}))


def forced_move(claim: Claim) -> str:
    """Move numbers of the forced last placements in seeded random games."""
    rs = load_ruleset(claim.args["ruleset"])
    seen: set[int] = set()
    for i in range(claim.args["games"]):
        actions, _ = playout(rs, random.Random(f"claims:{i}"))
        state = State.initial(rs)
        for a in actions:
            if isinstance(a, Place) and a.a == a.b:
                seen.add(state.move)
            state = state.apply(a)
    if not seen:
        return "no forced placement"
    return " or ".join(f"move {k}" for k in sorted(seen)) + " in every forced placement"


def example(claim: Claim) -> str:
    """The final score of a record."""
    record = from_notation(claim.args["record"])
    state: State = replay_actions(State.initial(load_ruleset(record.variant)), record.actions)
    return f"X {_frac(state.scores['x'])}, O {_frac(state.scores['o'])}"


def mean_placements(name: str, games: int) -> float:
    """Mean number of placements per game in seeded random play under ruleset `name`."""
    rs = load_ruleset(name)
    return sum(playout(rs, random.Random(f"claims:{i}"))[1].move - 1 for i in range(games)) / games


def random_length(claim: Claim) -> str:
    """Mean number of placements per game in seeded random play, per ruleset."""
    games = claim.args["games"]
    parts = [f"{name} {mean_placements(name, games):.2f}" for name in claim.args["rulesets"]]
    return "mean placements per game, " + ", ".join(parts) + f" ({games} random games each)"


def analysis(claim: Claim) -> str:
    """A figure of a committed analysis result (results/analysis/)."""
    value: Any = loads((results_dir() / "analysis" / claim.args["file"]).read_text(encoding="utf-8"))
    for key in claim.args["path"]:
        value = value[key]
    return f"{int(value):,}" if isinstance(value, str) and value.isdigit() else str(value)


def verification(claim: Claim) -> str:
    """The status of a checked property in every ruleset of the verification report."""
    report = loads((results_dir() / "verification" / "report.json").read_text(encoding="utf-8"))
    statuses = {p["status"] for r in report["rulesets"] for p in r["properties"]
                if p["property"] == claim.args["property"]}
    return f"{claim.args['property']}: " + ", ".join(sorted(statuses)) + " for every built-in ruleset"


def scale(claim: Claim) -> str:
    """Outcome shares and mean scores of a committed random-play run at scale (results/analysis/scale/)."""
    path = results_dir() / "analysis" / "scale" / claim.args["file"]
    res = loads(path.read_text(encoding="utf-8"))["random"]
    n, lines = res["games"], res["line_outcomes"]
    shares = " / ".join(f"{lines[k] / n:.1%}" for k in ("x", "o", "neither"))
    return f"{shares}; {res['mean']['x']:.1f} / {res['mean']['o']:.1f} ({n:,} random games)"


COMPUTATIONS: dict[str, Callable[[Claim], str]] = {
    "marks-per-cell": marks_per_cell, "opening-placements": opening_placements,
    "separate-entanglements": separate_entanglements, "forced-move": forced_move,
    "example": example, "random-length": random_length, "analysis": analysis,
    "verification": verification, "scale": scale,
}

# Computations that read committed results rather than play: the drift test keeps them current.
READS_RESULTS = frozenset({"analysis", "verification", "scale"})


def compute(claim: Claim) -> str:
    """What this project finds for the claim."""
    return COMPUTATIONS[claim.how](claim)
