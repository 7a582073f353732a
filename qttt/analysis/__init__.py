"""Game analysis: exact game counts, solved values, random-play statistics and fairness.

Standard library only; `qttt.analysis.distributed` (Dask) is optional and imported on demand, and
`qttt.analysis.compiled` (the C rules core, compiled on demand with the system C compiler) is
used by `solve` and random play when it can be built, the Python engine otherwise.
The value of a position is the final score difference x − o under perfect play: X maximises it,
O minimises it (each player maximises own score minus the opponent's; the game is zero-sum in
the difference), and a measurement is a decision of the measurer.
"""

from .count import CountResult, count_games
from .keys import numbered_key, owner_key, partition_key
from .sample import SampleResult, sample_games
from .solve import SolveResult, solve

__all__ = [
    "CountResult", "SampleResult", "SolveResult", "count_games", "numbered_key", "owner_key",
    "partition_key", "sample_games", "solve",
]
