"""The rule vocabulary: every rule parameter and scoring award, declared once, with the checks of
a single value (rule `variant-file`). Rulesets (qttt.ruleset), canonical names (qttt.canonical),
variant files (qttt.variant), the schema, the C configuration and the docs derive from it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields, replace
from fractions import Fraction
from typing import Any, Literal, NamedTuple, get_args, get_type_hints

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
class Value:
    """One allowed value of an enumerated or boolean parameter and the rule it selects, in words:
    the reading the rules pages state (`{line}` stands for the ending line, `{n}` for the side,
    `{p}` and `{q}` for the probabilities p and 1 − p of a chance collapse)."""

    value: str | bool
    reading: str


@dataclass(frozen=True)
class Parameter:
    """One rule parameter: its type, allowed values (with each value's reading when it is
    enumerated or boolean), default, a one-line description, the rule of spec/rules.toml it selects,
    the game families that read it (their GameType.parameters) and whether its family's compiled
    core reads it (as the value's code: its position in `allowed`, or 0/1). A tuple parameter holds
    a list whose items are in `allowed` (route: lists of block numbers, checked against the board)."""

    name: str
    type: type
    allowed: tuple[Any, ...]
    default: Any
    description: str
    rule: str
    games: tuple[str, ...] = (QUANTUM,)
    values: tuple[Value, ...] = ()
    compiled: bool = False
    needs: tuple[tuple[str, tuple[Any, ...]], ...] = ()

    def reading(self, value: Any) -> str:
        """What `value` selects, in words (a template: see Value)."""
        return next(v.reading for v in self.values if v.value == value)

    def code(self, value: Any) -> int:
        """The value as a compiled core reads it: 0/1 for a boolean, else its position in `allowed`
        (a fraction reaches the core as two fields, `c_fields`)."""
        return int(value) if self.type is bool else self.allowed.index(value)

    def enabling(self, value: Any) -> dict[str, Any]:
        """The values of other parameters that `value` needs (`needs`: the first allowed of each),
        none for the default."""
        return {} if value == self.default else {other: allowed[0] for other, allowed in self.needs}

    @property
    def c_fields(self) -> tuple[str, ...]:
        """The compiled configuration's fields for this parameter: its name, or for a fraction
        its numerator and denominator (`p_num`, `p_den`)."""
        return (f"{self.name}_num", f"{self.name}_den") if self.type is Fraction else (self.name,)

    def c_values(self, value: Any) -> tuple[int, ...]:
        """The value as the compiled configuration's fields (`c_fields`) hold it."""
        if self.type is Fraction:
            return (value.numerator, value.denominator)
        return (self.code(value),)

    def c_constants(self, prefix: str) -> list[tuple[str, int]]:
        """The C name and code of each value of an enumerated parameter, e.g. QC_MEASURER_CREATOR."""
        if self.type is not str:
            return []
        return [(c_name(f"{prefix}_{self.name}_{v}"), self.code(v)) for v in self.allowed]


def c_name(text: str) -> str:
    """A vocabulary word as a C identifier: upper case, dashes as underscores."""
    return text.upper().replace("-", "_")


def _about(description: str, allowed: range | tuple[Any, ...] | None = None, rule: str | None = None,
           values: dict[Any, str] | None = None, compiled: bool = False,
           needs: dict[str, tuple[Any, ...]] | None = None) -> dict[str, Any]:
    """Field metadata: `values` maps each allowed value of an enumerated or boolean parameter to
    its reading (then `allowed` is left out; for a fraction `allowed` is its least and greatest
    value); `rule` only for a parameter that no rule of rules.toml is scoped to; `compiled` when
    the family's compiled core reads it; `needs`: the values another parameter must have for this
    one to leave its default (elsewhere it selects nothing, so it is refused)."""
    return {"description": description, "allowed": allowed, "rule": rule, "values": values or {},
            "compiled": compiled, "needs": tuple((needs or {}).items())}


Route = str | tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class Parameters:
    """The rule parameters of a ruleset, typed: the one declaration of the parameter vocabulary
    (names, allowed values and their readings, defaults, descriptions); `PARAMETERS` is derived
    from it, and from that validation, canonical names, the schema, the compiled cores'
    configuration and the rules pages' readings."""

    game: str = field(default="quantum", metadata=_about(
        "Game family: " + "; ".join(f"{t.name}: {t.description}" for t in GAME_TYPES.values()) + ".",
        GAMES, "turn-order"))
    board: int = field(default=3, metadata=_about(
        "Board side n: the board has n×n cells (nested-classical: n×n blocks of n×n cells).",
        range(2, 9), "board-cells"))
    measurer: str = field(default="opponent", metadata=_about(
        "Who measures a cycle: the opponent of the player who closed it, or that player.", values={
            "opponent": "The opponent of the player who closed a cycle measures it.",
            "creator": "The player who closed a cycle measures it."}, compiled=True,
        needs={"collapse": ("choice", "chance-measurer")}))
    collapse: str = field(default="choice", metadata=_about(
        "Measurement: the cell named is the outcome (choice), or chance makes it so with probability "
        "p; the measurer (chance-measurer) or O (chance-second) names it.", values={
            "choice": "The measurer's choice is the outcome: the closing mark becomes classical in the "
                      "cell named.",
            "chance-measurer": "The measurer names a cell of the closing move; chance then makes the "
                               "closing mark classical there with probability {p}, in its other cell "
                               "with probability {q}.",
            "chance-second": "Whoever measures, the second player (O) names a cell of the closing "
                             "move; chance then makes the closing mark classical there with "
                             "probability {p}, in its other cell with probability {q}."},
        compiled=True))
    p: Fraction = field(default=Fraction(1, 2), metadata=_about(
        "Under a chance collapse, the probability that the named cell is the outcome: an exact "
        "number from 1/2 to 1.", (Fraction(1, 2), Fraction(1)), "collapse-chance", compiled=True,
        needs={"collapse": ("chance-measurer", "chance-second")}))
    two_cycles: bool = field(default=True, metadata=_about(
        "Whether a placement may repeat the two cells of a live spooky move (a 2-cycle).", values={
            True: "A placement may use the same two cells as a live spooky move; it closes a 2-cycle.",
            False: "A placement may not use the same two cells as a live spooky move."}, compiled=True))
    last_square: str = field(default="forced", metadata=_about(
        "With one open cell left: the player to move fills it (forced), or the game ends.", values={
            "forced": "With one open cell left and the game not over, the player to move puts both marks "
                      "of their move there and it is classical at once.",
            "end": "With one open cell left, the game is over."}, compiled=True))
    untouched: str = field(default="keep", metadata=_about(
        "Spooky marks outside a collapsed component stay (keep) or vanish.", values={
            "keep": "Spooky marks outside the collapsed component stay on the board.",
            "vanish": "After each collapse every spooky mark outside the collapsed component vanishes."},
        compiled=True))
    end: str = field(default="first-line", metadata=_about(
        "The game ends at the first collapse that completes a line, or only on a full board.", values={
            "first-line": "The game ends after the first collapse or forced placement that completes a "
                          "classical {line} for either player; otherwise on a full board.",
            "full": "Lines do not end the game: it ends only on a full board."}))
    end_line: int = field(default=0, metadata=_about(
        "Length of the line that ends the game under end = first-line; 0 means the board size.",
        range(0, 9), "end-line"))
    draw_second: Fraction = field(default=Fraction(0), metadata=_about(
        "Points a drawn game (equal points at the end) adds for O and takes from X: an exact number "
        "from 0 to 100 (0: none).",
        (Fraction(0), Fraction(100)), compiled=True))
    route: Route = field(default="same", metadata=_about(
        "For each cell position of a block (row-major), the blocks the next move must use; \"same\": "
        "the block at that position.", ()))
    block_patterns: tuple[str, ...] = field(default=("rows", "columns", "diagonals"), metadata=_about(
        "Patterns that win a block: rows, columns, the two diagonals, diamonds.", PATTERN_KINDS,
        "nested-patterns"))
    board_patterns: tuple[str, ...] = field(default=("rows", "columns", "diagonals"), metadata=_about(
        "Patterns of won blocks that win the game.", PATTERN_KINDS, "nested-patterns"))
    full_block: str = field(default="pattern-first", metadata=_about(
        "A move that fills a block and completes a pattern wins it (pattern-first) or draws it "
        "(drawn-first).", values={
            "pattern-first": "A move that fills a block and completes a pattern wins the block.",
            "drawn-first": "A move that fills a block draws it, even when it completes a pattern."},
        compiled=True))
    bonus: str = field(default="none", metadata=_about(
        "Winning a block gives the same player one extra move at once: at most one per turn "
        "(block-win), or one for every block won, a bonus move's too (chain).", values={
            "none": "The players alternate; winning a block gives no extra move.",
            "block-win": "Winning a block gives one bonus move at once, never two in a row.",
            "chain": "Winning a block gives one bonus move at once, even when a bonus move won it, so "
                     "bonus moves can follow one another."},
        compiled=True))


def _parameters() -> tuple[Parameter, ...]:
    hints = get_type_hints(Parameters)
    scoped = {}
    for r in reversed(rules().values()):
        scoped[r.scope] = r.id
    out = []
    for f in fields(Parameters):
        kind, meta = hints[f.name], f.metadata
        listed = kind not in (bool, int, str, Fraction)  # route, pattern lists
        typ: type = tuple if listed else kind
        values = tuple(Value(v, reading) for v, reading in meta["values"].items())
        allowed = tuple(v.value for v in values) if values else tuple(meta["allowed"])
        rule = meta["rule"] or scoped[f.name]
        games = tuple(g.name for g in GAME_TYPES.values() if f.name in g.parameters)
        out.append(Parameter(f.name, typ, allowed, f.default, meta["description"], rule, games, values,
                             meta["compiled"], meta["needs"]))
    return tuple(out)


PARAMETERS: tuple[Parameter, ...] = _parameters()
PARAMETER_BY_NAME = {p.name: p for p in PARAMETERS}


class Setting(NamedTuple):
    """One setting of a scoring award: its kind ("fraction", "criteria", "ranks", "weights"; for
    the pattern fields "award", "pattern", "int"), its default (None: unstated) and description."""

    kind: str
    default: Any
    description: str


@dataclass(frozen=True)
class Award:
    """One scoring award, declared once: the rule stating it, whether it scores a pattern of cells
    (then a component names a pattern and a length; else it scores the game's result), its typed
    settings, its number in its family's compiled configuration and the attributes of the compiled
    award (qttt.quantum.scoring) the compiled core reads, in order."""

    name: str
    rule: str
    scores_pattern: bool
    settings: dict[str, Setting]
    code: int
    c_fields: tuple[str, ...] = ()

    @property
    def game(self) -> str:
        """The game family that scores it (its GameType lists it)."""
        return next(g.name for g in GAME_TYPES.values() if self.name in g.awards)

    @property
    def fields(self) -> dict[str, Setting]:
        """Every key of its [[scoring]] table but `award`: the pattern fields, then its settings."""
        common = {k: v for k, v in COMMON_FIELDS.items() if k != "award"} if self.scores_pattern else {}
        return {**common, **self.settings}


PatternKind = Literal["line", "square"]
Criterion = Literal["min-max", "min-sum"]
PATTERNS: tuple[PatternKind, ...] = get_args(PatternKind)
CRITERIA: tuple[Criterion, ...] = get_args(Criterion)
_EQUAL = "Worth of each block, row-major: equal (1 each) or a list."
# The fields every pattern-scoring component has.
COMMON_FIELDS: dict[str, Setting] = {
    "award": Setting("award", None, "Kind of award: per-pattern, first-line or rank."),
    "pattern": Setting("pattern", "line", "Pattern scored: line (L cells in a row) or square (L×L)."),
    "length": Setting("int", None, "Pattern length L; for lines 0 means the board size (default 0, "
                      "squares 2)."),
}
AWARD_DECLARATIONS: dict[str, Award] = {a.name: a for a in (
    Award("per-pattern", "score-per-pattern", True, {
        "points": Setting("fraction", Fraction(1), "Points for each owned pattern."),
    }, 0, ("points",)),
    Award("first-line", "score-first-line", True, {
        "sole": Setting("fraction", Fraction(0), "Points when only this player owns a pattern."),
        "first": Setting("fraction", Fraction(0), "Points to the better best line when both own one."),
        "second": Setting("fraction", Fraction(0), "Points to the worse best line when both own one."),
        "neither": Setting("fraction", Fraction(0), "Points to each player when neither owns a pattern."),
        "tie": Setting("fraction", None, "Points to each when both best lines have equal keys; unstated: "
                       "a gap the checker reports (0 each)."),
        "double": Setting("fraction", None, "Points when only this player owns patterns and owns two or "
                          "more (a double line); unstated: sole. Canonical names set it as double_line."),
        "tiebreak": Setting("criteria", (), "Criteria from the sources ordering best lines: min-max, "
                            "min-sum."),
        "fallback": Setting("criteria", (), "Criteria no source states, applied after tiebreak "
                            "(reported)."),
    }, 1, ("sole", "first", "second", "neither", "equal", "double_line")),
    Award("rank", "score-rank", True, {
        "ranks": Setting("ranks", "harmonic", "Points by rank: harmonic (1/k) or a list of fractions."),
    }, 2),
    Award("win", "nested-score-win", False, {
        "points": Setting("fraction", Fraction(1), "Points to the player whose won blocks form a pattern; "
                          "the other gets 0."),
    }, 0),
    Award("draw-blocks", "nested-score-draw-blocks", False, {
        "weights": Setting("weights", "equal", _EQUAL),
    }, 1),
    Award("draw-majority", "nested-score-draw-majority", False, {
        "more": Setting("fraction", Fraction(1), "Points to the player whose won blocks are worth more."),
        "fewer": Setting("fraction", Fraction(0), "Points to the other player."),
        "equal": Setting("fraction", Fraction(1, 2), "Points to each when both are worth the same."),
        "weights": Setting("weights", "equal", _EQUAL),
    }, 2),
)}
AWARDS: tuple[str, ...] = tuple(AWARD_DECLARATIONS)
# Each award's settings: name -> Setting (kind, default, description).
AWARD_FIELDS: dict[str, dict[str, Setting]] = {a.name: a.settings for a in AWARD_DECLARATIONS.values()}


@dataclass(frozen=True)
class Component:
    """One scoring component: an award over a pattern, with the award's settings."""

    award: str
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
        if AWARD_DECLARATIONS[self.award].scores_pattern:
            out.update(pattern=self.pattern, length=self.length)
        for name, value in self.settings:
            if value is not None:
                out[name] = plain_value(value)
        return out


def plain_value(value: Any) -> Any:
    """A value as [[scoring]] data holds it: fractions as strings, lists for tuples."""
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, tuple):
        return [plain_value(v) for v in value]
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
    if p.type is Fraction:
        return check_fraction_param(p, value, where, section)
    ok_type = isinstance(value, p.type) and not (p.type is int and isinstance(value, bool))
    if not ok_type or value not in p.allowed:
        raise VariantError(RULE, f"{where}: {section}{p.name} = {toml_text(value)} is not allowed; "
                           "allowed: " + describe_allowed(p))
    return value


def check_fraction_param(p: Parameter, value: Any, where: str, section: str) -> Fraction:
    """An exact fraction within the parameter's bounds: a Fraction, an integer or a string such as
    "3/4" (a TOML float is refused: it is not exact)."""
    exact: Fraction | None = None
    if isinstance(value, Fraction):
        exact = value
    elif isinstance(value, (int, str)) and not isinstance(value, bool):
        try:
            exact = Fraction(value)
        except (ValueError, ZeroDivisionError):
            exact = None
    low, high = p.allowed
    if exact is None or not low <= exact <= high:
        why = " (a float is not exact)" if isinstance(value, float) else ""
        raise VariantError(RULE, f"{where}: {section}{p.name} = {toml_text(value)} is not allowed{why}; "
                           "allowed: " + describe_allowed(p))
    return exact


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
    if p.type is Fraction:
        return (f"an exact number from {p.allowed[0]} to {p.allowed[-1]}: an integer, or a string such "
                "as \"3/4\" (in a name: an integer or a reduced fraction such as 3/4)")
    return ", ".join(json.dumps(a) for a in p.allowed)
