"""The reference model (tests/support/reference.py) for an engine Ruleset.

Only the choice of ruleset crosses over: the reference reads the variant file itself and takes
the engine's eight rule parameters, so a with_params ruleset gets the same rules.
"""

from __future__ import annotations

from typing import Any

from reference import RULE_DEFAULTS, Params, RefGame, load_variant

from qttt import Ruleset, builtin_names, load_ruleset


def ref_params(rs: Ruleset) -> Params:
    """The reference's parameters for `rs`: its file (or its base's) with rs's rule values."""
    if rs.path is not None:
        params = load_variant(rs.path)
    elif rs.base in builtin_names():
        params = load_variant(rs.base)
        assert rs.scoring == load_ruleset(rs.base).scoring, "scoring changed: no file to read"
    else:
        params = {**RULE_DEFAULTS, "scoring": []}
    params.update(dict(rs.params))
    return params


def ref_game(rs: Ruleset, variant: str | None = None) -> RefGame:
    """A reference game of `rs`, naming itself `variant` (default: rs's canonical name)."""
    return RefGame(ref_params(rs), rs.canonical if variant is None else variant)


def ref_replay(rs: Ruleset, actions: list[dict[str, Any]], variant: str) -> list[dict[str, Any]]:
    """The reference's state JSON before and after each action."""
    game = ref_game(rs, variant)
    out = [game.state()]
    for act in actions:
        game.apply(act)
        out.append(game.state())
    return out
