"""Helpers for the documentation tests: build the site into a directory, and serve it over HTTP."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def build_site(out: Path) -> str:
    """`mkdocs build --strict` into `out`; returns what the build printed (with --quiet: its
    warnings, if any), raises with mkdocs' output when the build fails. The theme's end-of-life
    notice is switched off (NO_MKDOCS_2_WARNING): Material is pinned, and docs/developers.md ("The
    site's theme") says what a move to its successor, Zensical, needs."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                           "--site-dir", str(out)], cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}")
    return proc.stdout + proc.stderr


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve `directory` on a free local port; yields the base URL."""
    handler = functools.partial(_Quiet, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def pages(site: Path) -> list[str]:
    """Site-relative URLs of every page of a built site (directory URLs)."""
    out = []
    for index in sorted(site.rglob("index.html")):
        rel = index.parent.relative_to(site).as_posix()
        out.append("" if rel == "." else rel + "/")
    return out
