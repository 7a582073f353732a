"""Two commands end to end, as users run them: games per CPU-second and per wall-second, each
against the same command on the Python engine (`--core python`) measured in the same run.

    qttt random wikipedia -n N --seed 9 -o FILE        (JSON Lines records to a file)
    qttt analyze random bonus4x4 -n N --seed 9 --quiet (the exact score table)

The compiled core's own loop (`qc_sample` in this process) is measured first, the pace the
commands aim at. Each command runs as its own process (startup included) on one worker, then on
every core (`--workers 0`), whose wall figure against one worker's is the scaling; CPU time is the
command's and its children's. Targets (issue #25): `qttt random wikipedia` on one core at least
320,000 games per CPU-second; `qttt analyze random bonus4x4` at least 1,000,000.

    python bench/bench_commands.py [--games N] [--python-games N]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_playouts import batch, command_rates, row, timed  # the same timing as the peer comparison

from qttt import load_ruleset
from qttt.quantum.compiled import core_for

TARGETS = {"random": 320_000, "analyze": 1_000_000}


def commands(out: Path) -> dict[str, tuple[str, list[str]]]:
    """Each command's key, ruleset and arguments (the game count and engine are added)."""
    return {
        "random": ("wikipedia", ["random", "wikipedia", "--seed", "9", "-o", str(out)]),
        "analyze": ("bonus4x4", ["analyze", "random", "bonus4x4", "--seed", "9", "--quiet"]),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=2_000_000, help="games per compiled run (default 2000000)")
    ap.add_argument("--python-games", type=int, default=20_000,
                    help="games per Python-engine run, the baseline (default 20000)")
    args = ap.parse_args()
    cores = os.cpu_count() or 1
    print(f"commands end to end, games per second ({cores} cores here)")
    print(f"  {'':<46} {'per CPU-second':>14} {'per wall-second':>14}  ratio")
    with tempfile.TemporaryDirectory() as tmp:
        for key, (name, argv) in commands(Path(tmp) / "games.jsonl").items():
            core = core_for(load_ruleset(name))
            kernel = timed(partial(batch, core), 3.0)
            row(f"{key}: the core's loop on {name} (in process)", kernel)
            base = command_rates([*argv, "-n", str(args.python_games), "--core", "python", "--workers", "1"],
                                 args.python_games)
            row(f"{key}: Python engine, 1 worker (baseline)", base, "1.0x")
            one = command_rates([*argv, "-n", str(args.games), "--workers", "1"], args.games)
            row(f"{key}: compiled core, 1 worker", one,
                f"{one[0] / base[0]:.1f}x CPU, {one[1] / base[1]:.1f}x wall; {one[0] / kernel[0]:.2f}x the "
                f"loop; target {TARGETS[key]:,}/CPU-s: {'met' if one[0] >= TARGETS[key] else 'NOT met'}")
            every = command_rates([*argv, "-n", str(args.games), "--workers", "0"], args.games)
            row(f"{key}: compiled core, {cores} workers", every,
                f"{every[1] / one[1]:.2f}x wall against 1 worker")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
