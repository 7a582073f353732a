"""The framework adapters (verify.frameworks) at the positions the quantum checker visits: each
registered path (verify.paths) gets the checker's Context, the state, the actions reaching it, the
state after each legal action and the checker's refusals, and answers a failure of cores-agree."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from qttt import IllegalAction
from qttt.family import AnyAction
from qttt.quantum.engine import Action, State

from ..frameworks import Found, compare_openspiel, compare_pettingzoo
from .sampled import CORES, Context

Children = Sequence[tuple[Action, State]]
Failure = tuple[str, str, AnyAction | None] | None


def _compare(compare: Callable[..., Found], ctx: Context, state: State, path: Sequence[Action],
             children: Children, refusals: dict[Any, str | None]) -> Failure:
    def refusal(action: Any) -> str | None:
        if action in refusals:
            return refusals[action]
        try:  # an action beyond the checker's action space: the engine's own rule
            state.apply(action)
        except IllegalAction as e:
            return e.rule
        return None

    try:
        found = compare(ctx.rs, path, state, [a for a, _ in children], refusal)
    except Exception as e:
        return CORES, f"the adapter raised {type(e).__name__}: {e}", None
    return None if found is None else (CORES, found[0], found[1])


def openspiel_positions(ctx: Context, state: State, path: Sequence[Action], children: Children,
                        refusals: dict[Any, str | None]) -> Failure:
    """`compare_openspiel` at a position the quantum checker visits, as a failure of cores-agree."""
    return _compare(compare_openspiel, ctx, state, path, children, refusals)


def pettingzoo_positions(ctx: Context, state: State, path: Sequence[Action], children: Children,
                         refusals: dict[Any, str | None]) -> Failure:
    """`compare_pettingzoo` at a position the quantum checker visits, as a failure of cores-agree."""
    return _compare(compare_pettingzoo, ctx, state, path, children, refusals)
