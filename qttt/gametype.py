"""The fixed facts of each game family, kept apart from its code (OpenSpiel's GameType): its name
(the value of the `game` parameter), a one-line description, the rule parameters and scoring awards
it reads, and where its implementation lives ("module:attribute" of an object meeting
qttt.family.Family). The vocabulary (qttt.vocabulary) reads these facts; the registry (qttt.family)
loads the implementation on first use. Adding a family is one package and one entry here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GameType:
    """What the vocabulary needs to know about a game family, without loading it."""

    name: str
    description: str  # a few words for the `game` parameter's description
    parameters: tuple[str, ...]  # the rule parameters it reads (every family reads game and board)
    awards: tuple[str, ...]  # the scoring awards it scores (none: its result is scored by its rules)
    implementation: str  # "module:attribute" of its Family object


GAME_TYPES: dict[str, GameType] = {t.name: t for t in (
    GameType("quantum", "Goff's quantum tic-tac-toe",
             ("game", "board", "measurer", "collapse", "p", "two_cycles", "last_square", "untouched", "end",
              "end_line", "draw_second"),
             ("per-pattern", "first-line", "rank"), "qttt.quantum.family:FAMILY"),
    GameType("nested-classical", "n×n blocks of n×n cells (Intelligent Tic-Tac-Toe)",
             ("game", "board", "route", "block_patterns", "board_patterns", "full_block", "bonus"),
             ("win", "draw-blocks", "draw-majority"), "qttt.nested.family:FAMILY"),
    GameType("classical", "n×n tic-tac-toe, end_line in a row", ("game", "board", "end_line"), (),
             "qttt.classical.family:FAMILY"),
)}


def register_game_type(game_type: GameType) -> None:
    """Add (or replace) a family's facts, before qttt.vocabulary is imported (its vocabulary is built
    from them once); the implementation is loaded when first asked for."""
    GAME_TYPES[game_type.name] = game_type
