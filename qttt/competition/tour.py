"""The Russian school tour (seed 004, "Организация тура"; rule tour-protocol): a tour file,
its games, the points of each stage and the judges' protocol.

Two teams (or more: every pair of teams meets) each name four main players and any number of
free players, who play together as a fifth player. In the individual stage board k pairs the
k-th main players of the two teams and board 5 their free players; each pair plays one game
with each colour, and may agree on one more pair of games. In the team stage each team plays
one game as X and one as O, with a clock per move, and scores its points times three. The tour
total is the sum of both stages.

A game's result comes from the tour file (`score` typed by the judges, `forfeit`, or `record`
naming a game record) or from the record saved when the game was played (`qttt tour --play`).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..bounds import SCORE
from ..errors import FileError, MatchError, QtttError
from ..interop import rules_of
from ..io import FRACTION, parse_toml, read_json, read_text
from ..notation import record_from_json
from ..ruleset import Ruleset
from ..safe import shown
from ..variant import load_ruleset
from .referee import ACK_SECONDS, Clock, refereed_problem

RULE = "tour-protocol"
FREE_BOARD = 5
STAGES = ("individual", "team")


def _fail(where: str, message: str) -> MatchError:
    return MatchError(RULE, f"{where}: {message}")


def _points(value: Any) -> bool:
    """Whether `value` is a game's points in a tour file: an integer or exact fraction in SCORE."""
    if isinstance(value, str) and FRACTION.fullmatch(value) and not value.endswith("/0"):
        value = Fraction(value)
    elif isinstance(value, bool) or not isinstance(value, int):
        return False
    return bool(SCORE.low <= value <= SCORE.high)


def _shown(value: Any) -> str:
    """A TOML value for a message, as JSON, cut to 60 characters."""
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(frozen=True)
class Team:
    """A team: its name, captain, four main players and its free players."""

    name: str
    captain: str
    main: tuple[str, ...]
    free: tuple[str, ...]


@dataclass(frozen=True)
class Slot:
    """One game of a meeting between `home` and `away` (teams in the file's order)."""

    home: str
    away: str
    stage: str
    board: int  # 1-4 main players, 5 free players; 0 in the team stage
    x: str  # the team whose player (or the team itself) plays X
    extra: bool = False

    @property
    def o(self) -> str:
        return self.away if self.x == self.home else self.home

    def to_json(self) -> dict[str, Any]:
        """The game as its record says which it is (`tour` in a record `qttt tour --play` saves)."""
        return {"stage": self.stage, "board": self.board, "x": self.x, "o": self.o, "extra": self.extra}

    def key(self) -> str:
        """A file name for the game's record."""
        parts = [self.home, self.away, self.stage, str(self.board), "x-" + self.x, "extra" * self.extra]
        text = "_".join(p for p in parts if p)
        return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in text)


@dataclass
class Outcome:
    """A game's points by team, and how the judges know them."""

    points: dict[str, Fraction]
    how: str  # score, forfeit, record, played
    forfeit: str | None = None  # the team that forfeited


@dataclass
class Meeting:
    """The points of one meeting, per board and game, per stage and in total."""

    home: Team
    away: Team
    boards: list[tuple[int, str, str, list[Slot]]]  # board, home player(s), away player(s), games
    team_games: list[Slot]
    outcomes: dict[Slot, Outcome]
    factor: int
    individual: dict[str, Fraction] = field(default_factory=dict)
    team_raw: dict[str, Fraction] = field(default_factory=dict)
    team: dict[str, Fraction] = field(default_factory=dict)
    total: dict[str, Fraction] = field(default_factory=dict)
    complete: bool = True


@dataclass
class Standing:
    """A team's meetings won, drawn and lost, and its points over all meetings."""

    team: str
    won: int = 0
    drawn: int = 0
    lost: int = 0
    points: Fraction = Fraction(0)


@dataclass
class Tour:
    """A tour as declared in its file, with the results known so far."""

    title: str
    variant: str
    ruleset: Ruleset
    factor: int
    team_seconds: float
    teams: list[Team]
    slots: list[Slot]
    outcomes: dict[Slot, Outcome]
    players: dict[str, str]
    records: Path
    date: str = ""
    place: str = ""
    path: Path = Path()  # the tour file

    def team(self, name: str) -> Team:
        return next(t for t in self.teams if t.name == name)

    def clock(self, slot: Slot) -> Clock:
        """The clock a game is played under: the team stage's time per move, else the ruleset's
        [match] clocks (rule match-clock)."""
        return Clock(move=self.team_seconds or None) if slot.stage == "team" else Clock.of(self.ruleset)

    def meetings(self) -> list[tuple[Team, Team]]:
        """Every pair of teams, in file order."""
        return [(a, b) for i, a in enumerate(self.teams) for b in self.teams[i + 1:]]

    def spec(self, slot: Slot, side: str) -> str:
        """Who plays `side` under --play: the [players] entry of the player (of any free player
        on board 5; of the team in the team stage), else a person at the terminal."""
        team = self.team(slot.x if side == "x" else slot.o)
        if slot.stage == "team":
            names = [team.name]
        elif slot.board == FREE_BOARD:
            names = list(team.free)
        else:
            names = [team.main[slot.board - 1]]
        return next((self.players[n] for n in names if n in self.players), "human")

    def seat_names(self, slot: Slot) -> dict[str, str]:
        """Who plays X and O in a game: players, the free players, or teams."""
        def who(team: Team) -> str:
            if slot.stage == "team":
                return team.name
            if slot.board == FREE_BOARD:
                return ", ".join(team.free)
            return team.main[slot.board - 1]
        return {"x": who(self.team(slot.x)), "o": who(self.team(slot.o))}

    def meeting(self, home: Team, away: Team) -> Meeting:
        """Points of the meeting of `home` and `away` (tour rules 5, 6, 9-12 of seed 004)."""
        boards = []
        for board in range(1, FREE_BOARD + 1):
            games = [s for s in self.slots if (s.home, s.away, s.stage, s.board) ==
                     (home.name, away.name, "individual", board)]
            if not games:
                continue
            if board == FREE_BOARD:
                boards.append((board, ", ".join(home.free), ", ".join(away.free), games))
            else:
                boards.append((board, home.main[board - 1], away.main[board - 1], games))
        team_games = [s for s in self.slots if (s.home, s.away, s.stage) == (home.name, away.name, "team")]
        m = Meeting(home, away, boards, team_games, self.outcomes, self.factor)
        names = (home.name, away.name)
        m.individual = {n: Fraction(0) for n in names}
        m.team_raw = {n: Fraction(0) for n in names}
        for _, _, _, games in boards:
            for s in games:
                if s in self.outcomes:
                    for n in names:
                        m.individual[n] += self.outcomes[s].points[n]
                elif not s.extra:
                    m.complete = False
        for s in team_games:
            if s in self.outcomes:
                for n in names:
                    m.team_raw[n] += self.outcomes[s].points[n]
            else:
                m.complete = False
        m.team = {n: m.team_raw[n] * self.factor for n in names}
        m.total = {n: m.individual[n] + m.team[n] for n in names}
        return m

    def standings(self) -> list[Standing]:
        """Per team: meetings won, drawn and lost on the tour total, and the sum of its totals;
        ordered by meetings won (2) and drawn (1), then points."""
        rows = {t.name: Standing(t.name) for t in self.teams}
        for home, away in self.meetings():
            m = self.meeting(home, away)
            for me, other in ((home.name, away.name), (away.name, home.name)):
                row = rows[me]
                row.points += m.total[me]
                if m.total[me] > m.total[other]:
                    row.won += 1
                elif m.total[me] == m.total[other]:
                    row.drawn += 1
                else:
                    row.lost += 1
        return sorted(rows.values(), key=lambda r: (-(2 * r.won + r.drawn), -r.points))


def load_tour(path: str | Path) -> Tour:
    """Read and check a tour file (TOML; see spec/tour.md) and the results known so far."""
    path = Path(path)
    where = str(path)
    data = parse_toml(read_text(path, RULE), where, lambda why: MatchError(RULE, why))
    _keys(data, ("tour", "team", "game", "players"), where, "top level")
    head = data.get("tour", {})
    _keys(head, ("title", "ruleset", "team_factor", "team_move_seconds", "records", "date", "place"), where,
          "tour")
    variant = _str(head.get("ruleset", "russian"), where, "tour.ruleset")
    rs = load_ruleset(variant if variant.endswith(")") or not variant.endswith(".toml")
                      else str(path.parent / variant))
    factor = head.get("team_factor", 3)
    if not isinstance(factor, int) or isinstance(factor, bool) or factor < 1:
        raise _fail(where, f"tour.team_factor = {_shown(factor)}; allowed: a whole number >= 1 (3 in seed "
                    "004)")
    seconds = head.get("team_move_seconds", 40)
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not 0 <= seconds < math.inf:
        raise _fail(where, f"tour.team_move_seconds = {_shown(seconds)}; allowed: seconds >= 0 (40 in seed "
                    "004)")
    teams = [_team(t, f"{where}: team {i}") for i, t in enumerate(_list(data.get("team"), where, "team"), 1)]
    if len(teams) < 2:
        raise _fail(where, "a tour needs at least two [[team]] tables")
    _unique(teams, where)
    players = data.get("players", {})
    if not isinstance(players, dict) or not all(isinstance(v, str) for v in players.values()):
        raise _fail(where, "players is a table of name = player (random, human, engine:COMMAND, ...)")
    known = {n for t in teams for n in (t.name, *t.main, *t.free)}
    for name in players:
        if name not in known:
            raise _fail(where, f"players.{name}: not a player or a team of this tour")
    records = path.parent / _str(head.get("records", path.stem + "-records"), where, "tour.records")
    tour = Tour(_str(head.get("title", path.stem), where, "tour.title"), variant, rs, factor, float(seconds),
                teams, [], {}, dict(players), records, _str(head.get("date", ""), where, "tour.date"),
                _str(head.get("place", ""), where, "tour.place"), path)
    tour.slots = _schedule(tour)
    for i, raw in enumerate(_list(data.get("game"), where, "game"), start=1):
        _game(tour, raw, f"{where}: game {i}", path.parent)
    _played(tour)
    return tour


def _schedule(tour: Tour) -> list[Slot]:
    """The games every meeting has: boards 1-4, board 5 when both teams have free players, the
    team stage; one game with each colour (tour rules 3-5, 10)."""
    slots = []
    for home, away in tour.meetings():
        boards = [*range(1, 5), *([FREE_BOARD] if home.free and away.free else [])]
        for board in boards:
            slots += [Slot(home.name, away.name, "individual", board, home.name),
                      Slot(home.name, away.name, "individual", board, away.name)]
        slots += [Slot(home.name, away.name, "team", 0, home.name),
                  Slot(home.name, away.name, "team", 0, away.name)]
    return slots


def _game(tour: Tour, raw: Any, where: str, base: Path) -> None:
    if not isinstance(raw, dict):
        raise _fail(where, "must be a table")
    _keys(raw, ("meeting", "stage", "board", "x", "extra", "score", "forfeit", "record"), where, "game")
    names = [t.name for t in tour.teams]
    meeting = raw.get("meeting", names[:2] if len(names) == 2 else None)
    if not (isinstance(meeting, list) and len(meeting) == 2 and all(m in names for m in meeting)
            and meeting[0] != meeting[1]):
        raise _fail(where, f"meeting = {_shown(meeting)}; allowed: two of the teams {_shown(names)}")
    home, away = sorted(meeting, key=names.index)
    stage = raw.get("stage", "individual")
    if stage not in STAGES:
        raise _fail(where, f"stage = {_shown(stage)}; allowed: \"individual\" or \"team\"")
    board = raw.get("board", 0)
    x = raw.get("x")
    if x not in (home, away):
        raise _fail(where, f"x = {_shown(x)}; allowed: {_shown(home)} or {_shown(away)}, the team playing X")
    extra = raw.get("extra", False)
    if not isinstance(extra, bool) or (extra and stage == "team"):
        raise _fail(where, "extra = true marks the individual stage's optional extra pair of games")
    slot = Slot(home, away, stage, board if stage == "individual" else 0, x, extra)
    if stage == "individual" and Slot(home, away, stage, board, x) not in tour.slots:
        raise _fail(where, f"board = {_shown(board)} is not played in {home} - {away}; boards 1-4, and 5 "
                    "when both teams have free players")
    if slot.extra and slot not in tour.slots:
        tour.slots.append(slot)
    given = [k for k in ("score", "forfeit", "record") if k in raw]
    if len(given) > 1:
        raise _fail(where, f"give one of score, forfeit, record, not {', '.join(given)}")
    if not given:
        return  # declared (an extra pair to play), no result yet
    if slot in tour.outcomes:
        raise _fail(where, "this game's result is given twice")
    tour.outcomes[slot] = _result(tour, slot, given[0], raw[given[0]], where, base)


def _result(tour: Tour, slot: Slot, kind: str, value: Any, where: str, base: Path) -> Outcome:
    if kind == "score":
        if not (isinstance(value, list) and len(value) == 2):
            raise _fail(where, f"score = {_shown(value)}; allowed: [X's points, O's points]")
        if not all(_points(v) for v in value):
            raise _fail(where, f"score = {_shown(value)}; allowed: points from {SCORE.low} to "
                        f"{SCORE.high}, whole numbers or strings such as \"1/2\"")
        px, po = (Fraction(v) for v in value)
        _plausible(tour, px, po, where, value)
        return Outcome({slot.x: px, slot.o: po}, "score")
    if kind == "forfeit":
        if value not in ("x", "o"):
            raise _fail(where, f"forfeit = {_shown(value)}; allowed: \"x\" or \"o\", the side that forfeits")
        return _forfeit(tour, slot, value)
    if not isinstance(value, str):
        raise _fail(where, "record = a path to a game record (JSON)")
    return _from_record(tour, slot, base / value, where)


def score_range(rs: Ruleset) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """The least and most X and O can score in a game of `rs` (x min, x max, o min, o max): the
    ruleset's declared range, as the checker proves it."""
    return rules_of(rs).score_range


def _plausible(tour: Tour, px: Fraction, po: Fraction, where: str, value: Any) -> None:
    """A typed score must be one a game can end with: each side within the ruleset's declared
    range, or the forfeit score."""
    won, lost = tour.ruleset.match.forfeit
    if {px, po} == {won, lost}:
        return
    x_lo, x_hi, o_lo, o_hi = score_range(tour.ruleset)
    for side, v, lo, hi in (("X", px, x_lo, x_hi), ("O", po, o_lo, o_hi)):
        if not lo <= v <= hi:
            raise _fail(where, f"score = {_shown(value)}: {side} scores {v}, but a game of {tour.variant} "
                        f"gives {side} {lo} to {hi} (or the forfeit score {won}-{lost})")


def _forfeit(tour: Tour, slot: Slot, side: str) -> Outcome:
    """The ruleset's forfeit score (rule match-forfeit)."""
    won, lost = tour.ruleset.match.forfeit
    loser = slot.x if side == "x" else slot.o
    winner = slot.o if side == "x" else slot.x
    return Outcome({loser: lost, winner: won}, "forfeit", loser)


def _from_record(tour: Tour, slot: Slot, path: Path, where: str, played: bool = False) -> Outcome:
    """The outcome a game record gives, once its actions replay under the tour's rules and its
    result, when it has one, is the one the rules give (`refereed_problem`); a record the tour
    played itself (`played`) must also be of that very game: its players, clock and tour slot."""
    def damaged(why: str) -> MatchError:
        return _fail(where, f"{path} is damaged ({why}); " + ("delete it to play that game again" if played
                                                              else "correct or remove it"))
    try:
        obj = read_json(path)
        record = record_from_json(obj)
        if record.ruleset().key() != tour.ruleset.key():
            raise damaged(f"variant: a game of {record.variant}, not of the tour's {tour.variant}")
        result = obj.get("result")
        if played or result is not None:
            problem = (refereed_problem(obj, tour.ruleset, tour.variant, tour.seat_names(slot),
                                        tour.clock(slot).to_json(ACK_SECONDS)) if played
                       else refereed_problem(obj, tour.ruleset, obj["variant"]))
            if problem is None and played and obj.get("tour") != slot.to_json():
                problem = (f"tour: {_shown(obj.get('tour'))} is not this game of the tour, "
                           f"{_shown(slot.to_json())}")
            if problem is not None:
                raise damaged(problem)
        state = record.replay()
    except FileError as e:
        raise _fail(where, e.message) from None
    except MatchError:
        raise
    except QtttError as e:
        raise (damaged(str(e)) if played else _fail(where, f"{path}: {e}")) from None
    if isinstance(result, dict) and result.get("end") == "forfeit":
        outcome = _forfeit(tour, slot, result["forfeit"]["side"])
        return Outcome(outcome.points, "played" if played else "record", outcome.forfeit)
    if not state.over:
        raise _fail(where, f"{path}: the game is not finished ({len(record.actions)} actions)")
    return Outcome({slot.x: state.scores["x"], slot.o: state.scores["o"]}, "played" if played else "record")


def _played(tour: Tour) -> None:
    """Results of games played with `qttt tour --play`, saved in the records directory, each
    checked as the game it stands for (a link that leads nowhere, a loop, is named with the tour
    file that points to the folder)."""
    for slot in tour.slots:
        target = tour.records / f"{slot.key()}.json"
        if slot not in tour.outcomes and os.path.lexists(target):
            tour.outcomes[slot] = _from_record(tour, slot, target, f"{tour.path}: records", played=True)


def _team(raw: Any, where: str) -> Team:
    if not isinstance(raw, dict):
        raise _fail(where, "must be a table")
    _keys(raw, ("name", "captain", "main", "free"), where, "team")
    name = _str(raw.get("name"), where, "name")
    captain = _str(raw.get("captain", ""), where, "captain")
    main, free = raw.get("main"), raw.get("free", [])
    if not (isinstance(main, list) and len(main) == 4 and all(_named(p) for p in main)):
        raise _fail(where, f"main = {_shown(main)}; allowed: the names of the four main players (tour rule "
                    "2)")
    if not (isinstance(free, list) and all(_named(p) for p in free)):
        raise _fail(where, f"free = {_shown(free)}; allowed: a list of names (any number of free players)")
    return Team(name, captain, tuple(shown(p) for p in main), tuple(shown(p) for p in free))


def _keys(table: Any, allowed: tuple[str, ...], where: str, section: str) -> None:
    if not isinstance(table, dict):
        raise _fail(where, f"{section} must be a table")
    for key in table:
        if key not in allowed:
            raise _fail(where, f"unknown key {section}.{key}; allowed: {', '.join(allowed)}")


def _list(value: Any, where: str, name: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _fail(where, f"{name} must be an array of tables ([[{name}]])")
    return value


def _named(value: Any) -> bool:
    """Whether `value` is a name: a string with something besides white space."""
    return isinstance(value, str) and bool(value.strip())


def _unique(teams: list[Team], where: str) -> None:
    """No two teams of one name, no player in two places (two teams, or main and free), and no
    player named as a team: the [players] table and the protocol name each once."""
    seen: dict[str, str] = {}
    for team in teams:
        for name, role in ((team.name, "a team"), *((p, f"a player of {team.name}") for p in
                                                    (*team.main, *team.free))):
            if name in seen:
                raise _fail(where, f"{_shown(name)} is {seen[name]} and {role}; each team and player "
                            "has a name of its own (tour rule 2)")
            seen[name] = role


def _str(value: Any, where: str, name: str) -> str:
    if not isinstance(value, str) or (name == "name" and not value.strip()):
        raise _fail(where, f"{name} = {_shown(value)}; allowed: a string"
                    + (" with a letter or digit, not only white space" if name == "name" else ""))
    return shown(value)  # type: ignore[no-any-return]


def tour_json(tour: Tour) -> dict[str, Any]:
    """The tour as data (`qttt tour --json`): teams, every game with its result (null: not played),
    each meeting's points per stage, and the standings; points as exact strings."""
    def points(values: dict[str, Fraction]) -> dict[str, str]:
        return {team: str(v) for team, v in values.items()}

    games = []
    for slot in tour.slots:
        out = tour.outcomes.get(slot)
        result = None if out is None else {"points": points(out.points), "how": out.how,
                                           "forfeit": out.forfeit}
        games.append({"home": slot.home, "away": slot.away, "stage": slot.stage, "board": slot.board,
                      "x": slot.x, "o": slot.o, "extra": slot.extra, "players": tour.seat_names(slot),
                      "result": result})
    meetings = []
    for home, away in tour.meetings():
        m = tour.meeting(home, away)
        meetings.append({"home": home.name, "away": away.name, "complete": m.complete,
                         "individual": points(m.individual), "team": points(m.team),
                         "total": points(m.total)})
    return {"title": tour.title, "ruleset": tour.ruleset.canonical, "team_factor": tour.factor,
            "teams": [{"name": t.name, "captain": t.captain, "main": list(t.main), "free": list(t.free)}
                      for t in tour.teams],
            "games": games, "meetings": meetings,
            "standings": [{"team": r.team, "won": r.won, "drawn": r.drawn, "lost": r.lost,
                           "points": str(r.points)} for r in tour.standings()]}
