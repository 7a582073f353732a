"""`qttt analyze count|solve|curve|random|fairness NAME|FILE`: game counts, solved values, value curves
over p, random play."""

from __future__ import annotations

import argparse
import itertools
import json
import shlex
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ..analysis.distributed import executor
from ..analysis.results import DATA_ENV, known_results, load_results, save_section, saved_path
from ..analysis.sample import LINE_RESULTS, sample_games
from ..argtypes import integer, output_file
from ..bounds import CHUNK, GAMES, MAX_PLY, SEED
from ..conformance.perft import perft
from ..errors import UsageError
from ..family import family_of, tool
from ..games import new_game
from ..notation import Record, action_to_json, record_to_json
from ..processes import serial_mapper
from ..ruleset import Ruleset
from ..variant import load_ruleset
from . import add_core, add_engine_alias, add_json, add_quiet, add_workers

SEARCH_CELLS = 9  # boards an exact count or solve is attempted on without --force (3×3)
RANDOM_GAMES = 10_000  # random games fairness samples when none are saved (analyze random's default)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("analyze", help="exact game counts, solved values, random-play statistics",
                       description="Analyse a ruleset: count games, solve it, sample random play, "
                                   "report fairness. --save keeps the result in your data directory "
                                   f"(${DATA_ENV}, else ~/.local/share/qttt/analysis/ or the platform's); "
                                   "-o FILE writes it to FILE (the checkout's results/analysis/NAME.json "
                                   "for the results the project ships).")
    tasks = p.add_subparsers(dest="task", required=True, metavar="TASK")

    def common(q: argparse.ArgumentParser, checkpoint: bool = True) -> None:
        q.add_argument("ruleset", help="built-in name, canonical name or variant file")
        add_workers(q, "local processes, or with --dask local the local cluster's worker processes; the "
                       "same answer whatever the number")
        q.add_argument("--dask", metavar="ADDRESS",
                       help="run on a Dask cluster: a scheduler address, or 'local' for a local one")
        if checkpoint:
            q.add_argument("--checkpoint", type=output_file, metavar="FILE",
                           help="save progress here and resume from it")
        add_json(q, "print the result as JSON")
        q.add_argument("--save", action="store_true",
                       help=f"keep the result in your data directory (${DATA_ENV}, else "
                            "~/.local/share/qttt/analysis/ or the platform's), where analyze fairness "
                            "reads it")
        q.add_argument("-o", "--output", type=output_file, metavar="FILE",
                       help="write the result to this JSON file "
                       "(its other sections kept)")
        add_quiet(q, "no progress bar, and no note of what fairness computes")
        q.add_argument("--force", action="store_true",
                       help="go on where the command would refuse: replace a result already saved, "
                            f"or search a board of more than {SEARCH_CELLS} cells")

    c = tasks.add_parser("count", help="exact number of complete games and positions by ply")
    common(c)
    c.add_argument("--max-ply", type=integer(MAX_PLY),
                   help="stop after this many actions")
    c.set_defaults(run=run_count)

    s = tasks.add_parser("solve", help="value under perfect play, principal variation, first moves")
    common(s)
    add_core(s, "search: the compiled core (built with the system C compiler), the pure Python solver, "
                "or auto (compiled when it can; default); the same values either way")
    add_engine_alias(s)
    s.set_defaults(run=run_solve)

    v = tasks.add_parser("curve", help="a chance ruleset's exact value over p, and where it crosses zero",
                         description="The exact expected value x − o of a chance ruleset (collapse = "
                                     "chance-measurer or chance-second) under perfect play at each p of a "
                                     "grid (default 1/2, 11/20, ..., 1), each with the polynomial in p of "
                                     "the piece beside it, and where the value stops having the sign it has "
                                     "at a grid point: a bracket narrower than --width whose ends are solved "
                                     "exactly, with the polynomial whose root the crossing is where one "
                                     "piece holds at both ends. The ruleset's own p is replaced.")
    common(v, checkpoint=False)
    v.add_argument("--param", choices=("p",), default="p", help="the parameter varied (p, the probability "
                   "of the named outcome; the only one today)")
    v.add_argument("--points", type=fractions, default=None, metavar="P,P,...",
                   help="the p tabulated, exact, increasing, from 1/2 to 1 (default 1/2,11/20,...,1)")
    v.add_argument("--width", type=fraction_arg, default=None, metavar="W",
                   help="a crossing's bracket is narrower than this (default 1/10000000000)")
    add_core(v, "search: the compiled core, the pure Python expectimax, or auto (default); the same values "
                "either way")
    v.set_defaults(run=run_curve)

    r = tasks.add_parser("random", help="score statistics of uniformly random games")
    common(r)
    r.add_argument("-n", "--games", type=integer(GAMES), default=RANDOM_GAMES,
                   help=f"number of games (default {RANDOM_GAMES})")
    r.add_argument("--seed", type=integer(SEED), default=0,
                   help="random seed (default 0)")
    r.add_argument("--chunk", type=integer(CHUNK), default=2000,
                   help="games per unit of work (default 2000)")
    add_core(r, "rules engine: the compiled core (built with the system C compiler), the Python engine, "
                "or auto (compiled when it can; default); same games either way")
    r.set_defaults(run=run_random)

    f = tasks.add_parser("fairness", help="first-player advantage; scoring variants that are draws",
                         description="The first player's advantage under perfect and random play, from "
                                     "the results saved (yours, then the project's); what is missing is "
                                     f"computed first: {RANDOM_GAMES:,} random games (seed 0), and the "
                                     f"solve on boards of up to {SEARCH_CELLS} cells (--force: any). Exit "
                                     "1 when a part could not be computed (the line names the command).")
    common(f, checkpoint=False)
    f.add_argument("--search", action="store_true",
                   help="solve scoring variants and list those whose value is a draw")
    add_core(f, "rules engine of what is computed here (as for solve and random; default auto)")
    add_engine_alias(f)
    f.set_defaults(run=run_fairness)


@contextmanager
def _mapper(args: argparse.Namespace) -> Iterator[Any]:
    """The mapper the options ask for (None: this process), shut down afterwards."""
    with executor(args.workers, getattr(args, "dask", None)) as m:
        yield None if m is serial_mapper else m


@contextmanager
def _bar(args: argparse.Namespace, what: str) -> Iterator[Callable[[int, int, str], None]]:
    """A progress callback (done, total, label) drawing a rich progress bar on standard error."""
    if args.quiet or not sys.stderr.isatty():
        yield lambda done, total, label: None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(),
               TimeRemainingColumn())
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task(what, total=None)

        def update(done: int, total: int, label: str) -> None:
            bar.update(task, completed=done, total=total, description=f"{what} {label}")
        yield update


def _guard(args: argparse.Namespace, rs: Ruleset, section: str, search: bool) -> None:
    """Refuse, before any work and unless --force, to replace a saved result or to search a
    board beyond SEARCH_CELLS cells exactly."""
    if args.force:
        return
    if args.save:
        path = saved_path(rs)
        if section in load_results(path):
            raise UsageError(None, f"{path} already holds a {section} result for {rs.name}; "
                             "--force replaces it")
    cells = rs.board ** 2
    if search and cells > SEARCH_CELLS:
        early = perft(new_game(rs), 2)
        raise UsageError(None, f"{rs.canonical} has {cells} cells: its game tree has {early:,} "
                         f"sequences of 2 plies alone and games of up to about {cells} plies, far "
                         f"beyond the {SEARCH_CELLS} cells (3×3) an exact search finishes on; "
                         "--force searches anyway")


def _keep(args: argparse.Namespace, rs: Ruleset, section: str, payload: dict[str, Any]) -> None:
    """Save a section where --save and -o ask."""
    if args.save:
        print(f"saved {save_section(rs, section, payload)}", file=sys.stderr)
    if args.output:
        save_section(rs, section, payload, Path(args.output))


def _emit(args: argparse.Namespace, rs: Ruleset, section: str, payload: dict[str, Any], text: str) -> None:
    _keep(args, rs, section, payload)
    sys.stdout.write(json.dumps(payload, indent=1) + "\n" if args.json else text)


def run_count(args: argparse.Namespace) -> int:
    rs = load_ruleset(args.ruleset)
    count_games = tool(rs, "count")
    _guard(args, rs, "count", search=args.max_ply is None)
    with _mapper(args) as mapper, _bar(args, "count") as bar:
        res = count_games(rs, max_ply=args.max_ply, mapper=mapper, checkpoint=args.checkpoint,
                          progress=lambda ply, done, total: bar(done, total, f"ply {ply}"))
    rows = [f"{'ply':>4} {'nodes':>20} {'games ending':>20} {'positions':>10}"]
    for i, (nd, g, p) in enumerate(zip(res.nodes_by_ply, res.games_by_ply, res.positions_by_ply,
                                       strict=True)):
        rows.append(f"{i:>4} {nd:>20,} {g:>20,} {p:>10,}")
    head = "complete games" if res.complete else f"games ending within {args.max_ply} plies"
    text = "\n".join([f"{rs.canonical}: {head}: {res.games:,} (deadlocks {res.deadlocks:,}; "
                      f"positions merged by the {res.key} key)", *rows]) + "\n"
    _emit(args, rs, "count", res.to_json(), text)
    return 0


def run_solve(args: argparse.Namespace) -> int:
    rs = load_ruleset(args.ruleset)
    solve = tool(rs, "solve")
    _guard(args, rs, "solve", search=True)
    with _mapper(args) as mapper, _bar(args, "solve") as bar:
        res = solve(rs, mapper=mapper, checkpoint=args.checkpoint, core=args.core,
                    progress=lambda done, total: bar(done, total, "first moves"))
    pv = family_of(rs).notation(rs.canonical, tuple(res.pv)) or json.dumps(record_to_json(
        Record(rs.canonical, tuple(res.pv))))
    firsts = "\n".join(f"  {json.dumps(action_to_json(a))}: {v}" for a, v in res.first)
    text = f"{rs.canonical}: value x − o under perfect play = {res.value}\n"
    piece = getattr(res, "piece", None)
    if piece is not None:  # a chance ruleset: the expected value at its p, and its polynomial there
        side = "right" if res.side > 0 else "left"
        text = (f"{rs.canonical}: expected value x − o under perfect play at p = {res.point}: {res.value}\n"
                f"on the piece of [1/2, 1] {side} of p = {res.point} the value is {piece.text()}\n")
        firsts = "\n".join(f"  {json.dumps(action_to_json(a))}: {v}  ({q.text()})"
                           for (a, v), q in zip(res.first, res.pieces, strict=True))
    text += f"principal variation: {pv}\nfirst moves (one per symmetry class):\n{firsts}\n"
    _emit(args, rs, "solve", res.to_json(), text)
    return 0


def fraction_arg(text: str) -> Fraction:
    """An exact positive number: an integer, a fraction such as 3/4 or a decimal such as 0.75."""
    try:
        value = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"{text!r} is not an exact number such as 3/4 or 0.75") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number above 0")
    return value


def fractions(text: str) -> list[Fraction]:
    """Exact numbers from 1/2 to 1, increasing, separated by commas."""
    out = [fraction_arg(t) for t in text.split(",")]
    if any(not Fraction(1, 2) <= v <= 1 for v in out) or any(a >= b for a, b in itertools.pairwise(out)):
        raise argparse.ArgumentTypeError(f"{text!r}: expected increasing values of p from 1/2 to 1")
    return out


def run_curve(args: argparse.Namespace) -> int:
    rs = load_ruleset(args.ruleset)
    value_curve = tool(rs, "curve")
    _guard(args, rs, "curve", search=True)
    with _mapper(args) as mapper, _bar(args, "curve") as bar:
        res = value_curve(rs, args.points, width=args.width, core=args.core, mapper=mapper,
                          progress=lambda done, total: bar(done, total, "points"))
    rows = [f"{'p':>6}  {'value x − o':>14}  piece beside p"]
    for q in res.points:
        rows.append(f"{q.p!s:>6}  {q.value!s:>14}  {q.piece.text()}")
    if not res.crossings:
        rows.append("no crossing of zero between the tabulated points")
    for c in res.crossings:
        data = c.to_json()
        if c.lo == c.hi:
            where = f"exactly at p = {c.lo}"
        else:
            where = f"in [{c.lo}, {c.hi}]" + (f" (p ≈ {data['decimal']})" if data.get("decimal") else "")
        root = (f", the root there of {c.polynomial.squarefree().text()}" if c.polynomial is not None
                else "")
        rows.append(f"after p = {c.start} the value leaves its sign {where}{root}")
    rows.append(f"({res.solves} exact solves; method: {METHOD_SHORT})")
    _emit(args, rs, "curve", res.to_json(), f"{rs.canonical}: value over p\n" + "\n".join(rows) + "\n")
    return 0


METHOD_SHORT = "exact expectimax at each p, the piecewise polynomial's root bracketed by exact solves"


def run_random(args: argparse.Namespace) -> int:
    rs = load_ruleset(args.ruleset)
    _guard(args, rs, "random", search=False)
    with _mapper(args) as mapper, _bar(args, "random games") as bar:
        res = sample_games(rs, args.games, seed=args.seed, chunk=args.chunk, mapper=mapper,
                           checkpoint=args.checkpoint, core=args.core,
                           progress=lambda done, total: bar(done, total, ""))
    lo, hi = res.interval("diff")
    out = res.outcomes()
    n = res.games
    text = (f"{rs.canonical}: {n:,} random games (seed {args.seed})\n"
            f"  mean x {res.mean('x'):.4f}  mean o {res.mean('o'):.4f}\n"
            f"  mean x − o {res.mean('diff'):.4f}  (95% CI {lo:.4f} .. {hi:.4f})\n"
            f"  X wins {out['x'] / n:.4f}  O wins {out['o'] / n:.4f}  draws {out['draw'] / n:.4f}"
            " (by score)\n")
    if res.lines:
        text += ("  by the first-line award: " + "  ".join(
            f"{k} {res.lines[k] / n:.4f}" for k in LINE_RESULTS if res.lines[k] or k in ("x", "o")) + "\n")
    if res.shapes:
        shape = res.shape()
        moves = shape["moves"]
        text += (f"  moves: mean {moves['mean']:.1f}, min {moves['min']}, max {moves['max']}; "
                 f"cells left empty: mean {shape['empty_cells']['mean']:.1f}\n")
    _emit(args, rs, "random", res.to_json(), text)
    return 0


def run_fairness(args: argparse.Namespace) -> int:
    rs = load_ruleset(args.ruleset)
    fairness_report = tool(rs, "fairness")
    _guard(args, rs, "fairness", search=args.search)
    known = known_results(rs)
    computed: dict[str, dict[str, Any]] = {}
    name = shlex.quote(args.ruleset if len(args.ruleset) <= 60 else rs.canonical)
    def note(text: str) -> None:
        if not args.quiet:
            print(f"{rs.canonical}: {text}", file=sys.stderr)

    if "random" not in known:
        note(f"no random-play result saved; sampling {RANDOM_GAMES:,} games (seed 0) now (qttt analyze "
             f"random {name} --save keeps one)")
        with _mapper(args) as mapper, _bar(args, "random games") as bar:
            computed["random"] = sample_games(rs, RANDOM_GAMES, seed=0, chunk=2000, mapper=mapper,
                                              core=args.core,
                                              progress=lambda done, total: bar(done, total, "")).to_json()
    missing = None
    if "solve" not in known:
        cells = rs.board ** 2
        if cells > SEARCH_CELLS and not args.force:
            missing = (f"perfect play: not computed: an exact search of {cells} cells does not finish "
                       f"(beyond {SEARCH_CELLS}); qttt analyze solve {name} --force --save would try it")
        else:
            note(f"no solved value saved; solving now (qttt analyze solve {name} --save keeps it)")
            with _mapper(args) as mapper, _bar(args, "solve") as bar:
                computed["solve"] = tool(rs, "solve")(
                    rs, mapper=mapper, core=args.core,
                    progress=lambda done, total: bar(done, total, "first moves")).to_json()
    with _bar(args, "fairness") as bar:
        report = fairness_report(rs, {**known, **computed}, search=args.search, core=args.core,
                                 progress=lambda done, total: bar(done, total, "variants"))
    if missing:
        report["missing"] = missing
    perfect = report.get("perfect", "unknown")
    lines = [f"{rs.canonical}: perfect play x − o = {perfect}; random play mean x − o = "
             f"{report['random_mean']:.4f} (95% CI {report['random_ci95'][0]:.4f} .. "
             f"{report['random_ci95'][1]:.4f})"]
    lines += [missing] if missing else []
    for v in report.get("search", []):
        mark = "draw" if v["value"] == "0" else v["value"]
        lines.append(f"  {v['scoring']}: {mark}")
    for section, payload in computed.items():
        _keep(args, rs, section, payload)
    _emit(args, rs, "fairness", report, "\n".join(lines) + "\n")
    return 1 if missing else 0
