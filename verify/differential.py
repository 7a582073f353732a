"""A family's implementations checked against the checker's own model of its rules, position by
position: the Python engine in process, a compiled core out of process (`verify.isolated`).

At each position both are asked the same (`Probe`): the position (its v1 state JSON), the legal
actions, the refusal of every other action of the action space (under which rule), and the
position after each legal action asked for. What an implementation answers (`Seen`) is compared
with what the model says (`Expected`); each difference is a `Failure` at a game that is legal
under the rules (its actions come from the model), so that it replays anywhere. A core that
crashes or hangs while probed is a failure too, at the game whose probe killed it (found by
halving the batch).

`walk` visits every reachable class of positions of a ruleset breadth first (positions with the
same `Model.key` and move number are one class: the model says which positions the rules cannot
tell apart, and each merge is checked: the merged position has as many legal actions as its
class's first position); `replay_games` checks games position by position; `random_games` are
the rules' random games for a seed, which an implementation's own must be.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol, Self, TypeVar, cast

from qttt.errors import IllegalAction
from qttt.family import Family, GameState
from qttt.notation import action_to_json

from .isolated import CallFailed, Died, Isolated
from .report import Confirmed

Action = Any
Json = dict[str, Any]
ENGINE = "engine (Python)"
BATCH = 400  # probes per call to the child
KEEP = 3  # failures kept per source and kind


class Model(Protocol):
    """A position of a family's model of its rules."""

    @property
    def over(self) -> bool: ...

    def legal(self) -> tuple[Action, ...]: ...

    def refusal(self, action: Action) -> str | None:
        """The rule the action breaks here (the first its check order names); None if legal."""

    def play(self, action: Action) -> Self: ...

    def key(self) -> Hashable:
        """Equal for positions the rules cannot tell apart (the same future)."""

    def state_json(self, variant: str) -> Json: ...


@dataclass(frozen=True)
class Refused:
    """An action refused, under this rule."""

    rule: str


@dataclass(frozen=True)
class Raised:
    """An implementation raised something other than a refusal naming a rule."""

    error: str


Answer = Json | Refused | Raised  # what an implementation did with an action: the state after it, or not


@dataclass(frozen=True)
class Probe:
    """What an implementation is asked at the position `path` reaches: its state (unless `state`
    is false: it was compared as the state after the path's last move), the state after each of
    `moves` (each on a copy) and the refusal of each of `others` (each on a copy)."""

    path: tuple[Action, ...]
    moves: tuple[Action, ...]
    others: tuple[Action, ...]
    state: bool = True


@dataclass(frozen=True)
class Seen:
    """What an implementation answered to a Probe. `stuck`: replaying the path failed at that
    index (what it did there); otherwise the state, the legal actions, per move its Answer and per
    other action its refusal (a Refused, a Raised, or None when it accepted the action), and
    whether it holds the game over."""

    stuck: tuple[int, Refused | Raised] | None = None
    state: Json | Raised | None = None
    legal: tuple[Action, ...] | Raised = ()
    after: tuple[Answer, ...] = ()
    refused: tuple[Refused | Raised | None, ...] = ()
    over: bool | None = None


@dataclass(frozen=True)
class Expected:
    """What the model says at a probed position."""

    state: Json
    legal: tuple[Action, ...]
    after: tuple[Json, ...]
    refused: tuple[str, ...]


@dataclass(frozen=True)
class Failure:
    """An implementation (`source`) differs from the rules at the position `path` reaches (a game
    legal under the rules): `shows` says how; `kind` sorts failures for the properties."""

    source: str
    kind: str
    path: tuple[Action, ...]
    shows: str


# Comparing -------------------------------------------------------------------------------------


def _text(a: Action) -> str:
    return str(action_to_json(a))


def diff(got: Json, want: Json) -> str:
    """The first difference between two states, in words."""
    for k in want:
        if got.get(k) != want[k]:
            if k == "board" and isinstance(got.get(k), list) and len(got[k]) == len(want[k]):
                cell = next(i for i, (g, w) in enumerate(zip(got[k], want[k], strict=True)) if g != w)
                return f"cell {cell} holds {got[k][cell]!r}, the rules say {want[k][cell]!r}"
            return f"{k} is {got.get(k)!r}, the rules say {want[k]!r}"
    return f"it has fields the rules do not: {sorted(set(got) - set(want))}"


def _some(items: Sequence[Action], what: str) -> str:
    more = f" (and {len(items) - 1} more)" if len(items) > 1 else ""
    return f"{_text(items[0])}{more} {what}"


def _legal_failures(source: str, path: tuple[Action, ...], want: Expected, seen: Seen) -> list[Failure]:
    if isinstance(seen.legal, Raised):
        return [Failure(source, "legal", path, f"the {source} raises {seen.legal.error} listing the legal "
                        "actions")]
    if seen.legal == want.legal:
        return []
    extra = [a for a in seen.legal if a not in want.legal]
    missing = [a for a in want.legal if a not in seen.legal]
    parts = ([f"offers {_some(extra, 'which the rules refuse')}"] if extra else []) + \
        ([f"leaves out {_some(missing, 'which the rules allow')}"] if missing else [])
    out = [Failure(source, "legal", path, f"the {source}'s legal list "
                   + (" and ".join(parts) or "lists the legal actions in another order"))]
    if not seen.legal and seen.over is False:
        out.insert(0, Failure(source, "no-move", path, f"the game is not over and the {source} lists no "
                              "legal action"))
    return out


def _move_failures(source: str, probe: Probe, want: Expected, seen: Seen) -> list[Failure]:
    out = []
    for move, after, expected in zip(probe.moves, seen.after, want.after, strict=True):
        path = (*probe.path, move)
        if isinstance(after, Refused):
            out.append(Failure(source, "refuses", path, f"{_text(move)} is legal under the rules; the "
                               f"{source} refuses it under {after.rule}"))
        elif isinstance(after, Raised):
            out.append(Failure(source, "refuses", path, f"the {source} raises {after.error} playing "
                               f"{_text(move)}, which is legal"))
        elif after != expected:
            out.append(Failure(source, "after", path, f"after {_text(move)} the {source}'s position "
                               f"differs: {diff(after, expected)}"))
    return out


def _refusal_failures(source: str, probe: Probe, want: Expected, seen: Seen) -> list[Failure]:
    out = []
    for other, got, rule in zip(probe.others, seen.refused, want.refused, strict=True):
        if got is None:
            out.append(Failure(source, "accepts", probe.path, f"the {source} accepts {_text(other)}, which "
                               f"the rules refuse under {rule}"))
        elif isinstance(got, Raised):
            out.append(Failure(source, "refusal", probe.path, f"the {source} raises {got.error} for "
                               f"{_text(other)} (the rules refuse it under {rule})"))
        elif got.rule != rule:
            out.append(Failure(source, "refusal", probe.path, f"the {source} refuses {_text(other)} under "
                               f"{got.rule}; the rules' check order names {rule}"))
    return out


def compare(source: str, probe: Probe, want: Expected, seen: Seen) -> list[Failure]:
    """The failures of one implementation's answers at one probed position."""
    path = probe.path
    if seen.stuck is not None:
        i, what = seen.stuck
        how = f"refuses it under {what.rule}" if isinstance(what, Refused) else f"raises {what.error}"
        return [Failure(source, "replay", path[:i + 1], f"move {i + 1}, {_text(path[i])}, is legal under "
                        f"the rules; the {source} {how}")]
    if isinstance(seen.state, Raised):
        return [Failure(source, "state", path, f"the {source} raises {seen.state.error} reading the "
                        "position")]
    out = []
    if seen.state is not None and seen.state != want.state:
        out.append(Failure(source, "state", path, f"the {source}'s position differs: "
                           f"{diff(seen.state, want.state)}"))
    return (out + _legal_failures(source, path, want, seen) + _move_failures(source, probe, want, seen)
            + _refusal_failures(source, probe, want, seen))


def expected_at(model: Model, variant: str, probe: Probe, children: Sequence[Model]) -> Expected:
    """What the model says at a probe's position (`children`: the model after each move)."""
    refused = []
    for a in probe.others:
        rule = model.refusal(a)
        assert rule is not None, f"the model refuses nothing for {a}"
        refused.append(rule)
    return Expected(model.state_json(variant) if probe.state else {}, model.legal(),
                    tuple(c.state_json(variant) for c in children), tuple(refused))


# The engine, in process ---------------------------------------------------------------------------


def value(read: Callable[[], Any]) -> Any:
    """read(), or Raised naming what it raised: an implementation that breaks is a finding, not the
    checker's crash."""
    try:
        return read()
    except Exception as e:
        return Raised(f"{type(e).__name__}: {e}")


def attempt(act: Callable[[], object]) -> Refused | Raised | None:
    """None when act() accepts, else the rule it refused under (Refused) or what it raised."""
    try:
        act()
    except IllegalAction as e:
        return Refused(e.rule)
    except Exception as e:
        return Raised(f"{type(e).__name__}: {e}")
    return None


def engine_seen(family: Family, state: GameState, variant: str, probe: Probe
                ) -> tuple[Seen, list[GameState | None]]:
    """The engine's answers at `state` (the position probe.path reaches), and its state after each
    move (None where it refused)."""
    js = value(partial(family.state_to_json, state, variant)) if probe.state else None
    legal = value(lambda: tuple(state.legal_actions()))
    after: list[Answer] = []
    children: list[GameState | None] = []
    for m in probe.moves:
        try:
            child = state.apply(m)
            after.append(family.state_to_json(child, variant))
        except IllegalAction as e:
            child = None
            after.append(Refused(e.rule))
        except Exception as e:  # an engine that lies or breaks is a finding, not the checker's crash
            child = None
            after.append(Raised(f"{type(e).__name__}: {e}"))
        children.append(child)
    refused = tuple(attempt(partial(state.apply, a)) for a in probe.others)
    over = value(lambda: bool(state.over))
    return Seen(None, js, legal, tuple(after), refused, over if isinstance(over, bool) else None), children


def engine_replay(family: Family, start: GameState, path: Sequence[Action]
                  ) -> tuple[GameState | None, Seen | None]:
    """The engine's state after `path`, or the Seen saying where replaying it failed."""
    state = start
    for i, a in enumerate(path):
        try:
            state = state.apply(a)
        except IllegalAction as e:
            return None, Seen(stuck=(i, Refused(e.rule)))
        except Exception as e:
            return None, Seen(stuck=(i, Raised(f"{type(e).__name__}: {e}")))
    return state, None


# A core, out of process ---------------------------------------------------------------------------

GIVE_UP = 1  # probes the child may die on before the core is asked nothing more
STARTUP = 120.0  # seconds the child may take to start and load the core


@dataclass
class Core:
    """A compiled core probed in a child process: `observe(spec, variant, probes)` (a module-level
    function of the family's checker) answers each Probe with a Seen. A call may take `timeout`
    seconds plus `per_probe` a probe; once the child has died on `GIVE_UP` probes of their own,
    the core is asked nothing more (its crash is reported; the rest is not compared)."""

    name: str
    spec: str
    variant: str
    observe: Callable[[str, str, list[Probe]], list[Seen]]
    timeout: float = 10.0
    per_probe: float = 0.05
    isolated: Isolated = field(default_factory=Isolated)
    deaths: int = 0  # calls the child died on
    crashes: int = 0  # single probes it died on
    skipped: int = 0  # probes not asked once it had died too often
    ready: bool = False  # the child has started and loaded the core (not timed as a probe)

    def answers(self, probes: list[Probe]) -> list[Seen | Died | None]:
        """A Seen per probe, Died for a probe the child died on (found by halving the batch), None
        for a probe not asked (the core gave up)."""
        if not probes:
            return []
        if self.crashes >= GIVE_UP or self.deaths >= 40:
            self.skipped += len(probes)
            return [None] * len(probes)
        got = self.call(self.observe, self.spec, self.variant, probes,
                        timeout=self.timeout + self.per_probe * len(probes))
        if not isinstance(got, Died):
            return list(got)
        self.deaths += 1
        if len(probes) == 1:
            self.crashes += 1
            return [got]
        half = len(probes) // 2
        return self.answers(probes[:half]) + self.answers(probes[half:])

    def call(self, fn: Callable[..., Any], *args: Any, timeout: float) -> Any:
        """fn(*args) in the child within `timeout` seconds (Died if it crashes or hangs), once the
        child has started and loaded the core, which is given STARTUP seconds and not timed."""
        if not self.ready:
            self.ready = not isinstance(self.isolated.call(self.observe, self.spec, self.variant, [],
                                                           timeout=STARTUP), Died)
        got = self.isolated.call(fn, *args, timeout=timeout)
        if isinstance(got, Died):
            self.ready = False  # a new child starts on the next call
        return got

    def restart(self) -> None:
        """End the child; the next call starts a fresh one."""
        self.isolated.stop()
        self.ready = False

    def close(self) -> None:
        self.isolated.stop()


def died(source: str, probe: Probe, how: Died) -> Failure:
    """A core that died while probed at a position: the failure, at that position's game."""
    return Failure(source, "crash", probe.path, f"the {source} {how.how} while asked about this position "
                   "(replaying the game, its legal actions, the refusal of the others and the moves from it)")


def check_core(core: Core, pending: list[tuple[Probe, Expected]]) -> list[Failure]:
    """The core's answers to pending probes against the model's."""
    out: list[Failure] = []
    for start in range(0, len(pending), BATCH):
        chunk = pending[start:start + BATCH]
        try:
            answers = core.answers([p for p, _ in chunk])
        except CallFailed as e:
            raise RuntimeError(f"probing the {core.name} failed: {e}") from None
        for (probe, want), seen in zip(chunk, answers, strict=True):
            if isinstance(seen, Died):
                out.append(died(core.name, probe, seen))
            elif seen is not None:
                out += compare(core.name, probe, want, seen)
    return out


# Walks and games ----------------------------------------------------------------------------------


@dataclass
class Result:
    """What a walk or a set of games compared: positions (classes, for a walk), transitions (each
    action applied and compared), per ply the classes and the action sequences reaching them,
    and the failures (at most KEEP per source and kind)."""

    positions: int = 0
    transitions: int = 0
    classes_by_ply: list[int] = field(default_factory=list)
    sequences_by_ply: list[int] = field(default_factory=list)
    complete: bool = True
    failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0
    merge_errors: list[tuple[tuple[Action, ...], str]] = field(default_factory=list)

    def add(self, found: Iterable[Failure]) -> None:
        for f in found:
            if sum(1 for g in self.failures if g.source == f.source and g.kind == f.kind) < KEEP:
                self.failures.append(f)


CoreCheck = Callable[[list[tuple[Probe, Expected]]], list[Failure]]
"""A core's comparison at probed positions (e.g. `check_core` with its Core): their failures."""


def walk(model: Model, engine: GameState, family: Family, variant: str, space: Sequence[Action],
         core: CoreCheck | None, max_ply: int | None = None, progress: Callable[[str], None] | None = None
         ) -> Result:
    """Every reachable class of positions from `model` to `max_ply` actions (all of them: None),
    breadth first; at each class's first position the engine and the core are probed (every
    legal action applied, every other action of `space` tried)."""
    start = time.perf_counter()
    res = Result()
    frontier: list[tuple[tuple[Action, ...], Model, GameState | None, int]] = [((), model, engine, 1)]
    ply = 0
    while frontier:
        res.classes_by_ply.append(len(frontier))
        res.sequences_by_ply.append(sum(f[3] for f in frontier))
        if progress:
            progress(f"ply {ply}: {len(frontier)} classes")
        expand = max_ply is None or ply < max_ply
        pending: list[tuple[Probe, Expected]] = []
        nxt: dict[Hashable, list[Any]] = {}
        for path, m, e, count in frontier:
            res.positions += 1
            legal = m.legal() if expand else ()
            children = [m.play(a) for a in legal]
            others = tuple(a for a in space if a not in legal) if expand else ()
            probe = Probe(path, legal, others, state=not path)  # a later state was compared as a move's
            want = expected_at(m, variant, probe, children)
            res.transitions += len(legal)
            pending.append((probe, want))
            engine_children: list[GameState | None] = [None] * len(legal)
            if e is not None:
                got, engine_children = engine_seen(family, e, variant, probe)
                res.add(compare(ENGINE, probe, want, got))
            for a, child, ec in zip(legal, children, engine_children, strict=True):
                k = (child.key(), ply + 1)
                if k in nxt:
                    nxt[k][3] += count
                    if len(nxt[k][1].legal()) != len(child.legal()):
                        res.merge_errors.append(((*path, a), "a merged position has another number of "
                                                 "legal actions"))
                    continue
                nxt[k] = [(*path, a), child, ec, count]
        if core is not None:
            res.add(core(pending))
        if not expand:
            res.complete = not any(m.legal() for _, m, _, _ in frontier)
            break
        frontier = [(p, m, e, c) for p, m, e, c in nxt.values()]
        ply += 1
    res.seconds = time.perf_counter() - start
    return res


def replay_games(model: Model, engine: GameState, family: Family, variant: str, space: Sequence[Action],
                 core: CoreCheck | None, games: Sequence[Sequence[Action]]) -> Result:
    """Each game of the rules (every action legal under the model) checked position by position:
    the engine and the core probed at every position, the action played applied and every action
    the rules refuse tried."""
    start = time.perf_counter()
    res = Result()
    for game in games:
        m, e = model, cast(GameState | None, engine)
        pending: list[tuple[Probe, Expected]] = []
        path: tuple[Action, ...] = ()
        for i in range(len(game) + 1):
            moves = tuple(game[i:i + 1])
            legal = m.legal()
            children = [m.play(a) for a in moves]
            probe = Probe(path, moves, tuple(a for a in space if a not in legal))
            want = expected_at(m, variant, probe, children)
            res.positions += 1
            res.transitions += len(moves)
            pending.append((probe, want))
            if e is not None:
                got, after = engine_seen(family, e, variant, probe)
                res.add(compare(ENGINE, probe, want, got))
                e = after[0] if after else None
            if moves:
                m, path = children[0], (*path, moves[0])
        if core is not None:
            res.add(core(pending))
    res.seconds = time.perf_counter() - start
    return res


M = TypeVar("M", bound=Model)


def random_games(model: M, rng: random.Random, count: int) -> list[tuple[tuple[Action, ...], M]]:
    """`count` random games of the model drawn from rng one after the other, as the engines draw
    theirs (`qttt random`): at each position the legal action at index int(random() × count) of
    the legal list, until the end. Each game's actions and final position."""
    out = []
    for _ in range(count):
        m, path = model, []
        while not m.over:
            legal = m.legal()
            a = legal[int(rng.random() * len(legal))]
            path.append(a)
            m = m.play(a)
        out.append((tuple(path), m))
    return out


def drawn_differently(source: str, seed: int, game: int, got: Sequence[Action], want: Sequence[Action]
                      ) -> Failure:
    """A random game of `source` that is not the rules' random game for the seed: where it leaves it."""
    i = next((k for k, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), min(len(got), len(want)))
    shown = _text(got[i]) if i < len(got) else "nothing (its game ends)"
    rules = _text(want[i]) if i < len(want) else "nothing: the game is over"
    return Failure(source, "draws", tuple(want[:i]), f"from seed {seed}, game {game + 1}: after these moves "
                   f"the {source} plays {shown}; the same draws under the rules play {rules}")


def _record(variant: str, path: Sequence[Action]) -> dict[str, Any]:
    return {"variant": variant, "actions": [action_to_json(a) for a in path]}


def confirm(start: Model, engine: GameState, family: Family, variant: str, space: Sequence[Action],
            failure: Failure, core: Callable[[], Core | None]) -> Confirmed | None:
    """A fresh probe of the failure's position (the engine replayed from `engine`, the core made by
    `core` in a new child) shows the same kind of failure again: the witness game (legal under the
    rules: the model replays it), else None. A difference of random games ("draws", "end") was
    drawn twice alike by its source before it was reported: its game is the witness as it is."""
    path = failure.path
    if failure.kind in ("draws", "end"):
        return Confirmed(_record(variant, path), failure.shows)
    moved = failure.kind in ("after", "refuses", "replay")
    at = path[:-1] if moved else path
    m = start
    for a in at:
        if m.refusal(a) is not None:
            return None  # not a game under the rules: never a witness
        m = m.play(a)
    if moved and m.refusal(path[-1]) is not None:
        return None
    legal = m.legal()
    moves = (path[-1],) if moved else legal
    probe = Probe(at, moves, () if moved else tuple(a for a in space if a not in legal))
    want = expected_at(m, variant, probe, [m.play(a) for a in moves])
    fresh: list[Failure] = []
    if failure.source == ENGINE:
        state, stuck = engine_replay(family, engine, at)
        if stuck is not None:
            fresh = compare(ENGINE, probe, want, stuck)
        elif state is not None:
            fresh = compare(ENGINE, probe, want, engine_seen(family, state, variant, probe)[0])
    else:
        made = core()
        if made is not None and made.name == failure.source:
            try:
                got = made.answers([probe])[0]
            finally:
                made.close()
            if isinstance(got, Died):
                fresh = [died(made.name, probe, got)]
            elif got is not None:
                fresh = compare(made.name, probe, want, got)
    kind = {"replay": "refuses"}.get(failure.kind, failure.kind)
    again = next((f for f in fresh if f.kind == kind and f.path == path), None)
    return None if again is None else Confirmed(_record(variant, path), again.shows)


def first_confirmed(failures: Sequence[tuple[str, Failure]], kinds: Sequence[str],
                    confirm_one: Callable[[str, Failure], Confirmed | None]) -> Confirmed | None:
    """The first failure (variant, failure) of the given kinds that `confirm_one` confirms."""
    for variant, f in failures:
        if f.kind in kinds:
            found = confirm_one(variant, f)
            if found is not None:
                return found
    return None


@dataclass
class Walk:
    """A walk of one ruleset (its canonical name): its result, its depth (None: complete), the
    perft compared with it, and why its merging of positions is not proved sound (empty: it is)."""

    ruleset: str
    result: Result
    max_ply: int | None
    perft: str = ""
    merging: str = ""


def walk_part(w: Walk) -> tuple[str, str]:
    """A walk as a part of a finding: `classes` when complete, else `sampled` (a prefix of the game)."""
    r = w.result
    if r.complete:
        return "classes", (f"classes ({w.ruleset}: every reachable class of positions, {r.positions} "
                           f"classes, {r.transitions} moves compared)")
    return "sampled", (f"sampled ({w.ruleset}: every class of positions to ply {w.max_ply}, {r.positions} "
                       "classes)")
