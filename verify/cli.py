"""`qttt check NAME|FILE ... [--all] [--json]`: the consistency checker on the command line.

`register` plugs the subcommand into the `qttt` parser (qttt/cli/check.py re-exports it);
`python -m verify` runs it alone. Exit status 3 when the checker itself failed on some property,
else 1 when some property is violated (or, with --strict, violated in a way the ambiguity register
accepts, or a design property is a finding: verify.design), else 0.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import select
import shlex
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from qttt import QtttError, builtin_names, load_ruleset
from qttt.analysis.distributed import executor
from qttt.argtypes import Deprecated, integer, output_file, seconds
from qttt.bounds import GAMES, MAX_PLY, SEED, WORKERS
from qttt.errors import Terminated
from qttt.family import Family, family_of, load, tool
from qttt.notation import Record, record_from_json
from qttt.processes import PRIORITY, Mapper, background, serial_mapper
from qttt.spec import spec_dir

from .built import every_core_as_built
from .catalogue import LABELS, notes, properties
from .design import Designed
from .report import KINDS, Report

DESIGN_STYLES = {"clean": "green", "unknown": "yellow", "finding": "bold magenta"}
STYLES = {"proved": "green", "exhaustive": "green", "classes": "green", "sampled": "cyan",
          "unknown": "yellow", "accepted": "magenta", "violated": "bold red", "error": "bold red"}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `check` subcommand."""
    p = sub.add_parser("check", help="prove or refute the catalogue properties of rulesets",
                       description="Settle every property of the catalogue (single cycle per move, "
                                   "collapse uniqueness and totality, no deadlock, termination, scores "
                                   "well defined, legal actions, both cores agree, ...) for each ruleset: Z3 "
                                   "proofs, exhaustive abstraction, enumeration, sampled games and, on "
                                   "boards up to 3×3 (larger with --exhaustive), a walk with the engine "
                                   "and the compiled core. Each status says how it was settled. Then the "
                                   "design properties: rules that cannot matter (a value that changes no "
                                   "game, an award no game earns, an end no game reaches, a game ending on "
                                   "a line that scores nothing), each with a witness game or an argument. "
                                   "Exit status 1 if a property is violated (--strict: or violated as the "
                                   "ambiguity register accepts, or a design property is a finding), 3 if "
                                   "the checker itself failed.")
    add_arguments(p)
    p.set_defaults(run=run)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of `check`."""
    p.add_argument("rulesets", nargs="*", metavar="NAME|FILE",
                   help="built-in name, canonical name or variant file")
    p.add_argument("--all", action="store_true",
                   help="check every ruleset the project ships too: built-in and coverage variants")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 on accepted findings too (violations the ambiguity register documents) and "
                        "on design findings (rules that cannot matter)")
    formats = p.add_mutually_exclusive_group()
    formats.add_argument("--json", action="store_true",
                   help="JSON Lines on standard output, each line as soon as it is settled: the catalogue "
                        "(version, statuses, catalogue), then one object per ruleset in the order given "
                        "(ruleset, properties, ...), then the summary (summary, exit_status, partial)")
    formats.add_argument("--json-document", action="store_true",
                   help="one JSON document at the end instead: version, statuses, catalogue, rulesets, "
                        "summary, partial (results/verification/report.json is one)")
    p.add_argument("--games", type=integer(GAMES),
                   help="random games to sample per ruleset (default 1000 on 3×3, 200 above)")
    p.add_argument("--seed", type=integer(SEED), default=0,
                   help="seed of the sampled games (default 0)")
    p.add_argument("--timeout", type=seconds, default=60.0, help="seconds per Z3 query (default 60)")
    walk = p.add_mutually_exclusive_group()
    walk.add_argument("--exhaustive", action="store_true", default=None,
                      help="walk with the engine on every board (up to 3×3 it does by default; larger: to "
                           "--max-ply)")
    walk.add_argument("--no-walk", dest="exhaustive", action="store_false",
                      help="sampled games only, no walk (faster)")
    p.add_argument("--max-ply", type=integer(MAX_PLY), metavar="N",
                   help="depth of the walk (default: all of it up to 3×3, 8 plies above)")
    p.add_argument("--workers", type=integer(WORKERS), default=0, metavar="N",
                   help="processes the work is spread over: rulesets, Z3 queries, chunks of sampled games, "
                        "a walk's positions, properties (default 0: one per core; 1: this process, one thing "
                        "at a time: one core); the same report whatever the number")
    p.add_argument("--processes", dest="workers", type=integer(WORKERS), action=Deprecated, metavar="N",
                   help="deprecated spelling of --workers")
    p.add_argument("--dask", metavar="ADDRESS",
                   help="run the work on a Dask cluster: a scheduler address, or 'local' for a new local "
                        "cluster of --workers processes; the same report")
    p.add_argument("--checkpoint", type=output_file, metavar="FILE",
                   help="save the walk after each ply to FILE and resume from it (one ruleset)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress line (on a terminal, standard error shows the rulesets settled, the "
                        "stage and the time left)")
    p.add_argument("--verbose", action="store_true",
                   help="say in full how each property was settled (a column of the tables; the JSON has it)")
    p.add_argument("--no-timing", action="store_true",
                   help="leave times out of the JSON report, so that it is the same on every run")


def shipped() -> list[str]:
    """Every ruleset the project ships: the built-in ones, then the coverage variants
    (spec/coverage/), as paths relative to the working directory where they can be."""
    files = []
    for path in sorted((spec_dir() / "coverage").glob("*.toml")):
        try:
            files.append(str(path.relative_to(Path.cwd())))
        except ValueError:
            files.append(str(path))
    return [*builtin_names(None), *files]


def uncheckable(name: str) -> str | None:
    """Why the ruleset has no checker (its family declares no check tool), or None."""
    family = family_of(load_ruleset(name))
    return None if "check" in family.tools else f"the {family.name} family has no check tool"


def targets(args: argparse.Namespace) -> list[str]:
    """The rulesets to check, in order, without repeats."""
    names = list(args.rulesets) + (shipped() if args.all else [])
    return list(dict.fromkeys(names))


def run(args: argparse.Namespace) -> int:
    """Check each ruleset; print each one's table (or JSON) as soon as it and those before it are
    settled, then the summary. Interrupted (Ctrl-C, SIGTERM), print what was settled, marked
    partial, and stop with the interrupt."""
    names = targets(args)
    if not names:
        print("qttt check: name a ruleset or give --all", file=sys.stderr)
        return 2
    if args.checkpoint and len(names) > 1:
        print("qttt check: --checkpoint needs exactly one ruleset", file=sys.stderr)
        return 2
    for name in names:  # every name resolves before any is checked
        load_ruleset(name)
    skipped = {name: why for name in shipped() if args.all and name in names and (why := uncheckable(name))}
    names = [n for n in names if n not in skipped]  # --all: every shipped ruleset that has a checker
    try:  # each family's checker (its `check` tool); the quantum one needs z3
        checkers = {name: Designed(tool(load_ruleset(name), "check")) for name in names}
    except ModuleNotFoundError as e:
        print(f"qttt check: {e.name} is not installed (pip install 'qttt[verify]')", file=sys.stderr)
        return 2
    with every_core_as_built(), executor(args.workers, args.dask) as mapper:
        return settle(args, names, checkers, skipped, mapper)


def settle(args: argparse.Namespace, names: list[str], checkers: Mapping[str, Callable[..., Report]],
           skipped: dict[str, str], mapper: Mapper) -> int:
    """Run each ruleset's checker on mapper, every ruleset at once (one at a time in this process),
    the earlier ones first (`PRIORITY`); print each report in order as it comes."""
    started = time.perf_counter()
    err = Console(stderr=True, highlight=False)
    board = Board(err if not args.quiet and err.is_terminal else None, names)
    write = (Lines(args, started) if args.json else Document(args, started) if args.json_document
             else Text(args))
    runs: dict[int, Future[Report]] = {}

    def begin(i: int) -> None:
        def one() -> Report:
            PRIORITY.set(i)
            report: Report = checkers[names[i]](names[i], progress=functools.partial(board.tell, names[i]),
                                                mapper=mapper, **options(args))
            return report
        runs[i] = background(one)

    for i in range(len(names) if mapper is not serial_mapper else 0):
        begin(i)
    reports: list[Report] = []
    write.begin()
    try:
        for i, name in enumerate(names):
            if i not in runs:
                begin(i)
            reports.append(outcome(runs[i]))
            board.done(name)
            with board.paused():
                write.ruleset(reports[-1])
    except (KeyboardInterrupt, Terminated) as e:
        board.stop()
        code = 128 + e.signum if isinstance(e, Terminated) else 130
        write.end(reports, args.strict, skipped, names[len(reports):], code)
        raise
    board.stop()
    write.end(reports, args.strict, skipped)
    return exit_status(reports, args.strict)


def outcome(run: Future[Report]) -> Report:
    """A ruleset's report once settled; BrokenPipeError as soon as standard output's reader has
    gone (`| head`): nobody reads the rest, so the work stops at once rather than at the next line."""
    while True:
        with contextlib.suppress(TimeoutError):
            return run.result(timeout=0.5)
        if reader_gone():
            raise BrokenPipeError


def reader_gone() -> bool:
    """Whether standard output is a pipe or socket whose reader has closed it."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    poll = select.poll()
    poll.register(fd, 0)  # errors and hang-ups are always reported
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poll.poll(0))


class Board:
    """The progress line on standard error (when given a console): rulesets settled of the total,
    the stage of the first one not settled and how many others run, and the time left, estimated
    from the rulesets settled so far."""

    def __init__(self, err: Console | None, names: list[str]) -> None:
        self.names, self.stages, self.settled = names, dict[str, str](), 0
        self.started = time.perf_counter()
        self.lock = threading.Lock()
        self.status = err.status("checking", spinner="dots") if err is not None else None
        self.live = False
        if self.status is not None:
            self.status.start()
            self.live = True
            self.draw()

    def tell(self, name: str, text: str) -> None:
        """The stage a ruleset has reached."""
        with self.lock:
            self.stages[name] = text
        self.draw()

    def done(self, name: str) -> None:
        """One more ruleset settled."""
        with self.lock:
            self.settled += 1
            self.stages.pop(name, None)
        self.draw()

    def text(self) -> str:
        """The progress line."""
        with self.lock:
            total, settled = len(self.names), self.settled
            first = self.names[settled] if settled < total else None
            running = len([n for n in self.stages if n != first])
            stage = self.stages.get(first, "starting") if first is not None else ""
        elapsed = time.perf_counter() - self.started
        left = (f"about {duration(elapsed * (total - settled) / settled)} left" if settled
                else "time left: after the first ruleset")
        more = f" (+{running} running)" if running else ""
        return (f"{settled}/{plural(total, 'ruleset')} settled in {duration(elapsed)}; "
                f"{escape(first or '')}: {escape(stage)}{more}; {left}")

    def draw(self) -> None:
        if self.status is not None and self.live:
            self.status.update(self.text())

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """The line taken off the terminal while a report is printed on it."""
        live = self.live and self.status is not None and sys.stdout.isatty()
        if live and self.status is not None:
            self.status.stop()
        try:
            yield
        finally:
            if live and self.status is not None:
                self.status.start()
                self.draw()

    def stop(self) -> None:
        """The line taken off for good."""
        if self.status is not None and self.live:
            self.status.stop()
            self.live = False


def duration(seconds: float) -> str:
    """`42 s`, `3 min 05 s`, `1 h 02 min`."""
    s = round(seconds)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class Text:
    """The report as tables: one per ruleset as it is settled, then the work shared by rulesets,
    what the walks' keys mean, and the summary."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.out = Console(highlight=False, width=max(120, Console().width))
        self.verbose = args.verbose

    def begin(self) -> None:
        pass

    def ruleset(self, report: Report) -> None:
        print_report(self.out, report, verbose=self.verbose)

    def end(self, reports: list[Report], strict: bool, skipped: dict[str, str],
            unsettled: Sequence[str] = (), interrupted: int | None = None) -> None:
        print_shared(self.out, reports)
        keys = dict.fromkeys(r.walk["key"] for r in reports if r.walk is not None)
        for key in keys:
            if key in notes():
                self.out.print(f"[dim]{escape(notes()[key])}.[/dim]")
        print(summary(reports, strict, skipped, unsettled, interrupted), flush=True)


class Lines:
    """The report as JSON Lines: the catalogue, each ruleset as it is settled, the summary."""

    def __init__(self, args: argparse.Namespace, started: float) -> None:
        self.timing, self.started = not args.no_timing, started

    def line(self, data: dict[str, Any]) -> None:
        print(json.dumps(data, ensure_ascii=False), flush=True)

    def begin(self) -> None:
        self.line(catalogue_json())

    def ruleset(self, report: Report) -> None:
        self.line(report.to_json(self.timing))

    def end(self, reports: list[Report], strict: bool, skipped: dict[str, str],
            unsettled: Sequence[str] = (), interrupted: int | None = None) -> None:
        self.line(summary_json(reports, strict, skipped, unsettled, interrupted,
                               time.perf_counter() - self.started if self.timing else None))


class Document:
    """The report as one JSON document, at the end."""

    def __init__(self, args: argparse.Namespace, started: float) -> None:
        self.timing, self.started = not args.no_timing, started

    def begin(self) -> None:
        pass

    def ruleset(self, report: Report) -> None:
        pass

    def end(self, reports: list[Report], strict: bool, skipped: dict[str, str],
            unsettled: Sequence[str] = (), interrupted: int | None = None) -> None:
        data = report_json(reports, time.perf_counter() - self.started if self.timing else None)
        data["summary"] = summary(reports, strict, skipped, unsettled, interrupted)
        data["partial"] = bool(unsettled) or interrupted is not None
        print(json.dumps(data, indent=2, ensure_ascii=False), flush=True)


def exit_status(reports: list[Report], strict: bool) -> int:
    """3 when the checker failed somewhere, else 1 when a property is violated (or, strict,
    accepted, or a design finding), else 0."""
    if any(r.has("error") for r in reports):
        return 3
    if any(r.has("violated") or (strict and (r.has("accepted") or r.design_findings)) for r in reports):
        return 1
    return 0


def plural(n: int, word: str) -> str:
    """`1 ruleset`, `2 rulesets`, `2 queries`."""
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word[:-1]}ies" if word.endswith("y") else f"{n} {word}s"


def summary(reports: list[Report], strict: bool, skipped: dict[str, str] | None = None,
            unsettled: Sequence[str] = (), interrupted: int | None = None) -> str:
    """One line: how many rulesets were checked, which have violations, accepted findings, checker
    errors or design findings, which shipped ones have no checker, and the exit status; after an
    interrupt (its exit status), that the report is partial and what was not settled."""
    parts = []
    for status, what in (("violated", "violated"), ("accepted", "accepted (documented gaps)"),
                         ("error", "checker errors")):
        names = [r.spec for r in reports if r.has(status)]
        if names:
            parts.append(f"{what}: {', '.join(names)}")
    designed = [r.spec for r in reports if r.design_findings]
    if designed:
        parts.append(f"design findings: {', '.join(designed)}")
    clean = sum(1 for r in reports
                if not r.design_findings and not any(r.has(s) for s in ("violated", "accepted", "error")))
    code = exit_status(reports, strict)
    found = "; ".join(parts) if parts else "nothing violated"
    found += "".join(f"; not checked: {name} ({why})" for name, why in (skipped or {}).items())
    if interrupted is not None:
        left = f" (not settled: {', '.join(unsettled)})" if unsettled else ""
        total = plural(len(reports) + len(unsettled), "ruleset")
        return (f"partial report, interrupted: {len(reports)} of {total} settled{left}, {clean} without "
                f"findings; {found}; exit status {interrupted}")
    return (f"{plural(len(reports), 'ruleset')} checked, {clean} without findings; {found}; "
            f"exit status {code}"
            + (" (--strict)" if strict and code == 1 and not any(r.has("violated") for r in reports) else ""))


def summary_json(reports: list[Report], strict: bool, skipped: dict[str, str], unsettled: Sequence[str],
                 interrupted: int | None, seconds: float | None) -> dict[str, Any]:
    """The last line of `--json`: the summary, the exit status, whether the report is partial and
    what was not settled (with the time taken unless seconds is None)."""
    code = exit_status(reports, strict) if interrupted is None else interrupted
    out: dict[str, Any] = {"summary": summary(reports, strict, skipped, unsettled, interrupted),
                           "exit_status": code,
                           "partial": interrupted is not None, "not_settled": list(unsettled),
                           "not_checked": skipped}
    if seconds is not None:
        out["seconds"] = round(seconds, 3)
    return out


def options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of `check` from the command line (the mapper aside)."""
    return {"games": args.games, "seed": args.seed, "timeout": args.timeout, "exhaustive": args.exhaustive,
            "max_ply": args.max_ply, "checkpoint": args.checkpoint}


def catalogue_json() -> dict[str, Any]:
    """The statuses and the catalogue as plain data (the first line of `--json`)."""
    return {"version": 1, "statuses": LABELS,
            "catalogue": [{"id": p.id, "title": p.title, "statement": p.statement, "rules": list(p.rules),
                           "applies_to": p.applies_to, "method": p.method} for p in properties()]}


def report_json(reports: list[Report], seconds: float | None) -> dict[str, Any]:
    """The whole run as plain data: the catalogue, then each ruleset's findings (times unless
    seconds is None)."""
    out: dict[str, Any] = {"version": 1}
    if seconds is not None:
        out["seconds"] = round(seconds, 3)
    out |= catalogue_json()
    out["rulesets"] = [r.to_json(seconds is not None) for r in reports]
    return out


def short_witness(record: dict[str, Any]) -> str:
    """A game record in its family's human notation (its JSON actions for a family without one)."""
    rec: Record = record_from_json(record)
    text = family_of(rec.ruleset()).notation(rec.variant, rec.actions)
    return text if text is not None else json.dumps(record["actions"])


def settled_by(parts: Sequence[tuple[str, str]]) -> str:
    """The status column: each part of a finding, short (`proved (Z3)`, `shape classes (engine)`,
    `violated (accepted: score-tie-gap)`), weakest first."""
    heads: dict[str, list[str]] = {}  # parts of one status share it: `proved (tiebreak, declared range)`
    for _, label in parts:
        head, _, inside = label.partition(" (")
        if head == "violated" and inside.startswith("accepted: "):
            head, first = "violated", f"accepted: {inside[10:].split(',')[0].rstrip(')')}"
        else:
            first = inside.split(",")[0].split(":")[0].split(";")[0].rstrip(")")
        said = heads.setdefault(head, [])
        if first and len(first) <= 40 and first not in said:
            said.append(first)
    return " + ".join(f"{head} ({', '.join(said)})" if said else head for head, said in heads.items())


def print_report(out: Console, report: Report, verbose: bool = False) -> None:
    """One ruleset's table (property, status with what settled it, time, witness; with verbose
    how each part was settled, in full), the work its properties share, then what to do next:
    the witness of each violation to replay, the flag that would settle a property better."""
    named = f"{report.canonical}, " if verbose and report.canonical != report.spec else ""
    table = Table("property", "status (what settled it)", *(["how it was settled"] * verbose), "time",
                  "witness", title=f"{report.spec}  ({named}{report.board}×{report.board}; {report.cores})",
                  title_justify="left", box=box.SIMPLE_HEAD, show_edge=False)
    for f in report.findings:
        witness = f"{len(f.witness.record['actions'])} actions" if f.witness else ""
        seconds = f"{f.seconds:.2f} s" + (" + shared" if f.shared else "")
        table.add_row(f.property, f"[{STYLES[f.status]}]{escape(settled_by(f.parts))}[/]",
                      *([escape(f.label)] * verbose), seconds, witness)
    out.print(table)
    out.print(f"[dim]{escape(shared_line(report, verbose))}[/dim]")
    note = notes().get(report.walk["key"]) if report.walk and verbose else None
    if note:  # what the walk's key means, and how it chooses a class's members
        out.print(f"[dim]{escape(note)}.[/dim]")
    if verbose:
        for f in report.findings:  # the registered paths each property compared (verify.paths)
            for p in f.details.get("paths", []):
                out.print(f"[dim]{f.property}: {escape(p['path'])}: {escape(p['label'])}[/dim]")
    for line in next_steps(report):
        out.print(line, soft_wrap=True)
    out.print()
    print_design(out, report)


def shared_line(report: Report, verbose: bool = False) -> str:
    """The work the properties marked `+ shared` rest on, each with its seconds of work."""
    parts = []
    for key, (what, took) in report.shared.items():
        covered = (f" ({walk_text(report.walk, report.canonical, verbose)})" if key == "walk" and report.walk
                   else "")
        parts.append(f"{what} {took:.1f} s{covered}")
    if not parts:  # a family that says nothing of shared work
        return f"{plural(report.games, 'game')} sampled in {report.sampling_seconds:.1f} s"
    return "shared (CPU seconds of work): " + "; ".join(parts)


def walk_text(walk: dict[str, Any], canonical: str, verbose: bool = False) -> str:
    """What a walk covered (naming the ruleset walked when it is not the one checked: in full when
    verbose or short)."""
    name = walk["ruleset"]
    of = ("" if name == canonical else f" of {name}" if verbose or len(name) <= 40
          else " of another ruleset (--verbose names it)")
    if walk["key"] == "concrete":
        what = f"every reachable position{of}, {walk['positions']} positions, none merged"
    else:
        what = (f"one position per shape class{of}, {walk['positions']} classes, each also on up to K = "
                f"{walk['members_per_class']} other members ({walk['members_checked']} checked)")
    if "published" in walk:
        what += f", published in {walk['published']} (not re-run)"
    if "lost" in walk:
        what += f", stopped early: {walk['lost']}"
    elif not walk["complete"]:
        what += f", to ply {walk.get('max_ply')} only"
    if "resumed_at" in walk:
        what += f", resumed from a checkpoint at ply {walk['resumed_at']} (earlier plies read, not walked)"
    return what


def next_steps(report: Report) -> list[str]:
    """Markup lines: each violation's witness and the command that replays it, each checker error,
    each property something would settle better."""
    out = []
    for f in report.findings:
        if f.witness is not None:
            record = json.dumps(f.witness.record, ensure_ascii=False)
            out += [f"[bold]{f.property}[/bold] ({LABELS[f.status]}): {escape(f.witness.shows)}",
                    f"  {escape(short_witness(f.witness.record))}",
                    f"  [bold]next:[/bold] replay it: {escape(f'echo {shlex.quote(record)} | qttt replay -')}"
                    + ("; --strict fails on it" if f.status == "accepted" else "")]
        elif f.status == "error":
            out.append(f"[bold]next:[/bold] {f.property}: the checker itself failed (a bug of ours; please "
                       f"report it with this line): {escape(f.label)}")
        elif f.next:
            out.append(f"[bold]next:[/bold] {f.property}: {escape(f.next)}")
    return out


def print_design(out: Console, report: Report) -> None:
    """The ruleset's design properties (verify.design): the findings and those not settled in a
    table, each finding's witness, and how many are clean (the JSON report lists each)."""
    if not report.design:
        return
    shown = [d for d in report.design if d.verdict != "clean"]
    if shown:
        table = Table("design property", "verdict", "what holds", "how it was settled",
                      title=f"{report.spec}: design (findings are not violations; --strict fails on them)",
                      title_justify="left")
        for d in shown:
            verdict = d.verdict if d.documented is None else f"{d.verdict} (kept: {d.documented})"
            table.add_row(f"{d.kind}: {escape(d.key)}", f"[{DESIGN_STYLES[d.verdict]}]{escape(verdict)}[/]",
                          escape(d.statement), escape(d.settled))
        out.print(table)
    clean = len(report.design) - len(shown)
    if clean:
        out.print(f"[dim]{escape(report.spec)}: {plural(clean, 'design property')} clean, each shown by a "
                  "replayed game or an argument (--json lists them)[/dim]")
    for d in report.design_findings:
        if d.witness:
            out.print(f"[bold]{d.kind}[/bold] ({escape(d.subject)}): {escape(d.witness.shows)}")
            out.print(f"  {short_witness(d.witness.record)}", markup=False)
            out.print(f"  {json.dumps(d.witness.record)}", markup=False)
    out.print()


def print_shared(out: Console, reports: list[Report]) -> None:
    """The work every ruleset of a family shares, reported once (the family's `shared` tool: for
    the quantum family Z3, its cross-checks, the enumeration)."""
    if all(r.walk is None and not any(f.details.get("z3_shared") for f in r.findings) for r in reports):
        return
    checked: dict[str, Family] = {}
    for r in reports:
        family = family_of(load_ruleset(r.spec))
        checked.setdefault(family.name, family)
    for family in checked.values():
        if "shared" in family.tools:
            print_family_shared(out, family.name, load(family.tools["shared"])())


def print_family_shared(out: Console, family: str, data: dict[str, Any]) -> None:
    """One family's shared work: Z3 queries, the unreduced cross-checks, enumerations."""
    z3 = data["z3"]
    lines = [f"Z3: {plural(z3['queries'], 'query')}, {z3['status']}, in {z3['seconds']:.1f} s"]
    if "unreduced_z3" in data:
        u = data["unreduced_z3"]
        lines.append(f"unreduced Z3 up to {u['cells']} cells: {plural(u['queries'], 'query')} "
                     f"in {u['seconds']:.1f} s")
    for prop, e in data.get("enumeration", {}).items():
        lines.append(f"enumeration for {prop}: {plural(e['cases'], 'case')} in {e['seconds']:.1f} s")
    out.print(f"[bold]Shared by every {family} ruleset (done once, not per ruleset):[/bold] "
              + "; ".join(lines))


def main(argv: list[str] | None = None) -> int:
    """Run `check` without the rest of the `qttt` command line."""
    parser = argparse.ArgumentParser(prog="python -m verify", description="The qttt consistency checker.")
    add_arguments(parser)
    try:
        return run(parser.parse_args(argv))
    except QtttError as e:
        print(f"qttt check: {e}", file=sys.stderr)
        return 2


def markdown(data: dict[str, Any]) -> list[str]:
    """A JSON report (`report_json`) as Markdown lines: the catalogue, then a table per ruleset and
    the witnesses of its violated properties (for the documentation's verification page)."""
    out = ["## Properties", "", "| id | statement | rules | applies to | method |", "|---|---|---|---|---|"]
    for p in data["catalogue"]:
        rules = ", ".join(f"`{r}`" for r in p["rules"])
        out.append(f"| `{p['id']}` | {p['statement']} | {rules} | {p['applies_to']} | {p['method']} |")
    out += ["", "Design properties (rules that cannot matter; findings of their own kind, not violations):",
            "",
            "| kind | the rules are clean when |", "|---|---|"]
    out += [f"| `{kind}` | {text} |" for kind, text in KINDS.items()]
    out.append("")
    for rep in data["rulesets"]:
        n = rep["board"]
        out += [f"## {rep['ruleset']}", "",
                f"Canonical name `{rep['canonical']}`, {n}×{n}, {rep['sampled_games']} sampled games; "
                f"{rep.get('cores', 'engine (Python)')}.", "",
                "| property | status | how it was settled | method |", "|---|---|---|---|"]
        for p in rep["properties"]:
            out.append(f"| `{p['property']}` | {data['statuses'][p['status']]} | {p['label']} | "
                       f"{p['method']} |")
        out.append("")
        compared = [f"- `{p['property']}`: {path['path']}: {path['label']}" for p in rep["properties"]
                    for path in p.get("details", {}).get("paths", [])]
        out += ["Paths compared with the engine:", "", *compared, ""] if compared else []
        for p in rep["properties"]:
            if "witness" in p:
                out += [f"Witness for `{p['property']}`: {p['witness']['shows']}", "",
                        f"    {short_witness(p['witness']['record'])}", ""]
        if rep.get("design"):
            out += [f"Design properties of {rep['ruleset']} (findings are not violations):", "",
                    "| design property | verdict | what holds | how it was settled |", "|---|---|---|---|"]
            for d in rep["design"]:
                verdict = d["verdict"] + (f" (kept: {d['documented']})" if "documented" in d else "")
                out.append(f"| `{d['kind']}`: `{d['key']}` | {verdict} | {d['statement']} | {d['settled']} |")
            out.append("")
    if "summary" in data:
        out += [f"Summary: {data['summary']}.", ""]
        for text in notes().values():
            out += [f"{text}.", ""]
    return out
