"""The judges' protocol of a tour (rule tour-protocol, tour rule 13 of seed 004): the main
players and their points in the individual stage, the free players' points, the team stage
and the totals; as a text table and as a printable A4 page (HTML), in Russian or English; a
blank sheet leaves every result empty, to be filled in by hand."""

from __future__ import annotations

import html
import textwrap
import tomllib
from fractions import Fraction

from ..io import read_text
from ..spec import spec_dir
from .tour import FREE_BOARD, Meeting, Slot, Tour

LABELS: dict[str, dict[str, str]] = {
    "ru": {
        "title": "Протокол тура", "ruleset": "правила", "captain": "капитан", "team": "Команда",
        "individual": "Индивидуальный этап", "board": "Доска", "player": "Игрок",
        "free": "вольные стрелки", "game": "партия", "extra": "доп.", "sum": "сумма",
        "as_x": "крестиками", "as_o": "ноликами",
        "team_stage": "Итоги; командный этап: {s} с на обсуждение хода, очки умножаются на {f}",
        "team_game": "Партия {n}: крестиками играет команда «{x}»", "points": "очки",
        "individual_total": "Итого за индивидуальный этап", "team_total": "Итого за командный этап",
        "total": "Итог тура", "forfeit": "* техническое поражение (нарушение правил, время, неявка)",
        "judges": "Судьи", "standings": "Положение команд", "won": "побед", "drawn": "ничьих",
        "lost": "поражений", "meetings": "встреч", "incomplete": "результаты известны не для всех партий",
        "x_is": "в партии 1 крестиками играет команда «{home}», в партии 2 — команда «{away}»",
        "short": "п. 1|п. 2|д. 1|д. 2|Σ",
        "legend": "п. — партия, д. — дополнительная партия (по согласию игроков и судей), Σ — сумма",
        "date": "Дата", "place": "Место", "winner": "Победитель встречи: команда {team}",
        "draw": "Встреча закончилась вничью", "winner_blank": "Победитель встречи: команда",
        "chief": "Главный судья", "judge": "Судья", "sign": "подпись",
        "captain_of": "Капитан команды {team}",
    },
    "en": {
        "title": "Tour protocol", "ruleset": "rules", "captain": "captain", "team": "Team",
        "individual": "Individual stage", "board": "Board", "player": "Player",
        "free": "free players", "game": "game", "extra": "extra", "sum": "sum",
        "as_x": "as X", "as_o": "as O",
        "team_stage": "Totals; team stage: {s} s to discuss each move, points times {f}",
        "team_game": "Game {n}: \u201c{x}\u201d plays X", "points": "points",
        "individual_total": "Individual stage total", "team_total": "Team stage total",
        "total": "Tour total", "forfeit": "* forfeit (a broken rule, the clock, or absence)",
        "judges": "Judges", "standings": "Standings", "won": "won", "drawn": "drawn",
        "lost": "lost", "meetings": "meetings", "incomplete": "some games have no result yet",
        "x_is": "game 1: \u201c{home}\u201d plays X; game 2: \u201c{away}\u201d plays X",
        "short": "g. 1|g. 2|e. 1|e. 2|Σ",
        "legend": "g.: game, e.: extra game (if the players and the judges agree), Σ: sum",
        "date": "Date", "place": "Place", "winner": "Winner of the meeting: {team}",
        "draw": "The meeting is drawn", "winner_blank": "Winner of the meeting:",
        "chief": "Chief judge", "judge": "Judge", "sign": "signature",
        "captain_of": "Captain of {team}",
    },
}


def _q(lang: str, name: str) -> str:
    """A team's name in the language's quotation marks."""
    return f"«{name}»" if lang == "ru" else f"\u201c{name}\u201d"


def _num(v: Fraction) -> str:
    return str(v)


def _cell(m: Meeting, slot: Slot | None, team: str, blank: bool) -> str:
    """A team's points in one game: empty if unknown (or blank), starred if forfeited."""
    if slot is None or blank or slot not in m.outcomes:
        return ""
    out = m.outcomes[slot]
    return _num(out.points[team]) + ("*" if out.forfeit is not None else "")


def _games(games: list[Slot], m: Meeting) -> list[Slot | None]:
    """The four columns of a board: game 1 (home as X), game 2 (away as X), the extra pair."""
    def find(x: str, extra: bool) -> Slot | None:
        return next((s for s in games if s.x == x and s.extra == extra), None)
    h, a = m.home.name, m.away.name
    return [find(h, False), find(a, False), find(h, True), find(a, True)]


def meeting_rows(m: Meeting, lang: str, blank: bool,
                 short: bool = False) -> tuple[list[str], list[list[str]]]:
    """The individual stage as a header and rows: board, then for each team its player, four
    games and the sum (`short`: abbreviated column names, explained by the legend)."""
    t = LABELS[lang]
    games = [f"{t['game']} 1", f"{t['game']} 2", f"{t['extra']} 1", f"{t['extra']} 2", t["sum"]]
    if short:
        games = t["short"].split("|")
    header = [t["board"], f"{t['player']} {_q(lang, m.home.name)}", *games,
              f"{t['player']} {_q(lang, m.away.name)}", *games]
    rows = []
    for board, hp, ap, slots in m.boards:
        cols = _games(slots, m)
        label = f"{board} ({t['free']})" if board == FREE_BOARD else str(board)
        per = {}
        for team in (m.home.name, m.away.name):
            cells = [_cell(m, s, team, blank) for s in cols]
            known = [s for s in cols if s is not None and s in m.outcomes]
            total = "" if blank or not known else _num(sum((m.outcomes[s].points[team] for s in known),
                                                          Fraction(0)))
            per[team] = [*cells, total]
        rows.append([label, hp, *per[m.home.name], ap, *per[m.away.name]])
    return header, rows


def _summary(m: Meeting, tour: Tour, lang: str, blank: bool) -> list[tuple[str, str, str]]:
    """Lines of (label, home value, away value): team games, stage totals, tour total."""
    t = LABELS[lang]
    h, a = m.home.name, m.away.name

    def val(d: dict[str, Fraction], team: str) -> str:
        return "" if blank else _num(d[team])
    out = [(t["individual_total"], val(m.individual, h), val(m.individual, a))]
    for n, slot in enumerate(m.team_games, start=1):
        out.append((t["team_game"].format(n=n, x=slot.x), _cell(m, slot, h, blank), _cell(m, slot, a, blank)))
    if blank:
        out.append((f"{t['team_total']} (× {tour.factor})", "", ""))
    else:
        out.append((f"{t['team_total']} (× {tour.factor})", f"{m.team_raw[h]} × {tour.factor} = {m.team[h]}",
                    f"{m.team_raw[a]} × {tour.factor} = {m.team[a]}"))
    out.append((t["total"], val(m.total, h), val(m.total, a)))
    return out


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = "+".join("-" * (w + 2) for w in widths)
    def fmt(r: list[str]) -> str:
        return "|".join(f" {c:<{w}} " for c, w in zip(r, widths, strict=True))
    return "\n".join([fmt(header), line, *(fmt(r) for r in rows)])


WIDTH = 100  # the text protocol fits this many columns
NAME = 22  # at most this many characters of a name in a text table
BLANK = "______________________"


def ruleset_name(tour: Tour, lang: str) -> str:
    """The tour's ruleset as people call it: its title in the protocol's language (spec/i18n),
    else its own title, else the name it was given."""
    path = spec_dir() / "i18n" / f"{lang}.toml"
    titles = tomllib.loads(read_text(path)).get("titles", {}) if path.is_file() else {}
    return str(titles.get(tour.ruleset.name) or tour.ruleset.title or tour.variant)


def _cut(text: str, width: int = NAME) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def winner_line(m: Meeting, lang: str, blank: bool) -> str:
    """Who won the meeting on the tour total (a line to fill in on a blank sheet)."""
    t = LABELS[lang]
    if blank or not m.complete:
        return f"{t['winner_blank']} {BLANK}"
    h, a = m.home.name, m.away.name
    if m.total[h] == m.total[a]:
        return t["draw"]
    return t["winner"].format(team=_q(lang, h if m.total[h] > m.total[a] else a))


def signatures(tour: Tour, lang: str, teams: list[str]) -> list[str]:
    """The lines the judges and the captains sign."""
    t = LABELS[lang]
    out = [f"{t['chief']}: {BLANK} ({t['sign']})", f"{t['judge']}: {BLANK} ({t['sign']})"]
    out += [f"{t['captain_of'].format(team=_q(lang, _cut(team)))}: {BLANK} ({t['sign']})" for team in teams]
    return out


def text_rows(m: Meeting, lang: str, blank: bool) -> tuple[list[str], list[list[str]]]:
    """The individual stage as a narrow table: per board one row for each team (its player,
    four games and the sum), so that the protocol fits WIDTH columns."""
    t = LABELS[lang]
    header, rows = meeting_rows(m, lang, blank, short=True)
    out = []
    for row in rows:
        board = row[0].split(" ", 1)[0]
        out.append([board, _cut(m.home.name), _cut(row[1]), *row[2:7]])
        out.append(["", _cut(m.away.name), _cut(row[7]), *row[8:13]])
    return [t["board"], t["team"], t["player"], *header[2:7]], out


def text_protocol(tour: Tour, lang: str = "ru", blank: bool = False) -> str:
    """The judges' protocol of every meeting, and the standings when there are more than two
    teams, as plain text of at most WIDTH columns."""
    t = LABELS[lang]
    out = [f"{t['title']}: {tour.title}", f"{t['ruleset']}: {ruleset_name(tour, lang)}",
           f"{t['date']}: {tour.date or BLANK}   {t['place']}: {tour.place or BLANK}"]
    for home, away in tour.meetings():
        m = tour.meeting(home, away)
        out += ["", f"{t['team']} {_q(lang, home.name)} ({t['captain']}: {home.captain or '—'}) — "
                f"{t['team']} {_q(lang, away.name)} ({t['captain']}: {away.captain or '—'})",
                "", t["individual"] + " (" + t["x_is"].format(home=home.name, away=away.name) + ")"]
        header, rows = text_rows(m, lang, blank)
        out.append(_table(header, rows))
        out.append(t["legend"] + f"; {t['board'].lower()} {FREE_BOARD}: {t['free']}")
        out += ["", t["team_stage"].format(s=_seconds(tour), f=tour.factor)]
        summary = [[_cut(label, 48), hv, av] for label, hv, av in _summary(m, tour, lang, blank)]
        out.append(_table(["", _q(lang, _cut(home.name)), _q(lang, _cut(away.name))], summary))
        if blank or _forfeits(m):
            out.append(t["forfeit"])
        if not blank and not m.complete:
            out.append("(" + t["incomplete"] + ")")
        out += ["", winner_line(m, lang, blank)]
    if len(tour.teams) > 2:
        out += ["", t["standings"]]
        out.append(_table([t["team"], t["meetings"], t["won"], t["drawn"], t["lost"], t["points"]],
                          [[_cut(r.team), str(r.won + r.drawn + r.lost), str(r.won), str(r.drawn),
                            str(r.lost), "" if blank else _num(r.points)] for r in tour.standings()]))
    out += ["", *signatures(tour, lang, [team.name for team in tour.teams])]
    return "\n".join(line for block in out for line in _wrap(block)) + "\n"


def _wrap(block: str) -> list[str]:
    """Lines of a block, prose wrapped at WIDTH (tables are narrow by construction)."""
    return [piece for line in block.split("\n")
            for piece in (textwrap.wrap(line, WIDTH, break_on_hyphens=False) or [""])]


def _forfeits(m: Meeting) -> bool:
    """Whether a game of the meeting was lost by forfeit."""
    return any(o.forfeit for s, o in m.outcomes.items() if (s.home, s.away) == (m.home.name, m.away.name))


def _seconds(tour: Tour) -> str:
    s = tour.team_seconds
    return str(int(s)) if s == int(s) else str(s)


CSS = """@page { size: A4; margin: 12mm; }
body { font-family: "DejaVu Sans", Arial, sans-serif; font-size: 10.5pt; color: #000; }
h1 { font-size: 15pt; margin: 0 0 4mm; } h2 { font-size: 12pt; margin: 5mm 0 2mm; }
table { border-collapse: collapse; width: 100%; margin-bottom: 3mm; }
table.boards { table-layout: fixed; font-size: 9pt; }
table.boards col.name { width: 17%; } table.boards col.board { width: 10%; }
th, td { border: 0.6pt solid #000; padding: 1.4mm 1mm; text-align: center; }
td.name { text-align: left; } th { background: #eee; }
td { height: 6mm; } .meeting { page-break-inside: avoid; } .meeting + .meeting { page-break-before: always; }
.note { font-size: 9pt; } .judges { margin-top: 8mm; }
@media print { th { -webkit-print-color-adjust: exact; print-color-adjust: exact; } }"""


def html_protocol(tour: Tour, lang: str = "ru", blank: bool = False) -> str:
    """The judges' protocol as one HTML page that prints on A4 (a blank sheet with `blank`)."""
    t = LABELS[lang]
    e = html.escape
    body = [f"<h1>{e(t['title'])}: {e(tour.title)}</h1>",
            f"<p class=\"note\">{e(t['ruleset'])}: {e(ruleset_name(tour, lang))}</p>",
            f"<p class=\"note\">{e(t['date'])}: {e(tour.date or BLANK)} &nbsp; "
            f"{e(t['place'])}: {e(tour.place or BLANK)}</p>"]
    for home, away in tour.meetings():
        m = tour.meeting(home, away)
        header, rows = meeting_rows(m, lang, blank, short=True)
        body.append("<section class=\"meeting\">")
        hq, aq = e(_q(lang, home.name)), e(_q(lang, away.name))
        body.append(f"<h2>{e(t['team'])} {hq} ({e(t['captain'])}: {e(home.captain or '—')}) — "
                    f"{aq} ({e(t['captain'])}: {e(away.captain or '—')})</h2>")
        body.append(f"<h2>{e(t['individual'])}</h2><p class=\"note\">"
                    f"{e(t['x_is'].format(home=home.name, away=away.name))}</p>")
        cols = "<col class=\"board\">" + ("<col class=\"name\">" + "<col>" * 5) * 2
        body.append(f"<table class=\"boards\">{cols}<tr>" + "".join(f"<th>{e(h)}</th>" for h in header)
                    + "</tr>")
        for r in rows:
            cells = [f"<td class=\"name\">{e(c)}</td>" if i in (1, 7) else f"<td>{e(c)}</td>"
                     for i, c in enumerate(r)]
            body.append("<tr>" + "".join(cells) + "</tr>")
        body.append(f"</table><p class=\"note\">{e(t['legend'])}</p>")
        body.append(f"<h2>{e(t['team_stage'].format(s=_seconds(tour), f=tour.factor))}</h2>")
        body.append(f"<table><tr><th></th><th>{hq}</th><th>{aq}</th></tr>")
        for label, hv, av in _summary(m, tour, lang, blank):
            body.append(f"<tr><td class=\"name\">{e(label)}</td><td>{e(hv)}</td><td>{e(av)}</td></tr>")
        body.append("</table>")
        if blank or _forfeits(m):
            body.append(f"<p class=\"note\">{e(t['forfeit'])}</p>")
        body.append(f"<p><b>{e(winner_line(m, lang, blank))}</b></p>")
        body.append("</section>")
    if len(tour.teams) > 2:
        heads = (t["team"], t["meetings"], t["won"], t["drawn"], t["lost"], t["points"])
        body.append(f"<h2>{e(t['standings'])}</h2><table><tr>"
                    + "".join(f"<th>{e(h)}</th>" for h in heads) + "</tr>")
        for st in tour.standings():
            cells = [st.team, str(st.won + st.drawn + st.lost), str(st.won), str(st.drawn), str(st.lost),
                     "" if blank else _num(st.points)]
            body.append("<tr>" + "".join(f"<td>{e(c)}</td>" for c in cells) + "</tr>")
        body.append("</table>")
    body += [f"<p class=\"judges\">{e(line)}</p>"
             for line in signatures(tour, lang, [team.name for team in tour.teams])]
    return (f"<!DOCTYPE html>\n<html lang=\"{lang}\"><head><meta charset=\"utf-8\">"
            f"<title>{e(t['title'])}: {e(tour.title)}</title><style>\n{CSS}\n</style></head>\n<body>\n"
            + "\n".join(body) + "\n</body></html>\n")
