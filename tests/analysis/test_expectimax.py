"""The expectimax of chance rulesets (qttt/quantum/analysis/expectimax.py and the compiled core's
qc_evalue): its values equal an independent expectimax over the reference model (tests/support/
reference.py, written from the rules, exact fractions at each p, no polynomials), the Python search
and the compiled core give the same polynomial, chance-measurer at p = 1 gives the minimax values of
choice, and the crossing search finds the roots of piecewise polynomials built here."""

from __future__ import annotations

import copy
import json
import random
import tomllib
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from positions import midgame
from reference import RefGame, favour_second, load_variant, score

from qttt import load_ruleset
from qttt.analysis.piecewise import Polynomial, germ_sign
from qttt.cli import main
from qttt.native import CoreUnavailable
from qttt.notation import action_to_json
from qttt.quantum import compiled
from qttt.quantum.analysis.count import board_after, encode
from qttt.quantum.analysis.expectimax import Expectimax, Point, crossing, value_curve
from qttt.quantum.analysis.solve import Solver, solve
from qttt.quantum.engine import OVER, playout

F = Fraction
HALF = F(1, 2)
# Both readings, each with and without the paper's draw scoring, over three scorings.
CHANCE = (("ishizeki-complete", "chance-second", "1/4"), ("ishizeki-complete", "chance-measurer", "0"),
          ("wikipedia", "chance-measurer", "1/4"), ("kumar", "chance-second", "0"))


def _name(base: str, collapse: str, draw: str) -> str:
    return f"{base}(collapse={collapse}" + (f",draw_second={draw})" if draw != "0" else ")")


# ----------------------------------------------------------------- the independent expectimax


def ref_value(g: RefGame, memo: dict[object, Fraction]) -> Fraction:
    """Expectimax over the reference model at its p: X maximises x − o, O minimises it, the measurer
    (or O naming under chance-second) chooses its measurement, chance averages its outcomes by their
    probabilities; a position without a legal action is scored as its board stands."""
    if g.phase == "over":
        return g.scores["x"] - g.scores["o"]
    key = (tuple(g.classical), tuple(sorted(g.spooky.items())), g.move, g.phase, g.measurer, g.closing,
           g.named)
    if key in memo:
        return memo[key]
    if g.phase == "chance":
        v = F(0)
        for cell, q in g.outcomes():
            h = copy.deepcopy(g)
            h.apply({"outcome": cell})
            v += q * ref_value(h, memo)
    elif not g.legal():
        final = favour_second(g.params, score(g.params, g.n, g.classical))
        v = final["x"] - final["o"]
    else:
        values = []
        for act in g.legal():
            h = copy.deepcopy(g)
            h.apply(act)
            values.append(ref_value(h, memo))
        v = max(values) if g.to_move() == "x" else min(values)
    memo[key] = v
    return v


def reference(base: str, collapse: str, draw: str, actions: list[dict[str, object]], p: Fraction,
              board: int = 3) -> Fraction | None:
    """The reference's value after `actions` at p (None where an action is not legal at that p: an
    outcome of probability 0)."""
    params = load_variant(base)
    params.update(collapse=collapse, draw_second=F(draw), p=p, board=board)
    g = RefGame(params)
    for act in actions:
        if act.get("outcome") is not None and act["outcome"] not in dict(g.outcomes()):
            return None
        g.apply(act)
    return ref_value(g, {})


@cache
def short_games(name: str, count: int = 2, nodes: int = 200) -> list[tuple[tuple[int, ...], tuple[str, ...]]]:
    """Starts of random games (seeded): the earliest start of each game from which the Python
    expectimax searches at most `nodes` positions and whose value depends on p, as encoded actions
    and as record actions (JSON text, for the reference)."""
    rs = load_ruleset(name)
    rng = random.Random(7)
    out: list[tuple[tuple[int, ...], tuple[str, ...]]] = []
    while len(out) < count:
        actions, _ = playout(rs, rng)
        codes = tuple(encode(a, 9) for a in actions)
        found = None
        for cut in range(len(codes) - 1, 1, -1):
            e = Expectimax(rs, F(3, 4))
            v = e.value(board_after(rs, codes[:cut]))
            if e.nodes > nodes:
                break
            if any(v[1:]):
                found = cut
        if found is not None:
            out.append((codes[:found], tuple(json.dumps(action_to_json(a)) for a in actions[:found])))
    return out


@pytest.mark.parametrize("reading", CHANCE, ids=lambda r: _name(*r))
def test_values_equal_an_independent_expectimax_on_short_games(reading: tuple[str, str, str]) -> None:
    """At p = 1/2, 2/3, 7/8 and 1 (where the game's outcomes can happen there), from short 3×3 games:
    the reference's exact value equals the Python search's and the compiled core's polynomial at p,
    the two polynomials are the same, and the piece right of p holds a little further right."""
    name = _name(*reading)
    rs = load_ruleset(name)
    for codes, texts in short_games(name):
        acts = [json.loads(t) for t in texts]
        for p in (HALF, F(2, 3), F(7, 8), F(1)):
            want = reference(*reading, acts, p)
            if want is None:
                continue
            e = Expectimax(rs, p)
            got = e.value(board_after(rs, codes))
            assert e.polynomial(got)(p) == want, (name, acts, p)
            if compiled.available() is None:
                fast = compiled.FastExpectimax(rs, p, log2size=12)
                assert fast.value(list(codes)) == got, (name, acts, p)
                fast.close()
            if p < 1:  # the piece right of p, where it still holds at q, is the value at q
                q = p + F(1, 97)
                left = Expectimax(rs, q, -1)
                if left.value(board_after(rs, codes)) == got:
                    assert reference(*reading, acts, q) == e.polynomial(got)(q)


@pytest.mark.parametrize("collapse", ["chance-measurer", "chance-second"])
def test_whole_two_by_two_games_equal_the_reference(collapse: str) -> None:
    rs = load_ruleset(f"wikipedia(board=2,collapse={collapse},draw_second=1/4)")
    p = F(3, 5)
    want = reference("wikipedia", collapse, "1/4", [], p, board=2)
    e = Expectimax(rs, p)
    assert e.polynomial(e.value(board_after(rs, ()))) (p) == want
    if compiled.available() is None:
        assert compiled.FastExpectimax(rs, p, log2size=12).value([]) == e.value(board_after(rs, ()))


@pytest.mark.parametrize("name", ["wikipedia", "ishizeki-complete"])
def test_chance_measurer_at_p_one_is_the_minimax_of_choice(name: str) -> None:
    """Rule collapse-chance: at p = 1 the named outcome is certain, so chance-measurer plays as
    choice and its value is the minimax value (Ishizeki & Matsuura's rulesets, mid-game)."""
    choice, chance = load_ruleset(name), load_ruleset(f"{name}(collapse=chance-measurer,p=1)")
    for seed in (4,):
        choices = midgame(name, seed, 2000)
        start = tuple(c for code in choices for c in ((code, code - 9) if code < 0 else (code,)))  # + outcome
        want = Solver(choice).exact_value(board_after(choice, choices))
        e = Expectimax(chance)
        assert e.polynomial(e.value(board_after(chance, start)))(F(1)) == want
        if compiled.available() is None:
            fast = compiled.FastExpectimax(chance, log2size=16)
            assert Polynomial.of(fast.value(list(start)), fast.scale)(F(1)) == want


# ----------------------------------------------------------------- solve and the command line


def test_solve_a_chance_ruleset_in_both_searches() -> None:
    """`solve` values a chance ruleset at its p: the Python and compiled searches agree on every first
    move's polynomial and the principal line replays to the value."""
    name = "wikipedia(board=2,collapse=chance-second,p=3/4,draw_second=1/4)"
    rs = load_ruleset(name)
    slow = solve(rs, core="python")
    e = Expectimax(rs)
    assert slow.to_json()["p"] == "3/4" and slow.value == e.polynomial(e.value(board_after(rs, ())))(F(3, 4))
    b = board_after(rs, ())
    for act in slow.pv:
        b = b.after(act)
    assert b.phase == OVER  # the principal line is a whole game the engine replays
    if compiled.available() is None:
        assert solve(rs, core="compiled").to_json() == slow.to_json()


def test_analyze_solve_and_curve_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    name = "wikipedia(board=2,collapse=chance-measurer,draw_second=1/4)"
    assert main(["analyze", "solve", name, "--core", "python"]) == 0
    out = capsys.readouterr().out
    assert "expected value x − o under perfect play at p = 1/2: 1/2" in out
    assert main(["analyze", "curve", name, "--points", "1/2,3/4,1", "--json", "--core", "python"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [q["p"] for q in data["points"]] == ["1/2", "3/4", "1"] and data["crossings"] == []
    with pytest.raises(SystemExit):
        main(["analyze", "curve", name, "--points", "3/4,1/2"])
    assert "increasing values of p" in capsys.readouterr().err


def test_the_compiled_expectimax_refuses_choice() -> None:
    with pytest.raises(CoreUnavailable, match="minimax"):
        compiled.FastExpectimax(load_ruleset("wikipedia"))


# ----------------------------------------------------------------- polynomials and crossings


def test_germ_sign_orders_polynomials_beside_a_point() -> None:
    # (p - 3/4)^2 is positive on both sides of 3/4, p - 3/4 changes sign there
    sq = [F(9, 16), F(-3, 2), F(1)]
    assert germ_sign(sq, F(3, 4), 1) == germ_sign(sq, F(3, 4), -1) == 1
    assert germ_sign([F(-3, 4), F(1)], F(3, 4), 1) == 1 and germ_sign([F(-3, 4), F(1)], F(3, 4), -1) == -1
    assert germ_sign([], F(1, 2), 1) == 0


def test_roots_are_isolated_exactly() -> None:
    q = Polynomial.of([F(-3, 4), F(1)]) * Polynomial.of([F(-1, 2), F(0), F(1)])  # roots 3/4 and 1/√2
    roots = q.roots(HALF, F(1), F(1, 10 ** 12))
    assert len(roots) == 2
    a, b = roots
    assert a.lo <= F(7071067811865, 10 ** 13) <= a.hi + F(1, 10 ** 12) and a.hi - a.lo < F(1, 10 ** 12)
    assert b.lo <= F(3, 4) <= b.hi
    assert a.decimal(9) == "0.707106781"


def piecewise(pieces: list[tuple[Fraction, Polynomial]]) -> Callable[[Fraction, int], Point]:
    """A piecewise polynomial value as `value_at` gives it: pieces (start, polynomial) by start."""
    def at(p: Fraction, side: int) -> Point:
        i = max(k for k, (start, _) in enumerate(pieces) if start < p or (start == p and side > 0) or k == 0)
        return Point(p, side, pieces[i][1](p), pieces[i][1])
    return at


def test_crossing_follows_pieces_to_their_root() -> None:
    """Continuous piecewise values: 1 − p on [1/2, 3/5] then 19/25 − p² (crossing at √19/5, bracketed
    with that piece); one piece crossing exactly at 3/4; a first piece whose only root is the end."""
    p1 = Polynomial.of([1, -1])
    p2 = Polynomial.of([F(2, 5) + F(9, 25), 0, -1])  # 19/25 − p², root √19/5 ≈ 0.8718
    at = piecewise([(HALF, p1), (F(3, 5), p2)])
    c = crossing(at, at(HALF, 1), at(F(1), -1))
    assert c.polynomial == p2 and c.hi - c.lo < F(1, 10 ** 10)
    assert c.lo ** 2 * 25 < 19 < c.hi ** 2 * 25
    exact = piecewise([(HALF, Polynomial.of([F(3, 4), -1]))])
    c = crossing(exact, exact(HALF, 1), exact(F(1), -1))
    assert c.lo == c.hi == F(3, 4)
    # the first piece has no root before 1: halving finds the second, whose root 7/8 is exact
    later = piecewise([(HALF, p1), (F(3, 4), Polynomial.of([F(7, 4), -2]))])
    c = crossing(later, later(HALF, 1), later(F(1), -1))
    assert c.lo == c.hi == F(7, 8) and c.polynomial == Polynomial.of([F(7, 4), -2])


def test_a_value_leaving_zero_at_a_tabulated_point_crosses_there(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tabulated value of exactly 0 whose piece is not 0 leaves zero at that very point."""
    from qttt.quantum.analysis import expectimax
    zero_at_half = piecewise([(HALF, Polynomial.of([1, -2]))])
    monkeypatch.setattr(expectimax, "value_at", lambda rs, p, side=0, compiled=True, log2size=24:
                        zero_at_half(p, side or (-1 if p == 1 else 1)))
    c = value_curve(load_ruleset("wikipedia(board=2,collapse=chance-second)"), [HALF, F(1)], core="python")
    assert [(x.lo, x.hi) for x in c.crossings] == [(HALF, HALF)] and c.crossings[0].polynomial is not None


def test_value_curve_tabulates_exact_values() -> None:
    rs = load_ruleset("wikipedia(board=2,collapse=chance-second,draw_second=1/4)")
    c = value_curve(rs, [HALF, F(3, 4), F(1)], core="python")
    assert [q.value for q in c.points] == [reference("wikipedia", "chance-second", "1/4", [], p, board=2)
                                           for p in (HALF, F(3, 4), F(1))]


# ----------------------------------------------------------------- the published curves

CHANCE_RESULTS = Path(__file__).resolve().parents[2] / "results" / "analysis" / "chance"


def _published(kind: str = "run") -> list[tuple[dict[str, Any], dict[str, Any]]]:
    index = CHANCE_RESULTS / "runs.toml"
    if not index.is_file():
        return []
    runs = tomllib.loads(index.read_text(encoding="utf-8")).get(kind, [])
    return [(r, json.loads((CHANCE_RESULTS / r["result"]).read_text(encoding="utf-8"))) for r in runs]


def test_chance_measurer_at_p_one_solves_to_the_published_minimax_values() -> None:
    """The published chance-measurer solve at p = 1 from the empty board: the value and every
    first-move class's value equal the published minimax solve of ishizeki-complete."""
    solves = _published("solve")
    assert solves
    for run, data in solves:
        assert f"-o results/analysis/chance/{run['result']}" in run["command"]
        solved = data["solve"]
        base = solved["ruleset"].split("(")[0]
        choice = json.loads((CHANCE_RESULTS.parent / f"{base}.json").read_text(encoding="utf-8"))["solve"]
        assert solved["p"] == "1" and solved["value"] == choice["value"]
        assert sorted(json.dumps(m["action"]) + m["value"] for m in solved["first_moves"]) == sorted(
            json.dumps(m["action"]) + m["value"] for m in choice["first_moves"])


def test_published_curves_hold_together() -> None:
    """Each published curve: made by its command, every value its piece at p, every crossing where
    its piece is 0 (exact) or changes sign (bracket), and chance-measurer at p = 1 the published
    minimax value of choice (Ishizeki & Matsuura: results/analysis/ishizeki-complete.json)."""
    runs = _published()
    assert runs, "results/analysis/chance/runs.toml lists the published curves"
    for run, data in runs:
        assert f"-o results/analysis/chance/{run['result']}" in run["command"]
        assert f"'{data['ruleset']}'" in run["command"] or f'"{data["ruleset"]}"' in run["command"]
        curve = data["curve"]
        for q in curve["points"]:
            piece = Polynomial.of([F(c) for c in q["piece"]])
            assert piece(F(q["p"])) == F(q["value"])
        for c in curve["crossings"]:
            if "piece" not in c:
                continue
            piece = Polynomial.of([F(x) for x in c["piece"]])
            lo, hi = F(c["lo"]), F(c["hi"])
            assert piece(lo) == 0 if lo == hi else piece(lo) * piece(hi) < 0
        if "collapse=chance-measurer" in data["ruleset"] and "draw_second" not in data["ruleset"]:
            solved = json.loads((CHANCE_RESULTS.parent / "ishizeki-complete.json").read_text())["solve"]
            solved = solved["value"]
            assert data["ruleset"].startswith("ishizeki-complete(")
            assert next(q["value"] for q in curve["points"] if q["p"] == "1") == solved


@pytest.mark.slow
def test_a_published_point_recomputes() -> None:
    """Drift: p = 1/2 of the first published curve, solved again with the compiled core."""
    if compiled.available() is not None:
        pytest.skip(f"compiled core unavailable: {compiled.available()}")
    data = _published()[0][1]
    first = data["curve"]["points"][0]
    from qttt.quantum.analysis.expectimax import value_at
    point = value_at(load_ruleset(data["ruleset"]), F(first["p"]), log2size=22)
    assert point.to_json() == first
