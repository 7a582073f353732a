"""Random-play statistics of a nested-classical ruleset (`qttt analyze random intelligent`): wins,
draws, game length and cells left empty. The same games are played by the reference model
(tests/support/nested_reference.py), drawing as the sampler documents (chunk i uses
random.Random(f"{seed}:{i}"); each move is the legal cell at index int(u × count) in ascending
order), and tallied independently."""

from __future__ import annotations

import json
import random
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from nested_reference import RefNested, load_nested

from qttt.analysis.sample import sample_games
from qttt.cli import main
from qttt.nested import compiled as nested_core
from qttt.variant import load_ruleset

Tally = tuple[Counter[tuple[Fraction, Fraction]], Counter[tuple[int, int]]]


def reference_tally(seed: int, chunks: list[int]) -> Tally:
    """Scores and (moves, cells left empty) of the reference model's games, chunk by chunk."""
    scores: Counter[tuple[Fraction, Fraction]] = Counter()
    shapes: Counter[tuple[int, int]] = Counter()
    params = load_nested("intelligent")
    for index, games in enumerate(chunks):
        rng = random.Random(f"{seed}:{index}")
        for _ in range(games):
            game = RefNested(params, "intelligent")
            moves = 0
            while legal := game.legal():
                game.apply(legal[int(rng.random() * len(legal))])
                moves += 1
            state = game.state()
            scores[(Fraction(state["scores"]["x"]), Fraction(state["scores"]["o"]))] += 1
            shapes[(moves, sum(1 for cell in state["board"] if cell == []))] += 1
    return scores, shapes


def test_sampled_statistics_equal_the_reference_models_tally() -> None:
    res = sample_games(load_ruleset("intelligent"), 25, seed=4, chunk=10)
    scores, shapes = reference_tally(4, [10, 10, 5])
    assert res.histogram == scores and res.shapes == shapes
    shape = res.shape()
    assert shape["moves"]["min"] == min(m for m, _ in shapes)
    assert shape["moves"]["max"] == max(m for m, _ in shapes)
    assert shape["empty_cells"]["mean"] == round(sum(e * c for (_, e), c in shapes.items()) / 25, 6)
    assert not res.lines  # no first-line award in this family


def test_cli_prints_length_and_empty_cells_and_resumes(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    checkpoint = str(tmp_path / "cp.json")
    args = ["analyze", "random", "intelligent", "-n", "12", "--chunk", "4", "--seed", "2", "--json"]
    assert main([*args, "--checkpoint", checkpoint]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main([*args, "--checkpoint", checkpoint]) == 0  # every chunk comes from the checkpoint
    assert json.loads(capsys.readouterr().out) == first
    _, shapes = reference_tally(2, [4, 4, 4])
    assert first["moves"]["max"] == max(m for m, _ in shapes) and first["games"] == 12
    assert main(["analyze", "random", "intelligent", "-n", "4", "--seed", "2", "--core", "python"]) == 0
    python = capsys.readouterr().out
    assert "cells left empty: mean" in python
    if nested_core.available() is None:  # the compiled nested core plays the same games
        assert main(["analyze", "random", "intelligent", "-n", "4", "--seed", "2", "--core", "compiled"]) == 0
        assert capsys.readouterr().out == python
