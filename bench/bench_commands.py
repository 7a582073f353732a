"""Three commands end to end, as users run them, next to the compiled core's own loop for the same
work: games (records) per CPU-second and per wall-second, each against the same command on the
Python engine (`--core python`) measured in the same run.

    qttt random wikipedia -n N --seed 9 -o FILE         (JSON Lines records to a file)
    qttt analyze random bonus4x4 -n N --seed 9 --quiet  (the exact score table)
    qttt replay --json FILE > /dev/null                 (N records of wikipedia games)

The kernel line is the core's own loop in this process: `Core.jsonl` (records written in C),
`qc_sample` (games tallied in C), `Core.replay_jsonl` (records replayed and states written in C).
Each command runs as its own process (startup included) on one worker, then on every core
(`--workers 0`) where it has workers; its wall figure against one worker's is the scaling. CPU time
is the command's and its children's; the machine may be shared, so wall figures depend on its load
(printed). Targets (issue #25): `qttt random wikipedia` on one core at least 320,000 games per
CPU-second (bench_playouts.py compares it with the peers measured in its run); `qttt analyze
random bonus4x4` at least 1,000,000.

    python bench/bench_commands.py [--games N] [--python-games N] [--only random|analyze|replay]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_playouts import Rates, batch, command_rates, row, timed  # the timing of the peer comparison

from qttt import load_ruleset
from qttt.quantum.compiled import Core, core_for

RECORDS = 20_000  # records the replay kernel replays per call


class Command(NamedTuple):
    """A command measured end to end."""

    ruleset: str
    argv: list[str]  # without the game count, engine and workers
    size: str | None  # the option taking the game count (None: the input file holds them)
    workers: bool  # whether it takes --workers
    target: int | None  # games per CPU-second on one worker (issue #25), if any
    kernel: Callable[[Core, random.Random], int]  # the core's own loop for the same work


def records_kernel(core: Core, rng: random.Random) -> int:
    """20,000 random games written as records by the core (`Core.jsonl`, as `qttt random`)."""
    core.jsonl(rng, 20000, '{"variant":"wikipedia","actions":[', "]}\n")
    return 20000


def replay_kernel(text: bytes, core: Core, rng: random.Random) -> int:
    """The records of `text` replayed by the core (`Core.replay_jsonl`, as `qttt replay --json`)."""
    done = core.replay_jsonl(text, True, "wikipedia")
    assert done.stop == "end" and done.records == RECORDS, done[1:]
    return RECORDS


def commands(tmp: Path, games: int) -> dict[str, Command]:
    out, records = tmp / "games.jsonl", tmp / "records.jsonl"
    subprocess.run([sys.executable, "-m", "qttt", "random", "wikipedia", "-n", str(games), "--seed", "4",
                    "-o", str(records)], check=True)
    sample = b"".join(records.read_bytes().splitlines(keepends=True)[:RECORDS])
    return {
        "random": Command("wikipedia", ["random", "wikipedia", "--seed", "9", "-o", str(out)], "-n", True,
                          320_000, records_kernel),
        "analyze": Command("bonus4x4", ["analyze", "random", "bonus4x4", "--seed", "9", "--quiet"], "-n",
                           True, 1_000_000, batch),
        "replay": Command("wikipedia", ["replay", "--json", str(records)], None, True, None,
                          partial(replay_kernel, sample)),
    }


def run(key: str, cmd: Command, games: int, python_games: int, tmp: Path) -> None:
    """The kernel, the Python-engine baseline, and the command on one worker and on every core."""
    cores = os.cpu_count() or 1
    kernel = timed(partial(cmd.kernel, core_for(load_ruleset(cmd.ruleset))), 3.0)
    row(f"{key}: the core's loop on {cmd.ruleset} (in process)", kernel)

    def rates(n: int, *extra: str) -> Rates:
        argv = [*cmd.argv, *extra]
        if cmd.size is None:  # replay: the first n records of the file
            lines = (tmp / "records.jsonl").read_bytes().splitlines(keepends=True)[:n]
            (tmp / f"first{n}.jsonl").write_bytes(b"".join(lines))
            argv[argv.index(str(tmp / "records.jsonl"))] = str(tmp / f"first{n}.jsonl")
        else:
            argv += [cmd.size, str(n)]
        return command_rates(argv, n)

    one_worker = ("--workers", "1") if cmd.workers else ()
    base = rates(python_games, "--core", "python", *one_worker)
    row(f"{key}: Python engine{', 1 worker' if cmd.workers else ''} (baseline)", base, "1.0x")
    one = rates(games, *one_worker)
    met = "" if cmd.target is None else (
        f"; target {cmd.target:,}/CPU-s: {'met' if one[0] >= cmd.target else 'NOT met'}")
    row(f"{key}: compiled core{', 1 worker' if cmd.workers else ''}", one,
        f"{one[0] / base[0]:.1f}x CPU, {one[1] / base[1]:.1f}x wall; {one[0] / kernel[0]:.2f}x the loop{met}")
    if cmd.workers:
        every = rates(games, "--workers", "0")
        row(f"{key}: compiled core, {cores} workers", every,
            f"{every[1] / one[1]:.2f}x wall, {every[0] / one[0]:.2f}x CPU against 1 worker")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=2_000_000, help="games per compiled run (default 2000000)")
    ap.add_argument("--python-games", type=int, default=20_000,
                    help="games per Python-engine run, the baseline (default 20000)")
    ap.add_argument("--only", choices=("random", "analyze", "replay"), action="append",
                    help="measure only this command (repeatable)")
    args = ap.parse_args()
    print(f"commands end to end, games per second ({os.cpu_count() or 1} cores here; "
          f"load average {os.getloadavg()[0]:.2f} at the start)")
    print(f"  {'':<46} {'per CPU-second':>14} {'per wall-second':>14}  ratio")
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        for key, cmd in commands(tmp, max(args.games, args.python_games)).items():
            if args.only is None or key in args.only:
                run(key, cmd, args.games, args.python_games, tmp)
    print(f"  load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
