"""The generated pages, each built from spec/ data and the engine."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

from ..conformance.values import value_coverage
from ..family import families
from ..gametype import GAME_TYPES
from ..narration import describe_action, result_text
from ..nested.engine import AWARD_RULES as NESTED_AWARD_RULES
from ..notation import Record, record_to_json
from ..quantum.analysis.claims import compute, load_claims
from ..quantum.engine import Measure, quantum_state
from ..quantum.game import compile_game
from ..quantum.notation import from_notation, to_notation
from ..quantum.scoring import AWARD_TYPES
from ..spec import Rule, rules, spec_dir
from ..svg import board_svg, measurement_svg
from ..variant import (
    AWARD_FIELDS,
    COMMON_FIELDS,
    PARAMETER_BY_NAME,
    PARAMETERS,
    QUANTUM,
    SCORING_KEYS,
    builtin_names,
    format_value,
    load_ruleset,
)
from .examples import EXAMPLES, INTRO, Example, contrasts
from .prose import parameter_statement
from .rulebook import COMPETITION, IMPLEMENTERS, implementer_lines
from .site import Site, ambiguities, img, load_toml, rule_link, rule_number, source_link, sources, table


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
    states = [quantum_state(s) for s in record.states()]  # human notation is quantum
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


def common_page(docs: bool) -> list[str]:
    """The normative mechanics every quantum ruleset shares, with every rule's anchor."""
    page = "rules/common.md"
    out = ["# Common mechanics", "",
           "This page is normative. Each rule has a number (R1, R2, …) and a stable id; the engine, the "
           "checker and the conformance vectors cite the id, and neither numbers nor ids are ever "
           "reused. The rules whose scope names a parameter hold in the form that parameter selects; "
           "each ruleset page states its choices.", ""]
    apart = set(IMPLEMENTERS) | set(COMPETITION)
    others = [f for f in families() if f.scope != "common"]  # families with rules of their own
    scopes = {f.name: {f.scope, *GAME_TYPES[f.name].awards, *_own_parameters(f.name)} for f in others}
    theirs = set().union(*scopes.values())
    groups: list[tuple[str, Callable[[Rule], bool]]] = [
        ("Rules every quantum ruleset shares", lambda r: r.scope == "common" and r.id not in apart),
        ("Rules selected by a parameter or a scoring award",
         lambda r: r.scope != "common" and r.id not in apart and r.scope not in theirs),
        *((f"Rules of the {f.title}", lambda r, s=scopes[f.name]: r.scope in s) for f in others),
        ("Competition rules", lambda r: r.id in COMPETITION),
        ("For implementers: tooling rules", lambda r: r.id in IMPLEMENTERS)]
    for heading, belongs in groups:
        out += [f"## {heading}", ""]
        if heading.startswith("For implementers"):
            out += ["These rules bind software (error reports, records, files, the engine protocol, "
                    "the compiled cores), not players.", ""]
        for rule in rules().values():
            if belongs(rule):
                out += _rule_block(rule, docs, page)
    return out


def _own_parameters(family: str) -> set[str]:
    """The parameters only this family reads."""
    return {p for p in GAME_TYPES[family].parameters
            if all(p not in g.parameters for g in GAME_TYPES.values() if g.name != family)}


def _rule_block(rule: Rule, docs: bool, page: str) -> list[str]:
    num = rule_number(rule.id)
    head = f"### R{num}. {rule.title}"
    lines = [f"{head} {{#{rule.id}}}" if docs else f'<a id="{rule.id}"></a>\n\n{head}', ""]
    family = rule.scope in {f.scope for f in families()}
    scope = ("every quantum ruleset" if rule.scope == "common" else
             f"every {rule.scope} ruleset" if family else f"selected by `{rule.scope}`")
    lines += [f"**R{num}** (`{rule.id}`, {scope}). {rule.statement}", ""]
    if docs and not family:
        chosen = _choices(rule)
        if chosen:
            lines += ["Built-in rulesets: " + "; ".join(chosen) + ".", ""]
    return lines


def _choices(rule: Rule) -> list[str]:
    out = []
    for name in builtin_names(None):
        rs = load_ruleset(name)
        if rule.scope in PARAMETER_BY_NAME and rs.game in PARAMETER_BY_NAME[rule.scope].games:
            out.append(f"[{name}]({name}.md) {rule.scope} = {format_value(rs.value(rule.scope))}")
        elif rule.scope in AWARD_TYPES and any(c.award == rule.scope for c in rs.scoring):
            out.append(f"[{name}]({name}.md)")
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
        if p.name == "end_line" or p.name == "game" or rs.game not in p.games:
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
        if "record_a" not in c:
            rows.append([f"`{c['a']}`", f"`{c['b']}`", f"no difference in {c['searched']:,} games", "", ""])
            continue
        rows.append([f"`{c['a']}`", f"`{c['b']}`", f"`{c['record_a']}`", c["outcome_a"],
                     f"`{c['record_b']}`: " + c["outcome_b"]])
    return [*out, *table(["first", "second", "game under the first", "result", "under the second"], rows)]


def comparison_page(root: Path) -> list[str]:
    """All rulesets side by side, and the committed analysis results."""
    names = builtin_names()
    rsets = [load_ruleset(n) for n in names]
    out = ["# Comparison of the rulesets", "",
           "Every built-in ruleset side by side; a value that differs from the parameter's default "
           "is in bold. Each row is one parameter of a [variant file](variant-files.md).", ""]
    rows = []
    for p in PARAMETERS:
        if QUANTUM not in p.games:
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
    return out


def scale_section(folder: Path) -> list[str]:
    """Random play at scale beside published statistics (results/analysis/scale/runs.toml)."""
    index = folder / "runs.toml"
    if not index.is_file():
        return []
    data = load_toml(index)
    pub = data["published"]
    runs = [(r, json.loads((folder / r["result"]).read_text(encoding="utf-8"))["random"])
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
        data = json.loads(f.read_text(encoding="utf-8"))
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


def verification_page(root: Path) -> list[str]:
    """The checker's report, from the committed results/verification/report.json."""
    out = ["# Verification report", "",
           "The consistency checker (`qttt check --all --json`) proves properties of every built-in "
           "ruleset and searches for the cases the sources leave open. This page renders its committed "
           "output, `results/verification/report.json`.", ""]
    report = root / "results" / "verification" / "report.json"
    if not report.is_file():
        return [*out, "No report is committed yet. Produce it with "
                "`qttt check --all --json > results/verification/report.json`; the next site build "
                "renders it.", ""]
    from verify.cli import markdown
    return out + markdown(json.loads(report.read_text(encoding="utf-8")))


_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def _delink(text: str) -> str:
    """Relative links of a copied page become code text (their targets are outside the site)."""
    def repl(m: re.Match[str]) -> str:
        target = m[2]
        if target.startswith(("http://", "https://", "#", "mailto:")):
            return m[0]
        return f"{m[1]} (`{target}`)"
    return _LINK.sub(repl, text)


def conformance_page(root: Path) -> list[str]:
    """The conformance suite: the protocol text and the vector files."""
    out = ["# Conformance suite", "",
           "Other implementations prove they follow these rules by running the vectors under "
           "`spec/vectors/` through the runner protocol of `spec/protocol.md`. Each vector cites the "
           "rule it exercises by id (see [common mechanics](rules/common.md)).", ""]
    vectors = sorted((root / "spec" / "vectors").glob("**/*.json*"))
    out += ["## Vector files", ""]
    if not vectors:
        out += ["No vector files are committed yet.", ""]
    for f in vectors:
        out.append(f"- `{f.relative_to(root).as_posix()}`: {_count_cases(f)}")
    out.append("")
    out += value_coverage_lines(vectors)
    protocol = root / "spec" / "protocol.md"
    out += ["## Protocol", ""]
    if protocol.is_file():
        body = protocol.read_text(encoding="utf-8")
        body = re.sub(r"^(#+)", r"#\1", body, flags=re.M)  # below this page's title
        out += [_delink(body).rstrip(), ""]
    else:
        out += ["`spec/protocol.md` is not committed yet.", ""]
    return out


def value_coverage_lines(vectors: list[Path]) -> list[str]:
    """The vocabulary readings and the suites that pin each (qttt.conformance.values)."""
    suites = []
    for f in vectors:
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and data.get("suite") == "qttt-conformance-vectors":
            suites.append(data)
    rows = [[f"`{what}`", value, ", ".join(names) or "**none**"]
            for what, value, names in value_coverage(suites)]
    return ["## Parameter values covered", "",
            "Every reading of the rule vocabulary (each allowed value of each parameter, each award, "
            "pattern and award field) and the suites whose ruleset uses it. Values no built-in "
            "ruleset uses are pinned by the coverage variants of `spec/coverage/`, whose suites are "
            "under `spec/vectors/coverage/`; a test fails when a reading is covered by no suite.", "",
            *table(["parameter", "value", "suites"], rows)]


def _count_cases(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return f"{sum(1 for line in text.splitlines() if line.strip())} lines"
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return "not JSON"
    for key in ("cases", "tests", "vectors"):
        if isinstance(data, dict) and isinstance(data.get(key), list):
            return f"{len(data[key])} {key}"
    return f"{len(data)} entries" if isinstance(data, list) else "one document"


def sources_page() -> list[str]:
    out = ["# Sources", "", "The documents the rulesets rest on, by the ids that variant files cite in "
           "`sources` and the [ambiguity register](ambiguities.md) cites; data in `spec/sources.toml`.", ""]
    users: dict[str, list[str]] = {}
    for n in builtin_names():
        for s in load_ruleset(n).sources:
            users.setdefault(s, []).append(f"[{n}](rules/{n}.md)")
    for sid, src in sources().items():
        out += [f"## {sid} {{#{sid}}}", "", src["citation"], ""]
        facts = [f"- Kind: {src['kind']}; language: {src['language']}"]
        if "doi" in src:
            facts.append(f"- DOI: [{src['doi']}](https://doi.org/{src['doi']})")
        if "url" in src:
            facts.append(f"- Address: <{src['url']}>")
        if "translates" in src:
            facts.append(f"- A rendering of: <{src['translates']}>")
        if "seed" in src:
            facts.append(f"- The project's copy: seed `{src['seed']}`")
        if sid in users:
            facts.append("- Cited by: " + ", ".join(users[sid]))
        out += [*facts, "", src["note"], ""]
    return out


def claims_page() -> list[str]:
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


def ambiguities_page() -> list[str]:
    out = ["# Ambiguity register", "",
           "Where the sources disagree or leave room: what each says (paraphrased), the reading this "
           "project adopts, and the parameter of a [variant file](variant-files.md) that selects the "
           "others. Data in `spec/ambiguities.toml`.", ""]
    for p in ambiguities():
        out += [f"## {p['title']} {{#{p['id']}}}", ""]
        rows = [[f"[{s['source']}](sources.md#{s['source']})", s["text"]] for s in p["says"]]
        out += table(["source", "what it says"], rows)
        out += [f"**Our reading.** {p['reading']}", ""]
        param = f"`{p['parameter']}`" if p["parameter"] else "none"
        out += [f"**Parameter:** {param}. {p['other']}", ""]
        if p["rules"]:
            out += ["**Rules:** " + ", ".join(rule_link(r, "ambiguities.md") for r in p["rules"]), ""]
    return out


def parameters_page() -> list[str]:
    out = ["# Parameter reference", "", "Every key of a [variant file](../variant-files.md), from the "
           "vocabulary the engine interprets (`qttt.variant.PARAMETERS` and `AWARD_FIELDS`).", "",
           "## `[rules]`", ""]
    rows = []
    for p in PARAMETERS:
        allowed = (f"{p.allowed[0]} to {p.allowed[-1]}" if p.type is int
                   else "same, or a list of block lists, one per cell position" if p.name == "route"
                   else "a list of " + ", ".join(format_value(a) for a in p.allowed) if p.type is tuple
                   else ", ".join(format_value(a) for a in p.allowed))
        rows.append([f"`{p.name}`", allowed, format_value(p.default), p.description,
                     rule_link(p.rule, "reference/parameters.md")])
    out += table(["key", "allowed", "default", "description", "rule"], rows)
    out += ["## `[[scoring]]`", "", "Keys every quantum component takes (nested-classical awards "
            "take only `award` and their own keys):", ""]
    out += table(["key", "default", "description"],
                  [[f"`{k}`", format_value(d) if d is not None else "required" if k == "award"
                    else "see text", t] for k, (_, d, t) in COMMON_FIELDS.items()])
    for award, fields in AWARD_FIELDS.items():
        rule = AWARD_TYPES[award].rule if award in AWARD_TYPES else NESTED_AWARD_RULES[award]
        link = rule_link(rule, "reference/parameters.md")
        out += [f"### award = \"{award}\"", "", f"Rule: {link}.", ""]
        out += table(["key", "default", "description"],
                      [[f"`{k}`", format_value(d), t] for k, (_, d, t) in fields.items()])
    out += ["## Canonical names", "", "A canonical name is a base ruleset and the keys that differ from "
            "it, `base(key=value,...)`: any `[rules]` key, `scoring` as JSON, and these keys, each of "
            "which sets one field of every scoring component of one award:", ""]
    out += table(["key", "sets", "example"],
                  [[f"`{k}`", f"`{field}` of every `{award}` component", f"`{example}`"]
                   for k, (award, field, example) in SCORING_KEYS.items()])
    return out


def cli_page() -> list[str]:
    """The help of `qttt` and of every subcommand, from the argument parser."""
    from ..cli import build_parser
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "96"
    try:
        parser = build_parser()
        out = ["# Command line", "", "Generated from `qttt.cli.build_parser()`.", "",
               "```text", parser.format_help().rstrip(), "```", ""]
        for action in parser._subparsers._group_actions if parser._subparsers else ():
            choices = getattr(action, "choices", None) or {}
            for name, sub in sorted(choices.items()):
                out += [f"## qttt {name}", "", "```text", sub.format_help().rstrip(), "```", ""]
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old
    return out


def home_page(site: Site) -> list[str]:
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
