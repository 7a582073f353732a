"""Matches and round robins: the games to play, playing them (in parallel when asked), one
record file per game written atomically as it ends, resumption, standings and cross-tables.

A match directory holds `match.json` (what is being played) and `game-NNNN.json` per finished
game: the v1 record with `players` and `result` (spec/schema/record.schema.json). Running the
same match again plays only the games that have no record yet.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
import multiprocessing
import os
import random
import re
import shlex
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from contextlib import suppress
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any, cast

from ..errors import FileError, MatchError
from ..family import family_of, having, tool
from ..games import new_game
from ..io import read_json, write_atomic
from ..notation import Json, record_from_json
from ..players import PLAYERS, Player, SearchPlayer
from ..processes import first_done, pool_of
from ..ruleset import Ruleset
from ..text import count
from ..variant import load_ruleset
from .referee import (
    ACK_SECONDS,
    BuiltinSeat,
    Clock,
    EngineSeat,
    Forfeit,
    Seat,
    Watch,
    check_spec,
    describe,
    play_game,
    refereed_problem,
    split_name,
)

RULE = "match-forfeit"
RECORD_NAME = re.compile(r"game-([0-9]{4,})\.json")  # a game's record in a match folder
STDERR = "stderr"  # the key under which a played job hands its programs' standard error to `run`


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
            codecup(rs)
        if bare == "human" and "terminal" not in family_of(rs).tools:
            raise MatchError(None, f"{rs.canonical} is a {rs.game} ruleset: people play it with qttt "
                             "play; qttt match seats people for rulesets of the "
                             + _having("terminal") + " family")
    if len(players) < 2:
        raise MatchError(None, "a match needs two players")
    names = [split_name(p)[0] for p in players]
    if len(set(names)) != len(names):
        twice = next(p for p in names if names.count(p) > 1)
        raise MatchError(None, f"player {twice!r} is named twice; each player plays under its name")
    if games < 1:
        raise MatchError(None, f"--games {games}: at least one game")
    for name, value in (("--move-time", move), ("--game-time", game)):
        if value is not None and not 0 <= value < math.inf:
            raise MatchError(None, f"{name} {value}: seconds >= 0 (0: no limit)")
    if not 0 < ack < math.inf:
        raise MatchError(None, f"--ack-time {ack}: seconds > 0")
    jobs, index = [], 0
    for i, a in enumerate(players):
        for b in players[i + 1:]:
            for k in range(games):
                index += 1
                x, o = (a, b) if k % 2 == 0 else (b, a)
                jobs.append(Job(index, variant, x, o, seed, move, game, ack))
    return jobs


def _having(name: str) -> str:
    """The families that have a tool, for messages: `quantum` or `quantum or nested-classical`."""
    return " or ".join(f.name for f in having(name))


def codecup(rs: Ruleset) -> Any:
    """The CodeCup 2012 dialogue (its family's `codecup` tool: `letters`, `CodeCupSeat`), checked
    to fit `rs`; MatchError (codecup-dialogue) when it does not."""
    if "codecup" not in family_of(rs).tools:
        raise MatchError("codecup-dialogue", f"a CodeCup 2012 bot plays {_having('codecup')} games; "
                         f"{rs.canonical} is a {rs.game} ruleset")
    dialogue = tool(rs, "codecup")
    dialogue.check_ruleset(rs)
    return dialogue


def make_seat(spec: str, rs: Ruleset, rng: random.Random, ack_seconds: float = ACK_SECONDS,
              human: Callable[[str], Seat] | None = None) -> Seat:
    """The seat a player specification names (checked by check_spec)."""
    name, bare = split_name(check_spec(spec))
    kind, _, arg = bare.partition(":")
    if kind == "engine":
        return EngineSeat(shlex.split(arg), name, ack_seconds)
    if kind == "codecup":
        seat: Seat = codecup(rs).CodeCupSeat(shlex.split(arg), name, rs, ack_seconds)
        return seat
    if kind == "human":
        if human is None:
            raise MatchError(None, "a person plays only at the terminal, with --workers 1")
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
        raise MatchError(None, "player mcts needs OpenSpiel: pip install 'qttt[openspiel]'") from None
    return MctsPlayer(rng, simulations)


GREETING_SECONDS = 0.3  # how long a CodeCup bot, which answers nothing before its turn, must stay up


def greet(jobs: list[Job], players: list[str]) -> None:
    """Start and greet every program player once before the schedule begins (an engine answers
    hello and new; a CodeCup bot stays up), so that a dead or mistyped command stops the run with
    one clear error (MatchError) instead of forfeiting every game."""
    first = jobs[0]
    rs = load_ruleset(first.variant)
    for spec in players:
        kind = split_name(spec)[1].partition(":")[0]
        if kind not in ("engine", "codecup"):
            continue
        seat = make_seat(spec, rs, random.Random(0), first.ack)
        try:
            seat.start(first.variant, "x")
            if kind == "codecup":
                time.sleep(GREETING_SECONDS)
                bot: Any = seat  # the codecup tool's CodeCupSeat, which reports on its program
                if not bot.alive():
                    raise Forfeit("crash", bot.gone())
        except Forfeit as f:
            raise MatchError(None, f"player {split_name(spec)[0]!r} cannot play: {f.message}; "
                             "nothing was played") from None
        finally:
            with suppress(Forfeit, OSError):
                seat.close(new_game(rs))


def play_job(job: Job, human: Callable[[str], Seat] | None = None, watch: Watch | None = None) -> Json:
    """Play one job; its record with players, result and game number (`watch` follows it)."""
    rs = load_ruleset(job.variant)
    seats = {side: make_seat(spec, rs, random.Random(f"{job.seed}:{job.index}:{side}"), job.ack, human)
             for side, spec in (("x", job.x), ("o", job.o))}
    result = play_game(rs, job.variant, seats, Clock.of(rs, job.move, job.game), job.ack, watch,
                       random.Random(f"{job.seed}:{job.index}:chance"))
    return {"game": job.index, **result.to_json(), STDERR: result.stderr}


class Store:
    """A match or tournament directory (`kind`, as its messages call it): the manifest and one
    record per finished game."""

    def __init__(self, root: str | Path, kind: str = "match") -> None:
        self.root, self.kind = Path(root), kind

    def path(self, index: int) -> Path:
        return self.root / f"game-{index:04d}.json"

    def open(self, manifest: Json, jobs: list[Job]) -> dict[int, Json]:
        """Create the directory or check it holds this match; the records already there, each
        checked against its game of the schedule by replaying it under the referee's rules
        (`refereed_problem`): FileError naming the file and the field when one is not a record
        this match can have written (edited, forged, of another schedule)."""
        target = self.root / "match.json"
        if os.path.lexists(self.root) and not self.root.is_dir():
            raise FileError(None, f"cannot keep the records in --out {self.root}: it is a file, not a "
                            "directory; give a directory (it is created if missing)")
        found = sorted(self.root.glob("game-*.json")) if self.root.is_dir() else []
        if os.path.lexists(target):
            try:
                old = read_json(target, own=True)
            except FileError:  # not JSON, not UTF-8, nested too deeply, not a file
                old = None
            if not isinstance(old, dict) or old != manifest:
                changed = [k for k in manifest if not isinstance(old, dict) or old.get(k) != manifest[k]]
                what = ", ".join(f"{k} {json.dumps(old.get(k))} there, {json.dumps(manifest[k])} now"
                                 for k in changed) if isinstance(old, dict) else "it cannot be read"
                raise MatchError(None, f"{self.root} holds another schedule ({target}: {what}); "
                                 "resume with the same arguments, or choose another --out")
        elif found:
            raise FileError(None, f"{self.root} holds game records but no match.json, so the schedule "
                            "they belong to is unknown; restore match.json, or choose another --out")
        write_atomic(target, json.dumps(manifest, indent=1) + "\n", make_dirs=True)  # the match directory
        by_index = {j.index: j for j in jobs}
        rs = load_ruleset(jobs[0].variant)
        done = {}
        for path in found:
            rec = self._checked(path, by_index, rs)
            done[rec["game"]] = rec
        return done

    def _checked(self, path: Path, jobs: dict[int, Job], rs: Ruleset) -> Json:
        """The record at `path`, once it is one this match can have written for its game."""
        def damaged(why: str) -> FileError:
            return FileError(None, f"{self.kind} folder {self.root}: {path.name} is damaged ({why}); "
                             "delete it to play that game again")
        name = RECORD_NAME.fullmatch(path.name)
        if name is None or int(name[1]) not in jobs:
            raise damaged(f"no game of this schedule of {len(jobs):,} games is named so")
        try:
            rec = read_json(path, own=True)
        except FileError as e:
            raise damaged(e.message.removeprefix(f"{path}: ").removeprefix(f"{path} ")) from None
        job = jobs[int(name[1])]
        game = rec.get("game") if isinstance(rec, dict) else None
        if isinstance(game, bool) or game != job.index:
            raise damaged(f"game: {json.dumps(game)[:40]} is not {job.index}, the game of this file")
        players = {"x": split_name(job.x)[0], "o": split_name(job.o)[0]}
        clock = Clock.of(rs, job.move, job.game).to_json(job.ack)
        problem = refereed_problem(rec, rs, job.variant, players, clock,
                                   random.Random(f"{job.seed}:{job.index}:chance"))  # as play_job draws
        if problem is not None:
            raise damaged(problem)
        return cast(Json, rec)

    def records(self) -> Iterator[Path]:
        """The game records saved so far."""
        return iter(sorted(self.root.glob("game-*.json")))

    def save(self, record: Json) -> Path:
        """Write one game's record atomically."""
        target = self.path(int(record["game"]))
        write_atomic(target, json.dumps(record) + "\n")
        return target


def manifest(kind: str, jobs: list[Job], players: list[str], games: int) -> Json:
    """What identifies a match directory's contents: the schedule and the clock in effect
    (seconds, null for no limit)."""
    first = jobs[0]
    clock = Clock.of(load_ruleset(first.variant), first.move, first.game)
    return {"kind": kind, "variant": first.variant, "players": players, "games": games,
            "seed": first.seed, "move_seconds": clock.move, "game_seconds": clock.game}


def run(jobs: list[Job], store: Store, done: dict[int, Json], workers: int,
        on_game: Callable[[Json], None], human: Callable[[str], Seat] | None = None,
        watch: Callable[[Job], Watch | None] | None = None) -> list[Json]:
    """Play the jobs without a record, `workers` at a time, saving each record as it ends;
    all records, in game order. With one worker, `watch(job)` gives the Watch that follows
    each game for a live display."""
    results = dict(done)
    todo = [j for j in jobs if j.index not in done]
    if workers <= 1 or len(todo) <= 1:
        for job in todo:
            follow = watch(job) if watch is not None else None
            results[job.index] = _finish(play_job(job, human, follow), store, on_game)
    else:
        with pool_of(workers, multiprocessing.get_context("spawn")) as pool:
            running: set[Future[Json]] = {pool.submit(play_job, job) for job in todo}
            while running:
                finished, running = first_done(pool, running)
                for fut in finished:
                    rec = _finish(fut.result(), store, on_game)
                    results[int(rec["game"])] = rec
    return [results[j.index] for j in jobs if j.index in results]


def _finish(record: Json, store: Store, on_game: Callable[[Json], None]) -> Json:
    for side, text in record.pop(STDERR, {}).items():
        write_atomic(store.root / f"game-{int(record['game']):04d}-{side}.stderr", text)
    store.save(record)
    on_game(record)
    return record


# -- results ------------------------------------------------------------------------------

@dataclass
class Standing:
    """One player's results: games, points, wins, draws, losses, losses by forfeit, points
    against each opponent, and an Elo rating."""

    player: str
    games: int = 0
    points: Fraction = Fraction(0)
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: int = 0
    against: dict[str, Fraction] = field(default_factory=dict)
    elo: float = 0.0


ELO_START, ELO_K = 1500.0, 20.0
TIE_BREAKS = ("ordered by points; ties broken by the points scored in the games between the tied "
              "players, then wins, then Elo rating (from 1500, K = 20, games in order, a win 1, a "
              "draw 1/2), then name")


def standings(players: list[str], records: Iterable[Json]) -> list[Standing]:
    """The players ordered by points, then the tie-breaks of TIE_BREAKS."""
    table = {p: Standing(p, elo=ELO_START) for p in players}
    for rec in sorted(records, key=lambda r: int(r.get("game", 0))):
        names = rec["players"]
        scores = {side: Fraction(v) for side, v in rec["result"]["scores"].items()}
        forfeit = rec["result"].get("forfeit")
        rows = {side: table.setdefault(names[side], Standing(names[side], elo=ELO_START)) for side in "xo"}
        expected_x = 1 / (1 + 10 ** ((rows["o"].elo - rows["x"].elo) / 400))
        result_x = 1.0 if scores["x"] > scores["o"] else 0.5 if scores["x"] == scores["o"] else 0.0
        rows["x"].elo, rows["o"].elo = (rows["x"].elo + ELO_K * (result_x - expected_x),
                                        rows["o"].elo - ELO_K * (result_x - expected_x))
        for side, other in (("x", "o"), ("o", "x")):
            row = rows[side]
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
    by_points: dict[Fraction, list[Standing]] = {}
    for row in table.values():
        by_points.setdefault(row.points, []).append(row)
    out = []
    for points in sorted(by_points, reverse=True):
        tied = by_points[points]
        out += sorted(tied, key=partial(_tie_key, tied={t.player for t in tied}))
    return out


def _tie_key(r: Standing, tied: set[str]) -> tuple[Fraction, int, float, str]:
    """The tie-breaks of TIE_BREAKS among the players `tied` on points."""
    mutual = sum((v for q, v in r.against.items() if q in tied), Fraction(0))
    return (-mutual, -r.wins, -r.elo, r.player)


def human_moves(rec: Json) -> str:
    """A game's actions in the human notation (squares from 1)."""
    record = record_from_json(rec)
    text = family_of(record.ruleset()).notation(record.variant, record.actions)
    if text is not None:
        return text
    return f"[{record.variant}] " + " ".join(describe(new_game(record.ruleset()), a).removeprefix("square ")
                                              for a in record.actions)


def codecup_moves(rec: Json) -> str | None:
    """A game's actions in the CodeCup 2012 letters, when its ruleset fits that dialogue."""
    record = record_from_json(rec)
    try:
        dialogue = codecup(record.ruleset())
    except MatchError:
        return None
    return " ".join(dialogue.letters(a) for a in record.actions)


def move_lists(records: Iterable[Json]) -> str:
    """Every game: its line, then its moves in the human notation and, for 4×4 games the CodeCup
    bots play, in their letters."""
    out = []
    recs = list(records)
    for rec in recs:
        out += [game_line(rec, len(recs)), "  " + human_moves(rec)]
        cc = codecup_moves(rec)
        if cc is not None:
            out.append("  codecup: " + cc)
    return "\n".join(out) + "\n"


def cross_rows(players: list[str], rows: list[Standing]) -> list[list[str]]:
    """The cross-table: a header, then per player (in standings order) the points scored against
    each player, the total, wins, draws, losses and Elo."""
    order = [r.player for r in rows]
    head = ["rank", "player", *order, "points", "won", "drawn", "lost", "elo"]
    body = [[str(i), r.player, *("x" if q == r.player else str(r.against.get(q, "")) for q in order),
             str(r.points), str(r.wins), str(r.draws), str(r.losses), f"{r.elo:.0f}"]
            for i, r in enumerate(rows, start=1)]
    return [head, *body]


def cross_csv(players: list[str], rows: list[Standing]) -> str:
    """The cross-table as CSV."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(cross_rows(players, rows))
    return buf.getvalue()


def cross_html(players: list[str], rows: list[Standing], title: str) -> str:
    """The cross-table as an HTML page, with the tie-breaks stated."""
    e = html.escape
    head, *body = cross_rows(players, rows)
    lines = ["<table>", "<tr>" + "".join(f"<th>{e(c)}</th>" for c in head) + "</tr>"]
    lines += ["<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in body]
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{e(title)}</title>"
            "<style>table{border-collapse:collapse}td,th{border:1px solid #000;padding:2px 6px}"
            f"</style></head>\n<body>\n<h1>{e(title)}</h1>\n" + "\n".join(lines)
            + f"\n</table>\n<p>{e(TIE_BREAKS)}</p>\n</body></html>\n")


def export(store: Store, players: list[str], rows: list[Standing], records: list[Json],
           title: str) -> list[Path]:
    """Write the move lists and the cross-table (CSV, HTML) next to the records."""
    files = {"moves.txt": move_lists(records), "crosstable.csv": cross_csv(players, rows),
             "crosstable.html": cross_html(players, rows, title)}
    for name, text in files.items():
        write_atomic(store.root / name, text)
    return [store.root / name for name in files]


def game_line(rec: Json, total: int) -> str:
    """One line for a finished game: `game 3/10: a (x) 1 - 0 b (o), over`."""
    names, res = rec["players"], rec["result"]
    s = res["scores"]
    why = res["end"]
    if res.get("forfeit"):
        f = res["forfeit"]
        line = f.get("line")
        said = f"; its line: {json.dumps(line, ensure_ascii=False)}" if isinstance(line, str) else ""
        why = f"{f['side']} forfeits ({f['kind']}: {f['message']}{said})"
    return (f"game {rec['game']}/{total}: {names['x']} (x) {s['x']} - {s['o']} {names['o']} (o), "
            f"{count(len(rec['actions']), 'action')}, {why}")


def _seconds(value: object) -> str:
    return "no limit" if value is None else f"{value:g} s" if isinstance(value, int | float) else "?"


def story(rec: dict[str, Any]) -> list[str]:
    """What a match record tells beyond its actions, for people: the players, the clock in
    effect, the result and its reason (with the forfeiting program's own line), and the time
    used; fields of another shape are left out (a record may come from anywhere)."""
    out = []
    players = rec.get("players")
    if isinstance(players, dict) and all(isinstance(players.get(s), str) for s in ("x", "o")):
        out.append(f"players: X {players['x']}, O {players['o']}")
    clock = rec.get("clock")
    if isinstance(clock, dict):
        out.append(f"clock: {_seconds(clock.get('move_seconds'))} per action, "
                   f"{_seconds(clock.get('game_seconds'))} per game, "
                   f"{_seconds(clock.get('ack_seconds'))} to acknowledge")
    result = rec.get("result")
    if not isinstance(result, dict):
        return out
    scores = result.get("scores")
    if isinstance(scores, dict) and all(isinstance(scores.get(s), str) for s in ("x", "o")):
        line = f"result: X {scores['x']} - {scores['o']} O, {result.get('end', '?')}"
        f = result.get("forfeit")
        if isinstance(f, dict) and f.get("side") in ("x", "o"):
            rule = f" (rule {f['rule']})" if isinstance(f.get("rule"), str) else ""
            line += f": {str(f['side']).upper()} forfeits, {f.get('kind')}: {f.get('message')}{rule}"
            if isinstance(f.get("line"), str):
                line += f"; its line: {json.dumps(f['line'], ensure_ascii=False)}"
        out.append(line)
    used = result.get("seconds")
    if isinstance(used, dict) and all(isinstance(used.get(s), int | float) for s in ("x", "o")):
        times = result.get("action_seconds")
        per = (" ; per action: " + " ".join(f"{s:g}" for s in times)
               if isinstance(times, list) and all(isinstance(s, int | float) for s in times) else "")
        out.append(f"time used: X {used['x']:g} s, O {used['o']:g} s{per}")
    return out
