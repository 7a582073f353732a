"""One declaration of position state per family (`qttt.boardstate.PositionState`): every attribute
of a family's board is declared, every key, serialiser and position string says how it holds each
declared field (its `Cover`), and the keys behave as their covers say: the C keys against the
Python ones, the formats read back, the walk's shape key the same in C and in Python."""

from __future__ import annotations

import ast
import importlib
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples

from qttt import load_ruleset, with_params
from qttt.boardstate import Cover, PositionState
from qttt.family import families
from qttt.quantum import compiled
from qttt.quantum.analysis.count import encode
from qttt.quantum.analysis.keys import numbered_key, owner_key
from qttt.quantum.engine import STATE, Action, Board, State
from qttt.quantum.game import compile_game
from qttt.quantum.notation import from_position, position, state_json
from qttt.spec import rules
from verify.quantum.exhaustive import shape_code, shape_key

ROOT = Path(__file__).resolve().parents[2]
# The modules holding a key, serialiser or position string of some family's positions.
COVERED = ("qttt.quantum.engine", "qttt.quantum.analysis.keys", "qttt.quantum.notation",
           "qttt.quantum.compiled", "verify.quantum.exhaustive", "qttt.nested.engine", "qttt.nested.family",
           "qttt.classical.engine", "qttt.classical.family")
# Functions named like keys that are no key of a position, and what they key.
NOT_POSITION_KEYS = {
    "qttt/notation.py:_key": "a record field's sort order", "qttt/competition/match.py:_tie_key": "standings",
    "qttt/competition/tour.py:key": "a tour slot", "qttt/quantum/scoring.py:line_key": "a line's tiebreak",
    "qttt/ruleset.py:key": "a ruleset", "qttt/conformance/validator.py:_key": "a suite's field names",
    "verify/quantum/check.py:walk_key": "which key a walk uses",
    "qttt/family.py:key": "the GameState protocol",
    "qttt/boardstate.py:key": "the shell, which each family's state overrides",
    "qttt/quantum/analysis/solve.py:key": "the solver's choice of owner_key or numbered_key"}


def covers() -> list[Cover]:
    """Every cover the covered modules declare."""
    found: list[Cover] = []
    for name in COVERED:
        module = importlib.import_module(name)
        for value in vars(module).values():
            for item in value if isinstance(value, tuple) else (value,):
                if isinstance(item, Cover) and item not in found:
                    found.append(item)
    return found


def board_of(state: Any) -> Any:
    """The object holding a state's position: the board of a BoardState, else the state itself."""
    return getattr(state, "_b", state)


BASES = {"quantum": "wikipedia", "nested-classical": "intelligent", "classical": "qttt(game=classical)"}


@pytest.mark.parametrize("family", families(), ids=lambda f: f.name)
def test_every_board_attribute_is_declared(family: Any) -> None:
    decl = family.position_state
    board = board_of(family.initial(load_ruleset(BASES[family.name])))
    assert decl.problems(type(board)) == []
    catalogue = rules()
    for f in decl.fields:
        assert all(r in catalogue for r in f.rules), f
    for d in decl.derived:
        assert set(d.source) <= set(decl.names), d


def test_an_undeclared_field_is_named() -> None:
    """The plant: a board with one more attribute (a pending move kept after its measurement, say)
    fails the declaration until it is declared, and once declared every cover must say how it
    holds it."""
    class Planted(Board):
        __slots__ = ("stale",)

    problems = STATE.problems(Planted)
    assert len(problems) == 1 and "Planted.stale is not declared" in problems[0]
    grown = PositionState("quantum", (*STATE.fields, type(STATE.fields[0])("stale", "a stale move", ())),
                          STATE.derived)
    assert grown.problems(Planted) == []
    for cover in covers():
        if cover.state is STATE:
            again = grown.cover(cover.where, cover.kept, cover.forgotten)
            assert any("'stale'" in p for p in again.problems()), cover.where


def test_every_cover_accounts_for_every_field() -> None:
    found = covers()
    assert {c.state.family for c in found} == {f.name for f in families()}
    problems = [p for c in found for p in c.problems()]
    assert problems == []
    for f in families():
        assert f.position_state.fields, f.name
        mine = [c for c in found if c.state is f.position_state]
        assert mine, f"no key or format of the {f.name} family says how it holds its fields"


def _where_exists(where: str) -> bool:
    if ":" not in where:
        return False
    place, name = where.split(":", 1)
    if place.endswith(".c"):
        source = (ROOT / place).read_text(encoding="utf-8")
        return re.search(rf"\b{re.escape(name.split()[0])}\b", source) is not None
    obj: Any = importlib.import_module(place)
    for part in name.split("."):
        obj = getattr(obj, part, None)
    return obj is not None


def test_covers_name_real_functions() -> None:
    for cover in covers():
        assert _where_exists(cover.where), cover.where


def _key_functions() -> Iterator[str]:
    for folder in ("qttt", "verify"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef) and (node.name == "key" or node.name.endswith("_key")):
                    yield f"{path.relative_to(ROOT).as_posix()}:{node.name}"


def test_every_position_key_has_a_cover() -> None:
    """A key function anywhere in qttt/ or verify/ either says how it holds the position state
    (a cover names it) or keys something else (named here, with what)."""
    named = {c.where.split(":")[1].split()[0].split(".")[-1] for c in covers()}
    for where in _key_functions():
        if where in NOT_POSITION_KEYS:
            continue
        assert where.split(":")[1] in named, f"{where} keys positions without a cover"


def test_the_c_position_holds_the_declared_fields() -> None:
    """The members of `Pos` in _core.c are exactly those `compiled.POSITION` and
    `compiled.POSITION_DERIVED` map the declared fields to."""
    source = (ROOT / "qttt" / "quantum" / "_core.c").read_text(encoding="utf-8")
    body = re.search(r"typedef struct \{([^}]*)\} Pos;", source)
    assert body is not None
    members = set(re.findall(r"(\w+)(?:\[[^\]]*\])?\s*[,;]", body.group(1)))
    declared = {m for ms in (*compiled.POSITION.values(), *compiled.POSITION_DERIVED.values()) for m in ms}
    assert members == declared
    assert set(compiled.POSITION) == set(STATE.names)
    assert set(compiled.POSITION_DERIVED) == {d.name for d in STATE.derived} - {"scores", "notes"}


# Behaviour: the keys hold what their covers say -------------------------------------------------

def game(rs_name: str, seed: int, end: str | None = None) -> Iterator[tuple[list[Action], State]]:
    """The positions of one random game, each with the actions reaching it."""
    rs = load_ruleset(rs_name)
    if end is not None:
        rs = with_params(rs, end=end)
    rng = random.Random(seed)
    state, acts = State.initial(rs), list[Action]()
    while True:
        yield list(acts), state
        legal = state.legal_actions()
        if not legal:
            return
        act = legal[rng.randrange(len(legal))]
        acts.append(act)
        state = state.apply(act)


NAMES = ("wikipedia", "kumar", "bonus4x4", "russian-unstable", "qttt(board=2,untouched=vanish,end=full)",
         "wikipedia(two_cycles=false,measurer=creator)")


@settings(max_examples=examples(30), deadline=None)
@given(st.sampled_from(NAMES), st.integers(0, 10 ** 6))
def test_state_key_is_the_declared_fields(name: str, seed: int) -> None:
    for _, state in game(name, seed):
        assert state.key() == STATE.values(board_of(state))
        assert tuple(state.fields().values()) == state.key()
        assert from_position(position(state)).key() == state.key()  # the position string reads back


@settings(max_examples=examples(20), deadline=None)
@given(st.sampled_from(NAMES), st.integers(0, 10 ** 6))
def test_the_compiled_core_holds_every_declared_field_and_the_walks_shape_key(name: str, seed: int) -> None:
    rs = load_ruleset(name)
    if compiled.supports(rs) or compiled.available():
        pytest.skip("no compiled core here")
    for end in (None, "full"):
        core = compiled.core_for(rs if end is None else with_params(rs, end=end))
        for acts, state in game(name, seed, end):
            pos = core.position(acts)
            assert pos.fields() == state.fields()
            assert pos.shape_key() == shape_code(shape_key(state))
            assert pos.child_keys() == [(a, shape_code(shape_key(state.apply(a))))
                                        for a in state.legal_actions()]


def test_state_json_tells_apart_every_position_the_key_does() -> None:
    """Two reachable positions with the same v1 state have the same declared fields."""
    for name in NAMES:
        seen: dict[str, tuple[Any, ...]] = {}
        for seed in range(40):
            for _, state in game(name, seed):
                text = repr(sorted(state_json(state, name).items()))
                assert seen.setdefault(text, state.key()) == state.key()


def _partitions_agree(pairs: list[tuple[Any, Any]]) -> None:
    """Two keys on the same positions: equal on the one exactly where equal on the other."""
    left: dict[Any, Any] = {}
    right: dict[Any, Any] = {}
    for a, b in pairs:
        assert left.setdefault(a, b) == b
        assert right.setdefault(b, a) == a


@pytest.mark.parametrize("name", ["wikipedia", "kumar", "russian-unstable", "ishizeki-complete"])
def test_the_c_solver_key_is_the_python_key(name: str) -> None:
    """The 9-cell build's canonical key merges exactly the positions numbered_key (or owner_key,
    when the scoring ignores move numbers) merges."""
    rs = load_ruleset(name)
    if compiled.solver_supports(rs) or compiled.available():
        pytest.skip("no compiled solver here")
    fs = compiled.FastSolver(rs, 10)
    numbered = compile_game(rs).uses_move_numbers
    pairs = []
    for seed in range(60):
        for acts, state in game(name, seed):
            py = (numbered_key if numbered else owner_key)(rs, board_of(state))
            pairs.append((fs.key([encode(a, 9) for a in acts]), py))
    fs.close()
    _partitions_agree(pairs)
    assert len({p for _, p in pairs}) > 500


def test_the_hashed_c_key_tells_apart_every_position() -> None:
    """The 16-cell build hashes every declared field: equal keys exactly for equal positions."""
    rs = load_ruleset("bonus4x4")
    if compiled.supports(rs) or compiled.available():
        pytest.skip("no compiled core here")
    core = compiled.core_for(rs)
    pairs = []
    for seed in range(40):
        for acts, state in game("bonus4x4", seed):
            pairs.append((core.position(acts).key(), state.key()))
    _partitions_agree(pairs)
