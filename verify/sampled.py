"""Random games through the engine, checked against the proved properties at every step.

This ties the Z3 proofs (about graphs) and the abstraction (about component sizes) to the engine:
on every visited position the live entanglement graph has the proved shape, every measurement
gives the unique outcome the naive enumeration finds, and the engine's actions match the
abstraction's. A failure keeps the actions that reach the offending position. The same position checks
(`check_position`) serve the exhaustive walk of `verify.exhaustive`; an engine that raises is a
failure like any other, never a crash of the checker.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from qttt import Action, Measure, Ruleset, State, player_of
from qttt.geometry import lines

from .abstract import Params, simulates
from .graphs import Multigraph, assignments, is_forest, propagate
from .scores import declared_range, expected_scores

SHAPE, UNIQUE, TOTAL, DEADLOCK, LENGTH, SCORES, TURN, ABSTRACT = (
    "single-cycle-per-move", "collapse-uniqueness", "collapse-totality", "no-deadlock", "termination",
    "scores-well-defined", "turn-order", "abstraction")


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
    failures: dict[str, tuple[str, tuple[Action, ...]]] = field(default_factory=dict)

    def fail(self, prop: str, message: str, actions: Sequence[Action]) -> None:
        """Keep the first failure of a property."""
        self.failures.setdefault(prop, (message, tuple(actions)))


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


def check_measurements(state: State, vanish: bool) -> tuple[str | None, str | None]:
    """(uniqueness failure, totality failure) of the two measurements of the pending cycle."""
    pending = state.pending
    assert pending is not None
    edges = state.edges
    comp = sorted(state.component[edges[pending][0]])
    moves = sorted(k for k, e in edges.items() if e[0] in comp)
    index = {c: i for i, c in enumerate(comp)}
    graph = Multigraph(len(comp), tuple((index[edges[k][0]], index[edges[k][1]]) for k in moves))
    outcomes = []
    for cell in edges[pending]:
        after = state.apply(Measure(cell))
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
    """What the position checks need to know about a ruleset, computed once."""

    rs: Ruleset
    params: Params
    first_line: bool
    vanish: bool
    creator: bool
    end_masks: tuple[int, ...]
    declared: dict[str, Fraction] | None

    @classmethod
    def of(cls, rs: Ruleset) -> Context:
        """The context of a ruleset."""
        first_line = rs.rules.end == "first-line"
        found = declared_range(rs)
        vanish, creator = rs.rules.untouched == "vanish", rs.rules.measurer == "creator"
        return cls(rs, Params.of(rs), first_line, vanish, creator,
                   tuple(p.mask for p in lines(rs.board, rs.rules.end_line)) if first_line else (),
                   found[0] if found else None)


def raised(e: BaseException) -> str:
    """An engine exception, as a failure message."""
    return f"the engine raised {type(e).__name__}: {e}"


def expected_turn(ctx: Context, state: State) -> str | None:
    """Who the rules say acts (rules turn-order, measure-by): the placer of the next move, the
    measurer of a pending cycle, nobody when the game is over."""
    if state.over:
        return None
    if state.pending is not None:
        creator = player_of(state.pending)
        return creator if ctx.creator else ("o" if creator == "x" else "x")
    return player_of(state.move)


def ends_now(ctx: Context, state: State) -> bool:
    """Whether the rules end the game on this board (rules end-line, end-full, last-square)."""
    x = sum(1 << c for c, m in enumerate(state.classical) if m and m & 1)
    o = sum(1 << c for c, m in enumerate(state.classical) if m and not m & 1)
    if any(m & x == m or m & o == m for m in ctx.end_masks):
        return True
    left = len(state.open_cells)
    return left == 0 or (left == 1 and not ctx.params.forced_last)


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


def check_position(ctx: Context, state: State, simulate: bool = False) -> list[tuple[str, str]]:
    """Every property failure the engine shows at one position, as (property, message)."""
    found: list[tuple[str, str]] = []

    def guard(prop: str, run: Callable[[], str | None]) -> None:
        try:
            problem = run()
        except Exception as e:  # an engine that raises is a finding
            problem = raised(e)
        if problem:
            found.append((prop, problem))

    guard(SHAPE, lambda: check_shape(state))
    guard(TURN, lambda: None if state.to_move == expected_turn(ctx, state) else
          f"{state.to_move} to act, the rules name {expected_turn(ctx, state)}")
    guard(LENGTH, lambda: None if state.over == (state.pending is None and ends_now(ctx, state)) else
          f"the engine says over = {state.over}, the end rules say {not state.over}")
    if simulate:
        guard(ABSTRACT, lambda: simulates(ctx.params, state, ctx.first_line))
    if state.pending is not None:
        try:
            unique, total = check_measurements(state, ctx.vanish)
        except Exception as e:
            unique, total = None, raised(e)
        if unique:
            found.append((UNIQUE, unique))
        if total:
            found.append((TOTAL, total))
    guard(DEADLOCK, lambda: None if state.over or state.legal_actions() else
          f"open cells {list(state.open_cells)}, live moves {state.edges}: {state.to_move} has no legal "
          "action and the game is not over")
    if state.over:
        guard(SCORES, lambda: check_final(ctx, state))
    return found


def apply_checked(state: State, act: Action) -> tuple[State | None, tuple[str, str] | None]:
    """The state after a legal action, or the failure when the engine raises on it."""
    try:
        return state.apply(act), None
    except Exception as e:
        return None, (TOTAL if isinstance(act, Measure) else SHAPE, f"{act}: " + raised(e))


def sample(rs: Ruleset, games: int, seed: int = 0, simulate: int = 200, bound: int | None = None) -> Sample:
    """Play `games` uniformly random games, checking every position (and the abstraction on the
    first `simulate` positions)."""
    rng = random.Random(seed)
    out = Sample()
    ctx = Context.of(rs)
    for _ in range(games):
        state: State | None = State.initial(rs)
        actions = list[Action]()
        out.games += 1
        while state is not None:
            out.positions += 1
            check_abstraction = out.simulated < simulate
            out.simulated += check_abstraction
            out.measurements += state.pending is not None
            for prop, message in check_position(ctx, state, check_abstraction):
                out.fail(prop, message, actions)
            try:
                legal = state.legal_actions()
            except Exception:
                break
            if state.over or not legal:
                break
            act = legal[rng.randrange(len(legal))]
            actions.append(act)
            state, failure = apply_checked(state, act)
            if failure:
                out.fail(*failure, actions)
            if bound is not None and len(actions) > bound:
                out.fail(LENGTH, f"{len(actions)} actions, more than the bound {bound}", actions)
                break
        if len(actions) > out.longest:
            out.longest, out.longest_game = len(actions), tuple(actions)
    return out
