"""The rules engine: states, legal actions and their effects, for any quantum ruleset.

Each step names the rule of spec/rules.toml it implements. `State` is immutable; it wraps a
`Board`, the mutable kernel that `State.apply` copies and `playout`, the analysis and the notation
drive in place.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

from ..boardstate import BoardState, Derived, Field, PositionState
from ..chance import CHANCE, Outcomes, draw
from ..errors import IllegalAction, RecordError
from ..geometry import cells_of
from ..ruleset import Ruleset
from .game import Game, compile_game
from .scoring import Scores

PLACE, MEASURE, OVER, CHANCE_TURN = 0, 1, 2, 3
PHASES = ("place", "measure", "over", "chance")
ZERO_SCORES: Scores = (Fraction(0), Fraction(0))


class Place(NamedTuple):
    """Put the current move's two marks in cells a and b (a == b: forced last square)."""

    a: int
    b: int


def _same_action(self: tuple[int, ...], other: object) -> bool:
    """Actions of one cell are equal only when of one type: Measure(4) is not Outcome(4)."""
    return type(other) is type(self) and tuple.__eq__(self, other) is True


def _action_hash(self: tuple[int, ...]) -> int:
    return hash((type(self).__name__, *self))


class Measure(NamedTuple):
    """Resolve the pending cycle: the closing move's mark becomes classical in `cell` (under a
    chance collapse: name `cell`, and chance decides)."""

    cell: int

    def __eq__(self, other: object) -> bool:
        return _same_action(self, other)

    def __ne__(self, other: object) -> bool:
        return not _same_action(self, other)

    def __hash__(self) -> int:
        return _action_hash(self)


class Outcome(NamedTuple):
    """The chance turn's outcome (rule collapse-chance): the closing move's mark becomes classical
    in `cell`."""

    cell: int

    def __eq__(self, other: object) -> bool:
        return _same_action(self, other)

    def __ne__(self, other: object) -> bool:
        return not _same_action(self, other)

    def __hash__(self) -> int:
        return _action_hash(self)


Action = Place | Measure | Outcome


def player_of(move: int) -> str:
    """Owner of move number `move` (rule turn-order): x for odd, o for even."""
    return "x" if move & 1 else "o"


def mark_name(move: int) -> str:
    """The mark of a move, such as x1 or o4 (rule mark)."""
    return f"{player_of(move)}{move}"


@lru_cache(maxsize=1 << 16)
def placements(open_mask: int) -> tuple[Place, ...]:
    """Every placement on the open cells, sorted (rules place-open, place-distinct, last-square)."""
    opens = cells_of(open_mask)
    if len(opens) == 1:
        return (Place(opens[0], opens[0]),)
    return tuple(Place(a, b) for i, a in enumerate(opens) for b in opens[i + 1:])


STATE = PositionState("quantum", fields=(
    Field("cls", "per cell, the move number of its classical mark (0: none)",
          ("classical-fixed", "place-open", "last-square", "end-line", "end-full", "score-at-end")),
    Field("spk", "per cell, a bitmask of the move numbers with a spooky mark there (each live move in "
          "exactly two cells)", ("entanglement", "cycle-close", "collapse-component", "collapse-untouched")),
    Field("move", "the number of the next move (its parity names the player to place)",
          ("turn-order", "mark")),
    Field("phase", "place, measure, chance or over",
          ("measure-pending", "over-no-action", "turn-after-measure", "collapse-chance")),
    Field("pending", "the move that closed the cycle while a measurement (or its chance turn) is pending; "
          "0 in any other phase", ("measure-by", "measure-cell", "collapse-component")),
    Field("chosen", "during a chance turn, the cell the measurement named; -1 in any other phase",
          ("collapse-chance",)),
), derived=(
    Derived("ends", "the two cells of each live spooky move", ("spk",)),
    Derived("comp", "per cell, the cells of its entanglement component", ("spk", "cls")),
    Derived("xmask", "the cells holding a classical x mark", ("cls",)),
    Derived("omask", "the cells holding a classical o mark", ("cls",)),
    Derived("open", "the cells without a classical mark", ("cls",)),
    Derived("scores", "the points of a finished game (0-0 before)", ("cls", "phase")),
    Derived("notes", "where a finished game's score rests on a rule no source states", ("cls", "phase")),
))
"""The quantum family's position state: every field of `Board` the rules read, declared once
(`qttt.boardstate`); `State.key` is their values, and every other key and format says how it holds
each (its `Cover`)."""
KEY_COVER = STATE.cover("qttt.quantum.engine:State.key", kept={f: "as is" for f in STATE.names})


class Board:
    """Mutable game position. `cls[c]`: move number of c's classical mark or 0; `spk[c]`: bitmask
    of the move numbers with a spooky mark in c; `ends[k]`: the two cells of live spooky move k;
    `comp[c]`: bitmask of the cells in c's component of the entanglement graph; `chosen`: during a
    chance turn, the cell named by the measurement (else -1)."""

    __slots__ = (
        "chosen",
        "cls",
        "comp",
        "ends",
        "move",
        "notes",
        "omask",
        "open",
        "pending",
        "phase",
        "r",
        "scores",
        "spk",
        "xmask",
    )

    def __init__(self, r: Game) -> None:
        self.r = r
        self.cls = [0] * r.cells
        self.spk = [0] * r.cells
        self.ends: dict[int, tuple[int, int]] = {}
        self.comp = [1 << c for c in range(r.cells)]
        self.xmask = self.omask = 0
        self.open = (1 << r.cells) - 1
        self.move = 1
        self.phase = PLACE
        self.pending = 0
        self.chosen = -1
        self.scores = ZERO_SCORES
        self.notes: tuple[str, ...] = ()

    def copy(self) -> Board:
        b = Board.__new__(Board)
        b.r, b.cls, b.spk, b.ends, b.comp = self.r, self.cls[:], self.spk[:], dict(self.ends), self.comp[:]
        b.xmask, b.omask, b.open, b.move, b.phase = self.xmask, self.omask, self.open, self.move, self.phase
        b.pending, b.chosen, b.scores, b.notes = self.pending, self.chosen, self.scores, self.notes
        return b

    # -- effects (the caller has checked legality) ------------------------------------------

    def place(self, a: int, b: int) -> None:
        """Rules turn-order, entanglement, cycle-close, last-square."""
        k = self.move
        self.move = k + 1
        if a == b:  # last-square: classical at once
            self.set_classical(a, k)
            self.settle()
            return
        self.place_numbered(a, b, k)

    def place_numbered(self, a: int, b: int, k: int) -> None:
        """Spooky marks of move k in a and b (rules entanglement, cycle-close)."""
        bit = 1 << k
        self.spk[a] |= bit
        self.spk[b] |= bit
        self.ends[k] = (a, b) if a < b else (b, a)
        comp = self.comp
        ca = comp[a]
        if ca >> b & 1:  # cycle-close: a and b were already entangled
            self.phase = MEASURE
            self.pending = k
        else:
            merged = ca | comp[b]
            for c in cells_of(merged):
                comp[c] = merged

    def measure(self, cell: int) -> None:
        """Rule measure-cell: the measurement names `cell`; under a chance collapse a chance turn
        follows (rule collapse-chance), else the named cell is the outcome."""
        if self.r.collapse == "choice":
            self.collapse(cell)
        else:
            self.phase = CHANCE_TURN
            self.chosen = cell

    def outcome(self, cell: int) -> None:
        """Rule collapse-chance: the outcome of the chance turn collapses the component there."""
        self.chosen = -1
        self.collapse(cell)

    def after(self, act: Action) -> Board:
        """A copy of the board after `act`, an action check() accepted."""
        nb = self.copy()
        if isinstance(act, Place):
            nb.place(act.a, act.b)
        elif isinstance(act, Measure):
            nb.measure(act.cell)
        else:
            nb.outcome(act.cell)
        return nb

    def chance_outcomes(self) -> Outcomes[Outcome]:
        """The chance turn's outcomes with their probabilities, by cell (rule collapse-chance): the
        cell named with probability p, the other with 1 − p; none of probability 0."""
        if self.phase != CHANCE_TURN:
            return ()
        p = self.r.p
        return tuple((Outcome(c), p if c == self.chosen else 1 - p)
                     for c in self.ends[self.pending] if c == self.chosen or p != 1)

    def collapse(self, cell: int) -> None:
        """Rules collapse-component, collapse-untouched, then the end checks: the closing move's
        mark becomes classical in `cell`."""
        cls, spk, ends = self.cls, self.spk, self.ends
        component = self.comp[cell]
        stack = [(self.pending, cell)]
        while stack:  # collapse-component: each forced mark forces the others in its cell
            m, c = stack.pop()
            cls[c] = m
            a, b = ends.pop(m)
            spk[a + b - c] &= ~(1 << m)
            rest = spk[c] & ~(1 << m)
            spk[c] = 0
            while rest:
                low = rest & -rest
                rest ^= low
                j = low.bit_length() - 1
                ja, jb = ends[j]
                stack.append((j, ja + jb - c))
        x = self.xmask
        for c in cells_of(component):
            if cls[c] & 1:
                x |= 1 << c
        self.omask |= component & ~x
        self.xmask = x
        self.open &= ~component
        self.pending = 0
        if self.r.untouched == "vanish" and ends:  # collapse-untouched
            ends.clear()
            for c in cells_of(self.open):
                spk[c] = 0
                self.comp[c] = 1 << c
        self.settle()

    def set_classical(self, c: int, k: int) -> None:
        """Mark k becomes classical in cell c."""
        self.cls[c] = k
        if k & 1:
            self.xmask |= 1 << c
        else:
            self.omask |= 1 << c
        self.open &= ~(1 << c)

    def settle(self) -> None:
        """Rules end-line, end-full, last-square, turn-after-measure."""
        x, o = self.xmask, self.omask
        for m in self.r.end_masks:
            if m & x == m or m & o == m:
                self._finish()
                return
        left = self.open
        if left == 0 or (left & (left - 1) == 0 and self.r.last_square == "end"):
            self._finish()
        else:
            self.phase = PLACE

    def score_difference(self) -> Fraction:
        """x − o: the final scores, or the board scored as it stands where no action is legal."""
        if self.phase == OVER:
            x, o = self.scores
        else:
            (x, o), _ = self.r.score(self.cls, self.xmask, self.omask)
        return x - o

    def _finish(self) -> None:
        self.phase = OVER
        self.scores, self.notes = self.r.score(self.cls, self.xmask, self.omask)

    # -- queries ----------------------------------------------------------------------------

    def legal(self) -> tuple[Action, ...]:
        """Legal actions in a fixed order: placements by (a, b), measurements by cell."""
        if self.phase == MEASURE:
            a, b = self.ends[self.pending]
            return (Measure(a), Measure(b))
        if self.phase == OVER:
            return ()
        if self.phase == CHANCE_TURN:
            return tuple(o for o, _ in self.chance_outcomes())
        pairs = placements(self.open)
        if self.r.two_cycles:
            return pairs
        live = set(self.ends.values())
        return tuple(p for p in pairs if (p.a, p.b) not in live)

    def check(self, action: object) -> Action:
        """The action, normalised, or IllegalAction naming the first rule it breaks (rule check-order)."""
        action = quantum_action(action)
        if self.phase == OVER:
            raise IllegalAction("over-no-action", "the game is over; no action is legal")
        if self.phase == CHANCE_TURN or isinstance(action, Outcome):
            return self._check_chance(action)
        if isinstance(action, Measure):
            return self._check_measure(action)
        return self._check_place(action)

    def _check_cell(self, c: object) -> int:
        if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < self.r.cells:
            raise IllegalAction("board-cells", f"cell {c!r} is not on the board "
                                f"(cells 0 to {self.r.cells - 1})")
        return c

    def _check_place(self, p: Place) -> Place:
        if self.phase == MEASURE:
            raise IllegalAction("measure-pending", f"a cycle is pending: {self.measurer()} must "
                                "measure before any placement")
        a, b = self._check_cell(p.a), self._check_cell(p.b)
        for c in (a, b):
            if not self.open >> c & 1:
                raise IllegalAction("place-open", f"cell {c} is classical ({mark_name(self.cls[c])})")
        if a == b and self.open != 1 << a:
            raise IllegalAction("place-distinct", f"both marks in cell {a}: a placement needs two "
                                "different cells unless it fills the last open cell")
        if a > b:
            a, b = b, a
        if not self.r.two_cycles and (a, b) in set(self.ends.values()):
            raise IllegalAction("place-two-cycle", f"cells {a} and {b} already hold a spooky move "
                                "and this ruleset forbids 2-cycles")
        return Place(a, b)

    def _check_chance(self, action: Action) -> Outcome:
        if self.phase != CHANCE_TURN:
            raise IllegalAction("collapse-chance", "no chance turn is due; an outcome is not an action of "
                                "a player")
        if not isinstance(action, Outcome):
            raise IllegalAction("collapse-chance", f"chance decides where {mark_name(self.pending)} lands "
                                "before any placement or measurement")
        c = self._check_cell(action.cell)
        offered = [o.cell for o, _ in self.chance_outcomes()]
        if c not in offered:
            raise IllegalAction("collapse-chance", f"cell {c} is not an outcome of this chance turn; "
                                "the outcomes: " + " or ".join(map(str, offered)))
        return action

    def _check_measure(self, m: Measure) -> Measure:
        if self.phase != MEASURE:
            raise IllegalAction("measure-pending", "no cycle is pending; there is nothing to measure")
        c = self._check_cell(m.cell)
        if c not in self.ends[self.pending]:
            a, b = self.ends[self.pending]
            raise IllegalAction("measure-cell", f"cell {c} is not a cell of the cycle-closing move "
                                f"{mark_name(self.pending)}; choose {a} or {b}")
        return m

    def measurer(self) -> str:
        """Rules measure-by, collapse-chance: who measures the pending cycle (the second player,
        o, under collapse = chance-second)."""
        if self.r.collapse == "chance-second":
            return "o"
        creator = player_of(self.pending)
        if self.r.measurer == "creator":
            return creator
        return "o" if creator == "x" else "x"

    def to_move(self) -> str | None:
        if self.phase == OVER:
            return None
        if self.phase == CHANCE_TURN:
            return CHANCE
        return self.measurer() if self.phase == MEASURE else player_of(self.move)

    def cycle(self) -> tuple[int, ...] | None:
        """Sorted cells of the pending cycle proper: the closing move plus the path it closes
        (pending until the chance turn after a chance measurement is over)."""
        if self.phase != MEASURE and self.phase != CHANCE_TURN:
            return None
        a, b = self.ends[self.pending]
        adjacent: dict[int, list[tuple[int, int]]] = {}
        for k, (u, v) in self.ends.items():
            if k != self.pending:
                adjacent.setdefault(u, []).append((v, k))
                adjacent.setdefault(v, []).append((u, k))
        parent = {a: a}
        frontier = [a]
        while frontier:
            u = frontier.pop()
            for v, _ in adjacent.get(u, ()):
                if v not in parent:
                    parent[v] = u
                    frontier.append(v)
        path = [b]
        while path[-1] != a:
            path.append(parent[path[-1]])
        return tuple(sorted(path))


class State(BoardState[Board]):
    """An immutable game state of a ruleset."""

    __slots__ = ()
    _b: Board  # the board this state reads (BoardState's slot)

    @classmethod
    def initial(cls, ruleset: Ruleset) -> State:
        """The empty board, X to place move 1."""
        return cls(Board(compile_game(ruleset)))

    # -- rules -------------------------------------------------------------------------------

    def legal_actions(self) -> tuple[Action, ...]:
        """Every legal action, sorted: placements by (a, b), measurements by cell."""
        return self._b.legal()

    def apply(self, action: object) -> State:
        """The state after `action`; raises IllegalAction (naming the rule) if it is illegal."""
        return State(self._b.after(self._b.check(action)))

    def chance_outcomes(self) -> Outcomes[Outcome]:
        """During a chance turn (to_move "chance"), its outcomes with their exact probabilities, by
        cell; otherwise empty (rule collapse-chance)."""
        return self._b.chance_outcomes()

    # -- views -------------------------------------------------------------------------------

    @property
    def phase(self) -> str:
        """place, measure, chance or over."""
        return PHASES[self._b.phase]

    @property
    def over(self) -> bool:
        return self._b.phase == OVER

    @property
    def to_move(self) -> str | None:
        """x or o (while measuring: the measurer), "chance" during a chance turn; None when over."""
        return self._b.to_move()

    @property
    def pending(self) -> int | None:
        """The cycle-closing move while a measurement (or its chance turn) is pending."""
        return self._b.pending if self._b.phase in (MEASURE, CHANCE_TURN) else None

    @property
    def chosen(self) -> int | None:
        """During a chance turn, the cell the measurement named (rule collapse-chance)."""
        return self._b.chosen if self._b.phase == CHANCE_TURN else None

    @property
    def cycle(self) -> tuple[int, ...] | None:
        """Sorted cells of the pending cycle (stems excluded), or None."""
        return self._b.cycle()

    @property
    def classical(self) -> tuple[int, ...]:
        """Per cell: move number of its classical mark, 0 if none."""
        return tuple(self._b.cls)

    @property
    def spooky(self) -> tuple[tuple[int, ...], ...]:
        """Per cell: the move numbers of its spooky marks, increasing."""
        return tuple(tuple(i for i in range(s.bit_length()) if s >> i & 1) for s in self._b.spk)

    @property
    def edges(self) -> dict[int, tuple[int, int]]:
        """The live spooky moves: move number -> its two cells (sorted)."""
        return dict(self._b.ends)

    @property
    def component(self) -> dict[int, tuple[int, ...]]:
        """For each open cell, the cells of its entanglement component."""
        return {c: cells_of(self._b.comp[c]) for c in cells_of(self._b.open)}

    @property
    def open_cells(self) -> tuple[int, ...]:
        """Cells without a classical mark."""
        return cells_of(self._b.open)

    @property
    def score_notes(self) -> tuple[str, ...]:
        """Where the final score rests on a rule no source states (rule score-tie-gap)."""
        return self._b.notes

    def key(self) -> tuple[Any, ...]:
        """Hashable identity of the position within its ruleset: the declared fields' values
        (`STATE`)."""
        return STATE.values(self._b)

    def fields(self) -> dict[str, Any]:
        """The declared position state (`STATE`), by field name."""
        return STATE.of(self._b)

    def __repr__(self) -> str:
        return f"State({self.ruleset.canonical!r}, move={self.move}, phase={self.phase!r})"


def new_game(ruleset: Ruleset) -> State:
    """The initial state of a ruleset."""
    return State.initial(ruleset)


def playout(ruleset: Ruleset, rng: random.Random) -> tuple[list[Action], State]:
    """One game of uniformly random legal actions, chance outcomes drawn by their probabilities
    (qttt.chance.draw); returns its actions and the final state.

    Stops at the end of the game, or where no action is legal (a deadlock some rulesets allow).
    """
    r = compile_game(ruleset)
    b = Board(r)
    actions: list[Action] = []
    record = actions.append
    rand = rng.random
    two_cycles = r.two_cycles
    while True:
        phase = b.phase
        if phase == PLACE:
            opens = cells_of(b.open)
            m = len(opens)
            if m == 1:
                c = opens[0]
                record(Place(c, c))
                b.place(c, c)
                continue
            if two_cycles:
                i = int(rand() * m)
                j = int(rand() * (m - 1))
                if j >= i:
                    j += 1
                else:
                    i, j = j, i
                a, c = opens[i], opens[j]
            else:
                legal = b.legal()
                if not legal:
                    break
                chosen = legal[int(rand() * len(legal))]
                a, c = chosen[0], chosen[-1]
            record(Place(a, c))
            b.place(a, c)
        elif phase == MEASURE:
            ends = b.ends[b.pending]
            c = ends[0] if rand() < 0.5 else ends[1]
            record(Measure(c))
            b.measure(c)
        elif phase == CHANCE_TURN:
            outcome = draw(b.chance_outcomes(), rng)
            record(outcome)
            b.outcome(outcome.cell)
        else:
            break
    return actions, State(b)


def named_outcomes(ruleset: Ruleset, actions: Iterable[Action]) -> list[Action]:
    """`actions` with, after each measurement that opens a chance turn, the outcome it named (always
    offered): a game written for collapse = choice as it plays under a chance collapse when chance
    goes the named way (rule collapse-chance). The same actions under choice; copied unchanged from
    the first illegal one."""
    out: list[Action] = []
    state: State | None = State.initial(ruleset)
    for act in actions:
        out.append(act)
        try:
            state = state.apply(act) if state is not None else None
        except (IllegalAction, RecordError):
            state = None
        if state is not None and isinstance(act, Measure) and state.phase == "chance":
            out.append(Outcome(act.cell))
            state = state.apply(Outcome(act.cell))
    return out


def quantum_state(state: object) -> State:
    """`state` as a quantum State; RecordError (record-variant) for a state of another family."""
    if not isinstance(state, State):
        game = getattr(getattr(state, "ruleset", None), "game", type(state).__name__)
        raise RecordError("record-variant", f"a {game} state where a quantum one is needed")
    return state


def quantum_action(action: object) -> Action:
    """`action` as a quantum action; RecordError (record-format) for another family's action or
    anything else."""
    if isinstance(action, (Place, Measure, Outcome)):
        return action
    if isinstance(action, tuple) and hasattr(action, "_fields"):  # another family's action
        kind = type(action).__name__.lower()
        raise RecordError("record-format", f"a quantum game takes place, measure and outcome actions, "
                          f"not {kind}")
    raise RecordError("record-format", f"not an action: {action!r}")
