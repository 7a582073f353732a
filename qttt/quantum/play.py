"""`qttt play` for a quantum ruleset: a game at the terminal, between people or against a computer player."""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field

from ..chance import CHANCE, draw
from ..errors import IllegalAction, QtttError, Terminated
from ..geometry import lines
from ..io import save_or_show
from ..narration import squares
from ..notation import Record, record_to_json
from ..players import Player, make_player
from ..ruleset import Ruleset
from ..vocabulary import PARAMETER_BY_NAME
from .engine import Action, Measure, Outcome, Place, State, mark_name, quantum_action
from .narration import chance_text, collapsed, describe
from .text import drawing

COMMANDS = ("help", "moves", "undo", "quit")
ALIASES = {"h": "help", "?": "help", "m": "moves", "u": "undo", "q": "quit", "exit": "quit"}
THINKING = 150  # legal actions beyond which the greedy player says it is thinking (4×4 has 120)
SQUARES = re.compile(r"(\d+)(?:\s*[\s,-]\s*(\d+))?")

HELP = (
    "Your move: put its two spooky marks (such as x3) in two different open squares by typing "
    "the two square numbers: 1 9, 1-9 or 1,9. Squares are numbered 1 to {cells} row by row; each "
    "square's number is at its top right.",
    "A move that closes a cycle of entangled squares is measured. {who} The measurer types one of "
    "the two squares of the cycle-closing mark; the whole entangled group then collapses into "
    "classical (large) marks. {last}",
    "Commands: moves (the legal moves), undo (take back your last decision), help, quit. "
    "The rules in full: qttt show {name}",
)


def prompt(state: State) -> str:
    """The question for the side to move."""
    who = state.to_move
    if state.phase == "measure":
        assert state.pending is not None and state.cycle is not None
        a, b = state.edges[state.pending]
        return (f"{who} measures the cycle on squares {squares(state.cycle)}: "
                f"put {mark_name(state.pending)} in square {a + 1} or {b + 1} > ")
    only = state.legal_actions()[0]
    if isinstance(only, Place) and only.a == only.b:
        sq = only.a + 1
        return f"{who}: only square {sq} is left: put {mark_name(state.move)} there (type {sq}) > "
    return f"{who} to place {mark_name(state.move)}: two squares, e.g. {_pair(state)} > "


def _pair(state: State) -> str:
    """A legal placement to show as an example, one that closes no cycle if there is one:
    the first and last open squares if they qualify."""
    legal = [p for p in state.legal_actions() if isinstance(p, Place)]
    component = state.component
    calm = [p for p in legal if p.b not in component[p.a]]
    opens = state.open_cells
    ends = Place(opens[0], opens[-1])
    p = ends if ends in calm else (calm or legal)[0]
    return f"{p.a + 1} {p.b + 1}"


def example(state: State) -> str:
    """What to type for a legal action, as an example: `two squares such as 1 2`."""
    first = state.legal_actions()[0]
    if not isinstance(first, Place):
        return "one square: " + " or ".join(str(m.cell + 1) for m in state.legal_actions()
                                            if isinstance(m, Measure))
    if first.a == first.b:
        return f"the last square, {first.a + 1}"
    return f"two squares such as {_pair(state)}"


def moves_text(state: State) -> str:
    """The legal actions in human squares."""
    legal = state.legal_actions()
    if state.phase == "measure":
        return "legal: square " + " or ".join(str(m.cell + 1) for m in legal if isinstance(m, Measure))
    pairs = [f"{p.a + 1}" if p.a == p.b else f"{p.a + 1}-{p.b + 1}" for p in legal if isinstance(p, Place)]
    lines, line = [], f"legal ({len(pairs)}):"
    for item in pairs:
        if len(line) + 1 + len(item) > 78:
            lines.append(line)
            line = " "
        line += " " + item
    return "\n".join([*lines, line])


def explain(state: State, action: Action, err: QtttError) -> str:
    """A one-line reason in squares, naming the rule the engine reports."""
    cells: tuple[int, ...] = (action.a, action.b) if isinstance(action, Place) else (action.cell,)
    total = len(state.classical)
    if err.rule == "board-cells":
        bad = next(c for c in cells if not 0 <= c < total)
        why = f"square {bad + 1} is not on the board: squares are 1 to {total}"
    elif err.rule == "place-open":
        c = next(c for c in cells if 0 <= c < total and state.classical[c])
        why = (f"square {c + 1} is classical ({mark_name(state.classical[c]).upper()}) and takes "
               "no more marks")
    elif err.rule == "place-distinct":
        why = f"{mark_name(state.move)} needs two different squares unless one square is left"
    elif err.rule == "place-two-cycle":
        k = next(k for k, ends in state.edges.items() if set(ends) == set(cells))
        why = (f"squares {cells[0] + 1} and {cells[1] + 1} already share {mark_name(k)}, and this "
               "ruleset forbids 2-cycles")
    elif err.rule == "measure-pending" and state.phase == "measure" and state.pending is not None:
        a, b = state.edges[state.pending]
        why = (f"a cycle is pending: {state.to_move} must first put {mark_name(state.pending)} "
               f"in square {a + 1} or {b + 1} (type one square)")
    elif err.rule == "measure-cell" and state.pending is not None:
        a, b = state.edges[state.pending]
        why = (f"square {cells[0] + 1} is not a square of {mark_name(state.pending)}, the move "
               f"that closed the cycle: choose {a + 1} or {b + 1}")
    elif err.rule == "collapse-chance" and state.phase == "chance":
        why = "chance decides the measurement first; nobody types now"
    else:
        why = err.message
    return f"not allowed: {why} (rule {err.rule})"


def parse(text: str, state: State) -> Action | str:
    """A command name or the action typed (squares from 1); ValueError if it is neither."""
    word = text.strip().lower()
    if word in COMMANDS or word in ALIASES:
        return ALIASES.get(word, word)
    m = SQUARES.fullmatch(word)
    if not m:
        raise ValueError(word)
    a = int(m[1]) - 1
    if m[2] is not None:
        return Place(a, int(m[2]) - 1)
    return Measure(a) if state.phase == "measure" else Place(a, a)


@dataclass
class Game:
    """One game at the terminal: the states so far and who plays each side."""

    state: State
    players: dict[str, Player | None]  # None: a person at the keyboard
    colour: bool
    read: Callable[[str], str]
    write: Callable[[str], None]
    echo: bool = False
    history: list[tuple[State, Action]] = field(default_factory=list)
    rng: random.Random = field(default_factory=lambda: random.Random(0))  # chance draws from it
    drawn: dict[State, Outcome] = field(default_factory=dict)  # each chance turn's draw, kept over undo

    def chance(self) -> Outcome:
        """The outcome of the chance turn now (qttt.chance.draw from the game's generator); a turn
        met again after an undo keeps the outcome drawn for it the first time."""
        state = self.state
        if state not in self.drawn:
            self.drawn[state] = draw(state.chance_outcomes(), self.rng)
        return self.drawn[state]

    def play(self) -> str:
        """Play until the end; returns how the game stopped: over, deadlock, quit or eof."""
        while not self.state.over:
            if not self.state.legal_actions():
                self.write("\n" + drawing(self.state, self.colour) + "\n")
                return "deadlock"
            if self.state.to_move == CHANCE:
                outcome = self.chance()
                self.write(chance_text(self.state, outcome) + "\n")
                self.history.append((self.state, outcome))
                before, self.state = self.state, self.state.apply(outcome)
                self.write(collapsed(before, self.state) + "\n")
                continue
            player = self.players[self.state.to_move or ""]
            if player is None:
                action = self.ask()
                if isinstance(action, str):
                    return action
            else:
                legal = len(self.state.legal_actions())
                if player.name == "greedy" and legal > THINKING:
                    self.write(f"{self.state.to_move} ({player.name}) is thinking: {legal} actions, "
                               "each weighed against every reply...\n")
                action = quantum_action(player.choose(self.state))
                self.write(f"{self.state.to_move} ({player.name}) {describe(self.state, action)}\n")
            self.history.append((self.state, action))
            before, self.state = self.state, self.state.apply(action)
            if isinstance(action, Measure) and self.state.phase != CHANCE:
                self.write(collapsed(before, self.state) + "\n")
        self.write("\n" + drawing(self.state, self.colour) + "\n")
        return "over"

    def ask(self) -> Action | str:
        """A legal action from the person to move, or quit / eof."""
        self.write("\n" + drawing(self.state, self.colour) + "\n")
        while True:
            try:
                line = self.read(prompt(self.state))
            except EOFError:
                self.write("\n")
                return "eof"
            if self.echo:
                self.write(line + "\n")
            try:
                got = parse(line, self.state)
            except ValueError:
                self.write(f"not understood: {line.strip()!r}; type {example(self.state)}, "
                           "or help, moves, undo, quit\n")
                continue
            if got == "quit":
                return "quit"
            if got == "help":
                self.write(self.help() + "\n")
            elif got == "moves":
                self.write(moves_text(self.state) + "\n")
            elif got == "undo":
                if self.undo():
                    self.write("taken back.\n" + drawing(self.state, self.colour) + "\n")
                else:
                    self.write("nothing to take back\n")
            elif isinstance(got, (Place, Measure)):
                try:
                    self.state.apply(got)
                except IllegalAction as e:
                    self.write(explain(self.state, got, e) + "\n")
                    continue
                return got

    def undo(self) -> bool:
        """Go back to before the last decision of a person; False if there was none."""
        for i in range(len(self.history) - 1, -1, -1):
            before, _ = self.history[i]
            if before.to_move != CHANCE and self.players[before.to_move or ""] is None:
                self.state = before
                del self.history[i:]
                return True
        return False

    def help(self) -> str:
        rs = self.state.ruleset
        who, last = (PARAMETER_BY_NAME[k].reading(rs.value(k)) for k in ("measurer", "last_square"))
        if rs.rules.collapse != "choice":  # rule collapse-chance: its reading says who names the cell
            chance = rs.rules.p
            who = (PARAMETER_BY_NAME["collapse"].reading(rs.rules.collapse).format(p=chance, q=1 - chance)
                   + " The draw is shown as it happens.")
        paragraphs = [p.format(cells=len(self.state.classical), who=who, last=last, name=rs.canonical)
                      for p in HELP]
        if rs.summary and rs.canonical == rs.base:  # a built-in ruleset, unchanged
            paragraphs.insert(0, f"{rs.title}: {rs.summary}")
        return "\n".join(textwrap.fill(p, width=79) for p in paragraphs)

    def record(self, variant: str) -> Record:
        """The game so far as a record."""
        return Record(variant, tuple(a for _, a in self.history))


def result_text(state: State) -> str:
    """The final score, who won, and the full lines on the board."""
    s = state.scores
    verdict = "a draw" if s["x"] == s["o"] else ("x" if s["x"] > s["o"] else "o") + " wins"
    out = [f"result: x {s['x']}, o {s['o']}: {verdict}"]
    cls = state.classical
    for line in lines(state.ruleset.board):
        owners = {mark_name(cls[c])[0] if cls[c] else "" for c in line.cells}
        if len(owners) == 1 and "" not in owners:
            marks = " ".join(mark_name(cls[c]).upper() for c in line.cells)
            out.append(f"  {owners.pop()}'s line: squares {squares(line.cells)} ({marks})")
    out += [f"note: {n}" for n in state.score_notes]
    return "\n".join(out)


def play(rs: Ruleset, args: argparse.Namespace, read: Callable[[str], str], write: Callable[[str], None],
         colour: bool, seed: int) -> int:
    """Play one quantum game at the terminal; returns the exit status."""
    rng = random.Random(seed)
    players = {side: None if kind == "human" else make_player(kind, rng)
               for side, kind in (("x", args.x), ("o", args.o))}
    game = Game(State.initial(rs), players, colour, read, write, echo=not sys.stdin.isatty(),
                rng=random.Random(f"chance:{seed}"))
    names = {side: "you" if p is None and args.o != args.x else (p.name if p else "human")
             for side, p in players.items()}
    computers = any(p is not None for p in players.values()) or rs.rules.collapse != "choice"
    write(f"quantum tic-tac-toe, {rs.canonical}: x ({names['x']}) against o ({names['o']})"
          + (f", seed {seed}" if computers else "") + ". Type help for help.\n")
    signum = 0
    try:
        how = game.play()
    except KeyboardInterrupt:
        write("\n")
        how = "interrupted"
    except Terminated as t:
        write("\n")
        how, signum = "terminated", t.signum
    state = game.state
    if how == "over":
        write(result_text(state) + "\n")
    elif how == "deadlock":
        write(f"no legal move for {state.to_move}: every pair of open squares already shares "
              "a spooky mark (rule place-two-cycle); the game stops unfinished\n")
    else:
        write({"quit": "game abandoned.", "eof": "input ended; game abandoned.",
               "interrupted": "interrupted; game abandoned.",
               "terminated": "terminated; game abandoned."}[how] + "\n")
    if args.record:
        record = game.record(rs.canonical)
        if not save_or_show(args.record, json.dumps(record_to_json(record)) + "\n", write,
                            f"record saved to {args.record} ({len(record.actions)} actions); "
                            f"replay it with: qttt replay {args.record}\n"):
            return 2
    stopped = {"interrupted": 130, "terminated": 128 + signum}
    return {"over": 0, "quit": 0, "deadlock": 0, "eof": 1, **stopped}[how]
