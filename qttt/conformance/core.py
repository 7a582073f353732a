"""The engine protocol answered by the compiled core (`qttt engine --core compiled`).

`apply`, `state`, `legal` and `perft` are the core's own: its legality checks, its positions, its
scores and its counts, so the conformance suites test it as a second implementation of the rules.
Rulesets the core does not take (more than 16 cells, another game family) and the commands it
does not implement are answered by the Python engine on the same actions.
"""

from __future__ import annotations

from ..analysis.compiled import CorePosition, core_for, supports, use_compiled
from ..errors import QtttError
from ..games import replay_actions
from ..notation import Json, action_from_json, action_to_json
from ..quantum.engine import Action, State, mark_name, quantum_action
from .protocol import QtttEngine, error

OWN = ("apply", "state", "legal", "perft")


class CompiledEngine(QtttEngine):
    """This package's compiled core behind the protocol."""

    def __init__(self) -> None:
        super().__init__()
        self.pos: CorePosition | None = None
        self.actions: list[Action] = []

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        """Answer one request."""
        cmd = request.get("cmd")
        if cmd == "new":
            response = super().handle(request)
            self.pos, self.actions = None, []
            if response["ok"] and self.state is not None:
                rs = self.state.ruleset
                if supports(rs) is None and use_compiled(rs, "compiled"):
                    self.pos = core_for(rs).position()
            return response
        if self.pos is None or cmd not in OWN:
            if self.state is not None and self.pos is not None:  # the Python engine catches up
                self.state = replay_actions(State.initial(self.state.ruleset), self.actions)
            return super().handle(request)
        try:
            return self._own(cmd, request, self.pos)
        except QtttError as e:
            return error(e.kind, e.message, e.rule)

    def _own(self, cmd: str, request: dict[str, Json], pos: CorePosition) -> dict[str, Json]:
        if cmd == "apply":
            if "action" not in request:
                return error("protocol", "apply needs an action")
            action = quantum_action(action_from_json(request["action"]))
            pos.play(action)
            self.actions.append(action)
            return {"ok": True}
        if cmd == "state":
            return {"ok": True, "state": self._state_json(pos)}
        if cmd == "legal":
            return {"ok": True, "legal": [action_to_json(a) for a in pos.legal_actions()]}
        return self._perft(request, pos)

    def _state_json(self, pos: CorePosition) -> dict[str, Json]:
        """The v1 state object (as `notation.state_to_json`) from the core's position."""
        v = pos.view()
        return {
            "variant": self.variant,
            "board": [mark_name(k) if k else [mark_name(m) for m in v.spooky[c]]
                      for c, k in enumerate(v.classical)],
            "to_move": v.to_move,
            "phase": v.phase,
            "move": v.move,
            "cycle": list(v.cycle) if v.cycle is not None else None,
            "over": v.phase == "over",
            "scores": {"x": str(v.scores[0]), "o": str(v.scores[1])},
        }
