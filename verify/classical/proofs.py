"""Z3 proofs of the classical invariants, for every position of a ruleset's board: claims about the
model's own rule functions (verify/classical/model.py) run on Z3 terms.

A position that is not over has no line of either player and an empty cell (rules classical-line,
classical-full). Claims, for every such position:

* `legal-move`: some cell is allowed, and every allowed cell is empty;
* `move` (per cell moved in): the move fills exactly that one empty cell, and the other player
  completes no line (so at most one player completes a line, and a won game has one winner);
* `scores` (every end): exactly one of won by x, won by o, a full board without a line; the
  points are 1 and 0, or 1/2 each;
* `symmetry` (per symmetry of the rules): completing a line reads the same on a relabelled board,
  which the walk's merging of positions rests on.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from qttt import Ruleset

from ..claims import Claim, Settled, booleans, exactly_one, settle, z3_logic
from .model import Rules, allowed, completes, points, rules_of


def _going_on(rules: Rules) -> tuple[list[object], list[object], list[object]]:
    z = z3_logic()
    x, o = booleans("x", rules.cells), booleans("o", rules.cells)
    premises = [*(z.not_(z.all([a, b])) for a, b in zip(x, o, strict=True)),
                z.not_(completes(z, rules, x)), z.not_(completes(z, rules, o))]
    return x, o, premises


def legal_claims(rules: Rules) -> Iterator[Claim]:
    """A position that is not over has an allowed cell; every allowed cell is empty."""
    z = z3_logic()
    x, o, premises = _going_on(rules)
    empty = [z.not_(z.any([a, b])) for a, b in zip(x, o, strict=True)]
    over = z.not_(z.any(empty))  # no line (premise), so over means full
    may = allowed(z, empty, over)
    yield Claim("legal-move", [*premises, z.any(empty)],
                z.all([z.any(may), *(z.any([z.not_(m), e]) for m, e in zip(may, empty, strict=True))]))


def move_claims(rules: Rules) -> Iterator[Claim]:
    """Per cell moved in (by x; the rules treat both players alike): one cell filled, no line of
    the other player."""
    import z3

    z = z3_logic()
    x, o, premises = _going_on(rules)
    for q in range(rules.cells):
        after = [z.any([x[c], z3.BoolVal(c == q)]) for c in range(rules.cells)]
        count = z3.Sum([z.ite(z.any([a, b]), 1, 0) for a, b in zip(after, o, strict=True)])
        before = z3.Sum([z.ite(z.any([a, b]), 1, 0) for a, b in zip(x, o, strict=True)])
        yield Claim(f"move in cell {q}", [*premises, z.not_(x[q]), z.not_(o[q])],
                    z.all([count == before + 1, z.not_(completes(z, rules, o))]))


def score_claims(rules: Rules) -> Iterator[Claim]:
    """Every end: one result, and its points."""
    z = z3_logic()
    x, o = booleans("x", rules.cells), booleans("o", rules.cells)
    x_wins, o_wins = completes(z, rules, x), completes(z, rules, o)
    full = z.all(z.any([a, b]) for a, b in zip(x, o, strict=True))
    ends = [*(z.not_(z.all([a, b])) for a, b in zip(x, o, strict=True)), z.not_(z.all([x_wins, o_wins])),
            z.any([x_wins, o_wins, full])]
    px, po = points(z, x_wins, o_wins)
    n = z.number
    draw = z.all([z.not_(x_wins), z.not_(o_wins), full])
    yield Claim("scores: every end", ends, z.all([
        exactly_one(z, [z.all([x_wins, z.not_(o_wins)]), z.all([o_wins, z.not_(x_wins)]), draw]),
        px + po == n(Fraction(1)),
        z.any([z.all([px == n(Fraction(1)), po == n(Fraction(0))]),
               z.all([px == n(Fraction(0)), po == n(Fraction(1))]),
               z.all([draw, px == n(Fraction(1, 2)), po == n(Fraction(1, 2))])])]))


def symmetry_claims(rules: Rules) -> Iterator[Claim]:
    """Per symmetry (the identity aside): a relabelled board completes a line exactly when the
    board does."""
    z = z3_logic()
    mine = booleans("mine", rules.cells)
    for g, pick in zip(rules.symmetries[1:], rules.pick[1:], strict=True):
        yield Claim(f"symmetry {g}", [], completes(z, rules, pick(mine)) == completes(z, rules, mine))


CLAIMS = {"legal-move": legal_claims, "move": move_claims, "scores": score_claims,
          "symmetry": symmetry_claims}
_SETTLED: dict[tuple[Rules, str], Settled] = {}


def prove(rs: Ruleset, which: str, timeout: float = 60.0) -> Settled:
    """The claims `which` (a key of CLAIMS) for rs's rules, settled once per process and rules."""
    rules = rules_of(rs)
    if (rules, which) not in _SETTLED:
        _SETTLED[(rules, which)] = settle(CLAIMS[which](rules), timeout)
    return _SETTLED[(rules, which)]
