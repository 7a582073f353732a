"""The framework adapters (verify.frameworks) at the positions the quantum checker visits: each
registered path (verify.paths) gets the checker's Context and the visited positions (`Visit`: the
state, the actions reaching it, its legal actions and the checker's refusals), and answers per
position a failure of cores-agree or None (`verify.quantum.sampled.compare_paths` runs it in a
child process)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from qttt import IllegalAction
from qttt.family import AnyAction
from qttt.quantum.engine import Action, State

from ..frameworks import Found, compare_openspiel, compare_pettingzoo
from .sampled import CORES, Context, Visit

Mark = Callable[[int, int, int], None]
Failure = tuple[str, str, AnyAction | None] | None


def _compare(compare: Callable[..., Found], ctx: Context, state: State, path: Sequence[Action],
             legal: Sequence[Action], refusals: dict[Any, str | None]) -> Failure:
    def refusal(action: Any) -> str | None:
        if action in refusals:
            return refusals[action]
        try:  # an action beyond the checker's action space: the engine's own rule
            state.apply(action)
        except IllegalAction as e:
            return e.rule
        return None

    try:
        found = compare(ctx.rs, path, state, list(legal), refusal)
    except Exception as e:
        return CORES, f"the adapter raised {type(e).__name__}: {e}", None
    return None if found is None else (CORES, found[0], found[1])


def _at_visits(compare: Callable[..., Found], ctx: Context, visits: Sequence[Visit],
              mark: Mark) -> list[Failure]:
    out = []
    for i, v in enumerate(visits):
        mark(i, len(v.path), -1)
        out.append(_compare(compare, ctx, v.state, v.path, v.legal, v.refusals))
    return out


def openspiel_positions(ctx: Context, visits: Sequence[Visit], mark: Mark) -> list[Failure]:
    """`compare_openspiel` at each position the quantum checker visits, as failures of cores-agree."""
    return _at_visits(compare_openspiel, ctx, visits, mark)


def pettingzoo_positions(ctx: Context, visits: Sequence[Visit], mark: Mark) -> list[Failure]:
    """`compare_pettingzoo` at each position the quantum checker visits, as failures of cores-agree."""
    return _at_visits(compare_pettingzoo, ctx, visits, mark)
