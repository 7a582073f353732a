"""The OpenSpiel adapter (qttt.openspiel): OpenSpiel's own random_sim_test (with serialisation) on
every built-in ruleset and a sample of variants, game strings for names with parentheses, the
game's type and info against the checker's bounds, histories against our records and the
independent reference models' scores, an exact OpenSpiel search against `qttt analyze solve`, and
OpenSpiel's MCTS bot seated in `qttt match`."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from lanes import examples
from nested_reference import RefNested, load_nested
from refbridge import ref_game

from qttt import load_ruleset, record_from_json
from qttt.cli import main
from qttt.errors import QtttError
from qttt.family import family_names, family_of, find_family
from qttt.interop import rules_of
from qttt.nested.strategies import nested_rulesets
from qttt.notation import action_from_json, action_to_json
from qttt.quantum.analysis.count import encode
from qttt.quantum.analysis.solve import solve
from qttt.quantum.strategies import random_rulesets
from qttt.spec import spec_dir
from qttt.variant import builtin_names
from qttt.vocabulary import NESTED, QUANTUM
from verify.quantum.abstract import Params, explore
from verify.quantum.scores import declared_range

pytestmark = pytest.mark.frameworks

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed (pip install -e '.[openspiel]')")
import numpy as np  # noqa: E402  (OpenSpiel's dependency)
from open_spiel.python.algorithms import minimax  # noqa: E402

import qttt.openspiel as qo  # noqa: E402

T = pyspiel.GameType.Utility
SPEC = spec_dir()
# Variants beyond the built-ins: every coverage variant and edition, and canonical names that set
# parameters no built-in uses.
VARIANTS = [str(p) for d in ("coverage", "editions") for p in sorted((SPEC / d).glob("*.toml"))]
VARIANTS += ["wikipedia(board=4,untouched=vanish)", "kumar(two_cycles=false,end=full)",
             "kumar(measurer=creator,last_square=end)", "intelligent(bonus=block-win,full_block=drawn-first)"]
# Chance rulesets (rule collapse-chance) come to OpenSpiel with its explicit chance (issue 33);
# until then the adapter refuses them, in one line naming the rule.
CHANCE_VARIANTS = [v for v in VARIANTS if load_ruleset(v).rules.collapse != "choice"]
VARIANTS = [v for v in VARIANTS if v not in CHANCE_VARIANTS]


@pytest.mark.parametrize("name", CHANCE_VARIANTS)
def test_a_chance_ruleset_is_refused_until_the_adapter_models_chance(name: str) -> None:
    with pytest.raises(QtttError) as err:
        rules_of(name)
    assert err.value.rule == "collapse-chance" and "do not model chance yet" in err.value.message


def load(name: str, returns: str = "points") -> Any:
    return pyspiel.load_game(qo.game_string(name, returns))


def sims(name: str) -> int:
    """Random games per random_sim_test: fewer on larger boards (kept to a few seconds a ruleset)."""
    rs = load_ruleset(name)
    return 1 if rs.game == NESTED else 10 if rs.board <= 3 else 3


@pytest.mark.parametrize("name", builtin_names(None))
def test_random_sim_test_on_every_builtin_ruleset(name: str) -> None:
    pyspiel.random_sim_test(load(name), num_sims=sims(name), serialize=True, verbose=False)


@pytest.mark.parametrize("name", VARIANTS)
def test_random_sim_test_on_variants(name: str) -> None:
    pyspiel.random_sim_test(load(name), num_sims=sims(name), serialize=True, verbose=False)
    if sims(name) > 1:  # the zero-sum game of the large nested boards: drawn rulesets below
        pyspiel.random_sim_test(load(name, "margin"), num_sims=1, serialize=True, verbose=False)


# both families; chance rulesets come to the adapters with OpenSpiel's explicit chance (issue 33)
DRAWN = random_rulesets(max_board=3, chance=False) | nested_rulesets(max_board=2)


@settings(max_examples=examples(15))
@given(DRAWN)
def test_random_sim_test_on_drawn_rulesets(rs: Any) -> None:
    low, high = rules_of(rs).utility_range()
    assume(low < high)  # else every game ends alike: refused (test_utility_kinds)
    for returns in ("points", "margin"):
        game = load(rs.canonical, returns)
        assert game.rules.ruleset.key() == rs.key()
        pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_negative_points_stay_in_the_utility_range() -> None:
    """Awards may give negative points: the range bounds each player's least total, not 0."""
    name = ('intelligent(board=2,block_patterns=["rows"],board_patterns=["rows"],scoring=[{"award":'
            '"draw-majority","more":"-1","fewer":"0","equal":"1/2","weights":"equal"}])')
    assert rules_of(load_ruleset(name)).utility_range() == (-1.0, 0.5)
    pyspiel.random_sim_test(load(name), num_sims=20, serialize=False, verbose=False)


def test_names_with_parentheses() -> None:
    name = "wikipedia(double_line=2,tiebreak=[min-max])"
    encoded = qo.game_string(name)
    assert encoded == "python_qttt(ruleset=wikipedia%28double_line%3D2%2Ctiebreak%3D%5Bmin-max%5D%29)"
    game = pyspiel.load_game(encoded)
    assert game.rules.ruleset.key() == load_ruleset(name).key()
    assert str(pyspiel.load_game(str(game))) == str(game)  # the game string round trips
    by_dict = pyspiel.load_game("python_qttt", {"ruleset": name})
    assert str(by_dict) == str(game)
    with pytest.raises(pyspiel.SpielError, match="kGame"):  # OpenSpiel reads it as a nested game
        pyspiel.load_game(f"python_qttt(ruleset={name})")
    plain = pyspiel.load_game("python_qttt(ruleset=bonus4x4)")
    assert str(plain) == "python_qttt(returns=points,ruleset=bonus4x4)"


@pytest.mark.parametrize("name", [*builtin_names(None), *VARIANTS])
def test_type_and_info_come_from_the_ruleset(name: str) -> None:
    rs = load_ruleset(name)
    game, zero = load(name), load(name, "margin")
    kind = game.get_type()
    assert (kind.dynamics, kind.chance_mode, kind.information) == (
        pyspiel.GameType.Dynamics.SEQUENTIAL, pyspiel.GameType.ChanceMode.DETERMINISTIC,
        pyspiel.GameType.Information.PERFECT_INFORMATION)
    assert zero.get_type().utility == T.ZERO_SUM and zero.utility_sum() == 0
    side = rs.board * rs.board
    if rs.game != QUANTUM:  # the classical families: one mark per cell
        cells = family_of(rs).side(rs) ** 2
        assert game.num_distinct_actions() == cells
        assert game.max_game_length() == cells  # every move fills one cell (nested-termination)
    else:
        assert game.num_distinct_actions() == side * side + side
        assert game.max_game_length() == explore(Params.of(rs)).longest
        declared = declared_range(rs)
        assert declared is not None
        v = declared[0]
        assert (game.min_utility(), game.max_utility()) == (
            float(min(v["x min"], v["o min"])), float(max(v["x max"], v["o max"])))
        most = max(v["x max"] - v["o min"], v["o max"] - v["x min"])
        assert (zero.min_utility(), zero.max_utility()) == (float(-most), float(most))


def test_utility_kinds() -> None:
    assert load("wikipedia").get_type().utility == T.GENERAL_SUM  # sole 1-0, then 1-1/2
    assert load("intelligent").get_type().utility == T.GENERAL_SUM  # blocks won count
    edition = load(str(SPEC / "editions" / "intelligent-2016.toml"))  # 1-0, 0-1 or 1/2-1/2
    assert edition.get_type().utility == T.CONSTANT_SUM and edition.utility_sum() == 1.0
    with pytest.raises(Exception, match="every game ends 0-0"):  # no scoring component
        load("qttt(board=3)")
    weighted = load(str(SPEC / "coverage" / "nested-weighted-majority.toml"))  # 2-1/2 vs 1-1
    assert weighted.get_type().utility == T.GENERAL_SUM


def random_history(game: Any, rng: np.random.RandomState) -> Any:
    state = game.new_initial_state()
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal == sorted(legal) and legal
        state.apply_action(int(rng.choice(legal)))
    return state


def reference_scores(name: str, actions: list[dict[str, Any]]) -> dict[str, Fraction]:
    """Final scores by the independent reference model of the ruleset's family."""
    rs = load_ruleset(name)
    ref: Any = RefNested(load_nested(name)) if rs.game == NESTED else ref_game(rs)
    for act in actions:
        ref.apply(act)
    state = ref.state()
    assert state["over"]
    return {p: Fraction(v) for p, v in state["scores"].items()}


@pytest.mark.parametrize("name", builtin_names(None))
def test_histories_are_records(name: str) -> None:
    """Random OpenSpiel games: the history is our record (and back), with the same final scores
    in our engine and in the reference model; a constant-sum game's returns add up."""
    game = load(name)
    rng = np.random.RandomState(7)
    for _ in range(3 if load_ruleset(name).game == NESTED else 20):
        state = random_history(game, rng)
        record = qo.record_of(state)
        assert record.variant == name
        plain = {"variant": record.variant, "actions": [action_to_json(a) for a in record.actions]}
        again = record_from_json(json.loads(json.dumps(plain)))
        assert qo.history_of(again) == state.history()
        final = again.replay()
        returns = state.returns()
        assert returns == [float(final.scores["x"]), float(final.scores["o"])]
        assert reference_scores(name, [action_to_json(a) for a in record.actions]) == final.scores
        replayed = game.new_initial_state()
        for a in qo.history_of(again):
            replayed.apply_action(a)
        assert replayed.returns() == returns and str(replayed) == str(state)
        if game.get_type().utility == T.CONSTANT_SUM:
            assert sum(returns) == game.utility_sum()


@settings(max_examples=examples(25))
@given(DRAWN, st.integers(0, 2**32 - 1))
def test_observation_tensor_determines_the_position(rs: Any, seed: int) -> None:
    """Positions of two random games with equal tensors are the same position (quantum: its key;
    nested-classical: who holds each cell, the legal cells, the mover and a bonus move, all that
    decides the rest of the game)."""
    low, high = rules_of(rs).utility_range()
    assume(low < high)
    game = load(rs.canonical)
    rng = np.random.RandomState(seed)
    seen: dict[tuple[float, ...], Any] = {}
    for _ in range(2):
        state = game.new_initial_state()
        while True:
            tensor = tuple(state.observation_tensor(0))
            assert tensor == tuple(state.observation_tensor(1))
            assert len(tensor) == int(np.prod(rules_of(rs).codec.shape))
            key = position_key(state.position)
            assert seen.setdefault(tensor, key) == key
            assert state.observation_string(0) == str(state)
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))


def position_key(state: Any) -> Any:
    if state.ruleset.game == NESTED:
        owners = tuple(m and m[0] for m in state.marks)
        return owners, state.legal_actions(), state.to_move, state.bonus
    return state.key()


def solved(capsys: pytest.CaptureFixture[str], name: str) -> dict[str, Any]:
    assert main(["analyze", "solve", name, "--json", "--quiet"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.parametrize("name", [str(SPEC / "coverage" / "small-vanish-ranks.toml"), "wikipedia(board=2)",
                                  "russian(board=2)", "kumar(board=2)"])
def test_exact_value_agrees_with_analyze_solve(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """OpenSpiel's alpha-beta on the zero-sum game gives the value `qttt analyze solve` gives, at
    the start and after each first action it reports."""
    result = solved(capsys, name)
    game = load(name, "margin")
    value, _ = minimax.alpha_beta_search(game)
    assert Fraction(value) == Fraction(result["value"])
    rules = game.rules
    for first in result["first_moves"]:
        state = game.new_initial_state()
        state.apply_action(rules.codec.encode(action_from_json(first["action"])))
        after, _ = minimax.alpha_beta_search(game, state=state, maximizing_player_id=0)
        assert Fraction(after) == Fraction(first["value"])


@settings(max_examples=examples(15))
@given(st.sampled_from(["wikipedia", "russian", "kumar", "ishizeki-complete"]), st.integers(6, 9),
       st.integers(0, 2**32 - 1))
def test_exact_values_of_3x3_positions_agree_with_solve(name: str, depth: int, seed: int) -> None:
    """From random positions of 3×3 rulesets, alpha-beta on the zero-sum game gives the value the
    solver of `qttt analyze solve` gives from the same actions."""
    game = load(name, "margin")
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    for _ in range(depth):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    assume(not state.is_terminal())
    value, _ = minimax.alpha_beta_search(game, state=state, maximizing_player_id=0)
    codes = [encode(game.rules.codec.decode(a), 9) for a in state.history()]
    assert Fraction(value) == solve(load_ruleset(name), start=codes).value


def test_mcts_plays_search_under_the_referee(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m"
    code = main(["match", "wikipedia", "mcts:40", "search:0.02", "--games", "2", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    capsys.readouterr()
    records = [json.loads(p.read_text()) for p in sorted(out.glob("game-*.json"))]
    assert [r["players"] for r in records] == [{"x": "mcts:40", "o": "search:0.02"},
                                               {"x": "search:0.02", "o": "mcts:40"}]
    for path, rec in zip(sorted(out.glob("game-*.json")), records, strict=True):
        assert rec["result"]["end"] == "over"
        assert main(["replay", str(path)]) == 0
        text = capsys.readouterr().out
        scores = rec["result"]["scores"]
        assert f"game over: x {scores['x']}, o {scores['o']}" in text
        final = record_from_json(rec).replay()
        assert {p: str(v) for p, v in final.scores.items()} == scores


def test_mcts_player_is_repeatable_and_legal() -> None:
    rs = load_ruleset("intelligent")
    state = rules_of(rs).start()
    a = qo.MctsPlayer(random.Random(3), simulations=5).choose(state)
    b = qo.MctsPlayer(random.Random(3), simulations=5).choose(state)
    assert a == b and a in state.legal_actions()


@pytest.mark.parametrize("spec, words", [("mcts:0", "positive whole number"), ("mcts:x", "positive whole"),
                                         ("mcts:1.5", "positive whole")])
def test_bad_mcts_player_one_line(spec: str, words: str, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "wikipedia", spec, "random", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_bad_parameters_name_the_problem() -> None:
    with pytest.raises(Exception, match="returns=draws: not one of points, margin"):
        pyspiel.load_game("python_qttt(ruleset=wikipedia,returns=draws)")
    with pytest.raises(Exception, match="unknown ruleset 'nosuch'"):
        pyspiel.load_game("python_qttt(ruleset=nosuch)")
    game = load("wikipedia")
    bare = game.state_at(rules_of("wikipedia").start())
    assert bare.legal_actions() == game.new_initial_state().legal_actions()
    with pytest.raises(Exception, match="no history to serialise"):
        bare.serialize()


def test_every_family_gives_the_adapters_a_codec() -> None:
    """The adapters hold no family of their own: each registered family names its `frameworks` tool."""
    assert all("frameworks" in find_family(name).tools for name in family_names())
