"""Generate every page and file, and write them or check the committed ones (`python -m qttt.docgen`)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

from ..family import having, load, tool
from ..io import write_or_check
from ..variant import builtin_names, load_ruleset
from .pages import (
    ambiguities_page,
    cli_page,
    common_page,
    conformance_page,
    parameters_page,
    sources_page,
    verification_page,
)
from .rulebook import card_html, card_path, editions, page_path, rulebook_page
from .site import GENERATED_NOTE, Site, repo_root


def generate(root: Path | None = None) -> dict[str, str]:
    """Every generated file, by path relative to the repository."""
    root = root or repo_root()
    site = Site()
    for family in having("site"):
        for path, make in load(family.tools["site"]).items():
            site.page(path, make(site, root))
    site.page("rules/common.md", common_page(docs=True))
    site.add("spec/rules/common.md",
             GENERATED_NOTE + "\n\n" + "\n".join(common_page(docs=False)).rstrip() + "\n")
    for name in builtin_names(None):
        page = tool(load_ruleset(name), "page")
        site.page(f"rules/{name}.md", page(site, name, docs=True))
        site.add(f"spec/rules/{name}.md", GENERATED_NOTE + "\n\n"
                 + "\n".join(page(Site(), name, docs=False)).rstrip() + "\n")
    for name, lang in editions():
        site.page(page_path(name, lang), rulebook_page(site, name, lang))
        site.add("docs/" + card_path(name, lang), card_html(name, lang))
    site.page("ambiguities.md", ambiguities_page())
    site.page("sources.md", sources_page())
    site.page("verification.md", verification_page(root))
    site.page("conformance.md", conformance_page(root))
    site.page("reference/parameters.md", parameters_page())
    site.page("reference/cli.md", cli_page())
    return dict(sorted(site.files.items()))


def generated_paths(root: Path) -> Iterator[Path]:
    """Files on disk that the generator owns (so stale ones can be found)."""
    yield from (root / "docs" / "boards").glob("*.svg")
    yield from (root / "spec" / "rules").glob("*.md")
    yield from (root / "docs" / "rulebook").glob("*.md")
    yield from (root / "docs" / "cards").glob("*.html")


def main(argv: list[str] | None = None) -> int:
    """Write (or with --check, compare) the generated files."""
    ap = argparse.ArgumentParser(prog="python -m qttt.docgen", description=__doc__)
    ap.add_argument("--check", action="store_true", help="exit 1 if a committed file differs")
    ap.add_argument("--out", help="write the tree under this directory instead of the repository")
    args = ap.parse_args(argv)
    root = repo_root()
    files = generate(root)
    base = Path(args.out) if args.out and not args.check else root
    stale = [old for old in generated_paths(base) if str(old.relative_to(base)) not in files]
    return write_or_check({base / p: text for p, text in files.items()}, args.check,
                          "python -m qttt.docgen", stale)
