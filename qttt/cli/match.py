"""`qttt match RULESET A B`: games between two players under a referee, with clocks and
forfeits; records saved as each game ends; resumable. `qttt tournament` (tournament.py) shares
this module's options and output."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rich.text import Text

from ..argtypes import clock_seconds, integer, seconds
from ..bounds import MATCH_GAMES, SEED
from ..chance import CHANCE
from ..competition.match import (
    TIE_BREAKS,
    Job,
    Standing,
    Store,
    export,
    game_line,
    greet,
    manifest,
    plan,
    run,
    standings,
)
from ..competition.referee import KINDS_HELP, Forfeit, Seat, Watch, split_name
from ..errors import IllegalAction
from ..family import AnyAction, GameState, family_of, terminal
from ..notation import Json
from ..text import count
from . import add_json, add_quiet, add_workers
from . import console as make_console
from . import workers as workers_of

EPILOG = f"""\
players: {KINDS_HELP}.
  engine:COMMAND runs COMMAND (split like a shell line; quote the whole player) once per game
  and drives it with qttt-engine/1 and its go command (spec/protocol.md); codecup:COMMAND
  runs a bot of the CodeCup 2012 competition (4x4 rulesets, spec/codecup.md).

clocks: the ruleset's [match] table sets the time per action and per game (qttt show RULESET);
--move-time and --game-time override them (0: no limit). People at the terminal play without
a clock. An illegal action, a late answer, a crash, garbage or silence loses the game by the
ruleset's forfeit score; the record says why.

records: DIR/game-NNNN.json, one per game, written as the game ends (replay one with qttt
replay); DIR/match.json says what DIR holds. Run the same command again to play the games
still missing after an interruption (a changed schedule is refused). At the end: DIR/moves.txt
(each game's moves in the human notation, and in the CodeCup letters for 4x4 games),
DIR/crosstable.csv and DIR/crosstable.html; standings by points, ties broken as printed, with
Elo ratings. Program players are started and greeted before the first game: one that cannot
start stops the run (exit 2).

exit status: 0 when every game was played, 2 on bad arguments, 130 when interrupted."""


def add_options(p: argparse.ArgumentParser, games: int) -> None:
    """The options `match` and `tournament` share."""
    p.add_argument("--games", type=integer(MATCH_GAMES), default=games,
                   help=f"games per pair of players, colours alternating (default {games})")
    add_workers(p, "games played at once: 1 lets each program think alone, as its clock assumes",
                default=1)
    p.add_argument("--out", metavar="DIR", help="directory of the records (default: "
                                                "match-RULESET or tournament-RULESET)")
    p.add_argument("--move-time", type=clock_seconds, metavar="S",
                   help="seconds per action (default: the ruleset's)")
    p.add_argument("--game-time", type=clock_seconds, metavar="S",
                   help="seconds per player and game (default: the ruleset's)")
    p.add_argument("--seed", type=integer(SEED), default=1,
                   help="seed of the built-in players (default 1)")
    p.add_argument("--ack-time", type=seconds, default=5.0, metavar="S",
                   help="seconds an engine has to start and to acknowledge each action (default 5)")
    add_json(p, "the standings as JSON on standard output (players in order, with points, wins, draws, "
                "losses, forfeits, Elo and points against each opponent; the files written)")
    add_quiet(p, "no line per game and no progress display")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("match", help="play games between two players (programs, built-in, people)",
                       description="Play games between two players under a referee: X and O "
                                   "alternate, clocks and forfeits as the ruleset declares.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("ruleset", metavar="RULESET", help="built-in name, canonical name or variant file")
    p.add_argument("a", metavar="A", help="first player (X in odd games)")
    p.add_argument("b", metavar="B", help="second player")
    add_options(p, games=2)
    p.set_defaults(run=lambda args: run_command(args, "match", [args.a, args.b]))


def run_command(args: argparse.Namespace, kind: str, players: list[str]) -> int:
    """Plan, resume, play and report a match or round robin."""
    console = make_console(stderr=args.json)  # --json: standard output holds the JSON alone
    jobs = plan(args.ruleset, players, args.games, args.seed, args.move_time, args.game_time, args.ack_time)
    people = any(split_name(p)[1] == "human" for p in players)
    workers = 1 if people else workers_of(args.workers)
    store = Store(args.out or f"{kind}-{_slug(args.ruleset)}", kind)
    done = store.open(manifest(kind, jobs, players, args.games), jobs)
    if len(done) < len(jobs):
        greet(jobs, players)
    total = len(jobs)
    if done and not args.quiet:
        console.print(f"resuming: {len(done)} of {count(total, 'game')} already in {store.root}")
    live = console.is_terminal and not people and not args.quiet
    clocks = ClockColumn(workers)
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), clocks, console=console, disable=not live)
    task = progress.add_task(f"{kind} {args.ruleset}", total=total, completed=len(done))

    def follow(job: Job) -> Watch:
        progress.update(task, description=f"game {job.index}/{total}")
        clocks.watch = Watch()
        return clocks.watch

    def on_game(rec: Json) -> None:
        if not args.quiet:
            progress.console.print(game_line(rec, total))
        progress.advance(task)

    human = _human_factory(console) if people else None
    try:
        with progress:
            records = run(jobs, store, done, workers, on_game, human, follow)
    except KeyboardInterrupt:
        saved = len(list(store.records()))
        console.print(f"interrupted: {saved} of {count(total, 'game')} saved in {store.root}; run the same "
                      "command again to play the rest")
        return 130
    names = [split_name(p)[0] for p in players]
    rows = standings(names, records)
    title = f"{kind}: {args.ruleset}, {count(len(records), 'game')}"
    files = export(store, names, rows, records, title)
    if args.json:
        print(json.dumps(standings_json(kind, args.ruleset, rows, len(records), store.root, files), indent=1,
                         ensure_ascii=False))
        return 0
    console.print(results_table(rows, title))
    if len(players) > 2:
        console.print(cross_table(names, rows))
    console.print(TIE_BREAKS)
    console.print(f"records: {store.root}/game-*.json; move lists and cross-table: "
                  + ", ".join(str(f) for f in files))
    return 0


def standings_json(kind: str, ruleset: str, rows: list[Standing], games: int, root: Path,
                   files: list[Path]) -> dict[str, Json]:
    """The standings of --json: points as exact strings, players in order."""
    return {"kind": kind, "ruleset": ruleset, "games": games, "tie_breaks": TIE_BREAKS,
            "standings": [{"player": r.player, "games": r.games, "points": str(r.points), "won": r.wins,
                           "drawn": r.draws, "lost": r.losses, "forfeits": r.forfeits,
                           "elo": round(r.elo, 1), "against": {k: str(v) for k, v in r.against.items()}}
                          for r in rows],
            "records": str(root), "files": [str(f) for f in files]}


class ClockColumn(ProgressColumn):
    """The live display's view of the game being played: both players and their clocks,
    ticking for the side thinking (games played one at a time)."""

    def __init__(self, workers: int) -> None:
        super().__init__()
        self.watch, self.workers = Watch(), workers

    def render(self, task: Task) -> Text:
        """The clocks now, or nothing when games are played in parallel or none has begun."""
        if self.workers > 1 or not self.watch.players:
            return Text("")
        return Text(self.watch.text(time.monotonic()))


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in text)[:40].strip("-") or "ruleset"


def results_table(rows: list[Standing], title: str) -> Table:
    """Points, wins, draws, losses and forfeits per player."""
    table = Table(title=title)
    for name in ("player", "games", "points", "won", "drawn", "lost", "forfeits", "elo"):
        table.add_column(name, justify="left" if name == "player" else "right")
    for r in rows:
        table.add_row(r.player, str(r.games), str(r.points), str(r.wins), str(r.draws), str(r.losses),
                      str(r.forfeits), f"{r.elo:.0f}")
    return table


def cross_table(players: list[str], rows: list[Standing]) -> Table:
    """Points each row player scored against each column player."""
    by = {r.player: r for r in rows}
    table = Table(title="cross-table: points of the row player against the column player")
    table.add_column("player")
    for i in range(len(players)):
        table.add_column(str(i + 1), justify="right")
    table.add_column("total", justify="right")
    for i, p in enumerate(players):
        cells = ["x" if q == p else str(by[p].against.get(q, "")) for q in players]
        table.add_row(f"{i + 1} {p}", *cells, str(by[p].points))
    return table


def _human_factory(console: Console) -> Callable[[str], Seat]:
    def make(name: str) -> Seat:
        return HumanSeat(name, console)
    return make


class HumanSeat:
    """A person at the terminal, typing squares as in `qttt play`; quit or end of input resigns."""

    clocked = False
    notation: Callable[[AnyAction], str] | None = None
    last_line: str | None = None
    stderr = ""

    def __init__(self, name: str, console: Console) -> None:
        self.name, self.console = name, console
        self.seen: GameState | None = None  # the position before the action observed next

    def start(self, variant: str, side: str) -> None:
        self.console.print(f"you play {side} ({variant}); type help at the prompt of qttt play for the input")

    def choose(self, state: GameState, limit: float | None, remaining: dict[str, Any]) -> AnyAction:
        typed = terminal(state.ruleset)
        self.console.print(typed.drawing(state), markup=False)
        while True:
            try:
                line = input(typed.prompt(state))
            except EOFError:
                raise Forfeit("resigned", "input ended") from None
            if not sys.stdin.isatty():
                self.console.print(line, markup=False)
            try:
                got = typed.parse(line, state)
            except ValueError:
                self.console.print(f"not understood: {line.strip()!r}; type {typed.example(state)} or quit",
                                   markup=False)
                continue
            if got == "quit":
                raise Forfeit("resigned", "quit at the prompt")
            if not isinstance(got, str):
                try:
                    state.apply(got)
                except IllegalAction as e:
                    self.console.print(typed.explain(state, got, e), markup=False)
                    continue
                return cast(AnyAction, got)
            self.console.print("commands here: quit; or type " + typed.example(state), markup=False)

    def observe(self, action: AnyAction, after: GameState) -> None:
        before, self.seen = self.seen, after
        if before is not None and before.to_move == CHANCE:  # show the draw (rule collapse-chance)
            p = dict(before.chance_outcomes())[action]
            said = family_of(before.ruleset).action_text(before, action)
            self.console.print(f"chance: {said} (probability {p})", markup=False)

    def close(self, final: GameState) -> None:
        pass
