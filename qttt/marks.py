"""What the families whose one action is a `Mark` in a cell share behind the Family interface:
no human notation (the JSON record is the record), actions read as squares, the engine's own
refusal messages and the play page's hint (the nested-classical and classical families)."""

from __future__ import annotations

from .errors import QtttError, RecordError
from .family import AnyAction, GameState, family_of
from .notation import FORMAT, cell_text


def mark_text(action: AnyAction) -> str:
    """A mark as the framework adapters name its move: its square from 1 in parentheses, (41)."""
    return f"({getattr(action, 'cell', -1) + 1})"


class MarkFamily:
    """The Family methods a family of one-cell marks inherits."""

    name: str

    def notation(self, variant: str, actions: tuple[AnyAction, ...]) -> str | None:
        return None

    def read_notation(self, variant: str, tokens: str) -> tuple[AnyAction, ...]:
        raise RecordError(FORMAT, f"the {self.name} family has no human notation; use the JSON record")

    def action_text(self, state: GameState, action: AnyAction) -> str:
        return cell_text(action)

    def why_illegal(self, state: GameState, action: AnyAction, err: QtttError) -> str:
        return err.message

    def hint(self, state: GameState) -> str:
        return f"Click an empty cell the rules allow: {family_of(state.ruleset).status_line(state)}."

    def previews(self, state: GameState) -> list[tuple[AnyAction, GameState, str]]:
        return []
