"""`qttt vectors generate|check`: write the conformance suites, and police them."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..conformance.check import check_files
from ..conformance.suite import (
    build_suite,
    coverage,
    read_retired,
    render,
    retired_text,
    suite_ids,
    suite_path,
    vectors_dir,
)
from ..errors import FileError
from ..io import read_json, write_or_check
from ..spec import rules
from ..variant import builtin_names, load_ruleset


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("vectors", help="generate or check the conformance vectors",
                       description="Conformance vectors: one JSON suite per ruleset under spec/vectors/.")
    vsub = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    g = vsub.add_parser("generate", help="write the suites (default: every built-in ruleset)",
                        description="Write the suite of each ruleset, byte-identical for the same "
                                    "inputs, and print the rule coverage table. Ids that disappear "
                                    "from the committed built-in suites are appended to RETIRED.")
    g.add_argument("rulesets", nargs="*", metavar="RULESET",
                   help="built-in names, canonical names or variant files (default: every built-in)")
    g.add_argument("-o", "--out", type=Path, help="directory to write to (default spec/vectors/)")
    g.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 if a committed file differs from what would be written")
    g.set_defaults(run=run_generate)
    c = vsub.add_parser("check", help="police the suites: schema, ids, spec_refs, descriptions, coverage")
    c.add_argument("files", nargs="*", type=Path, help="suite files (default: spec/vectors/*.json)")
    c.add_argument("--retired", type=Path, help="the retired-id list (default spec/vectors/RETIRED)")
    c.set_defaults(run=run_check)


def run_generate(args: argparse.Namespace) -> int:
    names = args.rulesets or list(builtin_names())
    builtin = not args.rulesets
    out_dir: Path = args.out or vectors_dir()
    texts: dict[Path, str] = {}
    suites = []
    old_ids: list[str] = []
    for name in names:
        rs = load_ruleset(name)
        suite = build_suite(rs)
        suites.append(suite)
        target = out_dir / f"{rs.name}.json"
        texts[target] = render(suite)
        if builtin and suite_path(name).is_file():
            old_ids += _committed_ids(suite_path(name))
    if builtin and args.out is None:
        retired = vectors_dir() / "RETIRED"
        new_ids = [i for s in suites for i in suite_ids(s)]
        texts[retired] = retired_text(old_ids, new_ids, read_retired(retired))
    _print_coverage(suites)
    missing = sum(1 for s in suites for cited in coverage(s).values() if not cited)
    differ = write_or_check(texts, args.check, "qttt vectors generate")
    if not args.check:
        print(f"wrote {len(texts)} files to {out_dir}")
    return 1 if differ or missing else 0


def _committed_ids(path: Path) -> list[str]:
    """The ids of a committed suite (to retire those that disappear); FileError if it is damaged."""
    try:
        ids = suite_ids(read_json(path))
        if all(isinstance(i, str) for i in ids):
            return ids
    except (AttributeError, KeyError, TypeError):
        pass
    raise FileError(None, f"{path} is damaged (not a suite with ids); restore it (git checkout "
                    "spec/vectors) before generating, so that its ids can be retired")


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
    files = args.files or sorted(vectors_dir().glob("*.json"))
    problems, count = check_files(files, args.retired or vectors_dir() / "RETIRED")
    for p in problems:
        print(p)
    print(f"{len(files)} files, {count} ids checked, {len(problems)} problems")
    return 1 if problems else 0
