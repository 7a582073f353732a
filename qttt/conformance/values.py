"""Which vocabulary values the conformance suites pin: every reading of every rule parameter and
scoring field (from the declarations of qttt.vocabulary), and the suites whose ruleset uses it.

A reading is one distinct behaviour of the rules: each allowed value of an enumerated or boolean
parameter, each item of a pattern list, an integer at its default or not, each award and pattern,
a fraction field at its default or not (a stated field with no default: stated at all), each
criterion, and a named or listed rank or weight table. A suite covers a reading when the
parameters of its ruleset (its header) show it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from ..notation import Json
from ..vocabulary import (
    AWARD_DECLARATIONS,
    AWARD_FIELDS,
    AWARDS,
    CRITERIA,
    PARAMETERS,
    PATTERNS,
    format_value,
    lists,
)

# A reading: (what, value), e.g. ("measurer", "creator") or ("first-line.double", "stated").
Reading = tuple[str, str]


def _int_readings(default: int | Fraction) -> tuple[str, str]:
    return f"{default} (default)", f"not {default}"


def readings() -> list[Reading]:
    """Every reading of the vocabulary, in declaration order."""
    out: list[Reading] = []
    for p in PARAMETERS:
        if p.type in (int, Fraction):
            out += [(p.name, v) for v in _int_readings(p.default)]
        elif p.type is tuple and p.allowed:
            out += [(p.name, f"contains {v}") for v in p.allowed]
        elif p.type is tuple:
            out += [(p.name, format_value(p.default)), (p.name, "a list")]
        else:
            out += [(p.name, format_value(v)) for v in p.allowed]
    out += [("scoring.award", a) for a in AWARDS]
    out += [("scoring.pattern", p) for p in PATTERNS]
    out += [("scoring.length", "0 (board size)"), ("scoring.length", "not 0")]
    for award, fields in AWARD_FIELDS.items():
        for name, (kind, default, _) in fields.items():
            what = f"{award}.{name}"
            if kind == "fraction":
                out.append((what, "stated" if default is None else f"not {format_value(default)}"))
            elif kind == "criteria":
                out += [(what, c) for c in CRITERIA]
            else:  # ranks, weights: a named table or a list
                out += [(what, default), (what, "a list")]
    return out


def ruleset_readings(parameters: Mapping[str, Any]) -> set[Reading]:
    """The readings a ruleset's parameters (the `parameters` of a suite header) show."""
    out: set[Reading] = set()
    for p in PARAMETERS:
        if p.name not in parameters:
            continue
        value = parameters[p.name]
        if p.type in (int, Fraction):
            value = Fraction(value) if p.type is Fraction else value
            out.add((p.name, _int_readings(p.default)[value != p.default]))
        elif p.type is tuple and p.allowed:
            out |= {(p.name, f"contains {v}") for v in value}
        elif p.type is tuple:
            out.add((p.name, "a list" if isinstance(value, list) else format_value(value)))
        else:
            out.add((p.name, format_value(value)))
    for comp in parameters.get("scoring", []):
        award = comp["award"]
        out.add(("scoring.award", award))
        if "pattern" in comp:
            out.add(("scoring.pattern", comp["pattern"]))
            out.add(("scoring.length", "0 (board size)" if comp["length"] == 0 else "not 0"))
        for name, (kind, default, _) in AWARD_FIELDS[award].items():
            if name not in comp:
                continue
            value = comp[name]
            what = f"{award}.{name}"
            if kind == "fraction":
                if default is None:
                    out.add((what, "stated"))
                elif Fraction(value) != default:
                    out.add((what, f"not {format_value(default)}"))
            elif kind == "criteria":
                out |= {(what, c) for c in value}
            else:
                out.add((what, "a list" if isinstance(value, list) else value))
    return out


def value_coverage(suites: Iterable[Mapping[str, Json]]) -> list[tuple[str, str, list[str]]]:
    """Each reading with the names of the suites that cover it (empty: pinned by no suite)."""
    found: dict[Reading, list[str]] = {}
    for suite in suites:
        ruleset = suite["ruleset"]
        for reading in ruleset_readings(ruleset["parameters"]):
            found.setdefault(reading, []).append(str(ruleset["name"]))
    return [(what, value, sorted(found.get((what, value), []))) for what, value in readings()]


def default_readings() -> set[Reading]:
    """The readings every parameter and every award field at its default shows (the award kinds
    aside: no award is a default): what a suite has nothing to tell apart from."""
    params: dict[str, Any] = {p.name: lists(p.default) for p in PARAMETERS}
    scoring = []
    for award, declared in AWARD_DECLARATIONS.items():
        table: dict[str, Any] = {"award": award}
        if declared.scores_pattern:
            table.update(pattern="line", length=0)
        for name, (_, default, _) in declared.settings.items():
            if default is not None:
                table[name] = lists(str(default) if isinstance(default, Fraction) else default)
        scoring.append(table)
    return ruleset_readings({**params, "scoring": scoring}) - {("scoring.award", a) for a in AWARDS}
