"""The engines' views of rulesets (qttt.ruleset.PerRuleset) forgotten for one test, so that a
patched compile step is used and what it built is gone after the test."""

from __future__ import annotations

from typing import Any

import pytest

from qttt.ruleset import PerRuleset


def forget_views(mp: pytest.MonkeyPatch, view: PerRuleset[Any]) -> None:
    """`view` builds anew during the test (monkeypatch restores what it had built before)."""
    mp.setattr(view, "_by_id", {})
    mp.setattr(view, "_by_ruleset", {})
