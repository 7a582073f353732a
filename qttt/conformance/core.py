"""The engine protocol answered by the compiled core (`qttt engine --core compiled`).

`apply`, `state`, `legal` and `perft` are the core's own: its legality checks, its positions, its
scores and its counts, so the conformance suites test it as a second implementation of the rules.
A nested-classical ruleset is answered by the compiled nested core (`nested_core`) the same way.
Rulesets the cores do not take (a quantum board of more than 16 cells) and the commands they do
not implement are answered by the Python engine on the same actions.
"""

from __future__ import annotations

from ..errors import QtttError
from ..family import AnyAction, compiled_core, family_of
from ..family import CorePosition as AnyPosition
from ..games import new_game, replay_actions
from ..notation import Json, action_from_json, action_to_json
from .protocol import QtttEngine, error

OWN = ("apply", "state", "legal", "perft")


class CompiledEngine(QtttEngine):
    """This package's compiled core behind the protocol."""

    def __init__(self) -> None:
        super().__init__()
        self.pos: AnyPosition | None = None
        self.actions: list[AnyAction] = []

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        """Answer one request."""
        cmd = request.get("cmd")
        if cmd == "new":
            response = super().handle(request)
            self.pos, self.actions = None, []
            if response["ok"] and self.state is not None:
                rs = self.state.ruleset
                fast = compiled_core(rs, "auto")  # `qttt engine --core compiled` checked the compiler
                self.pos = fast.position() if fast is not None else None
            return response
        if self.pos is None or cmd not in OWN:
            if self.state is not None and self.pos is not None:  # the Python engine catches up
                self.state = replay_actions(new_game(self.state.ruleset), self.actions)
            return super().handle(request)
        try:
            return self._own(cmd, request, self.pos)
        except QtttError as e:
            return error(e.kind, e.message, e.rule)

    def _own(self, cmd: str, request: dict[str, Json], pos: AnyPosition) -> dict[str, Json]:
        if cmd == "apply":
            if "action" not in request:
                return error("protocol", "apply needs an action")
            action = action_from_json(request["action"])
            pos.apply(action)
            self.actions.append(action)
            return {"ok": True}
        if cmd == "state":
            return {"ok": True, "state": self._state_json(pos)}
        if cmd == "legal":
            return {"ok": True, "legal": [action_to_json(a) for a in pos.legal()]}
        return self.perft_response(request, pos)

    def _state_json(self, pos: AnyPosition) -> dict[str, Json]:
        """The v1 state object (as `notation.state_to_json`) from the core's position."""
        assert self.state is not None
        return family_of(self.state.ruleset).core_state_json(pos, self.variant, self.actions)
