"""Every file under spec/, docs/ and results/ is either a hand-written source declared here or the
output of a named generator, written where that generator writes it; the site's generated pages
are on no disk path at all (the docs hook builds them). So a generated file cannot land among the
normative sources unnoticed. The classes and their reasons: docs/developers.md."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from qttt.analysis.results import result_path
from qttt.conformance.suite import shipped_suites, vectors_dir
from qttt.docgen import generate
from qttt.variant import builtin_names, load_ruleset

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("spec", "docs", "results")

# Hand-written sources: paths and patterns relative to the repository (fnmatch within one folder:
# a pattern never matches a deeper path).
SOURCES: dict[str, str] = {
    "spec/rules.toml": "the rule catalogue",
    "spec/variants/*.toml": "the built-in rulesets",
    "spec/coverage/*.toml": "the coverage variants",
    "spec/editions/*.toml": "example variant files of a family",
    "spec/i18n/*.toml": "the rulebooks' words in each language",
    "spec/ambiguities.toml": "the ambiguity register",
    "spec/sources.toml": "the sources",
    "spec/claims.toml": "the sources' figures and how they are recomputed",
    "spec/glossary.toml": "the players' glossary",
    "spec/examples.toml": "the worked examples",
    "spec/rulebook.toml": "which paragraphs each rulebook holds",
    "spec/protocol.md": "the engine protocol",
    "spec/codecup.md": "the CodeCup adapter's protocol",
    "spec/match-records.md": "the match record format",
    "spec/tour.md": "the tour file format",
    "spec/schema/conformance-report.schema.json": "a hand-written schema",
    "spec/schema/record.schema.json": "a hand-written schema",
    "spec/schema/state.schema.json": "a hand-written schema",
    "spec/schema/vectors.schema.json": "a hand-written schema",
    "docs/play.md": "the play page",
    "docs/variant-files.md": "writing a variant file",
    "docs/families.md": "adding a game family",
    "docs/developers.md": "these notes",
    "docs/cluster.md": "walks on many cores and on a cluster",
    "docs/implementers.md": "the implementer's guide",
    "docs/implementers/qttt-wikipedia.js": "the guide's engine, written from the rule pages",
    "docs/frameworks.md": "OpenSpiel and PettingZoo",
    "docs/hostile-input.md": "the bad-input contract",
    "docs/reference/api.md": "the Python API page (mkdocstrings renders the docstrings)",
    "docs/assets/*": "the site's stylesheets and scripts",
    "docs/hooks/*.py": "the MkDocs hooks",
    "results/analysis/README.md": "the result format",
    "results/analysis/scale/runs.toml": "each scale run's command and time",
    "results/analysis/chance/runs.toml": "each chance curve's (and solve's) command and time",
    "results/analysis/scale/bonus4x4-verdonschot.toml": "the variant file a scale run reads",
}


def _vectors() -> set[str]:
    """What `qttt vectors generate` writes: a suite per built-in ruleset (a family's own folder
    for some), per edition and coverage variant, and the retired-id list."""
    return {_rel(p) for p in [*(p for _, p in shipped_suites()), vectors_dir() / "RETIRED"]}


def _analysis() -> set[str]:
    """The files `qttt analyze TASK NAME -o results/analysis/NAME.json` writes: one per built-in
    ruleset (`--save` writes to the user's data directory, never here)."""
    return {_rel(result_path(load_ruleset(n))) for n in builtin_names(None)}


def _scale() -> set[str]:
    """The -o targets of the scale runs' commands."""
    runs = tomllib.loads((ROOT / "results" / "analysis" / "scale" / "runs.toml").read_text(encoding="utf-8"))
    return {m[1] for r in runs["run"] if (m := re.search(r" -o (\S+)", r["command"]))}


def _chance() -> set[str]:
    """The -o targets of the chance runs' commands (curves and solves)."""
    runs = tomllib.loads((ROOT / "results" / "analysis" / "chance" / "runs.toml").read_text(encoding="utf-8"))
    commands = [r["command"] for r in [*runs["run"], *runs.get("solve", [])]]
    return {m[1] for c in commands if (m := re.search(r" -o (\S+)", c))}


def _rel(path: Path) -> str:
    return path.resolve().relative_to(ROOT).as_posix()


@dataclass(frozen=True)
class Generated:
    """One generator's outputs: its command (where the commands are listed, for the scale runs),
    what it writes (repository paths), whether all of it is committed (else only some may be, e.g.
    results for some rulesets), and its drift test."""

    command: str
    writes: Callable[[], set[str]]
    every: bool
    drift_test: str


GENERATED = (
    Generated("qttt vectors generate", _vectors, True, "tests/conformance/test_nested_conformance.py"),
    Generated("python -m qttt.schema", lambda: {"spec/schema/variant.schema.json"}, True,
              "tests/notation/test_schema.py"),
    Generated("qttt analyze TASK NAME -o results/analysis/NAME.json", _analysis, False,
              "tests/analysis/test_analysis_results.py"),
    Generated("results/analysis/scale/runs.toml", _scale, True,
              "tests/analysis/test_scale_results.py"),
    Generated("results/analysis/chance/runs.toml", _chance, True,
              "tests/analysis/test_expectimax.py"),
    Generated("qttt check --all --json-document --no-timing", lambda: {"results/verification/report.json"},
              True, "tests/verify/test_verification_report.py"),
    Generated("python -m verify.quantum.published",
              lambda: {"results/verification/walks/bonus4x4.json"}, True,
              "tests/verify/test_published_walks.py"),
    Generated("python -m qttt.quantum.analysis.contrast", lambda: {"results/contrasts.json"}, True,
              "tests/docs/test_examples.py"),
    Generated("qttt.quantum.compiled.config_header()", lambda: {"qttt/quantum/_config.h"}, True,
              "tests/analysis/test_compiled.py"),
)


def on_disk() -> list[str]:
    """Every file under the checked folders (caches excluded), relative to the repository."""
    return sorted(p.relative_to(ROOT).as_posix() for folder in FOLDERS for p in (ROOT / folder).rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts)


def _matches(path: str, pattern: str) -> bool:
    """fnmatch, part by part: `*` stays inside one folder."""
    parts, pats = path.split("/"), pattern.split("/")
    return len(parts) == len(pats) and all(map(fnmatch.fnmatchcase, parts, pats))


def unclaimed(paths: list[str], written: set[str]) -> list[str]:
    """The paths neither declared a source nor written by a generator."""
    return [p for p in paths if p not in written and not any(_matches(p, pat) for pat in SOURCES)]


def test_every_file_is_a_declared_source_or_a_generators_output() -> None:
    written = set().union(*(g.writes() for g in GENERATED))
    assert unclaimed(on_disk(), written) == [], (
        "declare each as a source in SOURCES or add its generator to GENERATED (docs/developers.md)")


def test_no_file_is_both_a_source_and_generated() -> None:
    for g in GENERATED:
        both = [p for p in g.writes() if not unclaimed([p], set())]
        assert both == [], g.command


def test_each_generator_writes_where_its_outputs_are_committed() -> None:
    for g in GENERATED:
        writes = g.writes()
        missing = sorted(p for p in writes if not (ROOT / p).is_file())
        assert writes, g.command
        committed = missing == [] if g.every else len(missing) < len(writes)
        assert committed, f"{g.command}: not committed: {missing}"
        assert (ROOT / g.drift_test).is_file(), g.drift_test


def test_the_site_generator_writes_nothing_into_the_sources() -> None:
    """The docs hook builds these at build time; a copy on disk would be a drifting duplicate."""
    generated = set(generate())
    assert {p for p in generated if p.startswith("docs/")}
    assert sorted(generated & set(on_disk())) == []


def test_a_planted_generated_file_is_caught() -> None:
    """The check fails on what it is for: generated files among the sources, in old or new places."""
    written = set().union(*(g.writes() for g in GENERATED))
    planted = ["spec/rules/common.md", "spec/analysis/kumar.json", "spec/verification/report.json",
               "docs/rules/common.md", "docs/boards/x.svg", "docs/index.md", "spec/variants/x/y.toml",
               "spec/contrasts.json", "results/analysis/extra.txt"]
    assert unclaimed(planted, written) == planted
    assert unclaimed(["spec/variants/wikipedia.toml", "docs/assets/site.css"], written) == []


def test_the_developers_notes_name_every_generator_and_drift_test() -> None:
    notes = (ROOT / "docs" / "developers.md").read_text(encoding="utf-8")
    for g in GENERATED:
        assert f"`{g.drift_test}`" in notes and g.command in notes, g.command
    assert "python -m qttt.docgen --out DIR" in notes
