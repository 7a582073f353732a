"""Rulesets as data: the parameter vocabulary, variant files, validation and canonical names.

A ruleset is a record of parameters (rule `variant-file`); the engine interprets it. Built-in
rulesets live in spec/variants/*.toml; a user's file usually `extends` one and changes a few keys.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass, field, fields, replace
from fractions import Fraction
from functools import cache, cached_property
from pathlib import Path
from typing import Any, Literal, get_args, get_origin, get_type_hints

from .bounds import loads
from .errors import VariantError
from .gametype import GAME_TYPES
from .io import input_problem, parse_toml, read_text
from .safe import shown
from .spec import rules, spec_dir

RULE = "variant-file"
QUANTUM = "quantum"
NESTED = "nested-classical"
GAMES = tuple(GAME_TYPES)  # the game families (qttt.gametype)
# Pattern kinds of the nested family, the same vocabulary at both levels (rule nested-patterns).
PATTERN_KINDS = ("rows", "columns", "diagonals", "diamonds")


@dataclass(frozen=True)
class Parameter:
    """One rule parameter: its type, allowed values, default, a one-line description, the rule of
    spec/rules.toml it selects and the game families that read it (their GameType.parameters). A
    tuple parameter holds a list whose items are in `allowed` (route: lists of block numbers, checked
    against the board)."""

    name: str
    type: type
    allowed: tuple[Any, ...]
    default: Any
    description: str
    rule: str
    games: tuple[str, ...] = (QUANTUM,)


def _about(description: str, allowed: range | tuple[str, ...] | None = None,
           rule: str | None = None) -> dict[str, Any]:
    """Field metadata; `rule` only for a parameter that no rule of rules.toml is scoped to."""
    return {"description": description, "allowed": allowed, "rule": rule}


FullBlock = Literal["pattern-first", "drawn-first"]
Bonus = Literal["none", "block-win"]
Route = str | tuple[tuple[int, ...], ...]
Measurer = Literal["opponent", "creator"]
LastSquare = Literal["forced", "end"]
Untouched = Literal["keep", "vanish"]
End = Literal["first-line", "full"]


@dataclass(frozen=True)
class Parameters:
    """The rule parameters of a ruleset, typed: the one declaration of the parameter vocabulary
    (names, allowed values, defaults, descriptions); `PARAMETERS` is derived from it."""

    game: str = field(default="quantum", metadata=_about(
        "Game family: " + "; ".join(f"{t.name}: {t.description}" for t in GAME_TYPES.values()) + ".",
        GAMES, "turn-order"))
    board: int = field(default=3, metadata=_about(
        "Board side n: the board has n×n cells (nested-classical: n×n blocks of n×n cells).",
        range(2, 9), "board-cells"))
    measurer: Measurer = field(default="opponent", metadata=_about(
        "Who measures a cycle: the opponent of the player who closed it, or that player."))
    two_cycles: bool = field(default=True, metadata=_about(
        "Whether a placement may repeat the two cells of a live spooky move (a 2-cycle)."))
    last_square: LastSquare = field(default="forced", metadata=_about(
        "With one open cell left: the player to move fills it (forced), or the game ends."))
    untouched: Untouched = field(default="keep", metadata=_about(
        "Spooky marks outside a collapsed component stay (keep) or vanish."))
    end: End = field(default="first-line", metadata=_about(
        "The game ends at the first collapse that completes a line, or only on a full board."))
    end_line: int = field(default=0, metadata=_about(
        "Length of the line that ends the game under end = first-line; 0 means the board size.",
        range(0, 9), "end-line"))
    route: Route = field(default="same", metadata=_about(
        "For each cell position of a block (row-major), the blocks the next move must use; \"same\": "
        "the block at that position.", ()))
    block_patterns: tuple[str, ...] = field(default=("rows", "columns", "diagonals"), metadata=_about(
        "Patterns that win a block: rows, columns, the two diagonals, diamonds.", PATTERN_KINDS,
        "nested-patterns"))
    board_patterns: tuple[str, ...] = field(default=("rows", "columns", "diagonals"), metadata=_about(
        "Patterns of won blocks that win the game.", PATTERN_KINDS, "nested-patterns"))
    full_block: FullBlock = field(default="pattern-first", metadata=_about(
        "A move that fills a block and completes a pattern wins it (pattern-first) or draws it "
        "(drawn-first)."))
    bonus: Bonus = field(default="none", metadata=_about(
        "Winning a block gives the same player one extra move at once (block-win), at most one per "
        "turn."))


def _parameters() -> tuple[Parameter, ...]:
    hints = get_type_hints(Parameters)
    scoped = {}
    for r in reversed(rules().values()):
        scoped[r.scope] = r.id
    out = []
    for f in fields(Parameters):
        kind = hints[f.name]
        listed = kind not in (bool, int, str) and get_origin(kind) is not Literal  # route, pattern lists
        typ: type = tuple if listed else kind if kind in (bool, int) else str
        given = kind in (int, str) or listed  # the metadata lists the allowed values
        allowed = (True, False) if kind is bool else tuple(f.metadata["allowed"]) if given else get_args(kind)
        rule = f.metadata["rule"] or scoped[f.name]
        games = tuple(g.name for g in GAME_TYPES.values() if f.name in g.parameters)
        out.append(Parameter(f.name, typ, allowed, f.default, f.metadata["description"], rule, games))
    return tuple(out)


PARAMETERS: tuple[Parameter, ...] = _parameters()
PARAMETER_BY_NAME = {p.name: p for p in PARAMETERS}
# Canonical-name keys that set a scoring field of every component of one award: key -> (award, field).
# double_line: the double-line award (ambiguity double-line); tiebreak: the criteria ordering both
# players' best lines (ambiguity bonus-simultaneous: a CodeCup bot compares [min-max]).
# key -> (award, field, an example).
SCORING_KEYS: dict[str, tuple[str, str, str]] = {
    "double_line": ("first-line", "double", "wikipedia(double_line=2)"),
    "tiebreak": ("first-line", "tiebreak", "bonus4x4(tiebreak=[min-max])"),
}

AwardName = Literal["per-pattern", "first-line", "rank", "win", "draw-blocks", "draw-majority"]
PatternKind = Literal["line", "square"]
Criterion = Literal["min-max", "min-sum"]
AWARDS: tuple[AwardName, ...] = get_args(AwardName)
PATTERNS: tuple[PatternKind, ...] = get_args(PatternKind)
CRITERIA: tuple[Criterion, ...] = get_args(Criterion)
# The game family of each award: quantum awards score patterns of marks, nested ones the game.
AWARD_GAME = {a: g.name for g in GAME_TYPES.values() for a in g.awards}

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
        "double": ("fraction", None, "Points when only this player owns patterns and owns two or more (a "
                   "double line); unstated: sole. Canonical names set it as double_line."),
        "tiebreak": ("criteria", (), "Criteria from the sources ordering best lines: min-max, min-sum."),
        "fallback": ("criteria", (), "Criteria no source states, applied after tiebreak (reported)."),
    },
    "rank": {
        "ranks": ("ranks", "harmonic", "Points by rank: harmonic (1/k) or a list of fractions."),
    },
    "win": {
        "points": ("fraction", Fraction(1), "Points to the player whose won blocks form a pattern; "
                   "the other gets 0."),
    },
    "draw-blocks": {
        "weights": ("weights", "equal", "Worth of each block, row-major: equal (1 each) or a list."),
    },
    "draw-majority": {
        "more": ("fraction", Fraction(1), "Points to the player whose won blocks are worth more."),
        "fewer": ("fraction", Fraction(0), "Points to the other player."),
        "equal": ("fraction", Fraction(1, 2), "Points to each when both are worth the same."),
        "weights": ("weights", "equal", "Worth of each block, row-major: equal (1 each) or a list."),
    },
}


@dataclass(frozen=True)
class Component:
    """One scoring component: an award over a pattern, with the award's settings."""

    award: AwardName
    pattern: PatternKind
    length: int
    settings: tuple[tuple[str, Any], ...]

    def get(self, name: str) -> Any:
        """The value of setting `name` (its default when the settings leave it out)."""
        settings = dict(self.settings)
        return settings[name] if name in settings else AWARD_FIELDS[self.award][name][1]

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form: fractions as strings, lists for tuples (no pattern for nested awards)."""
        out: dict[str, Any] = {"award": self.award}
        if AWARD_GAME[self.award] == QUANTUM:
            out.update(pattern=self.pattern, length=self.length)
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


# Keys of the [match] table: name -> (default, description). Referee settings, not rules: they
# do not enter a ruleset's identity (`Ruleset.key`) or canonical name.
MATCH_FIELDS: dict[str, tuple[Any, str]] = {
    "move_seconds": (0, "Time limit per action in seconds for `qttt match` (0: none)."),
    "game_seconds": (0, "Time each player has for all its actions in a game (0: none)."),
    "forfeit": (["1", "0"], "Points to the opponent and to the player who forfeits (an illegal "
                "action, a timeout, a crash, garbage or silence)."),
}


@dataclass(frozen=True)
class MatchRules:
    """How a referee runs games of a ruleset: the [match] table of a variant file."""

    move_seconds: Fraction = Fraction(0)
    game_seconds: Fraction = Fraction(0)
    forfeit: tuple[Fraction, Fraction] = (Fraction(1), Fraction(0))

    def to_dict(self) -> dict[str, Any]:
        """Plain data: numbers as strings."""
        return {"move_seconds": str(self.move_seconds), "game_seconds": str(self.game_seconds),
                "forfeit": [str(f) for f in self.forfeit]}


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
    match: MatchRules = field(default=MatchRules(), compare=False)

    @cached_property
    def rules(self) -> Parameters:
        """The rule parameters, typed."""
        return Parameters(**dict(self.params))

    @property
    def game(self) -> str:
        """The game family: quantum or nested-classical."""
        return self.rules.game

    def value(self, name: str) -> Any:
        """The value of rule parameter `name`, for listings (code reads the typed `rules`)."""
        return getattr(self.rules, name)

    @property
    def board(self) -> int:
        """Board side n."""
        return self.rules.board

    def to_dict(self) -> dict[str, Any]:
        """The resolved parameters as plain data: rule parameters plus `scoring`."""
        out: dict[str, Any] = dict(self.params)
        out["scoring"] = [c.to_dict() for c in self.scoring]
        return out

    @property
    def canonical(self) -> str:
        """Canonical name: the base ruleset and the parameters that differ from it."""
        base_rs = load_ruleset(self.base) if self.base != "qttt" else default_ruleset()
        base = dict(base_rs.params)
        diffs = [f"{k}={_canonical_value(v)}" for k, v in self.params if k not in base or v != base[k]]
        if self.scoring != base_rs.scoring:
            diffs.append(_scoring_diff(self.scoring, base_rs.scoring))
        if not diffs and self.base != "qttt":
            return self.base
        return f"{self.base}({','.join(diffs)})"

    def key(self) -> tuple[tuple[tuple[str, Any], ...], tuple[Component, ...]]:
        """What makes two rulesets the same rules, whatever their names."""
        return (self.params, self.scoring)


def _scoring_diff(scoring: tuple[Component, ...], base: tuple[Component, ...]) -> str:
    """`double_line=2` (and the other SCORING_KEYS) when only those fields differ, one value for
    every component of their award (which both sides have); else `scoring=JSON`."""
    candidate, diffs = base, []
    for key, (award, name, _) in SCORING_KEYS.items():
        values = {c.get(name) for c in scoring if c.award == award}
        present = {c.get(name) for c in candidate if c.award == award}
        if len(values) == 1 and present and values != present:  # else only the JSON form says it
            value = next(iter(values))
            candidate = _set_field(candidate, award, name, value, key)
            text = "[" + ",".join(value) + "]" if isinstance(value, tuple) else format_value(value)
            diffs.append(f"{key}={text}")
    if diffs and candidate == scoring:
        return ",".join(diffs)
    return "scoring=" + json.dumps([c.to_dict() for c in scoring], separators=(",", ":"))


def _set_field(scoring: tuple[Component, ...], award: str, name: str, value: Any,
               where: str) -> tuple[Component, ...]:
    """The components with field `name` of every `award` component set (validated, normalised)."""
    if not any(c.award == award for c in scoring):
        raise VariantError(RULE, f"{where}: needs a {award} scoring component; the ruleset has none")
    return tuple(_normalise(replace(c, settings=tuple((k, value if k == name else v) for k, v in c.settings)))
                 if c.award == award else c for c in scoring)


def _normalise(c: Component) -> Component:
    """A first-line component whose double-line award equals its sole award leaves it unstated."""
    if c.award == "first-line" and c.get("double") is not None and c.get("double") == c.get("sole"):
        return replace(c, settings=tuple((k, None if k == "double" else v) for k, v in c.settings))
    return c


def format_value(value: Any) -> str:
    """A parameter or setting value as variant files and canonical names write it: true/false,
    [a, b] for lists, else the value's text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_value(x) for x in value) + "]"
    return str(value)


def _canonical_value(value: Any) -> str:
    """A parameter value in a canonical name: as format_value, but lists as compact JSON, which
    the name's parser reads back."""
    if isinstance(value, tuple):
        return json.dumps(_lists(value), separators=(",", ":"))
    return format_value(value)


def _lists(value: Any) -> Any:
    """Tuples (nested) as lists, for JSON."""
    return [_lists(v) for v in value] if isinstance(value, (tuple, list)) else value


def _tuples(value: Any) -> Any:
    """Lists (nested) as tuples, the form rule parameters hold."""
    return tuple(_tuples(v) for v in value) if isinstance(value, (tuple, list)) else value


def default_ruleset() -> Ruleset:
    """Every quantum parameter at its default and no scoring: the base `qttt` of canonical names."""
    return Ruleset(params=tuple((p.name, p.default) for p in PARAMETERS if QUANTUM in p.games),
                   scoring=())


@cache
def _builtin_games() -> dict[str, str]:
    """Each built-in ruleset's name and game family, in a fixed order."""
    order = ("wikipedia", "russian", "russian-unstable", "bonus4x4", "kumar", "ishizeki-complete",
             "intelligent")
    found = sorted(p.stem for p in (spec_dir() / "variants").glob("*.toml"))
    names = [n for n in order if n in found] + [n for n in found if n not in order]
    games = {}
    for name in names:
        with open(spec_dir() / "variants" / f"{name}.toml", "rb") as f:
            games[name] = str(tomllib.load(f).get("rules", {}).get("game", QUANTUM))
    return games


def builtin_names(game: str | None = QUANTUM) -> tuple[str, ...]:
    """Names of the built-in rulesets of one game family (None: every family), in a fixed order."""
    return tuple(n for n, g in _builtin_games().items() if game is None or g == game)


def load_ruleset(spec: str | Path) -> Ruleset:
    """A ruleset from a built-in name, a canonical name or a variant file path."""
    text = str(spec)
    if isinstance(spec, str):
        if text in builtin_names(None):
            return _load_builtin(text)
        if "(" in text and text.endswith(")") and not _is_file(Path(text)):
            return parse_canonical(text)
    path = Path(text)
    if path.suffix == ".toml" or _exists(path):
        problem = input_problem(path)
        if problem is not None:
            raise VariantError("record-variant", f"variant file {_cut_path(text)} {problem}")
        return _load_file(_real(path))
    raise VariantError("record-variant", f"unknown ruleset {_cut(text)}; built-in rulesets: "
                       + ", ".join(builtin_names(None)) + ", or a path to a .toml variant file")


def _is_file(path: Path) -> bool:
    """Whether `path` is a file; False for a name the system cannot even look up (too long)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _exists(path: Path) -> bool:
    """Whether anything (a broken or looping symbolic link too) has the name `path`."""
    try:
        return os.path.lexists(path)
    except (OSError, ValueError):
        return False


def _real(path: Path) -> Path:
    """`path` absolute with symbolic links followed (never raising on a loop: the input layer
    names it when the file is opened)."""
    return Path(os.path.realpath(path))


def _cut_path(text: str, width: int = 240) -> str:
    """A path quoted for a message; a long one keeps its start and its file name."""
    quoted = repr(text)
    return quoted if len(quoted) <= width else quoted[:width // 3] + "..." + quoted[-(2 * width // 3):]


def _cut(text: str, width: int = 80) -> str:
    """A name quoted for a message, cut to `width` characters."""
    quoted = repr(text)
    return quoted if len(quoted) <= width else quoted[:width - 4] + "...'"


@cache
def _load_builtin(name: str) -> Ruleset:
    return _load_file(_real(spec_dir() / "variants" / f"{name}.toml"))


def parse_canonical(text: str) -> Ruleset:
    """Parse `base(key=value,...)`: base is a built-in name or `qttt` (all defaults)."""
    where = f"ruleset name {_cut(text)}"
    base, _, rest = text.partition("(")
    if base == "qttt":
        rs = default_ruleset()
    elif base in builtin_names(None):
        rs = _load_builtin(base)
    else:
        raise VariantError("record-variant", f"{where}: unknown base {base!r}; allowed: qttt, "
                           + ", ".join(builtin_names(None)))
    values: dict[str, Any] = {}
    scoring_raw: Any = None
    seen: set[str] = set()
    fields: dict[str, Any] = {}
    for item in _split_top(rest[:-1]):
        key, eq, raw = item.partition("=")
        if not eq:
            raise VariantError(RULE, f"{where}: {_cut(item, 40)} is not key=value")
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
            fields[key] = _setting(kind, items, f"{where}: {key}")
        else:
            raise VariantError(RULE, f"{where}: unknown key {_cut(key, 40)}; allowed: "
                               + ", ".join([*PARAMETER_BY_NAME, "scoring", *SCORING_KEYS]))
    params = _merge_params(dict(rs.params), values, where, f"ruleset {base!r}")
    scoring = rs.scoring if scoring_raw is None else _components(scoring_raw, where, params)
    if scoring_raw is None:
        _refit(scoring, params, where, f"ruleset {base!r}")
    for key, value in fields.items():
        award, field_name, _ = SCORING_KEYS[key]
        scoring = _set_field(scoring, award, field_name, value, f"{where}: {key}")
    _check_scoring_game(scoring, params, where)
    out = Ruleset(params=params, scoring=scoring, name=base, base=base, title=rs.title,
                  summary=rs.summary, sources=rs.sources, match=rs.match)
    return _derived(out, rs)


def _derived(rs: Ruleset, parent: Ruleset) -> Ruleset:
    """`rs` named by its canonical name, with a title and summary saying what changed from
    `parent` (whose own title and summary describe other rules), unless nothing did."""
    changes = _changes(rs, parent)
    if not changes:
        return replace(rs, name=rs.canonical if rs.base == "qttt" else rs.name)
    return replace(rs, name=rs.canonical, title=f"{parent.name} with {', '.join(changes)}",
                   summary=f"The {parent.name} ruleset with {', '.join(changes)}.")


def _changes(rs: Ruleset, parent: Ruleset) -> list[str]:
    """The parameters of `rs` that differ from `parent`'s, as key=value (scoring as one item)."""
    before = dict(parent.params)
    out = [f"{k}={format_value(v)}" for k, v in rs.params if k not in before or v != before[k]]
    if rs.scoring != parent.scoring:
        out.append("scoring changed")
    return out


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
    without sign, leading zeros or spaces, a word as listed."""
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
    return _check_param(p, value, where)


def _check_param(p: Parameter, value: Any, where: str, section: str = "") -> Any:
    if p.type is tuple:
        return _check_list_param(p, value, where, section)
    ok_type = isinstance(value, p.type) and not (p.type is int and isinstance(value, bool))
    if not ok_type or value not in p.allowed:
        raise VariantError(RULE, f"{where}: {section}{p.name} = {_toml(value)} is not allowed; "
                           "allowed: " + _describe_allowed(p))
    return value


def _check_list_param(p: Parameter, value: Any, where: str, section: str) -> Any:
    """A list parameter as a tuple: pattern kinds (distinct, at least one), or a route (checked
    against the board later, in _merge_params)."""
    bad = VariantError(RULE, f"{where}: {section}{p.name} = {json.dumps(_lists(value))} is not "
                       "allowed; allowed: " + _describe_allowed(p))
    if p.name == "route":
        if value == "same":
            return value
        if (isinstance(value, (list, tuple)) and value
                and all(isinstance(v, (list, tuple)) and v and all(_is_int(b) for b in v) for v in value)):
            return _tuples(value)
        raise bad
    if (not isinstance(value, (list, tuple)) or not value or len(set(value)) != len(value)
            or not all(isinstance(v, str) and v in p.allowed for v in value)):
        raise bad
    return tuple(value)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _describe_allowed(p: Parameter) -> str:
    if p.name == "route":
        return ("\"same\", or one non-empty list of block numbers (0 to n²−1) for each of the n² "
                "cell positions of a block")
    if p.type is tuple:
        return "a non-empty list of distinct kinds from " + ", ".join(json.dumps(a) for a in p.allowed)
    if p.type is int:
        return f"an integer from {p.allowed[0]} to {p.allowed[-1]} (in a name: digits 0-9, no sign, " \
            "leading zero or space)"
    return ", ".join(json.dumps(a) for a in p.allowed)


def _merge_params(base: dict[str, Any], values: dict[str, Any], where: str,
                  parent: str = "") -> tuple[tuple[str, Any], ...]:
    """The parameters of the merged family (its own, from `values`, `base` or the defaults),
    checked again as a whole: a value inherited from `parent` that no longer fits is named with both."""
    merged = {**base, **values}
    game = merged["game"]
    for key in values:
        if game not in PARAMETER_BY_NAME[key].games:
            raise VariantError(RULE, f"{where}: {key} does not apply to game = {json.dumps(game)}; "
                               "its parameters: " + ", ".join(p.name for p in PARAMETERS if game in p.games))
    if game != base.get("game", QUANTUM):  # another family: its parameters start from defaults
        merged = {**{p.name: p.default for p in PARAMETERS}, **values}
    out = {p.name: merged.get(p.name, p.default) for p in PARAMETERS if game in p.games}
    if "end_line" in out and out["end_line"] > out["board"]:
        inherited = f" (inherited from {parent})" if parent and "end_line" not in values else ""
        raise VariantError(RULE, f"{where}: end_line = {out['end_line']}{inherited} is not allowed with "
                           f"board = {out['board']}; allowed: 0 (the board size) to {out['board']}")
    if "route" in out and out["route"] != "same":
        blocks = out["board"] ** 2
        route = out["route"]
        if len(route) != blocks or any(not 0 <= b < blocks or list(r).count(b) > 1 for r in route for b in r):
            raise VariantError(RULE, f"{where}: route = {_canonical_value(route)} is not allowed; "
                               f"allowed: \"same\", or {blocks} lists (one per cell position) of "
                               f"distinct block numbers 0 to {blocks - 1}")
    return tuple(out.items())


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


EXTENDS_DEPTH = 32  # variant files in one `extends` chain, the file itself included


def _load_file(path: Path) -> Ruleset:
    """A variant file over the chain of files it extends, read one after another (never
    recursively): at most EXTENDS_DEPTH files, a cycle named with its chain (rule variant-file)."""
    chain = [(path, _read_file(path))]
    parent: Ruleset | None = None
    while parent is None:
        here, data = chain[-1]
        parent, target = _parent(data["variant"].get("extends"), here, [p for p, _ in chain])
        if target is not None:
            if len(chain) >= EXTENDS_DEPTH:
                raise VariantError(RULE, f"{path}: extends a chain of more than {EXTENDS_DEPTH} files "
                                   f"({path.name} -> {chain[1][0].name} -> ... -> {target.name}); "
                                   f"allowed: at most {EXTENDS_DEPTH}")
            chain.append((target, _read_file(target)))
    ruleset = parent
    for here, data in reversed(chain):
        ruleset = _build(here, data, ruleset)
    return ruleset


def _read_file(path: Path) -> dict[str, Any]:
    """A variant file's TOML, its [variant] table checked."""
    where = str(path)
    data = parse_toml(read_text(path, RULE), where, lambda why: VariantError(RULE, why))
    _only_keys(data, ("variant", "rules", "scoring", "match"), where, "top level")
    meta = data.get("variant")
    if not isinstance(meta, dict):
        raise VariantError(RULE, f"{where}: missing [variant] table with a name")
    _only_keys(meta, ("name", "extends", "title", "summary", "sources", "notes"), where, "variant")
    name = meta.get("name")
    if name is None:
        raise VariantError(RULE, f"{where}: variant.name is missing; it is a non-empty string")
    if not isinstance(name, str) or not name:
        raise VariantError(RULE, f"{where}: variant.name = {_toml(name)} is not allowed; "
                           "allowed: a non-empty string")
    for key in ("title", "summary", "notes", "extends"):
        if key in meta and not isinstance(meta[key], str):
            raise VariantError(RULE, f"{where}: variant.{key} = {_toml(meta[key])} is not allowed; "
                               "allowed: a string")
    sources = meta.get("sources", [])
    if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
        raise VariantError(RULE, f"{where}: variant.sources = {_toml(sources)} is not allowed; "
                           "allowed: a list of strings")
    return data


def _build(path: Path, data: dict[str, Any], parent: Ruleset) -> Ruleset:
    """The ruleset of a variant file read by _read_file, over its parent's."""
    where = str(path)
    meta = data["variant"]
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
    _check_scoring_game(scoring, params, where)
    match = _match(data.get("match", {}), parent.match, where)
    is_builtin = path.parent == _real(spec_dir() / "variants")
    name = shown(meta["name"])
    base = name if is_builtin else parent.base
    changes = ", ".join(_changes(Ruleset(params, scoring), parent))
    inherited = parent.title if not changes else f"{parent.name} with {changes}"
    return Ruleset(params=params, scoring=scoring, name=name, base=base, match=match,
                   title=shown(meta.get("title", inherited if not is_builtin else "")),
                   summary=shown(meta.get("summary", "")),
                   sources=tuple(shown(s) for s in meta.get("sources", [])) or parent.sources,
                   path=str(path))


def _toml(value: Any) -> str:
    """A TOML value for a message, as JSON (dates as strings), cut to 80 characters."""
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def _match(raw: Any, parent: MatchRules, where: str) -> MatchRules:
    """The [match] table over the parent's settings (rule variant-file)."""
    if not isinstance(raw, dict):
        raise VariantError(RULE, f"{where}: match must be a table")
    _only_keys(raw, tuple(MATCH_FIELDS), where, "match")
    out = parent
    for key in ("move_seconds", "game_seconds"):
        if key in raw:
            given = raw[key]
            value = _fraction(str(given) if isinstance(given, float) else given, f"{where}: match.{key}")
            if value < 0:
                raise VariantError(RULE, f"{where}: match.{key} = {_toml(raw[key])} is not allowed; "
                                   "allowed: a number of seconds >= 0 (0: no limit)")
            out = replace(out, move_seconds=value) if key == "move_seconds" else \
                replace(out, game_seconds=value)
    if "forfeit" in raw:
        pair = raw["forfeit"]
        if not isinstance(pair, list) or len(pair) != 2:
            raise VariantError(RULE, f"{where}: match.forfeit = {_toml(pair)} is not allowed; allowed: "
                               "[points to the opponent, points to the player who forfeits]")
        won, lost = (_fraction(v, f"{where}: match.forfeit") for v in pair)
        out = replace(out, forfeit=(won, lost))
    return out


def _parent(extends: str | None, path: Path, chain: list[Path]) -> tuple[Ruleset | None, Path | None]:
    """What `extends` names: a ruleset (a built-in or canonical name, or none: the defaults), or
    the next variant file to read; a file already in `chain` is a cycle."""
    target: Path | None = None
    if extends is None:
        return default_ruleset(), None
    if extends in builtin_names(None):
        target = _real(spec_dir() / "variants" / f"{extends}.toml")
        if target not in chain:
            return _load_builtin(extends), None
    elif "(" in extends and extends.endswith(")") and not _exists(path.parent / extends):
        return parse_canonical(extends), None
    else:
        given = path.parent / extends
        problem = input_problem(given)
        if problem is not None:
            what = "not found" if problem == "does not exist" else problem
            raise VariantError(RULE, f"{path}: variant.extends = {_cut(extends)}: file "
                               f"{_cut_path(str(given))} {what}; extends names a built-in ruleset ("
                               + ", ".join(builtin_names(None)) + "), a canonical name or a variant "
                               "file, relative to this file")
        target = _real(given)
    if target in chain:
        raise VariantError(RULE, f"{chain[0]}: extends itself through "
                           + " -> ".join(p.name for p in (*chain, target)))
    return None, target


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


def _check_scoring_game(scoring: tuple[Component, ...], params: tuple[tuple[str, Any], ...],
                        where: str) -> None:
    """Every component belongs to the ruleset's game family; weights fit its blocks."""
    p = dict(params)
    game = p["game"]
    for i, c in enumerate(scoring):
        if AWARD_GAME[c.award] != game:
            allowed = ", ".join(json.dumps(a) for a in AWARDS if AWARD_GAME[a] == game)
            raise VariantError(RULE, f"{where}: scoring[{i}]: award = {json.dumps(c.award)} does not "
                               f"apply to game = {json.dumps(game)}; allowed: {allowed}")
        weights = dict(c.settings).get("weights", "equal")
        if weights != "equal" and len(weights) != p["board"] ** 2:
            raise VariantError(RULE, f"{where}: scoring[{i}]: weights has {len(weights)} entries; "
                               f"allowed: \"equal\" or one per block ({p['board'] ** 2})")


def _component(raw: Any, where: str, board: int) -> Component:
    if not isinstance(raw, dict):
        raise VariantError(RULE, f"{where}: must be a table")
    award = raw.get("award")
    if award not in AWARDS:
        raise VariantError(RULE, f"{where}: award = {_toml(award)} is not allowed; allowed: "
                           + ", ".join(json.dumps(a) for a in AWARDS))
    if AWARD_GAME[award] == NESTED:  # nested awards score the game, not a pattern of marks
        _only_keys(raw, ("award", *AWARD_FIELDS[award]), where, "scoring")
        nested = [(name, _setting(kind, raw.get(name, default), f"{where}: {name}"))
                  for name, (kind, default, _) in AWARD_FIELDS[award].items()]
        return Component(award, "line", 0, tuple(nested))  # no pattern: to_dict leaves it out
    fields = {**COMMON_FIELDS, **AWARD_FIELDS[award]}
    _only_keys(raw, tuple(fields), where, "scoring")
    pattern = raw.get("pattern", "line")
    if pattern not in PATTERNS:
        raise VariantError(RULE, f"{where}: pattern = {_toml(pattern)} is not allowed; allowed: "
                           + ", ".join(json.dumps(p) for p in PATTERNS))
    if award != "per-pattern" and pattern != "line":
        raise VariantError(RULE, f"{where}: pattern = {_toml(pattern)} is not allowed with award "
                           f"{award!r}; allowed: \"line\"")
    length = raw.get("length", 0 if pattern == "line" else 2)
    low = 0 if pattern == "line" else 1
    if not isinstance(length, int) or isinstance(length, bool) or not low <= length <= board:
        raise VariantError(RULE, f"{where}: length = {_toml(length)} is not allowed; allowed: an "
                           f"integer from {low} to the board size {board}"
                           + (" (0: the board size)" if pattern == "line" else ""))
    settings = []
    for name, (kind, default, _) in AWARD_FIELDS[award].items():
        settings.append((name, _setting(kind, raw.get(name, default), f"{where}: {name}")))
    return _normalise(Component(award, pattern, length, tuple(settings)))


def _setting(kind: str, value: Any, where: str) -> Any:
    if kind == "fraction":
        return None if value is None else _fraction(value, where)
    if kind == "weights":
        if value == "equal":
            return value
        if isinstance(value, (list, tuple)) and value:
            return tuple(_fraction(v, where) for v in value)
        raise VariantError(RULE, f"{where} = {value!r} is not allowed; allowed: \"equal\" or a "
                           "list of exact numbers, one per block")
    if kind == "criteria":
        if isinstance(value, (list, tuple)) and all(v in CRITERIA for v in value):
            return tuple(value)
        raise VariantError(RULE, f"{where} = {_toml(value)} is not allowed; allowed: a list of "
                           + ", ".join(json.dumps(c) for c in CRITERIA))
    if value == "harmonic":
        return "harmonic"
    if isinstance(value, (list, tuple)) and value:
        return tuple(_fraction(v, where) for v in value)
    raise VariantError(RULE, f"{where} = {_toml(value)} is not allowed; allowed: \"harmonic\" or a "
                       "non-empty list of fractions")


def _fraction(value: Any, where: str) -> Fraction:
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (int, str)) and not isinstance(value, bool):
        try:
            return Fraction(value)
        except (ValueError, ZeroDivisionError):
            pass
    raise VariantError(RULE, f"{where} = {_toml(value)} is not allowed; allowed: an exact number "
                       "as an integer or a string such as \"1/2\"")


def with_params(rs: Ruleset, **changes: Any) -> Ruleset:
    """A copy of `rs` with some rule parameters changed (validated), keeping its base."""
    values = {k: _check_param(PARAMETER_BY_NAME[k], v, "parameters") if k in PARAMETER_BY_NAME
              else _unknown(k) for k, v in changes.items()}
    origin = rs.path or f"ruleset {rs.name!r}"
    params = _merge_params(dict(rs.params), values, "parameters", origin)
    _refit(rs.scoring, params, "parameters", origin)
    return _derived(replace(rs, params=params, path=None), rs)


def _unknown(key: str) -> Any:
    raise VariantError(RULE, f"parameters: unknown key {key!r}; allowed: "
                       + ", ".join(PARAMETER_BY_NAME))
