"""The quantum family's registered paths (verify.paths): each comparison of a compiled entry point
with the engine, run in a child process (`verify.isolated.run`), so that a core that crashes, aborts
or hangs fails property cores-agree with the game that shows it.

Compared at positions (`sampled.compare_paths`): a comparison takes (ctx, visits, mark), calls
mark(i, done, k) before each call into the core (visit i, `done` of its actions replayed, trying
`action_space(cells)[k]`, k = -1 for none; i = -1 for a call on the whole batch), and returns a
failure of cores-agree or None per visit. Compared on games (`sampled.compare_games`): a
comparison takes (ctx, variant, seed, games) and returns `GameFailure`s, each the engine's game
whose output differs and how to run the path again on that game alone. A core that raises is a
failure like any other.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from qttt import IllegalAction, Ruleset
from qttt.analysis.sample import RECORD_BLOCK, play_chunk, record_block
from qttt.chance import CHANCE
from qttt.notation import Record, record_to_json, state_to_json
from qttt.quantum import compiled
from qttt.quantum.analysis.count import board_after
from qttt.quantum.analysis.keys import numbered_key, owner_key
from qttt.quantum.engine import Action, State, playout
from qttt.quantum.game import compile_game

from .. import isolated
from ..isolated import Mark
from .exhaustive import encode, shape_code, shape_key
from .sampled import CORES, Context, Failure, Further, GameFailure, Visit, action_space, core_reason
from .scores import expected_scores

MASK = (1 << 64) - 1
SOLVED_OPEN = 4
"""The solver is compared at visited positions with at most this many open cells (the engine's
plain minimax, the reference, grows fast above)."""
PERFT_DEPTH = 2


def _guarded(compare: Callable[[Any], Failure | Further | None], visit: Any) -> Failure | Further | None:
    """compare(visit), or the exception it raised as a failure of cores-agree."""
    try:
        return compare(visit)
    except Exception as e:
        return CORES, f"the compiled core raised {type(e).__name__}: {e}", None


# Positions -------------------------------------------------------------------------------------


def positions(ctx: Context, visits: Sequence[Visit], mark: Mark) -> list[Failure | Further | None]:
    """The compiled core's positions (`compiled.CorePosition`: qc_apply, qc_legal, qc_export) at
    each visited position: replaying the same actions it holds the same position (phase, move
    numbers, pending cycle, cell named, player to act, classical and spooky marks, scores), offers
    a chance turn's outcomes with the same probabilities (qc_chance), lists the same legal actions,
    refuses every other action under the rule the engine must name, and reaches the same position
    after each measurement, chance outcome and placement that ends the game (the positions other
    placements reach are compared where they are visited themselves)."""
    core = compiled.core_for(ctx.rs)
    index: dict[Action | None, int] = {a: k for k, a in enumerate(action_space(ctx.rs.board ** 2))}
    out: list[Failure | Further | None] = []
    for i, visit in enumerate(visits):

        def at(done: int, act: Action | None, i: int = i) -> None:
            mark(i, done, index.get(act, -1))
        out.append(_guarded(lambda v: _position(core, v, at), visit))
    return out


def _position(core: compiled.Core, visit: Visit,
              mark: Callable[[int, Action | None], None]) -> Failure | None:
    path = visit.path
    mark(0, None)
    pos = core.position()
    for i, act in enumerate(path):
        mark(i, act)
        try:
            pos.apply(act)
        except IllegalAction as e:
            return CORES, f"the compiled core refuses action {i + 1}, {act}, under rule {e.rule}", None
    done = len(path)
    mark(done, None)
    differs = view_differs(pos.view(), visit.state) or fields_differ(pos.fields(), visit.state.fields())
    if differs:
        return CORES, f"the compiled core holds {differs}", None
    if pos.chance_outcomes() != (offered := visit.state.chance_outcomes()):
        return CORES, f"chance outcomes: engine {offered}, compiled core {pos.chance_outcomes()}", None
    legal = list(visit.legal)
    core_legal = pos.legal()
    if set(core_legal) != set(legal):
        return CORES, f"legal actions: engine {legal}, compiled core {core_legal}", None
    for act, want in visit.refusals.items():
        if act in legal:
            continue
        mark(done, act)
        try:
            pos.apply(act)  # a refusal leaves the position as it was
        except IllegalAction as e:
            if e.rule != want:
                return CORES, f"the compiled core refuses {act} under rule {e.rule}, not {want}", act
            continue
        return CORES, f"the compiled core accepts {act}, which the rules refuse ({want})", act
    for act, child in visit.after:
        mark(done, act)
        after = pos.copy()
        after.apply(act)
        differs = view_differs(after.view(), child) or fields_differ(after.fields(), child.fields())
        if differs:
            return CORES, f"after {act} the compiled core holds {differs}", act
    return None


def view_differs(view: compiled.CoreView, state: State) -> str | None:
    """What differs between the compiled core's view of a position and the engine's state."""
    engine = (state.phase, None if state.over else state.move, state.pending, state.chosen, state.to_move,
              (state.scores["x"], state.scores["o"]), state.cycle, state.classical, state.spooky)
    core = (view.phase, None if view.phase == "over" else view.move, view.pending, view.chosen, view.to_move,
            view.scores, view.cycle, view.classical, view.spooky)
    names = ("phase", "next move", "pending move", "cell named", "player to act", "scores", "cycle",
             "classical marks", "spooky marks")
    for name, mine, theirs in zip(names, core, engine, strict=True):
        if mine != theirs:
            return f"{name} {mine}, the engine {theirs}"
    return None


def fields_differ(core: dict[str, Any], engine: dict[str, Any]) -> str | None:
    """The first declared field of the position state (`qttt.quantum.engine.STATE`) the compiled
    core holds otherwise than the engine, in words."""
    for name, mine in core.items():
        if mine != engine[name]:
            return f"position-state field {name} = {mine}, the engine {engine[name]}"
    return None


# Position keys -----------------------------------------------------------------------------------


def keys(ctx: Context, visits: Sequence[Visit], mark: Mark) -> list[Failure | Further | None]:
    """The compiled core's position keys at each visited position: qc_shape_key is the checker's own
    shape key of the position (`exhaustive.shape_code(shape_key)`, the walk's classes). At the start
    and at positions with at most SOLVED_OPEN open cells (the engine's keys of every child cost
    more than the rest of the comparisons together), also: qc_child_keys lists the legal actions in
    the engine's order, each with the shape key of the position it leads to, and the solver's key
    (qc_key) merges exactly the positions one action on that the engine's key of the same kind
    merges: in the solver's build where the solver plays the ruleset (`qttt.quantum.analysis.keys`:
    numbered_key, or owner_key where the scoring reads no move numbers), in the 16-cell build (a
    hash, against `State.key`: it merges nothing). Where the small build plays a ruleset the solver
    does not (a chance collapse), its key has no engine key to be held to and is not compared."""
    core = compiled.core_for(ctx.rs)
    fast = compiled.FastSolver(ctx.rs, 4) if solver_reason(ctx.rs) is None else None
    numbered = compile_game(ctx.rs).uses_move_numbers
    out: list[Failure | Further | None] = []
    seen: set[Any] = set()  # positions whose children were compared (the start, once per batch)
    for i, visit in enumerate(visits):
        mark(i, len(visit.path))
        out.append(_guarded(lambda v: _keyed(ctx.rs, core, fast, numbered, v, seen), visit))
    if fast is not None:
        fast.close()
    return out


def _shape(state: State) -> Any:
    """The shape key of state as the core must code it (`compiled.ODD_KEY` for a shape the rules
    never make)."""
    code = shape_code(shape_key(state))
    return code if isinstance(code, int) else compiled.ODD_KEY


def _keyed(rs: Ruleset, core: compiled.Core, fast: compiled.FastSolver | None, numbered: bool,
           visit: Visit, seen: set[Any]) -> Failure | None:
    pos = core.position(visit.path)
    if (mine := pos.shape_key()) != (want := _shape(visit.state)):
        return CORES, f"qc_shape_key {mine}, the checker's shape key {want}", None
    if (visit.path and len(visit.state.open_cells) > SOLVED_OPEN) or visit.state.key() in seen:
        return None
    seen.add(visit.state.key())
    children = [(a, visit.state.apply(a)) for a in visit.legal]
    kids, theirs = pos.child_keys(), [(a, _shape(c)) for a, c in children]
    if kids != theirs:
        return CORES, f"qc_child_keys {kids}; the engine's legal actions with their shape keys {theirs}", None
    cells = rs.board ** 2
    if fast is not None:
        key = (numbered_key if numbered else owner_key)

        def solver_and_engine(acts: tuple[Action, ...]) -> tuple[Any, Any]:
            codes = [encode(a, cells) for a in acts]
            return fast.key(codes), key(rs, board_after(rs, codes))  # the engine's board, keyed as the solver
        pairs = [solver_and_engine(visit.path), *(solver_and_engine((*visit.path, a)) for a, _ in children)]
    elif cells > compiled.SOLVER_CELLS:  # the hashed key of the large build, which merges nothing
        pairs = [(core.position(visit.path).key(), visit.state.key()),
                 *((core.position((*visit.path, a)).key(), c.key()) for a, c in children)]
    else:  # the small build's canonical key without the solver's symmetries: no engine key to hold it to
        return None
    acts: list[Action | None] = [None, *(a for a, _ in children)]
    by_core: dict[Any, int] = {}
    by_engine: dict[Any, int] = {}
    for k, (mine_key, engine_key) in enumerate(pairs):
        j = by_core.setdefault(mine_key, k)
        if pairs[j][1] != engine_key:
            return CORES, (f"qc_key gives the positions after {_after(acts[j])} and after {_after(acts[k])} "
                           "one key; the engine's key tells them apart"), acts[k]
        j = by_engine.setdefault(engine_key, k)
        if pairs[j][0] != mine_key:
            return CORES, (f"qc_key tells apart the positions after {_after(acts[j])} and after "
                           f"{_after(acts[k])}, which the engine's key merges"), acts[k]
    return None


def _after(act: Action | None) -> str:
    return "this position's actions" if act is None else f"{act}"


# qttt replay --json ------------------------------------------------------------------------------


def replay_json(ctx: Context, visits: Sequence[Visit], mark: Mark) -> list[Failure | Further | None]:
    """`qttt replay --json`'s compiled replay (`compiled.Core.replay_jsonl`: qc_replay_jsonl and its
    state writer) on the records of the visited positions, all in one text as the command hands
    it over: each line it writes is the engine's state JSON of that record (`replay --json` with
    --core python), finished or not, the player to act included. A record the core leaves to the
    engine (the command then replays it in Python) has no line of the core's to compare."""
    core = compiled.core_for(ctx.rs)
    name = ctx.rs.canonical
    lines = [json.dumps(record_to_json(Record(name, v.path)), separators=(",", ":")).encode() + b"\n"
             for v in visits]
    mark(-1 if len(visits) > 1 else 0, len(visits[0].path) if len(visits) == 1 else 0)
    out: list[Failure | Further | None] = [None] * len(visits)
    at = 0
    states: list[str | None] = []
    try:
        while at < len(visits):
            done = core.replay_jsonl(b"".join(lines[at:]), True, name)
            if not done.lines and done.stop != "line":
                stuck = f"the compiled replay stops ({done.stop}) without reading a line"
                return [(CORES, stuck, None)] * len(visits)
            written = done.states.splitlines()
            states += written[:done.records]
            at += done.lines
            if done.stop == "line":  # left to the engine, as the command does
                states.append(None)
                at += 1
    except Exception as e:
        return [(CORES, f"the compiled replay raised {type(e).__name__}: {e}", None)] * len(visits)
    for i, (visit, text) in enumerate(zip(visits, states, strict=False)):
        mark(i, len(visit.path))
        if text is None:
            continue
        want = json.dumps(state_to_json(visit.state, name), separators=(", ", ": "))
        if text != want:
            out[i] = CORES, f"qttt replay --json's compiled replay writes {text}; the engine {want}", None
    return out


# perft -------------------------------------------------------------------------------------------


def perft(ctx: Context, visits: Sequence[Visit], mark: Mark) -> list[Failure | Further | None]:
    """`qttt perft`'s compiled count (`CorePosition.perft`: qc_perft) and, where the solver's build
    plays the ruleset, the solver's (`FastSolver.perft`: qc_replay, qc_perft) to depth 2 at each
    visited position, against the engine's legal lists there and at every position one action on."""
    core = compiled.core_for(ctx.rs)
    fast = compiled.FastSolver(ctx.rs, 4) if compiled.solver_supports(ctx.rs) is None else None
    out: list[Failure | Further | None] = []
    for i, visit in enumerate(visits):
        mark(i, len(visit.path))
        out.append(_guarded(lambda v: _counts(core, fast, v), visit))
    if fast is not None:
        fast.close()
    return out


def _counts(core: compiled.Core, fast: compiled.FastSolver | None, visit: Visit) -> Failure | None:
    if visit.perft is None:  # the engine raised there: its own failure, nothing to compare with
        return None
    want = list(visit.perft)
    mine = core.position(visit.path).perft(PERFT_DEPTH)
    if mine != want:
        return CORES, f"qttt perft's compiled count to depth {PERFT_DEPTH}: {mine}, the engine's {want}", None
    if fast is not None:
        theirs = fast.perft([encode(a, core.cells) for a in visit.path], PERFT_DEPTH)
        if theirs != want:
            return CORES, f"the solver's perft to depth {PERFT_DEPTH}: {theirs}, the engine's {want}", None
    return None


# the solver --------------------------------------------------------------------------------------


def solver_reason(rs: Ruleset) -> str | None:
    """None when the compiled solver plays rs here, else why not."""
    return compiled.solver_supports(rs) or core_reason(rs)


def solver(ctx: Context, visits: Sequence[Visit], mark: Mark) -> list[Failure | Further | None]:
    """The compiled solver (`FastSolver`: qc_new, qc_replay, qc_score, qc_search and its tables, as
    `qttt analyze solve` runs it) at each visited position with at most SOLVED_OPEN open cells: the
    value x − o under perfect play equals the engine's plain minimax (a deadlock scored as the board
    stands, by the checker's own reading of the scoring), and qc_score gives the phase and the board
    scored as it stands. A value that differs is followed down to the first position where an action
    changes nothing else (a final position, most often): the witness goes there."""
    fast = compiled.FastSolver(ctx.rs, 12)
    values: dict[Any, Fraction] = {}  # the engine's minimax by position (State.key), shared by the visits
    try:
        return _near_the_end(visits, mark, lambda v: _solved(ctx.rs, fast, v, values))
    finally:
        fast.close()


def _near_the_end(visits: Sequence[Visit], mark: Mark,
                  compare: Callable[[Visit], Failure | Further | None]) -> list[Failure | Further | None]:
    """`compare` at each visited position with at most SOLVED_OPEN open cells (None elsewhere)."""
    out: list[Failure | Further | None] = []
    for i, visit in enumerate(visits):
        if len(visit.state.open_cells) > SOLVED_OPEN:
            out.append(None)
            continue
        mark(i, len(visit.path))
        out.append(_guarded(compare, visit))
    return out


def _solved(rs: Ruleset, fast: compiled.FastSolver, visit: Visit,
            values: dict[Any, Fraction]) -> Failure | Further | None:
    cells = rs.board ** 2
    codes = [encode(a, cells) for a in visit.path]
    state = visit.state
    phase, now = fast.score(codes)
    want, standing = _standing(rs, state), Fraction(now, fast.scale)
    if (phase, standing) != (state.phase, want):
        return CORES, f"qc_score: {phase}, x − o {standing}; the engine's {state.phase}, {want}", None
    if fast.exact_value(codes) == minimax(rs, state, values):
        return None
    further: list[Action] = []
    while not state.over:  # down to where the values part
        step = next(((a, c) for a in state.legal_actions() if fast.exact_value([*codes, encode(a, cells)])
                     != minimax(rs, (c := state.apply(a)), values)), None)
        if step is None:
            break
        further.append(step[0])
        codes.append(encode(step[0], cells))
        state = step[1]
    mine, theirs = fast.exact_value(codes), minimax(rs, state, values)
    found: Failure = (CORES, f"the compiled solver values the position {mine}, the engine {theirs}", None)
    return (tuple(further), found) if further else found


def expectimax_reason(rs: Ruleset) -> str | None:
    """None when the compiled expectimax plays rs here, else why not."""
    return compiled.expectimax_supports(rs) or core_reason(rs)


def expectimax(ctx: Context, visits: Sequence[Visit], mark: Mark) -> list[Failure | Further | None]:
    """The compiled expectimax of chance rulesets (`FastExpectimax`: qc_evalue and its tables, as
    `qttt analyze solve` and `qttt analyze curve` run it) at each visited position with at most
    SOLVED_OPEN open cells: its polynomial in p, evaluated at the ruleset's p, equals the engine's
    expectimax there (`minimax`, chance turns weighted by their probabilities)."""
    fast = compiled.FastExpectimax(ctx.rs, log2size=12)
    values: dict[Any, Fraction] = {}
    try:
        return _near_the_end(visits, mark, lambda v: _expected(ctx.rs, fast, v, values))
    finally:
        fast.close()


def _expected(rs: Ruleset, fast: compiled.FastExpectimax, visit: Visit,
              values: dict[Any, Fraction]) -> Failure | None:
    p = fast.point
    coefficients = fast.value([encode(a, rs.board ** 2) for a in visit.path])
    mine = sum((c * p ** k for k, c in enumerate(coefficients)), Fraction(0)) / fast.scale
    theirs = minimax(rs, visit.state, values)
    if mine == theirs:
        return None
    return CORES, f"the compiled expectimax values the position {mine} at p = {p}, the engine {theirs}", None


def _standing(rs: Ruleset, state: State) -> Fraction:
    """x − o of the board as it stands: the final scores once over, else the scoring's reading."""
    if state.over:
        return state.scores["x"] - state.scores["o"]
    x, o = expected_scores(rs, state.classical)
    return x - o


def minimax(rs: Ruleset, state: State, values: dict[Any, Fraction]) -> Fraction:
    """x − o under perfect play from state, through the engine's public API (a deadlock scored as
    the board stands; a chance turn worth its outcomes' values weighted by their probabilities: the
    expectimax), remembered in `values` by the engine's key of each position."""
    key = state.key()
    if key not in values:
        legal = state.legal_actions()
        if state.over or not legal:
            values[key] = _standing(rs, state)
        elif state.phase == CHANCE:
            values[key] = sum((pr * minimax(rs, state.apply(o), values) for o, pr in state.chance_outcomes()),
                              Fraction(0))
        else:
            found = [minimax(rs, state.apply(a), values) for a in legal]
            values[key] = max(found) if state.to_move == "x" else min(found)
    return values[key]


# Games (qttt random, random games, qttt analyze random) -----------------------------------------


Diff = tuple[int | None, str] | None
"""How a path's output for the first n games differs from the engine's: the game it shows in
(None: no one game's output, or a crash), and what differs; None when they agree."""


def _played(rs: Ruleset, seed: int, games: int) -> list[list[Action]]:
    """The actions of the first `games` games of `qttt random --seed seed` (its first block,
    `random.Random(f"{seed}:0")`), played by the engine."""
    rng = random.Random(f"{seed}:0")
    return [playout(rs, rng)[0] for _ in range(min(games, RECORD_BLOCK))]


def _first_games(ctx: Context, seed: int, played: Sequence[list[Action]], what: str,
                 core: Callable[[int], Any], engine: Callable[[int], Any],
                 diff: Callable[[Any, Any], Diff]) -> list[GameFailure]:
    """A path run on the first n games of `qttt random --seed seed`'s block, n = all of them (`core`
    in a child process, against `engine`): nothing when the outputs agree; else the game the
    difference shows in, or, for a crash or a difference no one game's output shows, the last game
    of the shortest run of first games that shows it; with how to run those games again."""

    def run(items: Sequence[int], mark: Mark) -> list[Any]:
        mark(0)
        return [core(items[0])]

    def compare(n: int) -> Diff:
        got = isolated.run(run, [n])[0]
        if isinstance(got, isolated.Crashed):
            return None, f"{what}: {got.why}"
        return diff(got, engine(n))

    n = len(played)
    found = compare(n)
    if found is None:
        return []
    k, message = found
    if k is None:  # the shortest run of first games that shows it
        lo, hi = 1, n
        while lo < hi:
            mid = (lo + hi) // 2
            if (d := compare(mid)) is not None:
                hi, message = mid, d[1]
            else:
                lo = mid + 1
        k = hi - 1
    shown = k + 1

    def again() -> str | None:
        d = compare(shown)
        return None if d is None else d[1]
    return [GameFailure(f"{message} (game {shown} of qttt random --seed {seed})", tuple(played[k]), again)]


def jsonl(ctx: Context, variant: str, seed: int, games: int) -> list[GameFailure]:
    """`qttt random`'s compiled writer (qc_jsonl, through the command's own `record_block`): the
    records of its games of --seed seed are byte for byte the engine's records of the same games
    (`qttt random --core python`)."""
    rs = ctx.rs
    played = _played(rs, seed, games)
    records = record_block(rs, seed, 0, len(played), "python").splitlines(keepends=True)

    def diff(got: bytes, want: list[bytes]) -> Diff:
        lines = got.splitlines(keepends=True)
        for k, (mine, theirs) in enumerate(zip(lines, want, strict=False)):
            if mine != theirs:
                written, engine = mine.decode("ascii", "replace").strip(), theirs.decode().strip()
                return k, f"qttt random's compiled writer writes {written!r}; the engine {engine!r}"
        if len(lines) != len(want):
            return None, f"qttt random's compiled writer writes {len(lines)} records for {len(want)} games"
        return None

    return _first_games(ctx, seed, played, "qttt random's compiled writer",
                        lambda n: record_block(rs, seed, 0, n, "compiled"), lambda n: records[:n], diff)


def games(ctx: Context, variant: str, seed: int, count: int) -> list[GameFailure]:
    """The compiled core's random games (`compiled.Core.games`: qc_games, as the benchmarks and
    `qttt random` without a record writer play them): from the same generator, the same actions,
    final phase, scores (0-0 at a deadlock) and digest as the engine's `playout`, and the generator
    left where the engine leaves it."""
    rs = ctx.rs
    played = _played(rs, seed, count)
    scale = compile_game(rs).scale
    cells = rs.board ** 2
    rng = random.Random(f"{seed}:0")
    finals, states = [], []
    for _ in played:
        actions, final = playout(rs, rng)
        scores = final.scores
        finals.append(([encode(a, cells) for a in actions], final.phase, scores["x"], scores["o"]))
        states.append(rng.getstate())

    def core(n: int) -> tuple[list[Any], Any]:
        r = random.Random(f"{seed}:0")
        got = compiled.core_for(rs).games(r, n)
        return got, r.getstate()

    def diff(got: tuple[list[Any], Any], n: int) -> Diff:
        mine, after = got
        for k, (codes, x, o, phase, digest) in enumerate(mine):
            have = (codes, phase, Fraction(x, scale), Fraction(o, scale))
            if have != finals[k]:
                return k, f"the compiled core's random game: {have}; the engine's {finals[k]}"
            if digest != (want := _digest(*finals[k], scale)):
                return k, f"the compiled core's digest of a random game: {digest}, not {want}"
        if after != states[n - 1]:
            return None, "the compiled core leaves the generator elsewhere than the engine after its games"
        return None

    return _first_games(ctx, seed, played, "the compiled core's random games", core, lambda n: n, diff)


def _digest(codes: list[int], phase: str, x: Fraction, o: Fraction, scale: int) -> int:
    """FNV-1a over the encoded actions, the final phase and the scaled scores: the core's digest,
    written again from its definition (`qc_games`)."""
    h = 0xCBF29CE484222325
    for v in [*codes, compiled.PHASES.index(phase), int(x * scale), int(o * scale)]:
        h = ((h ^ (v & MASK)) * 0x100000001B3) & MASK
    return h


def tally(ctx: Context, variant: str, seed: int, count: int) -> list[GameFailure]:
    """`qttt analyze random`'s compiled tally (qc_sample, through the command's own `play_chunk`):
    the final scores and the games by line result of --seed seed's games equal the engine's tally
    of the same games."""
    rs = ctx.rs
    played = _played(rs, seed, count)

    def points(chunk: Any) -> tuple[dict[tuple[Fraction, Fraction], int], dict[str, int]]:
        s, rows, lines, _ = chunk
        return {(Fraction(x, s), Fraction(o, s)): k for x, o, k in rows}, dict(lines)

    def diff(got: Any, want: Any) -> Diff:
        if got == want:
            return None
        return None, f"qttt analyze random's compiled tally {got}, the engine's {want}"

    return _first_games(ctx, seed, played, "qttt analyze random's compiled tally",
                        lambda n: points(play_chunk(rs, seed, 0, n, "compiled")),
                        lambda n: points(play_chunk(rs, seed, 0, n, "python")), diff)
