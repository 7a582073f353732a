"""Naive reference model of quantum tic-tac-toe.

Written from the design documents only (rulesets.md, interchange.md, spec/rules.toml and the
variant files), independently of the engine in ``qttt/``, so that differential tests can catch
mistakes in either. Everything favours obviousness over speed: the entanglement graph is an
explicit table of edges, connectivity is a depth-first search and a collapse is found by trying
every assignment of the component's spooky marks.

Chance (rule collapse-chance, spec/rules.toml; readings in spec/ambiguities.toml, chance-collapse):
under collapse = chance-measurer or chance-second a measurement only names a cell of the closing
move (the measurer names it, or O under chance-second); then chance acts: to_move "chance",
phase "chance", and the two cells of the closing move are the outcomes, the named one with
probability p and the other with 1 - p (an outcome of probability 0 is not offered). The outcome
is the action {"outcome": c}; it collapses the component as measuring c does. A drawn game
(equal points) then moves draw_second points from X to O (rule score-draw-second).
"""

from __future__ import annotations

import itertools
import random
import re
import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

SPEC_VARIANTS = Path(__file__).resolve().parents[2] / "spec" / "variants"

Params = dict[str, Any]
Action = dict[str, Any]

RULE_DEFAULTS: dict[str, Any] = {
    "game": "quantum",
    "board": 3,
    "measurer": "opponent",
    "collapse": "choice",
    "p": Fraction(1, 2),
    "two_cycles": True,
    "last_square": "forced",
    "untouched": "keep",
    "end": "first-line",
    "end_line": 0,
    "draw_second": Fraction(0),
}
RULE_CHOICES: dict[str, tuple[str, ...]] = {
    "game": ("quantum",),
    "measurer": ("opponent", "creator"),
    "collapse": ("choice", "chance-measurer", "chance-second"),
    "last_square": ("forced", "end"),
    "untouched": ("keep", "vanish"),
    "end": ("first-line", "full"),
}
FRACTION_RULES = ("p", "draw_second")  # read as exact fractions
PATTERN_LENGTH = {"line": 0, "square": 2}
AWARD_DEFAULTS: dict[str, dict[str, Any]] = {
    "per-pattern": {"points": "1"},
    "first-line": {
        "sole": "0",
        "first": "0",
        "second": "0",
        "neither": "0",
        "tie": None,  # unstated: first when first = second, else 0 (rule score-first-line)
        "double": None,  # unstated: a double line scores sole
        "tiebreak": [],
        "fallback": [],
    },
    "rank": {"ranks": "harmonic"},
}
CRITERIA = ("min-max", "min-sum")
PLAYERS = ("x", "o")


class RefIllegal(Exception):
    """An action the rules forbid; ``rule`` is the id from spec/rules.toml."""

    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        self.rule = rule


# --------------------------------------------------------------------------- variants


def _variant_file(name_or_path: str | Path, base: Path | None) -> Path:
    """A built-in name maps into spec/variants; a path (or *.toml) is taken as is."""
    text = str(name_or_path)
    if isinstance(name_or_path, Path) or text.endswith(".toml"):
        path = Path(text)
        if base is not None and not path.is_absolute():
            path = base / path
        return path.resolve()
    return (SPEC_VARIANTS / f"{text}.toml").resolve()


def _read_chain(path: Path, seen: tuple[Path, ...]) -> tuple[dict[str, Any], list[Any] | None]:
    """Rules and scoring of one file with its `extends` chain applied."""
    if path in seen:
        raise ValueError(f"variant extends itself: {path}")
    if not path.is_file():
        raise ValueError(f"unknown variant: {path}")
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    rules: dict[str, Any] = {}
    scoring: list[Any] | None = None
    parent = data.get("variant", {}).get("extends")
    if parent is not None:
        rules, scoring = _read_chain(_variant_file(parent, path.parent), (*seen, path))
    rules = {**rules, **data.get("rules", {})}
    if "scoring" in data:
        scoring = list(data["scoring"])
    return rules, scoring


def _component(raw: dict[str, Any], board: int) -> dict[str, Any]:
    """One scoring component with its defaults filled in."""
    award = raw.get("award")
    if award not in AWARD_DEFAULTS:
        raise ValueError(f"unknown award: {award!r}")
    pattern = raw.get("pattern", "line")
    if pattern not in PATTERN_LENGTH:
        raise ValueError(f"unknown pattern: {pattern!r}")
    comp = {"award": award, "pattern": pattern, "length": PATTERN_LENGTH[pattern]}
    comp.update(AWARD_DEFAULTS[award])
    unknown = set(raw) - set(comp)
    if unknown:
        raise ValueError(f"unknown scoring keys: {sorted(unknown)}")
    comp.update(raw)
    length = comp["length"]
    if not isinstance(length, int) or isinstance(length, bool) or not 0 <= length <= board:
        raise ValueError(f"bad pattern length: {length!r}")
    for key in ("tiebreak", "fallback"):
        if key in comp and any(c not in CRITERIA for c in comp[key]):
            raise ValueError(f"unknown criterion in {key}: {comp[key]!r}")
    return comp


def load_variant(name_or_path: str | Path) -> Params:
    """Resolved parameters of a built-in ruleset name, a variant file path, or a built-in name
    with first-line fields changed by a canonical name: `wikipedia(double_line=2)` (the
    double-line award), `bonus4x4(tiebreak=[min-max])` (the criteria ordering best lines).

    The child's [rules] keys override the parent's; a child's [[scoring]] list replaces the
    parent's. The result holds the eight rule keys and "scoring" (components with defaults).
    """
    text = str(name_or_path)
    if text.endswith(")") and "(" in text and not text.endswith(".toml"):
        base, _, inner = text[:-1].partition("(")
        changed = load_variant(base)
        lines_awards = [comp for comp in changed["scoring"] if comp["award"] == "first-line"]
        if not lines_awards:
            raise ValueError(f"{text}: no first-line component to change")
        for item in re.split(r",(?![^\[]*\])", inner):  # commas outside brackets
            key, _, value = item.partition("=")
            for comp in lines_awards:
                if key == "double_line":
                    comp["double"] = str(Fraction(value))
                elif key == "tiebreak" and value.startswith("[") and value.endswith("]"):
                    comp["tiebreak"] = [c.strip() for c in value[1:-1].split(",")]
                    if any(c not in CRITERIA for c in comp["tiebreak"]):
                        raise ValueError(f"{text}: unknown criterion")
                else:
                    raise ValueError(f"{text}: the reference reads double_line and tiebreak only")
        return changed
    rules, scoring = _read_chain(_variant_file(name_or_path, None), ())
    unknown = set(rules) - set(RULE_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown rule keys: {sorted(unknown)}")
    params: Params = {**RULE_DEFAULTS, **rules}
    _read_fractions(params)
    for key, choices in RULE_CHOICES.items():
        if params[key] not in choices:
            raise ValueError(f"bad value for {key}: {params[key]!r}")
    board = params["board"]
    if not isinstance(board, int) or isinstance(board, bool) or board < 1:
        raise ValueError(f"bad board: {board!r}")
    end_line = params["end_line"]
    if not isinstance(end_line, int) or isinstance(end_line, bool) or not 0 <= end_line <= board:
        raise ValueError(f"bad end_line: {end_line!r}")
    if type(params["two_cycles"]) is not bool:
        raise ValueError("two_cycles must be a boolean")
    params["scoring"] = [_component(raw, board) for raw in (scoring or [])]
    return params


def _read_fractions(params: Params) -> None:
    """p and draw_second as exact fractions, in range."""
    for key in FRACTION_RULES:
        value = params[key]
        if isinstance(value, (float, bool)):
            raise ValueError(f"{key} must be exact, not {value!r}")
        params[key] = Fraction(str(value))
    if not Fraction(1, 2) <= params["p"] <= 1 or params["draw_second"] < 0:
        raise ValueError("p is from 1/2 to 1, draw_second at least 0")


# --------------------------------------------------------------------------- patterns


def lines(n: int, length: int) -> list[tuple[int, ...]]:
    """Every line of `length` consecutive cells (0: n) in a row, column or diagonal."""
    size = n if length == 0 else length
    found: set[tuple[int, ...]] = set()
    for r in range(n):
        for c in range(n):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + i * dr, c + i * dc) for i in range(size)]
                if all(0 <= rr < n and 0 <= cc < n for rr, cc in cells):
                    found.add(tuple(sorted(rr * n + cc for rr, cc in cells)))
    return sorted(found)


def squares(n: int, side: int) -> list[tuple[int, ...]]:
    """Every side×side block of cells (side 0: the whole board)."""
    size = n if side == 0 else side
    found = []
    for r in range(n - size + 1):
        for c in range(n - size + 1):
            found.append(tuple(sorted((r + i) * n + (c + j) for i in range(size) for j in range(size))))
    return found


def patterns(n: int, pattern: str, length: int) -> list[tuple[int, ...]]:
    """The cell sets of a scoring pattern."""
    return lines(n, length) if pattern == "line" else squares(n, length)


# --------------------------------------------------------------------------- the game


def owner(move: int) -> str:
    """The player of move number `move`: x when odd, o when even."""
    return "x" if move % 2 == 1 else "o"


def other(player: str) -> str:
    """The opponent of `player`."""
    return "o" if player == "x" else "x"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _parse(action: object) -> tuple[str, list[int]]:
    """Check the JSON shape of an action; returns ("place", [a, b]), ("measure", [c]) or
    ("outcome", [c])."""
    if not isinstance(action, dict) or len(action) != 1:
        raise RefIllegal("record-format")
    ((key, value),) = action.items()
    if key == "place" and isinstance(value, list) and len(value) == 2 and all(_is_int(v) for v in value):
        return "place", [int(v) for v in value]
    if key in ("measure", "outcome") and _is_int(value):
        return key, [int(value)]
    raise RefIllegal("record-format")


class RefGame:
    """One game under a parameter dict from :func:`load_variant`."""

    def __init__(self, params: Params, variant: str = "custom") -> None:
        if params["game"] != "quantum":
            raise ValueError("the reference models quantum games only")
        self.params = params
        self.variant = variant
        self.n: int = params["board"]
        self.size = self.n * self.n
        # classical[c] is (player, move number) once cell c is classical
        self.classical: list[tuple[str, int] | None] = [None] * self.size
        # the live spooky moves: move number -> (a, b) with a < b; these are the graph's edges
        self.spooky: dict[int, tuple[int, int]] = {}
        self.move = 1
        self.phase = "place"
        self.measurer: str | None = None
        self.closing: int | None = None
        self.named: int | None = None  # the cell a chance measurement named
        self.cycle: list[int] | None = None
        self.scores = {"x": Fraction(0), "o": Fraction(0)}
        self._end_check()

    # ----- views

    def open_cells(self) -> list[int]:
        """Cells without a classical mark, increasing."""
        return [c for c in range(self.size) if self.classical[c] is None]

    def to_move(self) -> str | None:
        """Who acts next: the measurer while measuring, chance during a chance turn, the owner of
        `move` otherwise."""
        if self.phase == "over":
            return None
        if self.phase == "chance":
            return "chance"
        if self.phase == "measure":
            return self.measurer
        return owner(self.move)

    def outcomes(self) -> list[tuple[int, Fraction]]:
        """During a chance turn: (cell, probability) of each outcome that can happen, by cell."""
        if self.phase != "chance":
            return []
        assert self.closing is not None
        p = self.params["p"]
        found = [(c, p if c == self.named else 1 - p) for c in sorted(set(self.spooky[self.closing]))]
        return [(c, q) for c, q in found if q > 0]

    def state(self) -> dict[str, Any]:
        """The interchange v1 state JSON object."""
        board: list[Any] = []
        for cell in range(self.size):
            mark = self.classical[cell]
            if mark is not None:
                board.append(f"{mark[0]}{mark[1]}")
            else:
                board.append([f"{owner(k)}{k}" for k in sorted(self.spooky) if cell in self.spooky[k]])
        out = {
            "variant": self.variant,
            "board": board,
            "to_move": self.to_move(),
            "phase": self.phase,
            "move": self.move,
            "cycle": None if self.cycle is None else list(self.cycle),
            "over": self.phase == "over",
            "scores": {p: str(self.scores[p]) for p in PLAYERS},
        }
        if self.phase == "chance":
            out["chance"] = [{"action": {"outcome": c}, "probability": str(q)} for c, q in self.outcomes()]
        return out

    def _forced(self) -> bool:
        return self.params["last_square"] == "forced" and len(self.open_cells()) == 1

    def legal(self) -> list[Action]:
        """Every legal action, placements by (a, b), then the forced one, measurements by c."""
        if self.phase == "over":
            return []
        if self.phase == "chance":
            return [{"outcome": c} for c, _ in self.outcomes()]
        if self.phase == "measure":
            assert self.closing is not None
            return [{"measure": c} for c in sorted(set(self.spooky[self.closing]))]
        if self._forced():
            return [{"place": [c, c]} for c in self.open_cells()]
        actions: list[Action] = []
        for a, b in itertools.combinations(self.open_cells(), 2):
            if not self.params["two_cycles"] and (a, b) in self.spooky.values():
                continue
            actions.append({"place": [a, b]})
        return actions

    # ----- graph

    def _neighbours(self, cell: int) -> list[int]:
        found = []
        for a, b in self.spooky.values():
            if a == cell:
                found.append(b)
            elif b == cell:
                found.append(a)
        return found

    def _path(self, start: int, goal: int) -> list[int] | None:
        """The cells of a path from start to goal in the graph (DFS), or None."""
        parent: dict[int, int | None] = {start: None}
        stack = [start]
        while stack:
            cell = stack.pop()
            if cell == goal:
                path = [cell]
                step = parent[cell]
                while step is not None:
                    path.append(step)
                    step = parent[step]
                return path
            for nxt in self._neighbours(cell):
                if nxt not in parent:
                    parent[nxt] = cell
                    stack.append(nxt)
        return None

    def _component(self, start: int) -> set[int]:
        """The cells connected to start (DFS)."""
        seen = {start}
        stack = [start]
        while stack:
            for nxt in self._neighbours(stack.pop()):
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return seen

    # ----- actions

    def apply(self, action: Action) -> None:
        """Play one action, or raise RefIllegal(rule id) and leave the game unchanged."""
        kind, cells = _parse(action)
        if self.phase == "over":
            raise RefIllegal("over-no-action")
        if (self.phase == "chance") != (kind == "outcome"):
            raise RefIllegal("collapse-chance")
        if kind == "outcome":
            if not 0 <= cells[0] < self.size:
                raise RefIllegal("board-cells")
            if cells[0] not in dict(self.outcomes()):
                raise RefIllegal("collapse-chance")
            assert self.closing is not None
            self._collapse(self.closing, cells[0])
        elif kind == "measure":
            self._measure(cells[0])
        else:
            self._place(cells[0], cells[1])

    def _place(self, a: int, b: int) -> None:
        if self.phase != "place":
            raise RefIllegal("measure-pending")
        if not (0 <= a < self.size and 0 <= b < self.size):
            raise RefIllegal("board-cells")
        if self.classical[a] is not None or self.classical[b] is not None:
            raise RefIllegal("place-open")
        if a == b:
            if not self._forced():
                raise RefIllegal("place-distinct")
            self.classical[a] = (owner(self.move), self.move)
            self.move += 1
            self._end_check()
            return
        a, b = min(a, b), max(a, b)
        if not self.params["two_cycles"] and (a, b) in self.spooky.values():
            raise RefIllegal("place-two-cycle")
        path = self._path(a, b)  # before the new edge: a cycle iff already connected
        player = owner(self.move)
        self.spooky[self.move] = (a, b)
        if path is not None:
            self.phase = "measure"
            self.closing = self.move
            self.cycle = sorted(path)
            self.measurer = player if self.params["measurer"] == "creator" else other(player)
            if self.params["collapse"] == "chance-second":
                self.measurer = "o"  # whoever measures, the second player names the cell
        self.move += 1

    def _measure(self, cell: int) -> None:
        if self.phase != "measure":
            raise RefIllegal("measure-pending")
        if not 0 <= cell < self.size:
            raise RefIllegal("board-cells")
        assert self.closing is not None
        if cell not in self.spooky[self.closing]:
            raise RefIllegal("measure-cell")
        if self.params["collapse"] == "choice":
            self._collapse(self.closing, cell)
        else:  # the named cell waits for chance
            self.phase = "chance"
            self.named = cell

    def _collapse(self, closing: int, cell: int) -> None:
        """Brute force: try every assignment of the component's marks, keep the valid one."""
        component = self._component(cell)
        moves = sorted(k for k, (a, _) in self.spooky.items() if a in component)
        survivors = []
        for choice in itertools.product((0, 1), repeat=len(moves)):
            where = {k: self.spooky[k][side] for k, side in zip(moves, choice, strict=True)}
            if where[closing] == cell and sorted(where.values()) == sorted(component):
                survivors.append(where)
        assert len(survivors) == 1, survivors
        for k, c in survivors[0].items():
            self.classical[c] = (owner(k), k)
            del self.spooky[k]
        if self.params["untouched"] == "vanish":
            self.spooky.clear()
        self.phase = "place"
        self.closing = None
        self.named = None
        self.cycle = None
        self.measurer = None
        self._end_check()

    def _end_check(self) -> None:
        line_set = lines(self.n, self.params["end_line"])
        if self.params["end"] == "first-line" and self._owned(line_set):
            self._finish()
            return
        count = len(self.open_cells())
        if count == 0 or (count == 1 and self.params["last_square"] == "end"):
            self._finish()

    def _finish(self) -> None:
        self.phase = "over"
        self.scores = favour_second(self.params, score(self.params, self.n, self.classical))

    def _owned(self, cell_sets: list[tuple[int, ...]]) -> list[tuple[str, tuple[int, ...]]]:
        return owned(self.classical, cell_sets)


# --------------------------------------------------------------------------- scoring


def owned(
    classical: list[tuple[str, int] | None], cell_sets: list[tuple[int, ...]]
) -> list[tuple[str, tuple[int, ...]]]:
    """(player, cells) for every cell set whose cells all hold classical marks of one player."""
    found = []
    for cells in cell_sets:
        marks = [classical[c] for c in cells]
        players = {m[0] for m in marks if m is not None}
        if None not in marks and len(players) == 1:
            found.append((players.pop(), cells))
    return found


def _numbers(classical: list[tuple[str, int] | None], cells: tuple[int, ...]) -> list[int]:
    return [m[1] for m in (classical[c] for c in cells) if m is not None]


def _criterion(name: str, numbers: list[int]) -> int:
    return max(numbers) if name == "min-max" else sum(numbers)


def score(params: Params, n: int, classical: list[tuple[str, int] | None]) -> dict[str, Fraction]:
    """Final scores: the sum of the scoring components over the final board."""
    total = {"x": Fraction(0), "o": Fraction(0)}
    for comp in params["scoring"]:
        mine = owned(classical, patterns(n, comp["pattern"], comp["length"]))
        if comp["award"] == "per-pattern":
            for player, _ in mine:
                total[player] += Fraction(str(comp["points"]))
        elif comp["award"] == "first-line":
            holders = {player for player, _ in mine}
            if not holders:
                for player in PLAYERS:
                    total[player] += Fraction(str(comp["neither"]))
            elif len(holders) == 1:
                award = comp["double"] if len(mine) >= 2 and comp["double"] is not None else comp["sole"]
                total[holders.pop()] += Fraction(str(award))
            else:
                criteria = list(comp["tiebreak"]) + list(comp["fallback"])
                best = {
                    p: min(
                        tuple(_criterion(c, _numbers(classical, cells)) for c in criteria)
                        for q, cells in mine
                        if q == p
                    )
                    for p in PLAYERS
                }
                if best["x"] == best["o"]:
                    tie = comp["tie"]
                    if tie is None:
                        same = Fraction(str(comp["first"])) == Fraction(str(comp["second"]))
                        tie = comp["first"] if same else "0"
                    for player in PLAYERS:
                        total[player] += Fraction(str(tie))
                else:
                    winner = "x" if best["x"] < best["o"] else "o"
                    total[winner] += Fraction(str(comp["first"]))
                    total[other(winner)] += Fraction(str(comp["second"]))
        else:  # rank
            times = sorted({max(_numbers(classical, cells)) for _, cells in mine})
            for player, cells in mine:
                rank = times.index(max(_numbers(classical, cells))) + 1
                ranks = comp["ranks"]
                if ranks == "harmonic":
                    total[player] += Fraction(1, rank)
                elif rank <= len(ranks):
                    total[player] += Fraction(str(ranks[rank - 1]))
    return total


def favour_second(params: Params, total: dict[str, Fraction]) -> dict[str, Fraction]:
    """A drawn game (equal points) moves draw_second points from X to O (rule score-draw-second)."""
    if total["x"] != total["o"]:
        return total
    d = params.get("draw_second", Fraction(0))
    return {"x": total["x"] - d, "o": total["o"] + d}


# --------------------------------------------------------------------------- random play


def chance_draw(outcomes: list[tuple[int, Fraction]], rng: random.Random) -> int:
    """The outcome a generator picks, as the rules text states the order: one rng.random() u, then
    the first outcome (by cell) whose cumulative probability is above u."""
    u = Fraction(rng.random())
    cumulative = Fraction(0)
    for cell, q in outcomes:
        cumulative += q
        if u < cumulative:
            return cell
    raise AssertionError("probabilities do not sum to one")


def random_game(
    params: Params, rng: random.Random, variant: str = "custom"
) -> tuple[list[Action], dict[str, Any]]:
    """Play uniformly random legal actions until the end or a deadlock; a chance turn's outcome is
    drawn by its probability (one rng.random() u, then the first outcome by cell whose cumulative
    probability is above u)."""
    game = RefGame(params, variant)
    actions: list[Action] = []
    while True:
        options = game.legal()
        if not options:
            return actions, game.state()
        if game.phase == "chance":
            action = {"outcome": chance_draw(game.outcomes(), rng)}
        else:
            action = rng.choice(options)
        game.apply(action)
        actions.append(action)
