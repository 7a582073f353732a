"""The generated documentation, outside the rules core: normative rule pages, ruleset pages with
worked examples and SVG boards, the comparison, the registers, the verification report and the
CLI reference.

Everything comes from spec/ (rules, variants, worked examples, sources, ambiguities, protocol and
vectors), the computed results in results/ (analysis, verification, contrasts), the engine and the
argument parser, and is generated deterministically. Nothing generated is committed: the MkDocs
hook `docs/hooks/generated.py` adds `site_files()` to the site at build time, and
`python -m qttt.docgen --out DIR` writes the same files under DIR for inspection (`--check`
compares a written tree).

Modules: `prose` (rules and games in words), `pages` (the pages), `site` (collecting and linking
files, the spec data pages cite), `examples` (spec/examples.toml), `build` (generate, write or check a tree).
"""

from .build import generate, generated_paths, main, site_files
from .examples import EXAMPLES, INTRO, Example
from .site import ambiguities, sources

__all__ = ["EXAMPLES", "INTRO", "Example", "ambiguities", "generate", "generated_paths", "main", "site_files",
           "sources"]
