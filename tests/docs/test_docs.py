"""The documentation: the generated pages are built by the docs hook (none is committed), the site
builds strictly, every rule id the code, the checker and the vectors cite has its anchor, sources
resolve, examples run."""

from __future__ import annotations

import doctest
import importlib.util
import json
import re
import tomllib
import xml.etree.ElementTree as ET
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from docsite import ROOT, build_site
from reference import RefGame, load_variant

from qttt import load_ruleset, record_to_json, state_to_json
from qttt.docgen import EXAMPLES, INTRO, ambiguities, generate, main, site_files, sources
from qttt.errors import IllegalAction
from qttt.quantum.engine import Measure, quantum_state
from qttt.quantum.notation import from_notation
from qttt.quantum.svg import board_svg, measurement_svg
from qttt.spec import rules
from qttt.variant import builtin_names
from qttt.vocabulary import PARAMETER_BY_NAME

pytestmark = pytest.mark.docs
MKDOCS = "mkdocs is not installed (pip install -e '.[docs]')"
PluginError = pytest.importorskip("mkdocs.exceptions", reason=MKDOCS).PluginError

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The site, built once for this module, and what its build printed."""
    out = tmp_path_factory.mktemp("site")
    return out, build_site(out)


@pytest.fixture(scope="module")
def site(built: tuple[Path, str]) -> Path:
    return built[0]


# What a build may print, each with the reason it is allowed; anything else (a warning of MkDocs,
# of a plugin or of the theme) fails the test below. Nothing is allowed today.
ALLOWED_OUTPUT: dict[str, str] = {}


def test_the_site_builds_warning_free_with_the_pinned_theme(built: tuple[Path, str]) -> None:
    printed = [line for line in built[1].splitlines() if line.strip()]
    assert [line for line in printed if not any(re.search(p, line) for p in ALLOWED_OUTPUT)] == []
    pins = re.findall(r'"mkdocs-material==([\d.]+)"', (ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert len(pins) == 2 and len(set(pins)) == 1, "the theme is pinned, the same in the docs and test extras"
    assert metadata.version("mkdocs-material") == pins[0], "the installed theme is not the pinned one"


# -- docs cannot drift: generated at build time, never committed -------------------------------

def _hook() -> ModuleType:
    """docs/hooks/generated.py, the MkDocs hook that adds the generated files to the site."""
    spec = importlib.util.spec_from_file_location("generated_hook", ROOT / "docs" / "hooks" / "generated.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_generated_file_is_in_the_sources() -> None:
    files = generate()
    assert files and all(p.startswith(("docs/", "plain/")) for p in files)
    committed = [p for p in files if (ROOT / p).exists()]
    assert committed == [], "generated files are built by the docs hook; delete these copies"
    in_docs = {p.removeprefix("docs/"): text for p, text in files.items() if p.startswith("docs/")}
    assert site_files() == in_docs


def test_the_hook_stages_sources_and_generated_files_and_refuses_a_committed_copy(tmp_path: Path) -> None:
    hook, files = _hook(), site_files()
    source, target = tmp_path / "docs", tmp_path / "staged"
    (source / "hooks").mkdir(parents=True)
    (source / "hooks" / "x.py").write_text("", encoding="utf-8")
    (source / "hand.md").write_text("# hand\n", encoding="utf-8")
    hook.stage(source, target)
    staged = {p.relative_to(target).as_posix(): p.read_text(encoding="utf-8")
              for p in target.rglob("*") if p.is_file()}
    assert staged == {**files, "hand.md": "# hand\n"}
    (source / "rules").mkdir()
    (source / "rules" / "common.md").write_text("edited by hand\n", encoding="utf-8")
    with pytest.raises(PluginError, match=r"docs/rules/common.md is generated"):
        hook.stage(source, tmp_path / "again")


@pytest.mark.slow
def test_generator_writes_the_same_tree_twice(tmp_path: Path) -> None:
    assert main(["--out", str(tmp_path / "a")]) == 0
    assert main(["--out", str(tmp_path / "b")]) == 0
    a = {p.relative_to(tmp_path / "a"): p.read_bytes() for p in (tmp_path / "a").rglob("*") if p.is_file()}
    b = {p.relative_to(tmp_path / "b"): p.read_bytes() for p in (tmp_path / "b").rglob("*") if p.is_file()}
    assert a == b
    assert {p.as_posix() for p in a} == set(generate())


@pytest.mark.slow
def test_check_mode_reports_a_changed_or_stale_file(tmp_path: Path) -> None:
    out = ["--out", str(tmp_path)]
    assert main([*out, "--check"]) == 1  # nothing written yet
    assert main(out) == 0
    assert main([*out, "--check"]) == 0
    page = tmp_path / "docs" / "rules" / "common.md"
    page.write_text(page.read_text(encoding="utf-8") + "edited\n", encoding="utf-8")
    assert main([*out, "--check"]) == 1
    assert main(out) == 0
    stale = tmp_path / "docs" / "boards" / "gone.svg"
    stale.write_text("<svg/>", encoding="utf-8")
    assert main([*out, "--check"]) == 1
    assert main(out) == 0 and not stale.exists()
    assert main([*out, "--check"]) == 0


def _built(site: Path, rel: str) -> Path:
    """Where the site holds a docs file: a language suffix (name.ru.md) moves it under that
    language's folder (the default language's at the top), a page becomes a directory URL."""
    path = Path(rel)
    stem, dot, lang = path.stem.partition(".")
    base = site / (lang if dot and lang != "en" else "") / path.parent
    if path.suffix != ".md":
        return base / (stem + path.suffix)
    return (base if stem == "index" else base / stem) / "index.html"


@pytest.mark.slow
def test_the_site_holds_every_generated_file_and_every_nav_page(site: Path) -> None:
    for rel, text in site_files().items():
        built = _built(site, rel)
        assert built.is_file(), rel
        if not rel.endswith(".md"):
            assert built.read_text(encoding="utf-8") == text, rel
    nav = re.findall(r":\s+([\w./-]+\.md)$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), flags=re.M)
    assert len(nav) >= 20
    for entry in nav:
        assert _built(site, entry).is_file(), entry


# -- the built site ---------------------------------------------------------------------------

def _rule_ids_cited() -> dict[str, set[str]]:
    """Rule ids cited in qttt/, verify/ (Python) and spec/vectors/ (JSON), with where they occur."""
    patterns = [
        r'(?:Error|IllegalAction|RefIllegal)\(\s*"([a-z0-9-]+)"',
        r'\bRULE\w*\s*=\s*"([a-z0-9-]+)"',
        r'\brule\s*=\s*"([a-z0-9-]+)"',
        r'"(?:rule|spec_ref)"\s*:\s*"([a-z0-9-]+)"',
        r'\brules?\s+`([a-z0-9-]+)`',
        r'\(rules?\s+([a-z0-9-]+)\)',
    ]
    found: dict[str, set[str]] = {}
    for folder in ("qttt", "verify"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            for pat in patterns:
                for m in re.finditer(pat, text):
                    found.setdefault(m[1], set()).add(str(path.relative_to(ROOT)))

    for path in sorted((ROOT / "spec" / "vectors").rglob("*.json*")):
        text = path.read_text(encoding="utf-8")
        docs = [json.loads(line) for line in text.splitlines() if line.strip()] \
            if path.suffix == ".jsonl" else [json.loads(text)]
        for doc in docs:
            _cited_in_json(doc, str(path.relative_to(ROOT)), found)
    return found


def _cited_in_json(obj: Any, where: str, found: dict[str, set[str]]) -> None:
    """Add the rule ids of `rule`, `spec_ref` and `rules` keys anywhere in a JSON document."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in ("rule", "spec_ref", "rules") and isinstance(v, (str, list)):
                for rid in [v] if isinstance(v, str) else v:
                    if isinstance(rid, str):
                        found.setdefault(rid.split("#")[-1], set()).add(where)
            else:
                _cited_in_json(v, where, found)
    elif isinstance(obj, list):
        for v in obj:
            _cited_in_json(v, where, found)


@pytest.mark.slow
def test_every_cited_rule_id_exists_and_has_an_anchor_in_the_site(site: Path) -> None:
    cited = _rule_ids_cited()
    assert len(cited) >= 10  # the engine alone cites more than ten rules
    unknown = {rid: sorted(where) for rid, where in cited.items() if rid not in rules()}
    assert unknown == {}, "cited rule ids missing from spec/rules.toml"
    html = (site / "rules" / "common" / "index.html").read_text(encoding="utf-8")
    anchors = set(re.findall(r'\bid="([^"]+)"', html))
    missing = sorted(rid for rid in set(cited) | set(rules()) if rid not in anchors)
    assert missing == []


@pytest.mark.slow
def test_ruleset_pages_link_to_rule_anchors_that_exist(site: Path) -> None:
    html = (site / "rules" / "common" / "index.html").read_text(encoding="utf-8")
    common = set(re.findall(r'\bid="([^"]+)"', html))
    for name in builtin_names():
        html = (site / "rules" / name / "index.html").read_text(encoding="utf-8")
        linked = set(re.findall(r'href="\.\./common/#([a-z0-9-]+)"', html))
        assert linked and linked <= common, name


@pytest.mark.slow
def test_every_board_image_of_the_site_exists(site: Path) -> None:
    count = 0
    for page in site.rglob("*.html"):
        for src in re.findall(r'<img[^>]+src="([^"]+)"', page.read_text(encoding="utf-8")):
            if src.startswith("http"):
                continue
            target = (page.parent / src).resolve()
            assert target.is_file(), f"{page.relative_to(site)}: {src}"
            count += 1
    assert count >= len(builtin_names()) + 2


@pytest.mark.slow
def test_api_and_cli_reference_are_rendered(site: Path) -> None:
    api = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert 'id="qttt.load_ruleset"' in api and 'id="qttt.quantum.svg.measurement_svg"' in api
    cli = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    from qttt.cli import command_modules
    assert command_modules() and "usage: qttt replay" in cli


# -- registers --------------------------------------------------------------------------------

def test_every_source_id_used_resolves() -> None:
    known = sources()
    used: set[str] = set()
    for path in (ROOT / "spec" / "variants").glob("*.toml"):
        with open(path, "rb") as f:
            used |= set(tomllib.load(f)["variant"].get("sources", []))
    for point in ambiguities():
        used |= {s["source"] for s in point["says"]}
    assert used - set(known) == set()
    assert {"goff-2006", "wikipedia-de", "russian-school", "bonus4x4-readme", "codecup-2012",
            "kumar-2012", "ishizeki-matsuura", "intelligent-ttt"} <= set(known)
    seeds = {s["seed"] for s in known.values() if "seed" in s}
    assert len(seeds) == 4


def test_ambiguity_register_points_at_real_parameters_and_rules() -> None:
    ids = [p["id"] for p in ambiguities()]
    assert len(ids) == len(set(ids))
    for p in ambiguities():
        assert p["parameter"] in (*PARAMETER_BY_NAME, "scoring", ""), p["id"]
        assert set(p["rules"]) <= set(rules()), p["id"]
        assert p["says"] and p["reading"], p["id"]


# -- examples run -----------------------------------------------------------------------------

def test_python_examples_in_the_docs_run() -> None:
    texts = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
             for p in sorted((ROOT / "docs").rglob("*.md"))}
    texts |= {p: text for p, text in generate().items() if p.endswith(".md")}
    pages = {name: text for name, text in texts.items() if ">>> " in text}
    assert pages
    parser = doctest.DocTestParser()
    for name, text in pages.items():
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(parser.get_doctest(text, {}, name, name, 0))
        result = runner.summarize(verbose=False)
        assert result.failed == 0, name
        assert result.attempted > 0


def test_toml_examples_in_the_docs_load(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "variant-files.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 2
    for i, block in enumerate(blocks):
        path = tmp_path / f"example{i}.toml"
        path.write_text(block, encoding="utf-8")
        rs = load_ruleset(str(path))
        assert rs.name == tomllib.loads(block)["variant"]["name"]


@pytest.mark.parametrize("example", [INTRO, *[e for exs in EXAMPLES.values() for e in exs]],
                         ids=lambda e: e.notation.split("]")[0][1:] + "-" + e.slug)
def test_worked_examples_agree_with_the_reference_model(example: Any) -> None:
    record = from_notation(example.notation)
    ref = RefGame(load_variant(record.variant), record.variant)
    for action in record_to_json(record)["actions"]:
        ref.apply(action)
    state = quantum_state(record.replay())
    assert state_to_json(state, record.variant) == ref.state()


def test_the_cycle_example_has_the_outcomes_the_home_page_states() -> None:
    # Wikipedia: X1 to 1 forces O4 to 8, X3 to 4; X1 to 4 forces X3 to 8, O4 to 1; O2 to 5 either way.
    pending = quantum_state(from_notation(INTRO.notation).replay())
    assert pending.cycle == (0, 3, 7) and pending.to_move == "x"
    to8, to1 = pending.apply(Measure(7)), pending.apply(Measure(0))
    assert to8.classical[:9] == (1, 0, 0, 3, 2, 0, 0, 4, 0)
    assert to1.classical[:9] == (4, 0, 0, 1, 2, 0, 0, 3, 0)
    home = generate()["docs/index.md"]
    assert "square 8 is O's, so X3 must take square 4, so X1 must take square 1, so O2 again takes" in home
    assert "square 1 is O's, so X1 must take square 4, so X3 must take square 8, and O2" in home


# -- SVG boards -------------------------------------------------------------------------------

def _texts(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(f"{SVG}text") if cls in (e.get("class") or "").split()]


def test_board_svg_draws_every_mark_edge_and_cycle_cell() -> None:
    state = quantum_state(from_notation("[wikipedia] X1:1-4 O2:1-5 X3:4-8 O4:8-1").replay())
    root = ET.fromstring(board_svg(state))
    ref = RefGame(load_variant("wikipedia"))
    for a in record_to_json(from_notation(INTRO.notation))["actions"]:
        ref.apply(a)
    board = ref.state()["board"]
    spooky = sorted(m for cell in board for m in cell)
    assert sorted(e.get("data-mark") or "" for e in _texts(root, "spooky")) == spooky
    assert _texts(root, "classical") == []
    assert len([e for e in root.iter(f"{SVG}path") if "edge" in (e.get("class") or "")]) == 4
    assert len([e for e in root.iter(f"{SVG}rect") if e.get("class") == "cycle-cell"]) == 3


def test_measurement_svg_shows_both_outcomes() -> None:
    record = from_notation(INTRO.notation)
    root = ET.fromstring(measurement_svg(quantum_state(record.replay())))
    boards = [g for g in root.iter(f"{SVG}g") if g.get("class") == "qttt-board"]
    assert len(boards) == 3
    outcomes = []
    for cell in (7, 0):
        ref = RefGame(load_variant("wikipedia"))
        for a in record_to_json(record)["actions"]:
            ref.apply(a)
        ref.apply({"measure": cell})
        outcomes.append(sorted(m for m in ref.state()["board"] if isinstance(m, str)))
    for g, expected in zip(boards[1:], outcomes, strict=True):
        assert sorted(e.get("data-mark") or "" for e in _texts(g, "classical")) == expected
    with pytest.raises(IllegalAction) as e:
        measurement_svg(quantum_state(from_notation("[wikipedia] X1:1-2").replay()))
    assert e.value.rule == "measure-pending"


def test_a_source_in_another_language_points_at_no_english_address() -> None:
    for sid, src in sources().items():
        if src["language"] != "en":
            assert "en.wikipedia.org" not in src.get("url", ""), sid
