"""The rule vocabulary: every rule parameter and scoring award, declared once, with the checks of
a single value (rule `variant-file`). Rulesets (qttt.ruleset), canonical names (qttt.canonical),
variant files (qttt.variant), the schema, the C configuration and the docs derive from it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields, replace
from fractions import Fraction
from typing import Any, Literal, get_args, get_origin, get_type_hints

from .errors import VariantError
from .gametype import GAME_TYPES
from .spec import rules

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


def normalise(c: Component) -> Component:
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


def lists(value: Any) -> Any:
    """Tuples (nested) as lists, for JSON."""
    return [lists(v) for v in value] if isinstance(value, (tuple, list)) else value


def tuples(value: Any) -> Any:
    """Lists (nested) as tuples, the form rule parameters hold."""
    return tuple(tuples(v) for v in value) if isinstance(value, (tuple, list)) else value


def toml_text(value: Any) -> str:
    """A TOML value for a message, as JSON (dates as strings), cut to 80 characters."""
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def only_keys(table: dict[str, Any], allowed: tuple[str, ...], where: str, section: str) -> None:
    for key in table:
        if key not in allowed:
            raise VariantError(RULE, f"{where}: unknown key {section}.{key}; allowed: "
                               + ", ".join(allowed))


def setting_value(kind: str, value: Any, where: str) -> Any:
    if kind == "fraction":
        return None if value is None else fraction(value, where)
    if kind == "weights":
        if value == "equal":
            return value
        if isinstance(value, (list, tuple)) and value:
            return tuple(fraction(v, where) for v in value)
        raise VariantError(RULE, f"{where} = {value!r} is not allowed; allowed: \"equal\" or a "
                           "list of exact numbers, one per block")
    if kind == "criteria":
        if isinstance(value, (list, tuple)) and all(v in CRITERIA for v in value):
            return tuple(value)
        raise VariantError(RULE, f"{where} = {toml_text(value)} is not allowed; allowed: a list of "
                           + ", ".join(json.dumps(c) for c in CRITERIA))
    if value == "harmonic":
        return "harmonic"
    if isinstance(value, (list, tuple)) and value:
        return tuple(fraction(v, where) for v in value)
    raise VariantError(RULE, f"{where} = {toml_text(value)} is not allowed; allowed: \"harmonic\" or a "
                       "non-empty list of fractions")


def fraction(value: Any, where: str) -> Fraction:
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (int, str)) and not isinstance(value, bool):
        try:
            return Fraction(value)
        except (ValueError, ZeroDivisionError):
            pass
    raise VariantError(RULE, f"{where} = {toml_text(value)} is not allowed; allowed: an exact number "
                       "as an integer or a string such as \"1/2\"")


def check_param(p: Parameter, value: Any, where: str, section: str = "") -> Any:
    if p.type is tuple:
        return check_list_param(p, value, where, section)
    ok_type = isinstance(value, p.type) and not (p.type is int and isinstance(value, bool))
    if not ok_type or value not in p.allowed:
        raise VariantError(RULE, f"{where}: {section}{p.name} = {toml_text(value)} is not allowed; "
                           "allowed: " + describe_allowed(p))
    return value


def check_list_param(p: Parameter, value: Any, where: str, section: str) -> Any:
    """A list parameter as a tuple: pattern kinds (distinct, at least one), or a route (checked
    against the board later, in _merge_params)."""
    bad = VariantError(RULE, f"{where}: {section}{p.name} = {json.dumps(lists(value))} is not "
                       "allowed; allowed: " + describe_allowed(p))
    if p.name == "route":
        if value == "same":
            return value
        if (isinstance(value, (list, tuple)) and value
                and all(isinstance(v, (list, tuple)) and v and all(is_int(b) for b in v) for v in value)):
            return tuples(value)
        raise bad
    if (not isinstance(value, (list, tuple)) or not value or len(set(value)) != len(value)
            or not all(isinstance(v, str) and v in p.allowed for v in value)):
        raise bad
    return tuple(value)


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def describe_allowed(p: Parameter) -> str:
    if p.name == "route":
        return ("\"same\", or one non-empty list of block numbers (0 to n²−1) for each of the n² "
                "cell positions of a block")
    if p.type is tuple:
        return "a non-empty list of distinct kinds from " + ", ".join(json.dumps(a) for a in p.allowed)
    if p.type is int:
        return f"an integer from {p.allowed[0]} to {p.allowed[-1]} (in a name: digits 0-9, no sign, " \
            "leading zero or space)"
    return ", ".join(json.dumps(a) for a in p.allowed)
