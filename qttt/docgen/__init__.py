"""The generated documentation, outside the rules core: normative rule pages, ruleset pages with
worked examples and SVG boards, the comparison, the registers, the verification report and the
CLI reference.

Everything comes from spec/ (rules, variants, worked examples, sources, ambiguities, committed
analysis and verification JSON, protocol and vectors), the engine and the argument parser, and is
written deterministically. `python -m qttt.docgen` rewrites the files; `--check` exits 1 when a
committed file differs; `--out DIR` writes the tree under DIR instead of the repository.

Modules: `prose` (rules and games in words), `pages` (the pages), `site` (collecting and linking
files, the spec data pages cite), `examples` (spec/examples.toml), `build` (generate, write or check).
"""

from .build import generate, generated_paths, main
from .examples import EXAMPLES, INTRO, Example
from .site import ambiguities, sources

__all__ = ["EXAMPLES", "INTRO", "Example", "ambiguities", "generate", "generated_paths", "main", "sources"]
