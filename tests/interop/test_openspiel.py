"""The OpenSpiel adapter (qttt.openspiel): OpenSpiel's own random_sim_test (with serialisation) on
every built-in ruleset and a sample of variants under each reading of the returns, chance turns as
OpenSpiel's chance nodes (and OpenSpiel's expectiminimax against an independent one), game strings
(names taken as written, percent-encoded only under their own key), the game's type and info
against the checker's bounds, loading without exploring, every unlisted action number refused
under the rule, actions named as OpenSpiel's games name them, histories against our records and
the independent reference models' scores, exact OpenSpiel searches (alpha-beta on the default
zero-sum game and on the margin) and evaluate_bots, and OpenSpiel's Python MCTS bot seated in
`qttt match`."""

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

from qttt import IllegalAction, load_ruleset, record_from_json
from qttt.cli import main
from qttt.family import family_names, family_of, find_family
from qttt.interop import RETURNS, RULE, rules_of
from qttt.nested.strategies import nested_rulesets
from qttt.notation import action_from_json, action_to_json
from qttt.quantum.analysis.count import encode
from qttt.quantum.analysis.solve import solve
from qttt.quantum.frameworks import longest
from qttt.quantum.game import compile_game
from qttt.quantum.strategies import random_rulesets
from qttt.spec import spec_dir
from qttt.variant import builtin_names
from qttt.vocabulary import NESTED, QUANTUM
from verify.quantum.abstract import Params, explore
from verify.quantum.scores import declared_range

pytestmark = pytest.mark.frameworks

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed (pip install -e '.[openspiel]')")
import numpy as np  # noqa: E402  (OpenSpiel's dependency)
from open_spiel.python.algorithms import evaluate_bots, mcts, minimax  # noqa: E402

import qttt.openspiel as qo  # noqa: E402

T = pyspiel.GameType.Utility
SPEC = spec_dir()
# Variants beyond the built-ins: every coverage variant and edition, and canonical names that set
# parameters no built-in uses.
VARIANTS = [str(p) for d in ("coverage", "editions") for p in sorted((SPEC / d).glob("*.toml"))]
VARIANTS += ["wikipedia(board=4,untouched=vanish)", "kumar(two_cycles=false,end=full)",
             "kumar(measurer=creator,last_square=end)", "intelligent(bonus=block-win,full_block=drawn-first)"]
# Rulesets with chance (rule collapse-chance): OpenSpiel's explicit chance.
CHANCE_VARIANTS = [v for v in VARIANTS if load_ruleset(v).rules.collapse != "choice"]
VARIANTS += ["wikipedia(collapse=chance-second,p=2/3)"]
CHANCE = int(pyspiel.PlayerId.CHANCE)


def load(name: str, returns: str = "result") -> Any:
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
    if sims(name) > 1:  # the other readings of the large nested boards: drawn rulesets below
        for returns in ("margin", "points"):
            pyspiel.random_sim_test(load(name, returns), num_sims=1, serialize=True, verbose=False)


# both families, chance rulesets among the quantum ones
DRAWN = random_rulesets(max_board=3) | nested_rulesets(max_board=2)


@settings(max_examples=examples(15))
@given(DRAWN)
def test_random_sim_test_on_drawn_rulesets(rs: Any) -> None:
    low, high = rules_of(rs).utility_range("points")
    assume(low < high)  # else every game ends alike in points: refused (test_utility_kinds)
    for returns in RETURNS:
        game = load(rs.canonical, returns)
        assert game.rules.ruleset.key() == rs.key()
        pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_negative_points_stay_in_the_utility_range() -> None:
    """Awards may give negative points: the range bounds each player's least total, not 0."""
    name = ('intelligent(board=2,block_patterns=["rows"],board_patterns=["rows"],scoring=[{"award":'
            '"draw-majority","more":"-1","fewer":"0","equal":"1/2","weights":"equal"}])')
    assert rules_of(load_ruleset(name)).utility_range("points") == (-1.0, 0.5)
    pyspiel.random_sim_test(load(name, "points"), num_sims=20, serialize=False, verbose=False)


def test_names_with_parentheses() -> None:
    name = "wikipedia(double_line=2,tiebreak=[min-max])"
    encoded = qo.game_string(name)
    assert encoded == ("python_qttt(ruleset_encoded=wikipedia%28double_line%3D2%2Ctiebreak%3D%5Bmin-max"
                       "%5D%29)")
    game = pyspiel.load_game(encoded)
    assert game.rules.ruleset.key() == load_ruleset(name).key()
    assert str(pyspiel.load_game(str(game))) == str(game)  # the game string round trips
    by_dict = pyspiel.load_game("python_qttt", {"ruleset": name})
    assert str(by_dict) == str(game)
    with pytest.raises(pyspiel.SpielError, match="kGame"):  # OpenSpiel reads it as a nested game
        pyspiel.load_game(f"python_qttt(ruleset={name})")
    plain = pyspiel.load_game("python_qttt(ruleset=bonus4x4)")
    assert str(plain) == "python_qttt(returns=result,ruleset=bonus4x4)"
    assert str(pyspiel.load_game("python_qttt")) == "python_qttt(returns=result,ruleset=wikipedia)"


def test_names_are_taken_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A name with a percent sign is the name, in a game string and in the dictionary; only the
    key ruleset_encoded decodes, and only the encoding game_string writes."""
    for asked in (("python_qttt(ruleset=%77ikipedia)",), ("python_qttt", {"ruleset": "%77ikipedia"})):
        with pytest.raises(Exception, match="unknown ruleset '%77ikipedia'"):
            pyspiel.load_game(*asked)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my%20v.toml").write_text((SPEC / "coverage" / "small-vanish-ranks.toml").read_text())
    file = load_ruleset("my%20v.toml")
    assert qo.game_string("my%20v.toml") == "python_qttt(ruleset=my%20v.toml)"  # as written
    for game in (pyspiel.load_game("python_qttt(ruleset=my%20v.toml)"),
                 pyspiel.load_game("python_qttt", {"ruleset": "my%20v.toml"}),
                 pyspiel.load_game(qo.game_string("my%20v.toml"))):
        assert game.rules.ruleset.key() == file.key()
        assert qo.record_of(game.new_initial_state()).variant == file.canonical  # loads anywhere
    assert qo.game_string("0") == "python_qttt(ruleset_encoded=%30)"  # 0 would read as a number
    for bad, words in (("python_qttt(ruleset_encoded=%77ikipedia)", "not a name percent-encoded"),
                       ("python_qttt(ruleset_encoded=wikipedia%28board%3d2%29)", "not a name percent"),
                       ("python_qttt(ruleset_encoded=kumar,ruleset=kumar)", "both given")):
        with pytest.raises(ValueError, match=words):
            pyspiel.load_game(bad)


@settings(max_examples=examples(200))
@given(st.text(st.characters(exclude_categories=["Cs"]), max_size=30))
def test_every_name_survives_its_game_string(name: str) -> None:
    """game_string writes any name so that OpenSpiel's parser gives back exactly that name: as
    written when it can, else percent-encoded under ruleset_encoded."""
    params = pyspiel.game_parameters_from_string(qo.game_string(name))
    assert qo.ruleset_name(params) == (name or qo.DEFAULT_RULESET)
    key, _ = qo.name_parameter(name)
    assert key == ("ruleset" if params.get("ruleset") == name else qo.ENCODED)


def test_loading_explores_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The game of a large board loads without the checker's exploration or score range (which
    only returns=points and returns=margin ask for), and plays."""
    import verify.quantum.abstract as abstract
    import verify.quantum.scores as scores

    def refuse(*_: Any) -> Any:
        raise AssertionError("explored at load time")

    monkeypatch.setattr(abstract, "explore", refuse)
    monkeypatch.setattr(scores, "declared_range", refuse)
    game = pyspiel.load_game(qo.game_string("wikipedia(board=8)"))
    rs = load_ruleset("wikipedia(board=8)")
    assert game.max_game_length() == longest(compile_game(rs)) == 64 + 32
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)
    state, rng = game.new_initial_state(), np.random.RandomState(0)
    for _ in range(10):
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert len(state.history()) == 10


@settings(max_examples=examples(30))
@given(random_rulesets(max_board=3))
def test_longest_game_bound_holds(rs: Any) -> None:
    """The bound computed without exploring is at least the component-size abstraction's longest
    game (the checker's termination bound), and equal to it where moves stay (untouched = keep)
    and two-cycles are allowed."""
    found, bound = explore(Params.of(rs)).longest, longest(compile_game(rs))
    assert bound >= found
    if rs.rules.untouched == "keep" and rs.rules.two_cycles:
        assert bound == found


@pytest.mark.parametrize("name", [*builtin_names(None), *VARIANTS])
def test_type_and_info_come_from_the_ruleset(name: str) -> None:
    rs = load_ruleset(name)
    default, zero, game = load(name), load(name, "margin"), load(name, "points")
    kind = game.get_type()
    chance = rs.game == QUANTUM and rs.rules.collapse != "choice"
    mode = pyspiel.GameType.ChanceMode
    for g in (default, zero, game):
        assert (g.get_type().dynamics, g.get_type().chance_mode, g.get_type().information) == (
            pyspiel.GameType.Dynamics.SEQUENTIAL, mode.EXPLICIT_STOCHASTIC if chance else mode.DETERMINISTIC,
            pyspiel.GameType.Information.PERFECT_INFORMATION)
        assert g.max_chance_outcomes() == (rs.board * rs.board if chance else 0)
    assert kind.utility in (T.GENERAL_SUM, T.CONSTANT_SUM)
    assert default.get_type().utility == T.ZERO_SUM and default.utility_sum() == 0
    assert (default.min_utility(), default.max_utility()) == (-1.0, 1.0)  # as OpenSpiel's tic_tac_toe
    assert zero.get_type().utility == T.ZERO_SUM and zero.utility_sum() == 0
    side = rs.board * rs.board
    if rs.game != QUANTUM:  # the classical families: one mark per cell
        cells = family_of(rs).side(rs) ** 2
        assert game.num_distinct_actions() == cells
        assert game.max_game_length() == cells  # every move fills one cell (nested-termination)
    else:
        assert game.num_distinct_actions() == side * side + side
        assert game.max_game_length() >= explore(Params.of(rs)).longest  # test_longest_game_bound_holds
        declared = declared_range(rs)
        assert declared is not None
        v = declared[0]
        assert (game.min_utility(), game.max_utility()) == (
            float(min(v["x min"], v["o min"])), float(max(v["x max"], v["o max"])))
        most = max(v["x max"] - v["o min"], v["o max"] - v["x min"])
        assert (zero.min_utility(), zero.max_utility()) == (float(-most), float(most))


def test_utility_kinds() -> None:
    assert load("wikipedia", "points").get_type().utility == T.GENERAL_SUM  # sole 1-0, then 1-1/2
    assert load("intelligent", "points").get_type().utility == T.GENERAL_SUM  # blocks won count
    edition = load(str(SPEC / "editions" / "intelligent-2016.toml"), "points")  # 1-0, 0-1 or 1/2-1/2
    assert edition.get_type().utility == T.CONSTANT_SUM and edition.utility_sum() == 1.0
    with pytest.raises(Exception, match="every game ends 0-0"):  # no scoring component
        load("qttt(board=3)", "points")
    assert load("qttt(board=3)").get_type().utility == T.ZERO_SUM  # every game a draw: returns 0
    weighted = load(str(SPEC / "coverage" / "nested-weighted-majority.toml"), "points")  # 2-1/2 vs 1-1
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
    in our engine and in the reference model; a constant-sum game's returns add up; the default
    game returns who won by those scores."""
    game, default = load(name, "points"), load(name)
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
        x, o = final.scores["x"], final.scores["o"]
        won = 1.0 if x > o else -1.0 if x < o else 0.0
        result = default.new_initial_state()
        for a in state.history():
            result.apply_action(a)
        assert result.returns() == [won, -won]


@settings(max_examples=examples(25))
@given(DRAWN, st.integers(0, 2**32 - 1))
def test_observation_tensor_determines_the_position(rs: Any, seed: int) -> None:
    """Positions of two random games with equal tensors are the same position (quantum: its key;
    nested-classical: who holds each cell, the legal cells, the mover and a bonus move, all that
    decides the rest of the game)."""
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
    """OpenSpiel's alpha-beta on the margin gives the value `qttt analyze solve` gives, at the
    start and after each first action it reports; on the default game (who wins) its sign."""
    result = solved(capsys, name)
    game, default = load(name, "margin"), load(name)
    value, _ = minimax.alpha_beta_search(game)
    assert Fraction(value) == Fraction(result["value"])
    assert minimax.alpha_beta_search(default)[0] == sign(Fraction(result["value"]))
    rules = game.rules
    for first in result["first_moves"]:
        for g in (game, default):
            state = g.new_initial_state()
            state.apply_action(rules.codec.encode(action_from_json(first["action"])))
            after, _ = minimax.alpha_beta_search(g, state=state, maximizing_player_id=0)
            want = Fraction(first["value"])
            assert Fraction(after) == (want if g is game else sign(want))


def sign(v: Fraction) -> int:
    return (v > 0) - (v < 0)


@settings(max_examples=examples(15))
@given(st.sampled_from(["wikipedia", "russian", "kumar", "ishizeki-complete"]), st.integers(6, 9),
       st.integers(0, 2**32 - 1))
def test_exact_values_of_3x3_positions_agree_with_solve(name: str, depth: int, seed: int) -> None:
    """From random positions of 3×3 rulesets, alpha-beta on the margin gives the value the solver
    of `qttt analyze solve` gives from the same actions, and on the default game its sign."""
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
    want = solve(load_ruleset(name), start=codes).value
    assert Fraction(value) == want
    default = load(name)
    late = default.new_initial_state()
    for a in state.history():
        late.apply_action(a)
    assert minimax.alpha_beta_search(default, state=late, maximizing_player_id=0)[0] == sign(want)


def test_evaluate_bots_on_the_default_game() -> None:
    """OpenSpiel's evaluate_bots plays its random bot and its Python MCTS bot on the default game:
    returns are a win, a draw or a loss, zero-sum."""
    game = load("wikipedia")
    rng = np.random.RandomState(5)
    bots = [mcts.MCTSBot(game, 2.0, 20, mcts.RandomRolloutEvaluator(random_state=rng), random_state=rng),
            pyspiel.make_uniform_random_bot(1, 5)]
    for _ in range(3):
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        assert returns[0] in (-1.0, 0.0, 1.0) and returns[0] + returns[1] == 0


def test_match_seats_the_python_mcts_bot() -> None:
    """OpenSpiel's C++ MCTSBot crashes on games written in Python (docs/frameworks.md warns): the
    player kind mcts is the Python one."""
    import inspect

    assert "mcts.MCTSBot(" in inspect.getsource(qo.MctsPlayer.choose)
    assert vars(qo)["mcts"] is mcts and mcts.__name__ == "open_spiel.python.algorithms.mcts"


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
    with pytest.raises(Exception, match="returns=draws: not one of result, margin, points"):
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


DRAWN_POSITION = st.tuples(DRAWN | st.sampled_from(builtin_names(None)).map(load_ruleset),
                           st.integers(0, 2**32 - 1), st.integers(0, 40))


@settings(max_examples=examples(25))
@given(DRAWN_POSITION)
def test_every_unlisted_action_number_is_refused(drawn: tuple[Any, int, int]) -> None:
    """At random positions, every number legal_actions() does not list (the whole action space,
    and numbers beyond it but OpenSpiel's own invalid action -1) is refused with the rule: the
    engine's for the action it stands for, framework-action for a number standing for no action;
    the state stays as it was."""
    rs, seed, depth = drawn
    game = load(rs.canonical)
    rules, rng = game.rules, np.random.RandomState(seed)
    state = game.new_initial_state()
    for _ in range(depth):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    legal, before, history = set(state.legal_actions()), str(state), state.history()
    with pytest.raises(pyspiel.SpielError, match="kInvalidAction"):  # -1: OpenSpiel refuses it itself
        state.apply_action(-1)
    chance = state.is_chance_node()
    count, read = ((game.max_chance_outcomes(), rules.codec.outcome) if chance
                   else (game.num_distinct_actions(), rules.codec.decode))
    for code in range(-3, count + 2):
        if code in legal or code == -1:
            continue
        action = read(code) if 0 <= code < count else None
        want = RULE
        if action is not None and rules.codec.encode(action) == code:
            with pytest.raises(IllegalAction) as engine:
                state.position.apply(action)
            want = engine.value.rule
        with pytest.raises(IllegalAction) as refused:
            state.apply_action(code)
        assert refused.value.rule == want, (code, str(refused.value))
        assert str(state) == before and state.history() == history


def test_actions_are_named_as_openspiel_names_them() -> None:
    """The player, then the move (squares from 1), as tic_tac_toe's x(0,1); string_to_action reads
    it back; action_json gives the record JSON, read back strictly."""
    game = load("wikipedia")
    state = game.new_initial_state()
    first = game.rules.codec.encode(action_from_json({"place": [0, 8]}))
    assert state.action_to_string(first) == "x(1,9)"
    assert state.string_to_action("x(1,9)") == first
    assert qo.action_json(game, first) == '{"place":[0,8]}'
    assert qo.action_of_json(state, '{"place": [8, 0]}') == first
    with pytest.raises(ValueError, match="duplicate key"):  # the strict decoder
        qo.action_of_json(game, '{"place": [0, 8], "place": [1, 2]}')
    with pytest.raises(IllegalAction, match="not an action"):
        qo.action_of_json(game, '{"place": [0, 9]}')
    nested = load("intelligent").new_initial_state()
    assert nested.action_to_string(nested.legal_actions()[0]) == "x(1)"
    closing = load("wikipedia(board=2)").new_initial_state()
    for code in (1, 1):  # x and o both in squares 1 and 2: a cycle, measured in square 1 or 2
        closing.apply_action(code)
    names = [closing.action_to_string(a) for a in closing.legal_actions()]
    player = "xo"[closing.current_player()]
    assert names == [f"{player}@1", f"{player}@2"]


@pytest.mark.parametrize("name", CHANCE_VARIANTS, ids=[Path(v).stem for v in CHANCE_VARIANTS])
def test_chance_turns_are_chance_nodes(name: str) -> None:
    """Random games of chance rulesets: at each chance turn the state is OpenSpiel's chance node,
    its chance_outcomes() the engine's outcomes by cell with their probabilities as floats, exact
    in chance_fractions(); each named as chance, then the outcome (the notation's =5); the outcome
    played is the history's number, and the history, chance outcomes included, is our record."""
    game, rng = load(name), np.random.RandomState(3)
    seen = 0
    for _ in range(5):
        state, chance_turns = game.new_initial_state(), 0
        while not state.is_terminal():
            position = state.position
            if position.to_move == "chance":
                chance_turns += 1
                odds = sorted((o.cell, p) for o, p in position.chance_outcomes())
                assert state.is_chance_node() and state.current_player() == CHANCE
                assert state.chance_fractions() == odds and sum(p for _, p in odds) == 1
                assert state.chance_outcomes() == [(c, float(p)) for c, p in odds]
                assert state.legal_actions() == [c for c, _ in odds]
                assert [state.action_to_string(c) for c, _ in odds] == [f"chance={c + 1}" for c, _ in odds]
                assert qo.action_json(state, odds[0][0]) == f'{{"outcome":{odds[0][0]}}}'
            else:
                assert not state.is_chance_node() and state.chance_outcomes() == []
            state.apply_action(int(rng.choice(state.legal_actions())))
        seen += chance_turns
        record = qo.record_of(state)
        assert qo.history_of(record) == state.history()
        assert record.replay().key() == state.position.key()
        assert sum(type(a).__name__ == "Outcome" for a in record.actions) == chance_turns
    assert seen > 0


def expectimax(game: Any, memo: dict[str, Fraction]) -> Fraction:
    """The exact expectimax value of the margin (x's points minus o's) of a reference game
    (tests/support/reference.py: the rules written from the documents), x maximising."""
    key = json.dumps(game.state(), sort_keys=True)
    if key not in memo:
        who = game.to_move()
        if who is None:
            memo[key] = game.scores["x"] - game.scores["o"]
        elif who == "chance":
            memo[key] = sum((p * expectimax(after(game, {"outcome": c}), memo) for c, p in game.outcomes()),
                            Fraction(0))
        else:
            values = [expectimax(after(game, a), memo) for a in game.legal()]
            memo[key] = max(values) if who == "x" else min(values)
    return memo[key]


def after(game: Any, action: dict[str, Any]) -> Any:
    import copy

    out = copy.deepcopy(game)
    out.apply(action)
    return out


@pytest.mark.parametrize("name", ["wikipedia(collapse=chance-measurer,p=3/4)",
                                  "wikipedia(collapse=chance-second,p=2/3)"])
def test_expectiminimax_agrees_with_an_independent_expectimax(name: str) -> None:
    """OpenSpiel's expectiminimax (open_spiel.python.algorithms.minimax) on the margin, from every
    chance turn of random 3×3 games after the ninth action, gives the value an independent
    expectimax over the reference model computes exactly (on 2×2 every value is 1/2: p never
    matters there); the values found depend on p."""
    game, rng = load(name, "margin"), np.random.RandomState(1)
    memo: dict[str, Fraction] = {}
    values = set()
    for _ in range(8):
        state, ref = game.new_initial_state(), ref_game(load_ruleset(name))
        while not state.is_terminal():
            if state.is_chance_node() and len(state.history()) >= 9:
                value, _ = minimax.expectiminimax(state, 100, None, 0)
                want = expectimax(ref, memo)
                assert abs(value - float(want)) < 1e-12, (state.history(), value, want)
                values.add(want)
            action = int(rng.choice(state.legal_actions()))
            ref.apply(json.loads(qo.action_json(state, action)))
            state.apply_action(action)
    assert any(v.denominator > 2 for v in values), values  # chance's odds, not only won or drawn


def test_a_history_is_read_by_the_turn_each_number_is_given_at() -> None:
    """Rules.record replays a history: an outcome number at a chance turn, an action number
    elsewhere; a number the position does not list is refused under its rule, with its index."""
    name = "wikipedia(board=2,collapse=chance-measurer,p=3/4)"
    rules, measure = rules_of(name), 16  # n⁴ + 0: the measurement naming square 1
    record = rules.record([1, 1, measure, 1])
    assert [type(a).__name__ for a in record.actions] == ["Place", "Place", "Measure", "Outcome"]
    assert rules.history(record) == [1, 1, measure, 1]
    for history, index, rule in (([1, 1, measure, measure], 3, RULE),  # no such outcome
                                 ([1, 1, measure, 2], 3, "collapse-chance"),  # square 3 is not an outcome
                                 ([1, 4], 1, RULE),  # squares 2 and 1: larger first
                                 ([1, 1, 1], 2, "measure-pending")):
        with pytest.raises(IllegalAction) as refused:
            rules.record(history)
        assert (refused.value.index, refused.value.rule) == (index, rule), str(refused.value)
