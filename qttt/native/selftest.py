"""The self-test of a built core, run in a child process by `qttt.native.build.check`: the library
is bound with every symbol its module declares, then plays through its own entry points (perft
to depth 2, random games from a seed, the legal actions of each position of the first) and must
give what the Python engine gives. Prints one line naming the first difference and exits 1; a
library that crashes kills only this process."""

from __future__ import annotations

import importlib
import random
from pathlib import Path

from ..conformance.perft import perft_counts
from ..errors import QtttError
from ..family import family_of
from ..games import new_game
from ..variant import load_ruleset
from . import OVERRIDE
from .build import builds

GAMES = 3
DEPTH = 2


def problem(source: Path, name: str, path: Path) -> str | None:
    """What the library at `path`, standing for build `name` of `source`, gets wrong, or None."""
    build = builds(source)[name]
    OVERRIDE[name] = path
    module = importlib.import_module(build.module)
    rs = load_ruleset(build.selftest)
    core = module.core_for(rs)
    got, want = core.position().perft(DEPTH), perft_counts(new_game(rs), DEPTH)
    if got != want:
        return f"its self-test failed: perft of {rs.canonical} gave {got}, the engine {want}"
    games = core.random_actions(random.Random(f"selftest:{name}"), GAMES)
    rng = random.Random(f"selftest:{name}")
    for i, actions in enumerate(games):
        expected, _ = family_of(rs).playout(rs, rng)
        if list(actions) != list(expected):
            return f"its self-test failed: random game {i + 1} of {rs.canonical} differs from the engine's"
    state, position = new_game(rs), core.position()
    for action in games[0]:
        if list(position.legal()) != list(state.legal_actions()):
            return f"its self-test failed: the legal actions of {rs.canonical} differ from the engine's"
        state = state.apply(action)
        position.apply(action)
    return None


def main(argv: list[str]) -> int:
    """`SOURCE NAME PATH`: 0 when the library passes, else 1 and one line saying why."""
    source, name, path = Path(argv[0]), argv[1], Path(argv[2])
    try:
        why = problem(source, name, path)
    except QtttError as e:
        why = e.message
    except Exception as e:
        why = f"its self-test failed: {type(e).__name__}: {e}"
    if why is not None:
        print(why.replace(str(path), "the library"), flush=True)
        return 1
    return 0
