"""`qttt vectors check`: police the suites themselves, as JSON-Schema-Test-Suite's check does.

A suite passes when it validates against spec/schema/vectors.schema.json, every id is unique
across all suites, starts with the ruleset's name and is not retired, every spec_ref names a
rule of spec/rules.toml that the ruleset selects, descriptions are short and unique within the
file, every rule id of the ruleset is cited by at least one case, and every setting of the ruleset
that is not the default is told apart by a case (qttt.conformance.telling: the case expects
something else when the default plays it), so that the suite fails an engine that ignores the
value. Every committed suite together: each value of the vocabulary is told apart by some suite.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import FileError, QtttError
from ..io import read_json
from ..notation import Json
from ..spec import rules
from ..variant import load_ruleset
from .casespec import MAX_DESCRIPTION
from .scope import rule_ids
from .suite import coverage, read_retired, suite_prefix
from .telling import to_tell, told
from .validator import Validator, load_schema
from .values import Reading


def check_suite(suite: Json, retired: set[str], seen: dict[str, str], where: str,
                told_readings: set[Reading] | None = None) -> list[str]:
    """Problems of one suite; `seen` maps ids already met (in other files) to their file; the
    readings its cases tell apart from the default are added to `told_readings`."""
    problems = [f"{where}: schema: {e}" for e in Validator(load_schema("vectors.schema.json")).errors(suite)]
    if problems:
        return problems
    name = suite["ruleset"]["name"]
    try:
        rs = load_ruleset(suite["ruleset"]["canonical"])
        expected_rules = list(rule_ids(rs))
    except QtttError as e:
        return [f"{where}: ruleset {suite['ruleset']['canonical']!r} cannot be loaded: {e}"]
    if suite["rules"] != expected_rules:
        problems.append(f"{where}: rules list differs from the ruleset's rule ids {expected_rules}")
    descriptions: dict[str, str] = {}
    for item in [*suite["cases"], *suite["perft"]]:
        problems += [f"{where}: {p}" for p in _item_problems(item, name, expected_rules, retired, seen,
                                                             descriptions)]
        seen[item["id"]] = where
    for rule, cited in coverage(suite).items():
        if not cited and rule in expected_rules:
            problems.append(f"{where}: rule {rule} is not exercised by any case")
    yes, no = told(suite, rs)
    for setting in no:
        problems.append(f"{where}: no case tells {setting.text} from the default {setting.default}: the "
                        "suite passes an engine that ignores the value")
    if told_readings is not None:
        told_readings.update(r for setting in yes for r in setting.readings)
    return problems


def _item_problems(item: Json, name: str, expected_rules: list[str], retired: set[str],
                   seen: dict[str, str], descriptions: dict[str, str]) -> list[str]:
    """Problems of one case or perft entry: its id (unique, not retired, prefixed by the ruleset
    prefix, suite_prefix), its description (short, unique) and the rule ids it cites."""
    cid, text = item["id"], item["description"]
    problems = []
    if cid in seen:
        problems.append(f"id {cid} is also used in {seen[cid]}")
    if cid in retired:
        problems.append(f"id {cid} is retired (spec/vectors/RETIRED) and may not be reused")
    prefix = suite_prefix(name)
    if not cid.startswith(prefix + "."):
        problems.append(f"id {cid} does not start with the ruleset's prefix {prefix}.")
    if len(text) > MAX_DESCRIPTION:
        problems.append(f"{cid}: description longer than {MAX_DESCRIPTION} characters")
    if text in descriptions:
        problems.append(f"{cid}: same description as {descriptions[text]}")
    descriptions[text] = cid
    known = rules()
    for ref in item.get("spec_ref", []):
        if ref not in known:
            problems.append(f"{cid}: spec_ref {ref} is not a rule of spec/rules.toml")
        elif ref not in expected_rules:
            problems.append(f"{cid}: spec_ref {ref} is not a rule of ruleset {name}")
    return problems


def check_files(paths: list[Path], retired_path: Path, every: bool = False) -> tuple[list[str], int]:
    """Problems of the given suite files together, and the number of ids checked. With `every`
    (the paths are every committed suite), also each reading of the vocabulary that no suite tells
    apart from its default (`telling.to_tell`)."""
    retired_list = read_retired(retired_path)
    problems = [f"{retired_path}: {i} is listed twice" for i in sorted(set(retired_list))
                if retired_list.count(i) > 1]
    retired = set(retired_list)
    seen: dict[str, str] = {}
    told_readings: set[Reading] = set()
    for path in paths:
        try:
            suite = read_json(path)
        except FileError as e:
            problems.append(e.message)
            continue
        problems += check_suite(suite, retired, seen, str(path), told_readings)
    if every:
        problems += [f"{what} = {value}: no suite tells it from the default (no suite's ruleset has the "
                     "value, or none of its cases changes without it)"
                     for what, value in to_tell() if (what, value) not in told_readings]
    return problems, len(seen)
