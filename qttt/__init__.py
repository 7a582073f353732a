"""qttt: the rules of quantum tic-tac-toe and its variants, as data and as an engine.

`new_game(load_ruleset(name))` starts any ruleset of any game family (qttt.family); the quantum
engine's own types (State, Place, Measure, …) are exported as well."""

from .errors import IllegalAction, QtttError, RecordError, VariantError
from .family import AnyAction, Family, GameState, Mark, family_of, find_family, register_family
from .games import new_game, random_game, replay_actions
from .notation import (
    Record,
    action_from_json,
    action_to_json,
    parse_records,
    record_from_json,
    record_to_json,
    state_to_json,
)
from .quantum.engine import Action, Board, Measure, Place, State, mark_name, player_of, playout
from .quantum.game import Game, compile_game
from .quantum.notation import from_notation, from_position, position, to_notation
from .ruleset import Ruleset, with_params
from .variant import builtin_names, load_ruleset
from .vocabulary import PARAMETERS, Parameters

__version__ = "0.1.0"

__all__ = [
    "PARAMETERS",
    "Action",
    "AnyAction",
    "Board",
    "Family",
    "Game",
    "GameState",
    "IllegalAction",
    "Mark",
    "Measure",
    "Parameters",
    "Place",
    "QtttError",
    "Record",
    "RecordError",
    "Ruleset",
    "State",
    "VariantError",
    "action_from_json",
    "action_to_json",
    "builtin_names",
    "compile_game",
    "family_of",
    "find_family",
    "from_notation",
    "from_position",
    "load_ruleset",
    "mark_name",
    "new_game",
    "parse_records",
    "player_of",
    "playout",
    "position",
    "random_game",
    "record_from_json",
    "record_to_json",
    "register_family",
    "replay_actions",
    "state_to_json",
    "to_notation",
    "with_params",
]
