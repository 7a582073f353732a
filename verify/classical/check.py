"""The checker of a classical ruleset (n×n tic-tac-toe, k in a row): its invariants proved by Z3
over the checker's own model of the rules (verify/classical/proofs.py), and the engine compared
with that model (verify.differential) on walks (every class of positions of the 3×3 board with the
same k, and of the real board, completely up to 3×3, to a depth above) and on random games of the
real board. The family has no compiled core.

A difference is a violation only with a game legal under the rules on which a fresh replay of the
engine shows it again."""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from qttt import Ruleset, VariantError, load_ruleset, with_params
from qttt.family import Mark, family_of
from qttt.processes import Mapper, serial_mapper

from ..claims import proof_part
from ..differential import (
    ENGINE,
    Failure,
    Result,
    Walk,
    confirm,
    drawn_differently,
    first_confirmed,
    random_games,
    replay_games,
    walk_part,
)
from ..differential import walk as walk_classes
from ..report import Confirmed, Finding, Part, Progress, Report, finding, one_unit
from .model import Position, rules_of
from .proofs import prove

LEGAL, LENGTH, ONE, SCORES, AGREES = ("classical-legal-move", "classical-termination", "classical-one-winner",
                                      "classical-scores-defined", "classical-engine-agrees")
DEFAULT_DEPTH = 6  # plies of the walk of a board above 3×3
PROBED = 50  # random games probed at every position


def default_games(rs: Ruleset) -> int:
    """The rules' random games of the real board, to which the engine's random games are compared."""
    return 500


def space(rs: Ruleset) -> tuple[Mark, ...]:
    """Every action tried at a position: each cell, and one off the board at either end."""
    return tuple(Mark(c) for c in range(-1, rs.board ** 2 + 1))


def boards(rs: Ruleset) -> list[Ruleset]:
    """The rulesets walked: the same k on 3×3 when the board is larger and k fits, and rs itself."""
    out = []
    if rs.board > 3:
        with contextlib.suppress(VariantError):  # k does not fit a 3×3 board
            out.append(with_params(rs, board=3))
    return [*out, rs]


def check_classical(spec: str, *, mapper: Mapper = serial_mapper, progress: Progress | None = None,
                    **options: Any) -> Report:
    """`settle_classical` of the ruleset named by spec as one unit of work on mapper (`one_unit`)."""
    return one_unit(settle_classical, spec, mapper, progress, options)


def settle_classical(spec: str, *, games: int | None = None, seed: int = 0, progress: Progress | None = None,
                    timeout: float = 60.0, exhaustive: bool | None = None, max_ply: int | None = None,
                    **options: object) -> Report:
    """Settle the classical properties of the ruleset named by spec: the walks unless `exhaustive`
    is False (--no-walk), a board above 3×3 to `max_ply` (default DEFAULT_DEPTH) plies; `games`
    random games of the real board (default `default_games`). The quantum checker's other options
    have nothing to do here."""
    rs = load_ruleset(spec)
    say: Callable[[str], None] = progress or (lambda _: None)
    family = family_of(rs)
    failures: list[tuple[str, Failure]] = []
    walks: list[Walk] = []
    started = time.perf_counter()
    if exhaustive is not False:
        for board in boards(rs):
            variant = board.canonical if board is not rs else spec
            depth = None if board.board <= 3 else (max_ply if max_ply is not None else DEFAULT_DEPTH)
            told = partial(_told, say, variant)
            res = walk_classes(Position.start(rules_of(board)), family.initial(board), family, variant,
                               space(board), None, depth, told)
            settled = prove(board, "symmetry", timeout)
            w = Walk(board.canonical, res, depth)
            if settled.status != "proved":
                w.merging = f"the symmetry claims are {settled.status}: {settled.failed}"
            elif res.merge_errors:
                w.merging = f"positions merged into one class differ: {res.merge_errors[0]}"
            walks.append(w)
            failures += [(variant, f) for f in res.failures]
    count = games if games is not None else default_games(rs)
    t = time.perf_counter()
    probed: Result | None = None
    if count:
        say(f"{count} random games of the real board")
        played = compare_random_games(rs, spec, count, seed, failures)
        probed = replay_games(Position.start(rules_of(rs)), family.initial(rs), family, spec, space(rs), None,
                              played[:PROBED])
        failures += [(spec, f) for f in probed.failures]
    sampled = time.perf_counter() - t
    compared = time.perf_counter() - started

    def witness(kinds: Sequence[str]) -> Confirmed | None:
        def again(variant: str, f: Failure) -> Confirmed | None:
            board = load_ruleset(variant)
            return confirm(Position.start(rules_of(board)), family_of(board).initial(board), family_of(board),
                           variant, space(board), f, lambda: None)
        return first_confirmed(failures, kinds, again)

    def rule(prop: str, names: Sequence[str], what: str, method: str) -> Finding:
        part, details, seconds = proof_part([(n, prove(rs, n, timeout)) for n in names], what)
        return finding(prop, [part], method, seconds, witness(("no-move",) if prop == LEGAL else ()), details)

    cells = rs.board ** 2
    say("Z3")
    findings = [
        rule(LEGAL, ("legal-move",), f"every position of the {cells} cells with no line and an empty cell",
             "Z3 over the checker's model of the rules: a position with no line of either player and an "
             "empty cell allows a move (and only empty cells). The engine listing no move before the end is "
             "a violation the comparison finds"),
        rule(LENGTH, ("legal-move", "move"), f"every move fills one of the {cells} cells",
             f"Z3 over the model: every allowed cell is empty and a move fills exactly one, so no game has "
             f"more than {cells} moves"),
        rule(ONE, ("move",), "only the mover completes a line",
             "Z3 over the model: after a move the other player completes no line, so a won game has one "
             "winner"),
        rule(SCORES, ("scores",), "every end has one result and its points",
             "Z3 over the model: every end is won by x, won by o, or a full board without a line (exactly "
             "one); the points are 1 and 0, or 1/2 each"),
        agrees_finding(walks, probed, count, witness(KINDS), compared),
    ]
    return Report(spec, rs.name, rs.canonical, rs.board, findings, count, sampled, None,
                  f"{ENGINE} (the family has no compiled core), against the checker's model of the rules")


def _told(say: Callable[[str], None], variant: str, text: str) -> None:
    say(f"walk of {variant}: {text}")


KINDS = ("state", "legal", "no-move", "after", "refuses", "accepts", "refusal", "replay", "draws", "end")


def compare_random_games(rs: Ruleset, spec: str, count: int, seed: int,
                         failures: list[tuple[str, Failure]]) -> list[tuple[Mark, ...]]:
    """The rules' random games from `random.Random(seed)`; the engine's own random games from the
    seed (`family.playout`, behind `qttt random`) must be the same games, ending alike."""
    games = random_games(Position.start(rules_of(rs)), random.Random(seed), count)
    family = family_of(rs)
    rng = random.Random(seed)
    for i, (want, end) in enumerate(games):
        moves, final = family.playout(rs, rng)
        if tuple(moves) != want:
            failures.append((spec, drawn_differently(ENGINE, seed, i, moves, want)))
            break
        if family.state_to_json(final, spec) != end.state_json(spec):
            failures.append((spec, Failure(ENGINE, "end", want, f"the engine's random game {i + 1} from seed "
                                           f"{seed} ends in another position than the rules give")))
            break
    return [moves for moves, _ in games]


def agrees_finding(walks: Sequence[Walk], probed: Result | None, count: int, witness: Confirmed | None,
                   seconds: float) -> Finding:
    parts: list[Part] = [walk_part(w) for w in walks]
    parts += [("error", f"checker error (the walk of {w.ruleset} merged positions unsoundly: {w.merging})")
              for w in walks if w.merging]
    if probed is not None:
        parts.append(("sampled", f"sampled ({count} random games of the real board, {probed.positions} "
                                 "positions of them probed)"))
    if not parts:
        parts.append(("unknown", "unknown (nothing was compared: no walk and no games)"))
    what = [("every reachable class" if w.result.complete else f"every class to ply {w.max_ply}")
            + f" of {w.ruleset} ({w.result.positions} classes)" for w in walks]
    if probed is not None:
        what.append(f"{count} random games of the real board (the engine's own for the seed must be the "
                    f"same), {probed.positions} positions of the first {min(count, PROBED)} probed")
    method = ("the engine against the checker's model of the rules (verify/classical/model.py): at each "
              "probed position its v1 state, the legal moves, the refusal of every other cell (and one off "
              "the board at either end) under the rule the model names, the position after each move: "
              + "; ".join(what) + ". One position per class is probed, every move out of it compared: "
              "positions of a class are images of each other under a symmetry of the square that maps lines "
              "onto lines (Z3: symmetry claims)")
    details: dict[str, Any] = {"walks": [
        {"ruleset": w.ruleset, "complete": w.result.complete, "max_ply": w.max_ply,
         "classes": w.result.positions, "moves": w.result.transitions,
         "classes_by_ply": w.result.classes_by_ply,
         "seconds": round(w.result.seconds, 3)} for w in walks]}
    return finding(AGREES, parts, method, seconds, witness, details)
