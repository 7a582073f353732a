"""qttt: the rules of quantum tic-tac-toe and its variants, as data and as an engine.

`new_game(load_ruleset(name))` starts any ruleset of any game family (qttt.family) and every state
answers the same GameState views; a family's own types live in its package (the quantum engine's
State, Place, Measure and compile_game in qttt.quantum.engine and qttt.quantum.game).

The names below are loaded on first use (PEP 562), so that `import qttt.x` costs what x costs:
`qttt --version` loads none of them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .errors import IllegalAction, QtttError, RecordError, VariantError
    from .family import AnyAction, Family, GameState, Mark, family_of, find_family, register_family
    from .games import new_game, random_game, replay_actions
    from .notation import (
        Record,
        action_from_json,
        action_to_json,
        from_notation,
        parse_records,
        record_from_json,
        record_to_json,
        state_to_json,
    )
    from .ruleset import Ruleset, with_params
    from .variant import builtin_names, load_ruleset
    from .vocabulary import PARAMETERS, Parameters

__version__ = "0.1.0"

# Where each name of __all__ lives (the imports above say the same to type checkers).
_HOMES = {
    "errors": ("IllegalAction", "QtttError", "RecordError", "VariantError"),
    "family": ("AnyAction", "Family", "GameState", "Mark", "family_of", "find_family", "register_family"),
    "games": ("new_game", "random_game", "replay_actions"),
    "notation": ("Record", "action_from_json", "action_to_json", "from_notation", "parse_records",
                 "record_from_json", "record_to_json", "state_to_json"),
    "ruleset": ("Ruleset", "with_params"),
    "variant": ("builtin_names", "load_ruleset"),
    "vocabulary": ("PARAMETERS", "Parameters"),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'qttt' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOME])


__all__ = [
    "PARAMETERS",
    "AnyAction",
    "Family",
    "GameState",
    "IllegalAction",
    "Mark",
    "Parameters",
    "QtttError",
    "Record",
    "RecordError",
    "Ruleset",
    "VariantError",
    "action_from_json",
    "action_to_json",
    "builtin_names",
    "family_of",
    "find_family",
    "from_notation",
    "load_ruleset",
    "new_game",
    "parse_records",
    "random_game",
    "record_from_json",
    "record_to_json",
    "register_family",
    "replay_actions",
    "state_to_json",
    "with_params",
]
