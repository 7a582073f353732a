"""The referee of `qttt match`: one game between two seats under the ruleset's clocks and
forfeit score (rules match-clock, match-forfeit).

A seat is whoever plays a side: a built-in player, a program speaking the engine protocol
(`go`, spec/protocol.md), a CodeCup 2012 bot (qttt.quantum.codecup) or a person at the terminal. The
referee keeps the only authoritative state; a seat proposes actions and is told every action
played. Whatever a seat does wrong ends the game at once as a forfeit with a reason.
"""

from __future__ import annotations

import json
import random
import re
import shlex
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol

from ..chance import CHANCE, draw
from ..errors import IllegalAction, MatchError, RecordError
from ..family import AnyAction, GameState, family_of
from ..games import new_game
from ..io import FRACTION as FRACTION_TEXT
from ..jsonstream import loads
from ..notation import Record, action_from_json, action_to_json, record_from_json, record_to_json
from ..players import PLAYERS, Player, SearchPlayer
from ..processes import ChannelClosed, LineChannel
from ..ruleset import Ruleset

FORFEIT_KINDS = ("illegal", "timeout", "crash", "garbage", "protocol", "resigned")
ACK_SECONDS = 5.0  # time for an engine to answer hello, new and apply (spec/protocol.md)
STDERR_KEPT = 1_000_000  # characters of a program's standard error kept per game


class Forfeit(Exception):
    """A seat broke the match rules; `kind` is one of FORFEIT_KINDS."""

    def __init__(self, kind: str, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.kind, self.message, self.rule = kind, message, rule
        self.side: str | None = None
        self.line: str | None = None  # the seat's raw answer line, when it wrote one


@dataclass(frozen=True)
class Clock:
    """Time limits in seconds (None: no limit), rule match-clock."""

    move: float | None = None
    game: float | None = None

    @classmethod
    def of(cls, rs: Ruleset, move: float | None = None, game: float | None = None) -> Clock:
        """The ruleset's [match] clocks, overridden by the given ones (0: no limit)."""
        m = float(rs.match.move_seconds) if move is None else move
        g = float(rs.match.game_seconds) if game is None else game
        return cls(m or None, g or None)

    def to_json(self, ack: float) -> dict[str, float | None]:
        """The clock in effect as a record keeps it: seconds, null for no limit."""
        return {"move_seconds": self.move, "game_seconds": self.game, "ack_seconds": ack}

    def limit(self, used: float) -> float | None:
        """Time allowed for the next action after `used` seconds of this player's game."""
        left = [t for t in (self.move, None if self.game is None else max(self.game - used, 0.0))
                if t is not None]
        return min(left) if left else None


class Seat(Protocol):
    """One side's player as the referee sees it."""

    name: str
    clocked: bool  # whether the clocks apply (not to people at the terminal)
    last_line: str | None  # the raw line the seat's program last wrote (None: none, or no program)
    stderr: str  # what the seat's program wrote on standard error this game ("" without a program)

    @property
    def notation(self) -> Callable[[AnyAction], str] | None:
        """How the seat's own program writes actions (the CodeCup letters), or None: squares from 1."""
        ...

    def start(self, variant: str, side: str) -> None:
        """Get ready for a new game of `variant`, playing `side`."""
        ...

    def choose(self, state: GameState, limit: float | None, remaining: dict[str, float | None]) -> AnyAction:
        """An action for the side to move, within `limit` seconds; Forfeit on failure."""
        ...

    def observe(self, action: AnyAction, after: GameState) -> None:
        """`action` was played (by either side), giving `after`."""
        ...

    def close(self, final: GameState) -> None:
        """The game is over (or abandoned); release the seat."""
        ...


@dataclass
class GameResult:
    """A refereed game: its record, who played, the points and how it ended."""

    record: Record
    players: dict[str, str]
    scores: dict[str, Fraction]
    end: str  # over, forfeit, deadlock
    forfeit: Forfeit | None = None
    seconds: dict[str, float] = field(default_factory=dict)
    clock: dict[str, float | None] = field(default_factory=dict)
    times: list[float] = field(default_factory=list)  # per action, then a forfeited attempt
    stderr: dict[str, str] = field(default_factory=dict)  # each side's program's standard error

    def to_json(self) -> dict[str, Any]:
        """The v1 record with the match fields `players`, `clock` and `result`
        (record.schema.json, spec/match-records.md)."""
        result: dict[str, Any] = {"end": self.end,
                                  "scores": {p: str(v) for p, v in self.scores.items()},
                                  "seconds": {p: round(v, 3) for p, v in self.seconds.items()},
                                  "action_seconds": [round(s, 3) for s in self.times]}
        if self.forfeit is not None:
            f = self.forfeit
            result["forfeit"] = {"side": f.side, "kind": f.kind, "rule": f.rule, "message": f.message,
                                 "line": f.line}
        return {**record_to_json(self.record), "players": self.players, "clock": self.clock,
                "result": result}


def describe(state: GameState, action: AnyAction,
             notation: Callable[[AnyAction], str] | None = None) -> str:
    """An action in the notation people read: squares from 1 (`X3:1-6`, `X3@6`, `square 41`),
    or the seat's own `notation` (the CodeCup letters `AF` in a CodeCup match)."""
    if notation is not None:
        return notation(action)
    return family_of(state.ruleset).action_text(state, action)


def why_illegal(state: GameState, action: AnyAction, e: IllegalAction | RecordError) -> str:
    """Why an action is refused, in squares from 1 where the family can say so."""
    return family_of(state.ruleset).why_illegal(state, action, e)


@dataclass
class Watch:
    """What a live display shows of the game being played: who plays, the position's move
    number, the side thinking since when, and each side's time used before that."""

    players: dict[str, str] = field(default_factory=dict)
    clock: Clock = Clock()
    move: int = 0
    thinking: str | None = None
    since: float = 0.0
    used: dict[str, float] = field(default_factory=lambda: {"x": 0.0, "o": 0.0})

    def text(self, now: float) -> str:
        """`X alpha 3.2 s | O beta 1.1 s (thinking, 8.9 s left) | move 7`: both clocks, ticking."""
        parts = []
        for side in ("x", "o"):
            used = self.used[side] + (now - self.since if side == self.thinking else 0.0)
            limit = self.clock.limit(self.used[side]) if side == self.thinking else None
            left = f", {max(limit - (now - self.since), 0.0):.1f} s left" if limit is not None else ""
            state = f" (thinking{left})" if side == self.thinking else ""
            parts.append(f"{side.upper()} {self.players.get(side, '?')} {used:.1f} s{state}")
        return " | ".join(parts) + f" | move {self.move}"


def play_game(rs: Ruleset, variant: str, seats: dict[str, Seat], clock: Clock,
              ack: float = ACK_SECONDS, watch: Watch | None = None,
              chance: random.Random | None = None) -> GameResult:
    """Referee one game from the initial state (rules match-clock, match-forfeit); `watch`, if
    given, follows it for a live display. The referee plays the chance turns itself (rule
    collapse-chance): each outcome is drawn from `chance` (qttt.chance.draw; default a generator
    seeded 0), recorded, and told to both seats, at no time on either clock."""
    state = new_game(rs)
    chance = chance if chance is not None else random.Random(0)
    actions: list[AnyAction] = []
    used = {"x": 0.0, "o": 0.0}
    times: list[float] = []
    end, forfeit = "over", None
    try:
        for first in ("x", "o"):
            with _charged(first):
                seats[first].start(variant, first)
        while not state.over:
            if not state.legal_actions():
                end = "deadlock"
                break
            if state.to_move == CHANCE:
                state = _chance_turn(state, chance, seats, actions)
                times.append(0.0)
                continue
            side = state.to_move or ""
            seat = seats[side]
            limit = clock.limit(used[side]) if seat.clocked else None
            remaining = {p: None if clock.game is None else max(clock.game - used[p], 0.0) for p in used}
            seat.last_line = None
            t0 = time.monotonic()
            if watch is not None:
                watch.players = {s: seats[s].name for s in ("x", "o")}
                watch.clock, watch.move, watch.used = clock, state.move, dict(used)
                watch.thinking, watch.since = side, t0
            try:
                with _charged(side):
                    action = seat.choose(state, limit, remaining)
            finally:  # a timed-out or failed attempt counts too
                spent = time.monotonic() - t0
                used[side] += spent
                times.append(spent)
            if limit is not None and spent > limit:
                raise _sided(side, Forfeit("timeout", f"answered after {spent:.2f} s; the limit was "
                                           f"{limit:.2f} s", "match-clock"))
            try:
                after = state.apply(action)
            except (IllegalAction, RecordError) as e:
                said = describe(state, action, seat.notation)
                raise _sided(side, Forfeit("illegal", f"{said}: {why_illegal(state, action, e)}",
                                           e.rule)) from None
            actions.append(action)
            for s in ("x", "o"):
                with _charged(s):
                    seats[s].observe(action, after)
            state = after
            if watch is not None:
                watch.thinking, watch.used, watch.move = None, dict(used), state.move
    except Forfeit as f:
        end, forfeit = "forfeit", f
        if f.line is None and f.side in seats:
            f.line = seats[f.side].last_line
    finally:
        for side in ("x", "o"):
            with suppress(Forfeit, OSError):  # a seat failing to close changes nothing now
                seats[side].close(state)
    if forfeit is not None:
        won, lost = rs.match.forfeit
        scores = {"x": lost, "o": won} if forfeit.side == "x" else {"x": won, "o": lost}
    else:
        scores = state.scores
    return GameResult(Record(variant, tuple(actions)), {s: seats[s].name for s in ("x", "o")},
                      scores, end, forfeit, used, clock.to_json(ack), times,
                      {s: seats[s].stderr for s in ("x", "o") if seats[s].stderr})


def _chance_turn(state: GameState, chance: random.Random, seats: dict[str, Seat],
                 actions: list[AnyAction]) -> GameState:
    """The referee's draw at a chance turn (qttt.chance.draw), recorded and told to both seats."""
    action = draw(state.chance_outcomes(), chance)
    after = state.apply(action)
    actions.append(action)
    for s in ("x", "o"):
        with _charged(s):
            seats[s].observe(action, after)
    return after


def _sided(side: str, f: Forfeit) -> Forfeit:
    f.side = side
    return f


@contextmanager
def _charged(side: str) -> Iterator[None]:
    """A Forfeit raised inside is charged to `side`."""
    try:
        yield
    except Forfeit as f:
        raise _sided(side, f) from None


# -- seats ----------------------------------------------------------------------------------

class BuiltinSeat:
    """A player of qttt.players, called in-process."""

    clocked = True
    notation: Callable[[AnyAction], str] | None = None
    last_line: str | None = None
    stderr = ""

    def __init__(self, player: Player, name: str) -> None:
        self.player, self.name = player, name

    def start(self, variant: str, side: str) -> None:
        pass

    def choose(self, state: GameState, limit: float | None, remaining: dict[str, float | None]) -> AnyAction:
        if isinstance(self.player, SearchPlayer) and limit is not None:
            budget = self.player.seconds
            self.player.seconds = min(budget, limit / 3) if budget is not None else limit / 3
            try:
                return self.player.choose(state)
            finally:
                self.player.seconds = budget
        return self.player.choose(state)

    def observe(self, action: AnyAction, after: GameState) -> None:
        pass

    def close(self, final: GameState) -> None:
        pass


class LineProcess:
    """A child program read line by line with deadlines (qttt.processes.LineChannel), its
    failures as forfeits."""

    def __init__(self, command: list[str]) -> None:
        try:
            self.channel = LineChannel(command, STDERR_KEPT)
        except (OSError, ValueError) as e:
            why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            raise Forfeit("crash", f"cannot start {shlex.join(command)}: {why}") from None

    def stderr_text(self) -> str:
        """What the program wrote on standard error (after `stop`, all of it up to the limit)."""
        return self.channel.stderr_text()

    def send(self, text: str) -> None:
        """Write one line; Forfeit (crash) if the program has gone."""
        try:
            self.channel.send(text)
        except ChannelClosed:
            raise Forfeit("crash", self.gone()) from None

    def read(self, timeout: float | None, what: str) -> str:
        """The next line, without its newline; Forfeit on timeout, end of output or a line
        beyond the channel's limit."""
        try:
            line = self.channel.read_line(timeout)
        except ChannelClosed as e:
            raise Forfeit("crash", str(e)) from None
        if line is None:
            raise Forfeit("timeout", f"no answer to {what} within {timeout:.2f} s", "match-clock")
        return line

    def alive(self) -> bool:
        """Whether the program still runs."""
        return self.channel.alive()

    def gone(self) -> str:
        """Why the program stopped talking: its exit status and last words on standard error."""
        return self.channel.why_closed()

    def stop(self, goodbye: str | None) -> None:
        """Say goodbye if it still listens, then make sure it (and its children) are gone."""
        self.channel.stop(goodbye)


class EngineSeat:
    """A program speaking qttt-engine/1 with the `go` command (spec/protocol.md), started
    afresh for each game."""

    clocked = True
    notation: Callable[[AnyAction], str] | None = None
    last_line: str | None = None
    stderr = ""

    def __init__(self, command: list[str], name: str, ack_seconds: float = ACK_SECONDS) -> None:
        self.command, self.name, self.ack = command, name, ack_seconds
        self.proc: LineProcess | None = None
        self.id = 0

    def request(self, request: dict[str, Any], timeout: float | None) -> dict[str, Any]:
        """Send one request; the ok response, or Forfeit naming what went wrong."""
        assert self.proc is not None
        self.id += 1
        what = request["cmd"]
        self.proc.send(json.dumps({"id": self.id, **request}))
        line = self.proc.read(timeout, what)
        self.last_line = line
        try:
            response = loads(line)
        except (json.JSONDecodeError, RecursionError):
            raise Forfeit("garbage", f"answer to {what} is not JSON: {line[:60]!r}",
                          "engine-protocol") from None
        if not isinstance(response, dict) or not isinstance(response.get("ok"), bool):
            raise Forfeit("garbage", f"answer to {what} is not an object with ok: {line[:60]!r}",
                          "engine-protocol")
        if response.get("id") != self.id:
            raise Forfeit("garbage", f"answer to {what} has id {response.get('id')!r}, expected "
                          f"{self.id}", "engine-protocol")
        if not response["ok"]:
            err = response.get("error")
            message = err.get("message") if isinstance(err, dict) else None
            raise Forfeit("protocol", f"refused {what}: {message}", "engine-protocol")
        return response

    def start(self, variant: str, side: str) -> None:
        self.proc, self.id = LineProcess(self.command), 0
        hello = self.request({"cmd": "hello", "protocol": 1}, self.ack)
        if hello.get("protocol") != 1:
            raise Forfeit("protocol", f"speaks protocol {hello.get('protocol')!r}, not 1", "engine-protocol")
        commands = hello.get("commands")
        if isinstance(commands, list) and "go" not in commands:
            raise Forfeit("protocol", "does not play: its hello lists no go command", "engine-protocol")
        self.request({"cmd": "new", "variant": variant}, self.ack)

    def choose(self, state: GameState, limit: float | None, remaining: dict[str, float | None]) -> AnyAction:
        ms = {f"{p}_ms": None if t is None else int(t * 1000) for p, t in remaining.items()}
        response = self.request({"cmd": "go", "move_ms": None if limit is None else int(limit * 1000),
                                 **ms}, limit)
        try:
            return action_from_json(response.get("action"))
        except RecordError as e:
            raise Forfeit("garbage", f"go answered no action: {e.message}", e.rule) from None

    def observe(self, action: AnyAction, after: GameState) -> None:
        self.request({"cmd": "apply", "action": action_to_json(action)}, self.ack)

    def close(self, final: GameState) -> None:
        if self.proc is not None:
            self.proc.stop(json.dumps({"id": self.id + 1, "cmd": "quit"}))
            self.stderr = self.proc.stderr_text()
            self.proc = None


# -- player specifications ------------------------------------------------------------------

KINDS_HELP = ("random, greedy, search[:SECONDS], mcts[:SIMULATIONS] (OpenSpiel's MCTS bot, the openspiel "
              "extra), human, engine:COMMAND (qttt-engine/1 with go), codecup:COMMAND (a CodeCup 2012 "
              "bot); NAME=PLAYER names a player")


NAMED = re.compile(r"([A-Za-z0-9_.-]+)=(.+)", re.S)


def split_name(spec: str) -> tuple[str, str]:
    """`NAME=SPEC` gives the player a short name; otherwise the name is the spec itself."""
    m = NAMED.fullmatch(spec)
    return (m[1], m[2]) if m and ":" not in m[1] else (spec, spec)


def check_spec(spec: str) -> str:
    """`spec` if it names a player (see KINDS_HELP), optionally as NAME=SPEC; MatchError otherwise."""
    kind, _, arg = split_name(spec)[1].partition(":")
    if kind in ("engine", "codecup"):
        if not arg.strip():
            raise MatchError(None, f"player {spec!r}: {kind}: needs a command")
        try:
            shlex.split(arg)
        except ValueError as e:
            raise MatchError(None, f"player {spec!r}: the command cannot be split: {e}") from None
        return spec
    if kind == "search" and arg:
        try:
            if float(arg) <= 0:
                raise ValueError
        except ValueError:
            raise MatchError(None, f"player {spec!r}: search:SECONDS needs a positive "
                             "number of seconds") from None
        return spec
    if kind == "mcts" and arg:
        if not arg.isdigit() or int(arg) < 1:
            raise MatchError(None, f"player {spec!r}: mcts:SIMULATIONS needs a positive whole "
                             "number of simulations")
        return spec
    if kind in PLAYERS or kind in ("human", "mcts"):
        if arg:
            raise MatchError(None, f"player {spec!r}: {kind} takes no argument")
        return spec
    raise MatchError(None, f"unknown player {spec!r}; a player is one of: {KINDS_HELP}")


# -- records read back ----------------------------------------------------------------------------

def _seconds_problem(value: Any) -> bool:
    return isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < float("inf")


def refereed_problem(rec: Any, rs: Ruleset, variant: str, players: dict[str, str] | None = None,
                     clock: dict[str, float | None] | None = None,
                     chance: random.Random | None = None) -> str | None:
    """Where a game record read back departs from one the referee can have written for a game of
    `rs` named `variant` (between `players`, under `clock`, drawing chance outcomes from `chance`,
    when given): the field, then why; None when it is one. Its actions are replayed under the
    rules, each chance outcome the referee's own draw (rule collapse-chance), so its result must
    be the one the rules give: the final scores of a finished game or of a deadlock, or the forfeit
    score when a side forfeited (rule match-forfeit). Nothing else in it is believed."""
    if not isinstance(rec, dict):
        return "$: a game record is a JSON object"
    if rec.get("variant") != variant:
        return f"variant: {_json(rec.get('variant'))} is not this match's ruleset {_json(variant)}"
    if players is not None:
        got = rec.get("players")
        for side in ("x", "o"):
            name = got.get(side) if isinstance(got, dict) else None
            if name != players[side]:
                return (f"players.{side}: {_json(name)} is not the player of {side} in this game, "
                        f"{_json(players[side])}")
    if clock is not None and rec.get("clock") != clock:
        return f"clock: {_json(rec.get('clock'))} is not this match's clock {_json(clock)}"
    try:
        record = record_from_json(rec)
    except RecordError as e:
        return f"actions[{e.index}]: {e}" if e.index is not None else f"$: {e}"
    state = new_game(rs)
    for i, action in enumerate(record.actions):
        if chance is not None and state.to_move == CHANCE and not state.over:
            drawn = draw(state.chance_outcomes(), chance)
            if action != drawn:
                return (f"actions[{i}]: {json.dumps(action_to_json(action))} is not the chance outcome the "
                        f"referee drew for this game, {json.dumps(action_to_json(drawn))} (rule "
                        "collapse-chance)")
        try:
            state = state.apply(action)
        except (IllegalAction, RecordError) as e:
            return f"actions[{i}]: {json.dumps(action_to_json(action))} is not legal here ({e})"
    return _result_problem(rec.get("result"), rs, state, len(record.actions), timed=clock is not None)


def _result_problem(result: Any, rs: Ruleset, state: GameState, actions: int, timed: bool) -> str | None:
    """Where a record's `result` departs from what the rules give after its actions (`state`); the
    seconds, optional in a record (record.schema.json), are required where `timed` (the referee's
    own records)."""
    if not isinstance(result, dict):
        return "result: a match record's result is an object"
    end = result.get("end")
    scores = result.get("scores")
    if not (isinstance(scores, dict) and set(scores) == {"x", "o"} and all(
            isinstance(v, str) and FRACTION_TEXT.fullmatch(v) and not v.endswith("/0")
            for v in scores.values())):
        return "result.scores: expected {\"x\": points, \"o\": points}, points as text such as \"1/2\""
    got = {side: Fraction(v) for side, v in scores.items()}
    forfeit = result.get("forfeit")
    if end == "forfeit":
        if not isinstance(forfeit, dict) or forfeit.get("side") not in ("x", "o"):
            return "result.forfeit.side: a forfeit names the side that forfeits, x or o"
        if forfeit.get("kind") not in FORFEIT_KINDS or not isinstance(forfeit.get("message"), str):
            return f"result.forfeit.kind: one of {', '.join(FORFEIT_KINDS)}, with a message"
        if state.over:
            return f"result.end: \"forfeit\", but the game is over after its {actions} actions"
        won, lost = rs.match.forfeit
        want = {"x": lost, "o": won} if forfeit["side"] == "x" else {"x": won, "o": lost}
    elif end in ("over", "deadlock"):
        if forfeit is not None:
            return f"result.forfeit: a game that ended {end} has no forfeit"
        if end == "over" and not state.over:
            return f"result.end: \"over\", but the game is not over after its {actions} actions"
        if end == "deadlock" and (state.over or state.legal_actions()):
            return "result.end: \"deadlock\", but " + ("the game is over" if state.over else
                                                        "the side to move has legal actions")
        want = dict(state.scores)
    else:
        return f"result.end: {_json(end)}; one of \"over\", \"deadlock\", \"forfeit\""
    if got != want:
        shown = " - ".join(str(want[s]) for s in ("x", "o"))
        return (f"result.scores: {scores['x']} - {scores['o']} is not the score the rules give this game "
                f"({shown}" + (", rule match-forfeit)" if end == "forfeit" else f" in {rs.canonical})"))
    used, times = result.get("seconds"), result.get("action_seconds")
    if (timed or used is not None) and not (isinstance(used, dict) and set(used) == {"x", "o"}
                                            and not any(map(_seconds_problem, used.values()))):
        return "result.seconds: expected each side's seconds used, 0 or more"
    if (timed or times is not None) and not (isinstance(times, list)  # a chance turn's can be missing
                                             and actions - 1 <= len(times) <= actions + 1
                                             and not any(map(_seconds_problem, times))):
        return "result.action_seconds: expected the seconds of each action, 0 or more"
    return None


def _json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:56] + "..."
