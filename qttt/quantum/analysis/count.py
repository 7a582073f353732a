"""Exact game counts: complete games, tree nodes and distinct positions by ply.

A complete game is a sequence of actions from the start to a position where the game is over or no
action is legal (a deadlock, counted separately too); placements and measurement choices are both
branches. The count runs forward ply by ply over canonical positions (`keys`), each carrying the
number of action sequences that reach it, so transpositions and symmetries are merged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...bounds import CODE, COUNT, MAX_PLY
from ...errors import FileError, QtttError, UsageError
from ...interop import rules_of
from ...io import damaged, read_checkpoint, write_checkpoint
from ...processes import Mapper
from ...ruleset import Ruleset
from ..engine import MEASURE, OVER, Board, Measure, Outcome, Place, State
from ..game import compile_game
from .keys import Key, owner_key, partition_key

Path_ = tuple[int, ...]
# A frontier entry: the actions reaching a representative position (encoded), the number of
# sequences it stands for, and the representative itself when it is at hand.
Entry = tuple[Path_, int, "Board | None"]
Progress = Callable[[int, int, int], None]


@dataclass
class CountResult:
    """Counts by ply (index = number of actions taken); `games` is the total of complete games."""

    ruleset: str
    key: str
    games_by_ply: list[int] = field(default_factory=list)
    nodes_by_ply: list[int] = field(default_factory=list)
    positions_by_ply: list[int] = field(default_factory=list)
    deadlocks: int = 0
    complete: bool = False

    @property
    def games(self) -> int:
        return sum(self.games_by_ply)

    def to_json(self) -> dict[str, Any]:
        """Plain data; big integers as decimal strings (JSON readers often lose precision)."""
        return {"ruleset": self.ruleset, "key": self.key, "complete": self.complete,
                "games": str(self.games), "deadlocks": str(self.deadlocks),
                "max_ply": len(self.nodes_by_ply) - 1,
                "by_ply": [{"ply": i, "nodes": str(nd), "games_ending": str(g), "positions": p}
                           for i, (nd, g, p) in enumerate(zip(self.nodes_by_ply, self.games_by_ply,
                                                              self.positions_by_ply, strict=True))]}


def key_kind(rs: Ruleset) -> str:
    """The coarsest valid counting key: `partition` under end = full, else `owner`."""
    return "partition" if rs.rules.end == "full" else "owner"


def encode(action: Place | Measure | Outcome, n2: int) -> int:
    """An action as one integer: a placement a*n2+b (a <= b), a measurement -(cell+1), a chance
    outcome -(n2+cell+1)."""
    if isinstance(action, Measure):
        return -(action.cell + 1)
    if isinstance(action, Outcome):
        return -(n2 + action.cell + 1)
    return action.a * n2 + action.b


def apply_code(b: Board, code: int, n2: int) -> None:
    """Apply an encoded action to a board in place."""
    if code < -n2:
        b.outcome(-code - n2 - 1)
    elif code < 0:
        b.measure(-code - 1)
    else:
        b.place(*divmod(code, n2))


def board_after(rs: Ruleset, path: Sequence[int]) -> Board:
    """The board reached from the start by encoded actions."""
    b = Board(compile_game(rs))
    n2 = b.r.cells
    for code in path:
        apply_code(b, code, n2)
    return b


def _keyer(rs: Ruleset, kind: str) -> Callable[[Board], Key]:
    if kind == "partition":
        return partition_key
    if kind == "owner":
        return lambda b: owner_key(rs, b)
    raise UsageError(None, f"unknown counting key {kind!r}; allowed: partition, owner")


def expand(rs: Ruleset, kind: str, items: Sequence[Entry], keep_boards: bool = True
           ) -> tuple[dict[Key, Entry], int, int]:
    """Children of a batch of frontier entries, merged by key; plus games ending and deadlocks here."""
    keyer = _keyer(rs, kind)
    n2 = rs.board ** 2
    children: dict[Key, Entry] = {}
    ended = deadlocked = 0
    for path, mult, board in items:
        b = board if board is not None else board_after(rs, path)
        if b.phase == OVER:
            ended += mult
            continue
        legal = b.legal()
        if not legal:
            ended += mult
            deadlocked += mult
            continue
        for act in legal:
            c = b.copy()
            if b.phase == MEASURE:
                assert isinstance(act, Measure)
                c.measure(act.cell)
            else:
                assert isinstance(act, Place)
                c.place(act.a, act.b)
            k = keyer(c)
            hit = children.get(k)
            if hit is None:
                children[k] = ((*path, encode(act, n2)), mult, c if keep_boards else None)
            else:
                children[k] = (hit[0], hit[1] + mult, hit[2])
    return children, ended, deadlocked


def _expand_remote(rs: Ruleset, kind: str, items: list[tuple[Path_, int]]
                   ) -> tuple[list[tuple[Key, Path_, int]], int, int]:
    """`expand` for another process: paths in, paths out (boards do not travel)."""
    children, ended, dead = expand(rs, kind, [(p, m, None) for p, m in items], keep_boards=False)
    return [(k, e[0], e[1]) for k, e in children.items()], ended, dead


def _chunks(items: list[Entry], size: int) -> Iterator[list[Entry]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def count_games(rs: Ruleset, *, kind: str | None = None, max_ply: int | None = None,
                mapper: Mapper | None = None, chunk: int = 2000, checkpoint: str | Path | None = None,
                progress: Progress | None = None, start: Sequence[int] = ()) -> CountResult:
    """Count complete games of `rs` (up to `max_ply` actions if given: then games are those ending
    by then and `complete` is False unless nothing is left). `start`: encoded actions to count from
    instead of the empty board (plies are then counted from there). `mapper` spreads each ply's
    expansion over processes or a cluster; `checkpoint` names a file saved after each ply and
    resumed from."""
    kind = kind or key_kind(rs)
    res = CountResult(ruleset=rs.canonical, key=kind)
    frontier: list[Entry] = [(tuple(start), 1, board_after(rs, start))]
    ply = 0
    if checkpoint is not None and Path(checkpoint).is_file():
        ply, frontier = _resume(rs, kind, res, Path(checkpoint), max_ply)
    while frontier:
        res.nodes_by_ply.append(sum(m for _, m, _ in frontier))
        res.positions_by_ply.append(len(frontier))
        if max_ply is not None and ply >= max_ply:
            res.games_by_ply.append(sum(m for p, m, b in frontier
                                        if not (b if b is not None else board_after(rs, p)).legal()))
            return res
        merged: dict[Key, Entry] = {}
        ended = dead = done = 0
        if mapper is None or len(frontier) < 2 * chunk:
            for part in _chunks(frontier, chunk):
                children, e, d = expand(rs, kind, part)
                ended, dead = ended + e, dead + d
                _merge(merged, children.items())
                done += len(part)
                if progress:
                    progress(ply, done, len(frontier))
        else:
            batches = [[(p, m) for p, m, _ in part] for part in _chunks(frontier, chunk)]
            for (kids, e, d), batch in zip(mapper(_expand_remote, [(rs, kind, b) for b in batches]),
                                          batches, strict=True):
                ended, dead = ended + e, dead + d
                _merge(merged, ((k, (p, m, None)) for k, p, m in kids))
                done += len(batch)
                if progress:
                    progress(ply, done, len(frontier))
        res.games_by_ply.append(ended)
        res.deadlocks += dead
        frontier = list(merged.values())
        ply += 1
        if checkpoint is not None and frontier:  # a finished count keeps no checkpoint to resume
            _save(Path(checkpoint), rs, kind, res, ply, frontier)
    res.complete = True
    return res


def _merge(into: dict[Key, Entry], items: Iterable[tuple[Key, Entry]]) -> None:
    for k, e in items:
        hit = into.get(k)
        into[k] = e if hit is None else (hit[0], hit[1] + e[1], hit[2])


def _save(path: Path, rs: Ruleset, kind: str, res: CountResult, ply: int, frontier: list[Entry]) -> None:
    data = {"ruleset": rs.canonical, "key": kind, "ply": ply, "games_by_ply": res.games_by_ply,
            "nodes_by_ply": res.nodes_by_ply, "positions_by_ply": res.positions_by_ply,
            "deadlocks": res.deadlocks, "frontier": [[list(p), m] for p, m, _ in frontier]}
    write_checkpoint(path, data)


CHECKPOINT = {"ruleset": str, "key": str, "ply": MAX_PLY, "games_by_ply": [COUNT],
              "nodes_by_ply": [COUNT], "positions_by_ply": [COUNT],
              "deadlocks": COUNT, "frontier": [([CODE], COUNT)]}


def _resume(rs: Ruleset, kind: str, res: CountResult, path: Path,
            max_ply: int | None) -> tuple[int, list[Entry]]:
    def parse(data: dict[str, Any]) -> tuple[Any, Any, int, CountResult, list[tuple[Path_, int]]]:
        ply = data["ply"]
        if not ply or any(len(data[k]) != ply for k in ("games_by_ply", "nodes_by_ply", "positions_by_ply")):
            raise ValueError(f"ply {ply} with counts for {len(data['positions_by_ply'])} plies")
        if not data["frontier"]:
            raise ValueError("an empty frontier: a finished count keeps no checkpoint")
        frontier = [(tuple(p), m) for p, m in data["frontier"]]
        lengths = {len(p) for p, _ in frontier}
        if len(lengths) != 1 or min(lengths) < ply or min(m for _, m in frontier) < 1:
            raise ValueError(f"frontier entries are not positions after {ply} plies")
        _possible(rs, data, sum(m for _, m in frontier), len(frontier))
        saved = CountResult(rs.canonical, kind, data["games_by_ply"], data["nodes_by_ply"],
                            data["positions_by_ply"], data["deadlocks"])
        return data["ruleset"], data["key"], ply, saved, frontier

    ruleset, key, ply, saved, frontier = read_checkpoint(path, CHECKPOINT, parse)
    if ruleset != rs.canonical or key != kind:
        raise FileError(None, f"checkpoint {path} is for {ruleset!r} (key {key}), not "
                        f"{rs.canonical!r} (key {kind})")
    if max_ply is not None and ply > max_ply:
        raise FileError(None, f"checkpoint {path} has counted {ply} plies, more than --max-ply "
                        f"{max_ply}; give --max-ply {ply} or more, or another checkpoint file")
    res.games_by_ply, res.nodes_by_ply = saved.games_by_ply, saved.nodes_by_ply
    res.positions_by_ply, res.deadlocks = saved.positions_by_ply, saved.deadlocks
    try:
        return ply, [(p, m, board_after(rs, p)) for p, m in frontier]
    except (QtttError, LookupError, ValueError, AssertionError):
        raise damaged(path, "a saved position is not reachable") from None


def _possible(rs: Ruleset, data: dict[str, Any], frontier_nodes: int, frontier_positions: int) -> None:
    """ValueError unless a checkpoint's counts are ones a count can reach (the digest is only a
    checksum against accidents): one start, each ply's games and positions at most its nodes,
    each ply's nodes between the previous ply's unfinished nodes and those times the most actions
    a position can have (the frontier, the nodes of the next ply, included), deadlocks among the
    games."""
    nodes, games, positions = data["nodes_by_ply"], data["games_by_ply"], data["positions_by_ply"]
    widest = rules_of(rs).codec.actions
    if nodes[0] != 1 or positions[0] != 1:
        raise ValueError("a count starts from one position (nodes_by_ply[0] and positions_by_ply[0] are 1)")
    for k, (n, g, p) in enumerate(zip([*nodes, frontier_nodes], [*games, 0], [*positions, frontier_positions],
                                      strict=True)):
        left = nodes[k - 1] - games[k - 1] if k else 1
        if not (g <= n and 1 <= p <= n and left <= n <= left * widest):
            raise ValueError(f"ply {k}: {n:,} nodes, {g:,} games and {p:,} positions cannot follow "
                             f"{left:,} unfinished nodes (at most {widest} actions each)")
    if data["deadlocks"] > sum(games):
        raise ValueError(f"{data['deadlocks']:,} deadlocks among {sum(games):,} games")


def brute_force_nodes(rs: Ruleset, depth: int, start: Sequence[int] = ()) -> tuple[list[int], int]:
    """Tree nodes by ply and games ending within `depth` plies, by plain enumeration with the public
    engine API (State.legal_actions / State.apply): the check on `count_games`."""
    state = State.initial(rs)
    n2 = rs.board ** 2
    for code in start:
        state = state.apply(Measure(-code - 1) if code < 0 else Place(*divmod(code, n2)))
    nodes = [0] * (depth + 1)
    ended = 0
    stack = [(state, 0)]
    while stack:
        s, d = stack.pop()
        nodes[d] += 1
        acts = s.legal_actions()
        if not acts:
            ended += 1
            continue
        if d < depth:
            stack.extend((s.apply(a), d + 1) for a in acts)
    return nodes, ended
