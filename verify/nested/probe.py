"""What the checker asks the compiled nested core, in the child process that runs it
(`verify.isolated`): its answers at probed positions (`observe`), the games its random-game
writer writes (`written`), its perft counts (`perft`) and its rollouts (`rollouts`). Each is a
module-level function of plain arguments, so that a crash or a hang of the core ends the child,
never the checker."""

from __future__ import annotations

import ctypes
import json
import random
from functools import cache, partial

from qttt import load_ruleset
from qttt.family import Mark
from qttt.nested.compiled import NestedCore, NestedPosition, core_for
from qttt.nested.engine import NestedState
from qttt.nested.family import core_state_json

from ..differential import Answer, Probe, Raised, Seen, attempt, value

_REACHED: dict[tuple[str, tuple[Mark, ...]], NestedPosition] = {}
KEEP = 60_000  # positions kept for the probes of the next ply or the next move


@cache
def _core(spec: str) -> NestedCore:
    return core_for(load_ruleset(spec))


def _reach(spec: str, path: tuple[Mark, ...]) -> tuple[NestedPosition | None, Seen | None]:
    """The core's position after path, from the longest prefix already reached."""
    cut = len(path)
    while cut and (spec, path[:cut]) not in _REACHED:
        cut -= 1
    found = _REACHED.get((spec, path[:cut]))
    pos = found.copy() if found is not None else _core(spec).position()
    for i in range(cut, len(path)):
        why = attempt(partial(pos.apply, path[i]))
        if why is not None:
            return None, Seen(stuck=(i, why))
    return pos, None


def _keep(spec: str, path: tuple[Mark, ...], pos: NestedPosition) -> None:
    if len(_REACHED) >= KEEP:
        _REACHED.clear()
    _REACHED[(spec, path)] = pos


def observe(spec: str, variant: str, probes: list[Probe]) -> list[Seen]:
    """The core's answers to each probe: its state (`family.core_state_json`, what `qttt replay
    --json` would print from it), legal list, the state after each move, the refusal of each other
    action."""
    out = []
    _core(spec)  # loaded (and built) before any probe: an empty list of probes warms the child up
    for probe in probes:
        pos, stuck = _reach(spec, probe.path)
        if pos is None:
            assert stuck is not None
            out.append(stuck)
            continue
        state = value(partial(core_state_json, pos, variant, probe.path)) if probe.state else None
        legal = value(partial(_legal, pos))
        after: list[Answer] = []
        for m in probe.moves:
            child = pos.copy()
            why = attempt(partial(child.apply, m))
            if why is not None:
                after.append(why)
                continue
            shown = value(partial(core_state_json, child, variant, (*probe.path, m)))
            after.append(Raised(f"reading the state after it: {shown.error}") if isinstance(shown, Raised)
                         else shown)
            _keep(spec, (*probe.path, m), child)
        refused = []
        scratch = pos.copy()
        for a in probe.others:  # each tried on a fresh copy: a core that accepts it changes the copy
            ctypes.memmove(scratch.buf, pos.buf, len(pos.buf))
            refused.append(attempt(partial(scratch.apply, a)))
        over = value(partial(_over, pos))
        out.append(Seen(None, state, legal, tuple(after), tuple(refused),
                        over if isinstance(over, bool) else None))
    return out


def _legal(pos: NestedPosition) -> tuple[Mark, ...]:
    return tuple(pos.legal())


def _over(pos: NestedPosition) -> bool:
    return pos.view().over


def written(spec: str, seed: int, games: int) -> tuple[list[list[Mark]], list[tuple[tuple[str, str], int]],
                                                   list[tuple[tuple[int, int], int]]]:
    """What the core's random games from `random.Random(seed)` are: the moves its writer
    (`NestedCore.jsonl`, behind `qttt random`) writes, read back from its JSON Lines, and its tally
    of the same games (`NestedCore.sample`, behind `qttt analyze random`): games by final points
    and by (moves, cells left empty)."""
    core = _core(spec)
    head, tail = '{"variant":"x","actions":[', "]}\n"
    text = core.jsonl(random.Random(seed), games, head, tail).decode("ascii")
    played = [[Mark(a["mark"]) for a in json.loads(line)["actions"]] for line in text.splitlines()]
    points, _, shapes = core.sample(random.Random(seed), games)
    return (played, sorted(((str(x), str(o)), k) for (x, o), k in points.items()), sorted(shapes.items()))


def perft(spec: str, path: tuple[Mark, ...], depth: int) -> list[int]:
    """The core's perft counts (`qttt perft`) from the position path reaches."""
    return _core(spec).position(path).perft(depth)


def rollouts(spec: str, paths: list[tuple[Mark, ...]], seed: int) -> list[tuple[str, str]]:
    """The final points of the core's rollout (the search player's playouts: `NestedCore.rollout`,
    the engine's state loaded into the core) from each position, drawing from
    `random.Random(seed)` in turn."""
    rs = load_ruleset(spec)
    rng = random.Random(seed)
    out = []
    for path in paths:
        state = NestedState.initial(rs)
        for a in path:
            state = state.apply(a)
        points = _core(spec).rollout(state, rng)
        out.append((str(points["x"]), str(points["o"])))
    return out
