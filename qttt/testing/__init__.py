"""Reusable Hypothesis strategies for testing qttt and other implementations.

Optional: needs hypothesis, which the standard-library-only rules core does not. Import
`qttt.testing.strategies` for variant files of every family, `qttt.quantum.strategies` for
quantum rulesets, states and actions and `make_state_machine` (a `RuleBasedStateMachine` that plays
the engine against a reference model in lockstep), `qttt.nested.strategies` for nested-classical
rulesets.
"""

from __future__ import annotations

from .strategies import scoring_components, variant_files

__all__ = ["scoring_components", "variant_files"]
