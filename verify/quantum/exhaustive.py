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
import itertools
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qttt import Ruleset, load_ruleset, with_params
from qttt.bounds import CODE, COUNT, MAX_PLY
from qttt.io import read_checkpoint, write_checkpoint
from qttt.processes import Mapper
from qttt.quantum.analysis.count import encode as count_encode
from qttt.quantum.compiled import decode as compiled_decode
from qttt.quantum.engine import PHASES, STATE, Action, Measure, Outcome, Place, State

from .abstract import CHANCE, MEASURE, OVER, PLACE, abstract_of
from .sampled import FAILURE_IDS, KEPT, LENGTH, SHAPE, Context, Visit, compare_paths, inspect
from .witness import replay

Key = tuple[Any, ...]
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


def shape_key(state: State) -> Key:
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


def shape_code(key: Key) -> Key | int:
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


def concrete_key(state: State) -> Key:
    """The position itself (marks, move numbers, phase): no merging, so a walk under this key
    visits every reachable position."""
    return state.key()


CONCRETE_COVER = STATE.cover("verify.quantum.exhaustive:concrete_key", kept={f: "as is" for f in STATE.names})
KEYS: dict[str, Callable[[State], Key]] = {"shape": shape_key, "concrete": concrete_key}
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


@dataclass
class Walk:
    """What a walk visited and found: positions per ply under its key, the partition classes met,
    how many relabelled members of each class were asked for and how many were checked, the first
    few failures per property (message, actions reaching it)."""

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
    resumed_at: int | None = None  # the ply a checkpoint resumed it at: plies before it were read, not walked
    failures: dict[str, list[tuple[str, tuple[Action, ...]]]] = field(default_factory=dict)

    @property
    def positions(self) -> int:
        """Positions checked (one per key per ply)."""
        return sum(self.positions_by_ply)

    def fail(self, prop: str, message: str, actions: Sequence[Action]) -> None:
        """Keep the first few failures of a property (a witness must still replay: `confirm`)."""
        kept = self.failures.setdefault(prop, [])
        if len(kept) < KEPT:
            kept.append((message, tuple(actions)))


Found = tuple[dict[Key, Path_], list[tuple[str, str, Path_]], set[Key], int, int]


def expand(rs: Ruleset, paths: Sequence[Path_], key: str = "shape", bound: int | None = None,
           members: int = 0) -> Found:
    """Check the positions at the given paths (and `members` relabelled members of each one's
    shape class); their children by key (first path kept), the failures, the partition classes
    met, how many positions were final and how many members were checked."""
    ctx = Context.of(rs, bound)
    keyer = KEYS[key]
    cells = rs.board * rs.board
    children: dict[Key, Path_] = {}
    failures: list[tuple[str, str, Path_]] = []
    partitions: set[Key] = set()
    final = checked = 0
    visits: list[Visit] = []  # for the registered paths (verify.paths), compared after the batch
    for path in paths:
        acts = actions_of(path, cells)
        state = replay(rs, acts)
        assert state is not None, "a walked path replays"
        found, kids = inspect(ctx, state, acts, simulate=True, visits=visits)
        for prop, message, probe in found:
            failures.append((prop, message, path + ((encode(probe, cells),) if probe is not None else ())))
        with contextlib.suppress(Exception):  # inspect reported it
            partitions.add(tuple(abstract_of(state).__dict__.values()))
        final += state.over
        for act, child in kids:
            try:
                k = keyer(child)
            except Exception as e:
                failures.append((SHAPE, f"the engine's graph after {act}: {e!r}", path))
                continue
            children.setdefault(k, (*path, encode(act, cells)))
        if members and path:
            checked += check_members(ctx, state, acts, members, failures, visits)
    for at, (prop, message, probe) in compare_paths(ctx, visits):
        shown = (*at, probe) if probe is not None else at
        failures.append((prop, message, tuple(encode(a, cells) for a in shown)))
    return children, failures, partitions, final, checked


def check_members(ctx: Context, state: State, acts: Sequence[Action], members: int,
                  failures: list[tuple[str, str, Path_]], visits: list[Visit] | None = None) -> int:
    """Check up to `members` relabelled members of state's shape class (`relabel`, seeded by the
    path); their failures join `failures`, their positions `visits`. How many were checked."""
    cells = len(state.classical)
    want = shape_key(state)
    rng = random.Random(hash(tuple(encode(a, cells) for a in acts)) & 0xFFFFFFFF)
    seen = {state.key()}
    checked = 0
    for _ in range(3 * members):
        if checked == members:
            break
        other = relabel(acts, cells, rng)
        member = replay(ctx.rs, other)
        if member is None or member.key() in seen or shape_key(member) != want:
            continue
        seen.add(member.key())
        checked += 1
        found, _ = inspect(ctx, member, other, visits=visits)
        for prop, message, probe in found:
            shown = (*other, probe) if probe is not None else tuple(other)
            failures.append((prop, message, tuple(encode(a, cells) for a in shown)))
    return checked


def _expand_spec(spec: dict[str, Any], paths: list[Path_]) -> Found:
    """`expand` in another process, the ruleset given as its canonical data."""
    return expand(_ruleset(spec), paths, spec["key"], spec["bound"], spec["members"])


def _ruleset(spec: dict[str, Any]) -> Ruleset:
    rs = load_ruleset(spec["load"])
    return with_params(rs, **spec["params"]) if spec["params"] else rs


def walk(rs: Ruleset, *, max_ply: int | None = None, bound: int | None = None, mapper: Mapper | None = None,
         chunk: int = 500, checkpoint: str | Path | None = None, progress: Progress | None = None,
         load: str | None = None, params: dict[str, Any] | None = None, key: str = "shape",
         budget: int | None = None, members: int = 0) -> Walk:
    """Walk every position of rs up to max_ply (all if None), ply by ply, merged by `key` (a name
    in KEYS), stopping unfinished once more than `budget` positions are checked.
    `mapper` runs a ply's batches of `chunk` positions (on processes or a cluster: they rebuild the
    ruleset from `load`, a name or file, and `params`; without it or `load`, here: the walk is the
    same either way); `checkpoint` names a file saved after each ply and resumed from; `bound` is
    the ply bound the walk checks; `members` relabelled members of each position's shape class are
    checked too (`check_members`)."""
    start = time.perf_counter()
    out = Walk(rs.canonical, key=key, max_ply=max_ply, relabelled=members)
    cells = rs.board * rs.board
    frontier: dict[Key, Path_] = {KEYS[key](State.initial(rs)): ()}
    ply = 0
    partitions: set[Key] = set()
    if checkpoint is not None and Path(checkpoint).is_file():
        ply, frontier, partitions = _resume(out, Path(checkpoint))
        out.resumed_at = ply
    spec = {"load": load, "params": params or {}, "key": key, "bound": bound, "members": members}
    while frontier:
        if bound is not None and ply > bound:
            path = next(iter(frontier.values()))
            out.fail(LENGTH, f"a position after {ply} actions, more than the bound {bound}",
                     actions_of(path, cells))
            break
        paths = list(frontier.values())
        out.positions_by_ply.append(len(paths))
        batches = [paths[i:i + chunk] for i in range(0, len(paths), chunk)]
        results = (mapper(_expand_spec, [(spec, b) for b in batches])
                   if mapper is not None and load is not None
                   else (expand(rs, b, key, bound, members) for b in batches))
        merged: dict[Key, Path_] = {}
        done = 0
        for batch, (children, failures, parts, final, checked) in zip(batches, results, strict=True):
            for k, path in children.items():
                merged.setdefault(k, path)
            for prop, message, path in failures:
                out.fail(prop, message, actions_of(path, cells))
            partitions |= parts
            out.final_positions += final
            out.members += checked
            done += len(batch)
            if progress:
                progress(ply, done, len(paths))
        ply += 1
        frontier = merged
        if (max_ply is not None and ply > max_ply) or (budget is not None and out.positions > budget):
            break
        if checkpoint is not None and frontier:  # a finished walk keeps no checkpoint to resume
            _save(Path(checkpoint), out, ply, frontier, partitions)
    out.complete = not frontier
    out.partition_classes = len(partitions)
    out.seconds = time.perf_counter() - start
    return out


def _save(path: Path, out: Walk, ply: int, frontier: dict[Key, Path_], partitions: set[Key]) -> None:
    cells = load_ruleset(out.ruleset).board ** 2
    data = {"ruleset": out.ruleset, "key": out.key, "ply": ply, "positions_by_ply": out.positions_by_ply,
            "final_positions": out.final_positions, "partitions": [list(p) for p in partitions],
            "frontier": [list(p) for p in frontier.values()],
            "failures": [[prop, message, [encode(a, cells) for a in acts]]
                         for prop, kept in out.failures.items() for message, acts in kept]}
    write_checkpoint(path, data)


CHECKPOINT = {"ruleset": str, "key": str, "ply": MAX_PLY, "positions_by_ply": [COUNT],
              "final_positions": COUNT, "partitions": [object], "frontier": [[CODE]],
              "failures": [(str, str, [CODE])]}


Resumed = tuple[int, dict[Key, Path_], set[Key], list[int], int, list[tuple[str, str, list[Action]]]]


def _resume(out: Walk, path: Path) -> tuple[int, dict[Key, Path_], set[Key]]:
    """The ply, frontier and partition classes saved in a checkpoint of the same ruleset, checked
    against its schema and the ruleset (paths are replayed, so a checkpoint from another engine
    cannot mislead; a position must lie exactly `ply` actions from the start)."""
    rs = load_ruleset(out.ruleset)
    cells = rs.board * rs.board

    def parse(data: dict[str, Any]) -> Resumed:
        if data["ruleset"] != out.ruleset or data["key"] != out.key:
            raise ValueError(f"it is for {data['ruleset']!r} (key {data['key']}), not {out.ruleset!r}")
        ply = data["ply"]
        if not ply or len(data["positions_by_ply"]) != ply or not data["frontier"]:
            raise ValueError(f"ply {ply} with {len(data['positions_by_ply'])} plies counted and "
                             f"{len(data['frontier'])} positions to walk")
        frontier: dict[Key, Path_] = {}
        for p in data["frontier"]:
            if len(p) != ply:
                raise ValueError(f"a saved position {len(p)} actions from the start, not {ply}")
            state = State.initial(rs)
            for code in p:
                state = state.apply(decode(code, cells))
            key = KEYS[out.key](state)
            if key in frontier:
                raise ValueError(f"two saved positions are one position ({out.key} key): {p}")
            frontier[key] = tuple(p)
        parts = {_partition(p, cells) for p in data["partitions"]}
        _possible(rs, data["positions_by_ply"], data["final_positions"], len(frontier), len(parts))
        failures: list[tuple[str, str, list[Action]]] = []
        for prop, message, p in data["failures"]:
            if prop not in FAILURE_IDS:
                raise ValueError(f"a failure of {prop[:40]!r}, which is no property of the checker")
            failures.append((prop, message, actions_of(p, cells)))
        return ply, frontier, parts, list(data["positions_by_ply"]), data["final_positions"], failures

    ply, frontier, parts, positions, final, failures = read_checkpoint(path, CHECKPOINT, parse)
    out.positions_by_ply, out.final_positions = positions, final
    for prop, message, acts in failures:  # reported only once `confirm` replays them
        out.fail(prop, message, acts)
    return ply, frontier, parts


def _partition(saved: Any, cells: int) -> Key:
    """A saved partition class (`abstract_of`'s fields: phase, the sizes of the open components,
    the pending component's size), or ValueError when it is none."""
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


def resumable(rs: Ruleset, path: Path, key: str = "shape") -> None:
    """Read the checkpoint `walk(rs, checkpoint=path, key=key)` would resume from, and nothing
    else: FileError (`damaged`) at once when it cannot be resumed, so that a command names a
    damaged checkpoint before its other work."""
    _resume(Walk(rs.canonical, key=key), path)




def walk_ruleset(rs: Ruleset) -> Ruleset:
    """The ruleset the structural walk runs on: rs itself, or rs with end = full when a line ends
    its games (see the module docstring)."""
    return with_params(rs, end="full") if rs.rules.end == "first-line" else rs
