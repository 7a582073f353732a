"""The JSON Schema of variant files (rule `variant-file`), generated from the parameter vocabulary.

`spec/schema/variant.schema.json` is this module's output: a variant TOML file, read as JSON,
validates against it. Regenerate with `python -m qttt.schema`; `--check` exits 1 when the
committed file differs. The record and state schemas beside it are written by hand.
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from typing import Any

from .io import write_or_check
from .spec import spec_dir
from .vocabulary import (
    AWARD_DECLARATIONS,
    AWARDS,
    COMMON_FIELDS,
    CRITERIA,
    MATCH_FIELDS,
    PARAMETERS,
    PATTERNS,
    Parameter,
)

SCHEMA_ID = "https://qttt.invalid/spec/schema/variant.schema.json"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
# An exact number as a string, as variant files take it (fractions.Fraction): "3", "-1/2", "0.5".
FRACTION_PATTERN = r"^\s*[+-]?([0-9]+(/0*[1-9][0-9]*)?|[0-9]*\.[0-9]+|[0-9]+\.)\s*$"
# Keys of the [variant] table that qttt.variant accepts, with their descriptions.
META_FIELDS: dict[str, tuple[dict[str, Any], str]] = {
    "name": ({"type": "string", "minLength": 1}, "The variant's name."),
    "extends": ({"type": "string"}, "A built-in ruleset name or a path to the parent variant file."),
    "title": ({"type": "string"}, "A one-line title."),
    "summary": ({"type": "string"}, "A one-paragraph summary of the rules."),
    "sources": ({"type": "array", "items": {"type": "string"}}, "Ids of the sources the rules follow."),
    "notes": ({"type": "string"}, "Free-form notes."),
}


def _parameter(p: Parameter) -> dict[str, Any]:
    """One [rules] key: its type, allowed values, default and description."""
    default = list(p.default) if isinstance(p.default, tuple) else p.default
    out: dict[str, Any] = {"description": p.description, "default": default}
    if p.name == "route":
        out["oneOf"] = [{"const": "same"}, {"type": "array", "minItems": 1, "items": {
            "type": "array", "minItems": 1, "uniqueItems": True,
            "items": {"type": "integer", "minimum": 0}}}]
    elif p.type is tuple:
        out.update(type="array", minItems=1, uniqueItems=True, items={"enum": list(p.allowed)})
    elif p.type is bool:
        out["type"] = "boolean"
    elif p.type is int:
        out.update(type="integer", minimum=min(p.allowed), maximum=max(p.allowed))
    elif p.type is Fraction:  # its bounds are checked by qttt (a pattern cannot say them)
        out = _fraction(p.description, p.default)
    else:
        out.update(type="string", enum=list(p.allowed))
    return out


def _fraction(description: str, default: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "description": description,
        "oneOf": [{"type": "integer"}, {"type": "string", "pattern": FRACTION_PATTERN}],
    }
    if default is not None:
        out["default"] = str(default) if isinstance(default, Fraction) else default
    return out


def _field(kind: str, default: Any, description: str) -> dict[str, Any]:
    """The schema of one scoring field of the given kind (see variant.COMMON_FIELDS)."""
    if kind == "fraction":
        return _fraction(description, default)
    if kind == "criteria":
        return {"description": description, "default": list(default), "type": "array",
                "items": {"enum": list(CRITERIA)}}
    if kind == "ranks":
        return {"description": description, "default": default, "oneOf": [
            {"const": "harmonic"},
            {"type": "array", "minItems": 1, "items": _fraction("Points for this rank.", None)},
        ]}
    if kind == "weights":
        return {"description": description, "default": default, "oneOf": [
            {"const": "equal"},
            {"type": "array", "minItems": 1, "items": _fraction("Worth of this block.", None)},
        ]}
    if kind == "int":
        return {"description": description, "type": "integer",
                "minimum": 0, "maximum": max(PARAMETERS_BY_NAME["board"].allowed)}
    if kind == "pattern":
        return {"description": description, "default": default, "enum": list(PATTERNS)}
    raise ValueError(f"unknown field kind {kind!r}")


PARAMETERS_BY_NAME = {p.name: p for p in PARAMETERS}


def _component(award: str) -> dict[str, Any]:
    """A [[scoring]] table of one award kind."""
    props: dict[str, Any] = {"award": {"description": COMMON_FIELDS["award"].description, "const": award}}
    for name, (kind, default, description) in AWARD_DECLARATIONS[award].fields.items():
        props[name] = _field(kind, default, description)
    if award != "per-pattern" and "pattern" in props:  # only per-pattern awards score squares
        props["pattern"] = {**props["pattern"], "enum": ["line"]}
    return {"type": "object", "required": ["award"], "additionalProperties": False,
            "properties": props}


def _match() -> dict[str, Any]:
    """The [match] table: two clocks in seconds and the forfeit score."""
    seconds = {"oneOf": [{"type": "number", "minimum": 0},
                         {"type": "string", "pattern": FRACTION_PATTERN}]}
    out: dict[str, Any] = {}
    for name, (default, description) in MATCH_FIELDS.items():
        if name == "forfeit":
            out[name] = {"description": description, "default": default, "type": "array",
                         "minItems": 2, "maxItems": 2, "items": _fraction("Points.", None)}
        else:
            out[name] = {**seconds, "description": description, "default": default}
    return out


def variant_schema() -> dict[str, Any]:
    """The JSON Schema of a variant file, from variant.PARAMETERS and variant.AWARD_FIELDS."""
    meta = {name: {**schema, "description": description}
            for name, (schema, description) in META_FIELDS.items()}
    return {
        "$schema": DRAFT,
        "$id": SCHEMA_ID,
        "title": "qttt variant file (TOML, read as JSON)",
        "description": "Generated by `python -m qttt.schema` from qttt.vocabulary; do not edit. "
                       "Rule variant-file of spec/rules.toml.",
        "type": "object",
        "required": ["variant"],
        "additionalProperties": False,
        "properties": {
            "variant": {"type": "object", "required": ["name"], "additionalProperties": False,
                        "properties": meta},
            "rules": {"type": "object", "additionalProperties": False,
                      "properties": {p.name: _parameter(p) for p in PARAMETERS}},
            "scoring": {"type": "array", "items": {"oneOf": [_component(a) for a in AWARDS]}},
            "match": {"type": "object", "additionalProperties": False, "properties": _match()},
        },
    }


def render() -> str:
    """The schema file's text."""
    return json.dumps(variant_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write spec/schema/variant.schema.json, or with --check report whether it is current."""
    parser = argparse.ArgumentParser(prog="python -m qttt.schema", description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed file differs")
    args = parser.parse_args(argv)
    target = spec_dir() / "schema" / "variant.schema.json"
    return write_or_check({target: render()}, args.check, "python -m qttt.schema")


if __name__ == "__main__":
    sys.exit(main())
