"""Worked examples prove their titles (spec/examples.toml): each check a title claims is replayed
here with the engine's public states and an own list of lines; every measurement carries the
solver's value of both branches; the committed contrasts replay to the outcomes they state."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qttt import load_ruleset, with_params
from qttt.docgen import EXAMPLES, Example
from qttt.errors import QtttError
from qttt.quantum.analysis import contrast
from qttt.quantum.engine import Measure, Place, State, quantum_action
from qttt.quantum.notation import from_notation
from qttt.ruleset import Ruleset

ALL = [(name, ex) for name, exs in EXAMPLES.items() for ex in exs]


def lines(n: int, length: int) -> list[tuple[int, ...]]:
    """Every straight run of `length` cells on an n×n board (rows, columns, both diagonals)."""
    out = []
    for r in range(n):
        for c in range(n):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(length)]
                if all(0 <= y < n and 0 <= x < n for y, x in cells):
                    out.append(tuple(y * n + x for y, x in cells))
    return out


def owned(state: State, length: int) -> list[tuple[str, int]]:
    """(owner, time = largest move number) of each classical line of `length`."""
    n = state.ruleset.board
    out = []
    for line in lines(n, length):
        marks = [state.classical[c] for c in line]
        if all(marks) and len({m % 2 for m in marks}) == 1:
            out.append(("x" if marks[0] % 2 else "o", max(marks)))
    return out


def states(rs: Ruleset, ex: Example) -> list[State]:
    out = [State.initial(rs)]
    for a in from_notation(ex.notation).actions:
        out.append(out[-1].apply(a))
    return out


def outcome(rs: Ruleset, ex: Example) -> tuple[str, object]:
    """How the record's actions end under `rs`: a score, a game ending early, going on, or illegal."""
    state = State.initial(rs)
    actions = from_notation(ex.notation).actions
    for i, a in enumerate(actions):
        if state.over:
            return ("ends early", i)
        try:
            state = state.apply(a)
        except QtttError:
            return ("illegal", i)
    return ("ends", dict(state.scores)) if state.over else ("goes on", None)


@pytest.mark.parametrize(("name", "ex"), ALL, ids=[f"{n}-{e.slug}" for n, e in ALL])
def test_example_title_is_true_of_its_game(name: str, ex: Example) -> None:
    rs = load_ruleset(from_notation(ex.notation).variant)
    assert rs.name == name
    seq = states(rs, ex)
    final, actions = seq[-1], from_notation(ex.notation).actions
    assert final.over and ex.proves
    n = rs.board
    for check in ex.proves:
        if check == "simultaneous":
            assert {o for o, _ in owned(final, 3)} == {"x", "o"}
            assert not owned(seq[-2], 3)
        elif check == "forced-last":
            last = actions[-1]
            assert isinstance(last, Place) and last.a == last.b
        elif check == "line-goes-on":
            assert any(isinstance(actions[i], Measure) and owned(seq[i + 1], 3) and not seq[i + 1].over
                       for i in range(len(actions)))
        elif check == "vanish":
            def vanished(i: int) -> bool:
                # a cell that held spooky marks, holds none after the collapse and stayed open:
                # it was outside the collapsed component
                before, after = seq[i], seq[i + 1]
                return any(before.spooky[c] and not after.spooky[c] and not after.classical[c]
                           for c in range(n * n))
            assert any(isinstance(actions[i], Measure) and vanished(i) for i in range(len(actions)))
        elif check == "ranks":
            assert len({t for _, t in owned(final, 3)}) >= 2
        elif check == "line-of-four":
            assert owned(final, 4)
        elif check.startswith("differs:"):
            other = load_ruleset(check.split(":", 1)[1])
            assert outcome(other, ex) != outcome(rs, ex)
        else:
            raise AssertionError(f"unknown check {check}")


def test_every_measurement_of_an_example_carries_both_branch_values() -> None:
    committed = contrast.load()["examples"]
    assert set(committed) == {f"{n}/{e.slug}" for n, e in ALL}
    for name, ex in ALL:
        actions = from_notation(ex.notation).actions
        measures = [i for i, a in enumerate(actions) if isinstance(a, Measure)]
        entries = committed[f"{name}/{ex.slug}"]
        assert [e["index"] for e in entries] == measures
        for e, i in zip(entries, measures, strict=True):
            action = actions[i]
            assert isinstance(action, Measure) and e["chosen"] == action.cell
            assert len(e["values"]) == 2 and None not in e["values"].values()
            # the measurer never throws the game away without comment: the chosen branch is theirs
            vals = {int(c): Fraction(v) for c, v in e["values"].items()}
            pick = max(vals.values()) if e["by"] == "x" else min(vals.values())
            assert vals[action.cell] == pick, (name, ex.slug, i)


def test_committed_contrasts_replay_to_their_outcomes() -> None:
    data = contrast.load()
    for c in [*data["pairs"], *data["parameters"]]:
        if "record_a" not in c:
            continue
        for side in ("a", "b"):
            label = c[side]
            rs = load_ruleset(label) if "(" not in label else _parameterised(label)
            # the first ruleset's game, replayed under each side (measurers re-choosing there)
            played, text = contrast.play_record(
                rs, tuple(quantum_action(a) for a in from_notation(f"[{rs.name}] {c['record_a']}").actions))
            assert text == c["outcome_" + side], (c["a"], c["b"], side)
            assert played == list(from_notation(f"[{rs.name}] {c['record_' + side]}").actions)
        assert c["outcome_a"].startswith("ends") and c["outcome_a"] != c["outcome_b"]


def _parameterised(label: str) -> Ruleset:
    base, params = label.rstrip(")").split("(", 1)
    key, value = params.split("=", 1)
    parsed: object = {"true": True, "false": False}.get(value, value)
    return with_params(load_ruleset(base), **{key: parsed})


@pytest.mark.parametrize(("name", "ex"), ALL, ids=[f"{n}-{e.slug}" for n, e in ALL])
def test_final_boards_mark_every_scored_line(name: str, ex: Example) -> None:
    from qttt.svg import board_svg
    rs = load_ruleset(name)
    final = states(rs, ex)[-1]
    svg = board_svg(final)
    lengths = {c.length or rs.board for c in rs.scoring if c.pattern == "line"}
    for owner in ("x", "o"):
        want = [t for n in lengths for o, t in owned(final, n) if o == owner]
        assert (f'class="scored line {owner}"' in svg) == bool(want), (owner, want)


def test_spooky_marks_on_a_4x4_board_are_legible() -> None:
    import re

    from qttt.svg import board_svg
    state = State.initial(load_ruleset("bonus4x4"))
    for a in from_notation("[bonus4x4] X1:1-2 O2:1-3 X3:1-4 O4:5-6").actions:
        state = state.apply(a)
    sizes = [float(v) for v in re.findall(r'class="spooky [xo]"[^>]*font-size="([\d.]+)"', board_svg(state))]
    assert sizes and min(sizes) >= 20  # drawn at 320 px, still >= 14 px at a phone's 230 px


@pytest.mark.deep
def test_committed_contrasts_are_what_the_searches_find_now() -> None:
    """The whole of results/contrasts.json (pairs, parameters, the examples' branch values)
    regenerates identically."""
    assert contrast.main(["--check"]) == 0, "run python -m qttt.quantum.analysis.contrast"


@pytest.mark.slow
def test_committed_contrasts_of_wikipedia_are_what_the_searches_find_now() -> None:
    """CI's part of the whole file (the deep lane's test above): wikipedia's pairs with the other
    3×3 rulesets, its parameters, and the examples' branch values regenerate identically."""
    again = "run python -m qttt.quantum.analysis.contrast"
    committed, now = contrast.load(), contrast.generate(only="wikipedia")
    assert now["games_per_search"] == committed["games_per_search"], again
    assert now["examples"] == committed["examples"], again
    for part in ("pairs", "parameters"):
        mine = [c for c in committed[part] if "wikipedia" in (c["a"], c["b"])]
        assert mine and now[part] == mine, f"{part}: {again}"
