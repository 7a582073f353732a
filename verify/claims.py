"""Rule functions written once, run on values and on Z3 terms, and claims about them settled by Z3.

A family's model of its rules (verify/nested/model.py, verify/classical/model.py) writes each rule
component against a `Logic`: `PY` runs it on Python booleans and fractions (the model that plays
games, compared with the engines), `z3_logic()` on Z3 terms (the same statement, symbolic). A
`Claim` says that its premises imply its goal for every value of its symbolic inputs; `settle`
answers `proved` (Z3 finds the negated goal unsatisfiable under the premises), `violated` (a
model, shown) or `unknown` (a timeout), and first shows the premises satisfiable, so that a
broken premise cannot make a claim `proved` by vacuity.
"""

from __future__ import annotations

import operator
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any


@dataclass(frozen=True)
class Logic:
    """The connectives a rule function is written with: over Python values or over Z3 terms."""

    all: Callable[[Iterable[Any]], Any]
    any: Callable[[Iterable[Any]], Any]
    not_: Callable[[Any], Any]
    ite: Callable[[Any, Any, Any], Any]
    number: Callable[[Fraction], Any]  # a constant point value


PY = Logic(all=all, any=any, not_=operator.not_, ite=lambda c, a, b: a if c else b, number=lambda f: f)


def z3_logic() -> Logic:
    """The connectives over Z3 terms (booleans, and reals for points)."""
    import z3  # the checker's dependency (pip install 'qttt[verify]'), not the rules core's

    def conj(xs: Iterable[Any]) -> Any:
        terms = list(xs)
        return z3.And(*terms) if terms else z3.BoolVal(True)

    def disj(xs: Iterable[Any]) -> Any:
        terms = list(xs)
        return z3.Or(*terms) if terms else z3.BoolVal(False)

    return Logic(all=conj, any=disj, not_=z3.Not, ite=z3.If,
                 number=lambda f: z3.RealVal(f"{f.numerator}/{f.denominator}"))


@dataclass(frozen=True)
class Claim:
    """For every value of its symbolic inputs, `premises` imply `goal` (Z3 terms)."""

    name: str
    premises: Sequence[Any]
    goal: Any


@dataclass
class Settled:
    """A family of claims, settled: `proved` when Z3 proved every one from premises shown
    satisfiable, else the first that was not (its name, and the model that breaks it)."""

    status: str
    queries: int
    seconds: float
    failed: str = ""
    model: str = ""
    names: list[str] = field(default_factory=list)


def settle(claims: Iterable[Claim], timeout: float = 60.0) -> Settled:
    """Settle every claim: premises satisfiable, negated goal unsatisfiable."""
    import z3

    out = Settled("proved", 0, 0.0)
    start = time.perf_counter()
    solver, premises = z3.Solver(), None
    solver.set("timeout", max(1, int(timeout * 1000)))
    for c in claims:
        out.queries += 1
        out.names.append(c.name)
        if c.premises is not premises:  # claims that share their premises share a solver
            premises = c.premises
            solver.reset()
            solver.add(*premises)
            if solver.check() != z3.sat:
                out.status, out.failed = "unknown", f"{c.name}: premises not shown satisfiable"
                break
        solver.push()
        solver.add(z3.Not(c.goal))
        verdict = solver.check()
        if verdict == z3.sat:
            model = solver.model()
            shown = ", ".join(f"{d}={model[d]}" for d in sorted(model.decls(), key=str) if
                              not z3.is_false(model[d]) and str(model[d]) != "0")
            out.status, out.failed = "violated", c.name
            out.model = shown if len(shown) <= 400 else shown[:397] + "..."
            break
        if verdict != z3.unsat:
            out.status, out.failed = "unknown", f"{c.name}: Z3 {solver.reason_unknown()}"
            break
        solver.pop()
    out.seconds = time.perf_counter() - start
    return out


def booleans(prefix: str, count: int) -> list[Any]:
    """`count` fresh Z3 booleans named prefix0, prefix1, ..."""
    import z3

    return [z3.Bool(f"{prefix}{i}") for i in range(count)]


def exactly_one(logic: Logic, options: Sequence[Any]) -> Any:
    """Exactly one of `options` holds."""
    pairs = [(a, b) for i, a in enumerate(options) for b in options[i + 1:]]
    return logic.all([logic.any(options), *(logic.not_(logic.all([a, b])) for a, b in pairs)])


def proof_part(settled: Sequence[tuple[str, Settled]], what: str
               ) -> tuple[tuple[str, str], dict[str, Any], float]:
    """Families of claims (by name), settled, as one part of a finding (status, label), with
    details and the seconds Z3 took: proved when every claim is; a claim Z3 refutes is the
    checker's own error (the model's rules break it, and no game shows it)."""
    queries = sum(s.queries for _, s in settled)
    details = {"z3": {n: {"status": s.status, "queries": s.queries} for n, s in settled}}
    seconds = sum(s.seconds for _, s in settled)
    bad = next((s for _, s in settled if s.status != "proved"), None)
    if bad is None:
        label = f"proved (Z3, {what}: {queries} queries over the checker's model of the rules)"
        return ("proved", label), details, seconds
    if bad.status == "violated":
        label = f"checker error (Z3 finds the model's rules break {bad.failed}: {bad.model})"
        return ("error", label), details, seconds
    return ("unknown", f"unknown ({bad.failed})"), details, seconds
