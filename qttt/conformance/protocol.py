"""The engine protocol `qttt-engine/1` (spec/protocol.md): one JSON request per line on standard
input, one JSON response per line on standard output. `QtttEngine` answers it with this
package's engine; `serve` runs any handler over two streams.

A handler is anything with `handle(request: dict) -> dict`; the runner's `--python
module:factory` takes a factory returning one, so an in-process engine speaks the same protocol.
"""

from __future__ import annotations

import json
import random
from typing import IO, Protocol

from .. import __version__
from ..bounds import DEPTH
from ..chance import CHANCE
from ..errors import QtttError, UsageError
from ..family import GameState, family_of
from ..games import new_game
from ..jsonstream import dumps, loads
from ..notation import Json, action_from_json, action_to_json, state_to_json
from ..players import Player, RandomPlayer
from ..variant import load_ruleset
from .perft import PERFT_LIMIT, Position, divide, perft

PROTOCOL = 1
MAX_REQUEST = 1 << 20  # characters in one request line; longer ones are refused
NAME = "qttt-engine"
OPTIONAL_COMMANDS = ("perft", "go")  # listed in hello; no `rulesets` list: every ruleset is played


class Handler(Protocol):
    """An engine speaking the protocol in-process."""

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        """The response to one request (without its id: `respond` adds it)."""
        ...


def error(kind: str, message: str, rule: str | None = None) -> dict[str, Json]:
    """A refusal: kind is illegal, malformed, variant, protocol or unsupported."""
    return {"ok": False, "error": {"kind": kind, "rule": rule, "message": message}}


class QtttEngine:
    """This package's engine behind the protocol."""

    def __init__(self, player: Player | None = None) -> None:
        self.state: GameState | None = None
        self.rng = random.Random(0)  # go in a family the player does not play: a uniform move
        self.variant = ""
        self.player: Player = player if player is not None else RandomPlayer(seed=0)

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        """Answer one request."""
        cmd = request.get("cmd")
        try:
            if cmd == "hello":
                return {"ok": True, "protocol": PROTOCOL, "engine": f"qttt {__version__}",
                        "commands": list(OPTIONAL_COMMANDS)}
            if cmd == "new":
                variant = request.get("variant")
                if not isinstance(variant, str):
                    return error("protocol", "new needs a variant string")
                self.state, self.variant = new_game(load_ruleset(variant)), variant
                return {"ok": True}
            if cmd == "quit":
                return {"ok": True}
            if cmd not in ("apply", "state", "legal", "perft", "go"):
                return error("protocol", f"unknown command {json.dumps(cmd)[:40]}")
            if self.state is None:
                return error("protocol", f"{cmd} before new: no game")
            if cmd == "apply":
                if "action" not in request:
                    return error("protocol", "apply needs an action")
                self.state = self.state.apply(action_from_json(request["action"]))
                return {"ok": True}
            if cmd == "state":
                return {"ok": True, "state": state_to_json(self.state, self.variant)}
            if cmd == "legal":
                return {"ok": True, "legal": [action_to_json(a) for a in self.state.legal_actions()]}
            if cmd == "go":  # the clock fields are advisory here: the built-in players are quick
                problem = go_problem(request)
                return error("protocol", problem) if problem else self._go(self.state)
            return self.perft_response(request)
        except QtttError as e:
            return error(e.kind, e.message, e.rule or None)

    def _go(self, state: GameState) -> dict[str, Json]:
        """The engine's move: the player's choice, or a uniform one in a family the player does not
        play (`Family.players`)."""
        if state.to_move == CHANCE:  # chance acts: the referee draws and sends the outcome
            return error("protocol", "go at a chance turn: chance, not a player, acts now (rule "
                         "collapse-chance); the referee draws the outcome and sends it with apply")
        player = self.player
        if player.name not in family_of(state.ruleset).players:
            player = RandomPlayer(rng=self.rng)
        return {"ok": True, "action": action_to_json(player.choose(state))}

    def perft_response(self, request: dict[str, Json], position: Position | None = None) -> dict[str, Json]:
        """Answer perft from the current state, or from `position` standing for it."""
        assert self.state is not None
        position = self.state if position is None else position
        depth = request.get("depth")
        try:
            depth = DEPTH.check(depth)
        except ValueError as e:
            return error("protocol", f"perft depth {e}")
        try:
            if request.get("divide"):
                split = divide(position, depth, PERFT_LIMIT) if depth > 0 else []
                return {"ok": True, "nodes": sum(n for _, n in split) if depth > 0 else 1,
                        "divide": [{"action": a, "nodes": n} for a, n in split]}
            return {"ok": True, "nodes": perft(position, depth, PERFT_LIMIT)}
        except UsageError as e:
            return error("unsupported", e.message)


CLOCK_FIELDS = ("move_ms", "x_ms", "o_ms")


def go_problem(request: dict[str, Json]) -> str | None:
    """Why a go request's clock fields cannot be used (None when they can): each is absent, null
    (no limit) or a whole number of milliseconds, 0 or more (spec/protocol.md)."""
    for name in CLOCK_FIELDS:
        value = request.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            return (f"go {name} = {dumps(value)[:24]} is not allowed; expected whole milliseconds "
                    "(0 or more) or null for no limit")
    return None


def respond(handler: Handler, line: str) -> tuple[str, bool]:
    """The response line to one request line, and whether the request was quit. The line is
    always strict JSON: a request that is not (a key twice, NaN, a lone surrogate) is refused,
    and an answer that cannot be written as strict JSON becomes a refusal."""
    if len(line) > MAX_REQUEST:
        return dumps(error("protocol", f"request longer than {MAX_REQUEST:,} characters")), False
    try:
        request = loads(line)
    except json.JSONDecodeError as e:
        return dumps(error("protocol", f"request is not JSON: {e.msg}")), False
    except RecursionError:
        return dumps(error("protocol", "request nested too deeply")), False
    if not isinstance(request, dict):
        return dumps(error("protocol", "a request is a JSON object")), False
    try:
        response = handler.handle(request)
        if "id" in request:
            response = {"id": request["id"], **response}
        return dumps(response, separators=(",", ":")), request.get("cmd") == "quit"
    except RecursionError:
        return dumps(error("protocol", "request nested too deeply")), False
    except (ValueError, TypeError):  # an answer holding what JSON cannot write (NaN, an object)
        answer = error("protocol", "the engine's answer cannot be written as JSON")
        if "id" in request:
            answer = {"id": request["id"], **answer}
        return dumps(answer), False


def serve(handler: Handler, stdin: IO[str], stdout: IO[str]) -> int:
    """Answer requests line by line until quit or end of input; returns the exit status."""
    while True:
        line = stdin.readline(MAX_REQUEST + 1)
        if not line:
            break
        if len(line) > MAX_REQUEST and not line.endswith("\n"):
            while (rest := stdin.readline(MAX_REQUEST)) and not rest.endswith("\n"):
                pass  # drop the rest of an overlong line, in bounded pieces
        if not line.strip():
            continue
        text, done = respond(handler, line)
        stdout.write(text + "\n")
        stdout.flush()
        if done:
            break
    return 0
