"""Z3 proofs of the nested-classical invariants, for every position of a ruleset's board.

The claims are about the model's own rule functions (verify/nested/model.py) run on Z3 terms, the
functions the walk and the sampled games compare both cores with. A move changes one block (the
one its cell is in), then the block states, then the turn (`Position.play`); so the invariant
below is proved a block and a board of blocks at a time, for every content of a block and every
state of the blocks.

The invariant INV of a position that is not over: no cell holds two marks; every open block has an
empty cell and no complete block pattern of either player; some block is open; no player owns a
board pattern of blocks. The empty board satisfies it. Claims, for every position satisfying INV:

* `legal-move` (per position of the previous cell, and before the first move): some cell is
  allowed, and every allowed cell is an empty cell of an open block;
* `block` (per position of the moved cell in its block, for every content of the block): the move
  fills exactly one empty place; the block ends won by the mover, drawn or open, never two of
  these; an open block keeps an empty place and no complete pattern; the other player completes
  no pattern;
* `board` (per moved block, for every state of the blocks and every result of the block rule):
  the other player owns no board pattern afterwards (at most one player completes one); a game
  that ends without a winner has no open block and no pattern; a game that goes on satisfies the
  board part of INV again;
* `scores` (for every end: won by x, by o, or every block closed without a pattern): exactly one
  of the three holds, the loser of a won game scores nothing, and each player's points lie in
  the range the scoring components allow (`points_range`);
* `merge` (per position of the previous cell): two positions with the same block states and the
  same cells in open blocks allow the same cells; `symmetry` (per symmetry of the rules): the rule
  functions commute with it. The walk's merging of positions rests on both.

So INV holds at every reachable position (induction over moves), a legal move exists until the
end, each move fills one empty cell (so a game ends within as many moves as the board has cells),
at most one player completes a pattern, and every end has a defined score.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

from qttt import Ruleset

from ..claims import Claim, Logic, Settled, booleans, exactly_one, settle, z3_logic
from .model import Rules, allowed, block_result, owns_pattern, points, rules_of

PROOFS = ("legal-move", "block", "board", "scores", "merge", "symmetry")


def points_range(rules: Rules, won: bool) -> tuple[Fraction, Fraction]:
    """The fewest and the most points one player can get from the scoring components in a won
    (`won`) or an unwon game: each component's own range, added up (points may be negative)."""
    low = high = Fraction(0)
    for a in rules.awards:
        if a.award == "win":
            options = [a.points, Fraction(0)] if won else [Fraction(0)]
        elif won:
            options = [Fraction(0)]
        elif a.award == "draw-blocks":
            options = [sum((w for w in a.weights if w < 0), Fraction(0)),
                       sum((w for w in a.weights if w > 0), Fraction(0))]
        else:
            options = [a.more, a.fewer, a.equal]
        low, high = low + min(options), high + max(options)
    return low, high


def _no_pattern(z: Logic, patterns: Sequence[Sequence[int]], marks: Sequence[Any]) -> Any:
    return z.not_(z.any(z.all(marks[q] for q in p) for p in patterns))


def legal_claims(rules: Rules) -> Iterator[Claim]:
    """Per previous position (None: the first move): INV implies a legal move, every one an empty
    cell of an open block."""
    z = z3_logic()
    empty = booleans("empty", rules.cells)
    is_open = booleans("open", rules.side)
    open_empty = [z.all([empty[c], is_open[rules.block_of(c)]]) for c in range(rules.cells)]
    premises = [z.any(is_open)] + [z.any([z.not_(is_open[b]), z.any(empty[c] for c in rules.block_cells(b))])
                                   for b in range(rules.side)]
    for previous in (None, *range(rules.side)):
        may = allowed(z, rules, open_empty, previous)
        goal = z.all([z.any(may), *(z.any([z.not_(may[c]), open_empty[c]]) for c in range(rules.cells))])
        yield Claim(f"legal-move after position {previous}", premises, goal)


def block_claims(rules: Rules) -> Iterator[Claim]:
    """Per position of the moved cell, for every content of its (open) block."""
    import z3

    z = z3_logic()
    mine, other = booleans("mine", rules.side), booleans("other", rules.side)
    invariant = [*(z.not_(z.all([mine[k], other[k]])) for k in range(rules.side)),
                 _no_pattern(z, rules.block_patterns, mine), _no_pattern(z, rules.block_patterns, other)]
    for q in range(rules.side):
        premises = [*invariant, z.not_(mine[q]), z.not_(other[q])]
        after = [z.any([mine[k], z3.BoolVal(k == q)]) for k in range(rules.side)]
        filled = [z.any([after[k], other[k]]) for k in range(rules.side)]
        won, drawn = block_result(z, rules, after, filled)
        count = z3.Sum([z.ite(f, 1, 0) for f in filled])
        before = z3.Sum([z.ite(z.any([mine[k], other[k]]), 1, 0) for k in range(rules.side)])
        still_open = z.not_(z.any([won, drawn]))
        goal = z.all([
            count == before + 1,
            z.not_(z.all([won, drawn])),
            z.any([z.not_(still_open),
                   z.all([z.not_(z.all(filled)), _no_pattern(z, rules.block_patterns, after)])]),
            _no_pattern(z, rules.block_patterns, other),
        ])
        yield Claim(f"block: a move at position {q}", premises, goal)


def board_claims(rules: Rules) -> Iterator[Claim]:
    """Per moved block, for every state of the blocks before (INV, the block open) and every
    result of the block rule (won by the mover, drawn, or still open)."""
    import z3

    z = z3_logic()
    mine, other, drawn = booleans("mine_block", rules.side), booleans("other_block", rules.side), booleans(
        "drawn_block", rules.side)
    won_now, drawn_now = z3.Bool("won_now"), z3.Bool("drawn_now")
    states = [*(z.not_(z.any([z.all([a, b]) for a, b in ((mine[i], other[i]), (mine[i], drawn[i]),
                                                        (other[i], drawn[i]))])) for i in range(rules.side))]
    before = [*states, owns_free(z, rules, mine), owns_free(z, rules, other),
              z.not_(z.all([won_now, drawn_now]))]
    for b in range(rules.side):
        premises = [*before, z.not_(mine[b]), z.not_(other[b]), z.not_(drawn[b])]
        mine_after = [z.any([mine[i], z.all([z3.BoolVal(i == b), won_now])]) for i in range(rules.side)]
        open_after = [z.not_(z.any([mine_after[i], other[i], drawn[i],
                                    z.all([z3.BoolVal(i == b), drawn_now])])) for i in range(rules.side)]
        wins = z.all([won_now, owns_pattern(z, rules, mine_after)])
        over = z.any([wins, z.not_(z.any(open_after))])
        goal = z.all([
            z.not_(owns_pattern(z, rules, other)),
            z.any([z.not_(z.all([over, z.not_(wins)])),
                   z.all([z.not_(z.any(open_after)), z.not_(owns_pattern(z, rules, mine_after))])]),
            z.any([over, z.all([z.any(open_after), z.not_(owns_pattern(z, rules, mine_after))])]),
        ])
        yield Claim(f"board: a move in block {b}", premises, goal)


def owns_free(z: Logic, rules: Rules, owned: Sequence[Any]) -> Any:
    """No board pattern among the blocks `owned`."""
    return z.not_(owns_pattern(z, rules, owned))


def score_claims(rules: Rules) -> Iterator[Claim]:
    """For every end: exactly one of won by x, won by o, all closed without a pattern; the loser
    of a won game scores nothing; the points lie in `points_range`."""
    z = z3_logic()
    wx, wo = booleans("x_block", rules.side), booleans("o_block", rules.side)
    states = [z.not_(z.all([wx[i], wo[i]])) for i in range(rules.side)]
    x_wins, o_wins = owns_pattern(z, rules, wx), owns_pattern(z, rules, wo)
    # The ends `board` leaves: one player owns a pattern (the mover; the other none), or none does.
    ends = z.any([z.all([x_wins, z.not_(o_wins)]), z.all([o_wins, z.not_(x_wins)]),
                  z.all([z.not_(x_wins), z.not_(o_wins)])])
    px, po = points(z, rules, (x_wins, o_wins), (wx, wo))
    won_low, won_high = points_range(rules, True)
    low, high = points_range(rules, False)
    n = z.number
    nobody = z.all([z.not_(x_wins), z.not_(o_wins)])
    goal = z.all([
        exactly_one(z, [z.all([x_wins, z.not_(o_wins)]), z.all([o_wins, z.not_(x_wins)]), nobody]),
        z.any([z.not_(x_wins), po == n(Fraction(0))]),
        z.any([z.not_(o_wins), px == n(Fraction(0))]),
        z.any([nobody, z.all([n(won_low) <= px, px <= n(won_high), n(won_low) <= po, po <= n(won_high)])]),
        z.any([z.not_(nobody), z.all([n(low) <= px, px <= n(high), n(low) <= po, po <= n(high)])]),
    ])
    yield Claim("scores: every end", [*states, ends], goal)


def merge_claims(rules: Rules) -> Iterator[Claim]:
    """Per previous position: two positions with the same block states and the same cells in open
    blocks (closed blocks' cells free) allow the same cells."""
    z = z3_logic()
    is_open = booleans("open", rules.side)
    first, second = booleans("a_empty", rules.cells), booleans("b_empty", rules.cells)
    same = [z.any([z.not_(is_open[rules.block_of(c)]), first[c] == second[c]]) for c in range(rules.cells)]
    a = [z.all([first[c], is_open[rules.block_of(c)]]) for c in range(rules.cells)]
    b = [z.all([second[c], is_open[rules.block_of(c)]]) for c in range(rules.cells)]
    for previous in (None, *range(rules.side)):
        goal = z.all([x == y for x, y in zip(allowed(z, rules, a, previous), allowed(z, rules, b, previous),
                                             strict=True)])
        yield Claim(f"merge after position {previous}", same, goal)


def symmetry_claims(rules: Rules) -> Iterator[Claim]:
    """Per symmetry of the rules (`Rules.symmetries`, the identity aside): the block rule, the
    board rule and the points give the same on a relabelled block, board of blocks or set of won
    blocks, and the cells allowed after the relabelled previous position are the images of those
    allowed before; so a position and its image have the same future, relabelled."""
    import z3

    z = z3_logic()
    mine, filled = booleans("mine", rules.side), booleans("filled", rules.side)
    owned, other = booleans("owned", rules.side), booleans("other", rules.side)
    cells = booleans("open_empty", rules.cells)
    wx, wo = z3.Bool("x_wins"), z3.Bool("o_wins")
    for g in rules.symmetries[1:]:
        moved = g.blocks_back  # the relabelled values: the image of place q holds the value of q
        same_block = [a == b for a, b in zip(block_result(z, rules, moved(mine), moved(filled)),
                                             block_result(z, rules, mine, filled), strict=True)]
        same_board = owns_pattern(z, rules, moved(owned)) == owns_pattern(z, rules, owned)
        same_points = [a == b for a, b in zip(points(z, rules, (wx, wo), (moved(owned), moved(other))),
                                              points(z, rules, (wx, wo), (owned, other)), strict=True)]
        yield Claim(f"symmetry {g.place}: block, board, points", [],
                    z.all([*same_block, same_board, *same_points]))
        for previous in (None, *range(rules.side)):
            before = allowed(z, rules, cells, previous)
            after = allowed(z, rules, g.back(cells), None if previous is None else g.place[previous])
            yield Claim(f"symmetry {g.place}: allowed after position {previous}", [],
                        z.all([after[g.cell[c]] == before[c] for c in range(rules.cells)]))


CLAIMS = {"legal-move": legal_claims, "block": block_claims, "board": board_claims, "scores": score_claims,
          "merge": merge_claims, "symmetry": symmetry_claims}
_SETTLED: dict[tuple[Rules, str], Settled] = {}


def prove(rs: Ruleset, which: str, timeout: float = 60.0) -> Settled:
    """The claims `which` (a key of CLAIMS) for rs's rules, settled once per process and rules."""
    rules = rules_of(rs)
    key = (rules, which)
    if key not in _SETTLED:
        _SETTLED[key] = settle(CLAIMS[which](rules), timeout)
    return _SETTLED[key]
