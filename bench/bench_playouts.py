"""Random playouts per second for each built-in ruleset, and against the public peer engines.

Every figure is measured in this run and given twice: games per second of CPU time (this process,
or the peer's process) and of wall time (the machine is shared: wall time shows the load, CPU time
the work). Per ruleset, four figures on one core: the compiled core (qttt/quantum/_core.c, games
tallied as `qttt analyze random` tallies them), `qttt.quantum.engine.playout` (the Python engine's
playout API), a loop over the immutable `State` API (`legal_actions` + `apply`), and the naive
reference model of tests/support/reference.py, the baseline of the Python ratios; the compiled
core's ratio is to `qttt.quantum.engine.playout`.

Then `wikipedia` against the public peer engines, each playing uniformly random legal games of its
own reading of the Wikipedia rules in its own loop: KSmanis/QTTT (Java), Vlad-Shcherbina/qttt (C++)
and gyk/quantum-tictactoe (TypeScript on Node). A peer is measured when given the path of its
checkout (`--peer java=PATH`, or $QTTT_PEER_JAVA, $QTTT_PEER_CPP, $QTTT_PEER_NODE): the bench runs
`PATH/qttt-bench-driver build`, then `PATH/qttt-bench-driver run SECONDS`, which prints one line
`games=N cpu=S wall=S` (games played, process CPU seconds, wall seconds). The drivers are the
measurer's own, kept with the peers' checkouts: no peer code, binary or build recipe is part of this
project. A peer without a path is reported as not measured, with the figure last measured on this
machine quoted as such and its source. The compiled core and two commands run end to end (`qttt
random wikipedia` to a file and `qttt analyze random wikipedia`, startup included) are compared to
the fastest measured peer, CPU to CPU and wall to wall (target: `qttt random` at 1.5x the fastest
peer per CPU-second); the commands run on one worker (`--workers 1`), as the peers do, and
`qttt random` again on every core, its wall rate against one worker's (target: about 2x).

Last, `qttt analyze random`'s sampler on every core (processes) against the same sampler in one
process, wall time to wall time.

    python bench/bench_playouts.py [--seconds S] [--ruleset NAME ...] [--peer NAME=PATH ...]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

import reference

import qttt
from qttt.analysis.sample import sample_games
from qttt.processes import local_mapper
from qttt.quantum import compiled
from qttt.quantum.engine import State, playout

Rates = tuple[float, float]  # games per CPU-second, games per wall-second
DRIVER = "qttt-bench-driver"
RESULT = re.compile(r"games=(\d+) cpu=([0-9.]+) wall=([0-9.]+)")


class Peer(NamedTuple):
    """A public engine the bench measures when given its checkout."""

    name: str  # as in --peer NAME=PATH and $QTTT_PEER_NAME
    repo: str
    language: str
    quoted: int  # games per CPU-second, last measured on this machine
    source: str  # where the quoted figure comes from


QUOTED = ("this bench's run of 2026-11-25 on one core of the project's machine (process CPU time, "
          "random legal wikipedia games in the peer's own loop; the earlier figures of issue #25: "
          "Java 160k, C++ 213k, TypeScript 104k)")
PEERS = (
    Peer("java", "KSmanis/QTTT", "Java", 314_000, QUOTED),
    Peer("cpp", "Vlad-Shcherbina/qttt", "C++", 290_000, QUOTED),
    Peer("node", "gyk/quantum-tictactoe", "TypeScript on Node", 161_000, QUOTED),
)


def timed(play: Callable[[random.Random], int], seconds: float) -> Rates:
    """Games per CPU-second and per wall-second of `play` (which plays some games and returns how
    many): for each clock the best of three rounds of about seconds/3 of wall time."""
    rng = random.Random(12345)
    best_cpu = best_wall = 0.0
    for _ in range(3):
        games, cpu, wall = 0, time.process_time(), time.perf_counter()
        while True:
            games += play(rng)
            now = time.perf_counter()
            if now - wall >= seconds / 3:
                break
        best_cpu = max(best_cpu, games / max(time.process_time() - cpu, 1e-9))
        best_wall = max(best_wall, games / (now - wall))
    return best_cpu, best_wall


def times(play: Callable[[random.Random], object], n: int) -> Callable[[random.Random], int]:
    """`play` (one game per call) made to play `n` games per call."""
    def many(rng: random.Random) -> int:
        for _ in range(n):
            play(rng)
        return n
    return many


def batch(core: compiled.Core, rng: random.Random) -> int:
    """20,000 games of the compiled core, tallied as `qttt analyze random` tallies them."""
    core.sample(rng, 20000)
    return 20000


def state_api_game(rs: qttt.Ruleset, rng: random.Random) -> State:
    """A random game through the immutable State API."""
    state = State.initial(rs)
    while legal := state.legal_actions():
        state = state.apply(rng.choice(legal))
    return state


def measure_peer(path: Path, seconds: float) -> Rates | str:
    """The peer's rates from its driver in `path`, or why it could not be measured."""
    driver = path / DRIVER
    if not driver.is_file():
        return f"no {DRIVER} in {path}"
    try:
        build = subprocess.run([str(driver), "build"], capture_output=True, text=True, timeout=900)
        if build.returncode:
            return f"{DRIVER} build failed: {(build.stderr.strip().splitlines() or ['no message'])[-1]}"
        run = subprocess.run([str(driver), "run", str(seconds)], capture_output=True, text=True,
                             timeout=60 + 30 * seconds)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{DRIVER} failed: {e}"
    found = RESULT.search(run.stdout)
    if run.returncode or not found:
        return f"{DRIVER} run printed no result: {(run.stderr.strip().splitlines() or [run.stdout])[-1]}"
    games, cpu, wall = int(found[1]), float(found[2]), float(found[3])
    return games / cpu, games / wall


def command_rates(argv: list[str], games: int) -> Rates:
    """Games per CPU-second and per wall-second of `python -m qttt ARGV`, run to the end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "qttt", *argv], check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return games / cpu, games / wall


def row(label: str, rates: Rates, ratio: str = "") -> None:
    print(f"  {label:<46} {rates[0]:>14,.0f} {rates[1]:>14,.0f}  {ratio}", flush=True)


def peers(args: argparse.Namespace) -> dict[str, Rates]:
    """Measure (or quote) each peer; the measured rates by peer name."""
    paths = {p.name: os.environ.get(f"QTTT_PEER_{p.name.upper()}") for p in PEERS}
    for spec in args.peer:
        name, _, path = spec.partition("=")
        if name not in paths or not path:
            raise SystemExit(f"--peer {spec}: expected NAME=PATH with NAME one of {', '.join(paths)}")
        paths[name] = path
    measured: dict[str, Rates] = {}
    for p in PEERS:
        label = f"{p.repo} ({p.language})"
        path = paths[p.name]
        got = measure_peer(Path(path), args.seconds) if path else (
            f"no path given (--peer {p.name}=PATH or $QTTT_PEER_{p.name.upper()})")
        if isinstance(got, str):
            print(f"  {label:<46} not measured: {got}")
            print(f"  {'':<46} quoted: {p.quoted:,} games per CPU-second, from {p.source}")
        else:
            measured[p.name] = got
            row(label, got, "measured")
    return measured


def against_peers(args: argparse.Namespace, comp: Rates) -> None:
    """wikipedia: the compiled core and two commands end to end against the fastest measured peer."""
    print(f"\nwikipedia against the public peers (random legal games, one core)\n"
          f"  {'':<46} {'games/CPU-s':>14} {'games/wall-s':>14}")
    measured = peers(args)
    rates = {"compiled core (kernel)": comp}
    with tempfile.TemporaryDirectory() as tmp:
        n = args.command_games
        rates["qttt random wikipedia -o FILE (end to end)"] = command_rates(
            ["random", "wikipedia", "-n", str(n), "--seed", "9", "--workers", "1",
             "-o", str(Path(tmp) / "games.jsonl")], n)
        rates["qttt analyze random wikipedia (end to end)"] = command_rates(
            ["analyze", "random", "wikipedia", "-n", str(n), "--seed", "9", "--workers", "1", "--quiet"], n)
        every = command_rates(["random", "wikipedia", "-n", str(n), "--seed", "9", "--workers", "0",
                               "-o", str(Path(tmp) / "games.jsonl")], n)
    one = rates["qttt random wikipedia -o FILE (end to end)"]
    cores = f"qttt random wikipedia -o FILE, {os.cpu_count() or 1} workers"
    scaling = f"{every[1] / one[1]:.2f}x the wall rate of 1 worker (target about 2x)"
    if not measured:
        for label, r in rates.items():
            row(label, r, "no peer measured in this run")
        row(cores, every, scaling)
        return
    best = max(measured, key=lambda k: measured[k][0])
    peer = measured[best]
    for label, r in rates.items():
        row(label, r, f"{r[0] / peer[0]:.2f}x CPU, {r[1] / peer[1]:.2f}x wall against {best}")
    row(cores, every, f"{scaling}; {every[1] / peer[1]:.2f}x wall against {best}")
    print(f"  target: qttt random at 1.5x the fastest peer per CPU-second "
          f"({1.5 * peer[0]:,.0f} games/CPU-s): {'met' if one[0] >= 1.5 * peer[0] else 'NOT met'}")


def processes(args: argparse.Namespace) -> None:
    """The sampler on every core against the same sampler in one process, wall to wall."""
    cores = os.cpu_count() or 1
    print(f"\n`qttt analyze random`'s sampler (compiled core): {cores} processes against one, wall time")
    mapper, stop = local_mapper(cores)
    try:
        for name in args.ruleset:
            rs = qttt.load_ruleset(name)
            games = args.process_games
            chunk = -(-games // (4 * cores))
            start = time.perf_counter()
            sample_games(rs, games, chunk=chunk)
            one = games / (time.perf_counter() - start)
            sample_games(rs, cores * 1000, chunk=1000, mapper=mapper)  # start the workers
            start = time.perf_counter()
            sample_games(rs, games, chunk=chunk, mapper=mapper)
            many = games / (time.perf_counter() - start)
            print(f"  {name:<18} one process {one:>12,.0f} games/wall-s, {cores} processes {many:>12,.0f} "
                  f"games/wall-s ({games:,} games): {many / one:.2f}x", flush=True)
    finally:
        stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per figure (default 3)")
    parser.add_argument("--ruleset", nargs="*", default=list(qttt.builtin_names()))
    parser.add_argument("--peer", action="append", default=[], metavar="NAME=PATH",
                        help="a peer's checkout holding its qttt-bench-driver: java, cpp or node")
    parser.add_argument("--command-games", type=int, default=300_000,
                        help="games of each command run end to end (default 300000)")
    parser.add_argument("--process-games", type=int, default=2_000_000,
                        help="games of each sampler run, one process and every core (default 2000000)")
    args = parser.parse_args()
    reason = compiled.available()
    if reason is not None:
        print(f"compiled core: not measured: {reason}")
    print(f"one core, per ruleset{'':<27} {'games/CPU-s':>14} {'games/wall-s':>14}  ratio (CPU)")
    comp: dict[str, Rates] = {}
    for name in args.ruleset:
        rs = qttt.load_ruleset(name)
        params = reference.load_variant(name)
        print(name)
        fast = timed(times(partial(playout, rs), 50), args.seconds)
        api = timed(times(partial(state_api_game, rs), 50), args.seconds)
        base = timed(times(partial(reference.random_game, params), 50), args.seconds)
        if reason is None:
            comp[name] = timed(partial(batch, compiled.core_for(rs)), args.seconds)
            row("compiled core", comp[name], f"{comp[name][0] / fast[0]:.1f}x qttt.playout")
        row("qttt.playout", fast, f"{fast[0] / base[0]:.1f}x reference")
        row("State API loop", api, f"{api[0] / base[0]:.1f}x reference")
        row("reference model (baseline)", base, "1.0x")
    if reason is not None:
        return 0
    if "wikipedia" in comp:
        against_peers(args, comp["wikipedia"])
    processes(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
