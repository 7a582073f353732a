"""The cases of a conformance suite as action sequences; `suite` adds the expectations.

Each builder takes a ruleset and returns case specs, or none where the ruleset makes the case
impossible (the coverage table then shows what is left uncovered). Positions that are hard to
build by hand are found by seeded random play, so the same ruleset always gives the same cases.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from ..chance import CHANCE, draw
from ..conformance.casespec import CaseSpec, seed_of
from ..errors import QtttError
from ..family import GameState
from ..geometry import lines, patterns
from ..notation import Json, action_from_json, action_to_json
from ..ruleset import Ruleset
from .engine import Action, Measure, Outcome, Place, State, quantum_state
from .game import compile_game
from .scoring import compile_scoring

SEARCH_GAMES = 3000  # random games tried before a searched-for case is given up


def place(a: int, b: int) -> Json:
    """A placement as interchange JSON."""
    return {"place": [a, b]}


def measure(c: int) -> Json:
    """A measurement as interchange JSON."""
    return {"measure": c}


def outcome(c: int) -> Json:
    """A chance outcome as interchange JSON."""
    return {"outcome": c}


def next_action(state: State, rng: random.Random) -> Action:
    """Seeded random play's next action: uniform among the legal actions, a chance turn's outcome
    drawn by its probabilities (qttt.chance.draw)."""
    if state.to_move == CHANCE:
        return draw(state.chance_outcomes(), rng)
    legal = state.legal_actions()
    return legal[rng.randrange(len(legal))]

def play(rs: Ruleset, actions: list[Json]) -> State | None:
    """The state after `actions`, or None if one of them is malformed or illegal."""
    state = State.initial(rs)
    try:
        for a in actions:
            state = state.apply(action_from_json(a))
    except QtttError:
        return None
    return state


def finish(rs: Ruleset, actions: list[Json], seed: int) -> list[Json]:
    """`actions` continued by seeded uniform random play to the end of the game (or a deadlock)."""
    state = play(rs, actions)
    assert state is not None, actions
    rng = random.Random(seed)
    out = list(actions)
    while not state.over:
        if not state.legal_actions():
            break
        act = next_action(state, rng)
        out.append(action_to_json(act))
        state = state.apply(act)
    return out


def random_game(rs: Ruleset, seed: int) -> Iterator[tuple[State, Action, State]]:
    """A seeded uniform random game as (before, action, after) transitions."""
    rng = random.Random(seed)
    state = State.initial(rs)
    while not state.over:
        if not state.legal_actions():
            return
        act = next_action(state, rng)
        after = state.apply(act)
        yield state, act, after
        state = after


Predicate = Callable[[State, Action, State], bool]


def search(rs: Ruleset, slug: str, description: str, found: Predicate,
           lead: int = 2, continue_to_end: bool = True) -> CaseSpec | None:
    """A case around the first transition of seeded random games where `found` holds.

    The start record is the game up to `lead` actions before that transition; the steps run to
    the end of the game (or stop right after it).
    """
    base = seed_of(f"{rs.canonical}/{slug}")
    for trial in range(SEARCH_GAMES):
        seed = base + trial
        actions: list[Json] = []
        hit = -1
        for before, act, after in random_game(rs, seed):
            actions.append(action_to_json(act))
            if hit < 0 and found(before, act, after):
                hit = len(actions) - 1
                if not continue_to_end:
                    break
        if hit >= 0:
            cut = max(0, hit - lead)
            return CaseSpec(slug, description, tuple(actions[:cut]), tuple(actions[cut:]),
                            seed_note=f"random game seed {seed}")
    return None


# -- helpers on states ------------------------------------------------------------------------

def owned_lines(state: State, length: int) -> tuple[list[int], list[int]]:
    """Masks of the lines (of `length`, 0: board size) wholly X, and wholly O."""
    cls = state.classical
    xs, os_ = [], []
    for p in lines(state.ruleset.board, length):
        owners = {cls[c] & 1 if cls[c] else -1 for c in p.cells}
        if owners == {1}:
            xs.append(p.mask)
        elif owners == {0}:
            os_.append(p.mask)
    return xs, os_


def end_length(rs: Ruleset) -> int:
    """The length of the lines that end a first-line game, or that the scoring counts."""
    if rs.rules.end == "first-line":
        return rs.rules.end_line
    line_lengths = [c.length for c in rs.scoring if c.pattern == "line"]
    return line_lengths[-1] if line_lengths else 0


# -- the builders -----------------------------------------------------------------------------

def opening(rs: Ruleset) -> list[CaseSpec]:
    """Placements without a cycle: move numbers, turn order, marks and the graph."""
    last = rs.board * rs.board - 1
    return [CaseSpec("opening", "three placements build a tree; turns alternate X, O, X",
                     (), (place(0, last), place(2, 1), place(1, 0)),
                     ("board-cells", "turn-order", "mark", "entanglement"))]


def two_cycle(rs: Ruleset) -> list[CaseSpec]:
    """O repeats X's two cells: a 2-cycle, measured both ways."""
    out = []
    for c in (0, 1):
        out.append(CaseSpec(f"two-cycle-measure-{c}", f"O repeats X's cells 0 and 1; cell {c} measured",
                            (), (place(0, 1), place(1, 0), measure(c), place(2, 3)), ("place-two-cycle",)))
    return out


def three_cycle(rs: Ruleset) -> list[CaseSpec]:
    """X closes a triangle, so O measures; both choices."""
    return [CaseSpec(f"three-cycle-measure-{c}", f"X3 closes the cycle 0-1-2; cell {c} measured",
                     (), (place(0, 1), place(1, 2), place(2, 0), measure(c)), ("measure-by",))
            for c in (0, 2)]


def long_cycles(rs: Ruleset) -> list[CaseSpec]:
    """A path closed into a cycle: through half the board, and through every cell."""
    size = rs.board * rs.board
    out = []
    for length, name in ((size // 2 + 1, "half"), (size, "full")):
        if length < 4:
            continue
        chain = [place(k - 1, k) for k in range(1, length)]
        close = place(length - 1, 0)
        for c in (0, length - 1):
            steps = [*chain[-2:], close, measure(c)]
            if name == "half":
                steps = finish(rs, [*chain, close, measure(c)], seed_of(f"long-{c}"))[length - 3:]
            out.append(CaseSpec(f"long-cycle-{name}-measure-{c}",
                                f"a cycle through cells 0..{length - 1}; cell {c} measured"
                                + ("; random play to the end" if name == "half" else ""),
                                tuple(chain[:-2]), tuple(steps)))
    return out


def stems(rs: Ruleset) -> list[CaseSpec]:
    """A triangle 0-1-2 with a stem on 0 and a two-edge stem on 2; both choices."""
    n = rs.board
    if n < 3:
        return []
    prefix = [place(0, n), place(2, n + 2), place(n + 2, 2 * n + 2), place(0, 1), place(1, 2)]
    return [CaseSpec(f"stems-both-ends-measure-{c}",
                     f"cycle 0-1-2 with stems from cells 0 and 2 collapses whole; cell {c} measured",
                     tuple(prefix[:3]), (*prefix[3:], place(2, 0), measure(c)), ("collapse-component",))
            for c in (0, 2)]


def untouched(rs: Ruleset) -> list[CaseSpec]:
    """A collapse beside a separate spooky move, which stays or vanishes."""
    last = rs.board * rs.board - 1
    return [CaseSpec("untouched-component", "a 2-cycle collapses while move 1 stands apart; "
                     "then move 1's cells are used again",
                     (), (place(last - 1, last), place(0, 1), place(0, 1), measure(1),
                          place(last, last - 1)), ("collapse-untouched",))]


def both_lines(rs: Ruleset) -> list[CaseSpec]:
    """One collapse completes the top row for one player and the bottom row for the other."""
    n = rs.board
    top, bottom = list(range(n)), list(range(n * (n - 1), n * n))
    ring = [c for pair in zip(top, bottom, strict=True) for c in pair]
    edges = [place(ring[i], ring[(i + 1) % len(ring)]) for i in range(len(ring))]
    out = []
    for c in (ring[0], ring[-1]):
        actions = finish(rs, [*edges, measure(c)], seed_of(f"both-lines-{c}"))
        out.append(CaseSpec(f"both-players-lines-measure-{c}",
                            f"a cycle alternating top and bottom rows gives both players a line; "
                            f"cell {c} measured", tuple(edges[:-2]), tuple(actions[len(edges) - 2:]),
                            ("pattern-line",)))
    return out


def double_line(rs: Ruleset) -> list[CaseSpec]:
    """X completes the top row and the left column at once, in cell 0."""
    n = rs.board
    xs = [c for c in range(1, n)] + [r * n for r in range(1, n)]
    others = [c for c in range(n * n) if c != 0 and c not in xs]
    if len(others) < len(xs):
        return []
    pairs = []
    for x, o in zip(xs, others, strict=False):
        pairs += [place(x, o), place(o, x), measure(o)]
    spare = others[len(xs):]
    final = [place(0, spare[0]), place(spare[0], 0), measure(spare[0])] if spare else [place(0, 0)]
    actions = [*pairs, *final]
    if play(rs, actions) is None:
        return []
    actions = finish(rs, actions, seed_of("double-line"))
    return [CaseSpec("double-line-corner", "2-cycles fill the first row and column but cell 0; "
                     "X's mark in cell 0 completes two lines", tuple(pairs[:-3]),
                     tuple(actions[len(pairs) - 3:]), ("pattern-line",))]


def tie_gap(rs: Ruleset) -> list[CaseSpec]:
    """Both players complete a 4×4 line in one collapse with equal sums of move numbers."""
    if rs.board != 4:
        return []
    ring = [0, 12, 1, 13, 2, 14, 3, 15]
    moves = [1, 2, 3, 4, 5, 8, 15, 10]  # X's marks 1+3+5+15 = O's 2+4+8+10
    filler = iter(place(c, c + 1) for c in range(4, 11))  # a path through the middle rows
    by_move = {m: place(ring[i], ring[(i + 1) % 8]) for i, m in enumerate(moves)}
    actions = [by_move[m] if m in by_move else next(filler) for m in range(1, 16)] + [measure(3)]
    if play(rs, actions) is None:
        return []
    return [CaseSpec("simultaneous-lines-equal-sums", "both players' lines of four have move "
                     "sums 24; the fallback criterion decides", tuple(actions[:12]),
                     tuple(actions[12:]), ("score-tie-gap",))]


def collapsed_prefix(rs: Ruleset) -> tuple[tuple[Json, ...], int]:
    """Actions that leave classical marks in cells 0 and 1 (and 2 without 2-cycles), and the
    first cell left open."""
    if rs.rules.two_cycles:
        return (place(0, 1), place(0, 1), measure(0)), 2  # o2 in 0, x1 in 1
    return (place(0, 1), place(1, 2), place(2, 0), measure(0)), 3  # x3 in 0, o2 in 2, x1 in 1


def illegal(rs: Ruleset) -> list[CaseSpec]:
    """Every kind of illegal and malformed action, in each phase; none changes the state."""
    size = rs.board * rs.board
    after_collapse, f = collapsed_prefix(rs)  # f, f + 1: open cells after the prefix
    g = f + 1
    malformed: tuple[Json, ...] = (
        {"place": [f]}, {"place": [f, g, g + 1]}, {"place": [f, str(g)]}, {"place": [f, True]},
        {"measure": str(f)}, {"play": [f, g]}, {}, {"place": [f, g], "measure": f}, f"place {f} {g}",
        [f, g], None)
    pending = (place(0, 1), place(1, 2), place(2, 0))  # x3 closes 0-1-2: the closing move is (0, 2)
    out = [
        CaseSpec("illegal-placements", "placements on classical cells, off the board, in one cell, "
                 "and a measurement with no cycle", after_collapse,
                 (place(0, f), place(f, 1), place(f, f), place(-1, f), place(f, size), measure(f),
                  place(f, g)), ("place-open", "place-distinct", "board-cells", "classical-fixed")),
        CaseSpec("check-order-placements", "a placement that breaks several rules is reported "
                 "under the first in check order", after_collapse,
                 (place(0, 0), place(size, 0), place(0, size), place(1, -1), place(f, g)),
                 ("check-order",)),
        CaseSpec("malformed-actions", "actions that are not {place: [a, b]} or {measure: c}",
                 after_collapse, (*malformed, place(f, g)), ("record-format",)),
        CaseSpec("illegal-while-pending", "placements and wrong measurements while a cycle is "
                 "pending", pending,
                 (place(3, 4), place(size, size), place(0, 0), measure(1), measure(3), measure(size),
                  {"measure": -1}, measure(2)),
                 ("measure-pending", "measure-cell", "board-cells", "check-order")),
    ]
    chain = [place(k - 1, k) for k in range(1, size)] + [place(size - 1, 0), measure(0)]
    chain += [outcome(0)] if compile_game(rs).chance else []  # the cell named happens
    if (over := play(rs, chain)) is not None and over.over:
        out.append(CaseSpec("after-the-end", "nothing is legal after the end; malformed actions "
                            "are still malformed",
                            tuple(chain), (place(0, 1), measure(0), place(size, size), {"place": [0]},
                                           {"measure": size}),
                            ("over-no-action", "check-order", "record-format")))
    return out


def variants(rs: Ruleset) -> list[CaseSpec]:
    """Rulesets that cannot be resolved: an unknown name, an unknown key, a value not allowed."""
    base = rs.base
    return [
        CaseSpec("variant-unknown", "an unknown ruleset name is refused", (), (), ("record-variant",),
                 variant="no-such-ruleset"),
        CaseSpec("variant-unknown-key", "a canonical name with an unknown parameter is refused",
                 (), (), ("variant-file",), variant=f"{base}(no_such_key=1)"),
        CaseSpec("variant-bad-value", "a canonical name with a value not allowed is refused",
                 (), (), ("variant-file",), variant=f"{base}(measurer=nobody)"),
    ]


def searched(rs: Ruleset) -> list[CaseSpec]:
    """Positions found by seeded random play: ends of every kind, the last square, lines."""
    size = rs.board * rs.board
    length = end_length(rs)
    out: list[CaseSpec | None] = []

    def newly(before: State, after: State) -> tuple[int, int]:
        bx, bo = owned_lines(before, length)
        ax, ao = owned_lines(after, length)
        return len(ax) - len(bx), len(ao) - len(bo)

    if rs.rules.last_square == "forced":
        out.append(search(rs, "forced-last-square", "one open cell is left: the player to move "
                          "fills it, classical at once",
                          lambda b, a, s: isinstance(a, Place) and a.a == a.b))
    else:
        out.append(search(rs, "last-square-ends", "the game ends with one open cell",
                          lambda b, a, s: s.over and len(s.open_cells) == 1))
    out.append(search(rs, "full-board-no-line", "the game ends without any line",
                      lambda b, a, s: s.over and owned_lines(s, length) == ([], [])))
    out.append(search(rs, "collapse-one-line", "a collapse completes one line for one player",
                      lambda b, a, s: isinstance(a, Measure | Outcome) and sorted(newly(b, s)) == [0, 1]))
    out.append(search(rs, "collapse-double-line", "a collapse completes two lines for one player",
                      lambda b, a, s: isinstance(a, Measure | Outcome) and max(newly(b, s)) >= 2))
    out.append(search(rs, "collapse-lines-both", "a collapse completes lines for both players",
                      lambda b, a, s: isinstance(a, Measure | Outcome) and min(newly(b, s)) >= 1))
    out.append(search(rs, "deadlock", "a player is left without a legal action",
                      lambda b, a, s: not s.over and not s.legal_actions()))
    for comp in rs.scoring:
        if comp.pattern == "square":
            pats = patterns(rs.board, "square", comp.length)
            out.append(search(rs, f"square-{comp.length}", f"the final board has a {comp.length}×"
                              f"{comp.length} square of one player",
                              lambda b, a, s, pats=pats: s.over and any(  # type: ignore[misc]
                                  all(s.classical[c] and s.classical[c] & 1 == s.classical[p.cells[0]] & 1
                                      for c in p.cells) for p in pats)))
        if comp.award == "rank":
            out.append(search(rs, "lines-at-two-times", "the final board has lines completed at "
                              "different times, ranked",
                              lambda b, a, s: s.over and len({max(s.classical[c] for c in p.cells)
                                                             for p in _owned(s)}) >= 2))
    del size
    return [c for c in out if c is not None]


def _owned(state: State) -> list[Any]:
    xs, os_ = owned_lines(state, 0)
    return [p for p in lines(state.ruleset.board, 0) if p.mask in xs or p.mask in os_]


def random_games(rs: Ruleset) -> list[CaseSpec]:
    """Whole games of seeded uniform random play."""
    count = 8 if rs.board <= 3 else 3
    out = []
    for seed in range(1, count + 1):
        actions = [action_to_json(a) for _, a, _ in random_game(rs, seed)]
        out.append(CaseSpec(f"random-{seed}", f"a whole game of uniform random play, seed {seed}",
                            (), tuple(actions)))
    return out


def chance_turns(rs: Ruleset) -> list[CaseSpec]:
    """Under a chance collapse (rule collapse-chance): a 2-cycle whose cell is named, each
    outcome that can happen, and everything a chance turn refuses."""
    if not compile_game(rs).chance:
        return []
    out = []
    for named in (0, 1):
        for happened in (named, 1 - named):
            if play(rs, [place(0, 1), place(1, 0), measure(named), outcome(happened)]) is None:
                continue  # probability 0 (p = 1): not offered
            steps = (place(0, 1), place(1, 0), measure(named), outcome(happened), place(2, 3))
            out.append(CaseSpec(f"chance-name-{named}-outcome-{happened}",
                                f"a 2-cycle: cell {named} named, chance lands the closing mark in {happened}",
                                (), steps, ("collapse-chance", "measure-cell", "collapse-component")))
    size = rs.board * rs.board
    out.append(CaseSpec("illegal-at-chance-turn", "during a chance turn only an offered outcome is legal; "
                        "an outcome when none is due is refused",
                        (place(0, 1),), (outcome(0), place(1, 0), outcome(0), place(2, 3), measure(1),
                                         outcome(size), outcome(2), measure(0), outcome(1)),
                        ("collapse-chance", "check-order", "board-cells")))
    return out


BUILDERS: tuple[Callable[[Ruleset], list[CaseSpec]], ...] = (
    opening, two_cycle, three_cycle, long_cycles, stems, untouched, both_lines, double_line,
    tie_gap, illegal, variants, chance_turns, searched, random_games,
)


def with_outcomes(rs: Ruleset, spec: CaseSpec) -> CaseSpec:
    """A case of a choice ruleset carried over to a chance collapse: each legal measurement that
    starts a chance turn is followed by the outcome it names (the other when that cannot happen),
    so the case exercises the same collapse; cases with their own outcomes are kept as they are."""
    if any("outcome" in a for a in (*spec.start, *spec.steps) if isinstance(a, dict)):
        return spec
    state: State | None = State.initial(rs)
    parts: list[list[Json]] = [[], []]
    for i, act in enumerate((*spec.start, *spec.steps)):
        where = parts[0] if i < len(spec.start) else parts[1]
        where.append(act)
        try:
            after = state.apply(action_from_json(act)) if state is not None else None
        except QtttError:
            continue
        if after is not None and after.to_move == CHANCE:
            offered = [o.cell for o, _ in after.chance_outcomes()]
            happened = act["measure"] if act["measure"] in offered else offered[0]
            where.append(outcome(happened))
            after = after.apply(Outcome(happened))
        state = after
    return replace(spec, start=tuple(parts[0]), steps=tuple(parts[1]))


def case_specs(rs: Ruleset) -> list[CaseSpec]:
    """Every case of a ruleset's suite, in a fixed order (under a chance collapse, with the
    outcomes its measurements name: with_outcomes)."""
    specs = [spec for build in BUILDERS for spec in build(rs)]
    return [with_outcomes(rs, s) for s in specs] if compile_game(rs).chance else specs


def perft_positions(rs: Ruleset) -> list[tuple[str, str, list[Json]]]:
    """The positions a quantum ruleset's perft table starts from: (slug, description, actions)."""
    prefix, f = collapsed_prefix(rs)
    out: list[tuple[str, str, list[Json]]] = [
        ("start", "the empty board", []),
        ("pending-two-cycle", "a 2-cycle waits to be measured", [place(0, 1), place(1, 0)]),
        ("after-collapse", f"{'two' if f == 2 else 'three'} classical cells and a spooky move",
         [*prefix, place(f, f + 1)]),
    ]
    out = [p for p in out if play(rs, p[2]) is not None]
    rng = random.Random(rs.board)
    for _ in range(200):
        state, actions = State.initial(rs), list[Json]()
        while not state.over and state.legal_actions():
            if state.phase == "place" and len(state.open_cells) == 4:
                out.append(("four-open", "late in a random game: four open cells", actions))
                return out
            legal = state.legal_actions()
            act = legal[rng.randrange(len(legal))]
            actions.append(action_to_json(act))
            state = state.apply(act)
    return out


def start_refs(rs: Ruleset) -> set[str]:
    """Rule ids a case from the empty board exercises."""
    return {"board-cells", "turn-order"}


def error_refs(rs: Ruleset, before: GameState) -> set[str]:
    """No rule beyond the one an illegal quantum action breaks."""
    return set()


def move_refs(rs: Ruleset, before_state: GameState, action: Json, after_state: GameState) -> set[str]:
    """Rule ids a legal action exercises, from what it did."""
    before, after = quantum_state(before_state), quantum_state(after_state)
    act = action_from_json(action)
    refs: set[str] = set()
    if isinstance(act, Place) and act.a == act.b:
        refs |= {"last-square", "place-distinct", "classical-fixed"}
    elif isinstance(act, Place):
        refs |= {"turn-order", "mark", "entanglement", "place-open"}
        if after.phase == "measure":
            refs |= {"cycle-close", "measure-by", "measure-pending"}
            if len(after.cycle or ()) == 2:
                refs.add("place-two-cycle")
    if isinstance(act, Measure) and after.phase == "chance":
        refs |= {"measure-cell", "collapse-chance"}
    elif isinstance(act, Measure | Outcome):
        refs |= {"measure-cell", "collapse-component", "classical-fixed"}
        if isinstance(act, Outcome):
            refs.add("collapse-chance")
        component = set(before.component[act.cell])
        if any(a not in component for a, _ in before.edges.values()):
            refs.add("collapse-untouched")
        if not after.over:
            refs.add("turn-after-measure")
    if after.over:
        refs |= _end_refs(rs, after)
    return refs


def _end_refs(rs: Ruleset, state: State) -> set[str]:
    refs = {"score-at-end"}
    xs, os_ = owned_lines(state, rs.rules.end_line)
    if rs.rules.end == "first-line" and (xs or os_):
        refs.add("end-line")
    else:
        refs.add("end-full")
        if len(state.open_cells) == 1:
            refs.add("last-square")
    cls = state.classical
    for comp in rs.scoring:
        refs.add({"per-pattern": "score-per-pattern", "first-line": "score-first-line",
                  "rank": "score-rank"}[comp.award])
        for p in patterns(rs.board, comp.pattern, comp.length):
            if all(cls[c] for c in p.cells) and len({cls[c] & 1 for c in p.cells}) == 1:
                refs.add(f"pattern-{comp.pattern}")
    if state.score_notes:
        refs.add("score-tie-gap")
    game = compile_game(rs)
    xmask = sum(1 << c for c, k in enumerate(cls) if k and k & 1)
    omask = sum(1 << c for c, k in enumerate(cls) if k and not k & 1)
    (x, o), _ = compile_scoring(game.awards)(cls, xmask, omask)
    if game.draw_second and x == o:
        refs.add("score-draw-second")
    return refs


def field_rules(rs: Ruleset, state: GameState) -> dict[str, tuple[str, ...]]:
    """Per field of the v1 state at `state` (and `legal`), the rules that decide it, most specific
    first: scores before the end are score-at-end's (none yet), at the end the awards'."""
    scores = ("score-first-line", "score-per-pattern", "score-rank", "score-tie-gap", "pattern-line",
              "pattern-square", "score-at-end") if state.over else ("score-at-end",)
    return {"variant": ("record-variant",), "to_move": ("measure-by", "turn-after-measure", "turn-order"),
            "phase": ("cycle-close", "measure-pending", "end-line", "end-full", "last-square"),
            "cycle": ("cycle-close",),
            "board": ("collapse-component", "collapse-untouched", "classical-fixed", "entanglement", "mark",
                      "last-square"),
            "move": ("turn-order", "mark", "last-square"),
            "over": ("end-line", "end-full"),
            "scores": scores,
            "legal": ("last-square", "place-two-cycle", "measure-pending", "measure-cell", "place-open",
                      "place-distinct", "over-no-action")}
