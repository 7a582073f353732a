"""Discriminating vectors (issue 30 item 7): every setting of a ruleset that is not the default is
told apart by a case of its suite, so that the suite fails an engine that ignores the value; `qttt
vectors check` fails otherwise, naming the parameter and value; every value of the vocabulary is
told apart by some committed suite."""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples

from qttt import load_ruleset, with_params
from qttt.conformance.check import check_files, check_suite
from qttt.conformance.protocol import QtttEngine
from qttt.conformance.runner import InProcessEngine, Runner
from qttt.conformance.suite import build_suite, committed_suites, render, shipped_suites, vectors_dir
from qttt.conformance.telling import (
    STRUCTURAL,
    Setting,
    documented,
    telling_case,
    telling_game,
    tells,
    to_tell,
)
from qttt.conformance.telling import (
    settings as settings_of,
)
from qttt.conformance.values import default_readings, readings
from qttt.notation import Json
from qttt.ruleset import Ruleset, default_ruleset
from qttt.vocabulary import AWARD_DECLARATIONS, PARAMETER_BY_NAME, PARAMETERS

SHIPPED = {load_ruleset(name).name: (name, path) for name, path in shipped_suites()}


def suite_of(name: str) -> dict[str, Json]:
    data: dict[str, Json] = json.loads(SHIPPED[name][1].read_text(encoding="utf-8"))
    return data


class Ignoring(QtttEngine):
    """This package's engine, but asked for `variant` it plays `rules`: an engine that ignores one
    value of the ruleset (its counterpart's rules) and names the variant as asked."""

    def __init__(self, rules: Ruleset, variant: str) -> None:
        super().__init__()
        self.rules, self.playing = rules, variant

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        if request.get("cmd") == "new" and request.get("variant") == self.playing:
            from qttt.games import new_game

            self.state, self.variant = new_game(self.rules), request["variant"]
            return {"ok": True}
        return super().handle(request)


def failed(suite: dict[str, Json], rules: Ruleset) -> int:
    """How many cases of the suite an engine playing `rules` fails (at the core level)."""
    variant = suite["ruleset"]["canonical"]
    report = Runner(lambda: InProcessEngine(Ignoring(rules, variant))).run([suite], perft=False)
    return len(report.results) - report.count("core", "passed")


def fails_a_case(suite: dict[str, Json], setting: Setting) -> bool:
    """Whether an engine playing the setting's counterpart fails a case of the suite: its cases
    run one at a time, those that tell the setting apart first, up to the first failed (a case
    failed fails the suite; each failed case costs seconds on the large boards)."""
    cases = suite["cases"]
    assert isinstance(cases, list)
    ordered = sorted(cases, key=lambda c: not tells(c, setting))
    return any(failed({**suite, "cases": [case]}, setting.counterpart) for case in ordered)


def test_settings_are_every_value_off_its_default_with_the_default_in_its_place() -> None:
    rs = load_ruleset("spec/coverage/creator-no-2-cycles.toml")
    found = {s.field: s for s in settings_of(rs)}
    assert found["measurer"].value == "creator" and found["measurer"].default == "opponent"
    assert found["measurer"].counterpart.rules.measurer == "opponent"
    assert found["measurer"].counterpart.rules.two_cycles is False  # only the one value changes
    assert found["scoring[0].tie"].counterpart.scoring[0].get("tie") is None
    assert found["scoring[0]"].counterpart.scoring == ()  # the award left out
    assert ("measurer", "creator") in found["measurer"].readings
    assert "board" not in found and "game" not in found  # STRUCTURAL
    assert not settings_of(default_ruleset())


@given(st.data())
@settings(max_examples=examples(40))
def test_every_declared_parameter_value_off_the_default_is_a_setting(data: st.DataObject) -> None:
    """Derived from the declarations: any parameter of the quantum family at any allowed value."""
    drawn = {}
    for p in PARAMETERS:
        if "quantum" not in p.games or p.name in STRUCTURAL or p.type not in (bool, str, int):
            continue
        drawn[p.name] = data.draw(st.sampled_from([v for v in p.allowed if p.type is not int or v <= 3]),
                                  p.name)
    params = {name: value for name, value in drawn.items()  # where the values it needs are drawn
              if all(drawn.get(other) in ok for other, ok in PARAMETER_BY_NAME[name].needs)}
    rs = with_params(load_ruleset("wikipedia"), **params)
    fields = {s.field: s for s in settings_of(rs)}
    for name, value in params.items():
        default = next(p.default for p in PARAMETERS if p.name == name)
        assert (name in fields) == (value != default)
        if name in fields:
            assert fields[name].counterpart.value(name) == default
            # every other value kept, but one that needs another value of this parameter than the default
            kept = [k for k in params if k != name and all(other != name or default in ok
                                                           for other, ok in PARAMETER_BY_NAME[k].needs)]
            assert all(fields[name].counterpart.value(k) == rs.value(k) for k in kept)
            assert all(fields[name].counterpart.value(k) == PARAMETER_BY_NAME[k].default
                       for k in params if k not in kept and k != name)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_each_committed_suite_tells_each_setting_apart(name: str) -> None:
    rs = load_ruleset(SHIPPED[name][0])
    suite = suite_of(name)
    for setting in settings_of(rs):
        told = any(tells(case, setting) for case in suite["cases"])
        assert told or (rs.name, setting.field) in documented(), setting.text


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_an_engine_that_ignores_a_value_fails_the_suite(name: str) -> None:
    """Through the runner, as `qttt conform` judges an engine: for every setting, the engine playing
    the counterpart's rules fails a case."""
    rs = load_ruleset(SHIPPED[name][0])
    suite = suite_of(name)
    for setting in settings_of(rs):
        if (rs.name, setting.field) not in documented():
            assert fails_a_case(suite, setting), setting.text
    assert failed(suite, rs) == 0


def test_an_engine_that_ignores_the_tiebreak_fails_bonus4x4() -> None:
    """The case `qttt vectors generate` added for bonus4x4's min-sum (no other case tells it)."""
    suite = suite_of("bonus4x4")
    setting = next(s for s in settings_of(load_ruleset("bonus4x4")) if s.field == "scoring[2].tiebreak")
    case = next(c for c in suite["cases"] if c["id"] == "bonus4x4.tells-scoring-2-tiebreak")
    only = copy.deepcopy(suite)
    only["cases"] = [case]
    assert tells(case, setting)
    assert failed(only, setting.counterpart) == 1
    assert failed(only, load_ruleset("bonus4x4")) == 0


def without(suite: dict[str, Json], setting: Setting) -> dict[str, Json]:
    """The suite with every case that tells the setting apart removed."""
    out = copy.deepcopy(suite)
    out["cases"] = [c for c in suite["cases"] if not tells(c, setting)]
    return out


def test_vectors_check_names_a_setting_no_case_tells_apart() -> None:
    rs = load_ruleset(SHIPPED["creator-no-2-cycles"][0])
    suite = suite_of("creator-no-2-cycles")
    for field in ("measurer", "scoring[0].tie", "scoring[0]"):
        setting = next(s for s in settings_of(rs) if s.field == field)
        problems = check_suite(without(suite, setting), set(), {}, "here")
        assert (f"here: no case tells {setting.text} from the default {setting.default}: the suite passes "
                "an engine that ignores the value") in problems
        assert all("no case tells" in p or "is not exercised" in p for p in problems)


def test_a_setting_the_register_documents_as_changing_no_game_is_not_a_problem() -> None:
    assert documented() == {("ishizeki-complete", "scoring[0].tie"): "ishizeki-tie",
                            ("chance-second-draw", "scoring[0].tie"): "ishizeki-tie",
                            ("lines-of-two", "end-full"): "game-end"}
    problems = check_suite(suite_of("ishizeki-complete"), set(), {}, "here")
    assert problems == []


def test_vectors_check_of_every_suite_names_a_value_no_suite_tells_apart(tmp_path: Path) -> None:
    """Without the only suites whose ruleset measures by its creator, the value is told apart by
    none: `qttt vectors check` (every committed suite) says so."""
    kept = [p for p in committed_suites() if p.stem != "creator-no-2-cycles"]
    problems, _ = check_files(kept, vectors_dir() / "RETIRED", every=True)
    assert ("measurer = creator: no suite tells it from the default (no suite's ruleset has the value, "
            "or none of its cases changes without it)") in problems
    assert "two_cycles = false" in " ".join(problems)
    every, _ = check_files(committed_suites(), vectors_dir() / "RETIRED", every=True)
    assert every == []


def test_values_to_tell_are_the_declared_values_off_their_defaults() -> None:
    """Written out, not derived: a value of each kind."""
    must = set(to_tell())
    for reading in [("measurer", "creator"), ("two_cycles", "false"), ("end_line", "not 0"),
                    ("route", "a list"), ("bonus", "chain"), ("scoring.award", "rank"),
                    ("scoring.pattern", "square"), ("first-line.tie", "stated"),
                    ("first-line.tiebreak", "min-sum"), ("rank.ranks", "a list"),
                    ("draw-majority.weights", "a list")]:
        assert reading in must, reading
    for reading in [("measurer", "opponent"), ("board", "not 3"), ("game", "classical"),
                    ("scoring.pattern", "line"), ("rank.ranks", "harmonic"), ("end_line", "0 (default)")]:
        assert reading not in must, reading
    assert must | default_readings() | {r for r in readings() if r[0] in STRUCTURAL} == set(readings())


def variant(tmp_path: Path, text: str) -> Ruleset:
    path = tmp_path / "variant.toml"
    path.write_text(text, encoding="utf-8")
    return load_ruleset(str(path))


def test_a_dead_value_gets_no_case_and_fails_the_check(tmp_path: Path) -> None:
    """A tie under min-max can never be used (an x line's largest move number is odd, an o line's
    even): no game tells it apart, the generator adds nothing, and the check names it."""
    rs = variant(tmp_path, '[variant]\nname = "dead-tie"\nextends = "wikipedia"\n[[scoring]]\n'
                 'award = "first-line"\nsole = "1"\nfirst = "1"\nsecond = "1/2"\ntie = "1/2"\n'
                 'tiebreak = ["min-max"]\n')
    setting = next(s for s in settings_of(rs) if s.field == "scoring[0].tie")
    assert telling_case(rs, setting, games=50) is None
    suite = json.loads(render(build_suite(rs)))
    assert not any(c["id"].endswith(".tells-scoring-0-tie") for c in suite["cases"])
    problems = check_suite(suite, set(), {}, "here")
    assert problems == ["here: no case tells scoring[0].tie = 1/2 from the default unstated: the suite "
                        "passes an engine that ignores the value"]


def test_the_generator_adds_the_shortest_telling_case_it_finds(tmp_path: Path) -> None:
    rs = variant(tmp_path, '[variant]\nname = "creator"\nextends = "wikipedia"\n[rules]\n'
                 'measurer = "creator"\n')
    setting = next(s for s in settings_of(rs) if s.field == "measurer")
    found = telling_game(rs, setting.counterpart, games=20)
    assert found is not None and found.what in ("to_move", "legal actions")
    # the first cycle is the earliest difference: two placements on the same cells (a 2-cycle)
    assert len(found.actions) == 2
    case = telling_case(rs, setting, games=20)
    assert case is not None and case.slug == "tells-measurer" and len(case.description) <= 100
    assert case.refs == ("measure-by",)


def test_telling_game_takes_given_games_first() -> None:
    rs = load_ruleset("kumar")
    other = with_params(rs, end="first-line")
    given_game: list[Any] = [{"place": [0, 1]}, {"place": [1, 2]}, {"place": [2, 0]}, {"measure": 0}]
    found = telling_game(rs, other, games=0, given=[given_game])
    assert found is None  # no line yet: both go on alike
    line = [{"place": [0, 3]}, {"place": [0, 3]}, {"measure": 3}, {"place": [1, 4]}, {"place": [1, 4]},
            {"measure": 4}, {"place": [2, 5]}, {"place": [2, 5]}, {"measure": 5}]
    found = telling_game(rs, other, games=0, given=[line])
    assert found is not None and found.seed is None and found.actions == line


def test_a_fraction_setting_is_compared_exactly(tmp_path: Path) -> None:
    rs = variant(tmp_path, '[variant]\nname = "v"\nextends = "russian"\n[[scoring]]\naward = "per-pattern"\n'
                 'points = "2/2"\n')
    assert not [s for s in settings_of(rs) if s.field == "scoring[0].points"]  # 2/2 is the default 1
    assert AWARD_DECLARATIONS["per-pattern"].settings["points"].default == Fraction(1)
