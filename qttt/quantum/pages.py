"""The quantum family's pages: each quantum ruleset's page with its worked examples, the home page
with the cycle example, and the comparison of the quantum rulesets with the committed analysis."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from ..analysis.piecewise import Polynomial
from ..docgen.examples import EXAMPLES, INTRO, Example, contrasts
from ..docgen.prose import parameter_statement
from ..docgen.rulebook import implementer_lines
from ..docgen.site import Site, img, load_toml, rule_link, source_link, sources, table
from ..jsonstream import loads
from ..notation import Record, record_to_json
from ..spec import spec_dir
from ..svg import curve_svg
from ..variant import builtin_names, load_ruleset
from ..vocabulary import PARAMETERS, format_value
from .analysis.claims import compute, load_claims
from .engine import Measure, quantum_state
from .family import FAMILY
from .game import compile_game
from .narration import describe_action, result_text
from .notation import from_notation, to_notation
from .rulebook import CHANCE_PAGE, chance_page
from .svg import board_svg, measurement_svg


def branch_text(values: dict[str, str | None], chosen: int, by: str) -> str:
    """A measurement's two branches with the solver's value x − o of each, the chosen one first."""
    def val(v: str | None) -> str:
        return "not solved" if v is None else v
    others = [f"square {int(c) + 1}: {val(v)}" for c, v in values.items() if int(c) != chosen]
    best = "x" if by == "x" else "o"
    return (f"Solver's value x − o with perfect play after each branch: square {chosen + 1} "
            f"(chosen): {val(values[str(chosen)])}; " + "; ".join(others)
            + f" ({best.upper()} wants it {'high' if best == 'x' else 'low'}).")


def example_lines(site: Site, ruleset_name: str, ex: Example, page: str, level: str = "###",
                  steps_drawn: bool = True) -> list[str]:
    """A worked example: the record, then each action in words with the board after it (a measured
    cycle with its two outcomes and the solver's value of each), the final board."""
    record = from_notation(ex.notation)
    states = [quantum_state(s) for s in record.states()]
    source = f" Source: {source_link(ex.source, page)}." if ex.source else ""
    out = [f"{level} {ex.title}", "", ex.shows + source, "", "Record, in human notation (squares from "
           "1) and as JSON (cells from 0):", "", "```text", to_notation(record), "```", "",
           "```json", json.dumps(record_to_json(record)), "```", ""]
    branches = {b["index"]: b for b in contrasts().get("examples", {}).get(f"{ruleset_name}/{ex.slug}", [])}
    for i, action in enumerate(record.actions):
        before, after = states[i], states[i + 1]
        out += [f"{i + 1}. `{to_notation(Record(ruleset_name, record.actions[:i + 1])).split()[-1]}` "
                + describe_action(before, action, after), ""]
        if isinstance(action, Measure):
            path = site.board(f"{ruleset_name}-{ex.slug}-measure-{i + 1}", measurement_svg(before))
            out += ["    " + img(path, page, f"the cycle before action {i + 1} and its two outcomes"), ""]
            if i in branches:
                b = branches[i]
                out += ["    " + branch_text(b["values"], b["chosen"], b["by"]), ""]
        elif steps_drawn and i + 1 < len(record.actions) and after.phase != "measure":
            small = board_svg(after, size=56.0 * after.ruleset.board)
            path = site.board(f"{ruleset_name}-{ex.slug}-step-{i + 1}", small)
            out += ["    " + img(path, page, f"the board after action {i + 1}"), ""]
    final = states[-1]
    caption = result_text(final) if final.over else "the position after the last action"
    path = site.board(f"{ruleset_name}-{ex.slug}-final", board_svg(final, caption=caption.split(' Note')[0]))
    out += [img(path, page, "the final board"), "", f"**{result_text(final)}**", ""]
    return out


def ruleset_page(site: Site, name: str, docs: bool) -> list[str]:
    """A built-in ruleset: its numbered rules, parameters, variant file and worked examples."""
    rs = load_ruleset(name)
    page = f"rules/{name}.md"
    text = (spec_dir() / "variants" / f"{name}.toml").read_text(encoding="utf-8")
    extends = load_toml(spec_dir() / "variants" / f"{name}.toml")["variant"].get("extends")

    def link(rid: str) -> str:
        return rule_link(rid, page) if docs else f"[`{rid}`](common.md#{rid})"

    def src(sid: str) -> str:
        return source_link(sid, page) if docs else f"`{sid}`"

    out = [f"# {name}: {rs.title}", "", rs.summary, "",
           f"- Canonical name: `{rs.canonical}`" + (f" (extends `{extends}`)" if extends else ""),
           "- Sources: " + ", ".join(src(s) for s in rs.sources),
           *([f"- The rules as a player reads them: [rulebook](../rulebook/{name}.md)"] if docs else []), "",
           "## Rules", "",
           "All rules of the [common mechanics](common.md) hold. This ruleset selects:", ""]
    i = 0
    for p in PARAMETERS:
        if p.name in ("end_line", "p", "game") or rs.game not in p.games:  # end_line, p: in end's, collapse's
            continue
        i += 1
        out.append(f"{i}. **§{i}** {parameter_statement(rs, p.name)} "
                   f"({link(p.rule)})")
    out.append(f"{i + 1}. **§{i + 1}** Scores are awarded on the final board, as the sum of the "
               f"components below ({link('score-at-end')}).")
    for k, award in enumerate(compile_game(rs).awards):
        j = i + 2 + k
        out.append(f"{j}. **§{j}** {award.describe()} ({link(award.rule)})")
    out.append("")
    if not docs:
        return out
    out += implementer_lines(name, page)
    out += ["## Parameters", "", "Values that differ from the default are in bold.", ""]
    rows = []
    for p in PARAMETERS:
        if rs.game not in p.games:
            continue
        v = format_value(rs.value(p.name))
        shown = f"**{v}**" if rs.value(p.name) != p.default else v
        rows.append([f"`{p.name}`", shown, format_value(p.default), p.description])
    out += table(["parameter", "value", "default", "description"], rows)
    out += ["### Scoring components", ""]
    srows = []
    for c in rs.scoring:
        settings = ", ".join(f"{k} = {format_value(v)}" for k, v in c.to_dict().items()
                             if k not in ("award", "pattern", "length"))
        srows.append([c.award, c.pattern, str(c.length or rs.board), settings])
    out += table(["award", "pattern", "length", "settings"], srows)
    out += ["### The variant file", "", f"`spec/variants/{name}.toml`:", "",
            "```toml", text.rstrip(), "```", ""]
    out += ["## Worked examples", "",
            "Each example is a game record; the engine replays it and draws every board.", ""]
    for ex in EXAMPLES.get(name, ()):
        out += example_lines(site, name, ex, page)
    out += contrast_lines(name)
    return out


def contrast_lines(name: str) -> list[str]:
    """Games telling `name` apart from the other rulesets and from itself with one parameter changed
    (results/contrasts.json), side by side."""
    data = contrasts()
    found = [c for c in [*data.get("pairs", []), *data.get("parameters", [])] if name in (c["a"], c["b"])
             and (c["a"] == name or c["b"] in builtin_names())]
    if not found:
        return []
    out = ["## Games that tell it apart", "",
           f"For each other ruleset on the same board, and for `{name}` with one parameter changed: "
           f"the shortest game found in {data['games_per_search']:,} seeded random games that is complete "
           "under the first and ends otherwise under the second, with the same placements and each "
           "measurer choosing the branch the solver rates best for them under their own ruleset. "
           "Generated by `python -m qttt.quantum.analysis.contrast`.", ""]
    rows = []
    for c in found:
        if "skipped" in c:
            rows.append([f"`{c['a']}`", f"`{c['b']}`", "not searched: " + c["skipped"], "", ""])
            continue
        if "record_a" not in c:
            rows.append([f"`{c['a']}`", f"`{c['b']}`", f"no difference in {c['searched']:,} games", "", ""])
            continue
        rows.append([f"`{c['a']}`", f"`{c['b']}`", f"`{c['record_a']}`", c["outcome_a"],
                     f"`{c['record_b']}`: " + c["outcome_b"]])
    return [*out, *table(["first", "second", "game under the first", "result", "under the second"], rows)]


def comparison_page(site: Site, root: Path) -> list[str]:
    """All rulesets side by side, and the committed analysis results."""
    names = builtin_names()
    rsets = [load_ruleset(n) for n in names]
    out = ["# Comparison of the rulesets", "",
           "Every built-in ruleset side by side; a value that differs from the parameter's default "
           "is in bold. Each row is one parameter of a [variant file](variant-files.md).", ""]
    rows = []
    for p in PARAMETERS:
        if FAMILY.name not in p.games:
            continue
        values = [r.value(p.name) for r in rsets]
        vals = [f"**{format_value(v)}**" if v != p.default else format_value(v) for v in values]
        rows.append([f"`{p.name}`", *vals])
    out += table(["parameter", *[f"[{n}](rules/{n}.md)" for n in names]], rows)
    out += ["## Scoring", ""]
    for n, r in zip(names, rsets, strict=True):
        words = " ".join(a.describe() for a in compile_game(r).awards)
        out.append(f"- [{n}](rules/{n}.md): {words}")
    out += ["", "## How results differ", ""]
    files = sorted((root / "results" / "analysis").glob("*.json"))
    if not files:
        out += ["No analysis results are committed yet. When JSON results land under `results/analysis/`, "
                "the next site build renders them here.", ""]
    if files:
        out += analysistable(files)
    out += scale_section(root / "results" / "analysis" / "scale")
    out += chance_section(site, root / "results" / "analysis" / "chance")
    return out


CURVE_COLOURS = ("#c62828", "#1565c0", "#ef9a9a", "#90caf9")


def chance_section(site: Site, folder: Path) -> list[str]:
    """The value of the chance rulesets over p (results/analysis/chance/runs.toml): a plot of the
    exact values with each crossing of zero marked, the table, and the comparison with the paper."""
    index = folder / "runs.toml"
    if not index.is_file():
        return []
    data = load_toml(index)
    runs = [(r, loads((folder / r["result"]).read_text(encoding="utf-8"))["curve"]) for r in data["run"]]
    series = [(r["label"], CURVE_COLOURS[i % len(CURVE_COLOURS)],
               [(float(Fraction(q["p"])), float(Fraction(q["value"]))) for q in c["points"]],
               [float(Fraction(x["lo"])) for x in c["crossings"]]) for i, (r, c) in enumerate(runs)]
    path = site.board("chance-value-curve", curve_svg(
        series, "the expected value x − o under perfect play against p, for each reading", "p",
        "expected x − o"))
    grid = sorted({q["p"] for _, c in runs for q in c["points"]}, key=Fraction)
    rows = [[p, *(next((q["value"] for q in c["points"] if q["p"] == p), "") for _, c in runs)] for p in grid]
    out = ["## Chance collapses: the value over p", "", data["intro"], "",
           img(path, "comparison.md", "the value against p for each reading, crossings of zero circled"), "",
           *table(["p", *(r["label"] for r, _ in runs)], rows)]
    for r, c in runs:
        for x in c["crossings"]:
            near = f" (p ≈ {x['decimal']})" if x.get("decimal") else ""
            where = (f"exactly at p = {x['lo']}" if x["lo"] == x["hi"]
                     else f"between p = {x['lo']} and {x['hi']}{near}")
            root = (f", the root there of {Polynomial.of(Fraction(c) for c in x['root_of']).text()}"
                    if "root_of" in x else "")
            out.append(f"- {r['label']}: the value leaves its sign {where}{root}.")
        if not c["crossings"]:
            out.append(f"- {r['label']}: no crossing of zero between the tabulated points.")
    out += ["", data["comparison"], ""]
    out += [f"- {r['label']}: `{r['command']}`, {r['time']}." for r, _ in runs]
    return [*out, ""]


def scale_section(folder: Path) -> list[str]:
    """Random play at scale beside published statistics (results/analysis/scale/runs.toml)."""
    index = folder / "runs.toml"
    if not index.is_file():
        return []
    data = load_toml(index)
    pub = data["published"]
    runs = [(r, loads((folder / r["result"]).read_text(encoding="utf-8"))["random"])
            for r in data["run"]]

    def pct(part: int, n: int) -> str:
        return f"{part / n:.2%}"

    rows = [["games", pub["games"], *(f"{res['games']:,}" for _, res in runs)]]
    for key, label in (("x", "X wins (the better line of four)"), ("o", "O wins"),
                       ("neither", "draws (no line of four)")):
        rows.append([label, f"{pub[key]:.1%}",
                     *(pct(res["line_outcomes"][key], res["games"]) for _, res in runs)])
    for key, label in (("x", "mean score X"), ("o", "mean score O")):
        rows.append([label, f"{pub['mean_' + key]}", *(f"{res['mean'][key]:.3f}" for _, res in runs)])
    rows.append(["mean x − o (95% CI)", "not published",
                 *(f"{res['mean']['diff']:.4f} ({res['ci95']['diff'][0]:.4f} to {res['ci95']['diff'][1]:.4f})"
                   for _, res in runs)])
    rows.append(["higher score X / O / equal", "not published",
                 *(" / ".join(pct(res["outcomes"][k], res["games"]) for k in ("x", "o", "draw"))
                   for _, res in runs)])
    src = sources()[pub["source"]]
    out = ["## 4×4 random play at scale", "", data["intro"], "",
           *table(["figure", f"[{pub['who']}]({src['url']}) (published)",
                    *(r["label"] for r, _ in runs)], rows)]
    for r, _ in runs:
        out.append(f"- {r['label']}: `{r['command']}`, {r['time']}.")
    return [*out, ""]


def analysistable(files: list[Path]) -> list[str]:
    """One row per committed analysis result: game count, random play and perfect play."""
    rows = []
    for f in files:
        data = loads(f.read_text(encoding="utf-8"))
        count, rand, solved = data.get("count"), data.get("random"), data.get("solve")
        games = f"{int(count['games']):,}" if count and count["complete"] else "not counted"
        if rand:
            lo, hi = rand["ci95"]["diff"]
            n, won = rand["games"], rand["outcomes"]
            random_cell = f"{rand['mean']['diff']:.4f} ({lo:.4f} to {hi:.4f}), {n:,} games"
            share = (f"{won['x'] / n:.1%} / {won['o'] / n:.1%} / {won['draw'] / n:.1%}")
        else:
            random_cell = share = "not sampled"
        value = solved["value"] if solved else "not solved"
        rows.append([f"[{f.stem}](rules/{f.stem}.md)", games, random_cell, share, value])
    return [*table(["ruleset", "complete games", "random play: mean x − o (95% CI)",
                     "random play: X / O / draw", "perfect play: x − o"], rows),
            "Results from `results/analysis/*.json` (`qttt analyze`); the tests recompute the counts "
            "and replay the random games and principal variations.", ""]


def home_page(site: Site, root: Path) -> list[str]:
    """The game in a minute, with the Wikipedia cycle example drawn by the engine."""
    record = from_notation(INTRO.notation)
    states = [quantum_state(s) for s in record.states()]
    steps = [f"{i + 1}. `{tok}` {describe_action(states[i], a, states[i + 1])}"
             for i, (tok, a) in enumerate(zip(to_notation(record).split()[1:], record.actions, strict=True))]
    pending = states[-1]
    first = site.board("intro-after-x1", board_svg(states[1], caption="X1 in squares 1 and 4"))
    measure = site.board("intro-cycle-measure", measurement_svg(pending))
    # measurement_svg draws the cycle on top and the outcomes below it, the edge's first cell left
    why = {0: "square 1 is O's, so X1 must take square 4, so X3 must take square 8, and O2, which can "
              "no longer be in square 1, takes square 5.",
           7: "square 8 is O's, so X3 must take square 4, so X1 must take square 1, so O2 again takes "
              "square 5."}
    outcomes = [f"- **O4 to square {c + 1}** (the board below, {side}): {why[c]}"
                for c, side in zip(pending.edges[pending.pending or 0], ("left", "right"), strict=True)]
    return [
        "# Quantum tic-tac-toe", "",
        "Allan Goff's quantum tic-tac-toe, stated precisely: the rules as data, an engine, a checker "
        "that proves the rules consistent, and conformance tests any implementation can run.", "",
        "## The game in a minute", "",
        "- Squares are numbered 1 to 9, row by row. X places first; move *k* is X's when *k* is odd "
        "and O's when it is even.",
        "- A move puts **two spooky marks** in two different squares: *x1* in squares 1 and 4 means "
        "\"X1 is in square 1 or in square 4, not yet known which\". A square can hold many spooky marks.",
        "- Each move joins its two squares. When a move joins two squares that are already joined by a "
        "chain of moves, it closes a **cycle**.",
        "- The other player then **measures** the cycle: they choose which of its two squares the "
        "cycle-closing mark lands in. That choice forces every mark of the cycle, and of every chain "
        "hanging from it, into one square each: those marks become **classical** (drawn large) and their "
        "squares are settled for good.",
        "- Then that player places their own move. Lines of three classical marks score; what ends the "
        "game and how lines score is what the [rulesets](comparison.md) differ on.", "",
        img(first, "index.md", "X1 placed in squares 1 and 4"), "",
        "## The cycle example", "",
        f"The record `{INTRO.notation}`. {INTRO.shows}", "",
        *steps, "",
        "The shaded squares are the cycle; lines join the two marks of each move. O2 hangs from square 1 "
        "as a stem. X must measure, choosing a square for O4. The picture shows the cycle on top and "
        "its two outcomes below:", "",
        img(measure, "index.md", "the cycle and its two outcomes"), "",
        *outcomes, "",
        "Either way every square of the component holds exactly one classical mark, and the stem follows "
        f"the cycle ({rule_link('collapse-component', 'index.md')}).", "",
        "## Where to go next", "",
        "- [Common mechanics](rules/common.md): the normative rules, each with a stable id.",
        "- The rulesets: " + ", ".join(f"[{n}](rules/{n}.md)" for n in builtin_names())
        + "; and their [comparison](comparison.md).",
        "- [Ambiguity register](ambiguities.md) and [sources](sources.md).",
        "- [Write your own variant](variant-files.md), the [command line](reference/cli.md) and the "
        "[Python API](reference/api.md).",
        "- [Verification report](verification.md) and [conformance suite](conformance.md).",
    ]


def claims_page(site: Site, root: Path) -> list[str]:
    """Each figure a source states beside what this project computes (spec/claims.toml)."""
    out = ["# Claims checked", "",
           "Every number the sources state that the engine can check, beside what this project "
           "computes. Data in `spec/claims.toml`; the computations are `qttt.quantum.analysis.claims`, and "
           "the tests recompute every claim that plays games. Results of long runs come from "
           "`results/analysis/` and the [verification report](verification.md); the 4×4 random-play "
           "statistics of a CodeCup competitor are compared on the [comparison page](comparison.md).", ""]
    rows = []
    for c in load_claims():
        found = compute(c)
        if c.how == "scale":
            found += "; the whole table is on the [comparison page](comparison.md)"
        note = f" ({c.check})" if c.check else ""
        rows.append([c.says, source_link(c.source, "claims.md"), c.published, found + note])
    return [*out, *table(["claim", "source", "published", "computed here"], rows)]


# The site pages the quantum family contributes (its `site` tool): docs path -> page maker.
SITE_PAGES = {"index.md": home_page, "comparison.md": comparison_page, "claims.md": claims_page,
              CHANCE_PAGE: chance_page}
