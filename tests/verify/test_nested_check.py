"""The nested family's checker (verify/nested): its model of the rules agrees with the tests' own
independent model (tests/support/nested_reference.py) on every ruleset; its Z3 claims hold for
the rules and fail for broken ones (they are not vacuous); its merging of positions is sound on
relabelled positions; the check reports what it compared, and a legal list that offers a cell
apply() refuses is a violation with a witness, never an abort."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples
from nested_reference import RefIllegal, RefNested

from qttt import load_ruleset
from qttt.family import Mark
from qttt.nested import engine
from qttt.nested.strategies import nested_rulesets
from qttt.ruleset import Ruleset
from verify import cli
from verify.claims import PY, settle
from verify.nested import model, proofs
from verify.nested.check import CORES, check_nested, relative, space
from verify.nested.model import Position, rules_of


def reference(rs: Ruleset, variant: str) -> RefNested:
    """The tests' reference model of rs (its parameters and scoring as plain data)."""
    return RefNested({**dict(rs.params), "scoring": [c.to_dict() for c in rs.scoring]}, variant)


@settings(max_examples=examples(60), deadline=None)
@given(nested_rulesets(max_board=3), st.integers(0, 2**32 - 1))
def test_the_model_is_the_reference_model(rs: Ruleset, seed: int) -> None:
    """Every position of a random game: the same state, legal moves and refusal rules."""
    rng = random.Random(seed)
    m, ref = Position.start(rules_of(rs)), reference(rs, "v")
    while True:
        assert m.state_json("v") == ref.state()
        assert [{"mark": a.cell} for a in m.legal()] == ref.legal()
        for a in space(rs):
            try:
                RefNested.apply(_copy(ref), {"mark": a.cell})
                said = None
            except RefIllegal as e:
                said = e.rule
            assert m.refusal(a) == said, (a, m.refusal(a), said)
        if m.over:
            break
        a = rng.choice(m.legal())
        ref.apply({"mark": a.cell})
        m = m.play(a)


def _copy(ref: RefNested) -> RefNested:
    out = RefNested(ref.params, ref.variant)
    out.board = [row[:] for row in ref.board]
    out.number = [row[:] for row in ref.number]
    out.block_status = ref.block_status[:]
    out.old_move, out.player, out.bonus_now = ref.old_move, ref.player, ref.bonus_now
    out.moves, out.winner, out.finished = ref.moves, ref.winner, ref.finished
    return out


@pytest.mark.slow
@settings(max_examples=examples(15), deadline=None)
@given(nested_rulesets(max_board=2))
def test_every_claim_holds_for_every_ruleset(rs: Ruleset) -> None:
    for which in proofs.CLAIMS:
        settled = proofs.prove(rs, which)
        assert settled.status == "proved", (which, settled.failed, settled.model)


def test_the_claims_fail_for_broken_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """A block rule that never closes a full block breaks the invariant; scoring that pays the
    loser breaks the scores claim: Z3 finds both (so the proofs are not vacuous)."""
    rs = load_ruleset("intelligent(board=3,full_block=drawn-first)")
    original = model.block_result

    def never_drawn(logic: Any, rules: model.Rules, mine: Any, filled: Any) -> tuple[Any, Any]:
        won, _ = original(logic, rules, mine, filled)
        return won, logic.any([])

    monkeypatch.setattr(proofs, "block_result", never_drawn)
    assert settle(proofs.block_claims(rules_of(rs))).status == "violated"
    monkeypatch.undo()

    def pays_the_loser(logic: Any, rules: model.Rules, winner: Any, won: Any) -> tuple[Any, Any]:
        one = logic.number(Fraction(1))
        return logic.ite(winner[1], one, logic.number(Fraction(0))), logic.ite(winner[0], one, one)

    monkeypatch.setattr(proofs, "points", pays_the_loser)
    assert settle(proofs.score_claims(rules_of(rs))).status == "violated"


@settings(max_examples=examples(30), deadline=None)
@given(st.sampled_from(["intelligent(board=2)", "intelligent(board=3,bonus=chain)",
                        "spec/coverage/nested-weighted-majority.toml"]), st.integers(0, 2**32 - 1),
       st.integers(0, 7))
def test_a_relabelled_position_has_the_same_key_and_the_same_future(spec: str, seed: int, which: int) -> None:
    """A random position and its image under a symmetry of the rules: the same key, and the image's
    legal moves are the images of the position's, each leading to positions of equal keys."""
    rs = load_ruleset(spec)
    rules = rules_of(rs)
    g = rules.symmetries[which % len(rules.symmetries)]
    rng = random.Random(seed)
    m, image = Position.start(rules), Position.start(rules)
    for _ in range(rng.randrange(12)):
        if m.over:
            break
        a = rng.choice(m.legal())
        m, image = m.play(a), image.play(Mark(g.cell[a.cell]))
    assert m.key() == image.key()
    assert sorted(g.cell[a.cell] for a in m.legal()) == [a.cell for a in image.legal()]
    for a in m.legal()[:5]:
        assert m.play(a).key() == image.play(Mark(g.cell[a.cell])).key()


def test_positions_with_other_closed_cells_share_a_key() -> None:
    """Two positions that differ only in the cells of a closed block (block 0 won by x either way)
    share a key; a difference in an open block's cells does not."""
    rules = rules_of(load_ruleset("intelligent(board=2)"))

    def position(marks: dict[int, str]) -> Position:
        owner = tuple(marks.get(c) for c in range(rules.cells))
        number = tuple(k + 1 if c in marks else 0 for k, c in enumerate(range(rules.cells)))
        return Position(rules, owner, number, ("x", "open", "open", "open"), previous=2, mover="x", move=5)

    one = position({0: "x", 1: "x", 5: "o", 2: "o"})
    two = position({0: "x", 4: "x", 5: "o", 2: "o"})
    three = position({0: "x", 1: "x", 5: "o", 3: "o"})
    assert one.key() == two.key() and one.key() != three.key()
    assert one.legal() == two.legal()


def test_the_walks_use_the_ruleset_s_own_rules_where_they_carry_over() -> None:
    assert relative(load_ruleset("intelligent"), 2).canonical == "intelligent(board=2)"  # type: ignore[union-attr]
    majority = load_ruleset("spec/coverage/nested-weighted-majority.toml")
    assert relative(majority, 2) is None  # a route stated per position does not carry over
    assert relative(majority, 3) is majority


@pytest.mark.slow
def test_a_small_ruleset_is_checked_clean_and_names_what_it_compared() -> None:
    report = check_nested("intelligent(board=2)", games=20)
    statuses = {f.property: f.status for f in report.findings}
    assert statuses == {"nested-legal-move": "proved", "nested-termination": "proved",
                        "nested-one-winner": "proved", "nested-scores-defined": "proved", CORES: "sampled"}
    cores = next(f for f in report.findings if f.property == CORES)
    assert "classes (intelligent(board=2): every reachable class" in cores.label
    for path in ("engine (Python)", "nested compiled core: positions", "qn_games (qttt random's writer",
                 "qn_perft", "qn_playout"):  # every core and path compared, by its registered name
        assert path in report.cores, (path, report.cores)
    walked = cores.details["walks"][0]
    assert walked["complete"] and walked["perft"]
    assert report.to_json()["cores"] == report.cores


@pytest.mark.slow
def test_a_legal_list_offering_a_refused_cell_is_a_violation_with_a_witness(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The engine lists an occupied cell as legal, which its own apply refuses: exit 1 with a
    replaying game, never exit 2 with the engine's message."""
    original = engine.NestedState.legal_actions

    def offers_more(self: engine.NestedState) -> tuple[Mark, ...]:
        legal = original(self)
        taken = [c for c, m in enumerate(self.marks) if m is not None]
        return tuple(sorted((*legal, Mark(taken[0])))) if taken and legal else legal

    monkeypatch.setattr(engine.NestedState, "legal_actions", offers_more)
    code = cli.main(["intelligent(board=2)", "--games", "2", "--json-document", "--no-timing"])
    out = capsys.readouterr().out
    assert code == 1, out[-2000:]
    f = next(p for p in json.loads(out)["rulesets"][0]["properties"] if p["property"] == CORES)
    assert f["status"] == "violated" and "which the rules refuse" in f["witness"]["shows"], f
    m = Position.start(rules_of(load_ruleset(f["witness"]["record"]["variant"])))
    for a in f["witness"]["record"]["actions"]:  # the witness replays under the real rules
        assert m.refusal(Mark(a["mark"])) is None
        m = m.play(Mark(a["mark"]))


def test_every_rule_component_runs_on_values() -> None:
    """The concrete run of the components the proofs reason about (a smoke test of the Logic)."""
    rules = rules_of(load_ruleset("intelligent(board=2)"))
    won, drawn = model.block_result(PY, rules, [True, True, False, False], [True, True, True, False])
    assert won and not drawn
    assert model.owns_pattern(PY, rules, [True, False, False, True])  # a diagonal of blocks
    assert model.allowed(PY, rules, [True] * 16, 3)[15] and not model.allowed(PY, rules, [True] * 16, 3)[0]
