"""Conformance: vectors any engine can replay, perft tables, and the engine protocol.

- `scope.rule_ids(ruleset)`: the rule ids a ruleset selects (the one definition of that mapping).
- `suite.build_suite(ruleset)`: a ruleset's cases with expectations, and its perft table;
  committed under spec/vectors/, format spec/schema/vectors.schema.json.
- `protocol.QtttEngine`: this engine behind the protocol qttt-engine/1 (spec/protocol.md).
- `runner.Runner`: replays suites against any engine that speaks the protocol;
  `report.Report`: what it found, at the levels core and strict, as text, JSON or JUnit.
- `check.check_files`: polices the suites themselves.
"""

from __future__ import annotations

from .perft import divide, perft, perft_counts
from .protocol import QtttEngine, serve
from .report import Report
from .runner import InProcessEngine, ProcessEngine, Runner
from .scope import rule_ids
from .suite import build_suite

__all__ = [
    "InProcessEngine", "ProcessEngine", "QtttEngine", "Report", "Runner", "build_suite", "divide",
    "perft", "perft_counts", "rule_ids", "serve",
]
