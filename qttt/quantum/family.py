"""The quantum family (Goff's quantum tic-tac-toe and its variants) behind the Family interface."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from fractions import Fraction
from types import MappingProxyType
from typing import Any, cast

from ..errors import QtttError
from ..family import AnyAction, CorePosition, Family, GameState, Rollout
from ..narration import frac
from ..notation import Record, cell_text
from ..players import PLAYERS
from ..ruleset import Ruleset
from ..vocabulary import Component
from .engine import STATE, Measure, Outcome, Place, State, mark_name, playout, quantum_action, quantum_state
from .narration import describe_action
from .notation import chance_json, read_tokens, state_json, to_notation
from .play import explain
from .scoring import AWARD_TYPES, breakdown
from .svg import board_svg
from .text import board_text, status_line


def action_text(state: GameState, action: AnyAction) -> str:
    """A placement as `X3:1-6` (`X9:5` for the last square), a measurement as `X3@6`, a chance
    outcome as `X3=6`."""
    if isinstance(action, Place):
        mark = mark_name(state.move).upper()
        return f"{mark}:{action.a + 1}" if action.a == action.b else f"{mark}:{action.a + 1}-{action.b + 1}"
    if isinstance(action, Measure | Outcome):
        sign = "@" if isinstance(action, Measure) else "="
        return f"{mark_name(state.move - 1).upper()}{sign}{action.cell + 1}"
    return cell_text(action)


def hint(state: GameState) -> str:
    """Which squares respond to a click, and why."""
    legal = state.legal_actions()
    first = legal[0]
    if isinstance(first, Outcome):
        turn = quantum_state(state)
        k = turn.pending or 0
        odds = " or ".join(f"square {o.cell + 1} ({p})" for o, p in turn.chance_outcomes())
        return f"Chance decides where {mark_name(k)} lands: {odds}. The page draws it now."
    if isinstance(first, Measure):
        k = quantum_state(state).pending or 0
        a, b = sorted(x.cell for x in legal if isinstance(x, Measure))
        if state.ruleset.value("collapse") != "choice":  # the pick is a wish; chance decides
            p = frac(Fraction(state.ruleset.value("p")))
            return (f"Only squares {a + 1} and {b + 1} respond, the two squares of {mark_name(k)}, the move "
                    f"that closed the cycle: click the one you want {mark_name(k)} to land in. Chance then "
                    f"decides: your pick comes true with probability {p}. Point at a choice to see its "
                    "outcome.")
        return (f"Only squares {a + 1} and {b + 1} respond, the two squares of {mark_name(k)}, the move "
                f"that closed the cycle: click one (or a choice below) to make {mark_name(k)} classical "
                "there. Point at a choice to see its outcome first.")
    assert isinstance(first, Place)
    m = mark_name(state.move)
    if len(legal) == 1 and first.a == first.b:
        return f"Click square {first.a + 1}: the last open square takes {m} whole."
    return (f"Click two different squares for {m}: any square without a classical mark responds; "
            "click the first again to take it back.")


def _label(comp: Component, n: int) -> str:
    length = comp.length or n
    what = f"line of {length}" if comp.pattern == "line" else f"{length}×{length} square"
    if comp.award == "per-pattern":
        return f"each {what}: {frac(comp.get('points'))}"
    if comp.award == "first-line":
        return f"{what} (first line)"
    return f"{what.replace(' of', 's of', 1)} by time (rank)"


def score_rows(state: GameState) -> list[dict[str, Any]]:
    """Each scoring component: its points and the patterns each side owns under it; then, for a
    drawn game under draw_second, the points it moves to O (rule score-draw-second)."""
    rs = state.ruleset
    awards = breakdown(rs, quantum_state(state).classical)
    rows = [{"what": _label(comp, rs.board), "x": frac(x), "o": frac(o),
             "x_patterns": ["-".join(str(c + 1) for c in p.cells) for p in xs],
             "o_patterns": ["-".join(str(c + 1) for c in p.cells) for p in os_]}
            for comp, (_, (x, o, _notes), xs, os_) in zip(rs.scoring, awards, strict=True)]
    d = rs.rules.draw_second
    if d and sum((p[1][0] for p in awards), Fraction(0)) == sum((p[1][1] for p in awards), Fraction(0)):
        rows.append({"what": "a drawn game: O gains, X loses", "x": frac(-d), "o": frac(d),
                     "x_patterns": [], "o_patterns": []})
    return rows


def core_state_json(pos: CorePosition, variant: str) -> dict[str, Any]:
    """The v1 state of a position the compiled core holds (its view: qttt.quantum.compiled.CoreView)."""
    v = cast(Any, pos).view()
    out = {
        "variant": variant,
        "board": [mark_name(k) if k else [mark_name(m) for m in v.spooky[c]]
                  for c, k in enumerate(v.classical)],
        "to_move": v.to_move,
        "phase": v.phase,
        "move": v.move,
        "cycle": list(v.cycle) if v.cycle is not None else None,
        "over": v.phase == "over",
        "scores": {"x": str(v.scores[0]), "o": str(v.scores[1])},
    }
    if v.phase == "chance":
        out["chance"] = chance_json(cast(Any, pos).chance_outcomes())
    return out


class QuantumFamily:
    """Spooky marks in two cells, cycles measured into classical marks (rules place-open to
    score-at-end)."""

    name = "quantum"
    title = "quantum family"
    action_types: tuple[type[AnyAction], ...] = (Place, Measure, Outcome)
    players: tuple[str, ...] = tuple(PLAYERS)
    scope = "common"
    vectors = ""
    award_rules: Mapping[str, str] = MappingProxyType({name: a.rule for name, a in AWARD_TYPES.items()})
    position_state = STATE
    tools: Mapping[str, str] = MappingProxyType({
             "cases": "qttt.quantum.cases", "page": "qttt.quantum.pages:ruleset_page",
             "site": "qttt.quantum.pages:SITE_PAGES",
             "rulebook": "qttt.quantum.rulebook:QUANTUM_BOOK",
             "play": "qttt.quantum.play:play", "terminal": "qttt.quantum.play",
             "check": "verify.quantum.check:check",
             "catalogue": "verify.quantum.catalogue", "shared": "verify.quantum.check:shared_work",
             "codecup": "qttt.quantum.codecup",
             "frameworks": "qttt.quantum.frameworks:codec",
             "core": "qttt.quantum.compiled", "tally": "qttt.quantum.analysis.tally:tally",
             "count": "qttt.quantum.analysis.count:count_games", "solve": "qttt.quantum.analysis.solve:solve",
             "curve": "qttt.quantum.analysis.expectimax:value_curve",
             "fairness": "qttt.quantum.analysis.fairness:fairness_report"})

    def initial(self, rs: Ruleset) -> GameState:
        return State.initial(rs)

    def side(self, rs: Ruleset) -> int:
        return rs.board

    def playout(self, rs: Ruleset, rng: random.Random) -> tuple[list[AnyAction], GameState]:
        actions, final = playout(rs, rng)
        return list[AnyAction](actions), final

    def state_to_json(self, state: GameState, variant: str) -> dict[str, Any]:
        return state_json(quantum_state(state), variant)

    def board_text(self, state: GameState, colour: bool) -> str:
        return board_text(quantum_state(state), colour)

    def status_line(self, state: GameState) -> str:
        return status_line(quantum_state(state))

    def svg(self, state: GameState, size: float | None, caption: str | None) -> str:
        return board_svg(quantum_state(state), size, caption)

    def notation(self, variant: str, actions: tuple[AnyAction, ...]) -> str | None:
        return to_notation(Record(variant, tuple(quantum_action(a) for a in actions)))

    def read_notation(self, variant: str, tokens: str) -> tuple[AnyAction, ...]:
        return read_tokens(variant, tokens).actions

    def action_text(self, state: GameState, action: AnyAction) -> str:
        return action_text(state, action)

    def why_illegal(self, state: GameState, action: AnyAction, err: QtttError) -> str:
        if isinstance(action, Place | Measure | Outcome):
            said = explain(quantum_state(state), action, err)
            return said.removeprefix("not allowed: ").rsplit(" (rule ", 1)[0]
        return err.message

    def hint(self, state: GameState) -> str:
        return hint(state)

    def previews(self, state: GameState) -> list[tuple[AnyAction, GameState, str]]:
        out: list[tuple[AnyAction, GameState, str]] = []
        for action in state.legal_actions():
            if isinstance(action, Measure):
                after = state.apply(action)
                words = describe_action(quantum_state(state), action, quantum_state(after))
                out.append((action, after, words))
        return out

    def score_rows(self, state: GameState) -> list[dict[str, Any]]:
        return score_rows(state)

    def rollout(self, rs: Ruleset, core: str) -> Rollout | None:
        return None

    def core_state_json(self, pos: CorePosition, variant: str,
                        actions: Sequence[AnyAction]) -> dict[str, Any]:
        return core_state_json(pos, variant)


FAMILY: Family = QuantumFamily()
