"""Rulesets as data: the parameter vocabulary, variant files, validation and canonical names.

A ruleset is a record of parameters (rule `variant-file`); the engine interprets it. Built-in
rulesets live in spec/variants/*.toml; a user's file usually `extends` one and changes a few keys.
"""

from __future__ import annotations

import contextlib
import json
import tomllib
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from .errors import VariantError
from .spec import spec_dir

RULE = "variant-file"


@dataclass(frozen=True)
class Parameter:
    """One rule parameter: its type, allowed values, default and a one-line description."""

    name: str
    type: type
    allowed: tuple[Any, ...]
    default: Any
    description: str


PARAMETERS: tuple[Parameter, ...] = (
    Parameter("game", str, ("quantum",), "quantum",
              "Game family: quantum is Goff's quantum tic-tac-toe."),
    Parameter("board", int, tuple(range(2, 9)), 3,
              "Board side n: the board has n×n cells."),
    Parameter("measurer", str, ("opponent", "creator"), "opponent",
              "Who measures a cycle: the opponent of the player who closed it, or that player."),
    Parameter("two_cycles", bool, (True, False), True,
              "Whether a placement may repeat the two cells of a live spooky move (a 2-cycle)."),
    Parameter("last_square", str, ("forced", "end"), "forced",
              "With one open cell left: the player to move fills it (forced), or the game ends."),
    Parameter("untouched", str, ("keep", "vanish"), "keep",
              "Spooky marks outside a collapsed component stay (keep) or vanish."),
    Parameter("end", str, ("first-line", "full"), "first-line",
              "The game ends at the first collapse that completes a line, or only on a full board."),
    Parameter("end_line", int, tuple(range(0, 9)), 0,
              "Length of the line that ends the game under end = first-line; 0 means the board size."),
)
PARAMETER_BY_NAME = {p.name: p for p in PARAMETERS}

AWARDS = ("per-pattern", "first-line", "rank")
PATTERNS = ("line", "square")
CRITERIA = ("min-max", "min-sum")

# Fields of a scoring component: name -> (kind, default, description); kind is one of
# "award", "pattern", "int", "fraction", "criteria", "ranks".
COMMON_FIELDS: dict[str, tuple[str, Any, str]] = {
    "award": ("award", None, "Kind of award: per-pattern, first-line or rank."),
    "pattern": ("pattern", "line", "Pattern scored: line (L cells in a row) or square (L×L)."),
    "length": ("int", None, "Pattern length L; for lines 0 means the board size (default 0, squares 2)."),
}
AWARD_FIELDS: dict[str, dict[str, tuple[str, Any, str]]] = {
    "per-pattern": {
        "points": ("fraction", Fraction(1), "Points for each owned pattern."),
    },
    "first-line": {
        "sole": ("fraction", Fraction(0), "Points when only this player owns a pattern."),
        "first": ("fraction", Fraction(0), "Points to the better best line when both own one."),
        "second": ("fraction", Fraction(0), "Points to the worse best line when both own one."),
        "neither": ("fraction", Fraction(0), "Points to each player when neither owns a pattern."),
        "tie": ("fraction", None, "Points to each when both best lines have equal keys; unstated: a gap "
                "the checker reports (0 each)."),
        "tiebreak": ("criteria", (), "Criteria from the sources ordering best lines: min-max, min-sum."),
        "fallback": ("criteria", (), "Criteria no source states, applied after tiebreak (reported)."),
    },
    "rank": {
        "ranks": ("ranks", "harmonic", "Points by rank: harmonic (1/k) or a list of fractions."),
    },
}


@dataclass(frozen=True)
class Component:
    """One scoring component: an award over a pattern, with the award's settings."""

    award: str
    pattern: str
    length: int
    settings: tuple[tuple[str, Any], ...]

    def get(self, name: str) -> Any:
        """The value of setting `name`."""
        return dict(self.settings)[name]

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form: fractions as strings, lists for tuples."""
        out: dict[str, Any] = {"award": self.award, "pattern": self.pattern, "length": self.length}
        for name, value in self.settings:
            if value is not None:
                out[name] = _plain(value)
        return out


def _plain(value: Any) -> Any:
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class Ruleset:
    """A resolved ruleset: parameter values, scoring components and descriptive metadata."""

    params: tuple[tuple[str, Any], ...]
    scoring: tuple[Component, ...]
    name: str = "qttt"
    base: str = "qttt"
    title: str = ""
    summary: str = ""
    sources: tuple[str, ...] = ()
    path: str | None = field(default=None, compare=False)

    def __getitem__(self, name: str) -> Any:
        return dict(self.params)[name]

    @property
    def board(self) -> int:
        """Board side n."""
        return int(self["board"])

    def to_dict(self) -> dict[str, Any]:
        """The resolved parameters as plain data: rule parameters plus `scoring`."""
        out: dict[str, Any] = dict(self.params)
        out["scoring"] = [c.to_dict() for c in self.scoring]
        return out

    @property
    def canonical(self) -> str:
        """Canonical name: the base ruleset and the parameters that differ from it."""
        base_rs = load_ruleset(self.base) if self.base != "qttt" else default_ruleset()
        pairs = zip(self.params, base_rs.params, strict=True)
        diffs = [f"{k}={_format_value(v)}" for (k, v), (_, bv) in pairs if v != bv]
        if self.scoring != base_rs.scoring:
            scoring = [c.to_dict() for c in self.scoring]
            diffs.append("scoring=" + json.dumps(scoring, separators=(",", ":")))
        if not diffs and self.base != "qttt":
            return self.base
        return f"{self.base}({','.join(diffs)})"

    def key(self) -> tuple[tuple[tuple[str, Any], ...], tuple[Component, ...]]:
        """What makes two rulesets the same rules, whatever their names."""
        return (self.params, self.scoring)


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def default_ruleset() -> Ruleset:
    """Every parameter at its default and no scoring: the base `qttt` of canonical names."""
    return Ruleset(params=tuple((p.name, p.default) for p in PARAMETERS), scoring=())


def builtin_names() -> tuple[str, ...]:
    """Names of the built-in rulesets, in a fixed order."""
    order = ("wikipedia", "russian", "russian-unstable", "bonus4x4", "kumar", "ishizeki-complete")
    found = sorted(p.stem for p in (spec_dir() / "variants").glob("*.toml"))
    return tuple([n for n in order if n in found] + [n for n in found if n not in order])


def load_ruleset(spec: str | Path) -> Ruleset:
    """A ruleset from a built-in name, a canonical name or a variant file path."""
    text = str(spec)
    if isinstance(spec, str):
        if text in builtin_names():
            return _load_builtin(text)
        if "(" in text and text.endswith(")") and not Path(text).is_file():
            return parse_canonical(text)
    path = Path(text)
    if path.suffix == ".toml" or path.is_file():
        if not path.is_file():
            raise VariantError("record-variant", f"variant file {text!r} does not exist")
        return _load_file(path.resolve(), ())
    raise VariantError("record-variant", f"unknown ruleset {text!r}; built-in rulesets: "
                       + ", ".join(builtin_names()) + ", or a path to a .toml variant file")


@cache
def _load_builtin(name: str) -> Ruleset:
    return _load_file((spec_dir() / "variants" / f"{name}.toml").resolve(), ())


def parse_canonical(text: str) -> Ruleset:
    """Parse `base(key=value,...)`: base is a built-in name or `qttt` (all defaults)."""
    where = f"ruleset name {text!r}"
    base, _, rest = text.partition("(")
    if base == "qttt":
        rs = default_ruleset()
    elif base in builtin_names():
        rs = _load_builtin(base)
    else:
        raise VariantError("record-variant", f"{where}: unknown base {base!r}; allowed: qttt, "
                           + ", ".join(builtin_names()))
    values: dict[str, Any] = {}
    scoring_raw: Any = None
    for item in _split_top(rest[:-1]):
        key, eq, raw = item.partition("=")
        if not eq:
            raise VariantError(RULE, f"{where}: {item!r} is not key=value")
        if key == "scoring":
            try:
                scoring_raw = json.loads(raw)
            except json.JSONDecodeError as e:
                raise VariantError(RULE, f"{where}: scoring is not JSON: {e.msg}") from None
        elif key in PARAMETER_BY_NAME:
            values[key] = _parse_scalar(PARAMETER_BY_NAME[key], raw, where)
        else:
            raise VariantError(RULE, f"{where}: unknown key {key!r}; allowed: "
                               + ", ".join([*PARAMETER_BY_NAME, "scoring"]))
    params = _merge_params(dict(rs.params), values, where, f"ruleset {base!r}")
    scoring = rs.scoring if scoring_raw is None else _components(scoring_raw, where, params)
    if scoring_raw is None:
        _refit(scoring, params, where, f"ruleset {base!r}")
    name = base if not values and scoring_raw is None else text
    return Ruleset(params=params, scoring=scoring, name=name, base=base, title=rs.title,
                   summary=rs.summary, sources=rs.sources)


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
    value: Any = raw
    if p.type is bool:
        value = {"true": True, "false": False}.get(raw, raw)
    elif p.type is int:
        with contextlib.suppress(ValueError):
            value = int(raw)
    return _check_param(p, value, where)


def _check_param(p: Parameter, value: Any, where: str, section: str = "") -> Any:
    ok_type = isinstance(value, p.type) and not (p.type is int and isinstance(value, bool))
    if not ok_type or value not in p.allowed:
        raise VariantError(RULE, f"{where}: {section}{p.name} = {json.dumps(value)} is not allowed; "
                           "allowed: " + _describe_allowed(p))
    return value


def _describe_allowed(p: Parameter) -> str:
    if p.type is int:
        return f"an integer from {p.allowed[0]} to {p.allowed[-1]}"
    return ", ".join(json.dumps(a) for a in p.allowed)


def _merge_params(base: dict[str, Any], values: dict[str, Any], where: str,
                  parent: str = "") -> tuple[tuple[str, Any], ...]:
    """The parent's parameters overridden by values, checked again as a whole: a value inherited
    from `parent` that no longer fits is named with both."""
    merged = {**base, **values}
    if merged["end_line"] > merged["board"]:
        inherited = f" (inherited from {parent})" if parent and "end_line" not in values else ""
        raise VariantError(RULE, f"{where}: end_line = {merged['end_line']}{inherited} is not allowed with "
                           f"board = {merged['board']}; allowed: 0 (the board size) to {merged['board']}")
    return tuple((p.name, merged[p.name]) for p in PARAMETERS)


def _refit(scoring: tuple[Component, ...], params: tuple[tuple[str, Any], ...], where: str,
           parent: str) -> None:
    """Inherited scoring components checked again against the board they now score."""
    board = dict(params)["board"]
    for i, c in enumerate(scoring):
        if c.length > board:
            what = "a line of" if c.pattern == "line" else "a square of side"
            raise VariantError(RULE, f"{where}: board = {board} does not fit scoring[{i}] inherited from "
                               f"{parent}: {what} {c.length} (length = {c.length}); allowed: lengths up to "
                               f"the board size {board}; give this file its own [[scoring]]")


def _load_file(path: Path, chain: tuple[Path, ...]) -> Ruleset:
    where = str(path)
    if path in chain:
        raise VariantError(RULE, f"{where}: extends itself through "
                           + " -> ".join(p.name for p in (*chain, path)))
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise VariantError(RULE, f"{where}: not valid TOML: {e}") from None
    except OSError as e:
        raise VariantError(RULE, f"{where}: cannot be read: {e.strerror}") from None
    _only_keys(data, ("variant", "rules", "scoring"), where, "top level")
    meta = data.get("variant")
    if not isinstance(meta, dict):
        raise VariantError(RULE, f"{where}: missing [variant] table with a name")
    _only_keys(meta, ("name", "extends", "title", "summary", "sources", "notes"), where, "variant")
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        raise VariantError(RULE, f"{where}: variant.name = {name!r} is not allowed; "
                           "allowed: a non-empty string")
    for key in ("title", "summary", "notes", "extends"):
        if key in meta and not isinstance(meta[key], str):
            raise VariantError(RULE, f"{where}: variant.{key} = {meta[key]!r} is not allowed; "
                               "allowed: a string")
    sources = meta.get("sources", [])
    if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
        raise VariantError(RULE, f"{where}: variant.sources = {sources!r} is not allowed; "
                           "allowed: a list of strings")
    parent = _parent(meta.get("extends"), path, chain)
    rules = data.get("rules", {})
    if not isinstance(rules, dict):
        raise VariantError(RULE, f"{where}: rules must be a table")
    _only_keys(rules, tuple(PARAMETER_BY_NAME), where, "rules")
    values = {k: _check_param(PARAMETER_BY_NAME[k], v, where, "rules.") for k, v in rules.items()}
    origin = parent.path or f"ruleset {parent.name!r}"
    params = _merge_params(dict(parent.params), values, where, origin)
    scoring = parent.scoring
    if "scoring" in data:
        scoring = _components(data["scoring"], where, params)
    else:
        _refit(scoring, params, where, origin)
    is_builtin = path.parent == (spec_dir() / "variants").resolve()
    base = name if is_builtin else parent.base
    return Ruleset(params=params, scoring=scoring, name=name, base=base,
                   title=meta.get("title", parent.title if not is_builtin else ""),
                   summary=meta.get("summary", ""), sources=tuple(sources) or parent.sources,
                   path=str(path))


def _parent(extends: str | None, path: Path, chain: tuple[Path, ...]) -> Ruleset:
    if extends is None:
        return default_ruleset()
    if extends in builtin_names():
        target = (spec_dir() / "variants" / f"{extends}.toml").resolve()
        if target in chain or target == path:
            return _load_file(target, (*chain, path))
        return _load_builtin(extends)
    target = (path.parent / extends).resolve()
    if not target.is_file():
        raise VariantError(RULE, f"{path}: variant.extends = {extends!r} is not allowed; allowed: "
                           + ", ".join(builtin_names()) + ", or a path to a variant file")
    return _load_file(target, (*chain, path))


def _only_keys(table: dict[str, Any], allowed: tuple[str, ...], where: str, section: str) -> None:
    for key in table:
        if key not in allowed:
            raise VariantError(RULE, f"{where}: unknown key {section}.{key}; allowed: "
                               + ", ".join(allowed))


def _components(raw: Any, where: str, params: tuple[tuple[str, Any], ...]) -> tuple[Component, ...]:
    if not isinstance(raw, list):
        raise VariantError(RULE, f"{where}: scoring must be an array of tables ([[scoring]])")
    return tuple(_component(c, f"{where}: scoring[{i}]", dict(params)["board"])
                 for i, c in enumerate(raw))


def _component(raw: Any, where: str, board: int) -> Component:
    if not isinstance(raw, dict):
        raise VariantError(RULE, f"{where}: must be a table")
    award = raw.get("award")
    if award not in AWARDS:
        raise VariantError(RULE, f"{where}: award = {json.dumps(award)} is not allowed; allowed: "
                           + ", ".join(json.dumps(a) for a in AWARDS))
    fields = {**COMMON_FIELDS, **AWARD_FIELDS[award]}
    _only_keys(raw, tuple(fields), where, "scoring")
    pattern = raw.get("pattern", "line")
    if pattern not in PATTERNS:
        raise VariantError(RULE, f"{where}: pattern = {json.dumps(pattern)} is not allowed; allowed: "
                           + ", ".join(json.dumps(p) for p in PATTERNS))
    if award != "per-pattern" and pattern != "line":
        raise VariantError(RULE, f"{where}: pattern = {json.dumps(pattern)} is not allowed with award "
                           f"{award!r}; allowed: \"line\"")
    length = raw.get("length", 0 if pattern == "line" else 2)
    low = 0 if pattern == "line" else 1
    if not isinstance(length, int) or isinstance(length, bool) or not low <= length <= board:
        raise VariantError(RULE, f"{where}: length = {length!r} is not allowed; allowed: an "
                           f"integer from {low} to the board size {board}"
                           + (" (0: the board size)" if pattern == "line" else ""))
    settings = []
    for name, (kind, default, _) in AWARD_FIELDS[award].items():
        settings.append((name, _setting(kind, raw.get(name, default), f"{where}: {name}")))
    return Component(award, pattern, length, tuple(settings))


def _setting(kind: str, value: Any, where: str) -> Any:
    if kind == "fraction":
        return None if value is None else _fraction(value, where)
    if kind == "criteria":
        if isinstance(value, (list, tuple)) and all(v in CRITERIA for v in value):
            return tuple(value)
        raise VariantError(RULE, f"{where} = {value!r} is not allowed; allowed: a list of "
                           + ", ".join(json.dumps(c) for c in CRITERIA))
    if value == "harmonic":
        return "harmonic"
    if isinstance(value, (list, tuple)) and value:
        return tuple(_fraction(v, where) for v in value)
    raise VariantError(RULE, f"{where} = {value!r} is not allowed; allowed: \"harmonic\" or a "
                       "non-empty list of fractions")


def _fraction(value: Any, where: str) -> Fraction:
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (int, str)) and not isinstance(value, bool):
        try:
            return Fraction(value)
        except (ValueError, ZeroDivisionError):
            pass
    raise VariantError(RULE, f"{where} = {value!r} is not allowed; allowed: an exact number "
                       "as an integer or a string such as \"1/2\"")


def with_params(rs: Ruleset, **changes: Any) -> Ruleset:
    """A copy of `rs` with some rule parameters changed (validated), keeping its base."""
    values = {k: _check_param(PARAMETER_BY_NAME[k], v, "parameters") if k in PARAMETER_BY_NAME
              else _unknown(k) for k, v in changes.items()}
    origin = rs.path or f"ruleset {rs.name!r}"
    params = _merge_params(dict(rs.params), values, "parameters", origin)
    _refit(rs.scoring, params, "parameters", origin)
    out = replace(rs, params=params)
    return replace(out, name=out.canonical, path=None)


def _unknown(key: str) -> Any:
    raise VariantError(RULE, f"parameters: unknown key {key!r}; allowed: "
                       + ", ".join(PARAMETER_BY_NAME))
