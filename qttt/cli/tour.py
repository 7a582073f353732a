"""`qttt tour FILE`: a tour of the Russian school rules (seed 004): the judges' protocol as a
table or a printable A4 page, in Russian or English; `--play` plays the games still missing."""

from __future__ import annotations

import argparse
import json
import random

from ..argtypes import integer, output_file
from ..bounds import SEED
from ..competition.match import make_seat
from ..competition.referee import check_spec, play_game
from ..competition.sheet import html_protocol, text_protocol
from ..competition.tour import Tour, load_tour, tour_json
from ..io import write_atomic
from . import add_json, add_quiet
from . import console as make_console
from .match import HumanSeat

EPILOG = """\
the tour file (TOML, spec/tour.md):
  [tour]      title, ruleset (default russian), team_factor (3), team_move_seconds (40)
  [[team]]    name, captain, main = [four names], free = [any number of names]
  [[game]]    meeting = [team, team] (with more than two teams), stage = "individual" | "team",
              board = 1-4 (5: the free players), x = the team playing X, extra = true for the
              agreed extra pair; then score = [X's points, O's points], forfeit = "x" | "o",
              or record = "game.json"; without a result the game is still to be played
  [players]   name = player for --play: human (default), random, greedy, search,
              engine:COMMAND, ...; a team's name for its team-stage games

--play plays every game without a result (people at the terminal by default) and saves each
record in the tour's records directory (FILE-records/), so a second run goes on from there."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("tour", help="a tour of the Russian school rules and its judges' protocol",
                       description="Hold a tour declared in a file: teams, pairings, individual and "
                                   "team stages; print the judges' protocol.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE", help="the tour file (TOML)")
    p.add_argument("--lang", choices=("ru", "en"), default="ru", help="language of the protocol (default ru)")
    p.add_argument("--html", type=output_file, metavar="OUT",
                   help="also write the protocol as a printable A4 page")
    p.add_argument("--blank", action="store_true", help="a blank sheet: names, no results")
    p.add_argument("--play", action="store_true", help="play the games that have no result yet")
    p.add_argument("--seed", type=integer(SEED), default=1,
                   help="seed of built-in players (default 1)")
    add_json(p, "the tour as JSON on standard output: teams, games with their results, meetings with "
                "their points per stage, standings (points as exact strings)")
    add_quiet(p, "with --play, no line per game (the boards of people's games still show)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    tour = load_tour(args.file)
    for spec in tour.players.values():
        check_spec(spec)
    if args.play:
        play_missing(tour, args.seed, quiet=args.quiet, stderr=args.json)
        tour = load_tour(args.file)
    if args.html is not None:
        write_atomic(args.html, html_protocol(tour, args.lang, args.blank))
    if args.json:
        print(json.dumps(tour_json(tour), indent=1, ensure_ascii=False))
        return 0
    print(text_protocol(tour, args.lang, args.blank), end="")
    if args.html:
        print(f"protocol page: {args.html}")
    return 0


def play_missing(tour: Tour, seed: int, quiet: bool = False, stderr: bool = False) -> None:
    """Play each game without a result, saving its record as it ends; a line per game unless
    `quiet` (on standard error with `stderr`)."""
    console = make_console(stderr=stderr, quiet=quiet)
    seats_console = make_console(stderr=stderr)
    for n, slot in enumerate(tour.slots, start=1):
        if slot in tour.outcomes:
            continue
        names = tour.seat_names(slot)
        seats = {}
        for side, name in names.items():
            rng = random.Random(f"{seed}:{slot.key()}:{side}")
            seat = make_seat(tour.spec(slot, side), tour.ruleset, rng,
                             human=lambda who: HumanSeat(who, seats_console))
            seat.name = name
            seats[side] = seat
        clock = tour.clock(slot)
        console.print(f"game {n}: {slot.stage} {('board ' + str(slot.board)) if slot.board else ''} "
                      f"{names['x']} (x, {slot.x}) - {names['o']} (o, {slot.o})", markup=False)
        result = play_game(tour.ruleset, tour.variant, seats, clock,
                           chance=random.Random(f"{seed}:{slot.key()}:chance"))
        record = {**result.to_json(), "tour": slot.to_json()}
        write_atomic(tour.records / f"{slot.key()}.json", json.dumps(record, ensure_ascii=False) + "\n",
                     make_dirs=True)  # the tour's own record directory
        console.print(f"  x {result.scores['x']}, o {result.scores['o']}: {result.end}", markup=False)
