"""The conformance runner: replays suites and perft tables against an engine speaking the
protocol (spec/protocol.md), as a subprocess or in-process, and reports every failure with the
case id, the step, and the expected and actual values.

The runner survives engines that crash, hang (a timeout per request), print garbage or go silent:
the case fails and the next case gets a fresh engine.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import queue
import shlex
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..errors import FileError, QtttError
from ..io import read_json
from .protocol import PROTOCOL, Handler
from .schema import Validator, load_schema

Json = Any
TRAVERSE_BUDGET = 2_000  # most positions the runner expands itself for an engine without perft


class EngineSetupError(QtttError):
    """The engine to test cannot be named or loaded (a usage error, reported in one line)."""

    kind = "engine"


class EngineFailure(Exception):
    """The engine crashed, hung, went silent or answered something that is not a response."""


class Engine(Protocol):
    """A connection to an engine: one request, one response."""

    def request(self, req: dict[str, Json], timeout: float) -> dict[str, Json]:
        """The response to `req`; EngineFailure if none comes back in time."""
        ...

    def close(self, force: bool = False) -> None:
        """Stop the engine: ask it to quit, or (force) kill it at once."""
        ...


def _check_response(raw: Json, req_id: int) -> dict[str, Json]:
    if not isinstance(raw, dict) or not isinstance(raw.get("ok"), bool):
        raise EngineFailure(f"answered {json.dumps(raw)[:80]}, which is not a response object with ok")
    if raw.get("id") != req_id:
        raise EngineFailure(f"answered id {json.dumps(raw.get('id'))} to request {req_id}")
    return raw


class ProcessEngine:
    """An engine command run as a subprocess; requests are lines on its stdin."""

    def __init__(self, command: str) -> None:
        self.command = command
        self.next_id = 0
        try:
            self.proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         text=True, encoding="utf-8", errors="replace", bufsize=1)
        except OSError as e:
            raise EngineFailure(f"cannot start {command!r}: {e.strerror}") from None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: deque[str] = deque(maxlen=5)
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line.rstrip())

    def _died(self) -> str:
        try:
            status = self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            status = None
        tail = f"; stderr: {' | '.join(self.stderr)[-200:]}" if self.stderr else ""
        return f"engine exited (status {status}){tail}"

    def request(self, req: dict[str, Json], timeout: float) -> dict[str, Json]:
        """Send one request line and wait for its response line."""
        self.next_id += 1
        req_id = self.next_id
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps({"id": req_id, **req}) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise EngineFailure(self._died()) from None
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise EngineFailure(f"no response within {timeout:g} s") from None
        if line is None:
            raise EngineFailure(self._died())
        try:
            raw = json.loads(line)
        except json.JSONDecodeError:
            raise EngineFailure(f"printed garbage: {line.strip()[:80]!r}") from None
        return _check_response(raw, req_id)

    def close(self, force: bool = False) -> None:
        """Ask the engine to quit, killing it if it does not; with `force` kill it at once."""
        if force and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.proc.poll() is None:
            with contextlib.suppress(EngineFailure):
                self.request({"cmd": "quit"}, 1.0)
            try:
                self.proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()


class InProcessEngine:
    """A handler object in this process; each request runs in a thread so a hang times out."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.next_id = 0

    def request(self, req: dict[str, Json], timeout: float) -> dict[str, Json]:
        """Call the handler with one request (as a fresh JSON copy) and check its answer."""
        self.next_id += 1
        req_id = self.next_id
        box: list[Json] = []
        failure: list[str] = []

        def call() -> None:
            try:
                out = self.handler.handle(json.loads(json.dumps({"id": req_id, **req})))
                box.append(json.loads(json.dumps({"id": req_id, **out})))
            except Exception as e:  # the engine's own bug: reported, never raised here
                failure.append(f"raised {type(e).__name__}: {e}"[:200])

        worker = threading.Thread(target=call, daemon=True)
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            raise EngineFailure(f"no response within {timeout:g} s")
        if failure:
            raise EngineFailure(failure[0])
        if not box:
            raise EngineFailure("returned nothing")
        return _check_response(box[0], req_id)

    def close(self, force: bool = False) -> None:
        """Nothing to stop (a hung call is left behind in its daemon thread)."""


def python_factory(spec: str) -> Callable[[], Handler]:
    """The factory named by `module:attribute` (the current directory is importable)."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise EngineSetupError("engine-protocol", f"--python {spec!r}: expected module:factory")
    if "" not in sys.path:
        sys.path.insert(0, "")
    try:
        module = importlib.import_module(module_name)
        factory = getattr(module, attr)
    except (ImportError, AttributeError) as e:
        raise EngineSetupError("engine-protocol", f"--python {spec!r}: {e}") from None
    if not callable(factory):
        raise EngineSetupError("engine-protocol", f"--python {spec!r}: {attr} is not callable")
    return factory  # type: ignore[no-any-return]


# -- comparisons ------------------------------------------------------------------------------

def _show(value: Json) -> str:
    text = json.dumps(value, separators=(",", ":"))
    return text if len(text) <= 160 else text[:157] + "..."


def diff(expected: Json, actual: Json, path: str) -> Iterator[str]:
    """`path: expected X, got Y` for each differing leaf (lists of equal length item by item)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in expected:
            if key not in actual:
                yield f"{path}.{key}: expected {_show(expected[key])}, got nothing"
            else:
                yield from diff(expected[key], actual[key], f"{path}.{key}")
        for key in actual:
            if key not in expected:
                yield f"{path}.{key}: unexpected field, got {_show(actual[key])}"
    elif (isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual)
          and path.endswith("board")):
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            yield from diff(e, a, f"{path}[{i}]")
    elif type(expected) is not type(actual) or expected != actual:
        yield f"{path}: expected {_show(expected)}, got {_show(actual)}"


def legal_diff(expected: list[Json], actual: Json) -> list[str]:
    """How an engine's legal list differs: missing, unexpected, or out of order."""
    if not isinstance(actual, list):
        return [f"legal: expected a list, got {_show(actual)}"]
    if actual == expected:
        return []
    key = [json.dumps(a, sort_keys=True) for a in expected]
    got = [json.dumps(a, sort_keys=True) for a in actual]
    missing = [a for a, k in zip(expected, key, strict=True) if k not in got]
    extra = [a for a, k in zip(actual, got, strict=True) if k not in key]
    out = []
    if missing:
        out.append(f"legal: missing {_show(missing)}")
    if extra:
        out.append(f"legal: unexpected {_show(extra)}")
    if not out:
        out.append(f"legal: expected sorted {_show(expected)}, got {_show(actual)}")
    return out


def error_diff(expected: Json, response: dict[str, Json]) -> list[str]:
    """Whether the refusal (or its absence) matches: kind and rule."""
    if expected is None:
        if response["ok"]:
            return []
        return [f"error: expected the action to be accepted, got {_show(response.get('error'))}"]
    if response["ok"]:
        return [f"error: expected {expected['kind']} (rule {expected['rule']}), got ok"]
    got = response.get("error")
    if not isinstance(got, dict):
        return [f"error: expected {expected['kind']} (rule {expected['rule']}), got {_show(got)}"]
    actual = {"kind": got.get("kind"), "rule": got.get("rule")}
    if actual != expected:
        return [f"error: expected {expected['kind']} (rule {expected['rule']}), "
                f"got {actual['kind']} (rule {actual['rule']})"]
    return []


# -- the runner -------------------------------------------------------------------------------

@dataclass
class Failure:
    """One failed case or perft entry."""

    item: str
    where: str
    problems: list[str]

    def __str__(self) -> str:
        return f"FAIL {self.item} {self.where}: " + "; ".join(self.problems[:4]) + (
            f" (and {len(self.problems) - 4} more)" if len(self.problems) > 4 else "")


@dataclass
class Report:
    """What a run found."""

    passed: int = 0
    failed: int = 0
    skipped: list[str] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)

    def summary(self) -> str:
        """The last line of a run."""
        return f"{self.passed} passed, {self.failed} failed"


class _CaseFailed(Exception):
    def __init__(self, where: str, problems: list[str]) -> None:
        super().__init__(where)
        self.where = where
        self.problems = problems


class Runner:
    """Runs suites against engines made by `make_engine`, restarting one after a failure."""

    def __init__(self, make_engine: Callable[[], Engine], timeout: float = 5.0,
                 perft_timeout: float = 60.0, out: Callable[[str], None] | None = None,
                 walk_budget: int = TRAVERSE_BUDGET) -> None:
        self.make_engine = make_engine
        self.timeout = timeout
        self.perft_timeout = perft_timeout
        self.walk_budget = walk_budget
        self.out = out or (lambda _line: None)
        self.engine: Engine | None = None
        self.start_failures = 0
        self.report = Report()

    # -- engine lifecycle

    def _engine(self) -> Engine:
        if self.engine is not None:
            return self.engine
        if self.start_failures >= 3:
            raise EngineFailure("engine unavailable: it failed to start three times")
        try:
            engine = self.make_engine()
            hello = engine.request({"cmd": "hello", "protocol": PROTOCOL}, self.timeout)
        except EngineFailure as e:
            self.start_failures += 1
            raise EngineFailure(f"hello: {e}") from None
        except Exception as e:  # a --python factory that raises
            self.start_failures += 1
            raise EngineFailure(f"engine could not be made: {type(e).__name__}: {e}") from None
        if not hello["ok"] or hello.get("protocol") != PROTOCOL:
            self.start_failures += 1
            engine.close()
            raise EngineFailure(f"hello: expected protocol {PROTOCOL}, got {_show(hello)}")
        self.start_failures = 0
        self.engine = engine
        return engine

    def _drop(self, force: bool = True) -> None:
        if self.engine is not None:
            with contextlib.suppress(Exception):
                self.engine.close(force)
            self.engine = None

    def close(self) -> None:
        """Stop the current engine politely."""
        self._drop(force=False)

    def _ask(self, req: dict[str, Json], where: str, timeout: float | None = None) -> dict[str, Json]:
        try:
            return self._engine().request(req, timeout or self.timeout)
        except EngineFailure as e:
            self._drop()
            raise _CaseFailed(where, [f"{req['cmd']}: {e}"]) from None

    def _field(self, response: dict[str, Json], name: str, where: str) -> Json:
        if not response["ok"] or name not in response:
            self._drop()  # an engine that cannot answer state or legal is out of step
            raise _CaseFailed(where, [f"expected {name}, got {_show(response)}"])
        return response[name]

    def _start(self, record: dict[str, Json], where: str) -> None:
        started = self._ask({"cmd": "new", "variant": record["variant"]}, where)
        if not started["ok"]:
            raise _CaseFailed(where, [f"new {record['variant']}: refused: {_show(started.get('error'))}"])
        for i, action in enumerate(record["actions"]):
            applied = self._ask({"cmd": "apply", "action": action}, where)
            if not applied["ok"]:
                raise _CaseFailed(where, [f"start action {i} {_show(action)} refused: "
                                          f"{_show(applied.get('error'))}"])

    def _compare(self, expect: dict[str, Json], where: str, error: Json = None,
                 response: dict[str, Json] | None = None) -> None:
        problems = error_diff(error, response) if response is not None else []
        state = self._field(self._ask({"cmd": "state"}, where), "state", where)
        problems += list(diff(expect["state"], state, "state"))
        legal = self._field(self._ask({"cmd": "legal"}, where), "legal", where)
        problems += legal_diff(expect["legal"], legal)
        if problems:
            raise _CaseFailed(where, problems)

    # -- cases

    def run_case(self, case: dict[str, Json]) -> Failure | None:
        """Replay one case; the failure at its first differing step, or None."""
        try:
            if "start_error" in case:
                got = self._ask({"cmd": "new", "variant": case["start"]["variant"]}, "new")
                problems = error_diff(case["start_error"], got)
                if problems:
                    raise _CaseFailed(f"new {_show(case['start']['variant'])}", problems)
                return None
            self._start(case["start"], "start")
            self._compare(case["expect_start"], "start")
            for i, step in enumerate(case["steps"], start=1):
                where = f"step {i} {_show(step['action'])}"
                response = self._ask({"cmd": "apply", "action": step["action"]}, where)
                self._compare(step, where, step.get("error"), response)
            if case["steps"] and case["steps"][-1]["state"]["scores"] != case["scores"]:
                raise _CaseFailed("end", ["suite: scores differ from the last state"])
        except _CaseFailed as f:
            return Failure(case["id"], f.where, f.problems)
        return None

    # -- perft

    def _perft(self, record: dict[str, Json], depth: int, want_divide: bool,
               where: str) -> tuple[int, list[tuple[Json, int]]] | None:
        """(nodes, divide) from the engine's perft command, or by walking it; None if too costly."""
        self._start(record, where)
        req: dict[str, Json] = {"cmd": "perft", "depth": depth, "divide": want_divide}
        got = self._ask(req, where, self.perft_timeout)
        if got["ok"]:
            nodes = got.get("nodes")
            split = got.get("divide", [])
            if not isinstance(nodes, int) or not isinstance(split, list) or not all(
                    isinstance(d, dict) and isinstance(d.get("nodes"), int) for d in split):
                raise _CaseFailed(where, [f"perft: malformed answer {_show(got)}"])
            return nodes, [(d.get("action"), int(d["nodes"])) for d in split]
        return self._walk(record, depth, where)

    def _walk(self, record: dict[str, Json], depth: int,
              where: str) -> tuple[int, list[tuple[Json, int]]] | None:
        budget = [self.walk_budget]

        def legal_after(path: list[Json]) -> list[Json]:
            budget[0] -= 1
            if budget[0] < 0:
                raise _Budget
            self._start({"variant": record["variant"], "actions": record["actions"] + path}, where)
            out = self._field(self._ask({"cmd": "legal"}, where), "legal", where)
            if not isinstance(out, list):
                raise _CaseFailed(where, [f"legal: expected a list, got {_show(out)}"])
            return out

        def count(path: list[Json], left: int) -> int:
            legal = legal_after(path)
            if left == 1:
                return len(legal)
            return sum(count([*path, a], left - 1) for a in legal)

        try:
            if depth == 0:
                return 1, []
            split = [(a, count([a], depth - 1) if depth > 1 else 1) for a in legal_after([])]
        except _Budget:
            return None
        return sum(n for _, n in split), split

    def run_perft(self, entry: dict[str, Json]) -> Failure | None:
        """Check one perft entry at every depth; on a difference, the first differing first action."""
        counts: list[int] = entry["counts"]
        try:
            for depth, expected in enumerate(counts, start=1):
                deepest = depth == len(counts)
                where = f"depth {depth}"
                got = self._perft(entry["start"], depth, deepest, where)
                if got is None:
                    self.report.skipped.append(f"{entry['id']} depth {depth}")
                    return None
                nodes, split = got
                if nodes != expected:
                    problems = [f"perft: expected {expected}, got {nodes}"]
                    if deepest:
                        problems += _first_disagreement(entry["divide"], split)
                    raise _CaseFailed(where, problems)
        except _CaseFailed as f:
            return Failure(entry["id"], f.where, f.problems)
        return None

    # -- suites

    def run_suite(self, suite: dict[str, Json], perft: bool = True) -> Report:
        """Run every case (and perft entry) of one suite, adding to the report."""
        items: list[tuple[dict[str, Json], Callable[[dict[str, Json]], Failure | None]]] = [
            (c, self.run_case) for c in suite["cases"]]
        if perft:
            items += [(p, self.run_perft) for p in suite["perft"]]
        for item, run in items:
            failure = run(item)
            if failure is None:
                self.report.passed += 1
            else:
                self.report.failed += 1
                self.report.failures.append(failure)
                self.out(str(failure))
        return self.report


class _Budget(Exception):
    pass


def _first_disagreement(expected: list[dict[str, Json]], actual: list[tuple[Json, int]]) -> list[str]:
    want = {json.dumps(d["action"], sort_keys=True): d["nodes"] for d in expected}
    got = {json.dumps(a, sort_keys=True): n for a, n in actual}
    for key in [*want, *got]:
        if want.get(key) != got.get(key):
            return [f"divide: first disagreement at first action {key}: expected "
                    f"{want.get(key, 'no such action')}, got {got.get(key, 'no such action')}"]
    return []


def load_suites(paths: list[Path]) -> list[dict[str, Json]]:
    """Suite files, read and checked against spec/schema/vectors.schema.json (FileError naming
    the file and its first problem otherwise)."""
    validator = Validator(load_schema("vectors.schema.json"))
    suites = []
    for path in paths:
        suite = read_json(path)
        problems = validator.errors(suite, limit=1)
        if problems:
            raise FileError(None, f"{path}: not a conformance suite: {problems[0]} "
                            "(qttt vectors check explains)")
        suites.append(suite)
    return suites
