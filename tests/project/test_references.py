"""Every repository path the hand-written Markdown cites (README, spec/, docs/, results/) exists: a
path in backticks or a link, relative to the repository or to the file; the site's pages (the nav
of mkdocs.yml, generated ones included) count as existing. A path that is a placeholder or an
example says so below."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CITED = re.compile(r"`([A-Za-z0-9_.][A-Za-z0-9_./-]*/[A-Za-z0-9_.-]+"
                   r"\.(?:md|toml|py|json|js|c|h|txt|html|yml|csv))`|\]\(([^)#:\s]+)\)")
EXAMPLES = {("docs/hostile-input.md", "file/x.toml"): "a path whose part is not a directory, as an example"}


def pages() -> set[str]:
    """The site's pages, as mkdocs.yml's nav lists them (docs/-relative)."""
    return set(re.findall(r":\s*(\S+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M))


def markdown() -> list[Path]:
    """The hand-written Markdown files (the generated pages are on no disk path)."""
    return [ROOT / "README.md", *sorted(ROOT.glob("spec/**/*.md")), *sorted(ROOT.glob("docs/**/*.md")),
            *sorted(ROOT.glob("results/**/*.md"))]


def missing(path: Path, text: str, site: set[str]) -> list[str]:
    """The paths `text` (of `path`) cites that are in neither the repository nor the site."""
    out = []
    for m in CITED.finditer(text):
        ref = m.group(1) or m.group(2)
        if any(c in ref for c in "*<>{}") or any(part.isupper() for part in re.split(r"[/.]", ref)):
            continue  # a pattern or a placeholder (results/analysis/NAME.json)
        here = (path.parent / ref).resolve()
        in_docs = here.relative_to(ROOT / "docs").as_posix() if here.is_relative_to(ROOT / "docs") else None
        inside = [p for p in ((ROOT / ref).resolve(), here) if p.is_relative_to(ROOT) and p.exists()]
        if inside or in_docs in site:
            continue  # a path outside the repository counts as missing, even where this machine has it
        if (path.relative_to(ROOT).as_posix(), ref) not in EXAMPLES:
            out.append(ref)
    return out


def test_every_cited_path_exists() -> None:
    found = {p.relative_to(ROOT).as_posix(): bad for p in markdown()
             if (bad := missing(p, p.read_text(encoding="utf-8"), pages()))}
    assert found == {}


def test_a_cited_path_outside_the_repository_is_found() -> None:
    text = "translated in `design/competitions.md` of the notes; see [x](../shared/design/interchange.md)"
    assert missing(ROOT / "spec" / "tour.md", text, set()) == ["design/competitions.md",
                                                                "../shared/design/interchange.md"]
