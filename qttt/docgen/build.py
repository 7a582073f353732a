"""Generate every page and file of the site (`python -m qttt.docgen`).

Nothing generated is committed: the MkDocs hook `docs/hooks/generated.py` builds the site from
`site_files()` at every `mkdocs build`, so the pages cannot drift from spec/ and the engine. The
command writes the same files under a directory for inspection (`--out`, default `build/docgen`),
with `--check` comparing a written tree instead.
"""

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

DEFAULT_OUT = Path("build") / "docgen"
# Folders of the output tree that hold only generated files (a file there that the generator no
# longer makes is stale and removed).
GENERATED_FOLDERS = ("docs/boards", "docs/cards", "docs/rulebook", "docs/rules", "plain")


def generate(root: Path | None = None) -> dict[str, str]:
    """Every generated file by path in the output tree: `docs/...` the site's pages, boards and
    cards (docs-relative below `docs/`), `plain/...` the normative rule pages as plain Markdown
    without the site's links."""
    root = root or repo_root()
    site = Site()
    for family in having("site"):
        for path, make in load(family.tools["site"]).items():
            site.page(path, make(site, root))
    site.page("rules/common.md", common_page(docs=True))
    site.add("plain/common.md",
             GENERATED_NOTE + "\n\n" + "\n".join(common_page(docs=False)).rstrip() + "\n")
    for name in builtin_names(None):
        page = tool(load_ruleset(name), "page")
        site.page(f"rules/{name}.md", page(site, name, docs=True))
        site.add(f"plain/{name}.md", GENERATED_NOTE + "\n\n"
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


def site_files(root: Path | None = None) -> dict[str, str]:
    """The generated files of the site, by path relative to the docs directory (what the MkDocs
    hook adds to the hand-written pages)."""
    return {path.removeprefix("docs/"): text for path, text in generate(root).items()
            if path.startswith("docs/")}


def generated_paths(base: Path) -> Iterator[Path]:
    """Files under an output tree's generated folders (so stale ones can be found)."""
    for folder in GENERATED_FOLDERS:
        yield from (p for p in (base / folder).rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    """Write the generated files under --out (with --check, compare them with a written tree)."""
    ap = argparse.ArgumentParser(prog="python -m qttt.docgen", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 if the tree under --out differs")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT,
                    help=f"the directory to write under (default {DEFAULT_OUT})")
    args = ap.parse_args(argv)
    files = generate(repo_root())
    stale = [old for old in generated_paths(args.out) if old.relative_to(args.out).as_posix() not in files]
    return write_or_check({args.out / p: text for p, text in files.items()}, args.check,
                          f"python -m qttt.docgen --out {args.out}", stale)
