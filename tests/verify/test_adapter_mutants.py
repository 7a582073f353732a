"""Planted bugs in the framework adapters (patched in for one test, never in the product): each must
make `qttt check` (verify.quantum.check.check) report cores-agree violated, with a witness game
that `confirm` replays from the start and sees fail again, and the report must name both adapters
with what settled them; without the frameworks the report says they were not compared. Small
rulesets (2×2, where cycles, measurements, chance turns and every kind of end occur) keep the cost
low."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from qttt import load_ruleset
from qttt.interop import Rules
from verify.paths import PATHS
from verify.quantum import sampled
from verify.quantum.check import check, designed
from verify.quantum.sampled import CORES, Context, confirm
from verify.report import Finding, Report

pytestmark = [pytest.mark.frameworks, pytest.mark.slow]

pytest.importorskip("pyspiel", reason="open-spiel is not installed (pip install -e '.[openspiel]')")
pytest.importorskip("pettingzoo", reason="pettingzoo is not installed (pip install -e '.[pettingzoo]')")

import qttt.openspiel as qo  # noqa: E402
import qttt.pettingzoo as qp  # noqa: E402
from verify import frameworks  # noqa: E402

TWO = "wikipedia(board=2)"
Patch = Callable[[pytest.MonkeyPatch], None]
ADAPTERS = [p.name for p in PATHS if p.compare.startswith("verify.quantum.adapters:")]


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    """Each test starts and ends with the checker's games, environments and contexts (the paths
    that serve a ruleset here) built anew: none kept from a patched run or another test's modules."""
    caches = (frameworks._openspiel, frameworks._pettingzoo, sampled._context)
    for c in caches:
        c.cache_clear()
    yield
    for c in caches:
        c.cache_clear()


def margin_not_zero_sum(mp: pytest.MonkeyPatch) -> None:
    """returns=margin gives each player the winner's margin (both adapters read it here)."""
    original = Rules.returns

    def returns(self: Rules, state: Any, reading: str = "result") -> list[float]:
        got = original(self, state, reading)
        return [got[0], got[0]] if reading == "margin" else got
    mp.setattr(Rules, "returns", returns)


def mask_for_the_waiting_agent(mp: pytest.MonkeyPatch) -> None:
    """PettingZoo's observe fills the mask whoever asks."""
    original = qp.raw_env.observe

    def observe(self: Any, agent: str) -> Any:
        out = original(self, self.agent_selection)
        return {**original(self, agent), "action_mask": out["action_mask"]}
    mp.setattr(qp.raw_env, "observe", observe)


def creator_to_act_at_a_measurement(mp: pytest.MonkeyPatch) -> None:
    """OpenSpiel's current player at a measurement is the player who closed the cycle."""
    original = qo.QtttState.current_player

    def current_player(self: Any) -> int:
        player = int(original(self))
        pending = getattr(self.position, "pending", None)
        return 1 - player if pending is not None and player in (0, 1) else player
    mp.setattr(qo.QtttState, "current_player", current_player)


def accepts_swapped_placements(mp: pytest.MonkeyPatch) -> None:
    """OpenSpiel's apply_action takes a placement numbered larger square first (a·n² + b with
    a > b), which legal_actions() never lists, as the placement it names."""
    original = qo.Position.after

    def after(self: Any, code: int) -> Any:
        cells = self.rules.ruleset.board ** 2
        a, b = divmod(code, cells)
        if code not in self.legal and a > b and code < cells * cells:
            swapped = b * cells + a
            if swapped in self.legal:
                return original(self, swapped)
        return original(self, code)
    mp.setattr(qo.Position, "after", after)


def chance_odds_swapped(mp: pytest.MonkeyPatch) -> None:
    """OpenSpiel's chance_outcomes() give each outcome the other's probability (the fractions are
    right)."""
    original = qo.QtttState.chance_outcomes

    def chance_outcomes(self: Any) -> list[tuple[int, float]]:
        got = original(self)
        return [(c, p) for (c, _), (_, p) in zip(got, reversed(got), strict=True)]
    mp.setattr(qo.QtttState, "chance_outcomes", chance_outcomes)


def draws_without_the_generator(mp: pytest.MonkeyPatch) -> None:
    """PettingZoo's chance turns always take the first outcome listed."""
    from qttt.chance import draw as original

    def draw(outcomes: Any, rng: Any) -> Any:
        original(outcomes, rng)
        return outcomes[0][0]
    mp.setattr(qp, "draw", draw)


MUTANTS: list[tuple[str, Patch, str]] = [
    ("non-zero-sum margin returns", margin_not_zero_sum, "not zero-sum"),
    ("a mask offered to the waiting agent", mask_for_the_waiting_agent, "not to act"),
    ("the creator to act at a measurement", creator_to_act_at_a_measurement, "current player"),
    ("apply_action accepting an unlisted number", accepts_swapped_placements, "does not list"),
]


def cores(report: Report) -> Finding:
    return next(f for f in report.findings if f.property == CORES)


def caught(ruleset: str, games: int, exhaustive: bool, phrase: str) -> None:
    """`check` reports cores-agree violated on `ruleset`, the witness showing `phrase`, and
    `confirm` replays the witness from the start and sees it fail again."""
    f = cores(check(ruleset, games=games, exhaustive=exhaustive, timeout=30))
    assert f.status == "violated" and f.witness is not None, (f.label, f.method)
    assert phrase in f.witness.shows, f.witness.shows
    actions = designed(f.witness.record)
    ctx = Context.of(load_ruleset(ruleset))
    again = [w for acts in (actions, actions[:-1]) if (w := confirm(ctx, ruleset, CORES, acts)) is not None]
    assert any(w.record["actions"] == f.witness.record["actions"] for w in again), f.witness


WALKED_IN_CI = "apply_action accepting an unlisted number"
"""The one bug CI plants under the whole 2×2 walk too (the walk tries every number at each
position); the others' walks are the deep lane's (about a minute each on the loaded two-core
machine), and CI plants every bug under sampled games."""


@pytest.mark.parametrize(("name", "patch", "phrase", "exhaustive"), [
    pytest.param(*m, walked, id=f"{'walk' if walked else 'sampled'}-{m[0]}",
                 marks=[pytest.mark.deep] if walked and m[0] != WALKED_IN_CI else [])
    for walked in (True, False) for m in MUTANTS])
def test_planted_adapter_bug_is_caught(name: str, patch: Patch, phrase: str, exhaustive: bool,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    patch(monkeypatch)
    caught(TWO, 60, exhaustive, phrase)


CHANCE = "wikipedia(board=2,collapse=chance-measurer,p=3/4)"
CHANCE_MUTANTS: list[tuple[str, Patch, str]] = [
    ("OpenSpiel's chance odds swapped", chance_odds_swapped, "chance_outcomes()"),
    ("PettingZoo drawing without its generator", draws_without_the_generator, "landed on outcome"),
]


@pytest.mark.parametrize(("name", "patch", "phrase"), CHANCE_MUTANTS, ids=[m[0] for m in CHANCE_MUTANTS])
def test_planted_chance_bug_is_caught(name: str, patch: Patch, phrase: str,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """On a chance ruleset, in sampled games only (each reaches chance turns)."""
    patch(monkeypatch)
    caught(CHANCE, 40, False, phrase)


def test_unmutated_adapters_agree_and_are_named() -> None:
    f = cores(check(TWO, games=60, exhaustive=True, timeout=30))
    assert f.status == "exhaustive", f.label
    named = {p["path"]: p for p in f.details["paths"]}
    assert set(ADAPTERS) <= set(named) and len(ADAPTERS) == 2
    for name in ADAPTERS:
        assert named[name]["status"] == "exhaustive" and "every position of the walk" in named[name]["label"]
    assert "OpenSpiel adapter" in f.label and "PettingZoo adapter" in f.label


def test_without_the_frameworks_the_report_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "qttt.openspiel", None)  # import qttt.openspiel raises ImportError
    monkeypatch.setitem(sys.modules, "qttt.pettingzoo", None)
    f = cores(check(TWO, games=5, exhaustive=False, timeout=30))
    for adapter in ("OpenSpiel", "PettingZoo"):
        assert f"unknown ({adapter} adapter not compared: {adapter} is not installed here" in f.label, f.label
    assert f.status == "unknown", (f.label, f.witness and f.witness.shows)
    statuses = {p["path"]: p["status"] for p in f.details["paths"]}
    assert all(statuses[name] == "unknown" for name in ADAPTERS)
