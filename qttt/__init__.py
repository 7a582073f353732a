"""qttt: the rules of quantum tic-tac-toe and its variants, as data and as an engine."""

from .engine import (
    Action,
    Board,
    Measure,
    Place,
    State,
    mark_name,
    new_game,
    player_of,
    playout,
    replay_actions,
)
from .errors import IllegalAction, QtttError, RecordError, VariantError
from .game import Game, compile_game
from .notation import (
    Record,
    action_from_json,
    action_to_json,
    from_notation,
    from_position,
    parse_records,
    position,
    record_from_json,
    record_to_json,
    state_to_json,
    to_notation,
)
from .variant import PARAMETERS, Parameters, Ruleset, builtin_names, load_ruleset, with_params

__version__ = "0.1.0"

__all__ = [
    "PARAMETERS", "Action", "Board", "Game", "IllegalAction", "Measure", "Parameters", "Place",
    "QtttError", "Record", "RecordError", "Ruleset", "State", "VariantError", "action_from_json",
    "action_to_json", "builtin_names", "compile_game", "from_notation", "from_position",
    "load_ruleset", "mark_name", "new_game",
    "parse_records", "player_of", "playout", "position", "record_from_json", "record_to_json",
    "replay_actions", "state_to_json", "to_notation", "with_params",
]
