"""Every reading of the rule vocabulary is pinned by some committed conformance suite; the coverage
variants of spec/coverage/ have suites that pass the check; the table on the conformance page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from qttt.conformance.check import check_files
from qttt.conformance.scope import rule_ids
from qttt.conformance.suite import coverage_variants_dir, coverage_vectors_dir, vectors_dir
from qttt.conformance.values import readings, ruleset_readings, value_coverage
from qttt.docgen.pages import conformance_page
from qttt.variant import load_ruleset

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(vectors_dir().glob("**/*.json"))
SUITES = [json.loads(p.read_text(encoding="utf-8")) for p in FILES]


def test_every_reading_is_pinned_by_a_suite() -> None:
    uncovered = [(what, value) for what, value, names in value_coverage(SUITES) if not names]
    assert uncovered == []


def test_a_reading_only_a_coverage_variant_uses_is_reported_uncovered_without_it() -> None:
    others = [s for s in SUITES if s["ruleset"]["name"] != "creator-no-2-cycles"]
    table = {(what, value): names for what, value, names in value_coverage(others)}
    assert table[("measurer", "creator")] == []
    assert table[("two_cycles", "false")] == []
    assert table[("measurer", "opponent")]


def test_readings_enumerate_the_declared_values() -> None:
    """Written out from the declarations of qttt.vocabulary, not derived from them."""
    have = set(readings())
    for reading in [("measurer", "opponent"), ("measurer", "creator"), ("two_cycles", "true"),
                    ("two_cycles", "false"), ("last_square", "end"), ("untouched", "vanish"),
                    ("end", "full"), ("end_line", "not 0"), ("board", "not 3"),
                    ("full_block", "drawn-first"), ("bonus", "block-win"), ("route", "a list"),
                    ("block_patterns", "contains diamonds"), ("scoring.award", "draw-majority"),
                    ("scoring.pattern", "square"), ("first-line.double", "stated"),
                    ("first-line.tie", "stated"), ("first-line.fallback", "min-sum"),
                    ("rank.ranks", "a list"), ("draw-majority.weights", "a list"),
                    ("draw-majority.equal", "not 1/2")]:
        assert reading in have, reading
    assert len(have) == len(readings())


def test_ruleset_readings_of_a_header() -> None:
    header: dict[str, Any] = {"game": "quantum", "board": 4, "measurer": "creator", "two_cycles": False,
                              "end_line": 0, "scoring": [{"award": "first-line", "pattern": "line",
                                                          "length": 0, "sole": "1", "first": "0",
                                                          "double": "2", "tiebreak": ["min-sum"]}]}
    got = ruleset_readings(header)
    assert {("board", "not 3"), ("measurer", "creator"), ("two_cycles", "false"),
            ("end_line", "0 (default)"), ("first-line.sole", "not 0"), ("first-line.double", "stated"),
            ("first-line.tiebreak", "min-sum"), ("scoring.length", "0 (board size)")} <= got
    assert ("first-line.first", "not 0") not in got and ("first-line.tie", "stated") not in got


def test_coverage_suites_are_committed_and_pass_the_check() -> None:
    variants = sorted(coverage_variants_dir().glob("*.toml"))
    suites = sorted(coverage_vectors_dir().glob("*.json"))
    assert [p.stem for p in suites] == [p.stem for p in variants] and len(variants) >= 5
    problems, count = check_files(suites, vectors_dir() / "RETIRED")
    assert problems == [] and count > 100


def test_a_line_of_two_leaves_the_full_board_rules_unreachable() -> None:
    """Any 2×2 block holds four pairwise adjacent cells, so a board with at most one open cell has
    a line of two, and the game ended before: end-full and last-square are out of scope."""
    ids = rule_ids(load_ruleset(str(coverage_variants_dir() / "lines-of-two.toml")))
    assert "end-full" not in ids and "last-square" not in ids and "end-line" in ids
    assert "end-full" in rule_ids(load_ruleset("wikipedia"))


def test_conformance_page_shows_the_table() -> None:
    page = "\n".join(conformance_page(ROOT))  # the docs hook builds the page from this
    assert "## Parameter values covered" in page
    assert "| `measurer` | creator | creator-no-2-cycles |" in page
    assert "**none**" not in page
