"""Walk of a ruleset's positions with the engine, checked at every position it visits.

The walk goes ply by ply from the empty board through the public `State` API, merging positions
whose keys are equal (none under `concrete_key`: every reachable position), and runs
`verify.quantum.sampled.inspect` on one representative of every key, and under the shape key on K
relabelled members of its class too (`relabel`): cycle = graph cycle, both measurement outcomes
classical and differing exactly on the cycle, nothing outside the component changed, the player
to act, the end rules, a legal action when not over, refusals, both cores, final scores,
agreement with the component-size model. A position the engine raises on is
a failure with the actions reaching it; the ply count is checked against the abstraction's bound.

Keys, and why each is sound for what is checked under it:

* `shape_key` (the walk's key): phase, parity of the next move, and the isomorphism class of the
  entanglement graph on the open cells with the pending edge marked. Under end = full the rules
  make the legal actions and the phase, measurer and shape of every successor a function of this
  class: placements are pairs of open cells (minus live pairs when 2-cycles are forbidden), a
  placement joins two trees or closes the one cycle through its cells, a measurement makes the
  pending component classical (and, under vanish, frees every other cell), the game ends when at
  most one cell is open; none of this looks at cell geometry, owners or move numbers. So the
  classes reachable, and the structural properties at each, are those of one representative.
  Under a chance collapse a measurement names a cell and a chance turn follows; chance turns are
  keyed as concrete positions (finer than a class, so nothing is merged wrongly), and the walk
  takes every outcome chance can give, as it takes every legal action.
  Under end = first-line the line end only cuts games short: every position of the ruleset that
  is not over is a position of the same ruleset with end = full, with the same legal actions and
  the same successors' shapes. The structural walk therefore runs on that ruleset (`walk_ruleset`);
  a second walk on the ruleset itself checks the end rules and final scores on one position per
  shape class it reaches (not every position: the line end depends on owners).
* `partition_key` (qttt.quantum.analysis.keys): component sizes only, the abstraction's key; measured for
  comparison. It is too coarse for the measurement checks, which need the cycle inside a component.
* Scores read owners (and, for some awards, move numbers) which `shape_key` forgets; they are
  checked on the final positions the walks reach and in sampled games, and the report says so.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import random
import struct
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qttt import Ruleset, load_ruleset, with_params
from qttt.analysis.distributed import dask_priority
from qttt.bounds import CODE, COUNT, MAX_PLY
from qttt.io import read_checkpoint, write_atomic, write_checkpoint
from qttt.notation import Record
from qttt.processes import Mapper, local_mapper, timed_call
from qttt.quantum import compiled
from qttt.quantum.analysis.count import encode as count_encode
from qttt.quantum.compiled import WALK_DETAILS
from qttt.quantum.compiled import decode as compiled_decode
from qttt.quantum.engine import PHASES, STATE, Action, Measure, Outcome, Place, State
from qttt.quantum.notation import to_notation

from .. import isolated
from ..report import Confirmed
from .abstract import CHANCE, MEASURE, OVER, PLACE, abstract_of
from .sampled import (
    CORES,
    FAILURE_IDS,
    KEPT,
    LEGAL,
    LENGTH,
    SHAPE,
    TOTAL,
    TURN,
    Context,
    Visit,
    compare_paths,
    inspect,
)
from .witness import record, replay

Key = tuple[Any, ...] | int
"""A class's key: a shape code (`shape_code`) or a tuple (a concrete position, an odd shape)."""
Path_ = tuple[int, ...]
Progress = Callable[[int, int, int], None]
"""Told (ply, positions done in this ply, positions in this ply)."""


# The shape key ----------------------------------------------------------------------------------


def _rooted(adj: dict[int, list[int]], v: int, parent: int, avoid: frozenset[int]) -> str:
    """AHU code of the tree hanging at v (away from parent and the avoided cells)."""
    kids = sorted(_rooted(adj, u, v, avoid) for u in adj[v] if u != parent and u not in avoid)
    return "(" + "".join(kids) + ")"


def _tree_code(adj: dict[int, list[int]], cells: list[int]) -> str:
    """Canonical code of an unrooted tree: the least AHU code rooted at one of its centres."""
    degree = {c: len(adj[c]) for c in cells}
    left, leaves = len(cells), [c for c in cells if degree[c] <= 1]
    removed: set[int] = set()
    while left > 2:
        nxt = []
        for leaf in leaves:
            removed.add(leaf)
            left -= 1
            for u in adj[leaf]:
                if u not in removed:
                    degree[u] -= 1
                    if degree[u] == 1:
                        nxt.append(u)
        leaves = nxt
    centres = [c for c in cells if c not in removed]
    return min(_rooted(adj, c, -1, frozenset()) for c in centres)


def _cycle_code(adj: dict[int, list[int]], cells: list[int], ends: dict[int, tuple[int, int]],
                pending: int) -> str | None:
    """Canonical code of the pending component (one cycle through the pending move, trees hanging
    from its cells): the hanging trees' codes along the cycle from one end of the pending move to
    the other, the lesser of the two directions. None when the component is not of that shape."""
    moves = [k for k, (a, _) in ends.items() if a in cells]
    if len(moves) != len(cells):
        return None
    degree = {c: len(adj[c]) for c in cells}
    core, stack = set(cells), [c for c in cells if degree[c] <= 1]
    while stack:
        c = stack.pop()
        if c not in core:
            continue
        core.discard(c)
        for u in adj[c]:
            if u in core:
                degree[u] -= 1
                if degree[u] <= 1:
                    stack.append(u)
    a, b = ends[pending]
    if a not in core or b not in core:
        return None
    core_moves = [k for k in moves if ends[k][0] in core and ends[k][1] in core]
    order, last, here = [a], pending, a
    while here != b:
        step = [k for k in core_moves if k != last and here in ends[k]]
        if len(step) != 1 or len(order) > len(core):
            return None
        last = step[0]
        u, v = ends[last]
        here = v if u == here else u
        order.append(here)
    if len(order) != len(core) or set(order) != core:
        return None
    frozen = frozenset(core)
    seq = [_rooted(adj, c, -1, frozen) for c in order]
    return min("".join(seq), "".join(reversed(seq)))


def shape_key(state: State) -> tuple[Any, ...]:
    """Phase, parity of the next move and the isomorphism class of the open cells' entanglement
    graph with the pending move marked (see the module docstring for why it is sound). A graph of
    a shape the rules never produce gets an uncanonical key (its cells as they are). A chance turn
    (rule collapse-chance) is keyed as the position itself: which cell was named matters, and a
    finer key only merges less."""
    if state.phase == "chance":
        return ("chance", state.key())
    ends = state.edges
    opens = state.open_cells
    adj: dict[int, list[int]] = {c: [] for c in opens}
    for a, b in ends.values():
        if a not in adj or b not in adj:
            return ("odd", state.phase, state.move & 1, tuple(sorted(ends.items())), opens)
        adj[a].append(b)
        adj[b].append(a)
    seen: set[int] = set()
    trees, pend = [], ""
    pending_cell = ends[state.pending][0] if state.pending is not None else -1
    for c in opens:
        if c in seen:
            continue
        comp, stack = [], [c]
        seen.add(c)
        while stack:
            v = stack.pop()
            comp.append(v)
            for u in adj[v]:
                if u not in seen:
                    seen.add(u)
                    stack.append(u)
        inner = sum(len(adj[v]) for v in comp) // 2
        if pending_cell in comp and state.pending is not None:
            code = _cycle_code(adj, comp, ends, state.pending)
            if code is None:
                return ("odd", state.phase, state.move & 1, tuple(sorted(ends.items())), opens)
            pend = code
        elif inner != len(comp) - 1:
            return ("odd", state.phase, state.move & 1, tuple(sorted(ends.items())), opens)
        else:
            trees.append(_tree_code(adj, comp))
    return (state.phase, state.move & 1, pend, tuple(sorted(trees)))


SHAPE_COVER = STATE.cover(
    "verify.quantum.exhaustive:shape_key",
    kept={"spk": "as the isomorphism class of the open cells' entanglement graph",
          "move": "its parity (the player to place)", "phase": "as is",
          "pending": "as the marked edge of its component",
          "chosen": "at a chance turn, as is: the whole position is the key there"},
    forgotten={"cls": "beyond which cells are open: under end = full no rule of legality, measurement or "
                      "end reads a classical mark's owner, number or cell (the module docstring; checked on "
                      "every class's other members, `check_members`)"})
"""How the shape key holds each declared field of the position state."""


def shape_code(key: tuple[Any, ...]) -> Key:
    """A shape key as one integer, as the compiled core computes it (`qc_shape_key`): the phase
    (2 bits), the parity (1), the size of the pending component (5), then its code and the tree
    codes as bits ('(' 0, ')' 1), left-aligned in 64 bits. An uncanonical (odd) key as it is; a
    chance turn's as CHANCE_CODE (it says no more than that: the walk keys a chance turn by the
    position itself, never by this code)."""
    if key[0] == "odd":
        return key
    if key[0] == "chance":
        return CHANCE_CODE
    phase, parity, pend, trees = key
    bits = (f"{PHASES.index(phase):02b}{parity:b}{len(pend) // 2:05b}"
            + (pend + "".join(trees)).translate(_BITS))
    return int(bits.ljust(64, "0"), 2)


_BITS = str.maketrans("()", "01")
CHANCE_CODE = (1 << 64) - 2  # qc_shape_key of a chance turn (rule collapse-chance)


def concrete_key(state: State) -> tuple[Any, ...]:
    """The position itself (marks, move numbers, phase): no merging, so a walk under this key
    visits every reachable position."""
    return state.key()


CONCRETE_COVER = STATE.cover("verify.quantum.exhaustive:concrete_key", kept={f: "as is" for f in STATE.names})
def shape_class(state: State) -> Key:
    """The walk's key under `shape`: the shape key as one integer (`shape_code`), which the compiled
    core computes too; a chance turn's key is the position itself (its code, CHANCE_CODE, names no
    class)."""
    key = shape_key(state)
    return key if key[0] == "chance" else shape_code(key)


KEYS: dict[str, Callable[[State], Key]] = {"shape": shape_class, "concrete": concrete_key}
RELABELLED = 4
"""K: how many relabelled members of each shape class the walk also checks."""


def relabel(path: Sequence[Action], cells: int, rng: random.Random) -> list[Action]:
    """Another game reaching a position of the same shape class (under end = full): the cells
    permuted at random, and between two measurements the placements that close no cycle taken in a
    random order (any order of a forest's edges builds the same forest), which changes move
    numbers and owners. Each segment's last placement (the one closing a cycle, or the forced last
    square) stays last."""
    perm = list(range(cells))
    rng.shuffle(perm)
    out: list[Action] = []
    segment: list[Action] = []

    def flush(closing: Action | None) -> None:
        rng.shuffle(segment)
        out.extend(segment)
        if closing is not None:
            out.append(closing)
        segment.clear()

    moved = [Place(perm[a.a], perm[a.b]) if isinstance(a, Place) else type(a)(perm[a.cell]) for a in path]
    for act in moved:
        if isinstance(act, Measure):
            closing = segment.pop() if segment else None
            flush(closing)
            out.append(act)
        elif isinstance(act, Outcome):  # follows its measurement at once
            out.append(act)
        else:
            segment.append(act)
    if segment:
        last = segment.pop()
        flush(last)
    if len(out) != len(moved):
        return list(moved)
    return [Place(min(a), max(a)) if isinstance(a, Place) else a for a in out]


# The walk ---------------------------------------------------------------------------------------


encode = count_encode  # an action as one integer (qttt.quantum.analysis.count.encode)
decode = compiled_decode  # the action of `encode` (qttt.quantum.compiled.decode)


def actions_of(path: Sequence[int], cells: int) -> list[Action]:
    """The actions of an encoded path."""
    return [decode(c, cells) for c in path]


def rank(path: Sequence[int], cells: int) -> tuple[int, ...]:
    """A path's place in the walk's order: action by action in the engine's order of legal actions
    (placements by cells, then measurements by cell). The first game reaching a class in this
    order is its representative, whatever the number of workers."""
    sq = cells * cells
    return tuple(c if c >= 0 else sq - c - 1 for c in path)


def shard_of(key: Key, shards: int) -> int:
    """The shard (worker) a class belongs to: a hash of its key that every process computes alike."""
    h = key if isinstance(key, int) else zlib.crc32(repr(key).encode("utf-8"))
    h = (h ^ (h >> 31)) * 0x9E3779B97F4A7C15 & (1 << 64) - 1
    return (h >> 17) % shards


OTHERS = 2
"""Other games reaching a class that the walk keeps beside its representative, in rank order (checked
as members before any relabelled one); besides them, the first game of up to OTHERS more profiles
(`profile`), so that members differ from the representative wherever the class lets them."""

Candidate = tuple[tuple[int, ...], tuple[int, int], Path_]
"""A game reaching a class: its rank, its digest (`digest`: the profile and the position it reaches),
its path."""
Shard = dict[Key, list[Candidate]]
"""Classes of one ply with the games reaching them, in rank order, the representative first (see
`offer`)."""


def profile(state: State) -> tuple[Any, ...]:
    """What a position's class lets its members differ in, and a shape invariant computed without
    the shape key: the next move's and the pending move's numbers, the classical marks per owner
    and their sum of move numbers, the open cells' degrees (with multiplicity). The walk prefers
    members whose profile differs from their representative's, so that the key's argument is
    checked on members that differ in every field it forgets (a member the key merged wrongly
    usually differs in degrees: `unlike` then names it)."""
    degree: Counter[int] = Counter()
    for a, b in state.edges.values():
        degree[a] += 1
        degree[b] += 1
    marks = [m for m in state.classical if m]
    return (state.move, state.pending if state.pending is not None else -1, len(state.open_cells),
            sum(m & 1 for m in marks), sum(marks), tuple(sorted(degree[c] for c in state.open_cells)))


def digest(state: State) -> tuple[int, int]:
    """A candidate's digest: its profile's hash and its position's (`State.key`)."""
    return hash(profile(state)), hash(state.key())


def offer(shard: Shard, key: Key, cands: Sequence[Candidate]) -> None:
    """Add games reaching class `key`, one game per position: the class keeps the first 1 + OTHERS
    in rank order and the first game of each of the first 1 + OTHERS profiles (by their first
    game's rank), in rank order (the same whatever order the games come in)."""
    have = shard.get(key)
    merged = sorted([*have, *cands]) if have else sorted(cands)
    kept: list[Candidate] = []
    positions: set[int] = set()
    profiles: set[int] = set()
    for cand in merged:
        if cand[1][1] in positions:
            continue
        positions.add(cand[1][1])
        first = cand[1][0] not in profiles and len(profiles) <= OTHERS
        if first:
            profiles.add(cand[1][0])
        if first or len(positions) <= 1 + OTHERS:
            kept.append(cand)
    shard[key] = kept


def members_of(cands: Sequence[Candidate]) -> list[Candidate]:
    """A class's other games as members, in the order they are checked: the first game of each
    profile other than the representative's, then the others, each in rank order."""
    mine = cands[0][1][0]
    seen = {mine}
    first = []
    for c in cands[1:]:
        if c[1][0] not in seen:
            seen.add(c[1][0])
            first.append(c)
    return first + [c for c in cands[1:] if c not in first]


def merge(pieces: Sequence[Shard]) -> Shard:
    """The shard made of pieces sent by several workers."""
    out: Shard = {}
    for piece in pieces:
        for key, cands in piece.items():
            offer(out, key, cands)
    return out


Failed = tuple[tuple[int, ...], str, str, Path_, Path_ | None]
"""A failure as a walk keeps it: its order (ply, rank, member, index), property, message, the path
showing it and, for two games of one class whose futures differ, the representative's path."""


@dataclass
class Summary:
    """What checking one shard found: positions and members checked, final positions, partition
    classes, how often each declared field differed between a class's members and its
    representative, the first failures per property (in walk order) and the shard's output sizes."""

    positions: int = 0
    members: int = 0
    final: int = 0
    engine: int = 0  # classes the engine checked (all of them, unless the compiled core walks)
    partitions: set[tuple[Any, ...]] = field(default_factory=set)
    varied: Counter[str] = field(default_factory=Counter)
    failures: list[Failed] = field(default_factory=list)
    key_errors: list[tuple[tuple[int, ...], str]] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    first: Path_ | None = None  # the least path of the next ply
    lost: str | None = None  # why the next ply's classes of a shard were lost (`core_process`)

    def add(self, other: Summary) -> None:
        """Fold another shard's summary in (the result does not depend on the order)."""
        self.positions += other.positions
        self.members += other.members
        self.engine += other.engine
        self.final += other.final
        self.partitions |= other.partitions
        self.varied.update(other.varied)
        self.failures = keep_first(self.failures + other.failures)
        self.key_errors = sorted(self.key_errors + other.key_errors)[:KEPT]
        self.sizes = [a + b for a, b in itertools.zip_longest(self.sizes, other.sizes, fillvalue=0)]
        if other.first is not None and (self.first is None or other.first < self.first):
            self.first = other.first
        self.lost = min(filter(None, (self.lost, other.lost)), default=None)


def keep_first(failures: Sequence[Failed]) -> list[Failed]:
    """The first KEPT failures of each property in walk order."""
    out: list[Failed] = []
    count: Counter[str] = Counter()
    for f in sorted(failures):
        if count[f[1]] < KEPT:
            count[f[1]] += 1
            out.append(f)
    return out


@dataclass(frozen=True)
class Spec:
    """What a worker needs to check a shard: the ruleset as loaded (`load`, a name or file, and
    `params`), the key, the ply bound, K, whether the compiled core is compared, and who walks:
    the engine (`python`: the engine checks every class) or the compiled core (`core`: the core
    expands the classes and checks every one in C, `core_process`; the engine checks the classes up
    to ply `engine_ply`, those whose key hashes to 0 modulo `engine_every`, and with `finals` every
    finished one)."""

    load: str
    params: tuple[tuple[str, Any], ...] = ()
    key: str = "shape"
    bound: int | None = None
    members: int = 0
    cores: bool = True
    walker: str = "python"
    engine_ply: int = -1
    engine_every: int = 0
    finals: bool = False

    def ruleset(self) -> Ruleset:
        """The ruleset (made once per process)."""
        return _ruleset(self.load, self.params)

    def context(self) -> Context:
        """The position checks' context (made once per process)."""
        return _context(self.load, self.params, self.bound, self.cores)


@functools.cache
def _ruleset(load: str, params: tuple[tuple[str, Any], ...]) -> Ruleset:
    rs = load_ruleset(load)
    return with_params(rs, **dict(params)) if params else rs


@functools.cache
def _context(load: str, params: tuple[tuple[str, Any], ...], bound: int | None, cores: bool) -> Context:
    return Context.of(_ruleset(load, params), bound, cores)


def process(spec: Spec, ply: int, pieces: Sequence[Shard], shards: int) -> tuple[list[Shard], Summary]:
    """One unit of a walk's work: merge the pieces of a shard of ply `ply`, check each class's
    representative and members in rank order, and split the next ply's classes into `shards`
    pieces by key (`shard_of`)."""
    ctx = spec.context()
    frontier = merge(pieces)
    out: list[Shard] = [{} for _ in range(shards)]
    summary = Summary(positions=len(frontier))
    visits: list[Visit] = []  # for the registered paths (verify.paths), compared after the shard
    for key, cands in sorted(frontier.items(), key=lambda kv: kv[1][0][0]):
        check_class(ctx, spec, ply, key, cands, out, summary, visits)
    compared(ctx, ply, visits, summary)
    summary.failures = keep_first(summary.failures)
    summary.key_errors = sorted(summary.key_errors)[:KEPT]
    summary.engine = summary.positions
    summary.sizes = [len(p) for p in out]
    firsts = [c[0] for p in out for c in p.values()]
    summary.first = min(firsts)[2] if firsts else None
    return out, summary


CORE_PLY_TIMEOUT = 3600.0
"""Seconds one shard of the compiled core's walk may run (in a child process) before it counts as hung."""


def core_process(spec: Spec, ply: int, pieces: Sequence[bytes], shards: int) -> tuple[list[bytes], Summary]:
    """`process` with the compiled core walking (`Spec.walker` = core): the core merges the pieces,
    checks every class's representative and members in C (`Core.walk_ply`, in a child process:
    `verify.isolated.run`) and splits the next ply's classes; the engine then checks the
    representatives picked for it with every check of `inspect`, the registered paths compared. A
    failure the C checks find counts only once the engine replays its game and sees it (under its
    own property, or as the two cores disagreeing there). Where the core's walk crashes or hangs,
    the engine checks the shard's classes instead (`process`: a path that crashes at a position is
    a violation with its game there) and the walk stops incomplete after this ply (`Summary.lost`)."""
    ctx = spec.context()
    rs = ctx.rs
    cells = rs.board * rs.board
    sq = cells * cells
    got = isolated.run(_core_walk, [(spec, ply, tuple(pieces), shards)], timeout=CORE_PLY_TIMEOUT, most=1)[0]
    if not isinstance(got, compiled.WalkPly):
        why = got.why if isinstance(got, isolated.Crashed) else str(got)
        _, summary = process(spec, ply, [as_shard(rs, spec.key, pieces, ply)], shards)
        summary.lost = f"the compiled core's walk of ply {ply} {why}: the engine checked its classes instead"
        summary.sizes = [0] * shards
        return [b""] * shards, summary
    done = got

    def py(codes: Sequence[int]) -> Path_:
        return tuple(c if c < sq else sq - c - 1 for c in codes)
    summary = Summary(positions=done.classes, members=done.members, final=done.finals,
                      varied=Counter(done.varied), partitions={("core", a) for a in done.abstract})
    for i, f in enumerate(done.failures):
        shown = py(f.path) + (py((f.probe,)) if f.probe is not None else ())
        order = (ply, *f.rep, f.member, i)
        message = f"the compiled core, checked in C: {f.detail}"
        reference = py(f.rep) if f.detail in FUTURE_DETAILS else None
        summary.failures.append((order, f.prop, message, shown, reference))
        if reference is None:  # the engine and the core compared at that position
            summary.failures.append((order, CORES, message, shown, None))
    visits: list[Visit] = []
    for codes in done.picked:
        acts = actions_of(py(codes), cells)
        state = replay(rs, acts)
        if state is None:
            summary.failures.append(((ply, *codes, 0, 0), CORES, "the engine refuses a game the compiled "
                                     "core walked", py(codes), None))
            continue
        found, _ = inspect(ctx, state, acts, simulate=True, visits=visits)
        summary.engine += 1
        for i, (prop, message, probe) in enumerate(found):
            shown = py(codes) + ((encode(probe, cells),) if probe is not None else ())
            summary.failures.append(((ply, *codes, 0, 100 + i), prop, message, shown, None))
    compared(ctx, ply, visits, summary)
    summary.failures = keep_first(summary.failures)
    summary.sizes = [len(p) for p in done.pieces]
    return list(done.pieces), summary


def _core_walk(items: Sequence[tuple[Spec, int, tuple[bytes, ...], int]], mark: isolated.Mark
               ) -> list[compiled.WalkPly]:
    """The compiled core's walk of one shard (`core_process`), in the child `isolated.run` made."""
    spec, ply, pieces, shards = items[0]
    mark(0)
    core = compiled.core_for(spec.ruleset())
    return [core.walk_ply(ply, pieces, spec.members, spec.bound, shards, spec.engine_ply, spec.engine_every,
                          spec.finals)]


def as_shard(rs: Ruleset, key: str, pieces: Sequence[bytes], ply: int) -> Shard:
    """The compiled core's classes (dumps of ply `ply`) as the engine's walk holds them, each game
    replayed by the engine (a game it refuses is left out: the engine's checks of the classes
    before it say why)."""
    cells = rs.board * rs.board
    sq = cells * cells
    shard: Shard = {}
    for blob in pieces:
        for _, at, _ in core_classes(blob, ply):
            n = blob[at + 8]
            for g in range(n):
                start = at + 9 + g * (8 + 2 * ply) + 8
                codes = struct.unpack_from(f"<{ply}H", blob, start)
                path = tuple(c if c < sq else sq - c - 1 for c in codes)
                state = replay(rs, actions_of(path, cells))
                if state is not None:
                    offer(shard, KEYS[key](state), [(rank(path, cells), digest(state), path)])
    return shard


PATHS_AT = 999
"""Where the registered paths' failures at a position come in a failure's order (after its own)."""


def compared(ctx: Context, ply: int, visits: Sequence[Visit], summary: Summary) -> None:
    """The failures of the registered paths (`compare_paths`, each in a child process) at the
    positions a shard visited, in walk order by the game that shows each."""
    cells = ctx.rs.board * ctx.rs.board
    for j, (at, (prop, message, probe)) in enumerate(compare_paths(ctx, visits)):
        shown = tuple(encode(a, cells) for a in ((*at, probe) if probe is not None else at))
        summary.failures.append(((ply, *rank(shown, cells), PATHS_AT, j), prop, message, shown, None))


FUTURE_DETAILS = frozenset(WALK_DETAILS[21:25])
"""The C walk's failures of a member whose future differs from its representative's."""


def _children(spec: Spec, kids: Sequence[tuple[Action, State]]) -> list[tuple[Action, State, Key | None]]:
    """The children with their keys (None where the key raises)."""
    return [(a, c, class_of(spec.key, c)) for a, c in kids]


def check_class(ctx: Context, spec: Spec, ply: int, key: Key, cands: Sequence[Candidate], out: list[Shard],
                summary: Summary, visits: list[Visit] | None = None) -> None:
    """Check a class's representative (and members), offer its children to their shards; the
    positions checked join `visits`."""
    order, _, path = cands[0]
    rs = ctx.rs
    cells = rs.board * rs.board
    acts = actions_of(path, cells)
    state = replay(rs, acts)
    assert state is not None, "a walked path replays"
    found, kids = inspect(ctx, state, acts, simulate=True, visits=visits)
    for i, (prop, message, probe) in enumerate(found):
        shown = path + ((encode(probe, cells),) if probe is not None else ())
        summary.failures.append(((ply, *order, 0, i), prop, message, shown, None))
    with contextlib.suppress(Exception):  # inspect reported it
        summary.partitions.add(tuple(abstract_of(state).__dict__.values()))
    summary.final += state.over
    keyed = []
    for act, child, k in _children(spec, kids):
        if k is None:
            summary.failures.append(((ply, *order, 0, len(found)), SHAPE,
                                     f"the engine's graph after {act} has no key", path, None))
        else:
            keyed.append((act, child, k))
    for act, child, k in keyed:
        code = encode(act, cells)
        nxt = (*order, rank((code,), cells)[0])
        offer(out[shard_of(k, len(out))], k, [(nxt, digest(child), (*path, code))])
    if spec.members and path:
        mine = future(state, [(c, k) for _, c, k in keyed])
        others = [actions_of(c[2], cells) for c in members_of(cands)]
        check_members(ctx, spec, (ply, *order), state, acts, mine, others, summary, visits)


def class_of(kind: str, state: State) -> Key | None:
    """The Python key of a position (None where it raises)."""
    try:
        return KEYS[kind](state)
    except Exception:
        return None


def future(state: State, kids: Sequence[tuple[State, Key]]) -> tuple[Any, ...]:
    """What the shape key's argument says one class shares: phase, whether over, who acts, and the
    classes of the positions after each legal action (as a multiset; each child with its key). A
    chance turn, which the walk keys by its position, counts as its outcomes' classes with their
    probabilities (rule collapse-chance)."""
    def cls(child: State, key: Key) -> Key:
        if isinstance(key, tuple) and key[0] == "chance":
            return ("chance", tuple(sorted((str(p), repr(shape_class(child.apply(o))))
                                           for o, p in child.chance_outcomes())))
        return key
    return (state.phase, state.over, state.to_move, tuple(sorted((cls(c, k) for c, k in kids), key=repr)))


def member_future(state: State, kids: Sequence[tuple[Action, State]]
                  ) -> tuple[tuple[Any, ...], dict[Action, Key]]:
    """A member's future (as `future`) and each child's key."""
    keys = {a: KEYS["shape"](c) for a, c in kids}
    return future(state, [(c, keys[a]) for a, c in kids]), keys


def differs(mine: tuple[Any, ...], theirs: tuple[Any, ...]) -> tuple[str, str]:
    """The property a member whose future differs from its representative's fails, and how."""
    names = ("phase", "over", "player to act")
    for i, name in enumerate(names):
        if mine[i] != theirs[i]:
            return (TURN if i == 2 else LENGTH), f"{name} {mine[i]}, the representative's {theirs[i]}"
    if len(mine[3]) != len(theirs[3]):
        return LEGAL, f"{len(mine[3])} legal actions, the representative {len(theirs[3])}"
    return (TOTAL if mine[0] == "measure" else SHAPE), "the positions after its actions fall into other " \
                                                       "classes"


def check_members(ctx: Context, spec: Spec, order: tuple[int, ...], state: State, acts: Sequence[Action],
                  mine: tuple[Any, ...], others: Sequence[Sequence[Action]], summary: Summary,
                  visits: list[Visit] | None = None) -> None:
    """Check up to K members of state's shape class: first the other games the walk found reaching
    it, then relabelled games (`relabel`, seeded by the path). Each member is checked as any
    position is, its declared fields are compared with the representative's (`varied` counts how
    often each differs) and its future must be the representative's (`future`): the shape key's
    argument, checked rather than assumed."""
    cells = len(state.classical)
    want = shape_key(state)
    rng = random.Random(hash(tuple(encode(a, cells) for a in acts)) & 0xFFFFFFFF)
    seen = {state.key()}
    fields = state.fields()
    path = tuple(encode(a, cells) for a in acts)
    tries = [list(o) for o in others] + [None] * (3 * spec.members)
    checked = 0
    for other in tries:
        if checked == spec.members:
            break
        member_acts = other if other is not None else relabel(acts, cells, rng)
        member = replay(ctx.rs, member_acts)
        if member is None or member.key() in seen or shape_key(member) != want:
            continue
        seen.add(member.key())
        checked += 1
        if other is not None and (why := unlike(state, member)) is not None:
            summary.key_errors.append(((*order, checked), f"{notation(ctx.rs, member_acts)} and "
                                       f"{notation(ctx.rs, acts)}: {why}"))
        found, kids = inspect(ctx, member, member_acts, visits=visits)
        shown_path = tuple(encode(a, cells) for a in member_acts)
        for i, (prop, message, probe) in enumerate(found):
            shown = (*shown_path, encode(probe, cells)) if probe is not None else shown_path
            summary.failures.append(((*order, checked, i), prop, message, shown, None))
        summary.varied.update(f for f, v in member.fields().items() if v != fields[f])
        theirs, keys = member_future(member, kids)
        if theirs != mine:
            prop, how = differs(theirs, mine)
            left = Counter(map(repr, mine[3]))
            for act, k in keys.items():
                left[repr(k)] -= 1
                if left[repr(k)] < 0:
                    how += f" (after {act})"
                    break
            summary.failures.append(((*order, checked, len(found)), prop,
                                     f"a position of the same shape class as the representative reached by "
                                     f"{notation(ctx.rs, acts)}: {how}", shown_path, path))
    summary.members += checked


def notation(rs: Ruleset, acts: Sequence[Action]) -> str:
    """A game in human notation (squares from 1), for messages."""
    return to_notation(Record(rs.canonical, tuple(acts)))


@dataclass
class Walk:
    """What a walk visited and found: positions per ply under its key, the partition classes met,
    how many members of each class were asked for and how many were checked, how often each
    declared field of the position state differed between a member and its representative, the
    first few failures per property (message, actions reaching it, and for two games of one class
    whose futures differ the representative's actions) and merges of positions the walk's key
    should not have merged (the checker's own error)."""

    ruleset: str
    key: str = "shape"
    positions_by_ply: list[int] = field(default_factory=list)
    partition_classes: int = 0
    final_positions: int = 0
    complete: bool = False
    max_ply: int | None = None
    seconds: float = 0.0
    relabelled: int = 0
    members: int = 0
    workers: int = 1
    walker: str = "python"  # who walked: the engine, or the compiled core (`Spec`)
    engine_checked: int = 0  # classes the engine checked
    members_by_ply: list[int] = field(default_factory=list)
    engine_by_ply: list[int] = field(default_factory=list)
    engine_ply: int = -1  # with the compiled core walking: the engine checked every class to this ply,
    engine_every: int = 0  # and the classes whose key hashes to 0 modulo this
    published: str | None = None  # the file a published walk was read from (`verify.quantum.published`)
    resumed_at: int | None = None  # the ply a checkpoint resumed it at: plies before it were read, not walked
    varied: dict[str, int] = field(default_factory=dict)
    failures: dict[str, list[tuple[str, tuple[Action, ...], tuple[Action, ...] | None]]] = \
        field(default_factory=dict)
    key_errors: list[str] = field(default_factory=list)
    lost: str | None = None  # why the walk stopped before its end (`Summary.lost`)

    @property
    def positions(self) -> int:
        """Positions checked (one per key per ply)."""
        return sum(self.positions_by_ply)

    def fail(self, prop: str, message: str, actions: Sequence[Action],
             reference: Sequence[Action] | None = None) -> None:
        """Keep the first few failures of a property (a witness must still replay: `confirm`)."""
        kept = self.failures.setdefault(prop, [])
        if len(kept) < KEPT:
            kept.append((message, tuple(actions), tuple(reference) if reference is not None else None))


def walk(rs: Ruleset, *, max_ply: int | None = None, bound: int | None = None, processes: int = 1,
         mapper: Mapper | None = None, workers: int | None = None, checkpoint: str | Path | None = None,
         progress: Progress | None = None, load: str | None = None, params: dict[str, Any] | None = None,
         key: str = "shape", budget: int | None = None, members: int = 0, cores: bool = True,
         walker: str = "python", engine_ply: int = -1, engine_every: int = 0, finals: bool = False) -> Walk:
    """Walk every position of rs up to max_ply (all if None), ply by ply, merged by `key` (a name
    in KEYS), stopping unfinished once more than `budget` positions are checked.

    Each ply's classes are split by key into one shard per worker (`shard_of`): a worker checks
    its shard's classes and sends each child class to the shard that owns it. `mapper` runs the
    shards (`qttt.processes.Mapper`: local processes, or a Dask cluster, whose mapper's `client`
    keeps the shards on the cluster between plies), `workers` of them (default: `processes`, whose
    local pool is made here when no mapper is given). Workers rebuild the ruleset from `load` (a name
    or file, default its canonical name) and `params`. The result does not depend on the number of
    workers: representatives are the first games in rank order (`rank`), failures are kept in walk
    order. `checkpoint` names a file saved after each ply and resumed from (by any number of
    workers); `bound` is the ply bound the walk checks (a ply past it is checked, then the walk
    stops); `members` members of each class are checked too (`check_members`); `cores` compares the
    compiled core wherever it plays rs; `walker`, `engine_ply`, `engine_every` and `finals` say who
    walks (`Spec`)."""
    start = time.perf_counter()
    shards = max(1, workers or processes)
    out = Walk(rs.canonical, key=key, max_ply=max_ply, relabelled=members, workers=shards, walker=walker,
               engine_ply=engine_ply, engine_every=engine_every)
    spec = Spec(load or rs.canonical, tuple(sorted((params or {}).items())), key, bound, members, cores,
                walker, engine_ply, engine_every, finals)
    first = State.initial(rs)
    ply = 0
    partitions: set[tuple[Any, ...]] = set()
    varied: Counter[str] = Counter()
    failures: list[Failed] = []
    if checkpoint is not None and Path(checkpoint).is_file():
        ply, frontier, partitions, varied, failures = _resume(out, Path(checkpoint), spec)
        out.resumed_at = ply
    else:
        frontier = ({KEYS[key](first): [((), digest(first), ())]} if walker == "python"
                    else [struct.pack("<QBQ", KEYS[key](first), 1, 0)])
    own_pool = None
    if mapper is None and shards > 1:
        mapper, own_pool = local_mapper(shards)
    run = Plies(mapper, spec, shards)
    pieces = split_pieces(frontier, run.shards_for(len(frontier)), ply)
    remaining = True
    interrupted = True
    try:
        while remaining:
            summary = run.ply(ply, pieces, progress)
            out.positions_by_ply.append(summary.positions)
            partitions |= summary.partitions
            varied.update(summary.varied)
            failures = keep_first(failures + summary.failures)
            out.final_positions += summary.final
            out.members += summary.members
            out.engine_checked += summary.engine
            out.members_by_ply.append(summary.members)
            out.engine_by_ply.append(summary.engine)
            out.key_errors += [why for _, why in summary.key_errors][:KEPT - len(out.key_errors)]
            past = bound is not None and ply > bound  # its positions failed the bound: no further
            ply += 1
            remaining = sum(summary.sizes) > 0 or summary.lost is not None
            out.lost = out.lost or summary.lost
            pieces = run.next_pieces()
            if checkpoint is not None and remaining and not past and not out.lost:  # none when finished
                _save(Path(checkpoint), out, ply, run.frontier(), partitions, varied, failures)
            if past or out.lost or (max_ply is not None and ply > max_ply) or (budget is not None
                                                                               and out.positions > budget):
                break
        interrupted = False
    finally:
        run.close()
        if own_pool is not None:
            own_pool(interrupted)
    out.complete = not remaining
    out.partition_classes = len(partitions)
    out.varied = {f: varied.get(f, 0) for f in STATE.names}
    cells = rs.board * rs.board
    for _, prop, message, shown, reference in failures:
        acts = actions_of(shown, cells)
        if reference is not None:
            ref = actions_of(reference, cells)
            why = not_isomorphic(rs, acts, ref)
            if why is not None:
                out.key_errors.append(f"{notation(rs, acts)} and {notation(rs, ref)}: {why}")
                continue
            out.fail(prop, message, acts, ref)
        else:
            out.fail(prop, message, acts)
    out.seconds = time.perf_counter() - start
    return out


def split_pieces(frontier: Shard | list[bytes], shards: int, ply: int) -> list[list[Any]]:
    """A whole frontier of ply `ply` as each shard's list of pieces: a Python shard split by key,
    or the compiled core's dumps split class by class (`qc_walk_dump`'s layout: key, number of
    games, then each game's digest and codes)."""
    if isinstance(frontier, dict):
        return [[p] for p in split(frontier, shards)]
    out = [bytearray() for _ in range(shards)]
    for blob in frontier:
        for key, at, size in core_classes(blob, ply):
            out[shard_of(key, shards)] += blob[at:at + size]
    return [[bytes(b)] for b in out]


def core_classes(blob: bytes, ply: int) -> Iterator[tuple[int, int, int]]:
    """The classes in a dump of the compiled core's walk at ply `ply`: key, offset and size of
    each, or ValueError where the dump is cut."""
    at = 0
    while at < len(blob):
        if at + 9 > len(blob):
            raise ValueError("the walk's saved classes are cut")
        key, n = struct.unpack_from("<QB", blob, at)
        size = 9 + n * (8 + 2 * ply)
        if not 1 <= n <= 1 + OTHERS or at + size > len(blob):
            raise ValueError("the walk's saved classes are cut")
        yield key, at, size
        at += size


def split(frontier: Shard, shards: int) -> list[Shard]:
    """A frontier as one piece per shard."""
    out: list[Shard] = [{} for _ in range(shards)]
    for key, cands in frontier.items():
        out[shard_of(key, shards)][key] = cands
    return out


Timed = tuple[tuple[list[Shard], Summary], float]
"""A shard's work on a cluster (`timed_call`): its pieces for the next ply and its summary, and its
CPU seconds."""


def _piece(result: Timed, i: int) -> Shard:
    return result[0][0][i]


def _summary(result: Timed) -> tuple[Summary, float]:
    return result[0][1], result[1]


WALK_UNIT = 50
"""Classes per shard the engine's walk aims at: a ply of fewer classes than WALK_UNIT times the
shards asked for is split into fewer shards (each shard's positions are compared with every
registered path in child processes of their own, so small plies in many shards cost forks, not
speed). The walk finds the same whatever the number of shards."""


class Plies:
    """Runs a walk's plies: each shard's `process` on the mapper (inline without one); on a Dask
    cluster (a mapper with a `client`, a `Stopwatch` over one too) the shards stay on the cluster as
    futures, each worker's pieces going to the next ply's tasks through the scheduler, and only
    summaries come back (and their CPU seconds, told to the mapper's `add` where it has one). The
    engine's walk splits a ply into up to `most` shards, one per WALK_UNIT classes of the ply before
    (`shards_for`); the compiled core's, into `most`."""

    def __init__(self, mapper: Mapper | None, spec: Spec, most: int) -> None:
        self.mapper, self.spec, self.most = mapper, spec, most
        self.client = getattr(mapper, "client", None)
        self.results: list[Any] = []
        self.first: Path_ | None = None
        self.sizes: list[int] = []
        self.out = most  # shards of the next ply

    def shards_for(self, classes: int) -> int:
        """The shards for a ply after one of `classes` classes."""
        if self.spec.walker != "python":
            return self.most
        return max(1, min(self.most, -(-classes // WALK_UNIT)))

    def ply(self, ply: int, pieces: list[Any], progress: Progress | None) -> Summary:
        """Check the shards of one ply given each shard's pieces (a list per shard: `pieces[j]`
        is shard j's piece from each worker of the ply before, or a merged shard)."""
        inputs = pieces
        work = core_process if self.spec.walker == "core" else process
        total = Summary()
        self.out = self.shards_for(sum(self.sizes) if self.sizes else 1)
        if self.client is not None:
            priority = dask_priority()
            self.results = [self.client.submit(timed_call, work, (self.spec, ply, shard, self.out),
                                               pure=False, priority=priority) for shard in inputs]
            timed = self.client.gather([self.client.submit(_summary, r, pure=False, priority=priority)
                                        for r in self.results])
            summaries = [s for s, _ in timed]
            if (add := getattr(self.mapper, "add", None)) is not None:  # a Stopwatch's count
                add(sum(seconds for _, seconds in timed))
        else:
            args = [(self.spec, ply, shard, self.out) for shard in inputs]
            if self.mapper is not None and len(args) > 1:
                results = list(self.mapper(work, args))
            else:
                results = [work(*a) for a in args]
            self.results = results
            summaries = [r[1] for r in results]
        done = 0
        for s in summaries:
            done += s.positions
            total.add(s)
            if progress:
                progress(ply, done, sum(x.positions for x in summaries))
        self.first, self.sizes = total.first, total.sizes
        return total

    def next_pieces(self) -> list[list[Any]]:
        """The next ply's input: per shard, the pieces every worker sent it (futures on Dask)."""
        if self.client is not None:
            return [[self.client.submit(_piece, r, j, pure=False) for r in self.results]
                    for j in range(self.out)]
        return [[r[0][j] for r in self.results] for j in range(self.out)]

    def frontier(self) -> list[Any]:
        """The next ply's every piece, here (for a checkpoint)."""
        if self.client is not None:
            found: list[Any] = self.client.gather([self.client.submit(_piece, r, j, pure=False)
                                                   for r in self.results for j in range(self.out)])
            return found
        return [r[0][j] for r in self.results for j in range(self.out)]

    def close(self) -> None:
        """Forget the cluster's results."""
        self.results = []


def classes_file(path: Path) -> Path:
    """Where a checkpoint of the compiled core's walk keeps its classes (bytes, `qc_walk_dump`)."""
    return path.with_name(path.name + ".classes")


def _save(path: Path, out: Walk, ply: int, frontier: list[Any], partitions: set[tuple[Any, ...]],
          varied: Counter[str], failures: Sequence[Failed]) -> None:
    """The walk as it stands after `ply` plies, bound to its ruleset, key, walker and ply
    (`_resume`). The compiled core's classes go to `classes_file` first, named by their digest in
    the checkpoint written after them, so a checkpoint never names classes not yet on disk."""
    data: dict[str, Any] = {
        "ruleset": out.ruleset, "key": out.key, "walker": out.walker, "ply": ply,
        "positions_by_ply": out.positions_by_ply, "final_positions": out.final_positions,
        "members": out.members, "engine_checked": out.engine_checked, "varied": dict(varied),
        "members_by_ply": out.members_by_ply, "engine_by_ply": out.engine_by_ply,
        "partitions": [list(p) for p in sorted(partitions, key=repr)],
        "failures": [[list(order), prop, message, list(shown), list(ref) if ref is not None else None]
                     for order, prop, message, shown, ref in failures]}
    if out.walker == "python":
        classes = merge(frontier)
        data["frontier"] = [[list(c[2]) for c in cands] for cands in
                            sorted(classes.values(), key=lambda cands: cands[0][0])]
        data["classes"] = None
    else:
        blob = b"".join(frontier)
        write_atomic(classes_file(path), blob)
        data["frontier"] = []
        data["classes"] = {"bytes": len(blob), "sha256": hashlib.sha256(blob).hexdigest()}
    write_checkpoint(path, data)


CHECKPOINT = {"ruleset": str, "key": str, "walker": str, "ply": MAX_PLY, "positions_by_ply": [COUNT],
              "final_positions": COUNT, "members": COUNT, "engine_checked": COUNT, "varied": object,
              "members_by_ply": [COUNT], "engine_by_ply": [COUNT],
              "partitions": [object], "frontier": [[[CODE]]], "classes": object,
              "failures": [([CODE], str, str, [CODE], object)]}


Resumed = tuple[int, Shard | list[bytes], set[tuple[Any, ...]], Counter[str], list[Failed]]


def _resume(out: Walk, path: Path, spec: Spec) -> Resumed:
    """The ply, frontier, partition classes, field counts and failures saved in a checkpoint of the
    same ruleset, key and walker, checked against its schema and the ruleset: every game saved by
    the engine's walk is replayed here (so a checkpoint from another engine cannot mislead), must
    lie exactly `ply` actions from the start, and the games saved for one class must reach that
    class; the compiled core's classes must be the bytes the checkpoint names (their digest), and
    the core replays each game to its class before walking it."""
    rs = spec.ruleset()

    def parse(data: dict[str, Any]) -> tuple[Resumed, list[int], int, int, int]:
        if (data["ruleset"], data["key"], data["walker"]) != (out.ruleset, out.key, out.walker):
            raise ValueError(f"it is for {data['ruleset']!r} (key {data['key']}, walked by "
                             f"{data['walker']}), not {out.ruleset!r} (key {out.key}, walked by "
                             f"{out.walker})")
        ply = data["ply"]
        counted = {len(data[k]) for k in ("positions_by_ply", "members_by_ply", "engine_by_ply")}
        if not ply or counted != {ply}:
            raise ValueError(f"ply {ply} with {len(data['positions_by_ply'])} plies counted")
        frontier: Shard | list[bytes]
        if out.walker == "python":
            frontier = _frontier(rs, out.key, data["frontier"], ply)
        else:
            frontier = [_classes(path, data["classes"], ply)]
        varied = data["varied"]
        if not isinstance(varied, dict) or not all(f in STATE.names and isinstance(n, int) and n >= 0
                                                   for f, n in varied.items()):
            raise ValueError("varied: expected a count per declared field")
        parts = {_partition(p, rs.board * rs.board) for p in data["partitions"]}
        counts = data["final_positions"], data["members"], data["engine_checked"]
        classes = (len(frontier) if isinstance(frontier, dict)
                   else sum(1 for blob in frontier for _ in core_classes(blob, ply)))
        _possible(rs, data["positions_by_ply"], counts[0], classes, len(parts))
        out.members_by_ply, out.engine_by_ply = list(data["members_by_ply"]), list(data["engine_by_ply"])
        return ((ply, frontier, parts, Counter(varied), _failures(data["failures"])),
                list(data["positions_by_ply"]), *counts)

    resumed, positions, final, members, engine = read_checkpoint(path, CHECKPOINT, parse)
    out.positions_by_ply, out.final_positions = positions, final
    out.members, out.engine_checked = members, engine
    return resumed


def _frontier(rs: Ruleset, key: str, saved: list[list[list[int]]], ply: int) -> Shard:
    """The engine walk's saved classes, each game replayed to its class."""
    if not saved:
        raise ValueError("no class to walk")
    cells = rs.board * rs.board
    frontier: Shard = {}
    for games in saved:
        if not 1 <= len(games) <= 2 + 2 * OTHERS:
            raise ValueError(f"a class saved with {len(games)} games")
        keys = set()
        found: list[tuple[Key, Candidate]] = []
        for p in games:
            if len(p) != ply:
                raise ValueError(f"a saved position {len(p)} actions from the start, not {ply}")
            state = State.initial(rs)
            for code in p:
                state = state.apply(decode(code, cells))
            keys.add(k := KEYS[key](state))
            found.append((k, (rank(p, cells), digest(state), tuple(p))))
        if len(keys) != 1:
            raise ValueError("the games saved for one class reach different classes")
        if found[0][0] in frontier:
            raise ValueError(f"two saved classes are one class ({key} key): {games[0]}")
        offer(frontier, found[0][0], [c for _, c in found])
    return frontier


def _failures(saved: list[Any]) -> list[Failed]:
    """Saved failures, each of a property of the checker."""
    out: list[Failed] = []
    for order, prop, message, shown, ref in saved:
        if prop not in FAILURE_IDS:
            raise ValueError(f"a failure of {prop[:40]!r}, which is no property of the checker")
        if ref is not None and not (isinstance(ref, list) and all(isinstance(c, int) for c in ref)):
            raise ValueError("a failure's representative is not a list of actions")
        out.append((tuple(order), prop, message, tuple(shown), tuple(ref) if ref is not None else None))
    return out


def _classes(path: Path, named: Any, ply: int) -> bytes:
    """The compiled core's classes a checkpoint names: `classes_file`'s bytes, of the size and
    digest it gives, whole classes of games `ply` actions long."""
    if not isinstance(named, dict) or set(named) != {"bytes", "sha256"}:
        raise ValueError("classes: expected the size and digest of the saved classes")
    where = classes_file(path)
    try:
        blob = where.read_bytes()
    except OSError as e:
        raise ValueError(f"{where.name} cannot be read ({e.strerror})") from None
    if len(blob) != named["bytes"] or hashlib.sha256(blob).hexdigest() != named["sha256"]:
        raise ValueError(f"{where.name} is not the classes it names: cut or changed since it was written")
    if not blob:
        raise ValueError("no class to walk")
    split_pieces([blob], 1, ply)  # whole classes, or ValueError
    return blob


def resumable(rs: Ruleset, path: Path, key: str = "shape", walker: str = "python") -> None:
    """Read the checkpoint `walk(rs, checkpoint=path, key=key, walker=walker)` would resume from,
    and nothing else: FileError (`damaged`) at once when it cannot be resumed, so that a command
    names a damaged checkpoint before its other work."""
    _resume(Walk(rs.canonical, key=key, walker=walker), path, Spec(rs.canonical, key=key, walker=walker))


def _partition(saved: Any, cells: int) -> tuple[Any, ...]:
    """A saved partition class (`abstract_of`'s fields: phase, the sizes of the open components,
    the pending component's size; or the compiled core's code of one, `("core", n)`), or
    ValueError when it is none."""
    if isinstance(saved, list) and len(saved) == 2 and saved[0] == "core" and type(saved[1]) is int \
            and saved[1] >= 0:
        return "core", saved[1]
    phase, parts, pending = saved if isinstance(saved, list) and len(saved) == 3 else (None, None, None)
    if (phase not in (PLACE, MEASURE, OVER, CHANCE) or not isinstance(parts, list)
            or not all(type(k) is int and k >= 1 for k in parts)
            or type(pending) is not int or pending < 0 or sum(parts) + pending > cells):
        raise ValueError(f"a partition class no position of a {cells}-cell board has: {str(saved)[:60]}")
    return phase, tuple(parts), pending


def _possible(rs: Ruleset, positions: list[int], final: int, frontier: int, partitions: int) -> None:
    """ValueError unless a walk checkpoint's counts are ones a walk can reach (the digest is only
    a checksum against accidents): one start, each ply's positions between one and the previous
    ply's times the most actions a position can have (the frontier, the next ply, included), final
    positions among those after the start, partition classes at most the positions walked."""
    cells = rs.board * rs.board
    widest = max(cells * (cells - 1) // 2, cells)  # a placement's two cells (place-distinct), or a cell
    if positions[0] != 1:
        raise ValueError("a walk starts from one position (positions_by_ply[0] is 1)")
    for k, (before, now) in enumerate(itertools.pairwise([*positions, frontier]), start=1):
        if not 1 <= now <= before * widest:
            raise ValueError(f"ply {k}: {now:,} positions cannot follow {before:,} (at most {widest} "
                             "actions each)")
    if final > sum(positions[1:]):
        raise ValueError(f"{final:,} final positions among the {sum(positions[1:]):,} after the start")
    if partitions > sum(positions):
        raise ValueError(f"{partitions:,} partition classes among {sum(positions):,} positions walked")


def walk_ruleset(rs: Ruleset) -> Ruleset:
    """The ruleset the structural walk runs on: rs itself, or rs with end = full when a line ends
    its games (see the module docstring)."""
    return with_params(rs, end="full") if rs.rules.end == "first-line" else rs


# Two games of one class ------------------------------------------------------------------------


def confirm_class(ctx: Context, variant: str, prop: str, member: Sequence[Action],
                  reference: Sequence[Action]) -> Confirmed | None:
    """A member's game as a witness of prop: both games replayed from the start under ctx's
    ruleset (the real rules), in one shape class, and the engine's futures of the two (`future`,
    with the Python key) differ as prop says (`differs`)."""
    a, b = replay(ctx.rs, member), replay(ctx.rs, reference)
    if a is None or b is None or shape_key(a) != shape_key(b):
        return None
    keyer = KEYS["shape"]
    mine = future(a, [(c, keyer(c)) for c in map(a.apply, a.legal_actions())])
    theirs = future(b, [(c, keyer(c)) for c in map(b.apply, b.legal_actions())])
    if mine == theirs or differs(mine, theirs)[0] != prop:
        return None
    return Confirmed(record(variant, member),
                     f"the same shape class as the game {notation(ctx.rs, reference)}, whose future the "
                     f"rules make the same: {differs(mine, theirs)[1]}")


def not_isomorphic(rs: Ruleset, one: Sequence[Action], two: Sequence[Action]) -> str | None:
    """Why the positions two games reach are not one shape class (phase, parity of the next move,
    or the open cells' graphs with the pending move marked, by a search for an isomorphism that
    shares nothing with `shape_key`), or None when they are: then positions the key merged really
    are alike, and a difference in their futures is the engine's."""
    a, b = replay(walk_ruleset(rs), one), replay(walk_ruleset(rs), two)
    if a is None or b is None:
        return "a game does not replay"
    return unlike(a, b)


def unlike(a: State, b: State) -> str | None:
    """Why two positions are not one shape class (see `not_isomorphic`), or None."""
    if (a.phase, a.move & 1) != (b.phase, b.move & 1):
        return f"phase {a.phase} and {b.phase}, next move {a.move} and {b.move}"
    ga, gb = _graph(a), _graph(b)
    if len(ga[0]) != len(gb[0]) or sorted(ga[1].values()) != sorted(gb[1].values()):
        return "their open cells' graphs differ in cells or in edge multiplicities"
    return None if _isomorphism(ga, gb) else "their open cells' graphs are not isomorphic"


Graph = tuple[list[int], Counter[tuple[int, int]], tuple[int, int] | None]


def _graph(state: State) -> Graph:
    """Open cells, live edges with their multiplicity, the pending edge."""
    edges: Counter[tuple[int, int]] = Counter()
    for x, y in state.edges.values():
        edges[(min(x, y), max(x, y))] += 1
    pend = state.edges[state.pending] if state.pending is not None else None
    return list(state.open_cells), edges, pend


def _isomorphism(ga: Graph, gb: Graph) -> bool:
    """Whether a bijection of open cells maps edges to edges (with multiplicity) and the pending
    edge to the pending edge: backtracking over cells, neighbourhoods refined by degree."""
    (va, ea, pa), (vb, eb, pb) = ga, gb

    def degrees(v: list[int], e: Counter[tuple[int, int]]) -> dict[int, int]:
        d = dict.fromkeys(v, 0)
        for (x, y), m in e.items():
            d[x] += m
            d[y] += m
        return d

    da, db = degrees(va, ea), degrees(vb, eb)
    order = sorted(va, key=lambda c: -da[c])
    mult_a = {**ea, **{(y, x): m for (x, y), m in ea.items()}}
    mult_b = {**eb, **{(y, x): m for (x, y), m in eb.items()}}
    pend_a = {pa, pa[::-1]} if pa else set()
    pend_b = {pb, pb[::-1]} if pb else set()
    image: dict[int, int] = {}
    used: set[int] = set()

    def fits(c: int, d: int) -> bool:
        for x, y in image.items():
            if mult_a.get((c, x), 0) != mult_b.get((d, y), 0):
                return False
            if ((c, x) in pend_a) != ((d, y) in pend_b):
                return False
        return True

    def extend(i: int) -> bool:
        if i == len(order):
            return True
        c = order[i]
        for d in vb:
            if d in used or db[d] != da[c] or not fits(c, d):
                continue
            image[c] = d
            used.add(d)
            if extend(i + 1):
                return True
            del image[c]
            used.discard(d)
        return False
    return extend(0)
