"""Design properties (issue 30 item 6, verify.design): rules that cannot matter are reported as
findings of their own kind, with a replayed witness game or an argument that states its bound;
`--strict` fails on them, the default exit status does not; a finding is reported exactly when an
independent brute force (the reference model, every game of a 2×2 board) says the rule cannot
matter; no shipped ruleset has a finding the ambiguity register does not keep."""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples
from reference import RULE_DEFAULTS, RefGame, load_variant

from qttt import load_ruleset
from qttt.geometry import lines
from qttt.notation import record_from_json
from qttt.quantum.engine import quantum_state
from qttt.vocabulary import PARAMETERS
from verify import cli
from verify.design import check
from verify.quantum.design import designed_games, designs
from verify.report import KINDS, Design, Report, Witness

ROOT = Path(__file__).resolve().parents[2]


def variant(tmp_path: Path, text: str) -> str:
    path = tmp_path / "variant.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def by_key(found: list[Design]) -> dict[tuple[str, str], Design]:
    return {(d.kind, d.key): d for d in found}


# The designer traps ------------------------------------------------------------------------------


def test_a_game_ending_on_a_line_that_scores_nothing_is_a_finding_with_a_replayed_witness(
        tmp_path: Path) -> None:
    """Issue 30's slip: 4×4, the first line of three ends the game, the inherited scoring counts
    lines of four: a won game scores x 0, o 0. The witness replays, in the engine and in the
    reference model, to a finished game where a player holds a line of three and nobody scores."""
    spec = variant(tmp_path, '[variant]\nname = "slip"\nextends = "wikipedia"\n[rules]\nboard = 4\n'
                             'end_line = 3\n')
    rs = load_ruleset(spec)
    found = by_key(designs(rs, spec, designed_games(rs)[:8], games=20, budget=200))
    d = found[("end-scored", "end-line")]
    assert d.verdict == "finding" and d.witness is not None and d.settled.startswith("a game, replayed")
    assert "scores nothing" in d.statement and d.rules[0] == "end-line"
    assert "scores x 0, o 0: " in d.witness.shows and " holds the line " in d.witness.shows
    final = quantum_state(record_from_json(d.witness.record).replay())
    assert final.over and final.scores == {"x": 0, "o": 0}
    owners = {final.classical[c] % 2 if final.classical[c] else None for line in lines(4, 3)
              for c in line.cells if all(final.classical[i] for i in line.cells)
              and len({final.classical[i] % 2 for i in line.cells}) == 1}
    assert owners - {None}, "a player holds a line of three"
    ref = RefGame(load_variant(spec))
    for act in d.witness.record["actions"]:
        ref.apply(act)
    assert ref.phase == "over" and ref.scores == {"x": 0, "o": 0}
    # the same game under lines of three scored: no finding
    fixed = variant(tmp_path, '[variant]\nname = "fixed"\nextends = "wikipedia"\n[rules]\nboard = 4\n'
                              'end_line = 3\n[[scoring]]\naward = "first-line"\nlength = 3\nsole = "1"\n'
                              'first = "1"\nsecond = "1/2"\ntiebreak = ["min-max"]\n')
    rs = load_ruleset(fixed)
    again = by_key(designs(rs, fixed, [], games=0, budget=10))[("end-scored", "end-line")]
    assert again.verdict == "clean" and again.settled == "proved (every end line contains an award's pattern)"


def test_an_award_no_game_earns_and_an_end_no_game_reaches(tmp_path: Path) -> None:
    """On 2×2 a square is the whole board, which no player holds (two cells each), and every full
    board holds a line of two, so the game never ends full; both settled by the whole walk."""
    spec = variant(tmp_path, '[variant]\nname = "square"\nextends = "wikipedia"\n[rules]\nboard = 2\n'
                             '[[scoring]]\naward = "first-line"\nsole = "1"\nfirst = "1"\nsecond = "1/2"\n'
                             'tiebreak = ["min-max"]\n[[scoring]]\naward = "per-pattern"\n'
                             'pattern = "square"\nlength = 2\n')
    found = by_key(check(spec, games=10, budget=5000))
    award = found[("award-earned", "scoring[1]")]
    assert award.verdict == "finding" and award.witness is None
    assert award.settled.startswith("proved (exhaustive: every reachable position of both")
    assert found[("award-earned", "scoring[0]")].verdict == "clean"
    assert found[("award-earned", "scoring[0]")].witness is not None
    end = found[("end-reached", "end-full")]
    assert end.verdict == "finding" and "exhaustive" in end.settled
    line = found[("end-reached", "end-line")]
    assert line.verdict == "clean" and line.witness is not None
    assert quantum_state(record_from_json(line.witness.record).replay()).over


def test_a_value_that_changes_no_game_is_settled_by_an_argument_where_the_walk_stops(tmp_path: Path) -> None:
    """A tie under min-max is never paid (an x line's largest move number is odd, an o line's even):
    on 3×3 the walk stops at its bound and the family's argument settles it."""
    spec = variant(tmp_path, '[variant]\nname = "dead-tie"\nextends = "wikipedia"\n[[scoring]]\n'
                             'award = "first-line"\nsole = "1"\nfirst = "1"\nsecond = "1/2"\ntie = "1/2"\n'
                             'tiebreak = ["min-max"]\n')
    found = by_key(check(spec, games=10, budget=300))
    tie = found[("value-matters", "scoring[0].tie")]
    assert tie.verdict == "finding" and tie.settled.startswith("proved (case analysis")
    assert found[("value-matters", "scoring[0].second")].verdict == "clean"


# Exactly when the brute force says so --------------------------------------------------------------


SCORINGS = [
    [],
    [{"award": "first-line", "sole": "1", "first": "1", "second": "1/2", "tiebreak": ["min-max"]}],
    [{"award": "first-line", "sole": "1", "tie": "1/2"}],
    [{"award": "per-pattern", "pattern": "square", "length": 2}],
    [{"award": "rank", "pattern": "line", "length": 2, "ranks": ["1", "1/4"]}],
]


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(str(value))


def ref_differs(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether some game the reference model plays under parameters a goes differently under b (its
    state or legal actions after some action, or b refuses it): every game, breadth first."""
    start = (RefGame(a, "v"), RefGame(b, "v"))
    todo, seen = [start], set()
    while todo:
        x, y = todo.pop()
        if x.state() != y.state() or x.legal() != y.legal():
            return True
        key = json.dumps([x.state(), y.state()], sort_keys=True, default=str)
        if key in seen or x.phase == "over":
            continue
        seen.add(key)
        for act in x.legal():
            x2, y2 = copy.deepcopy(x), copy.deepcopy(y)
            x2.apply(act)
            try:
                y2.apply(act)
            except Exception:
                return True
            todo.append((x2, y2))
    return False


QUANTUM = [p for p in PARAMETERS if "quantum" in p.games and p.name not in ("game", "board")]


@st.composite
def small_variants(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Rule parameters of a 2×2 game drawn from the vocabulary's declarations (each value allowed
    where the values it needs are), and a scoring from SCORINGS."""
    small = {p.name: [v for v in p.allowed if isinstance(v, bool) or not isinstance(v, int) or v <= 2]
             for p in QUANTUM}
    drawn = {p.name: draw(st.sampled_from(small[p.name]), p.name) for p in QUANTUM}
    rules = {p.name: drawn[p.name] for p in QUANTUM
             if all(drawn[other] in ok for other, ok in getattr(p, "needs", ()))}
    return rules, draw(st.sampled_from(SCORINGS))


@pytest.mark.slow
@given(small_variants())
@settings(max_examples=examples(8, 4))
def test_a_finding_is_reported_exactly_when_the_brute_force_says_the_rule_cannot_matter(
        drawn: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    rules, scoring = drawn
    text = '[variant]\nname = "drawn"\nextends = "wikipedia"\n[rules]\nboard = 2\n'
    text += "".join(f"{k} = {toml_value(v)}\n" for k, v in rules.items())
    for table in scoring:
        text += "[[scoring]]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in table.items())
    with tempfile.TemporaryDirectory() as tmp:
        spec = variant(Path(tmp), text)
        found = check(spec, games=5, budget=20_000)
        params = load_variant(spec)
    for d in found:
        assert d.verdict in ("clean", "finding"), d  # a 2×2 board is walked whole: always settled
        if d.kind == "value-matters" and "." not in d.key:  # a rule parameter: its default in its place
            other = {**params, d.key: RULE_DEFAULTS[d.key]}
            for p in QUANTUM:  # a value that needs the reset one goes back to its default too
                if any(name == d.key and other[d.key] not in ok for name, ok in getattr(p, "needs", ())):
                    other[p.name] = RULE_DEFAULTS[p.name]
        elif d.kind == "award-earned":  # the component left out
            index = int(d.key[len("scoring["):-1])
            other = {**params, "scoring": [c for i, c in enumerate(params["scoring"]) if i != index]}
        else:
            continue
        assert (d.verdict == "finding") == (not ref_differs(params, other)), (text, d)
        if d.verdict == "clean":
            assert d.witness is not None


# Reported as their own kind ------------------------------------------------------------------------


def report_with(design: list[Design]) -> Report:
    return Report("slip.toml", "slip", "slip-canonical", 4, [], 0, 0.0, design=design)


FINDING = Design("end-scored", "end-line", "end-line: a line of 3 ends the game", "finding",
                 "a game can end on a line of 3 that scores nothing", "a game, replayed (6 actions)",
                 ("end-line",), Witness({"variant": "wikipedia", "actions": [{"place": [0, 1]}]}, "it shows"))


def test_strict_fails_on_a_design_finding_and_the_default_exit_does_not() -> None:
    reports = [report_with([FINDING])]
    assert cli.exit_status(reports, strict=False) == 0
    assert cli.exit_status(reports, strict=True) == 1
    line = cli.summary(reports, strict=True)
    assert "design findings: slip.toml" in line and "0 without findings" in line
    assert line.endswith("exit status 1 (--strict)")
    clean = [report_with([Design("end-reached", "end-full", "s", "clean", "t", "u", ("end-full",))])]
    assert cli.exit_status(clean, strict=True) == 0 and "1 without findings" in cli.summary(clean, True)
    data = report_with([FINDING]).to_json(timing=False)
    assert data["design"] == [FINDING.to_json()] and data["design"][0]["verdict"] == "finding"
    assert all(f["status"] != "finding" for f in data["properties"])  # never a rule property's status


def test_the_text_and_markdown_reports_show_design_findings_with_their_witness() -> None:
    from rich.console import Console

    out = Console(record=True, width=200)
    clean = Design("end-reached", "end-full", "s", "clean", "a game ends full", "a game, replayed",
                   ("end-full",))
    cli.print_design(out, report_with([FINDING, clean]))
    text = out.export_text()
    assert "end-scored: end-line" in text and "finding" in text and '{"place": [0, 1]}' in text
    assert "end-full" not in text and "slip.toml: 1 design property clean" in text
    rep = {**report_with([FINDING]).to_json(timing=False), "properties": []}
    md = "\n".join(cli.markdown({"catalogue": [], "statuses": {}, "rulesets": [rep]}))
    assert "| `end-scored`: `end-line` | finding |" in md
    assert all(f"| `{kind}` |" in md for kind in KINDS)


def test_no_shipped_ruleset_has_a_design_finding_the_register_does_not_keep() -> None:
    """From the committed report (its drift test reruns the checker): every quantum ruleset has its
    design properties, each finding names the ambiguity-register point that keeps it, and no
    property is left unknown."""
    data = json.loads((ROOT / "results" / "verification" / "report.json").read_text(encoding="utf-8"))
    quantum = [r for r in data["rulesets"] if load_ruleset(r["ruleset"]).game == "quantum"]
    assert quantum and all(r.get("design") for r in quantum)
    for r in data["rulesets"]:
        for d in r.get("design", ()):
            assert d["verdict"] != "unknown", (r["ruleset"], d)
            assert d["verdict"] == "clean" or "documented" in d, (r["ruleset"], d)
            if d["verdict"] == "clean" and d["kind"] in ("value-matters", "award-earned"):
                assert "witness" in d

