"""Game analysis common to every family: random-play statistics (`sample`, through each family's
playout or compiled core), saved results (`results`) and the optional Dask mapper (`distributed`).
A family's own analyses (exact counts, solved values, fairness) live in its package
(qttt/quantum/analysis) and are reached through the family's tools.
"""

from .sample import SampleResult, sample_games

__all__ = ["SampleResult", "sample_games"]
