"""Every path that produces rules output besides the engine itself (a compiled core's entry points,
a fast writer or reader, a framework adapter), registered once: its name as reports give it, the
family whose checker compares it with the engine, the C entry points it covers and the comparison
the checker runs. `qttt check` runs every registered path that serves the ruleset and names each
in its report with what settled it; a path that is not registered is not checked, and
`tests/verify/test_paths.py` fails when a symbol some compiled core exports is covered by no
path (or listed in `UNCOMPARED`, with why).

Registering a path is one entry of `PATHS`:

    Path("compiled core: qc_jsonl (qttt random)", "quantum", "verify.quantum.fastpaths:jsonl", at="games",
         symbols=("qc_jsonl",), serves="verify.quantum.sampled:core_reason",
         settles="records byte for byte equal to the engine's records of the same games")

- `compare` names the comparison ("module:attribute", loaded when the checker runs it). Its
  arguments are the family checker's (`verify.quantum.fastpaths` says the quantum family's); `at`
  says when the checker calls it: "positions", on the positions it visits (sampled games and
  walks), or "games", once per ruleset on the seed and number of games it samples. A comparison
  runs its path in a child process (`verify.isolated.run`), so that a crash, an abort or a hang
  is a finding with the game that shows it.
- `serves` names a function of the ruleset giving None when the path plays it and else why not
  (left out: every ruleset of the family); a path that does not serve a ruleset is reported as not
  compared, with that reason.
- `symbols` are the C entry points the comparison reaches; together the paths must cover every
  symbol the family's compiled core exports (`exported`).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from qttt import Ruleset
from qttt.family import families, family_of, load


@dataclass(frozen=True)
class Path:
    """A registered path (see the module docstring)."""

    name: str
    family: str
    compare: str
    at: str = "positions"
    symbols: tuple[str, ...] = ()
    serves: str | None = None
    settles: str = ""

    def comparison(self) -> Callable[..., Any]:
        """The comparison function, loaded."""
        found: Callable[..., Any] = load(self.compare)
        return found

    def reason(self, rs: Ruleset) -> str | None:
        """None when the path serves rs (plays it here), else why not."""
        if self.serves is None:
            return None
        why: str | None = load(self.serves)(rs)
        return why


AT = ("positions", "games")
"""When a family's checker runs a path's comparison (see the module docstring)."""

PATHS: tuple[Path, ...] = (
    Path("compiled core: positions (qttt engine --core compiled)", "quantum",
         "verify.quantum.fastpaths:positions",
         symbols=("qc_new", "qc_free", "qc_pos_size", "qc_pos_init", "qc_apply", "qc_legal", "qc_export",
                  "qc_chance"),
         serves="verify.quantum.sampled:core_reason",
         settles="the position after the same actions (phase, move numbers, pending cycle, cell named, "
                 "player to act, marks, scores), a chance turn's outcomes with their probabilities, the "
                 "legal list, the rule refusing every other action, the position after each measurement, "
                 "chance outcome and game-ending placement"),
    Path("compiled core: qc_replay_jsonl (qttt replay --json)", "quantum",
         "verify.quantum.fastpaths:replay_json",
         symbols=("qc_replay_jsonl",), serves="verify.quantum.sampled:core_reason",
         settles="the state JSON written for the record of each position, finished or not, equal to the "
                 "engine's, the player to act included"),
    Path("compiled core: perft (qttt perft)", "quantum", "verify.quantum.fastpaths:perft",
         symbols=("qc_perft",), serves="verify.quantum.sampled:core_reason",
         settles="perft counts to depth 2 of the core and of the solver's build equal to the engine's"),
    Path("compiled core: solver (qttt analyze solve)", "quantum", "verify.quantum.fastpaths:solver",
         symbols=("qc_replay", "qc_score", "qc_search", "qc_table_new", "qc_table_free", "qc_table_nodes",
                  "qc_table_stored"),
         serves="verify.quantum.fastpaths:solver_reason",
         settles="the value under perfect play equal to the engine's minimax, and the board scored as it "
                 "stands, at positions with at most 4 open cells"),
    Path("compiled core: expectimax (qttt analyze solve and curve on chance rulesets)", "quantum",
         "verify.quantum.fastpaths:expectimax",
         symbols=("qc_evalue", "qc_etable_new", "qc_etable_free", "qc_etable_nodes", "qc_etable_stored",
                  "qc_edegree"),
         serves="verify.quantum.fastpaths:expectimax_reason",
         settles="the value's polynomial in p, at the ruleset's p, equal to the engine's expectimax (chance "
                 "turns weighted by their probabilities), at positions with at most 4 open cells"),
    Path("compiled core: position keys (qttt analyze solve's table, the walk's shape classes)", "quantum",
         "verify.quantum.fastpaths:keys", symbols=("qc_key", "qc_shape_key", "qc_child_keys"),
         serves="verify.quantum.sampled:core_reason",
         settles="the shape key of the position equal to the checker's own; at the start and at positions "
                 "with at most 4 open cells, also that of each legal action's position, and the solver's key "
                 "merging exactly the positions one action on that the engine's key merges (where the "
                 "solver plays the ruleset, or the 16-cell build's)"),
    Path("compiled core: qc_jsonl (qttt random)", "quantum", "verify.quantum.fastpaths:jsonl", at="games",
         symbols=("qc_jsonl",), serves="verify.quantum.sampled:core_reason",
         settles="records byte for byte equal to the engine's records of the same games"),
    Path("compiled core: qc_games (random games)", "quantum", "verify.quantum.fastpaths:games", at="games",
         symbols=("qc_games",), serves="verify.quantum.sampled:core_reason",
         settles="the same actions, final phase, scores and digest as the engine's games from the same "
                 "generator, left in the same state"),
    Path("compiled core: qc_sample (qttt analyze random)", "quantum", "verify.quantum.fastpaths:tally",
         at="games", symbols=("qc_sample",), serves="verify.quantum.sampled:core_reason",
         settles="the tally of final scores and line results equal to the engine's tally of the same games"),
    Path("OpenSpiel adapter: python_qttt (qttt.openspiel)", "quantum",
         "verify.quantum.adapters:openspiel_positions", serves="verify.frameworks:openspiel_reason",
         settles="the game's state at the same position (reached by apply_action from the last one): "
                 "terminal or not, the current player (the measurer at a measurement, chance at a chance "
                 "turn), legal_actions(), a chance turn's chance_outcomes() and chance_fractions(), every "
                 "other action or outcome number refused by apply_action under the rule with the state "
                 "unchanged (every number at one position in 32, a few in turn elsewhere), and the returns "
                 "at the end under returns=result, margin (both zero-sum) and points"),
    Path("PettingZoo adapter: qttt.pettingzoo.env", "quantum",
         "verify.quantum.adapters:pettingzoo_positions", serves="verify.frameworks:pettingzoo_reason",
         settles="the environment stepped through the same action numbers: terminations, the agent "
                 "selected (the measurer at a measurement), the action mask of the acting agent and an "
                 "empty one for the waiting agent, a chance turn's outcome drawn where its generator lands "
                 "and told in infos, every other number ending the game as a forfeit naming the rule "
                 "(every number at one position in 32, a few in turn elsewhere), and the rewards at the "
                 "end under returns=result, margin (both zero-sum) and points"),
    Path("nested compiled core: positions (qttt perft's and the search player's positions)",
         "nested-classical", "verify.nested.check:probe_positions",
         symbols=("qn_new", "qn_free", "qn_pos_size", "qn_pos_init", "qn_apply", "qn_legal", "qn_export",
                  "qn_marks"),
         serves="verify.nested.check:core_reason",
         settles="the v1 state (nested.family.core_state_json) after the same moves, the legal list, the "
                 "rule refusing every other cell, the state after each move, against the checker's model of "
                 "the rules, out of process (a crash or a hang is a violation)"),
    Path("nested compiled core: qn_games (qttt random's writer, qttt analyze random's tally)",
         "nested-classical", "verify.nested.check:writer_leaves", at="games", symbols=("qn_games",),
         serves="verify.nested.check:core_reason",
         settles="the games it writes for a seed are the rules' random games for the seed, move for move, "
                 "and its tally counts their final points and lengths"),
    Path("nested compiled core: qn_perft (qttt perft)", "nested-classical", "verify.nested.check:check_perft",
         at="games", symbols=("qn_perft",), serves="verify.nested.check:core_reason",
         settles="its counts from the start are the walk's counts of move sequences (once per walk)"),
    Path("nested compiled core: qn_load, qn_playout (the search player's rollouts)", "nested-classical",
         "verify.nested.check:check_rollouts", at="games", symbols=("qn_load", "qn_playout"),
         serves="verify.nested.check:core_reason",
         settles="a rollout from an engine state ends with the points of the same draws under the rules"),
)

UNCOMPARED: dict[str, str] = {
    s: "the checker's own walk by the compiled core (verify.quantum.exhaustive.core_process, in a child "
       "process), not rules output: every failure it finds is replayed by the engine, the engine checks a "
       "share of its classes with every registered path compared there, and its classes are held to the "
       "engine's walk in tests/verify/test_exhaustive.py"
    for s in ("qc_walk_table", "qc_walk_table_free", "qc_walk_size", "qc_walk_dump", "qc_walk_load",
              "qc_walk_process")}
"""Symbols of a compiled core that no registered path compares yet, with why: a gap the test
holds to exactly these symbols (a symbol covered by a path, or no longer exported, must leave)."""


def paths(family: str, at: str | None = None) -> tuple[Path, ...]:
    """The registered paths of a family (those called `at` when given), in registry order."""
    return tuple(p for p in PATHS if p.family == family and (at is None or p.at == at))


def serving(rs: Ruleset, at: str | None = None) -> tuple[tuple[Path, ...], dict[str, str]]:
    """The paths of rs's family that serve rs (called `at` when given), and why each other one
    does not, by name."""
    serve, skipped = [], {}
    for p in paths(family_of(rs).name, at):
        why = p.reason(rs)
        if why is None:
            serve.append(p)
        else:
            skipped[p.name] = why
    return tuple(serve), skipped


def covered() -> dict[str, list[str]]:
    """Each symbol the registered paths cover, with the names of the paths covering it."""
    out: dict[str, list[str]] = {}
    for p in PATHS:
        for s in p.symbols:
            out.setdefault(s, []).append(p.name)
    return out


def cores() -> dict[str, Any]:
    """Every family's compiled core module (its `core` tool), by family name."""
    return {f.name: load(f.tools["core"]) for f in families() if "core" in f.tools}


@cache
def exported(module: str) -> frozenset[str]:
    """The functions the built library of a core module exports (`nm -D`), or, where there is no
    nm, the functions its binding declares; empty when the core cannot be built here."""
    core = load(module)
    try:
        lib = core.library()
    except Exception:
        return frozenset()
    held = vars(lib)  # ctypes keeps the file as `_name` (documented) and each bound function by name
    nm = shutil.which("nm")
    if nm is None:
        return frozenset(name for name in held if not name.startswith("_"))
    out = subprocess.run([nm, "-D", "--defined-only", held["_name"]], capture_output=True, text=True,
                         check=True)
    return frozenset(parts[2] for line in out.stdout.splitlines()
                     if len(parts := line.split()) == 3 and parts[1] == "T")
