"""The quantum family's design properties (its `design` tool, see verify.design): games built to
show what the rules can do, its arguments that a setting changes no game, and its own questions,
derived from the ruleset's end rules and scoring components:

- `end-reached`: each way a game can end (rule end-line under end = first-line, end-full, and
  last-square under last_square = end) is reached by some game;
- `end-scored`: under end = first-line, no game ends on a line while no scoring award counts a
  pattern either player owns (the designer's slip: the game ends on a line of three, the scoring
  counts lines of four, and the won game scores as if nobody owned anything).

Each is settled by a game reaching it (designed, then seeded random games; replayed by the engine),
by every reachable position (boards small enough to walk), or by an argument over every owner
colouring of the board, stated with its bound.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Callable, Iterable, Sequence

from qttt import Ruleset
from qttt.conformance.telling import Setting
from qttt.errors import QtttError
from qttt.notation import Json, action_from_json, action_to_json
from qttt.quantum.engine import State, named_outcomes, quantum_state
from qttt.quantum.game import compile_game

from ..design import finals, positions
from ..report import Design, Witness
from .scores import Design as Plan
from .scores import end_lines, full_designs, most_cells, parked_design
from .witness import plan_actions, replay

FULL_DESIGNS = 40  # full-board designs tried (each numbered in a few orders)


# -- games built to order -----------------------------------------------------------------------

def designed_games(rs: Ruleset) -> list[list[Json]]:
    """Whole games reaching rare positions: one player alone holding each end line and each award
    pattern (the other's moves left spooky), and full boards made by one collapse; each played on
    to the end by seeded random play. Only games the engine plays from the start."""
    masks = [*end_lines(rs), *(p.mask for a in compile_game(rs).awards for p in a.patterns)]
    plans = [d for m in dict.fromkeys(masks) for player in (0, 1)
             if (d := parked_design(rs, player, m)) is not None]
    plans += list(itertools.islice(full_designs(rs), FULL_DESIGNS))
    ending = end_lines(rs)
    if ending:  # full boards without an end line: the game ends full, if it can
        plans += list(itertools.islice((d for d in full_designs(rs) if not _held(d.board, ending)),
                                       FULL_DESIGNS // 4))
    out = []
    for i, plan in enumerate(plans):
        game = _played(rs, plan, i)
        if game is not None:
            out.append(game)
    return out


def _played(rs: Ruleset, plan: Plan, seed: int) -> list[Json] | None:
    """A plan's actions, then seeded random play to the end (None if the engine refuses it)."""
    assignment = {c: m for c, m in enumerate(plan.board) if m}
    acts = named_outcomes(rs, plan_actions([assignment], plan.parked))
    state = replay(rs, acts)
    if state is None:
        return None
    rng = random.Random(seed)
    out = [action_to_json(a) for a in acts]
    while not state.over and (legal := state.legal_actions()):
        act = legal[rng.randrange(len(legal))]
        out.append(action_to_json(act))
        state = state.apply(act)
    return out


# -- arguments that a setting changes no game ------------------------------------------------------

def argue(rs: Ruleset, setting: Setting) -> str | None:
    """Why the setting changes no game of rs, when an argument of the checker shows it: equal best
    lines that never happen (for a first-line tie), or a component whose patterns no player can
    hold (for a whole component)."""
    match = re.fullmatch(r"scoring\[(\d+)\](?:\.(\w+))?", setting.field)
    if match is None:
        return None
    component = rs.scoring[int(match[1])]
    if match[2] == "tie" and component.award == "first-line":
        return _never_equal(rs, int(match[1]))
    if match[2] is None:
        return _never_held(rs, int(match[1]))
    return None


def _never_equal(rs: Ruleset, index: int) -> str | None:
    """Why two best lines of the component never have equal keys (so its tie is never paid)."""
    c = rs.scoring[index]
    criteria = (*c.get("tiebreak"), *c.get("fallback"))
    length = len(compile_game(rs).awards[index].patterns[0].cells)
    if "min-max" in criteria:
        return ("case analysis: best lines are ordered by min-max, and the largest move numbers of an x "
                "line and an o line are an odd and an even number, never equal")
    if "min-sum" in criteria and length % 2:
        return (f"case analysis: best lines are ordered by min-sum, and on lines of odd length {length} "
                "an x line sums to an odd number, an o line to an even one, never equal")
    return None


def _never_held(rs: Ruleset, index: int) -> str | None:
    """Why nobody ever holds a pattern of the component while it scores nothing without one."""
    award = compile_game(rs).awards[index]
    cells = rs.board * rs.board
    empty = [0] * cells
    if any(award.evaluate(empty, 0, 0)[:2]):
        return None
    most = max(most_cells(rs, player, full) for player in (0, 1) for full in (True, False))
    need = min(len(p.cells) for p in award.patterns)
    if need <= most:
        return None
    return (f"its smallest pattern has {need} cells and a player holds at most {most} classical marks at "
            "the end (the cell bound of the score range), while it scores 0 with no pattern held")


# -- the family's own design properties ----------------------------------------------------------

def designs(rs: Ruleset, spec: str, given: Sequence[Sequence[Json]], games: int, budget: int) -> list[Design]:
    """end-reached for each way rs can end, then end-scored under end = first-line; `given`: the
    designed games (`designed_games`)."""
    ended = [(quantum_state(s), a) for s, a in finals(rs, given, games, "ends")]
    walked = positions(rs, budget)
    every = None if walked is None else [(quantum_state(s), list(p)) for s, p in walked if s.over]
    searched = f"{len(given)} designed and {games} random games"
    out = [_reached(rs, spec, rule, ended, every, searched, budget) for rule in end_rules(rs)]
    if rs.rules.end == "first-line":
        out.append(_scored(rs, spec, ended, every, searched, budget))
    return out


def end_rules(rs: Ruleset) -> list[str]:
    """The ways a game of rs can end, as rule ids: end-line (end = first-line), end-full, and
    last-square (last_square = end)."""
    return [*(["end-line"] if rs.rules.end == "first-line" else []), "end-full",
            *(["last-square"] if rs.rules.last_square == "end" else [])]


WAYS = {"end-line": "on a line", "end-full": "on a full board", "last-square": "with one open cell left"}


def ended_by(rs: Ruleset, state: State) -> str:
    """The rule that ended a finished game of rs (one of `end_rules`)."""
    if rs.rules.end == "first-line" and _owned(state, end_lines(rs)):
        return "end-line"
    return "last-square" if len(state.open_cells) == 1 else "end-full"


def _holder(state: State, masks: Iterable[int]) -> str:
    """Who holds which of the masks at the end: `x holds the line 0-1-2`."""
    x, o = _owners(state.classical)
    for m in masks:
        for name, held in (("x", x), ("o", o)):
            if m & held == m:
                cells = "-".join(str(c) for c in range(len(state.classical)) if m >> c & 1)
                return f"{name} holds the line {cells}"
    return "nobody holds a line"


def _owned(state: State, masks: Iterable[int]) -> bool:
    return _held(state.classical, masks)


def _owners(board: Sequence[int]) -> tuple[int, int]:
    """The cells x holds (odd move numbers) and o holds, as bit masks of a classical board."""
    x = sum(1 << c for c, m in enumerate(board) if m and m & 1)
    o = sum(1 << c for c, m in enumerate(board) if m and not m & 1)
    return x, o


def _held(board: Sequence[int], masks: Iterable[int]) -> bool:
    """Whether one player holds every cell of one of the masks on a classical board."""
    x, o = _owners(board)
    return any(m & x == m or m & o == m for m in masks)


Final = tuple[State, list[Json]]


def _first(found: Sequence[Final], pred: Callable[[State], bool]) -> Final | None:
    hits = [f for f in found if pred(f[0])]
    return min(hits, key=lambda f: len(f[1])) if hits else None


def _witness(rs: Ruleset, spec: str, actions: list[Json], shows: Callable[[State], str]) -> Witness | None:
    """A game as a witness after replaying it from the start under the real rules."""
    state = State.initial(rs)
    try:
        for a in actions:
            state = quantum_state(state.apply(action_from_json(a)))
    except QtttError:
        return None
    return Witness({"variant": spec, "actions": actions}, shows(state))


def _final_text(state: State) -> str:
    return (f"the game ends with board {list(state.classical)}, scores x {state.scores['x']}, "
            f"o {state.scores['o']}")


def _reached(rs: Ruleset, spec: str, rule: str, ended: Sequence[Final], every: Sequence[Final] | None,
             searched: str, budget: int) -> Design:
    way = WAYS[rule]
    subject = f"{rule}: ends {way}"
    hit = _first(ended, lambda s: ended_by(rs, s) == rule) or \
        (_first(every, lambda s: ended_by(rs, s) == rule) if every is not None else None)
    if hit is not None:
        w = _witness(rs, spec, hit[1], _final_text)
        if w is not None:
            return Design("end-reached", rule, subject, "clean", f"a game ends {way}",
                          f"a game, replayed ({len(hit[1])} actions)", (rule,), w)
    if every is not None:
        return Design("end-reached", rule, subject, "finding", f"no game ends {way}",
                      f"proved (exhaustive: every reachable position, {len(every)} final)", (rule,))
    argument = _no_board_without_line(rs, rule)
    if argument is not None:
        return Design("end-reached", rule, subject, "finding", f"no game ends {way}", f"proved ({argument})",
                      (rule,))
    return Design("end-reached", rule, subject, "unknown", f"no game found ending {way}",
                  f"unknown (searched {searched}; the walk stopped at {budget} positions)", (rule,))


def _no_board_without_line(rs: Ruleset, rule: str) -> str | None:
    """Why no game of rs ends full, or with one open cell, without a line: every owner colouring of
    the classical cells completes an end line (so the game ended earlier). Under keep each player's
    share of the cells is fixed by the move count; under vanish every colouring is tried."""
    if rule == "end-line" or rs.rules.end != "first-line":
        return None
    masks = end_lines(rs)
    cells = rs.board * rs.board
    filled = cells if rule == "end-full" else cells - 1
    keep = rs.rules.untouched == "keep"
    count = 0
    for held in itertools.combinations(range(cells), filled):
        for bits in range(1 << filled):
            xs = [c for i, c in enumerate(held) if bits >> i & 1]
            if keep and len(xs) != (filled + 1) // 2:
                continue
            count += 1
            x = sum(1 << c for c in xs)
            o = sum(1 << c for c in held) & ~x
            if not any(m & x == m or m & o == m for m in masks):
                return None
        if count > 2_000_000:
            return None
    share = "x holding the odd moves' cells" if keep else "any split"
    return (f"every owner colouring of {filled} classical cells ({count}, {share}) completes a line of "
            f"{rs.rules.end_line or rs.board}, so the game has ended on a line before")


def _scored(rs: Ruleset, spec: str, ended: Sequence[Final], every: Sequence[Final] | None, searched: str,
            budget: int) -> Design:
    """end-scored: no game ends on a line while no award counts a pattern either player holds."""
    awards = [a for a in compile_game(rs).awards]
    pats = [p.mask for a in awards for p in a.patterns]
    length = rs.rules.end_line or rs.board
    subject = f"end-line: a line of {length} ends the game"
    rules = ("end-line", *dict.fromkeys(a.rule for a in awards))

    def unscored(s: State) -> bool:
        return ended_by(rs, s) == "end-line" and not _owned(s, pats)

    hit = _first(ended, unscored) or (_first(every, unscored) if every is not None else None)
    if hit is not None:
        w = _witness(rs, spec, hit[1], lambda s: _final_text(s) + f": {_holder(s, end_lines(rs))}, and "
                     "no award counts a pattern either player holds")
        if w is not None:
            return Design("end-scored", "end-line", subject, "finding",
                          f"a game can end on a line of {length} that scores nothing: no scoring award "
                          "counts a pattern either player holds then",
                          f"a game, replayed ({len(hit[1])} actions)", rules, w)
    counted = [m for m in end_lines(rs) if not any(p & m == p for p in pats)]
    if not counted:
        return Design("end-scored", "end-line", subject, "clean",
                      f"every line of {length} that ends the game holds a pattern some award counts",
                      "proved (every end line contains an award's pattern)", rules)
    if every is not None:
        return Design("end-scored", "end-line", subject, "clean",
                      f"every game that ends on a line of {length} holds a pattern some award counts",
                      f"proved (exhaustive: every reachable position, {len(every)} final)", rules)
    return Design("end-scored", "end-line", subject, "unknown",
                  f"a line of {length} without an award's pattern may end a game: none found",
                  f"unknown (searched {searched}; the walk stopped at {budget} positions)", rules)


