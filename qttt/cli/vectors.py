"""`qttt vectors generate|check`: write the conformance suites, and police them."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..conformance.check import check_files
from ..conformance.suite import (
    build_suite,
    committed_suite,
    committed_suites,
    coverage,
    read_retired,
    render,
    retired_text,
    shipped_suites,
    suite_file,
    suite_ids,
    vectors_dir,
)
from ..errors import FileError
from ..io import read_json, write_or_check
from ..spec import rules
from ..variant import load_ruleset
from . import add_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("vectors", help="generate or check the conformance vectors",
                       description="Conformance vectors: one JSON suite per ruleset under spec/vectors/.")
    vsub = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    g = vsub.add_parser("generate", help="write the suites (default: every built-in ruleset, edition "
                        "and coverage variant)",
                        description="Write the suite of each ruleset, byte-identical for the same "
                                    "inputs, and print the rule coverage table. Ids that disappear "
                                    "from the committed built-in suites are appended to RETIRED.")
    g.add_argument("rulesets", nargs="*", metavar="RULESET",
                   help="built-in names, canonical names or variant files (default: every built-in)")
    g.add_argument("-o", "--out", type=Path, help="directory to write to (default spec/vectors/)")
    g.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 if a committed file differs from what would be written")
    add_json(g, "the rule coverage as JSON instead of the table: per ruleset, the cases citing each rule "
                "(null: not one of its rules), and the files written or (--check) out of date")
    g.set_defaults(run=run_generate)
    c = vsub.add_parser("check", help="police the suites: schema, ids, spec_refs, descriptions, coverage")
    c.add_argument("files", nargs="*", type=Path,
                   help="suite files (default: every committed suite under spec/vectors/)")
    c.add_argument("--retired", type=Path, help="the retired-id list (default spec/vectors/RETIRED)")
    add_json(c, "the problems as JSON: files, ids checked, problems")
    c.set_defaults(run=run_check)


def run_generate(args: argparse.Namespace) -> int:
    builtin = not args.rulesets
    out_dir: Path = args.out or vectors_dir()
    if args.out is not None and not args.check and not out_dir.is_dir():  # the user's: never created
        why = "is not a directory" if out_dir.exists() else "does not exist"
        raise FileError(None, f"cannot write to -o {out_dir}: it {why}; create it first")
    names = args.rulesets or [name for name, _ in shipped_suites()]
    texts: dict[Path, str] = {}
    suites = []
    old_ids: list[str] = []
    for name in names:
        suite = build_suite(load_ruleset(name))
        suites.append(suite)
        texts[suite_file(name, args.out)] = render(suite)
        committed = committed_suite(name)
        if builtin and committed is not None and committed.is_file():
            old_ids += _committed_ids(committed)
    if builtin and args.out is None:
        retired = vectors_dir() / "RETIRED"
        new_ids = [i for s in suites for i in suite_ids(s)]
        texts[retired] = retired_text(old_ids, new_ids, read_retired(retired))
    missing = sum(1 for s in suites for cited in coverage(s).values() if not cited)
    if args.json:
        stale = [str(p) for p, text in texts.items()
                 if not p.is_file() or p.read_text(encoding="utf-8") != text]
        differ = write_or_check(texts, args.check, "qttt vectors generate")
        print(json.dumps({"coverage": _coverage_json(suites), "missing": missing,
                          "out_of_date" if args.check else "written": stale}, indent=1))
        return 1 if differ or missing else 0
    _print_coverage(suites)
    differ = write_or_check(texts, args.check, "qttt vectors generate")
    if not args.check:
        print(f"wrote {len(texts)} files to {out_dir}")
    return 1 if differ or missing else 0


def _committed_ids(path: Path) -> list[str]:
    """The ids of a committed suite (to retire those that disappear); FileError if it is damaged."""
    try:
        ids = suite_ids(read_json(path, own=True))  # read to be regenerated
        if all(isinstance(i, str) for i in ids):
            return ids
    except (AttributeError, KeyError, TypeError):
        pass
    raise FileError(None, f"{path} is damaged (not a suite with ids); restore it (git checkout "
                    "spec/vectors) before generating, so that its ids can be retired")


def _coverage_json(suites: list[dict[str, Any]]) -> dict[str, dict[str, int | None]]:
    """Per ruleset, the cases citing each rule; None where the rule is not one of the ruleset's."""
    return {str(s["ruleset"]["name"]): {rule: len(coverage(s).get(rule, [])) if rule in s["rules"] else None
                                        for rule in rules()} for s in suites}


def _print_coverage(suites: list[dict[str, object]]) -> None:
    """Rule ids by ruleset: how many cases cite each; '-' not selected, MISSING not covered."""
    tables = [coverage(s) for s in suites]
    heads = [str(s["ruleset"]["name"]) for s in suites]  # type: ignore[index]
    width = max(len(r) for r in rules())
    cols = [max(len(h), 7) for h in heads]
    print(f"{'rule':<{width}}  " + "  ".join(f"{h:>{w}}" for h, w in zip(heads, cols, strict=True)))
    for rule in rules():
        cells = []
        for table, suite, w in zip(tables, suites, cols, strict=True):
            if rule not in suite["rules"]:  # type: ignore[operator]
                cells.append(f"{'-':>{w}}")
            else:
                n = len(table.get(rule, []))
                cells.append(f"{n if n else 'MISSING':>{w}}")
        print(f"{rule:<{width}}  " + "  ".join(cells))


def run_check(args: argparse.Namespace) -> int:
    files = args.files or committed_suites()
    problems, count = check_files(files, args.retired or vectors_dir() / "RETIRED", every=not args.files)
    if args.json:
        print(json.dumps({"files": len(files), "ids": count, "problems": problems}, indent=1))
        return 1 if problems else 0
    for p in problems:
        print(p)
    print(f"{len(files)} files, {count} ids checked, {len(problems)} problems")
    return 1 if problems else 0
