"""Matches and round robins: the games to play, playing them (in parallel when asked), one
record file per game written atomically as it ends, resumption, standings and cross-tables.

A match directory holds `match.json` (what is being played) and `game-NNNN.json` per finished
game: the v1 record with `players` and `result` (spec/schema/record.schema.json). Running the
same match again plays only the games that have no record yet.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import random
import shlex
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path

from ..errors import FileError, MatchError
from ..io import read_json, write_atomic
from ..notation import Json
from ..players import PLAYERS, Player, SearchPlayer
from ..processes import pool_of
from ..variant import QUANTUM, Ruleset, load_ruleset
from .codecup import CodeCupSeat
from .referee import (
    ACK_SECONDS,
    BuiltinSeat,
    Clock,
    EngineSeat,
    Seat,
    check_spec,
    play_game,
    split_name,
)

RULE = "match-forfeit"


@dataclass(frozen=True)
class Job:
    """One game to play: its number, the ruleset, who plays X and O, and the clocks."""

    index: int
    variant: str
    x: str
    o: str
    seed: int
    move: float | None = None  # seconds; None: the ruleset's [match] default, 0: no limit
    game: float | None = None
    ack: float = ACK_SECONDS


def plan(variant: str, players: list[str], games: int, seed: int, move: float | None = None,
         game: float | None = None, ack: float = ACK_SECONDS) -> list[Job]:
    """Every pair of players meets `games` times, the first named of the pair playing X in odd
    games and O in even ones (two players: a match; more: a round robin)."""
    rs = load_ruleset(variant)
    for spec in players:
        bare = split_name(check_spec(spec))[1]
        if bare.startswith("codecup:"):
            from .codecup import check_ruleset
            check_ruleset(rs)
        if bare == "human" and rs.game != QUANTUM:
            raise MatchError(RULE, f"{rs.canonical} is a {rs.game} ruleset: people play it with qttt "
                             "play; "
                             "qttt match seats people for quantum rulesets")
    if len(players) < 2:
        raise MatchError(RULE, "a match needs two players")
    names = [split_name(p)[0] for p in players]
    if len(set(names)) != len(names):
        twice = next(p for p in names if names.count(p) > 1)
        raise MatchError(RULE, f"player {twice!r} is named twice; each player plays under its name")
    if games < 1:
        raise MatchError(RULE, f"--games {games}: at least one game")
    for name, value in (("--move-time", move), ("--game-time", game)):
        if value is not None and not 0 <= value < math.inf:
            raise MatchError("match-clock", f"{name} {value}: seconds >= 0 (0: no limit)")
    if not 0 < ack < math.inf:
        raise MatchError("match-clock", f"--ack-time {ack}: seconds > 0")
    jobs, index = [], 0
    for i, a in enumerate(players):
        for b in players[i + 1:]:
            for k in range(games):
                index += 1
                x, o = (a, b) if k % 2 == 0 else (b, a)
                jobs.append(Job(index, variant, x, o, seed, move, game, ack))
    return jobs


def make_seat(spec: str, rs: Ruleset, rng: random.Random, ack_seconds: float = ACK_SECONDS,
              human: Callable[[str], Seat] | None = None) -> Seat:
    """The seat a player specification names (checked by check_spec)."""
    name, bare = split_name(check_spec(spec))
    kind, _, arg = bare.partition(":")
    if kind == "engine":
        return EngineSeat(shlex.split(arg), name, ack_seconds)
    if kind == "codecup":
        return CodeCupSeat(shlex.split(arg), name, rs, ack_seconds)
    if kind == "human":
        if human is None:
            raise MatchError("match-forfeit", "a person plays only at the terminal, with --workers 1")
        return human(name)
    if kind == "search":
        return BuiltinSeat(SearchPlayer(rng=rng, seconds=float(arg) if arg else 0.5), name)
    if kind == "mcts":
        return BuiltinSeat(mcts_player(rng, int(arg) if arg else MCTS_SIMULATIONS), name)
    return BuiltinSeat(PLAYERS[kind](rng=rng), name)


MCTS_SIMULATIONS = 200


def mcts_player(rng: random.Random, simulations: int) -> Player:
    """OpenSpiel's MCTS bot (qttt.openspiel, imported only when a match seats it)."""
    try:
        from ..openspiel import MctsPlayer
    except ImportError:
        raise MatchError(RULE, "player mcts needs OpenSpiel: pip install 'qttt[openspiel]'") from None
    return MctsPlayer(rng, simulations)


def play_job(job: Job, human: Callable[[str], Seat] | None = None) -> Json:
    """Play one job; its record with players, result and game number."""
    rs = load_ruleset(job.variant)
    seats = {side: make_seat(spec, rs, random.Random(f"{job.seed}:{job.index}:{side}"), job.ack, human)
             for side, spec in (("x", job.x), ("o", job.o))}
    result = play_game(rs, job.variant, seats, Clock.of(rs, job.move, job.game))
    return {"game": job.index, **result.to_json()}


class Store:
    """A match directory: the manifest and one record per finished game."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, index: int) -> Path:
        return self.root / f"game-{index:04d}.json"

    def open(self, manifest: Json) -> dict[int, Json]:
        """Create the directory or check it holds this match; the records already there."""
        target = self.root / "match.json"
        if os.path.lexists(self.root) and not self.root.is_dir():
            raise FileError(None, f"cannot keep the records in --out {self.root}: it is a file, not a "
                            "directory; give a directory (it is created if missing)")
        if target.is_file():
            try:
                old = read_json(target)
            except FileError:  # not JSON, not UTF-8, nested too deeply, not a file
                old = None
            if not isinstance(old, dict) or {k: v for k, v in old.items() if k != "games"} != \
                    {k: v for k, v in manifest.items() if k != "games"}:
                raise MatchError(RULE, f"{self.root} holds another match ({target}); choose another "
                                 "--out or remove it")
        write_atomic(target, json.dumps(manifest, indent=1) + "\n", make_dirs=True)  # the match directory
        done = {}
        for rec in self.records():
            if isinstance(rec.get("game"), int) and isinstance(rec.get("result"), dict):
                done[rec["game"]] = rec
        return done

    def records(self) -> Iterator[Json]:
        """The readable game records, by game number."""
        for p in sorted(self.root.glob("game-*.json")):
            try:
                rec = read_json(p)
            except FileError:
                continue  # a file not written by us: the game is played again
            if isinstance(rec, dict):
                yield rec

    def save(self, record: Json) -> Path:
        """Write one game's record atomically."""
        target = self.path(int(record["game"]))
        write_atomic(target, json.dumps(record) + "\n")
        return target


def manifest(kind: str, jobs: list[Job], players: list[str], games: int) -> Json:
    """What identifies a match directory's contents."""
    first = asdict(jobs[0])
    return {"kind": kind, "variant": first["variant"], "players": players, "games": games,
            "seed": first["seed"], "move_seconds": first["move"], "game_seconds": first["game"]}


def run(jobs: list[Job], store: Store, done: dict[int, Json], workers: int,
        on_game: Callable[[Json], None], human: Callable[[str], Seat] | None = None) -> list[Json]:
    """Play the jobs without a record, `workers` at a time, saving each record as it ends;
    all records, in game order."""
    results = dict(done)
    todo = [j for j in jobs if j.index not in done]
    if workers <= 1 or len(todo) <= 1:
        for job in todo:
            results[job.index] = _finish(play_job(job, human), store, on_game)
    else:
        with pool_of(workers, multiprocessing.get_context("spawn")) as pool:
            running: set[Future[Json]] = {pool.submit(play_job, job) for job in todo}
            while running:
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for fut in finished:
                    rec = _finish(fut.result(), store, on_game)
                    results[int(rec["game"])] = rec
    return [results[j.index] for j in jobs if j.index in results]


def _finish(record: Json, store: Store, on_game: Callable[[Json], None]) -> Json:
    store.save(record)
    on_game(record)
    return record


# -- results ------------------------------------------------------------------------------

@dataclass
class Standing:
    """One player's results: games, points, wins, draws, losses and losses by forfeit."""

    player: str
    games: int = 0
    points: Fraction = Fraction(0)
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: int = 0
    against: dict[str, Fraction] = field(default_factory=dict)


def standings(players: list[str], records: Iterable[Json]) -> list[Standing]:
    """The players ordered by points, then wins (ties keep the given order)."""
    table = {p: Standing(p) for p in players}
    for rec in records:
        names = rec["players"]
        scores = {side: Fraction(v) for side, v in rec["result"]["scores"].items()}
        forfeit = rec["result"].get("forfeit")
        for side, other in (("x", "o"), ("o", "x")):
            row = table.setdefault(names[side], Standing(names[side]))
            row.games += 1
            row.points += scores[side]
            row.against[names[other]] = row.against.get(names[other], Fraction(0)) + scores[side]
            if scores[side] > scores[other]:
                row.wins += 1
            elif scores[side] == scores[other]:
                row.draws += 1
            else:
                row.losses += 1
            if forfeit is not None and forfeit.get("side") == side:
                row.forfeits += 1
    return sorted(table.values(), key=lambda r: (-r.points, -r.wins))


def game_line(rec: Json, total: int) -> str:
    """One line for a finished game: `game 3/10: a (x) 1 - 0 b (o), over`."""
    names, res = rec["players"], rec["result"]
    s = res["scores"]
    why = res["end"]
    if res.get("forfeit"):
        f = res["forfeit"]
        why = f"{f['side']} forfeits ({f['kind']}: {f['message']})"
    return (f"game {rec['game']}/{total}: {names['x']} (x) {s['x']} - {s['o']} {names['o']} (o), "
            f"{len(rec['actions'])} actions, {why}")
