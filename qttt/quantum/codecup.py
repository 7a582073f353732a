"""The CodeCup 2012 dialogue (rule codecup-dialogue, spec/codecup.md): bots written for that
competition's 4×4 quantum tic-tac-toe play unmodified under `qttt match`.

Squares are the letters A to P, row by row. A bot reads one line and answers one line a turn:
the first player reads `Start`; otherwise it reads the opponent's actions since its own last
line, a collapse letter first when the opponent measured the bot's cycle, then the opponent's
move as two letters (the forced last move names its square twice). When the move it reads
closes a cycle, the bot answers the collapse letter (where that move lands), then its own move,
or the letter alone when the collapse ends the game. `Quit` ends the game.
"""

from __future__ import annotations

from ..competition.referee import ACK_SECONDS, Forfeit, LineProcess
from ..errors import IllegalAction, MatchError, RecordError
from ..family import AnyAction, GameState
from ..ruleset import Ruleset
from ..vocabulary import QUANTUM
from .engine import Action, Measure, Place, State, quantum_action, quantum_state

SQUARES = "ABCDEFGHIJKLMNOP"
RULE = "codecup-dialogue"


def letters(action: AnyAction) -> str:
    """An action as the dialogue writes it: one letter for a collapse, two for a move."""
    action = quantum_action(action)
    if isinstance(action, Place):
        return SQUARES[action.a] + SQUARES[action.b]
    return SQUARES[action.cell]  # a measurement (a CodeCup game has no chance: check_ruleset)


def parse_answer(line: str, state: State) -> list[Action]:
    """The actions a bot's answer line stands for in `state`; Forfeit (garbage) if it is no
    answer of the dialogue."""
    text = line.strip()
    if not text or any(ch not in SQUARES for ch in text):
        raise Forfeit("garbage", f"answer {line[:40]!r} is not squares A-P", RULE)
    cells = [SQUARES.index(ch) for ch in text]
    if state.phase == "place":
        if len(cells) != 2:
            raise Forfeit("garbage", f"answer {text!r}: a move is two squares", RULE)
        return [Place(cells[0], cells[1])]
    if len(cells) not in (1, 3):
        raise Forfeit("garbage", f"answer {text!r}: after a cycle, the collapse square then "
                      "the move (three letters), or the collapse square alone", RULE)
    measure = Measure(cells[0])
    try:
        after = state.apply(measure)
    except (IllegalAction, RecordError):  # an illegal collapse: the referee names the rule
        return [measure]
    if len(cells) == 1 and not after.over:
        raise Forfeit("garbage", f"answer {text!r}: the game goes on after this collapse, so a "
                      "move must follow the collapse letter", RULE)
    if len(cells) == 3 and after.over:
        raise Forfeit("garbage", f"answer {text!r}: this collapse ends the game; no move may follow",
                      RULE)
    return [measure, *([Place(cells[1], cells[2])] if len(cells) == 3 else [])]


def check_ruleset(rs: Ruleset) -> None:
    """The dialogue fits 4×4 games where the opponent measures and fills the last square."""
    if rs.game != QUANTUM:
        raise MatchError(RULE, f"a CodeCup 2012 bot plays 4×4 quantum games; {rs.canonical} is a "
                         f"{rs.game} ruleset")
    if rs.rules.collapse != "choice":
        raise MatchError(RULE, f"a CodeCup 2012 bot plays games where the measurer chooses; {rs.canonical} "
                         f"has collapse {rs.rules.collapse} (rule collapse-chance)")
    if rs.board != 4 or rs.rules.measurer != "opponent" or rs.rules.last_square != "forced":
        raise MatchError(RULE, f"a CodeCup 2012 bot plays 4×4 games with measurer = opponent and "
                         f"last_square = forced; {rs.canonical} has board {rs.board}, measurer "
                         f"{rs.rules.measurer}, last_square {rs.rules.last_square}")


class CodeCupSeat:
    """A CodeCup 2012 bot, started afresh for each game, behind the referee's seat interface."""

    clocked = True
    notation = staticmethod(letters)
    last_line: str | None = None
    stderr = ""

    def __init__(self, command: list[str], name: str, rs: Ruleset,
                 ack_seconds: float = ACK_SECONDS) -> None:
        check_ruleset(rs)
        self.command, self.name, self.rs, self.ack = command, name, rs, ack_seconds
        self.proc: LineProcess | None = None
        self.side = "x"
        self.state = State.initial(rs)
        self.pending = ""  # the opponent's actions the bot has not yet read
        self.queued: list[Action] = []  # the move written after a collapse letter

    def start(self, variant: str, side: str) -> None:
        self.proc, self.side = LineProcess(self.command), side
        self.state, self.pending, self.queued = State.initial(self.rs), "", []

    def choose(self, state: GameState, limit: float | None, remaining: dict[str, float | None]) -> AnyAction:
        state = quantum_state(state)
        if self.queued:
            return self.queued.pop(0)
        assert self.proc is not None
        line = self.pending or "Start"
        self.pending = ""
        self.proc.send(line)
        self.last_line = self.proc.read(limit, repr(line))
        actions = parse_answer(self.last_line, state)
        self.queued = actions[1:]
        return actions[0]

    def alive(self) -> bool:
        """Whether the bot's program still runs."""
        return self.proc is not None and self.proc.alive()

    def gone(self) -> str:
        """Why the bot's program stopped."""
        return self.proc.gone() if self.proc is not None else "it was never started"

    def observe(self, action: AnyAction, after: GameState) -> None:
        if self.state.to_move != self.side:
            self.pending += letters(action)
        self.state = quantum_state(after)

    def close(self, final: GameState) -> None:
        if self.proc is None:
            return
        if final.over and len(self.pending) >= 2 and self.pending[-1] == self.pending[-2]:
            # the opponent's forced last move: the bot answers its square, as after a cycle
            self.proc.send(self.pending)
            self.proc.read(self.ack, repr(self.pending))
        self.proc.stop("Quit")
        self.stderr = self.proc.stderr_text()
        self.proc = None
