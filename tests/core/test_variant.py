"""Rulesets as data: the parameter table, variant-file errors (file, key, value, allowed),
canonical names, and a user's variant file replayed end to end (rule variant-file)."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from lanes import examples

from qttt import PARAMETERS, Ruleset, VariantError, builtin_names, load_ruleset, with_params
from qttt.cli import main
from qttt.quantum.strategies import random_rulesets
from qttt.testing.strategies import variant_files


def test_every_parameter_is_documented() -> None:
    for p in PARAMETERS:
        assert p.type in (str, int, bool, tuple, Fraction), p
        if p.type is tuple:  # a list parameter: kinds from `allowed`, or a route ("same" or lists)
            assert p.default == "same" if p.name == "route" else set(p.default) <= set(p.allowed), p
        else:
            assert p.allowed and all(isinstance(v, p.type) for v in p.allowed), p
            assert p.default in p.allowed, p
        assert p.description and "\n" not in p.description and p.description.endswith("."), p
    assert {p.name for p in PARAMETERS} >= {"board", "measurer", "two_cycles", "last_square",
                                             "untouched", "end"}


def load_error(tmp_path: Path, text: str, name: str = "v.toml") -> tuple[Path, str]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(VariantError) as err:
        load_ruleset(str(path))
    assert err.value.rule == "variant-file"
    message = str(err.value)
    assert "\n" not in message
    return path, message


@pytest.mark.parametrize(("text", "needles"), [
    ('[variant]\nname = "v"\n[rules]\ncolour = "red"\n', ["rules.colour", "allowed", "measurer"]),
    ('[variant]\nname = "v"\n[rules]\nmeasurer = "nobody"\n',
     ["measurer", '"nobody"', "allowed", '"opponent"', '"creator"']),
    ('[variant]\nname = "v"\n[rules]\nboard = "3"\n', ["board", '"3"', "integer from 2 to 8"]),
    ('[variant]\nname = "v"\n[rules]\nboard = 1\n', ["board", "= 1", "integer from 2 to 8"]),
    ('[variant]\nname = "v"\n[rules]\ntwo_cycles = 1\n', ["two_cycles", "= 1", "true, false"]),
    ('[variant]\nname = "v"\n[rules]\nend_line = 4\n', ["end_line", "4", "board = 3"]),
    ('[variant]\nname = "v"\nauthor = "me"\n', ["variant.author", "allowed", "extends"]),
    ('[variant]\nname = 3\n', ["name", "3", "a string with a letter or digit"]),
    ('[rules]\nboard = 3\n', ["[variant]"]),
    ('[variant]\nname = "v"\n[[scoring]]\naward = "bonus"\n',
     ["scoring[0]", "award", "bonus", '"per-pattern"', '"rank"']),
    ('[variant]\nname = "v"\n[[scoring]]\naward = "per-pattern"\npoints = "a half"\n',
     ["scoring[0]", "points", "a half", "exact number"]),
    ('[variant]\nname = "v"\n[[scoring]]\naward = "per-pattern"\nlength = 5\n',
     ["scoring[0]", "length", "5", "integer from 0 to the board size 3"]),
    ('[variant]\nname = "v"\n[[scoring]]\naward = "first-line"\ntiebreak = ["max"]\n',
     ["tiebreak", "max", '"min-max"', '"min-sum"']),
    ('[variant]\nname = "v"\nextends = "nowhere"\n',
     ["extends", "nowhere", "not found", "wikipedia", "variant file"]),
])
def test_bad_file_message(tmp_path: Path, text: str, needles: list[str]) -> None:
    path, message = load_error(tmp_path, text)
    assert str(path) in message, message
    for needle in needles:
        assert needle in message, (needle, message)


def test_bad_toml(tmp_path: Path) -> None:
    path, message = load_error(tmp_path, '[variant\nname = "v"\n')
    assert str(path) in message and "not valid TOML" in message


def test_extends_loop(tmp_path: Path) -> None:
    (tmp_path / "b.toml").write_text('[variant]\nname = "b"\nextends = "a.toml"\n', encoding="utf-8")
    _, message = load_error(tmp_path, '[variant]\nname = "a"\nextends = "b.toml"\n', "a.toml")
    assert "extends itself" in message and "a.toml -> b.toml -> a.toml" in message
    _, message = load_error(tmp_path, '[variant]\nname = "s"\nextends = "s.toml"\n', "s.toml")
    assert "extends itself" in message


def test_missing_file_and_unknown_ruleset(tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"
    with pytest.raises(VariantError) as err:
        load_ruleset(str(missing))
    assert str(missing) in str(err.value) and err.value.rule == "record-variant"
    deep = tmp_path / ("d" * 200) / ("e" * 200) / "missing.toml"
    with pytest.raises(VariantError) as err:
        load_ruleset(str(deep))
    assert "...' does not exist" not in str(err.value) and "/missing.toml' does not exist" in str(err.value)
    assert len(str(err.value)) < 300
    with pytest.raises(VariantError) as err:
        load_ruleset("wikipedya")
    assert "wikipedya" in str(err.value) and "wikipedia" in str(err.value)
    assert err.value.rule == "record-variant"


@pytest.mark.parametrize(("name", "needles"), [
    ("wikipedia(board=x)", ["board", "x", "integer from 2 to 8"]),
    ("nope(board=3)", ["nope", "qttt", "wikipedia"]),
    ("wikipedia(colour=red)", ["colour", "measurer"]),
    ("wikipedia(board)", ["board", "key=value"]),
    ("wikipedia(scoring=[)", ["scoring", "JSON"]),
])
def test_bad_canonical_name(name: str, needles: list[str]) -> None:
    with pytest.raises(VariantError) as err:
        load_ruleset(name)
    for needle in [name, *needles]:
        assert needle in str(err.value), (needle, str(err.value))


def test_with_params_errors() -> None:
    rs = load_ruleset("wikipedia")
    with pytest.raises(VariantError, match="colour"):
        with_params(rs, colour="red")
    with pytest.raises(VariantError, match="board = true"):
        with_params(rs, board=True)


@pytest.mark.parametrize("name", builtin_names())
def test_builtin_canonical_names(name: str) -> None:
    rs = load_ruleset(name)
    assert rs.canonical == name
    assert load_ruleset(rs.canonical).key() == rs.key()


def test_canonical_names_by_hand() -> None:
    wiki = load_ruleset("wikipedia")
    assert with_params(wiki, measurer="creator").canonical == "wikipedia(measurer=creator)"
    assert with_params(wiki, two_cycles=False, board=4).canonical == "wikipedia(board=4,two_cycles=false)"
    assert with_params(wiki, measurer="opponent").canonical == "wikipedia"  # the default is no change
    unstable = load_ruleset("russian-unstable")  # a built-in that extends another is its own base
    assert with_params(unstable, untouched="keep").canonical == "russian-unstable(untouched=keep)"
    assert with_params(unstable, untouched="keep").key() == load_ruleset("russian").key()


def test_canonical_names_of_scoring_readings() -> None:
    """double_line and tiebreak set one field of every first-line component; a value equal to the
    base's is no change; a ruleset without a first-line award refuses them (rule variant-file)."""
    wiki, bonus = load_ruleset("wikipedia"), load_ruleset("bonus4x4")
    for name, field, value in (("wikipedia(double_line=2)", "double", Fraction(2)),
                               ("wikipedia(double_line=3/2)", "double", Fraction(3, 2)),
                               ("bonus4x4(tiebreak=[min-max])", "tiebreak", ("min-max",))):
        rs = load_ruleset(name)
        assert rs.canonical == name and load_ruleset(rs.canonical).key() == rs.key()
        [changed] = [c for c in rs.scoring if c.award == "first-line"]
        assert changed.get(field) == value
        others = [(c.award, c.settings) for c in rs.scoring if c.award != "first-line"]
        base = wiki if name.startswith("wikipedia") else bonus
        assert others == [(c.award, c.settings) for c in base.scoring if c.award != "first-line"]
    assert load_ruleset("wikipedia(double_line=1)").key() == wiki.key()  # sole is 1: no change
    assert load_ruleset("bonus4x4(tiebreak=[min-sum])").canonical == "bonus4x4"
    both = load_ruleset("wikipedia(measurer=creator,double_line=3/2,tiebreak=[min-sum])")
    assert both.canonical == "wikipedia(measurer=creator,double_line=3/2,tiebreak=[min-sum])"
    for bad, words in (("russian(double_line=2)", "needs a first-line scoring component"),
                       ("wikipedia(double_line=x)", 'double_line = "x" is not allowed'),
                       ("bonus4x4(tiebreak=[min-avg])", 'tiebreak = ["min-avg"] is not allowed')):
        with pytest.raises(VariantError, match=re.escape(words)) as info:
            load_ruleset(bad)
        assert info.value.rule == "variant-file"


@given(random_rulesets(max_board=8))
@settings(max_examples=examples(100), deadline=None)
def test_canonical_names_round_trip(rs: Ruleset) -> None:
    again = load_ruleset(rs.canonical)
    assert again.key() == rs.key()
    assert again.canonical == rs.canonical
    changed = {k for k, v in rs.params if v != load_ruleset(rs.base).value(k)}
    assert all(f"{k}=" in rs.canonical for k in changed)


CREATOR = '[variant]\nname = "creator-measures"\nextends = "wikipedia"\n\n[rules]\nmeasurer = "creator"\n'
# German Wikipedia cycle: X1 squares 1-4, O2 3-9, X3 4-8, O4 8-1; O4 closes it.
GERMAN = [{"place": [0, 3]}, {"place": [2, 8]}, {"place": [3, 7]}, {"place": [0, 7]}]


def test_user_variant_creator_measures(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's walk-through: a file that changes who measures, shown and replayed."""
    monkeypatch.chdir(tmp_path)
    Path("my.toml").write_text(CREATOR, encoding="utf-8")
    rs = load_ruleset("my.toml")
    assert rs.canonical == "wikipedia(measurer=creator)"
    assert load_ruleset(rs.canonical).key() == rs.key()
    assert main(["show", "my.toml", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["canonical"] == "wikipedia(measurer=creator)"
    assert shown["params"]["measurer"] == "creator"
    records = [{"variant": "my.toml", "actions": GERMAN},
               {"variant": "my.toml", "actions": [*GERMAN, {"measure": 0}]},
               {"variant": "wikipedia", "actions": GERMAN}]
    Path("games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert main(["replay", "games.jsonl", "--json"]) == 0
    pending, measured, plain = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    # O4 closed the cycle: under the file O (the creator) measures, under wikipedia X does
    assert (pending["phase"], pending["to_move"], pending["variant"]) == ("measure", "o", "my.toml")
    assert (plain["phase"], plain["to_move"]) == ("measure", "x")
    # O4 measured into square 1 (cell 0): X1 into square 4, X3 into square 8; X places move 5
    assert measured["board"] == ["o4", [], ["o2"], "x1", [], [], [], "x3", ["o2"]]
    assert (measured["phase"], measured["to_move"], measured["move"]) == ("place", "x", 5)


def test_inherited_values_are_checked_again_after_extends(tmp_path: Path) -> None:
    """A line length, square or end line inherited from the parent that no longer fits the board
    is refused with both files named (rule variant-file)."""
    bonus = str(Path(load_ruleset("bonus4x4").path or ""))
    _, message = load_error(tmp_path, '[variant]\nname = "b2"\nextends = "bonus4x4"\n[rules]\nboard = 2\n')
    assert str(tmp_path / "v.toml") in message
    assert bonus in message and "a line of 3" in message and "board = 2" in message
    (tmp_path / "three.toml").write_text(
        '[variant]\nname = "three"\nextends = "wikipedia"\n[[scoring]]\naward = "per-pattern"\n'
        'length = 3\n', encoding="utf-8")
    path, message = load_error(tmp_path, '[variant]\nname = "two"\nextends = "three.toml"\n[rules]\n'
                               'board = 2\n', "two.toml")
    assert str(path) in message and str(tmp_path / "three.toml") in message and "a line of 3" in message
    (tmp_path / "end3.toml").write_text(
        '[variant]\nname = "e"\nextends = "wikipedia"\n[rules]\nend_line = 3\n', encoding="utf-8")
    _, message = load_error(tmp_path, '[variant]\nname = "e2"\nextends = "end3.toml"\n[rules]\nboard = 2\n'
                            '[[scoring]]\naward = "per-pattern"\n', "e2.toml")
    assert "end_line = 3 (inherited from" in message and "end3.toml" in message
    with pytest.raises(VariantError, match="does not fit scoring"):
        load_ruleset("bonus4x4(board=2)")
    with pytest.raises(VariantError, match="does not fit scoring"):
        with_params(load_ruleset("bonus4x4"), board=2)
    assert load_ruleset("bonus4x4(board=2,scoring=[])").board == 2  # its own scoring fits


@given(variant_files())
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_valid_variant_file_round_trips(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    """Every valid file (any parameter, scoring components kept, removed or added) loads, gets a
    canonical name, and that name loads to the same ruleset with the same name."""
    path = tmp_path_factory.mktemp("variant") / "generated.toml"
    path.write_text(text, encoding="utf-8")
    rs = load_ruleset(str(path))
    again = load_ruleset(rs.canonical)
    assert again.key() == rs.key(), text
    assert again.canonical == rs.canonical, text


def test_a_file_adding_a_first_line_component_round_trips(tmp_path: Path) -> None:
    """A file extending russian (per-pattern only) with a first-line component gets a canonical
    name that loads back (it was refused: the name tried tiebreak= on a ruleset without one)."""
    path = tmp_path / "r.toml"
    path.write_text('[variant]\nname = "r"\nextends = "russian"\n\n[[scoring]]\naward = "first-line"\n'
                    'sole = "1"\nfirst = "1"\nsecond = "1/2"\ntiebreak = []\n', encoding="utf-8")
    rs = load_ruleset(str(path))
    assert rs.canonical.startswith("russian(scoring=")
    assert load_ruleset(rs.canonical).key() == rs.key()
