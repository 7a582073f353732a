"""Scores well defined: undecided ties and the score range, for any ruleset.

* Ties. A first-line award compares the two players' best lines by the criteria taken from the
  sources (`tiebreak`); when these leave the keys equal the result rests on criteria or awards no
  source states (rule score-tie-gap). X's marks carry odd move numbers and O's even ones, and two
  lines of different players share no cell, so a min-max key (a line's largest move) never ties,
  and a min-sum key ties only if the line length is even (L odd numbers sum to L mod 2, L even
  ones to 0). When a tie is possible a designed game exhibits it (`tie_witness`).
* Range. A sound range per player (`declared_range`): the best and worst the components can give
  a player, exhaustively over every set of cells the player can hold at the end (`most_cells`,
  which states why each count is an upper bound),
  with the opponent's cells known on a full board. It is tight when designed games, replayed by
  the engine, reach all four ends (`range_witnesses`): one-collapse designs, and under vanish
  games of several collapses of one player's marks alone (`sole_collapse_game`).
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

from qttt import IllegalAction, Ruleset
from qttt.geometry import Pattern, lines, patterns
from qttt.quantum.engine import Action, Outcome, Place, State, named_outcomes
from qttt.quantum.game import compile_game
from qttt.quantum.scoring import NONE, SOME, UNKNOWN
from qttt.vocabulary import Component

from ..report import Witness
from .witness import plan_actions, record, replay

Board = tuple[int, ...]
"""Per cell the move number of its classical mark, 0 for an open cell."""


def most_cells(rs: Ruleset, player: int, full: bool) -> int:
    """At most how many classical marks player (0 = x, 1 = o) holds at the end, on a full board or
    with cells left open. With untouched = keep every move's mark is classical in a cell of its
    own or a live edge, and at the end the live edges form a forest on the open cells, so at most
    n² moves were made, n² - 1 if a cell is open: x holds at most the odd ones, o the even ones.
    With vanish the move count bounds nothing, but under end = full each player holds a cell of a
    finished game, so at most n² - 1 (under end = first-line only n² is known). The argument: the
    game is over only with at most one open cell, so some collapse left at most one open; take the
    last, closed by move m. Its cycle has two or more live edges, and with vanish every live edge
    was placed after the previous collapse, so move m - 1 (the other player's) is live too. Were it
    outside the collapsed component, its two cells would stay open; so it is inside, and both
    players' moves m - 1 and m become classical marks, which nothing changes afterwards.
    And a player holds n² - 1 only if `_sole_collapses_reach_two` (else n² - 2)."""
    cells = rs.board * rs.board
    if rs.rules.untouched == "vanish":
        if rs.rules.end != "full":
            return cells
        return cells - 1 if _sole_collapses_reach_two(cells, player) else cells - 2
    moves = cells if full else cells - 1
    return (moves + 1) // 2 if player == 0 else moves // 2


def _sole_collapses_reach_two(cells: int, player: int) -> bool:
    """Whether, under vanish and end = full, collapses of player's marks alone can leave exactly two
    open cells; only then can the player hold all cells but one at the end. Why: the other player
    then holds one cell, so the last collapse made one cell of each (its component holds all live
    moves, else two cells stay open; three moves would need the player to move first after the
    player's own collapse), on the last two open cells, and every earlier collapse was the
    player's alone. Such a collapse of c cells from N open ones had the other player's live
    moves, at least c - 1 (c when the other moved first: always after the player's own collapse,
    and at the start for o), outside its component on a forest of at least one more cell:
    N >= 2c, or 2c + 1."""
    def reach(open_cells: int, other_first: bool) -> bool:
        if open_cells == 2:
            return True
        return any(reach(open_cells - c, True)
                   for c in range(2, open_cells + 1) if open_cells >= 2 * c + other_first)
    return reach(cells, player == 1)


@dataclass(frozen=True)
class Range:
    """Least and most each player can score: as declared (a sound bound) and as reached by games."""

    declared: tuple[tuple[Fraction, Fraction], tuple[Fraction, Fraction]]
    reached: tuple[tuple[Fraction, Fraction], tuple[Fraction, Fraction]]
    witnesses: dict[str, Witness]

    @property
    def tight(self) -> bool:
        """Whether games reach all four ends of the declared range."""
        return self.declared == self.reached and len(self.witnesses) == 4


ENDS = ("x min", "x max", "o min", "o max")


def declared_range(rs: Ruleset) -> tuple[dict[str, Fraction], dict[str, int]] | None:
    """The least and most each player can score (x min, x max, o min, o max), with a set of that
    player's cells (bitmask) reaching each: exhaustive over every full board (x's cells any set of
    the size `most_cells` allows, o's the rest) and, when a game can end with open cells, over
    every set of at most `most_cells` cells, the opponent's unknown. A drawn game (rule
    score-draw-second) moves draw_second from x to o: x's least and o's greatest widen by it over
    every board where equal totals are possible (`_draws`). None above 16 cells."""
    cells = rs.board * rs.board
    if cells > 16:
        return None
    awards = compile_game(rs).awards
    masks = [[p.mask for p in a.patterns] for a in awards]
    tables = [[[a.range_for(k, other) for other in (NONE, SOME, UNKNOWN)]
               for k in range(len(ms) + 1)] for a, ms in zip(awards, masks, strict=True)]
    scale = math.lcm(*(v.denominator for t in tables for row in t for pair in row for v in pair))
    ints = [[[(int(a * scale), int(b * scale)) for a, b in row] for row in t] for t in tables]
    value: dict[str, int] = {}
    where: dict[str, int] = {}
    drawn: list[tuple[int, int, int, int]] = []  # rule score-draw-second: (low, high, x cells, o cells)

    def note(player: int, s: int, low: int, high: int) -> None:
        low_key, high_key = ENDS[2 * player], ENDS[2 * player + 1]
        if low_key not in value or low < value[low_key]:
            value[low_key], where[low_key] = low, s
        if high_key not in value or high > value[high_key]:
            value[high_key], where[high_key] = high, s

    def bounds(s: int, other: int | None) -> tuple[int, int]:
        low = high = 0
        for ms, table in zip(masks, ints, strict=True):
            mine = sum(1 for m in ms if m & s == m)
            state = UNKNOWN if other is None else (SOME if any(m & other == m for m in ms) else NONE)
            a, b = table[mine][state]
            low, high = low + a, high + b
        return low, high

    vanish = rs.rules.untouched == "vanish"
    if rs.rules.end == "first-line" or rs.rules.last_square == "end" or vanish:
        for player in (0, 1):
            for k in range(most_cells(rs, player, full=vanish) + 1):
                for chosen in itertools.combinations(range(cells), k):
                    s = sum(1 << c for c in chosen)
                    note(player, s, *bounds(s, None))
        drawn += _draws(rs, cells, vanish, bounds)
    if not vanish:
        everything = (1 << cells) - 1
        for chosen in itertools.combinations(range(cells), most_cells(rs, 0, full=True)):
            x = sum(1 << c for c in chosen)
            xs, os_ = bounds(x, everything & ~x), bounds(everything & ~x, x)
            note(0, x, *xs)
            note(1, everything & ~x, *os_)
            if max(xs[0], os_[0]) <= min(xs[1], os_[1]):  # equal totals possible: a drawn game
                drawn.append((max(xs[0], os_[0]), min(xs[1], os_[1]), x, everything & ~x))
    out = {k: Fraction(v, scale) for k, v in value.items()}
    _widen_for_draws(out, where, drawn, scale, compile_game(rs).draw_second)
    return out, where


def _draws(rs: Ruleset, cells: int, vanish: bool, bounds: Callable[[int, int | None], tuple[int, int]]
           ) -> list[tuple[int, int, int, int]]:
    """Under draw_second, the boards a game may end on with open cells where both totals can be
    equal, as (least and greatest equal total, x's cells, o's cells): every pair of disjoint cell
    sets of at most `most_cells` each on up to 9 cells; above, each player's sets with the opponent
    unknown (any total of the player's own: wider, so still a bound)."""
    if not compile_game(rs).draw_second:
        return []
    limits = (most_cells(rs, 0, full=vanish), most_cells(rs, 1, full=vanish))
    out = []
    for k in range(limits[0] + 1):
        for chosen in itertools.combinations(range(cells), k):
            x = sum(1 << c for c in chosen)
            if cells > 9:
                low, high = bounds(x, None)
                out.append((low, high, x, x))
                continue
            rest = [c for c in range(cells) if not x >> c & 1]
            for j in range(limits[1] + 1):
                for theirs in itertools.combinations(rest, j):
                    o = sum(1 << c for c in theirs)
                    (lx, hx), (lo, ho) = bounds(x, o), bounds(o, x)
                    if max(lx, lo) <= min(hx, ho):
                        out.append((max(lx, lo), min(hx, ho), x, o))
    if cells > 9:
        for k in range(limits[1] + 1):
            for chosen in itertools.combinations(range(cells), k):
                o = sum(1 << c for c in chosen)
                low, high = bounds(o, None)
                out.append((low, high, o, o))
    return out


def _widen_for_draws(out: dict[str, Fraction], where: dict[str, int], drawn: list[tuple[int, int, int, int]],
                     scale: int, d: Fraction) -> None:
    """Rule score-draw-second: a drawn game moves d from x to o, so x's least and o's greatest may
    move, by the least and greatest equal totals found (`drawn`: low, high, x cells, o cells)."""
    if not d or not drawn:
        return
    low, _, xs_at, _ = min(drawn)
    _, high, _, os_at = max(drawn, key=lambda t: t[1])
    if Fraction(low, scale) - d < out["x min"]:
        out["x min"], where["x min"] = Fraction(low, scale) - d, xs_at
    if Fraction(high, scale) + d > out["o max"]:
        out["o max"], where["o max"] = Fraction(high, scale) + d, os_at


def score_board(rs: Ruleset, board: Board) -> tuple[tuple[Fraction, Fraction], tuple[str, ...]]:
    """The engine's scores and notes for a final board."""
    x = sum(1 << c for c, m in enumerate(board) if m and m & 1)
    o = sum(1 << c for c, m in enumerate(board) if m and not m & 1)
    return compile_game(rs).score(list(board), x, o)


@dataclass(frozen=True)
class Design:
    """A one-collapse game plan: the classical board it makes and the moves left spooky."""

    board: Board
    parked: dict[int, tuple[int, int]]


def parked_design(rs: Ruleset, player: int, mask: int) -> Design | None:
    """One player's marks alone made classical in the cells of mask, the other player's moves left
    spooky on a path through the free cells; None when they do not fit."""
    cells = rs.board * rs.board
    mine = [c for c in range(cells) if mask >> c & 1]
    free = [c for c in range(cells) if not mask >> c & 1]
    k = len(mine)
    if k < (2 if rs.rules.two_cycles else 3):
        return None
    numbers = [2 * i + 1 + player for i in range(k)]
    others = [m for m in range(1, numbers[-1]) if m not in numbers]
    if others and len(others) > len(free) - 1:
        return None
    board = [0] * cells
    for c, m in zip(mine, numbers, strict=True):
        board[c] = m
    parked = {m: (free[i], free[i + 1]) for i, m in enumerate(others)}
    return Design(tuple(board), parked)


def full_designs(rs: Ruleset, seed: int = 0) -> Iterator[Design]:
    """Boards where one collapse made every cell classical with moves 1..n²: x's ceil(n²/2) cells
    range over every set of that size, numbered in a few orders."""
    cells = rs.board * rs.board
    rng = random.Random(seed)
    odd, even = list(range(1, cells + 1, 2)), list(range(2, cells + 1, 2))
    pats = [(p.mask, p.cells) for c in rs.scoring for p in patterns(rs.board, c.pattern, c.length)]
    for chosen in itertools.combinations(range(cells), len(odd)):
        xs = sum(1 << c for c in chosen)
        weight = [0] * cells
        for m, in_pattern in pats:
            if m & xs in (m, 0):
                for c in in_pattern:
                    weight[c] += 1
        xc = sorted(chosen, key=lambda c: -weight[c])
        oc = sorted((c for c in range(cells) if not xs >> c & 1), key=lambda c: -weight[c])
        shuffled_odd, shuffled_even = odd[:], even[:]
        rng.shuffle(shuffled_odd)
        rng.shuffle(shuffled_even)
        for xo, oe in ((odd, even), (odd, even[::-1]), (odd[::-1], even), (odd[::-1], even[::-1]),
                       (shuffled_odd, shuffled_even)):
            board = [0] * cells
            for c, m in zip(xc, xo, strict=True):
                board[c] = m
            for c, m in zip(oc, oe, strict=True):
                board[c] = m
            yield Design(tuple(board), {})


def designs(rs: Ruleset, where: dict[str, int]) -> Iterator[Design]:
    """Candidate one-collapse games. When a line ends the game: the sets reaching the declared
    ends and every end line, held by one player alone (the other's moves parked); then every full
    board; then every set one player can hold alone."""
    first_line = rs.rules.end == "first-line"
    if first_line:
        for mask in [*(where[k] for k in ENDS), *end_lines(rs)]:
            for player in (0, 1):
                d = parked_design(rs, player, mask)
                if d is not None:
                    yield d
    yield from full_designs(rs)
    if first_line:
        cells = rs.board * rs.board
        for k in range(2, max(most_cells(rs, 0, False), most_cells(rs, 1, False)) + 1):
            for chosen in itertools.combinations(range(cells), k):
                for player in (0, 1):
                    d = parked_design(rs, player, sum(1 << c for c in chosen))
                    if d is not None:
                        yield d


def design_witness(rs: Ruleset, variant: str, design: Design) -> Witness | None:
    """The game of a design, when the engine agrees that it ends on the designed board."""
    assignment = {c: m for c, m in enumerate(design.board) if m}
    acts = named_outcomes(rs, plan_actions([assignment], design.parked))
    state = replay(rs, acts)
    if state is None or not state.over or state.classical != design.board:
        return None
    notes = "; ".join(state.score_notes)
    return Witness(record(variant, acts), f"final board {list(design.board)} scores x {state.scores['x']}, "
                   f"o {state.scores['o']}" + (f" ({notes})" if notes else ""))


def range_witnesses(rs: Ruleset, variant: str, budget: int = 20000) -> Range | None:
    """The declared range and the extremes that designed games reach (at most `budget` designs
    scored), each with its game, replayed by the engine."""
    declared = declared_range(rs)
    if declared is None:
        return None
    goals, where = declared
    best: dict[str, tuple[Fraction, Design]] = {}
    line_masks = end_lines(rs)
    for i, design in enumerate(designs(rs, where)):
        if i >= budget:
            break
        if line_masks and not any(_owns(design.board, m) for m in line_masks) and 0 in design.board:
            continue
        (x, o), _ = score_board(rs, design.board)
        for key, v in zip(ENDS, (x, x, o, o), strict=True):
            old = best.get(key)
            improves = old is None or (v < old[0] if key.endswith("min") else v > old[0])
            if improves and design_witness(rs, variant, design) is not None:
                best[key] = (v, design)
        if len(best) == 4 and all(best[k][0] == goals[k] for k in ENDS):
            break
    witnesses = {}
    for key, (_, design) in best.items():
        w = design_witness(rs, variant, design)
        if w is not None:
            witnesses[key] = w
    values = {key: v for key, (v, _) in best.items()}
    for key in ("x max", "o max"):  # under vanish one collapse is not enough: play several
        player = ENDS.index(key) // 2
        if values.get(key) != goals[key] and rs.rules.untouched == "vanish":
            game = sole_collapse_game(rs, player, where[key])
            if game is not None and game[1].scores[key[0]] == goals[key]:
                values[key] = goals[key]
                witnesses[key] = Witness(record(variant, game[0]), "collapses of "
                                         f"{key[0]}'s marks alone, then a 2-cycle: final board "
                                         f"{list(game[1].classical)} scores x {game[1].scores['x']}, "
                                         f"o {game[1].scores['o']}")
    reached = tuple((values[ENDS[2 * p]], values[ENDS[2 * p + 1]]) for p in (0, 1))
    stated = tuple((goals[ENDS[2 * p]], goals[ENDS[2 * p + 1]]) for p in (0, 1))
    return Range((stated[0], stated[1]), (reached[0], reached[1]), witnesses)


def sole_collapse_game(rs: Ruleset, player: int, mask: int) -> tuple[list[Action], State] | None:
    """Under vanish and end = full, a game where player ends holding the cells of mask: collapses
    of the player's marks alone (a cycle through cells of mask, the other player's moves on a path
    through other open cells, vanishing), then one 2-cycle on a cell of mask and one other cell,
    closed by the player and measured to give the player its cell. Played on the engine; None
    when the plan does not fit or the engine ends elsewhere."""
    if rs.rules.untouched != "vanish" or rs.rules.end != "full" or player not in (0, 1):
        return None
    cells = rs.board * rs.board
    want = [c for c in range(cells) if mask >> c & 1]
    rest = [c for c in range(cells) if not mask >> c & 1]
    if not want or not rest or len(rest) > 2:
        return None
    state = State.initial(rs)
    acts: list[Action] = []

    def act(*actions: Action) -> None:
        nonlocal state
        acts.extend(actions)
        state = functools.reduce(State.apply, actions, state)

    def measure(goal: Callable[[State], bool]) -> bool:
        while state.phase == "measure":  # under a chance collapse, chance goes the named way
            good = [a for a in state.legal_actions() if goal(_settled(state, a))]
            if not good:
                return False
            act(*_and_named(state, good[0]))
        return True

    least = 2 if rs.rules.two_cycles else 3
    name = "xo"[player]
    try:
        while len(want) > 1:
            free = sorted(state.open_cells)
            first = state.to_move == name
            fits = [size for size in range(len(want) - 1, least - 1, -1)
                    if len(free) - size >= (size - 1 if first else size) + 1]
            if not fits:
                return None
            size = fits[0]
            ring = want[:size]
            q_moves = size - 1 if first else size  # the other player's moves, on a path
            path = [c for c in free if c not in ring]
            mine = ([(ring[0], ring[1])] * 2 if size == 2 else
                    [(ring[i], ring[(i + 1) % size]) for i in range(size)])
            theirs = [(path[i], path[i + 1]) for i in range(q_moves)]
            turns = [mine, theirs] if first else [theirs, mine]
            for i in range(len(mine) + len(theirs)):
                act(Place(*turns[i % 2][i // 2]))
            if not measure(lambda after: True):
                return None
            want = want[size:]
        last = want[0]
        other = next(c for c in rest if c in state.open_cells)
        if state.to_move == name:
            return None
        act(Place(last, other))
        act(Place(last, other))
        if not measure(lambda after: after.classical[last] % 2 == 1 - player):
            return None
    except (IllegalAction, StopIteration, IndexError):
        return None
    return acts, state


def _and_named(state: State, action: Action) -> list[Action]:
    """A measurement and, under a chance collapse, the outcome it named (rule collapse-chance)."""
    after = state.apply(action)
    return [action, Outcome(action.cell)] if after.phase == "chance" else [action]  # type: ignore[union-attr]


def _settled(state: State, action: Action) -> State:
    """The state after a measurement and, under a chance collapse, the outcome it named."""
    for a in _and_named(state, action):
        state = state.apply(a)
    return state


def _owns(board: Board, mask: int) -> bool:
    """Whether one player's classical marks fill the cells of mask."""
    marks = [board[c] for c in range(len(board)) if mask >> c & 1]
    return all(marks) and len({m & 1 for m in marks}) == 1


@dataclass(frozen=True)
class TieVerdict:
    """Whether one first-line component can leave its source criteria tied, and why."""

    component: int
    possible: bool
    reason: str
    witness: Witness | None = None


def tie_verdicts(rs: Ruleset, variant: str) -> list[TieVerdict]:
    """One verdict per first-line component (rule score-tie-gap)."""
    out = []
    for i, c in enumerate(rs.scoring):
        if c.award != "first-line":
            continue
        source: tuple[str, ...] = c.get("tiebreak")
        length = len(patterns(rs.board, c.pattern, c.length)[0].cells)
        decided = c.get("tie") is not None or c.get("first") == c.get("second")
        unstated = "fallback " + "/".join(c.get("fallback")) if c.get("fallback") else \
            "no stated tie award" if not decided else ""
        if "min-max" in source:
            out.append(TieVerdict(i, False, "min-max never ties: the largest moves of an x line and an o "
                                            "line are an odd and an even number"))
        elif source and length % 2:
            out.append(TieVerdict(i, False, f"min-sum never ties on lines of odd length {length}: an x "
                                            "line sums to an odd number, an o line to an even one"))
        elif not unstated:
            how = "the stated tie award" if c.get("tie") is not None else \
                f"first = second = {c.get('first')} each, whichever line is counted first"
            out.append(TieVerdict(i, False, f"equal keys get {how}"))
        else:
            pairs = _sum_ties(length, rs.board ** 2) if source else _any_lines(length, rs.board ** 2)
            w = tie_witness(rs, variant, c, pairs)
            what = f"min-sum can tie on lines of even length {length}" if source else \
                "no source criteria order simultaneous lines"
            reason = f"{what}; the result then rests on {unstated}" + ("" if w else "; no game found")
            out.append(TieVerdict(i, True, reason, w))
    return out


def _any_lines(length: int, limit: int) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Sets of `length` odd and `length` even moves up to limit, largest move first small."""
    found = [(max(xs + os_), xs, os_)
             for xs in itertools.combinations(range(1, limit + 1, 2), length)
             for os_ in itertools.combinations(range(2, limit + 1, 2), length)]
    for _, xs, os_ in sorted(found):
        yield xs, os_


def _sum_ties(length: int, limit: int) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Sets of `length` odd and `length` even moves up to limit with equal sums, largest move first
    small."""
    found = []
    for xs in itertools.combinations(range(1, limit + 1, 2), length):
        for os_ in itertools.combinations(range(2, limit + 1, 2), length):
            if sum(xs) == sum(os_):
                found.append((max(xs + os_), xs, os_))
    for _, xs, os_ in sorted(found):
        yield xs, os_


def tie_witness(rs: Ruleset, variant: str, comp: Component,
                pairs: Iterator[tuple[tuple[int, ...], tuple[int, ...]]], tries: int = 400) -> Witness | None:
    """A game in which both players' best lines tie on the source criteria: one collapse makes an
    x line and an o line classical with the given moves (the moves in between land in other cells),
    then, when the game goes on to a full board, a second collapse fills the rest."""
    cells = rs.board * rs.board
    pats: Sequence[Pattern] = patterns(rs.board, comp.pattern, comp.length)
    full = rs.rules.end == "full"
    count = 0
    for xs, os_ in pairs:
        top = max(xs + os_)
        gaps = [m for m in range(1, top + 1) if m not in xs + os_]
        for px, po in itertools.permutations(pats, 2):
            if px.mask & po.mask:
                continue
            outside = [c for c in range(cells) if not (px.mask | po.mask) >> c & 1]
            for extra in itertools.islice(itertools.combinations(outside, len(gaps)), 4):
                count += 1
                if count > tries:
                    return None
                first = {**dict(zip(px.cells, xs, strict=True)), **dict(zip(po.cells, os_, strict=True)),
                         **dict(zip(extra, gaps, strict=True))}
                rest = [c for c in outside if c not in extra]
                components = [first]
                tail: list[Action] = []
                if full and len(rest) >= 2:
                    components.append({c: top + 1 + i for i, c in enumerate(rest)})
                elif full and len(rest) == 1 and rs.rules.last_square == "forced":
                    tail = [Place(rest[0], rest[0])]
                acts = named_outcomes(rs, plan_actions(components, tail=tail))
                state = replay(rs, acts)
                gap = state is not None and any(n.startswith("score-tie-gap") for n in state.score_notes)
                if state is not None and state.over and gap:
                    return Witness(record(variant, acts), f"x line {list(px.cells)} moves {list(xs)}, o line "
                                   f"{list(po.cells)} moves {list(os_)}, sums {sum(xs)} and {sum(os_)}: "
                                   + "; ".join(state.score_notes)
                                   + f"; scores x {state.scores['x']}, o {state.scores['o']}")
    return None


def end_lines(rs: Ruleset) -> list[int]:
    """Masks of the lines that end the game (end = first-line), else none."""
    return [p.mask for p in lines(rs.board, rs.rules.end_line)] if rs.rules.end == "first-line" else []


def expected_scores(rs: Ruleset, board: Board) -> tuple[Fraction, Fraction]:
    """The checker's own reading of the scoring components (rules score-*) on a final board,
    written from the rules and not from qttt.scoring, so that a scoring bug shows as a difference."""
    total = [Fraction(0), Fraction(0)]
    for c in rs.scoring:
        pats = patterns(rs.board, c.pattern, c.length)
        held: list[list[tuple[int, ...]]] = [[], []]
        for p in pats:
            marks = [board[i] for i in p.cells]
            if all(marks) and len({m % 2 for m in marks}) == 1:
                held[0 if marks[0] % 2 else 1].append(tuple(marks))
        if c.award == "per-pattern":
            for who in (0, 1):
                total[who] += c.get("points") * len(held[who])
        elif c.award == "first-line":
            for who, v in enumerate(_first_line_award(c, held)):
                total[who] += v
        else:
            times = sorted({max(m) for who in (0, 1) for m in held[who]})
            ranks = c.get("ranks")
            worths = [Fraction(1, k) for k in range(1, len(times) + 1)] if ranks == "harmonic" else \
                [Fraction(v) for v in ranks][:len(times)] + [Fraction(0)] * max(0, len(times) - len(ranks))
            for who in (0, 1):
                total[who] += sum((worths[times.index(max(m))] for m in held[who]), Fraction(0))
    d = rs.rules.draw_second
    if total[0] == total[1]:  # a drawn game (rule score-draw-second)
        return total[0] - d, total[1] + d
    return total[0], total[1]


def _tie(c: Component) -> Fraction:
    """What equal best lines give each player: the stated tie award; unstated, first when first =
    second (either order gives the same), else 0 (rule score-tie-gap)."""
    tie = c.get("tie")
    if tie is not None:
        return Fraction(tie)
    return Fraction(c.get("first")) if c.get("first") == c.get("second") else Fraction(0)


def _first_line_award(c: Component, held: list[list[tuple[int, ...]]]) -> tuple[Fraction, Fraction]:
    """x's and o's points from one first-line component, given the lines each holds (a player alone
    with two or more gets `double` when it is stated)."""
    if not held[0] and not held[1]:
        return c.get("neither"), c.get("neither")
    if not held[0] or not held[1]:
        alone = 0 if held[0] else 1
        double = c.get("double")
        points = double if double is not None and len(held[alone]) > 1 else c.get("sole")
        return (points, Fraction(0)) if alone == 0 else (Fraction(0), points)
    criteria = c.get("tiebreak") + c.get("fallback")

    def best(lines_held: list[tuple[int, ...]]) -> tuple[int, ...]:
        return min(tuple(max(m) if k == "min-max" else sum(m) for k in criteria) for m in lines_held)

    bx, bo = best(held[0]), best(held[1])
    if bx == bo:
        return _tie(c), _tie(c)
    return (c.get("first"), c.get("second")) if bx < bo else (c.get("second"), c.get("first"))
