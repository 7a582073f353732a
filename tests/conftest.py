"""Shared test configuration: the lanes and Hypothesis profiles (tests/support/lanes.py: `quick`,
`slow`, `docs`, `frameworks`, `browser`, `crosshair`; profiles default, quick, ci, nightly), and
tests/support on the import path (the reference model, bridges and fixtures the tests share; no test
imports another)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))

from lanes import (  # noqa: F401  (the lanes plugin's hooks, registered with this conftest)
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_report_header,
    pytest_sessionfinish,
)
