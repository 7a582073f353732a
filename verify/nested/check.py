"""The checker of a nested-classical ruleset: its invariants proved by Z3 over the checker's own
model of the rules (verify/nested/proofs.py), and both cores compared with that model
(verify.differential): the Python engine, and the compiled C core out of process (its positions,
its random-game writer behind `qttt random` and its tally behind `qttt analyze random`, its
perft, its rollouts), on walks of the ruleset on 2×2 blocks of 2×2 cells (every class of
positions the rules cannot tell apart) and on 3×3 blocks of 3×3 cells (to a depth), and on the
rules' random games of the real board.

A difference is a violation only with a game that is legal under the rules and on which a fresh
look shows the same difference again (`differential.confirm`)."""

from __future__ import annotations

import contextlib
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from typing import Any

from qttt import Ruleset, VariantError, load_ruleset, with_params
from qttt.family import Mark, family_of
from qttt.nested import compiled
from qttt.notation import action_to_json
from qttt.processes import Mapper, serial_mapper
from qttt.ruleset import check_scoring_game

from ..built import as_built
from ..claims import proof_part
from ..differential import (
    ENGINE,
    Core,
    CoreCheck,
    Expected,
    Failure,
    Probe,
    Result,
    Walk,
    check_core,
    confirm,
    diff,
    drawn_differently,
    first_confirmed,
    random_games,
    replay_games,
    walk_part,
)
from ..differential import walk as walk_classes
from ..isolated import Died, Isolated
from ..paths import Path as RegisteredPath
from ..paths import serving
from ..report import Confirmed, Finding, Part, Progress, Report, finding, one_unit
from . import probe as probes
from .model import Position, rules_of
from .proofs import points_range as rules_range
from .proofs import prove

CORE = "compiled core (C)"
WRITER = "compiled core's random-game writer (qttt random)"
TALLY = "compiled core's tally of random games (qttt analyze random)"
ROLLOUT = "compiled core's rollout (the search player's playouts)"
PERFT = "compiled core's perft (qttt perft)"
LEGAL, LENGTH, ONE, SCORES, CORES = ("nested-legal-move", "nested-termination", "nested-one-winner",
                                     "nested-scores-defined", "nested-cores-agree")
DEFAULT_DEPTH = 4  # plies of the 3×3 walk (the 2×2 walk is complete)
PERFT_DEPTH = 12  # plies of perft compared with a walk's count of move sequences
ROLLOUTS = 20
CORE_TIMEOUT = 10.0  # seconds a call to the core's child may take, plus a share per probe or game
CORE_PER_PROBE = 0.05  # the share per probe (Core.per_probe): a hung core is waited for this long


def default_games(rs: Ruleset) -> int:
    """The rules' random games of the real board, to which the engine's and the core's random
    games (their moves, their ends, the core's tally of them) are compared."""
    return 200 if rs.board <= 3 else 100


def probed_games(rs: Ruleset) -> int:
    """Of those, the games probed at every position (every cell tried): fewer on larger boards."""
    return 20 if rs.board <= 3 else 4


def points_range(rs: Ruleset, winner: bool) -> tuple[Fraction, Fraction]:
    """The fewest and the most points one player can get from the scoring components, in a won or
    an unwon game (proved to hold at every end: `proofs.score_claims`)."""
    return rules_range(rules_of(rs), winner)


def space(rs: Ruleset) -> tuple[Mark, ...]:
    """Every action tried at a position: each cell, and one off the board at either end."""
    return tuple(Mark(c) for c in range(-1, rs.board ** 4 + 1))


def relative(rs: Ruleset, board: int) -> Ruleset | None:
    """The same rules on a board of `board`×`board` blocks where they carry over (a route stated
    per position, or weights per block, do not); rs itself on its own board."""
    if board == rs.board:
        return rs
    if board > rs.board or rs.rules.route != "same":
        return None
    try:
        small = with_params(rs, board=board)
        check_scoring_game(small.scoring, small.rules, "parameters")
    except VariantError:
        return None
    return small


def core_reason(rs: Ruleset) -> str | None:
    """Why the compiled core does not play rs here, or None."""
    return compiled.supports(rs) or compiled.available()


@dataclass
class Checked:
    """Everything compared for one ruleset: the walks, the games, the failures (each with the
    variant of its game), and the first failure of the core's own paths (`extra`), which a rerun
    confirmed."""

    rs: Ruleset
    spec: str
    cores: bool
    walks: list[Walk] = field(default_factory=list)
    games: int = 0
    probed: Result | None = None
    rollouts: int = 0
    failures: list[tuple[str, Failure]] = field(default_factory=list)
    extra: Confirmed | None = None

    def path_failed(self, variant: str, actions: Sequence[Mark], shows: str) -> None:
        """A failure of one of the core's own paths, seen again on a rerun: a witness as it is."""
        if self.extra is None:
            record = {"variant": variant, "actions": [action_to_json(a) for a in actions]}
            self.extra = Confirmed(record, shows)


def _core(rs: Ruleset, variant: str, cores: bool) -> Core | None:
    if not cores or core_reason(rs) is not None:
        return None
    return Core(CORE, rs.canonical, variant, probes.observe, timeout=CORE_TIMEOUT, per_probe=CORE_PER_PROBE,
                isolated=Isolated(CORE_TIMEOUT))


def registered(rs: Ruleset, cores: bool) -> dict[str, RegisteredPath]:
    """The paths of the compiled core registered in `verify.paths` that serve rs (none without
    `cores`), by the name of their comparison here: only those are compared."""
    return {p.compare.rsplit(":", 1)[1]: p for p in serving(rs)[0]} if cores else {}


def probe_positions(core: Core, pending: list[tuple[Probe, Expected]]) -> list[Failure]:
    """The core's positions (registered path): its answers at probed positions against the model's,
    out of process (`differential.check_core`)."""
    return check_core(core, pending)


def _positions(paths: dict[str, RegisteredPath], core: Core | None) -> CoreCheck | None:
    if core is None or "probe_positions" not in paths:
        return None
    compare: CoreCheck = partial(paths["probe_positions"].comparison(), core)
    return compare


# Random games and the core's paths beyond its positions ------------------------------------------

Games = Sequence[tuple[tuple[Mark, ...], Position]]


def engine_leaves(rs: Ruleset, spec: str, seed: int, games: Games) -> Failure | None:
    """Where the engine's random games from `random.Random(seed)` (`family.playout`) first leave
    the rules' (moves, or the final state), or None."""
    family = family_of(rs)
    rng = random.Random(seed)
    for i, (want, end) in enumerate(games):
        try:
            moves, final = family.playout(rs, rng)
            got = family.state_to_json(final, spec)
        except Exception as e:  # the engine's own failure: a finding, with the rules' game
            return Failure(ENGINE, "draws", want, f"the engine's random game {i + 1} from seed {seed} "
                           f"raises {type(e).__name__}: {e}")
        if tuple(moves) != want:
            return drawn_differently(ENGINE, seed, i, moves, want)
        if got != end.state_json(spec):
            return Failure(ENGINE, "end", want, f"the engine's random game {i + 1} from seed {seed} ends "
                           f"elsewhere than the rules' game: {diff(got, end.state_json(spec))}")
    return None


def writer_leaves(rs: Ruleset, core: Core, seed: int, games: Games) -> Failure | None:
    """Where the core's random games from the seed (its writer's, read back, and its tally) first
    leave the rules', or None; a crash or a wrong count of games is a failure of its own."""
    count = len(games)
    got = core.call(probes.written, core.spec, seed, count, timeout=core.timeout + 0.1 * count)
    core.restart()  # each look in a fresh child
    if isinstance(got, Died):
        return Failure(WRITER, "path", (), f"the {WRITER} {got.how} writing {count} games from seed {seed}")
    played, points, shapes = got
    wrong = next((i for i, (theirs, (mine, _)) in enumerate(zip(played, games, strict=False))
                  if tuple(theirs) != mine), None)
    if wrong is not None:
        return drawn_differently(WRITER, seed, wrong, played[wrong], games[wrong][0])
    if len(played) != count:
        return Failure(WRITER, "path", (), f"the {WRITER} writes {len(played)} games from seed {seed} "
                       f"when asked for {count}")
    return tally_leaves(rs, [end for _, end in games], (points, shapes), seed)


def tally_leaves(rs: Ruleset, ends: Sequence[Position], tally: Any, seed: int) -> Failure | None:
    """Where the core's tally of its random games (games by final points, by moves and cells left
    empty) differs from the same games' ends under the rules, or None."""
    points = sorted(Counter((str(m.scores[0]), str(m.scores[1])) for m in ends).items())
    cells = rs.board ** 4
    shapes = sorted(Counter((m.move - 1, cells - m.move + 1) for m in ends).items())
    for what, got, want in (("final points", list(tally[0]), points),
                            ("game lengths", list(tally[1]), shapes)):
        if got != want:
            return Failure(TALLY, "path", (), f"the {TALLY} of {len(ends)} games from seed {seed} counts "
                           f"other {what} than the same games under the rules: {got[:4]} against {want[:4]}")
    return None


def real_games(rs: Ruleset, count: int, seed: int, core: Core | None, checked: Checked
               ) -> tuple[list[tuple[Mark, ...]], list[Failure]]:
    """The rules' random games of the real board from `random.Random(seed)` (`random_games`); the
    engine's own random games from the seed and the core's writer's (behind `qttt random`) must
    be the same games, move for move, ending in the same states and tallied alike (`qttt analyze
    random`). A difference is reported when a second look (for the core: in a fresh child) sees
    it again. The games, and the differences of the engine's and the writer's games."""
    games = random_games(Position.start(rules_of(rs)), random.Random(seed), count)
    looks: list[Callable[[], Failure | None]] = [lambda: engine_leaves(rs, checked.spec, seed, games)]
    writer = registered(rs, checked.cores).get("writer_leaves")
    if core is not None and writer is not None:
        looks.append(lambda: writer.comparison()(rs, core, seed, games))
    found = []
    for look in looks:
        first = look()
        if first is not None and look() == first:
            if first.kind == "path":
                checked.path_failed(checked.spec, first.path, first.shows)
            else:
                found.append(first)
    return [moves for moves, _ in games], found


def check_perft(walked: Walk, core: Core | None, checked: Checked) -> None:
    """The core's perft from the start against the walk's count of move sequences per ply."""
    res = walked.result
    depth = min(len(res.sequences_by_ply) - 1, PERFT_DEPTH)
    if core is None or depth < 1:
        return
    want = res.sequences_by_ply[1:depth + 1]
    got = core.call(probes.perft, walked.ruleset, (), depth, timeout=core.timeout * 3)
    if isinstance(got, Died):
        checked.path_failed(walked.ruleset, [], f"the {PERFT} {got.how} counting to depth {depth}")
        return
    walked.perft = f"perft to depth {depth} from the start: {want[-1]} sequences"
    if list(got) != list(want):
        d = next(i for i, (a, b) in enumerate(zip(got, want, strict=True)) if a != b)
        checked.path_failed(walked.ruleset, [], f"the {PERFT} counts {got[d]} sequences of {d + 1} moves "
                            f"from the start; the rules allow {want[d]}")


def check_rollouts(rs: Ruleset, games: Sequence[Sequence[Mark]], seed: int, core: Core | None,
                   checked: Checked) -> None:
    """The core's rollouts from positions of the games (a third of the way in) against the model
    played out with the same draws (the legal move at index int(random() × count), by cell):
    the same final points."""
    if core is None:
        return
    paths = [tuple(g[:len(g) // 3]) for g in games[:ROLLOUTS]]
    got = core.call(probes.rollouts, core.spec, paths, seed, timeout=core.timeout + len(paths))
    if isinstance(got, Died):
        checked.path_failed(checked.spec, paths[0] if paths else [], f"the {ROLLOUT} {got.how}")
        return
    checked.rollouts = len(paths)
    rng = random.Random(seed)
    for path, points in zip(paths, got, strict=True):
        m = Position.start(rules_of(rs))
        for a in path:
            m = m.play(a)
        while not m.over:
            legal = m.legal()
            m = m.play(legal[int(rng.random() * len(legal))])
        want = (str(m.scores[0]), str(m.scores[1]))
        if tuple(points) != want:
            checked.path_failed(checked.spec, path, f"the {ROLLOUT} from here ends x {points[0]}, "
                                f"o {points[1]}; the same draws under the rules end x {want[0]}, o {want[1]}")
            return


# Walks ---------------------------------------------------------------------------------------------


def run_walks(rs: Ruleset, checked: Checked, max_ply: int | None, timeout: float,
              say: Callable[[str], None]) -> None:
    """The walks of rs on 2×2 and 3×3 blocks where its rules carry over (`relative`), each with
    its merging of positions proved sound (Z3, `timeout` a query)."""
    family = family_of(rs)
    for board in (2, 3):
        small = relative(rs, board)
        if small is None:
            continue
        variant = small.canonical
        depth = None if board == 2 else (max_ply if max_ply is not None else DEFAULT_DEPTH)
        core = _core(small, variant, checked.cores)
        paths = registered(small, checked.cores)
        try:
            told = partial(_told, say, variant)
            res = walk_classes(Position.start(rules_of(small)), family.initial(small), family, variant,
                               space(small), _positions(paths, core), depth, told)
            walked = Walk(variant, res, depth)
            if "check_perft" in paths:
                paths["check_perft"].comparison()(walked, core, checked)
        finally:
            if core is not None:
                core.close()
        for claims in ("merge", "symmetry"):
            settled = prove(small, claims, timeout)
            if settled.status != "proved" and not walked.merging:
                walked.merging = f"the {claims} claims are {settled.status}: {settled.failed} {settled.model}"
        if res.merge_errors and not walked.merging:
            walked.merging = f"positions merged into one class differ: {res.merge_errors[0]}"
        checked.walks.append(walked)
        checked.failures += [(variant, f) for f in res.failures]


def run_games(rs: Ruleset, checked: Checked, count: int, seed: int) -> None:
    """The rules' random games of the real board: every source of random games compared with them,
    the first probed at every position by both cores."""
    family = family_of(rs)
    core = _core(rs, checked.spec, checked.cores)
    paths = registered(rs, checked.cores)
    try:
        played, drawn = real_games(rs, count, seed, core, checked)
        checked.probed = replay_games(Position.start(rules_of(rs)), family.initial(rs), family, checked.spec,
                                      space(rs), _positions(paths, core), played[:probed_games(rs)])
        checked.games = len(played)
        # the probed positions' differences first: they name the position where a core leaves the rules
        checked.failures += [(checked.spec, f) for f in [*checked.probed.failures, *drawn]]
        if "check_rollouts" in paths:
            paths["check_rollouts"].comparison()(rs, played, seed, core, checked)
    finally:
        if core is not None:
            core.close()


def _told(say: Callable[[str], None], variant: str, text: str) -> None:
    say(f"walk of {variant}: {text}")


# Findings ------------------------------------------------------------------------------------------

KINDS = {LEGAL: ("no-move",), CORES: ("state", "legal", "no-move", "after", "refuses", "accepts", "refusal",
                                       "replay", "crash", "draws", "end")}


def witness(checked: Checked, prop: str) -> Confirmed | None:
    """The first failure of prop's kinds that a fresh look confirms (walks first: shortest games);
    then a failure of the core's other paths."""
    def again(variant: str, f: Failure) -> Confirmed | None:
        rs = load_ruleset(variant)
        family = family_of(rs)
        return confirm(Position.start(rules_of(rs)), family.initial(rs), family, variant, space(rs), f,
                       lambda: _core(rs, variant, checked.cores))

    found = first_confirmed(checked.failures, KINDS.get(prop, ()), again)
    return found or (checked.extra if prop == CORES else None)


def rule_finding(rs: Ruleset, checked: Checked, prop: str, names: Sequence[str], what: str, method: str,
                 timeout: float) -> Finding:
    """A rule property: the Z3 claims `names` over the model; violated only by a core's game."""
    part, details, seconds = proof_part([(n, prove(rs, n, timeout)) for n in names], what)
    return finding(prop, [part], method, seconds, witness(checked, prop), details)


def cores_finding(checked: Checked, reason: str | None, seconds: float,
                  refused: str | None = None) -> Finding:
    """Both cores against the model: the walks, the games of the real board, the core's paths
    (`refused`: why the core's load-time self-test refused it, which leaves the property unknown
    whatever the comparison of the core as built found)."""
    parts: list[Part] = [walk_part(w) for w in checked.walks]
    parts += [("error", f"checker error (the walk of {w.ruleset} merged positions unsoundly: {w.merging})")
              for w in checked.walks if w.merging]
    probed = checked.probed.positions if checked.probed else 0
    if checked.games:
        parts.append(("sampled", f"sampled ({checked.games} games of the real board, {probed} positions of "
                                 "them probed)"))
    if reason is not None:
        parts.append(("unknown", f"unknown (the compiled core was not compared: {reason})"))
    if refused is not None:  # the commands play the Python engine instead: say why, whatever else
        parts.append(("unknown", f"unknown (the compiled core's load-time self-test refuses it, so the "
                                 f"commands play the Python engine: {refused}; compared as built)"))
    if not parts:
        parts.append(("unknown", "unknown (nothing was compared: no walk and no games)"))
    what = []
    for w in checked.walks:
        extent = "every reachable class" if w.result.complete else f"every class to ply {w.max_ply}"
        perft = f"; {w.perft}" if w.perft else ""
        what.append(f"{extent} of {w.ruleset} ({w.result.positions} classes{perft})")
    if checked.games:
        sources = "the engine's and the core's writer's random games for the seed must be them" \
            if reason is None else "the engine's random games for the seed must be them"
        what.append(f"the rules' {checked.games} random games of the real board ({sources}, with the same "
                    f"ends), {probed} positions of the first of them probed")
    compared = ENGINE + ("" if reason is not None else f" and the {CORE}")
    method = (f"the {compared} against the checker's model of the rules (verify/nested/model.py): at "
              "each probed position its v1 state, the legal moves, the refusal of every other cell (and one "
              "off the board at either end) under the rule nested-check-order names, the position after each "
              "move: " + "; ".join(what) + ". One position per class is probed, every move out of it "
              "compared: the positions of a class differ by a symmetry of the rules, in the cells of closed "
              "blocks or in the move numbers of marks, none of which the rules read (Z3: merge and symmetry "
              "claims)")
    if reason is None:
        method += (f"; the core runs out of process (a crash or a hang is a violation); its tally of the "
                   f"random games, its perft and its rollouts from {checked.rollouts} positions give the "
                   "rules' counts and points")
    details: dict[str, Any] = {"walks": [
        {"ruleset": w.ruleset, "complete": w.result.complete, "max_ply": w.max_ply,
         "classes": w.result.positions, "moves": w.result.transitions,
         "classes_by_ply": w.result.classes_by_ply, "perft": w.perft, "seconds": round(w.result.seconds, 3)}
        for w in checked.walks]}
    if checked.games:
        details["games"] = {"games": checked.games, "probed_positions": probed, "rollouts": checked.rollouts}
    return finding(CORES, parts, method, seconds, witness(checked, CORES), details)


METHODS = {
    LEGAL: "Z3 over the checker's model of the rules: at every position satisfying the invariant (an "
           "open block has an empty cell and no complete pattern; until the end some block is open and "
           "nobody owns a pattern of blocks) some cell is allowed, per position of the previous cell; the "
           "empty board satisfies it and every move keeps it, per position of the moved cell in its block "
           "and per block. A core listing no move before the end is a violation the comparison finds",
    LENGTH: "Z3 over the model: every cell the rules allow is an empty cell of an open block, and a move "
            "fills exactly one empty cell, so no game has more moves than the board has cells",
    ONE: "Z3 over the model: after a move the other player completes no pattern in the block moved in and "
         "owns no board pattern of blocks, so at most one player completes a pattern and a won game has one "
         "winner",
    SCORES: "Z3 over the model: every end is won by x, won by o, or has every block closed without a "
            "pattern of blocks (exactly one); the loser of a won game scores nothing; each player's points "
            "lie in the range the scoring components allow",
}


def check_nested(spec: str, *, mapper: Mapper = serial_mapper, progress: Progress | None = None,
                 **options: Any) -> Report:
    """`settle_nested` of the ruleset named by spec as one unit of work on mapper (`one_unit`)."""
    return one_unit(settle_nested, spec, mapper, progress, options)


def settle_nested(spec: str, *, games: int | None = None, seed: int = 0, progress: Progress | None = None,
                 timeout: float = 60.0, exhaustive: bool | None = None, max_ply: int | None = None,
                 cores: bool = True, **options: object) -> Report:
    """Settle the nested-classical properties of the ruleset named by spec. The walks run unless
    `exhaustive` is False (--no-walk), the 3×3 one to `max_ply` (default DEFAULT_DEPTH) plies;
    `games` random games of the real board (default `default_games`); with `cores`, the compiled
    core is compared wherever it plays the ruleset, as its source builds it even where its
    load-time self-test refuses it (`verify.built.as_built`). The quantum checker's other options
    (processes, checkpoint) have nothing to do here."""
    with as_built(compiled) if cores else contextlib.nullcontext() as refused:
        return _settle(spec, games, seed, progress, timeout, exhaustive, max_ply, cores, refused)


def _settle(spec: str, games: int | None, seed: int, progress: Progress | None, timeout: float,
            exhaustive: bool | None, max_ply: int | None, cores: bool, refused: str | None) -> Report:
    """`check_nested`'s work, `refused` saying why the core's self-test refused it (None: it did not)."""
    rs = load_ruleset(spec)
    say: Callable[[str], None] = progress or (lambda _: None)
    reason = core_reason(rs) if cores else "not asked for"
    checked = Checked(rs, spec, reason is None)
    started = time.perf_counter()
    if exhaustive is not False:
        run_walks(rs, checked, max_ply, timeout, say)
    count = games if games is not None else default_games(rs)
    t = time.perf_counter()
    if count:
        say(f"{count} games of the real board")
        run_games(rs, checked, count, seed)
    sampled = time.perf_counter() - t
    compared = time.perf_counter() - started
    say("Z3")
    cells = rs.board ** 4
    won, unwon = points_range(rs, True), points_range(rs, False)
    span = f" (won games {won[0]}..{won[1]}, others {unwon[0]}..{unwon[1]})"
    findings = [
        rule_finding(rs, checked, LEGAL, ("legal-move", "block", "board"),
                     f"every position of the {cells} cells satisfying the invariant, which the start and "
                     "every move keep", METHODS[LEGAL], timeout),
        rule_finding(rs, checked, LENGTH, ("legal-move", "block"),
                     f"every allowed cell is empty, every move fills one of the {cells}", METHODS[LENGTH],
                     timeout),
        rule_finding(rs, checked, ONE, ("block", "board"), "only the mover completes a pattern", METHODS[ONE],
                     timeout),
        rule_finding(rs, checked, SCORES, ("board", "scores"), "every end has one result and points in range",
                     METHODS[SCORES] + span, timeout),
        cores_finding(checked, reason, compared, refused),
    ]
    served, skipped = serving(rs) if cores else ((), {})
    named = "; ".join([ENGINE, *(p.name for p in served),
                       *(f"not compared: {n} ({why})" for n, why in skipped.items())])
    if not cores:
        named += f"; not compared: the {CORE} (not asked for)"
    return Report(spec, rs.name, rs.canonical, rs.board ** 2, findings, checked.games, sampled, None,
                  named + "; each against the checker's model of the rules")
