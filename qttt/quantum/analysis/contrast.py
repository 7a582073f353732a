"""Examples that prove their point: games searched for by what they must show (two rulesets scoring
the same record differently, a line that does not end the game, marks that vanish), and the
solver's value of both branches of every measurement in an example.

`python -m qttt.quantum.analysis.contrast` writes results/contrasts.json: for each pair of built-in
rulesets on the same board and for each ruleset with one parameter changed, the shortest game
found (in seeded random play) that is complete under both and scored differently; and the branch
values of every measurement of the worked examples (spec/examples.toml). Deterministic.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from ...errors import QtttError
from ...io import write_atomic
from ...jsonstream import loads
from ...notation import Record
from ...ruleset import Ruleset, with_params
from ...spec import results_dir, spec_dir
from ...variant import builtin_names, load_ruleset
from ...vocabulary import PARAMETERS
from ..compiled import FastSolver, available, solver_supports
from ..engine import Action, Measure, State, playout, quantum_action
from ..notation import from_notation, to_notation
from .count import board_after, encode
from .solve import Solver

GAMES = 3000  # seeded random games searched per contrast


def _frac(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


def replay(rs: Ruleset, actions: tuple[Action, ...] | list[Action]) -> State | None:
    """The state after `actions` under `rs`, or None if one of them is illegal there."""
    state = State.initial(rs)
    try:
        for a in actions:
            state = state.apply(a)
    except QtttError:
        return None
    return state


def score_text(state: State) -> str:
    """Final scores as `x–o`."""
    return f"{_frac(state.scores['x'])}–{_frac(state.scores['o'])}"


# -- the solver's value of a position ----------------------------------------------------------

def position_value(rs: Ruleset, actions: list[Action]) -> Fraction | None:
    """x − o under perfect play after `actions` (None when the board is too big to solve here)."""
    state = replay(rs, actions)
    assert state is not None
    if state.over:
        return state.scores["x"] - state.scores["o"]
    if rs.board ** 2 > 9:
        return None
    n2 = rs.board ** 2
    codes = [encode(a, n2) for a in actions]
    if available() is None and solver_supports(rs) is None:
        if rs.canonical not in _SOLVERS:
            _SOLVERS[rs.canonical] = FastSolver(rs, 20)
        return _SOLVERS[rs.canonical].exact_value(codes)
    return Solver(rs).exact_value(board_after(rs, codes))


_SOLVERS: dict[str, FastSolver] = {}  # one table per ruleset, shared by its positions


def branch_values(rs: Ruleset, actions: tuple[Action, ...]) -> list[dict[str, Any]]:
    """For each measurement in `actions`: who chose, the cell chosen, and the value x − o of each
    of the two branches (None: not solved)."""
    out = []
    state = State.initial(rs)
    for i, a in enumerate(actions):
        if isinstance(a, Measure):
            branches = {}
            for m in state.legal_actions():
                assert isinstance(m, Measure)
                v = position_value(rs, [*actions[:i], m])
                branches[str(m.cell)] = None if v is None else _frac(v)
            out.append({"index": i, "by": state.to_move, "chosen": a.cell, "values": branches})
        state = state.apply(a)
    return out


# -- searching for games -----------------------------------------------------------------------

@dataclass(frozen=True)
class Found:
    """A game record found by a search, with the seed of the random game it came from."""

    actions: tuple[Action, ...]
    seed: int


def games(rs: Ruleset, count: int, tag: str) -> Iterator[Found]:
    """Seeded random games under `rs` (every action uniform among the legal ones)."""
    for i in range(count):
        actions, _ = playout(rs, random.Random(f"contrast:{tag}:{i}"))
        yield Found(tuple(actions), i)


def shortest(candidates: Iterator[Found], keep: Callable[[tuple[Action, ...]], bool]) -> Found | None:
    """The game with the fewest actions that `keep` accepts (the first found among equals)."""
    best: Found | None = None
    for f in candidates:
        if (best is None or len(f.actions) < len(best.actions)) and keep(f.actions):
            best = f
    return best


def best_branch(rs: Ruleset, actions: list[Action], state: State) -> Measure:
    """The measurement best for the measurer under `rs` (the first among equals)."""
    options = [m for m in state.legal_actions() if isinstance(m, Measure)]
    values = [position_value(rs, [*actions, m]) for m in options]
    known = [(v, m) for v, m in zip(values, options, strict=True) if v is not None]
    if not known:
        return options[0]
    pick = max if state.to_move == "x" else min
    return pick(known, key=lambda vm: vm[0])[1]


def play_record(rs: Ruleset, actions: tuple[Action, ...]) -> tuple[list[Action], str]:
    """The record's placements under `rs`, each measurer choosing their best branch there: the
    actions played and the outcome (`ends x–o`, `goes on`, or `move k is illegal: reason`)."""
    state, played = State.initial(rs), list[Action]()
    for a in actions:
        if state.over:
            break
        if state.phase == "measure":
            a = best_branch(rs, played, state)
        elif isinstance(a, Measure):
            continue
        try:
            state = state.apply(a)
        except QtttError as e:
            return played, f"illegal at action {len(played) + 1}: {e.message}"
        played.append(a)
    while not state.over and state.phase == "measure":
        m = best_branch(rs, played, state)
        state = state.apply(m)
        played.append(m)
    return played, (f"ends {score_text(state)}" if state.over else "goes on")


def contrast(a: Ruleset, b: Ruleset, label_a: str, label_b: str, tag: str) -> dict[str, Any]:
    """The shortest sampled game, complete under `a` with every measurer choosing their better
    branch, whose placements end otherwise under `b` (its measurers choosing their better branch
    there): a different score, a game that goes on, or an illegal placement."""
    def outcomes(actions: tuple[Action, ...]) -> tuple[tuple[list[Action], str], tuple[list[Action], str]]:
        return play_record(a, actions), play_record(b, actions)

    def keep(actions: tuple[Action, ...]) -> bool:
        (_, oa), (_, ob) = outcomes(actions)
        return oa.startswith("ends") and oa != ob

    found = None
    for f in sorted(games(a, GAMES, tag + ":a"), key=lambda f: (len(f.actions), f.seed)):
        if found is not None and len(f.actions) > len(found.actions):
            break
        cand = Found(tuple(play_record(a, f.actions)[0]), f.seed)
        if keep(cand.actions) and (found is None or len(cand.actions) < len(found.actions)):
            found = cand
    out: dict[str, Any] = {"a": label_a, "b": label_b, "searched": GAMES}
    if found is None:
        return out
    (pa, oa), (pb, ob) = outcomes(found.actions)
    out.update({"record_a": _moves(label_a, pa), "outcome_a": oa, "branches_a": branch_values(a, tuple(pa)),
                "record_b": _moves(label_b, pb), "outcome_b": ob, "branches_b": branch_values(b, tuple(pb)),
                "actions": len(found.actions)})
    return out


def _moves(label: str, actions: list[Action]) -> str:
    return to_notation(Record(label, tuple(actions))).split("] ", 1)[-1] if actions else ""


def parameter_variants(rs: Ruleset) -> Iterator[tuple[str, Ruleset]]:
    """`rs` with one rule parameter set to each other value it can take (board size excepted)."""
    for p in PARAMETERS:
        if p.name in {"board", "game", "end_line"}:
            continue
        for value in p.allowed:
            if value != rs.value(p.name):
                try:
                    yield f"{p.name}={value}", with_params(rs, **{p.name: value})
                except QtttError:
                    continue


def pair_contrasts(only: str | None = None) -> list[dict[str, Any]]:
    """Every pair of built-in rulesets on the same board (with `only`: those it is one of)."""
    names = builtin_names()
    sets = {n: load_ruleset(n) for n in names}
    out = []
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            if only not in (None, x, y):
                continue
            if sets[x].board == sets[y].board and sets[x].value("game") == sets[y].value("game") == "quantum":
                out.append(contrast(sets[x], sets[y], x, y, f"{x}/{y}"))
    return out


CHANCE_SKIPPED = ("chance decides its collapses (rule collapse-chance); a contrast replays one game's "
                  "placements with each measurer choosing, so it compares only games the players decide")


def parameter_contrasts(only: str | None = None) -> list[dict[str, Any]]:
    """Every 3×3 built-in ruleset (with `only`: that one) against itself with one parameter changed."""
    out = []
    for n in builtin_names():
        if only not in (None, n):
            continue
        rs = load_ruleset(n)
        if rs.board != 3:
            continue
        for label, other in parameter_variants(rs):
            if other.rules.collapse != "choice":
                out.append({"a": n, "b": other.canonical, "searched": 0, "skipped": CHANCE_SKIPPED})
                continue
            out.append(contrast(rs, other, n, other.canonical, f"{n}:{label}"))
    return out


# -- worked examples ---------------------------------------------------------------------------

def example_branches(path: Path | None = None) -> dict[str, list[dict[str, Any]]]:
    """Branch values of every measurement of every worked example (spec/examples.toml), by
    `ruleset/slug`."""
    data = tomllib.loads((path or spec_dir() / "examples.toml").read_text(encoding="utf-8"))
    out = {}
    for name, exs in data["example"].items():
        for ex in exs:
            rec = from_notation(ex["notation"])
            out[f"{name}/{ex['slug']}"] = branch_values(load_ruleset(rec.variant),
                                                         tuple(quantum_action(a) for a in rec.actions))
    return out


def generate(only: str | None = None) -> dict[str, Any]:
    """The whole of results/contrasts.json; with `only`, the contrasts of that built-in ruleset
    alone (the pairs it is one of, its own parameters; every worked example)."""
    return {"games_per_search": GAMES, "pairs": pair_contrasts(only),
            "parameters": parameter_contrasts(only), "examples": example_branches()}


def path() -> Path:
    """Where the contrasts are committed."""
    return results_dir() / "contrasts.json"


def load() -> dict[str, Any]:
    """The committed contrasts."""
    data: dict[str, Any] = loads(path().read_text(encoding="utf-8"))
    return data


PROG = "python -m qttt.quantum.analysis.contrast"


def main(argv: list[str] | None = None) -> int:
    """Write results/contrasts.json (or with --check, compare)."""
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__)
    ap.add_argument("--check", action="store_true", help="exit 1 if the committed file differs")
    args = ap.parse_args(argv)
    text = json.dumps(generate(), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if args.check:
        same = path().is_file() and path().read_text(encoding="utf-8") == text
        if not same:
            print(f"contrast: {path()} is out of date; run {PROG}", file=sys.stderr)
        return 0 if same else 1
    write_atomic(path(), text)
    return 0


if __name__ == "__main__":
    sys.exit(main())


