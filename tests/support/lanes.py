"""The test lanes (a pytest plugin, loaded by tests/conftest.py).

A lane marker says what a test costs or needs; the `quick` lane is every test that carries none of
them (`pytest -m quick`: what a contributor runs after a change, with the `dev` extra). CI runs
every lane but `deep` (`-m "not deep"`): the bigger cases of tests CI runs smaller, run before a
release (`-m deep`). The Hypothesis profile of a run is chosen here too: `ci` under CI (derandomised, full
counts), `quick` for the quick lane (fewer examples, see `examples`), else `default`; the
HYPOTHESIS_PROFILE variable or `--hypothesis-profile` overrides the choice.

Under CI a test skipped because something is missing (a package, a program, the C compiler) fails
the run: CI installs everything, so such a skip would hide a lane that never ran.
"""

from __future__ import annotations

import os
import re

import pytest
from hypothesis import HealthCheck, settings

# Each lane: its marker and what puts a test in it. pyproject.toml registers the same markers
# (tests/project/test_lanes.py holds the two together).
LANES: dict[str, str] = {
    "slow": "takes more than a couple of seconds (a walk, a checker run, many subprocesses)",
    "deep": "a sweep too large for CI (minutes on two cores): a bigger case of a test CI runs smaller",
    "docs": "needs the docs extra (MkDocs): builds or reads the site",
    "frameworks": "needs OpenSpiel or PettingZoo (the openspiel and pettingzoo extras)",
    "browser": "drives a headless Chromium",
    "crosshair": "Hypothesis with the CrossHair backend (symbolic, Z3)",
}
QUICK = "quick"
QUICK_EXAMPLES = 10  # the most examples a Hypothesis test runs in the quick lane
# What a skip for something missing says (a package, a program, a compiled core).
MISSING = re.compile(r"is not installed|could not import|unavailable|no C compiler|no compiled core|"
                     r"cannot be built")

settings.register_profile("default", max_examples=100, deadline=None)
settings.register_profile("ci", max_examples=100, deadline=None, derandomize=True,
                          print_blob=True, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("quick", max_examples=QUICK_EXAMPLES, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("nightly", max_examples=5000, deadline=None)

PROFILE = "default"


def examples(n: int, quick: int = QUICK_EXAMPLES) -> int:
    """The count (Hypothesis examples, games) of a test that asks for `n`: n, at most `quick` in the
    quick lane (CI and the full run keep n)."""
    return min(n, quick) if PROFILE == "quick" else n


def profile_for(markexpr: str, environ: dict[str, str] | os._Environ[str]) -> str:
    """The Hypothesis profile of a run selecting `markexpr`."""
    if environ.get("HYPOTHESIS_PROFILE"):
        return environ["HYPOTHESIS_PROFILE"]
    if environ.get("CI"):
        return "ci"
    return "quick" if markexpr.strip() == QUICK else "default"


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    global PROFILE
    PROFILE = config.getoption("hypothesis_profile", None) or profile_for(config.option.markexpr or "",
                                                                          os.environ)
    settings.load_profile(PROFILE)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark `quick` every test no lane claims (before `-m` selects)."""
    for item in items:
        if not any(item.get_closest_marker(lane) for lane in LANES):
            item.add_marker(QUICK)


def pytest_report_header(config: pytest.Config) -> str:
    return f"lanes: {', '.join(LANES)}; the rest is {QUICK!r}; hypothesis profile {PROFILE!r}"


def missing_skips(reports: list[pytest.TestReport | pytest.CollectReport]) -> list[str]:
    """`where: reason` of each skip among `reports` whose reason says something is missing."""
    out = []
    for rep in reports:
        if rep.skipped and isinstance(rep.longrepr, tuple):
            where, line, reason = rep.longrepr
            if MISSING.search(str(reason)):
                out.append(f"{where}:{line}: {reason}")
    return out


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Under CI, fail a run in which a test was skipped for something missing."""
    if not os.environ.get("CI") or hasattr(session.config, "workerinput"):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    found = missing_skips(reporter.stats.get("skipped", []))
    if found:
        reporter.write_sep("=", "CI: tests skipped for something missing (CI must run every lane)", red=True)
        for line in dict.fromkeys(found):
            reporter.write_line(line)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
