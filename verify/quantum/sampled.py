"""Random games through the engine, checked against the proved properties at every step.

This ties the Z3 proofs (about graphs) and the abstraction (about component sizes) to the engine:
on every visited position the live entanglement graph has the proved shape, every measurement
gives the unique outcome the naive enumeration finds, and the engine's actions match the
abstraction's; the player to act and move numbers match the checker's own count of the actions
played; every action the rules refuse is refused under the rule check-order names. Every path
registered to be compared at positions (verify.paths: the compiled core's positions, its replay
writer, perft, the solver) is run on batches of the visited positions in a child process
(`compare_paths`), so that one that crashes or hangs is a failure too. A failure keeps the actions
that reach the offending position, and counts only once `confirm` replays them from the start
under the real rules. The same position checks (`inspect`) serve the walk of
`verify.quantum.exhaustive`; an engine that raises is a failure like any other, never a crash of
the checker.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any

from qttt import IllegalAction, Ruleset
from qttt.chance import CHANCE, check_outcomes
from qttt.processes import Mapper, serial_mapper
from qttt.quantum import compiled
from qttt.quantum.engine import Action, Measure, Outcome, Place, State, player_of
from qttt.quantum.game import compile_game

from .. import isolated
from ..paths import Path, serving
from ..report import Confirmed
from .abstract import Params, simulates
from .catalogue import REFUSAL_ORDER, RULE_OF
from .graphs import Multigraph, assignments, is_forest, propagate
from .scores import declared_range, expected_scores
from .witness import record, replay

SHAPE, UNIQUE, TOTAL, DEADLOCK, LENGTH, SCORES, TURN, ABSTRACT, LEGAL, CORES, RANDOM, TIE, UNREPRODUCED = (
    "single-cycle-per-move", "collapse-uniqueness", "collapse-totality", "no-deadlock", "termination",
    "scores-well-defined", "turn-order", "abstraction", "legal-actions", "cores-agree", "random-games-agree",
    "score-tie-gap", "cores-crash")
"""Property ids, and the failures counted under one: abstraction (no-deadlock), score-tie-gap
(scores-well-defined, a gap the ambiguity register may accept), cores-crash (cores-agree: a path
that crashed only after other positions in one process, which no single game reproduces)."""
FAILURE_IDS = frozenset((SHAPE, UNIQUE, TOTAL, DEADLOCK, LENGTH, SCORES, TURN, ABSTRACT, LEGAL, CORES, RANDOM,
                         TIE, UNREPRODUCED))


KEPT = 8
"""Failures kept per property and source: the first that `confirm` replays is the witness."""
BATCH = 500
"""Positions of sampled games each path compares at once (in one child process)."""


@dataclass
class Sample:
    """What the sampled games showed: counts, and the first failure per property with the actions
    reaching it."""

    games: int = 0
    positions: int = 0
    measurements: int = 0
    simulated: int = 0
    longest: int = 0
    longest_game: tuple[Action, ...] = ()
    failures: dict[str, list[tuple[str, tuple[Action, ...]]]] = field(default_factory=dict)
    seconds: float = 0.0  # CPU seconds playing and checking the games, summed over the chunks

    def fail(self, prop: str, message: str, actions: Sequence[Action]) -> None:
        """Keep the first few failures of a property (a witness must still replay: `confirm`)."""
        kept = self.failures.setdefault(prop, [])
        if len(kept) < KEPT:
            kept.append((message, tuple(actions)))


def core(cells: set[int], edges: Sequence[tuple[int, int]]) -> set[int]:
    """The cells left after repeatedly removing cells of degree at most one (the cycle's cells,
    for a connected graph with one cycle)."""
    left, live = set(cells), list(edges)
    while True:
        degree = {c: 0 for c in left}
        for a, b in live:
            degree[a] += 1
            degree[b] += 1
        leaves = {c for c, d in degree.items() if d <= 1}
        if not leaves:
            return left
        left -= leaves
        live = [(a, b) for a, b in live if a in left and b in left]


def check_shape(state: State) -> str | None:
    """Between measurements the live graph is a simple forest; while one is pending, the pending
    move's component has as many moves as cells, its core is the engine's cycle, and every other
    component is a tree."""
    edges = state.edges
    if state.pending is None:
        return None if is_forest(len(state.classical), list(edges.values())) else f"not a forest: {edges}"
    comp = set(state.component[edges[state.pending][0]])
    inside = [e for e in edges.values() if e[0] in comp]
    outside = [e for e in edges.values() if e[0] not in comp]
    if len(inside) != len(comp):
        return f"pending component {sorted(comp)} has {len(inside)} moves"
    if not is_forest(len(state.classical), outside):
        return f"other components are not trees: {outside}"
    if state.cycle is None or core(comp, inside) != set(state.cycle):
        return f"cycle {state.cycle}, but the component's core is {sorted(core(comp, inside))}"
    return None


def collapsed_at(state: State, cell: int) -> State:
    """The position after the pending cycle (measure phase) collapses with the closing move's mark
    in `cell`: a measurement of it, and under a chance collapse the outcome `cell` of the chance
    turn that follows (rule collapse-chance; the cell named always has a positive probability)."""
    after = state.apply(Measure(cell))
    return after.apply(Outcome(cell)) if after.phase == CHANCE else after


def check_chance(ctx: Context, state: State) -> str | None:
    """Rule collapse-chance, read by the checker: at a chance turn the outcomes are the two cells of
    the cycle-closing move, the cell named with probability p and the other with 1 − p, those of
    probability 0 left out; positive, and summing to exactly one."""
    outcomes = state.chance_outcomes()
    if state.phase != CHANCE:
        return f"outcomes {outcomes} offered outside a chance turn" if outcomes else None
    if state.pending is None or state.chosen not in state.edges.get(state.pending, ()):
        return f"a chance turn without a named cell of the closing move (named {state.chosen})"
    p = ctx.rs.rules.p
    want = tuple((Outcome(c), p if c == state.chosen else 1 - p) for c in state.edges[state.pending])
    want = tuple((o, q) for o, q in want if q > 0)
    wrong = check_outcomes(outcomes)
    if wrong is not None:
        return f"chance outcomes {outcomes}: {wrong}"
    if outcomes != want:
        return f"chance offers {outcomes}; the rules give {want}"
    return None


def check_measurements(state: State, vanish: bool) -> tuple[str | None, str | None]:
    """(uniqueness failure, totality failure) of the two collapses of the pending cycle (by a
    measurement, or by the chance outcome that follows it: `collapsed_at`)."""
    pending = state.pending
    assert pending is not None
    edges = state.edges
    comp = sorted(state.component[edges[pending][0]])
    moves = sorted(k for k, e in edges.items() if e[0] in comp)
    index = {c: i for i, c in enumerate(comp)}
    graph = Multigraph(len(comp), tuple((index[edges[k][0]], index[edges[k][1]]) for k in moves))
    outcomes = []
    for cell in edges[pending]:
        after = collapsed_at(state, cell)
        landed = {after.classical[c]: c for c in comp}
        if sorted(landed) != moves or any(landed[k] not in edges[k] for k in moves):
            return None, f"measuring {cell}: component cells hold {[after.classical[c] for c in comp]}"
        for c in range(len(state.classical)):
            if c in comp:
                continue
            if after.classical[c] != state.classical[c]:
                return None, f"measuring {cell}: cell {c} outside the component changed"
            if after.spooky[c] != (() if vanish else state.spooky[c]):
                return None, f"measuring {cell}: spooky marks of cell {c} outside the component"
        engine = tuple(index[landed[k]] for k in moves)
        k = moves.index(pending)
        if len(moves) <= 12:
            found = assignments(graph, k, index[cell])
            if found != [engine]:
                return f"measuring {cell}: engine {engine}, enumeration {found}", None
        elif propagate(graph, k, index[cell]) != engine:
            return f"measuring {cell}: engine {engine} is not the forced outcome", None
        outcomes.append({c: after.classical[c] for c in comp})
    moved = {c for c in comp if outcomes[0][c] != outcomes[1][c]}
    if state.cycle is None or moved != set(state.cycle):
        return f"the two outcomes differ at {sorted(moved)}, the cycle is {state.cycle}", None
    return None, None



@dataclass(frozen=True)
class Context:
    """What the position checks need to know about a ruleset, computed once: its parameters, end
    lines, declared score range, the bound on a game's length and the registered paths compared
    with the engine at every position (`cores`: those that serve the ruleset)."""

    rs: Ruleset
    params: Params
    first_line: bool
    measurer: str  # rule measure-by, as the Game holds it
    collapse: str  # rule collapse-chance, as the Game holds it
    end_masks: tuple[int, ...]
    declared: dict[str, Fraction] | None
    bound: int | None = None
    paths: tuple[Path, ...] = ()

    @classmethod
    def of(cls, rs: Ruleset, bound: int | None = None, cores: bool = True) -> Context:
        """The context of a ruleset, read from its compiled Game (with the registered paths
        compared at positions, `verify.paths`, that serve rs when `cores`); made once per process
        (the declared range of a 4×4 ruleset takes about a second), however many units of work ask
        for it."""
        return _context(rs, bound, cores)


@cache
def _context(rs: Ruleset, bound: int | None, cores: bool) -> Context:
    g = compile_game(rs)
    found = declared_range(rs)
    return Context(rs, Params.of(rs), bool(g.end_masks), g.measurer, g.collapse, g.end_masks,
                   found[0] if found else None, bound, serving(rs, "positions")[0] if cores else ())


def core_reason(rs: Ruleset) -> str | None:
    """None when the compiled core plays rs on this machine, else why not."""
    return compiled.supports(rs) or compiled.available()


def raised(e: BaseException) -> str:
    """An engine exception, as a failure message."""
    return f"the engine raised {type(e).__name__}: {e}"


def placed(path: Sequence[Action]) -> int:
    """How many placements the actions make: the checker's own move count (rule turn-order)."""
    return sum(1 for a in path if isinstance(a, Place))


def expected_turn(ctx: Context, state: State, path: Sequence[Action]) -> str | None:
    """Who the rules say acts, from the actions played (rules turn-order, measure-by): the owner
    of the next move number, the measurer of the cycle the last placement closed, nobody when the
    game is over. Only whether the game is over or a cycle is pending is read from the engine (the
    end and shape checks hold those to the rules)."""
    if state.over:
        return None
    k = placed(path)
    if path and isinstance(path[-1], Measure) and ctx.collapse != "choice":
        return CHANCE  # a chance measurement names a cell; chance acts next (rule collapse-chance)
    if state.pending is not None:
        if ctx.collapse == "chance-second":
            return "o"  # the second player names the cell, whoever measures
        creator = player_of(k)
        return creator if ctx.measurer == "creator" else ("o" if creator == "x" else "x")
    return player_of(k + 1)


def check_bookkeeping(ctx: Context, state: State, path: Sequence[Action]) -> str | None:
    """Turn order, move numbers and the measurer, computed from the actions played and compared
    with the engine's: the next move number, the pending move (the last placement), where the last
    placement's marks went, and who acts."""
    k = placed(path)
    last = path[-1] if path else None
    if not state.over and state.move != k + 1:
        return f"after {k} placements the engine's next move is {state.move}, the rules say {k + 1}"
    named = state.phase == CHANCE and isinstance(last, Measure)  # a chance turn follows its naming
    if state.pending is not None and (state.pending != k or not (isinstance(last, Place) or named)):
        return f"pending cycle closed by move {state.pending}; the last placement made was move {k}"
    held = state.fields()["pending"]  # the declared field as held, whatever the phase
    if held != (state.pending or 0):
        return (f"the engine holds move {held} as pending in phase {state.phase}; the declared position "
                "state holds the cycle-closing move while a measurement is pending, 0 otherwise")
    if isinstance(last, Place):
        a, b = min(last), max(last)
        if a == b and state.classical[a] != k:
            return f"the forced placement of move {k} left cell {a} holding {state.classical[a]}"
        if a != b and state.edges.get(k) != (a, b):
            return f"move {k} placed in {a} and {b}; the engine holds it at {state.edges.get(k)}"
    collapsing = isinstance(last, Outcome) or (isinstance(last, Measure) and ctx.collapse == "choice")
    if collapsing and state.classical[last.cell] != k:  # type: ignore[union-attr]
        return (f"{last} makes the closing move {k} classical in cell {last.cell}; the engine holds "  # type: ignore[union-attr]
                f"{state.classical[last.cell]}")  # type: ignore[union-attr]
    if isinstance(last, Measure) and ctx.collapse != "choice" and state.chosen != last.cell:
        return f"{last} names cell {last.cell} for chance; the engine holds {state.chosen}"
    want = expected_turn(ctx, state, path)
    if state.to_move != want:
        return (f"{state.to_move} to act; from the {k} placement{'s' if k != 1 else ''} played the rules "
                f"name {want}")
    return None


def ends_now(ctx: Context, state: State) -> bool:
    """Whether the rules end the game on this board (rules end-line, end-full, last-square)."""
    x = sum(1 << c for c, m in enumerate(state.classical) if m and m & 1)
    o = sum(1 << c for c, m in enumerate(state.classical) if m and not m & 1)
    if any(m & x == m or m & o == m for m in ctx.end_masks):
        return True
    left = sum(1 for m in state.classical if not m)  # open: no classical mark (the engine's list aside)
    return left == 0 or (left == 1 and ctx.params.last_square == "end")


def check_final(ctx: Context, state: State) -> str | None:
    """Scores of a finished game: defined, equal to the checker's own reading of the scoring, and
    inside the declared range."""
    scores = state.scores
    if set(scores) != {"x", "o"} or not all(isinstance(v, Fraction) for v in scores.values()):
        return f"scores {scores}"
    want = expected_scores(ctx.rs, state.classical)
    if (scores["x"], scores["o"]) != want:
        return (f"final board {list(state.classical)}: the engine scores x {scores['x']}, o {scores['o']}; "
                f"the scoring components give x {want[0]}, o {want[1]}")
    if ctx.declared is not None:
        for who in ("x", "o"):
            low, high = ctx.declared[f"{who} min"], ctx.declared[f"{who} max"]
            if not low <= scores[who] <= high:
                return f"{who} scores {scores[who]}, outside the declared range {low}..{high}"
    return None


def check_tie(state: State) -> str | None:
    """A finished game whose score rests on a rule no source states (rule score-tie-gap)."""
    if state.over and state.score_notes:
        return f"final board {list(state.classical)}: " + "; ".join(state.score_notes)
    return None


@cache
def action_space(cells: int) -> tuple[Action, ...]:
    """Every action on a board of `cells` cells (a placement as a <= b), then one off the board."""
    return (*(Place(a, b) for a in range(cells) for b in range(a, cells)),
            *(Measure(c) for c in range(cells)), *(Outcome(c) for c in range(cells)),
            Place(0, cells), Measure(cells), Outcome(cells))


def expected_refusals(ctx: Context, state: State) -> dict[Action, str | None]:
    """For every action of the action space, the rule that refuses it here: of the rules it breaks,
    the first in REFUSAL_ORDER (rule check-order); None for an action no rule refuses."""
    cells = len(state.classical)
    pending = state.pending
    opens = {c for c, m in enumerate(state.classical) if not m}  # read from the marks, not the engine's list
    live = set(state.edges.values()) if not ctx.rs.rules.two_cycles else set()
    ends = state.edges[pending] if pending is not None else ()
    chance_turn = ctx.collapse != "choice" and state.chosen is not None
    offered = {c for c in ends if c == state.chosen or ctx.rs.rules.p != 1} if chance_turn else set()
    out: dict[Action, str | None] = {}
    for act in action_space(cells):
        measure = isinstance(act, Measure)
        on_board = [c for c in (act if isinstance(act, Place) else (act.cell,)) if 0 <= c < cells]
        broken = {"over-no-action": state.over,
                  "chance-turn": chance_turn != isinstance(act, Outcome),  # rule collapse-chance
                  "measure-pending": (pending is None) == measure,
                  "board-cells": len(on_board) < (1 if not isinstance(act, Place) else 2)}
        if isinstance(act, Outcome):
            broken["measure-pending"] = False
            broken["chance-outcome"] = act.cell not in offered  # rule collapse-chance
        elif isinstance(act, Place):
            a, b = act
            broken["place-open"] = any(c not in opens for c in on_board)
            broken["place-distinct"] = a == b and len(opens) != 1
            broken["place-two-cycle"] = (a, b) in live
        elif pending is not None:
            broken["measure-cell"] = act.cell not in ends
        out[act] = next((RULE_OF.get(rule, rule) for rule in REFUSAL_ORDER if broken.get(rule)), None)
    return out


Failure = tuple[str, str, Action | None]
"""A property that fails at a position: (property, message, the action showing it or None)."""


@dataclass(frozen=True)
class Visit:
    """A position the checker visited, as the paths compared at positions (`verify.paths`, at =
    "positions") see it: the actions reaching it, the engine's state, its legal actions, the
    states after each measurement and each placement that ends the game, the rule refusing each
    other action of the action space (`expected_refusals`, which the engine was held to), and the
    engine's perft counts to depth 2 (its legal actions here and at every position one on)."""

    path: tuple[Action, ...]
    state: State
    legal: tuple[Action, ...]
    after: tuple[tuple[Action, State], ...]
    refusals: dict[Action, str | None]
    perft: tuple[int, int] | None  # None where the engine raised one action on (a failure of its own)


@dataclass(frozen=True)
class GameFailure:
    """A failure of a path compared on games (`verify.paths`, at = "games"): what differs, the
    engine's game showing it, and the path run again on it (what still differs, or None)."""

    message: str
    actions: tuple[Action, ...]
    again: Callable[[], str | None]


def compare_games(ctx: Context, variant: str, seed: int, games: int
                  ) -> tuple[dict[str, list[GameFailure]], dict[str, str]]:
    """The failures of every registered path compared on games that serves ctx's ruleset, by path
    name: each runs on the games `qttt random --seed seed -n games` plays; and, by name, why a path
    could not be compared (the engine raised while playing those games: a failure the position
    checks report with its own game)."""
    found: dict[str, list[GameFailure]] = {}
    unrun: dict[str, str] = {}
    for p in serving(ctx.rs, "games")[0]:
        try:
            found[p.name] = p.comparison()(ctx, variant, seed, games)
        except Exception as e:
            unrun[p.name] = "the engine raised while playing the games to compare with: " + raised(e)
    return found, unrun


def confirm_game(ctx: Context, variant: str, failure: GameFailure) -> Confirmed | None:
    """A path's failure on a game as a witness: the game replays from the start under the real
    rules with the engine, and the path, run again on it, still differs."""
    if replay(ctx.rs, failure.actions) is None:
        return None
    still = failure.again()
    return Confirmed(record(variant, failure.actions), still) if still is not None else None


Located = tuple[tuple[Action, ...], Failure]
"""A failure and the actions reaching the position it is at."""
Further = tuple[tuple[Action, ...], Failure]
"""A comparison's failure at a position further on: the actions from the visited position there."""


def compare_paths(ctx: Context, visits: Sequence[Visit], again: bool = False) -> list[Located]:
    """The failures of every path in ctx.paths on the visited positions, each path run in a child
    process (`verify.isolated.run`): a path that crashes, aborts or hangs fails property cores-agree at
    the position where it stopped (the shortest prefix of the visit's actions, or the action it was
    trying there); one that crashes only after other positions in the same process, never on one
    alone, is reported under cores-crash (no game shows it). Each comparison takes (ctx, visits,
    mark), calls mark(i, done, k) as it goes (visit i, `done` of its actions replayed, trying
    `action_space(cells)[k]`, or k = -1) and returns per visit a failure there, or one further on
    (`Further`), or None. A path that
    crashed isolated.MOST times on the ruleset in this process is not run again, unless `again`
    (a witness confirmed)."""
    out: list[Located] = []
    space = action_space(ctx.rs.board ** 2)
    for p in ctx.paths:
        key = (p.name, ctx.rs.canonical)
        if _CRASHES.get(key, 0) >= isolated.MOST and not again:  # no more hangs to wait out
            continue
        results = isolated.run(functools.partial(p.comparison(), ctx), visits)
        for visit, result in zip(visits, results, strict=True):
            if isinstance(result, isolated.Crashed):
                _CRASHES[key] = _CRASHES.get(key, 0) + 1
                out.append(crash_failure(p.name, visit.path, result, space))
            elif isinstance(result, tuple) and len(result) == 2:  # further on
                out.append((visit.path + result[0], result[1]))
            elif isinstance(result, tuple):
                out.append((visit.path, result))
    return out


_CRASHES: dict[tuple[str, str], int] = {}
"""Crashes of each path (name, ruleset) in this process: after isolated.MOST the path is not run
again (`forget_crashes` starts a new count)."""


def forget_crashes() -> None:
    """Start counting the paths' crashes anew (at the start of a check)."""
    _CRASHES.clear()


def crash_failure(name: str, path: tuple[Action, ...], crash: isolated.Crashed,
                  space: Sequence[Action]) -> Located:
    """A path's crash as a failure of cores-agree at the shortest position that shows it: after the
    action it was replaying, or where it was trying an action (see `compare_paths`)."""
    done, k = (*crash.where, -1, -1)[:2]
    done = min(max(done, 0), len(path))
    trying = space[k] if 0 <= k < len(space) else None
    what = f"{name}: {crash.why}"
    if not crash.alone:  # no single game reproduces it: reported as the checker's own failure
        return path, (UNREPRODUCED, f"{what} after other positions in one process, never on one alone", None)
    if trying is not None and done < len(path) and trying == path[done]:
        return path[:done + 1], (CORES, f"{what} replaying action {done + 1}, {trying}", None)
    if trying is not None:
        return path[:done], (CORES, f"{what} trying {trying} here", trying)
    return path[:done], (CORES, f"{what} at this position", None)


def check_legal(state: State, legal: Sequence[Action], refusals: dict[Action, str | None]) -> Failure | None:
    """The engine's legal actions are exactly those the rules allow, and every other action of the
    action space is refused naming the rule `expected_refusals` gives."""
    listed = set(legal)
    for act, want in refusals.items():
        if want is None:
            if act not in listed:
                return LEGAL, f"the rules allow {act}; the engine does not list it", None
            continue
        if act in listed:
            return LEGAL, f"the engine lists {act} as legal; rule {want} refuses it", act
        try:
            state.apply(act)
        except IllegalAction as e:
            if e.rule != want:
                return LEGAL, f"the engine refuses {act} under rule {e.rule}; the rules name {want}", act
            continue
        except Exception as e:
            return LEGAL, f"{act}: " + raised(e), act
        return LEGAL, f"the engine accepts {act}; rule {want} refuses it", act
    return None


def _guarded(prop: str, run: Callable[[], str | None]) -> list[Failure]:
    """prop's failure from run, if any; an engine that raises is a finding."""
    try:
        problem = run()
    except Exception as e:
        problem = raised(e)
    return [(prop, problem, None)] if problem else []


def position_failures(ctx: Context, state: State, path: Sequence[Action]) -> list[Failure]:
    """The failures of the position itself: graph shape, the checker's bookkeeping, the end rules
    and length bound, both collapses of a pending cycle (at a chance turn: its outcomes and their
    probabilities), final scores and ties."""
    found = _guarded(SHAPE, lambda: check_shape(state))
    found += _guarded(TURN, lambda: check_bookkeeping(ctx, state, path))
    found += _guarded(LENGTH, lambda: None if state.over == (state.pending is None and ends_now(ctx, state))
                      else f"the engine says over = {state.over}, the end rules say {not state.over}")
    if ctx.bound is not None and len(path) > ctx.bound:
        found.append((LENGTH, f"{len(path)} actions, more than the bound {ctx.bound}", None))
    found += _guarded(UNIQUE, lambda: check_chance(ctx, state))
    if state.pending is not None and state.phase != CHANCE:
        try:
            unique, total = check_measurements(state, ctx.params.untouched == "vanish")
        except Exception as e:
            unique, total = None, raised(e)
        found += [(prop, message, None) for prop, message in ((UNIQUE, unique), (TOTAL, total)) if message]
    if state.over:
        found += _guarded(SCORES, lambda: check_final(ctx, state))
        found += _guarded(TIE, lambda: check_tie(state))
    return found


def inspect(ctx: Context, state: State, path: Sequence[Action], simulate: bool = False,
            visits: list[Visit] | None = None) -> tuple[list[Failure], list[tuple[Action, State]]]:
    """Every property failure the engine shows at the position the actions `path` reach, and the
    position after each legal action. The turn order and move numbers are the checker's own count
    of the actions played. With ctx.paths, the position joins `visits`, for `compare_paths`."""
    found = position_failures(ctx, state, path)
    children: list[tuple[Action, State]] = []
    try:
        legal = state.legal_actions()
    except Exception as e:
        found.append((DEADLOCK, "legal actions: " + raised(e), None))
        return found, children
    if not state.over and not legal:
        found.append((DEADLOCK, f"open cells {list(state.open_cells)}, live moves {state.edges}: "
                      f"{state.to_move} has no legal action and the game is not over", None))
    for act in legal:
        try:
            children.append((act, state.apply(act)))
        except Exception as e:
            found.append((SHAPE if isinstance(act, Place) else TOTAL, f"{act}: " + raised(e), act))
    refusals = expected_refusals(ctx, state)
    try:
        refused = check_legal(state, legal, refusals)
    except Exception as e:
        refused = LEGAL, raised(e), None
    found += [refused] if refused else []
    if simulate:
        found += _guarded(ABSTRACT, lambda: simulates(ctx.params, state, ctx.first_line))
    if ctx.paths and visits is not None:
        after = tuple((a, c) for a, c in children if not isinstance(a, Place) or c.over)
        further = 0  # the engine's legal actions one action on, for perft
        for act, child in children:
            try:
                further += len(child.legal_actions())
            except Exception as e:
                found.append((DEADLOCK, f"after {act}, legal actions: " + raised(e), act))
                further = -1
                break
        perft = (len(children), further) if further >= 0 else None
        visits.append(Visit(tuple(path), state, tuple(a for a, _ in children), after, refusals, perft))
    return found, children


def confirm(ctx: Context, variant: str, prop: str, path: Sequence[Action]) -> Confirmed | None:
    """The one way a violation gets its witness: replay `path` from the start of ctx's ruleset
    (the real rules, never an auxiliary walk's) with the engine, check that position again, and
    return the game (with the action that shows the failure, if any) when prop fails there."""
    state = replay(ctx.rs, path)
    if state is None:
        return None
    visits: list[Visit] = []
    found, _ = inspect(ctx, state, path, simulate=prop == ABSTRACT, visits=visits)
    if prop == CORES:
        found += [f for at, f in compare_paths(ctx, visits, again=True) if len(at) == len(path)]
    for p, message, probe in found:
        if p == prop:
            acts = [*path, probe] if probe is not None else list(path)
            return Confirmed(record(variant, acts), message)
    return None


CHUNK = 25
"""Games per unit of sampled work: chunk i plays its games from `random.Random(f"{seed}:{i}")`, so
a sample depends on the ruleset, the seed and the number of games, never on who played which chunk."""


def sample_chunk(rs: Ruleset, seed: int, index: int, games: int, simulate: int = 0, bound: int | None = None,
                 cores: bool = True) -> Sample:
    """Chunk `index` of a sample: `games` uniformly random games, checking every position (and the
    abstraction on the first `simulate` positions), the compiled core alongside where it plays rs
    (`cores`). A chance turn's outcome is drawn like any action, uniformly from the chunk's seeded
    generator (not by its probability: an unlikely outcome is explored as often as a likely one)."""
    started = time.thread_time()
    rng = random.Random(f"{seed}:{index}")
    out = Sample()
    ctx = Context.of(rs, bound, cores)
    visits: list[Visit] = []
    for game in range(games):
        state = State.initial(rs)
        actions = list[Action]()
        out.games += 1
        while True:
            out.positions += 1
            check_abstraction = out.simulated < simulate
            out.simulated += check_abstraction
            out.measurements += state.phase == "measure"
            found, children = inspect(ctx, state, actions, check_abstraction, visits)
            for prop, message, _ in found:
                out.fail(prop, message, actions)
            if state.over or not children or len(actions) > (bound if bound is not None else 10 ** 6):
                break
            act, state = children[rng.randrange(len(children))]
            actions.append(act)
        if len(actions) > out.longest:
            out.longest, out.longest_game = len(actions), tuple(actions)
        if len(visits) >= BATCH or game == games - 1:  # the paths on this batch's positions
            for at, (prop, message, _) in compare_paths(ctx, visits):
                out.fail(prop, message, at)
            visits.clear()
    out.seconds = time.thread_time() - started
    return out


def chunks(rs: Ruleset, games: int, seed: int = 0, simulate: int = 200, bound: int | None = None,
           cores: bool = True) -> list[tuple[Any, ...]]:
    """The arguments of `sample_chunk` for each chunk of a sample of `games` games: CHUNK games
    each; the first chunk checks the abstraction on its first `simulate` positions."""
    return [(rs, seed, i, min(CHUNK, games - start), simulate if i == 0 else 0, bound, cores)
            for i, start in enumerate(range(0, games, CHUNK))]


def merged(parts: Iterable[Sample]) -> Sample:
    """The chunks of a sample as one, in chunk order (the failures kept are the first few of the
    whole sample, the longest game the first of its length)."""
    out = Sample()
    for part in parts:
        out.games += part.games
        out.positions += part.positions
        out.measurements += part.measurements
        out.simulated += part.simulated
        out.seconds += part.seconds
        if part.longest > out.longest:
            out.longest, out.longest_game = part.longest, part.longest_game
        for prop, kept in part.failures.items():
            for message, actions in kept:
                out.fail(prop, message, actions)
    return out


def sample(rs: Ruleset, games: int, seed: int = 0, simulate: int = 200, bound: int | None = None,
           cores: bool = True, mapper: Mapper = serial_mapper) -> Sample:
    """Play `games` uniformly random games in chunks (`sample_chunk`, run by `mapper`), checking every
    position (and the abstraction on the first `simulate` positions), the compiled core alongside
    where it plays rs (`cores`)."""
    return merged(mapper(sample_chunk, chunks(rs, games, seed, simulate, bound, cores)))
