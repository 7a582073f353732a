"""The canonical-name grammar: `base(key=value,...)`, a ruleset written as the built-in ruleset it
starts from and the parameters that differ (rule `variant-file`). This module reads and writes the
text; qttt.ruleset applies the changes, qttt.variant resolves the base.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from .errors import VariantError
from .jsonstream import loads
from .vocabulary import (
    AWARD_FIELDS,
    PARAMETER_BY_NAME,
    RULE,
    Component,
    Parameter,
    check_param,
    describe_allowed,
    format_value,
    lists,
    normalise,
    setting_value,
)

# Canonical-name keys that set a scoring field of every component of one award: key -> (award, field).
# double_line: the double-line award (ambiguity double-line); tiebreak: the criteria ordering both
# players' best lines (ambiguity bonus-simultaneous: a CodeCup bot compares [min-max]).
# key -> (award, field, an example).
SCORING_KEYS: dict[str, tuple[str, str, str]] = {
    "double_line": ("first-line", "double", "wikipedia(double_line=2)"),
    "tiebreak": ("first-line", "tiebreak", "bonus4x4(tiebreak=[min-max])"),
}


def canonical_name(base: str, params: dict[str, Any], scoring: tuple[Component, ...],
                   base_params: dict[str, Any], base_scoring: tuple[Component, ...]) -> str:
    """The name of the rules given by `params` and `scoring` over the ruleset `base` (whose rules are
    `base_params` and `base_scoring`): the base and the parameters that differ from it."""
    diffs = [f"{k}={canonical_value(v)}" for k, v in params.items()
             if k not in base_params or v != base_params[k]]
    if scoring != base_scoring:
        diffs.append(_scoring_diff(scoring, base_scoring))
    if not diffs and base != "qttt":
        return base
    return f"{base}({','.join(diffs)})"


@dataclass(frozen=True)
class NameChanges:
    """What a canonical name changes from its base: parameter values (checked), the whole scoring
    as raw JSON (None: kept) and SCORING_KEYS fields (checked), in the name's order."""

    values: dict[str, Any]
    scoring: Any
    fields: dict[str, Any]


def parse_name(text: str, where: str) -> tuple[str, NameChanges]:
    """`base(key=value,...)` read into its base's name and its changes, each value checked
    against the vocabulary (the base is not resolved here)."""
    base, _, rest = text.partition("(")
    values: dict[str, Any] = {}
    scoring_raw: Any = None
    seen: set[str] = set()
    fields: dict[str, Any] = {}
    for item in _split_top(rest[:-1]):
        key, eq, raw = item.partition("=")
        if not eq:
            raise VariantError(RULE, f"{where}: {cut(item, 40)} is not key=value")
        if key in seen:
            raise VariantError(RULE, f"{where}: {key} is given twice")
        seen.add(key)
        if key == "scoring":
            try:
                scoring_raw = loads(raw)
            except json.JSONDecodeError as e:
                raise VariantError(RULE, f"{where}: scoring is not JSON: {e.msg}") from None
            except RecursionError:
                raise VariantError(RULE, f"{where}: scoring is nested too deeply") from None
        elif key in PARAMETER_BY_NAME:
            values[key] = _parse_scalar(PARAMETER_BY_NAME[key], raw, where)
        elif key in SCORING_KEYS:
            award, field_name, _ = SCORING_KEYS[key]
            kind = AWARD_FIELDS[award][field_name][0]
            if kind == "criteria" and raw.startswith("[") and raw.endswith("]"):
                items: Any = [x.strip() for x in raw[1:-1].split(",") if x.strip()]
            else:
                items = raw
            fields[key] = setting_value(kind, items, f"{where}: {key}")
        else:
            raise VariantError(RULE, f"{where}: unknown key {cut(key, 40)}; allowed: "
                               + ", ".join([*PARAMETER_BY_NAME, "scoring", *SCORING_KEYS]))
    return base, NameChanges(values, scoring_raw, fields)


def cut(text: str, width: int = 80) -> str:
    """A name quoted for a message, cut to `width` characters."""
    quoted = repr(text)
    return quoted if len(quoted) <= width else quoted[:width - 4] + "...'"


def _scoring_diff(scoring: tuple[Component, ...], base: tuple[Component, ...]) -> str:
    """`double_line=2` (and the other SCORING_KEYS) when only those fields differ, one value for
    every component of their award (which both sides have); else `scoring=JSON`."""
    candidate, diffs = base, []
    for key, (award, name, _) in SCORING_KEYS.items():
        values = {c.get(name) for c in scoring if c.award == award}
        present = {c.get(name) for c in candidate if c.award == award}
        if len(values) == 1 and present and values != present:  # else only the JSON form says it
            value = next(iter(values))
            candidate = set_field(candidate, award, name, value, key)
            text = "[" + ",".join(value) + "]" if isinstance(value, tuple) else format_value(value)
            diffs.append(f"{key}={text}")
    if diffs and candidate == scoring:
        return ",".join(diffs)
    return "scoring=" + json.dumps([c.to_dict() for c in scoring], separators=(",", ":"))


def set_field(scoring: tuple[Component, ...], award: str, name: str, value: Any,
              where: str) -> tuple[Component, ...]:
    """The components with field `name` of every `award` component set (validated, normalised)."""
    if not any(c.award == award for c in scoring):
        raise VariantError(RULE, f"{where}: needs a {award} scoring component; the ruleset has none")
    return tuple(normalise(replace(c, settings=tuple((k, value if k == name else v) for k, v in c.settings)))
                 if c.award == award else c for c in scoring)


def canonical_value(value: Any) -> str:
    """A parameter value in a canonical name: as format_value, but lists as compact JSON, which
    the name's parser reads back."""
    if isinstance(value, tuple):
        return json.dumps(lists(value), separators=(",", ":"))
    return format_value(value)


def _split_top(text: str) -> list[str]:
    """Split on commas that are outside brackets, braces and strings."""
    items, depth, start, quoted = [], 0, 0, False
    for i, ch in enumerate(text):
        if ch == '"' and (i == 0 or text[i - 1] != "\\"):
            quoted = not quoted
        elif not quoted and ch in "[{":
            depth += 1
        elif not quoted and ch in "]}":
            depth -= 1
        elif not quoted and depth == 0 and ch == ",":
            items.append(text[start:i])
            start = i + 1
    if text[start:]:
        items.append(text[start:])
    return items


def _parse_scalar(p: Parameter, raw: str, where: str) -> Any:
    """A value of a canonical name, in its one spelling: true/false, an integer in ASCII digits
    without sign, leading zeros or spaces, an exact number as an integer or a reduced fraction
    (3/4), a word as listed."""
    value: Any = raw
    if p.type is tuple and raw.startswith("["):
        try:
            value = loads(raw)
        except (json.JSONDecodeError, RecursionError):
            value = raw
    elif p.type is bool:
        value = {"true": True, "false": False}.get(raw, raw)
    elif p.type is int and re.fullmatch(r"0|[1-9][0-9]{0,19}", raw):
        value = int(raw)
    elif p.type is Fraction:
        exact = re.fullmatch(r"(0|[1-9][0-9]{0,19})(/[1-9][0-9]{0,19})?", raw)
        if not exact or str(Fraction(raw)) != raw:  # not in its one spelling
            raise VariantError(RULE, f"{where}: {p.name} = {cut(raw, 40)} is not allowed; allowed: "
                               + describe_allowed(p))
        value = Fraction(raw)
    return check_param(p, value, where)
