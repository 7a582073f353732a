"""The generated pages, each built from spec/ data and the engine."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

from verify.cli import markdown

from ..canonical import SCORING_KEYS
from ..cli import build_parser
from ..conformance.values import value_coverage
from ..family import families
from ..gametype import GAME_TYPES
from ..jsonstream import loads
from ..spec import Rule, rules
from ..variant import builtin_names, load_ruleset
from ..vocabulary import AWARD_FIELDS, COMMON_FIELDS, PARAMETER_BY_NAME, PARAMETERS, format_value
from .rulebook import COMPETITION, IMPLEMENTERS
from .site import ambiguities, rule_link, rule_number, sources, table


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
    lines += value_readings(rule)
    if docs and not family:
        chosen = _choices(rule)
        if chosen:
            lines += ["Built-in rulesets: " + "; ".join(chosen) + ".", ""]
    return lines


def value_readings(rule: Rule) -> list[str]:
    """The reading of each declared value of the parameter a rule is scoped to (the declaration in
    qttt.vocabulary states them; the rule's statement names none), as a list."""
    p = PARAMETER_BY_NAME.get(rule.scope)
    if p is None or not p.values:
        return []
    words = {"n": "n", "line": "ending line", "p": "p", "q": "1 − p"}
    return [*(f"- `{p.name} = {format_value(v.value)}`: {v.reading.format(**words)}" for v in p.values), ""]


def _choices(rule: Rule) -> list[str]:
    out = []
    for name in builtin_names(None):
        rs = load_ruleset(name)
        if rule.scope in PARAMETER_BY_NAME and rs.game in PARAMETER_BY_NAME[rule.scope].games:
            out.append(f"[{name}]({name}.md) {rule.scope} = {format_value(rs.value(rule.scope))}")
        elif any(c.award == rule.scope for c in rs.scoring):
            out.append(f"[{name}]({name}.md)")
    return out


def verification_page(root: Path) -> list[str]:
    """The checker's report, from the committed results/verification/report.json."""
    out = ["# Verification report", "",
           "The consistency checker (`qttt check --all --json-document`) proves properties of every "
           "built-in ruleset and searches for the cases the sources leave open. This page renders its "
           "committed output, `results/verification/report.json`.", ""]
    report = root / "results" / "verification" / "report.json"
    if not report.is_file():
        return [*out, "No report is committed yet. Produce it with "
                "`qttt check --all --json-document --no-timing > results/verification/report.json`; the next "
                "site build renders it.", ""]
    return out + markdown(loads(report.read_text(encoding="utf-8")))


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
            data = loads(f.read_text(encoding="utf-8"))
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
        data = loads(text)
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
    for n in builtin_names(None):
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
        if p.get("design"):
            out += ["**Design findings kept on purpose** (`qttt check` reports them): "
                    + ", ".join(f"`{v}`" for v in p["design"]), ""]
    return out


def parameters_page() -> list[str]:
    out = ["# Parameter reference", "", "Every key of a [variant file](../variant-files.md), from the "
           "vocabulary the engine interprets (`qttt.vocabulary.PARAMETERS` and `AWARD_FIELDS`).", "",
           "## `[rules]`", ""]
    rows = []
    for p in PARAMETERS:
        allowed = (f"{p.allowed[0]} to {p.allowed[-1]}" if p.type in (int, Fraction)
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
    award_rules = {award: rule for f in families() for award, rule in f.award_rules.items()}
    for award, fields in AWARD_FIELDS.items():
        rule = award_rules[award]
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
