"""Shared test configuration: the lanes and Hypothesis profiles (tests/support/lanes.py: `quick`,
`slow`, `docs`, `frameworks`, `browser`, `crosshair`; profiles default, quick, ci, nightly), and
tests/support on the import path (the reference model, bridges and fixtures the tests share; no test
imports another)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))

from lanes import (  # noqa: F401  (the lanes plugin's hooks, registered with this conftest)
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_report_header,
    pytest_sessionfinish,
)
from signals import dispositions


@pytest.fixture(autouse=True)
def _signals_left_as_found(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test that leaves this process's SIGINT or SIGTERM disposition (or mask) changed:
    what a test leaves, every later test of the worker inherits, and so do the commands they start
    (one started with SIGINT ignored rightly ignores Ctrl-C)."""
    found = dispositions()
    yield
    left = dispositions()
    if left != found:
        pytest.fail(f"{request.node.nodeid} left the test process's signals changed: {found} before, "
                    f"{left} after", pytrace=False)
