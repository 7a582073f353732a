"""Reusable Hypothesis strategies and a state machine for testing qttt and other implementations.

Optional: needs hypothesis, which the standard-library-only rules core does not. Import
`qttt.testing.strategies` for rulesets, states and actions, and `make_state_machine` for a
`RuleBasedStateMachine` that plays the engine against a reference model in lockstep.
"""

from __future__ import annotations

from .strategies import (
    ReferenceGame,
    actions,
    any_actions,
    builtin_rulesets,
    component_of,
    legal_actions,
    make_state_machine,
    per_pattern_scores,
    random_rulesets,
    rulesets,
    states,
)

__all__ = [
    "ReferenceGame", "actions", "any_actions", "builtin_rulesets", "component_of",
    "legal_actions", "make_state_machine", "per_pattern_scores", "random_rulesets", "rulesets",
    "states",
]
