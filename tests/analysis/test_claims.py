"""Claims checked (spec/claims.toml): every claim that plays games is recomputed and must give the
value worked out by hand in its `check`; the others read committed results that exist."""

from __future__ import annotations

import pytest

from qttt import load_ruleset
from qttt.docgen import sources
from qttt.quantum.analysis.claims import (
    COMPUTATIONS,
    READS_RESULTS,
    Claim,
    compute,
    load_claims,
    mean_placements,
)
from qttt.quantum.engine import State
from qttt.quantum.notation import from_notation

CLAIMS = load_claims()


def test_claims_cite_known_sources_and_computations() -> None:
    known = sources()
    ids = [c.id for c in CLAIMS]
    assert len(ids) == len(set(ids))
    for c in CLAIMS:
        assert c.source in known, c.id
        assert c.how in COMPUTATIONS, c.id
        # a claim recomputed by play carries the hand-checked value it must give
        assert (c.how in READS_RESULTS) or c.expect is not None or c.how == "random-length", c.id


@pytest.mark.parametrize("claim", [c for c in CLAIMS if c.expect is not None], ids=lambda c: c.id)
def test_claim_recomputes_to_its_checked_value(claim: Claim) -> None:
    assert compute(claim) == claim.expect


def test_unstable_games_last_longer_as_the_footnote_says() -> None:
    claim = next(c for c in CLAIMS if c.id == "unstable-longer")
    stable, unstable = (mean_placements(n, claim.args["games"]) for n in claim.args["rulesets"])
    assert unstable > stable


def test_committed_results_answer_every_reading_claim() -> None:
    for c in CLAIMS:
        if c.how in READS_RESULTS:
            assert compute(c), c.id


def test_the_star_game_reaches_nine_marks_only_with_a_measurement_pending() -> None:
    # independent of the claims module: the star game, counted move by move from the record
    rec = from_notation("[wikipedia] X1:1-2 O2:1-3 X3:1-4 O4:1-5 X5:1-6 O6:1-7 X7:1-8 O8:1-9 X9:1-2")
    state = State.initial(load_ruleset("wikipedia"))
    counts = []
    for a in rec.actions:
        state = state.apply(a)
        counts.append((len(state.spooky[0]), state.phase))
    assert counts[7] == (8, "place") and counts[8] == (9, "measure")
