"""spec/editions/intelligent-2016.toml against the final 2016 evaluator's rules
(tests/support/evaluator_2016.py, written from the evaluator of 2016-03-04, not from the file):
random games, chosen by either side, agree step by step on the legal cells, the block states,
the end and the points; and the games exercise the one rule the early release read otherwise
(the mark that fills a block and completes a line), so a file with the early reading fails."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from evaluator_2016 import Evaluator2016

from qttt import load_ruleset
from qttt.family import Mark
from qttt.games import new_game
from qttt.nested.engine import NestedState
from qttt.notation import state_to_json
from qttt.ruleset import Ruleset, with_params

EDITION = str(Path(__file__).resolve().parents[2] / "spec" / "editions" / "intelligent-2016.toml")
BLOCKS = {"open": "-", "x": "x", "o": "o", "drawn": "D"}


def _disagreement(rs: Ruleset, seed: int, engine_chooses: bool) -> tuple[str | None, bool]:
    """Play one random game in the engine and the evaluator together; the first disagreement (or
    None), and whether a move filled a block while completing one of its lines."""
    rng = random.Random(seed)
    state = new_game(rs)
    assert isinstance(state, NestedState)
    ref = Evaluator2016()
    decisive = False
    for step in range(82):
        legal = sorted(divmod(a.cell, 9) for a in state.legal_actions())
        if legal != ref.cells():
            return f"step {step}: legal cells {legal} != {ref.cells()}", decisive
        got = state_to_json(state, "x")
        if [BLOCKS[b] for b in got["blocks"]] != ref.blocks:
            return f"step {step}: blocks {got['blocks']} != {ref.blocks}", decisive
        if state.over != (ref.result is not None):
            return f"step {step}: over {state.over} != {ref.result}", decisive
        if ref.result is not None:
            scores = {p: str(v) for p, v in ref.result.items()}
            if got["scores"] != scores:
                return f"end: scores {got['scores']} != {scores}", decisive
            return None, decisive
        r, c = rng.choice(legal if engine_chooses else ref.cells())
        block = 3 * (r // 3) + c // 3
        empties = [cell for cell in ref._empty_in(block) if cell != (r, c)]
        ref.play(r, c)
        decisive |= not empties and ref.blocks[block] not in ("-", "D")
        state = state.apply(Mark(r * 9 + c))
    raise AssertionError("a game of 81 cells lasted more than 81 moves")


@pytest.mark.slow
@pytest.mark.parametrize("engine_chooses", [True, False])
def test_the_edition_plays_as_the_final_evaluator(engine_chooses: bool) -> None:
    rs = load_ruleset(EDITION)
    decisive = 0
    for seed in range(300):
        problem, filled_and_won = _disagreement(rs, seed, engine_chooses)
        assert problem is None, f"game {seed}: {problem}"
        decisive += filled_and_won
    assert decisive > 0  # the games reach the rule the early release read otherwise


def test_the_early_reading_disagrees_with_the_final_evaluator() -> None:
    early = with_params(load_ruleset(EDITION), full_block="drawn-first")
    assert any(_disagreement(early, seed, True)[0] is not None for seed in range(60))
