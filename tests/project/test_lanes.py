"""The test lanes (tests/support/lanes.py): the markers pyproject.toml registers are the lanes, the
quick lane is every test no lane claims, runs with the quick Hypothesis profile, and under CI a test
skipped for something missing fails the run (with pytest-xdist too, as CI runs it)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import lanes
import pytest

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "tests" / "support"

PLANTED = '''
import os
import pytest
import lanes

def test_plain():
    assert lanes.PROFILE == os.environ["EXPECT_PROFILE"]
    assert lanes.examples(30) == int(os.environ["EXPECT_EXAMPLES"])

@pytest.mark.slow
def test_marked():
    pass

@pytest.mark.docs
@pytest.mark.parametrize("n", [1, 2])
def test_marked_params(n):
    pass

def test_missing():
    pytest.importorskip("no_such_package_qttt", reason="no_such_package_qttt is not installed")

def test_environment():
    pytest.skip("root reads every file")
'''


def _pytest(tmp_path: Path, *args: str, ci: bool, profile: str,
            examples: int) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_planted.py").write_text(PLANTED)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "HYPOTHESIS_PROFILE")}
    env.update(PYTHONPATH=os.pathsep.join([str(SUPPORT), str(ROOT)]), EXPECT_PROFILE=profile,
               EXPECT_EXAMPLES=str(examples), **({"CI": "true"} if ci else {}))
    return subprocess.run([sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir",
                           str(tmp_path), "-p", "lanes", "-p", "no:cacheprovider", "-q", "-rs", *args,
                           str(tmp_path / "test_planted.py")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_pyproject_registers_the_lanes_and_quick() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    ini = pyproject["tool"]["pytest"]["ini_options"]
    registered = dict(m.split(": ", 1) for m in ini["markers"])
    assert registered == {lanes.QUICK: registered[lanes.QUICK], **lanes.LANES}
    assert "--strict-markers" in ini["addopts"]


def test_the_quick_lane_is_the_complement_with_its_profile(tmp_path: Path) -> None:
    proc = _pytest(tmp_path, "-m", "quick", ci=False, profile="quick", examples=lanes.QUICK_EXAMPLES)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed, 2 skipped, 3 deselected" in proc.stdout, proc.stdout
    proc = _pytest(tmp_path, ci=False, profile="default", examples=30)
    assert proc.returncode == 0 and "4 passed, 2 skipped" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.slow  # three pytest runs, one with workers; it guards CI, which runs it
def test_ci_fails_on_a_skip_for_something_missing_and_only_on_that(tmp_path: Path) -> None:
    proc = _pytest(tmp_path, "-n", "2", ci=True, profile="ci", examples=30)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = proc.stdout.split("CI: tests skipped for something missing", 1)[1].split("short test summary")[0]
    assert "no_such_package_qttt is not installed" in report and "root reads every file" not in report
    proc = _pytest(tmp_path, "-k", "not missing", ci=True, profile="ci", examples=30)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_explicit_example_count_goes_through_the_lane() -> None:
    """An explicit max_examples is `lanes.examples(n)`, so that the quick lane stays quick and CI
    keeps n; a literal count would run in full in the quick lane."""
    literal = re.compile(r"max_examples=\d")
    files = [p for p in sorted((ROOT / "tests").rglob("*.py")) if p != SUPPORT / "lanes.py"]  # the profiles
    found = [f"{p.relative_to(ROOT)}:{i}" for p in files
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1)
             if literal.search(line)]
    assert found == []
