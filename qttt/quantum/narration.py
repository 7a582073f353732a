"""Quantum games in words: what an action does, what a collapse forced, the result. The command line's play
and the documentation's worked examples narrate with these; squares are numbered from 1."""

from __future__ import annotations

from ..family import AnyAction
from ..narration import frac, squares
from .engine import Action, Measure, Outcome, Place, State, mark_name, player_of, quantum_action


def describe(state: State, action: Action) -> str:
    """What `action` does in `state`, in squares: `places x3 in squares 1 and 9`."""
    if isinstance(action, Outcome):
        return chance_text(state, action)
    if isinstance(action, Measure):
        assert state.pending is not None and state.cycle is not None
        if state.ruleset.rules.collapse != "choice":
            after = state.apply(action)
            odds = ", ".join(f"square {o.cell + 1} with probability {p}" for o, p in after.chance_outcomes())
            return (f"measures the cycle on squares {squares(state.cycle)}, naming square "
                    f"{action.cell + 1} for {mark_name(state.pending)}: chance decides ({odds})")
        return (f"measures the cycle on squares {squares(state.cycle)}: {mark_name(state.pending)} "
                f"goes to square {action.cell + 1}")
    if action.a == action.b:
        return f"fills the last square {action.a + 1} with {mark_name(state.move)}"
    return f"places {mark_name(state.move)} in squares {action.a + 1} and {action.b + 1}"


def chance_text(state: State, action: Outcome) -> str:
    """The draw of a chance turn as the players see it: `chance: X3's mark lands on square 5
    (probability 3/4)`."""
    assert state.pending is not None
    p = dict(state.chance_outcomes())[action]
    return (f"chance: {mark_name(state.pending).upper()}'s mark lands on square {action.cell + 1} "
            f"(probability {p})")


def collapsed(before: State, after: State) -> str:
    """The marks a measurement made classical: `collapsed: X3 in square 1, O2 in square 3`."""
    new = [c for c, (k0, k1) in enumerate(zip(before.classical, after.classical, strict=True)) if k1 != k0]
    parts = [f"{mark_name(after.classical[c]).upper()} in {'square ' * (i == 0)}{c + 1}"
             for i, c in enumerate(new)]
    out = ["collapsed:"]
    for part in parts:
        if len(out[-1]) + len(part) + 2 > 79:
            out[-1] += ","
            out.append(" ")
        elif out[-1] != "collapsed:":
            out[-1] += ","
        out[-1] += " " + part
    return "\n".join(out)


def _cell_list(cells: tuple[int, ...] | list[int]) -> str:
    return ", ".join(str(c + 1) for c in cells)


def describe_action(before: State, action: AnyAction, after: State) -> str:
    """What an action of a quantum game does, in words, with every mark a collapse forces."""
    action = quantum_action(action)
    if isinstance(action, Place):
        text = f"{player_of(before.move).upper()} {describe(before, action)}"
        if action.a == action.b:
            text += ", classical at once"
        if after.phase == "measure":
            text += (f"; this closes a cycle on squares {_cell_list(after.cycle or ())}, "
                     f"so {(after.to_move or '').upper()} must measure")
    elif isinstance(action, Measure) and after.phase == "chance":
        text = f"{(before.to_move or '').upper()} {describe(before, action)}"
    else:
        k = before.pending
        assert k is not None
        who = (before.to_move or "").upper()
        forced = [f"{mark_name(after.classical[c])}→{c + 1}" for c in range(len(after.classical))
                  if after.classical[c] and not before.classical[c] and after.classical[c] != k]
        text = (chance_text(before, action) if isinstance(action, Outcome)
                else f"{who} measures: {mark_name(k)} goes to square {action.cell + 1}")
        if forced:
            text += "; this forces " + ", ".join(forced)
        gone = [c for c in range(len(after.classical)) if not after.classical[c]
                and before.spooky[c] and not after.spooky[c]]
        if gone:
            text += f"; the untouched spooky marks in squares {_cell_list(gone)} vanish"
    if after.over:
        text += f". The game is over: X {frac(after.scores['x'])}, O {frac(after.scores['o'])}"
    return text + "."


def result_text(state: State) -> str:
    """The result of a finished game, or who acts next."""
    if state.phase == "chance":
        return "Not over: chance to decide the measurement."
    if not state.over:
        verb = "measure" if state.phase == "measure" else "place"
        return f"Not over: {(state.to_move or '').upper()} to {verb}."
    text = f"Final score: X {frac(state.scores['x'])}, O {frac(state.scores['o'])}."
    for note in state.score_notes:
        text += f" Note: {note}."
    return text
