"""Game families behind one interface, found by a ruleset's `game` parameter (rule `variant-file`).

A family is a package (qttt/quantum, qttt/nested, qttt/classical) whose `family` module defines an
object meeting `Family`: it compiles a ruleset into an initial state, reads and writes its actions
and states as JSON, draws them, lists its conformance cases and checks its properties. Every state
meets `GameState`. Consumers call `family_of(ruleset)` and never ask which family they hold, the way
OpenSpiel's `load_game` and python-chess's `find_variant` work.

The registry (qttt.gametype) holds each family's facts and its implementation as "module:attribute",
imported on first use: a family's tools sit above the packages that consume the registry (notation,
conformance, docs, cli), so no import made at load time can close a loop.
"""

from __future__ import annotations

import importlib
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

from .errors import QtttError, UsageError, VariantError
from .gametype import GAME_TYPES

if TYPE_CHECKING:  # annotations only: the registry sits below the ruleset model and the case lists
    from .boardstate import PositionState
    from .conformance.casespec import CaseSpec
    from .ruleset import Ruleset

AnyAction = tuple[int, ...]  # an action of any family: a named tuple of cells (Place, Measure, Mark, …)
Json = Any


class Mark(NamedTuple):
    """Put the mover's mark in `cell`: the one action of the classical families."""

    cell: int


@runtime_checkable
class GameState(Protocol):
    """An immutable position of any family: the views every consumer reads."""

    @property
    def ruleset(self) -> Ruleset: ...
    @property
    def phase(self) -> str: ...
    @property
    def over(self) -> bool: ...
    @property
    def to_move(self) -> str | None: ...  # x, o, "chance" (qttt.chance.CHANCE) or None when over
    @property
    def move(self) -> int: ...
    @property
    def scores(self) -> dict[str, Fraction]: ...
    @property
    def score_notes(self) -> tuple[str, ...]: ...

    def legal_actions(self) -> tuple[AnyAction, ...]:
        """Every legal action, in the family's fixed order."""

    def chance_outcomes(self) -> tuple[tuple[AnyAction, Fraction], ...]:
        """During a chance turn (`to_move` is qttt.chance.CHANCE), the legal actions with their
        exact probabilities; otherwise empty."""

    def apply(self, action: object) -> GameState:
        """The state after `action`; IllegalAction naming the rule, RecordError for an action of
        another family."""

    def key(self) -> tuple[Any, ...]:
        """Hashable identity of the position within its ruleset."""


Rollout = Callable[["GameState", random.Random], dict[str, Fraction]]  # a state played out: its points


class Family(Protocol):
    """One game family: the rules, formats and drawings of every ruleset whose `game` is `name`.

    `action_types` are named tuples of integer cells; their JSON is derived from them: the lower-case
    type name as the key, one cell as a number, several as a list (`{"place": [a, b]}`).
    `tools` names, as "module:attribute", what consumers above the rules load on demand:
    `cases` (a module with case_specs, perft_positions, start_refs, move_refs, error_refs), `page`
    (a ruleset page: site, name, docs -> lines), `play` (`qttt play`), `check` (the checker), and
    where the family has one, `core`: its compiled rules core, a module with `use_compiled(rs,
    core) -> bool` and `core_for(rs) -> CompiledCore` (see `compiled_core`); `terminal` (a
    `Terminal`: a person types actions, as under `qttt match`); `codecup` (the CodeCup 2012
    dialogue: `check_ruleset`, `letters`, `CodeCupSeat`); `site` (the site pages it contributes:
    docs path -> maker(site, root) -> lines); `tally` (rs, rng, games -> Tally: random games in
    the Python engine as `CompiledCore.sample` tallies them; without it `qttt analyze random`
    tallies final points alone); and the analyses `qttt analyze` runs: `count` (exact game
    counts), `solve` (the value under perfect play) and `fairness`.
    """

    name: str  # the value of the `game` parameter
    title: str  # how pages name the family: "nested-classical family (Intelligent Tic-Tac-Toe)"
    action_types: tuple[type[AnyAction], ...]
    tools: Mapping[str, str]
    players: tuple[str, ...]  # the computer players of qttt.players that play it well enough to offer
    scope: str  # the `scope` of its rules in spec/rules.toml
    vectors: str  # the folder of its built-in rulesets' suites under spec/vectors/ ("" for the top)
    award_rules: Mapping[str, str]  # the rule id of each scoring award it scores
    position_state: PositionState  # its one declaration of position state (qttt.boardstate)

    def initial(self, rs: Ruleset) -> GameState:
        """The initial state of a ruleset of this family."""

    def side(self, rs: Ruleset) -> int:
        """Cells along one edge of the board."""

    def playout(self, rs: Ruleset, rng: random.Random) -> tuple[list[AnyAction], GameState]:
        """One game of uniformly random legal actions: its actions and final state."""

    def state_to_json(self, state: GameState, variant: str) -> dict[str, Json]:
        """The v1 state object."""

    def board_text(self, state: GameState, colour: bool) -> str:
        """The board at the terminal, with its status line."""

    def status_line(self, state: GameState) -> str:
        """Who does what next, or the result."""

    def svg(self, state: GameState, size: float | None, caption: str | None) -> str:
        """The board as an SVG document."""

    def notation(self, variant: str, actions: tuple[AnyAction, ...]) -> str | None:
        """A record in the family's human notation; None when it has none (JSON is the record)."""

    def read_notation(self, variant: str, tokens: str) -> tuple[AnyAction, ...]:
        """The actions `tokens` write in the family's human notation for a game of `variant`;
        RecordError naming the bad token, or saying the family has none."""

    def action_text(self, state: GameState, action: AnyAction) -> str:
        """An action as people read it in a match's log, squares from 1 (`X3:1-6`, `square 41`)."""

    def why_illegal(self, state: GameState, action: AnyAction, err: QtttError) -> str:
        """Why the engine refused `action` in `state`, in squares from 1 where the family can say."""

    def hint(self, state: GameState) -> str:
        """What a click on the play page does now (the game goes on and has a legal action)."""

    def previews(self, state: GameState) -> list[tuple[AnyAction, GameState, str]]:
        """The actions whose outcome the play page shows before the click: each with the state
        after it and what it does, in words."""

    def score_rows(self, state: GameState) -> list[dict[str, Json]]:
        """Where a finished game's points came from, one row each (what, x, o and the patterns of
        each side, squares from 1)."""

    def rollout(self, rs: Ruleset, core: str) -> Rollout | None:
        """A faster way (its compiled core, as `core` allows) to play a state of `rs` to the end
        with uniformly random actions drawn from the generator exactly as the engine would, giving
        the final points; None when the engine is the only way."""

    def core_state_json(self, pos: CorePosition, variant: str,
                        actions: Sequence[AnyAction]) -> dict[str, Json]:
        """The v1 state object (as `state_to_json`) of a position held by its compiled core,
        reached by `actions`."""


class CorePosition(Protocol):
    """A mutable position held by a compiled core."""

    def copy(self) -> CorePosition:
        """An independent copy."""

    def apply(self, action: object) -> None:
        """Apply an action after the core's own check (IllegalAction naming the rule)."""

    def legal(self) -> list[Any]:
        """The legal actions, in the family's order."""

    def perft(self, depth: int) -> list[int]:
        """The number of action sequences of each length 1..depth from here."""


Tally = tuple[Counter[tuple[Fraction, Fraction]], Counter[str], Counter[tuple[int, int]]]


class Replayed(NamedTuple):
    """What a compiled core's `replay_jsonl` (qttt replay --json) did with JSON Lines text: the final
    states it wrote, the bytes and lines of the text it consumed (whole lines), the records it
    replayed, and why it stopped: "end" of the text, at a "line" it leaves to the engine (a record
    written otherwise, an illegal action, another variant), or with its output "full"."""

    states: str
    consumed: int
    lines: int
    records: int
    stop: str


class Terminal(Protocol):
    """A family's `terminal` tool: what a person at the terminal sees and types."""

    def drawing(self, state: Any, colour: bool = False) -> str:
        """The board, without the status line."""

    def prompt(self, state: Any) -> str:
        """The question for the side to move."""

    def parse(self, text: str, state: Any) -> Any:
        """A command name or the action typed; ValueError when it is neither."""

    def example(self, state: Any) -> str:
        """What to type for a legal action, as an example."""

    def explain(self, state: Any, action: Any, err: QtttError) -> str:
        """A one-line reason why the engine refused `action`, naming the rule."""


class CompiledCore(Protocol):
    """A family's compiled rules core configured for one ruleset: the Python engine's games for a
    seed, its positions and its counts, faster."""

    def position(self, actions: Iterable[object] = ()) -> CorePosition:
        """The position after `actions` from the start (IllegalAction if one is illegal)."""

    def random_actions(self, rng: random.Random, games: int) -> list[list[Any]]:
        """The actions of `games` random games drawn from `rng` as the family's `playout` draws them."""

    def sample(self, rng: random.Random, games: int) -> Tally:
        """Over `games` random games drawn from `rng` (as `sample.play_chunk` tallies them): final
        (x, o) points, games by line result, and games by (moves, cells left empty)."""


class Cases(Protocol):
    """A family's conformance tool (its `cases` module)."""

    def case_specs(self, rs: Ruleset) -> list[CaseSpec]:
        """The conformance cases of a ruleset, in a fixed order."""

    def perft_positions(self, rs: Ruleset) -> list[tuple[str, str, list[Json]]]:
        """The positions its perft table starts from: (slug, description, actions)."""

    def start_refs(self, rs: Ruleset) -> set[str]:
        """Rule ids a case from the initial position exercises."""

    def move_refs(self, rs: Ruleset, before: GameState, action: Json, after: GameState) -> set[str]:
        """Rule ids a legal action exercises, from what it did."""

    def error_refs(self, rs: Ruleset, before: GameState) -> set[str]:
        """Rule ids an illegal action exercises beyond the rule it breaks."""

    def field_rules(self, rs: Ruleset, state: GameState) -> Mapping[str, tuple[str, ...]]:
        """Per field of the v1 state at `state` (and `legal`, its legal actions), the rules that
        decide it, most specific first: where the conformance report looks first for the rule a
        difference in that field fails."""


_LOADED: dict[str, Family] = {}


def register_family(name: str, family: Family) -> None:
    """Register a loaded Family object under its `game` value (its facts: qttt.gametype)."""
    _LOADED[name] = family


def family_names() -> tuple[str, ...]:
    """Every registered family, in registration order."""
    return tuple(GAME_TYPES)


def load(ref: str) -> Any:
    """The object "module:attribute" names (the module itself without an attribute)."""
    module, _, attr = ref.partition(":")
    found = importlib.import_module(module)
    return getattr(found, attr) if attr else found


def find_family(name: str) -> Family:
    """The family whose `game` value is `name`; VariantError (variant-file) for an unknown one."""
    family = _LOADED.get(name)
    if family is None:
        game_type = GAME_TYPES.get(name)
        if game_type is None:
            raise VariantError("variant-file", f"unknown game family {name!r}; known: "
                               + ", ".join(GAME_TYPES))
        family = _LOADED[name] = load(game_type.implementation)
    return family


def family_of(rs: Ruleset) -> Family:
    """The family that plays a ruleset."""
    return find_family(rs.game)


def families() -> tuple[Family, ...]:
    """Every registered family, loaded."""
    return tuple(find_family(name) for name in GAME_TYPES)


def tool(rs: Ruleset, name: str) -> Any:
    """A tool of a ruleset's family (see `Family.tools`), loaded; UsageError when it has none."""
    family = family_of(rs)
    if name not in family.tools:
        raise UsageError(None, f"the {family.name} family has no {name} tool (its tools: "
                         + ", ".join(family.tools) + ")")
    return load(family.tools[name])


def terminal(rs: Ruleset) -> Terminal:
    """The terminal tool of a ruleset's family (UsageError when it has none)."""
    found: Terminal = tool(rs, "terminal")
    return found


def having(name: str) -> tuple[Family, ...]:
    """The families that have a tool called `name`."""
    return tuple(f for f in families() if name in f.tools)


def cases(rs: Ruleset) -> Cases:
    """The conformance tool of a ruleset's family."""
    found: Cases = tool(rs, "cases")
    return found


# What `core` may say wherever a rules engine is chosen (every command's --core, the tools'
# `core` argument): the compiled core when it can, the compiled core or a refusal, the Python engine.
CORES = ("auto", "compiled", "python")


def compiled_core(rs: Ruleset, core: str = "auto") -> CompiledCore | None:
    """The compiled core of a ruleset's family (its `core` tool) when `core` (auto, compiled or
    python) allows it: never for python; for compiled always (CoreUnavailable, or QtttError
    core-compiled for a family without one, when it cannot); for auto whenever it can. Callers
    fall back to the Python engine on None."""
    ref = family_of(rs).tools.get("core")
    if ref is None:
        if core == "compiled":
            raise QtttError("core-compiled", f"the {rs.game} family has no compiled core")
        return None
    module = load(ref)
    if not module.use_compiled(rs, core):
        return None
    found: CompiledCore = module.core_for(rs)
    return found
