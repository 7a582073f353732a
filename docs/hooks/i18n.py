"""MkDocs hook beside mkdocs-static-i18n: drops the per-page `<link rel="alternate">` tags from
each page's head.

The plugin writes one per language, pointing at the same page in that language; Material (9.7.2
and later, which the plugin's own `material` extra excludes) fetches `sitemap.xml` beside every
such link, where the per-language builds have none, so every page logged failed requests. The
header's language menu, which the plugin also fills per page, keeps working.
"""

from __future__ import annotations

import re
from typing import Any

ALTERNATE = re.compile(r'\s*<link rel="alternate" href="[^"]*" hreflang="[^"]*">')


def on_post_page(output: str, **kwargs: Any) -> str:
    """The page without its alternate-language link tags."""
    return ALTERNATE.sub("", output)
