"""Every path that produces rules output besides the engine itself (a compiled core's entry points,
a fast writer or reader, a framework adapter), registered once: its name as reports give it, the
family whose checker compares it with the engine, the C entry points it covers and the comparison
the checker runs. `qttt check` runs every registered path that serves the ruleset and names each
in its report with what settled it; a path that is not registered is not checked, and
`tests/verify/test_paths.py` fails when a symbol some compiled core exports is covered by no
path (or listed in `UNCOMPARED`, with why).

Registering a path is one entry of `PATHS`:

    Path("compiled core: qc_jsonl (qttt random)", "quantum", "verify.quantum.fastpaths:jsonl",
         symbols=("qc_jsonl",), serves="verify.quantum.sampled:core_reason",
         settles="records byte for byte equal to the engine's records of the same games")

- `compare` names the comparison ("module:attribute", loaded when the checker runs it). Its
  arguments are the family checker's (`verify.quantum.sampled` says the quantum family's); `at`
  says when the checker calls it: "positions", on the positions it visits (sampled games and
  walks), or "games", once per ruleset on the seed and number of games it samples.
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
    Path("compiled core: positions (qttt engine --core compiled, qttt perft's positions)", "quantum",
         "verify.quantum.sampled:compare_cores",
         symbols=("qc_new", "qc_free", "qc_pos_size", "qc_pos_init", "qc_apply", "qc_legal", "qc_export",
                  "qc_chance"),
         serves="verify.quantum.sampled:core_reason",
         settles="the position after the same actions (phase, move numbers, pending cycle, cell named, "
                 "player to act, marks, scores), a chance turn's outcomes with their probabilities, the "
                 "legal list, the rule refusing every other action, the position after each measurement, "
                 "chance outcome and game-ending placement"),
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
    **{s: "the quantum core's fast paths are not yet compared with the engine (issue 30)"
       for s in ("qc_jsonl", "qc_replay_jsonl", "qc_perft", "qc_games", "qc_sample", "qc_replay", "qc_score",
                 "qc_search", "qc_table_new", "qc_table_free", "qc_table_nodes", "qc_table_stored")},
    **{s: "the expectimax of chance rulesets (qttt analyze solve, qttt analyze curve): values, which qttt "
          "check does not compute; compared with the Python expectimax and with an independent expectimax "
          "over the reference model in tests/analysis/test_expectimax.py"
       for s in ("qc_evalue", "qc_etable_new", "qc_etable_free", "qc_etable_nodes", "qc_etable_stored",
                 "qc_edegree")},
    "qc_key": "the solver's key (qttt analyze solve), which qttt check does not run; compared with the "
              "Python keys in tests/project/test_position_state.py",
    **{s: "the walk's shape keys, not yet used by qttt check; compared with the Python shape key in "
          "tests/project/test_position_state.py" for s in ("qc_shape_key", "qc_child_keys")},
}
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
