"""The conformance runner: replays suites and perft tables against an engine speaking the
protocol (spec/protocol.md), as a subprocess or in-process, and reports every difference of each
case at two levels (`report`): the step, and the expected and actual values as JSON.

After a difference a case goes on where the states allow: a wrong state is compared again after
each later step; an action accepted that should be refused is undone by replaying the case's
actions in a new game; an action refused that the case needs ends the case, saying so.
The runner survives engines that crash, hang (a timeout per request), print garbage or go silent:
the item fails and the next one gets a fresh engine; an engine that cannot start at all is one
line (`CouldNotRun`), not a failure per case. Rulesets and optional commands an engine's hello
does not list are reported as not supported, never as failed.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import shlex
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..errors import FileError, QtttError
from ..io import read_json
from ..jsonstream import Refused, dumps, loads
from ..notation import Json
from ..processes import ChannelClosed, LineChannel
from .blame import CaseRules, field_of, known_rules
from .protocol import PROTOCOL, Handler
from .report import Difference, Report, Result, show
from .validator import Validator, load_schema

TRAVERSE_BUDGET = 2_000  # most positions the runner expands itself for an engine without perft
HELLO_TIMEOUT = 10.0  # seconds a starting engine has for its hello (at least the request timeout)


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
        raise EngineFailure(f"answered {show(raw, 1000)}, which is not a response object with ok")
    if raw.get("id") != req_id:
        raise EngineFailure(f"answered id {json.dumps(raw.get('id'))} to request {req_id}")
    return raw


class ProcessEngine:
    """An engine command run as a subprocess; requests are lines on its stdin (the process and
    line I/O is qttt.processes.LineChannel: bounded lines, timeouts, process-group cleanup)."""

    def __init__(self, command: str) -> None:
        self.command = command
        self.next_id = 0
        try:
            self.channel = LineChannel(shlex.split(command))
        except (OSError, ValueError) as e:
            why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            raise EngineFailure(f"cannot start {command!r}: {why}") from None

    def request(self, req: dict[str, Json], timeout: float) -> dict[str, Json]:
        """Send one request line and wait for its response line."""
        self.next_id += 1
        req_id = self.next_id
        try:
            self.channel.send(json.dumps({"id": req_id, **req}))
            line = self.channel.read_line(timeout)
        except ChannelClosed as e:
            raise EngineFailure(self._gone(e)) from None
        if line is None:
            raise EngineFailure(f"no response within {timeout:g} s")
        try:
            raw = loads(line)
        except Refused as e:
            raise EngineFailure(f"printed JSON that is not strict ({e.msg}): {line.strip()[:80]!r}") from None
        except json.JSONDecodeError:
            raise EngineFailure(f"printed garbage: {line.strip()[:80]!r}") from None
        except RecursionError:
            raise EngineFailure("printed JSON nested too deeply") from None
        return _check_response(raw, req_id)

    def _gone(self, e: ChannelClosed) -> str:
        """Why the engine stopped answering: exited (with its status and last words on standard
        error), closed its output while running, or broke a limit of the channel."""
        if not self.channel.closed:
            return f"engine: {e}"
        status = self.channel.exit_status()
        if status is None:
            return "engine closed its output but is still running"
        tail = f"; stderr: {' | '.join(self.channel.errors)[-200:]}" if self.channel.errors else ""
        return f"engine exited (status {status}){tail}"

    def close(self, force: bool = False) -> None:
        """Ask the engine to quit (unless `force`), then kill its process group."""
        goodbye = None if force else json.dumps({"id": self.next_id + 1, "cmd": "quit"})
        self.channel.stop(goodbye, grace=1.0)


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
                out = self.handler.handle(loads(dumps({"id": req_id, **req})))
            except Exception as e:  # the engine's own bug: reported, never raised here
                failure.append(f"raised {type(e).__name__}: {e}"[:200])
                return
            try:  # as it would cross a pipe: strict JSON or nothing
                box.append(loads(dumps({"id": req_id, **out})))
            except (ValueError, TypeError, RecursionError) as e:
                failure.append(f"answered with what is not strict JSON: {e}"[:200])

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
        raise EngineSetupError(None, f"--python {spec!r}: expected module:factory")
    if "" not in sys.path:
        sys.path.insert(0, "")
    try:
        module = importlib.import_module(module_name)
        factory = getattr(module, attr)
    except (ImportError, AttributeError) as e:
        raise EngineSetupError(None, f"--python {spec!r}: {e}") from None
    if not callable(factory):
        raise EngineSetupError(None, f"--python {spec!r}: {attr} is not callable")
    return factory  # type: ignore[no-any-return]


# -- comparisons ------------------------------------------------------------------------------

def state_diff(expected: Json, actual: Json, path: str = "state") -> Iterator[str]:
    """`path: expected X, got Y` for each differing field (the board cell by cell); fields the
    engine adds are ignored (the interchange format allows them)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in expected:
            if key not in actual:
                yield f"{path}.{key}: expected {show(expected[key])}, got nothing"
            else:
                yield from state_diff(expected[key], actual[key], f"{path}.{key}")
    elif (isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual)
          and path.endswith("board")):
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            yield from state_diff(e, a, f"{path}[{i}]")
    elif type(expected) is not type(actual) or expected != actual:
        yield f"{path}: expected {show(expected)}, got {show(actual)}"


def legal_diff(expected: list[Json], actual: Json) -> list[tuple[str, str]]:
    """(level, text) for each way an engine's legal list differs: missing or unexpected actions
    (core), or the same actions out of the protocol's order (strict)."""
    if not isinstance(actual, list):
        return [("core", f"legal: expected a list, got {show(actual)}")]
    if actual == expected:
        return []
    key = [json.dumps(a, sort_keys=True) for a in expected]
    got = [json.dumps(a, sort_keys=True) for a in actual]
    missing = [a for a, k in zip(expected, key, strict=True) if k not in got]
    extra = [a for a, k in zip(actual, got, strict=True) if k not in key]
    out = []
    if missing:
        out.append(("core", f"legal: missing {show(missing)}"))
    if extra:
        out.append(("core", f"legal: unexpected {show(extra)}"))
    if not out and sorted(key) != sorted(got):
        out.append(("core", f"legal: {len(got)} actions listed for {len(key)} (some twice)"))
    if not out:
        out.append(("strict", f"legal: the same actions out of order; expected {show(expected)}, "
                              f"got {show(actual)}"))
    return out


def refusal_diff(expected: Json, response: dict[str, Json]) -> list[tuple[str, str]]:
    """(level, text) for each way the response to an action differs from the expected refusal
    (or acceptance): acceptance and kind count at core, the rule id at strict. A rule id the
    engine names that spec/rules.toml does not have is said so."""
    if expected is None:
        if response["ok"]:
            return []
        return [("core", f"expected the action to be accepted, got the refusal "
                         f"{show(response.get('error'), None)}{_unknown(response.get('error'))}")]
    if response["ok"]:
        return [("core", f"expected a refusal of kind {show(expected['kind'])}, got ok")]
    got = response.get("error")
    if not isinstance(got, dict):
        return [("core", f"expected a refusal of kind {show(expected['kind'])}, "
                         f"got the error {show(got, None)}")]
    out = []
    if got.get("kind") != expected["kind"]:
        out.append(("core", f"error.kind: expected {show(expected['kind'])}, got {show(got.get('kind'))}"))
    if got.get("rule") != expected["rule"]:
        out.append(("strict", f"error.rule: expected {show(expected['rule'])}, got {show(got.get('rule'))}"
                              + _unknown(got)))
    return out


def _unknown(error: Json) -> str:
    """A note on the rule id an engine's error names when spec/rules.toml has no such rule."""
    rule = error.get("rule") if isinstance(error, dict) else None
    if isinstance(rule, str) and rule not in known_rules():
        return f" ({show(rule)} is not a rule id of spec/rules.toml)"
    return ""


# -- the runner -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Capabilities:
    """What an engine's hello says it supports; None where it does not say (then: everything)."""

    rulesets: tuple[str, ...] | None = None
    commands: tuple[str, ...] | None = None

    @staticmethod
    def from_hello(hello: dict[str, Json]) -> Capabilities:
        """The capabilities listed in a hello response; ValueError if a list is malformed."""
        lists: list[tuple[str, ...] | None] = []
        for name in ("rulesets", "commands"):
            value = hello.get(name)
            if value is not None and (not isinstance(value, list)
                                      or not all(isinstance(v, str) for v in value)):
                raise ValueError(f"hello: {name} must be a list of strings, got {show(value)}")
            lists.append(None if value is None else tuple(value))
        return Capabilities(*lists)

    def supports_suite(self, suite: dict[str, Json]) -> bool:
        """Whether the suite's ruleset (by name or canonical name) is among the listed ones."""
        return self.rulesets is None or bool(
            {suite["ruleset"]["name"], suite["ruleset"]["canonical"]} & set(self.rulesets))

    def has(self, command: str) -> bool:
        """Whether the engine may be sent this optional command."""
        return self.commands is None or command in self.commands


class CouldNotRun(Exception):
    """The run cannot go on: the engine cannot be started, or failed to restart three times."""


class _Stop(Exception):
    """The item cannot go on; the message says why."""


class _NotSupported(Exception):
    """The engine refused `new` with kind unsupported."""


class _Budget(Exception):
    pass


class Runner:
    """Runs suites against engines made by `make_engine`, restarting one after a failure."""

    def __init__(self, make_engine: Callable[[], Engine], timeout: float = 5.0,
                 perft_timeout: float = 60.0, out: Callable[[str], None] | None = None,
                 walk_budget: int = TRAVERSE_BUDGET,
                 on_result: Callable[[Result], None] | None = None) -> None:
        self.make_engine = make_engine
        self.timeout = timeout
        self.perft_timeout = perft_timeout
        self.walk_budget = walk_budget
        self.out = out or (lambda _line: None)
        self.on_result = on_result or (lambda _result: None)
        self.engine: Engine | None = None
        self.capabilities = Capabilities()
        self.start_failures = 0
        self.report = Report()

    # -- engine lifecycle

    def _cannot_start(self, message: str) -> Exception:
        self.start_failures += 1
        if self.report.hello is None:
            return CouldNotRun(f"the engine cannot start: {message}")
        if self.start_failures >= 3:
            return CouldNotRun(f"the engine failed to restart three times: {message}")
        return EngineFailure(f"restart: {message}")

    def _engine(self) -> Engine:
        if self.engine is not None:
            return self.engine
        try:
            engine = self.make_engine()
        except EngineFailure as e:
            raise self._cannot_start(str(e)) from None
        except Exception as e:  # a --python factory that raises
            raise self._cannot_start(f"it could not be made: {type(e).__name__}: {e}") from None
        try:
            hello = engine.request({"cmd": "hello", "protocol": PROTOCOL},
                                   max(self.timeout, HELLO_TIMEOUT))
            if not hello["ok"] or hello.get("protocol") != PROTOCOL:
                raise EngineFailure(f"expected protocol {PROTOCOL}, got {show(hello)}")
            capabilities = Capabilities.from_hello(hello)
        except (EngineFailure, ValueError) as e:
            with contextlib.suppress(Exception):
                engine.close(force=True)
            raise self._cannot_start(f"hello: {e}") from None
        if self.report.hello is None:
            self.report.hello = {k: v for k, v in hello.items() if k not in ("id", "ok")}
            self.capabilities = capabilities
            rulesets, commands = capabilities.rulesets, capabilities.commands
            self.out(f"engine: {show(hello.get('engine'))}; rulesets: "
                     + ("any" if rulesets is None else ", ".join(rulesets) or "none")
                     + "; optional commands: "
                     + ("not listed" if commands is None else ", ".join(commands) or "none"))
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

    def _ask(self, req: dict[str, Json], where: str, result: Result,
             timeout: float | None = None) -> dict[str, Json]:
        """The engine's response; on a crash, hang or garbage a core difference, and the item stops."""
        try:
            return self._engine().request(req, timeout or self.timeout)
        except EngineFailure as e:
            self._drop()
            result.fail(where, f"{req['cmd']}: {e}")
            raise _Stop("stopped: the engine failed; the next item gets a fresh engine") from None

    def _answer(self, req: dict[str, Json], name: str, where: str, result: Result) -> Json:
        """The field `name` of the response to `req`, or None after recording a core difference."""
        response = self._ask(req, where, result)
        if not response["ok"] or name not in response:
            result.add("core", where, f"{req['cmd']}: expected {name}, got {show(response, None)}")
            return None
        return response[name]

    def _start(self, record: dict[str, Json], where: str, result: Result) -> None:
        """A new game of the record's variant, with its actions applied."""
        started = self._ask({"cmd": "new", "variant": record["variant"]}, where, result)
        if not started["ok"]:
            error = started.get("error")
            if isinstance(error, dict) and error.get("kind") == "unsupported":
                raise _NotSupported(f"new {show(record['variant'])}: {show(error.get('message'))}")
            result.add("core", where, f"new {show(record['variant'])}: refused: {show(error, None)}")
            raise _Stop("stopped: the game cannot be started")
        for i, action in enumerate(record["actions"]):
            applied = self._ask({"cmd": "apply", "action": action}, where, result)
            if not applied["ok"]:
                result.add("core", where, f"start action {i} {show(action)}: refused: "
                                          f"{show(applied.get('error'), None)}")
                raise _Stop("stopped: the start position cannot be reached")

    def _compare(self, expect: dict[str, Json], where: str, result: Result) -> list[Difference]:
        """Compare the engine's state and legal actions with `expect`: the new differences."""
        result.positions.append(where)
        before = len(result.differences)
        state = self._answer({"cmd": "state"}, "state", where, result)
        if state is not None:
            for text in state_diff(expect["state"], state):
                result.add("core", where, text, persisting=True)
        legal = self._answer({"cmd": "legal"}, "legal", where, result)
        if legal is not None:
            for level, text in legal_diff(expect["legal"], legal):
                result.add(level, where, text, persisting=True)
        return result.differences[before:]

    # -- cases

    def run_case(self, case: dict[str, Json], suite: str = "") -> Result:
        """Replay one case, listing every difference; after one, go on where the states allow."""
        result = Result(suite, case["id"], "case", description=case["description"],
                        spec_ref=list(case.get("spec_ref", [])))
        try:
            self._case(case, result)
        except _Stop as s:
            result.note = str(s)
        except _NotSupported as e:
            result.status, result.note = "not supported", str(e)
        return result

    def _case(self, case: dict[str, Json], result: Result) -> None:
        if "start_error" in case:
            where = f"new {show(case['start']['variant'])}"
            result.at = case["start"]
            got = self._ask({"cmd": "new", "variant": case["start"]["variant"]}, where, result)
            for level, text in refusal_diff(case["start_error"], got):
                result.add(level, where, text, rules=(case["start_error"]["rule"],))
            result.note_unknown(got.get("error"))
            return
        blame = CaseRules(case)
        variant = case["start"]["variant"]
        played = list(case["start"]["actions"])
        result.at = {"variant": variant, "actions": list(played)}
        try:
            self._start(case["start"], "start", result)
        except _Stop:  # a start action refused: blame what went wrong before it
            if result.differences and result.error is None:
                result.differences[-1].rules = blame.at(self._locate(case, blame, result))
            raise
        differ = self._compare(case["expect_start"], "start", result)
        if differ:
            index = self._locate(case, blame, result)
            for d in differ:
                d.rules = blame.at(index, field_of(d.text), d.text)
            self._start(case["start"], "start", result)  # the engine's game again, as it was
        for i, step in enumerate(case["steps"], start=1):
            where = f"step {i} {show(step['action'])}"
            index = len(case["start"]["actions"]) + i - 1
            # the record that reproduces this step: its action too when it is legal
            legal = [] if "error" in step else [step["action"]]
            result.at = {"variant": variant, "actions": played + legal}
            response = self._ask({"cmd": "apply", "action": step["action"]}, where, result)
            refused = (step["error"]["rule"],) if "error" in step else None
            for level, text in refusal_diff(step.get("error"), response):
                missing = f"legal: missing [{dumps(step['action'])}]"  # what refusing it amounts to
                result.add(level, where, text, rules=refused or blame.at(index - 1, "legal", missing))
            result.note_unknown(response.get("error"))
            if "error" not in step:
                played.append(step["action"])
                if not response["ok"]:
                    raise _Stop(f"stopped at step {i}: the engine refused an action the case "
                                "needs, so the later steps cannot be played")
            elif response["ok"]:  # accepted what it should refuse: back to the case's position
                self._start({"variant": case["start"]["variant"], "actions": played}, where, result)
            for d in self._compare(step, where, result):
                d.rules = refused or blame.at(index, field_of(d.text), d.text)

    def _locate(self, case: dict[str, Json], blame: CaseRules, result: Result) -> int:
        """Where a difference at the start first shows: the start replayed on the engine one action
        at a time, up to the first whose position differs from ours; its index (-1: the empty
        board). The record that reproduces the item shrinks to it, and the item says so."""
        start = case["start"]["actions"]
        ours = blame.expects()
        for k in range(0, min(len(start), len(ours) - 1) + 1):
            record = {"variant": case["start"]["variant"], "actions": start[:k]}
            known = len(result.differences)
            try:
                self._start(record, "start", result)
            except _Stop:  # the engine refuses action k: what it did before passed
                del result.differences[known:]
                return k - 1
            state = self._ask({"cmd": "state"}, "start", result)
            legal = self._ask({"cmd": "legal"}, "start", result)
            if (not state["ok"] or next(state_diff(ours[k]["state"], state.get("state")), None) is not None
                    or not legal["ok"] or legal_diff(ours[k]["legal"], legal.get("legal"))):
                result.record = record
                if k < len(start):
                    result.first_seen = f"after start action {k} {show(start[k - 1])}" if k else \
                        "at the empty board"
                return k - 1
        return len(start) - 1

    # -- perft

    def _perft(self, record: dict[str, Json], depth: int, want_divide: bool, where: str,
               result: Result) -> tuple[int, list[tuple[Json, int]]] | None:
        """(nodes, divide) from the engine's perft command, or by walking it; None if too costly."""
        if self.capabilities.has("perft"):
            self._start(record, where, result)
            req: dict[str, Json] = {"cmd": "perft", "depth": depth, "divide": want_divide}
            got = self._ask(req, where, result, self.perft_timeout)
            if got["ok"]:
                nodes = got.get("nodes")
                split = got.get("divide", [])
                if not isinstance(nodes, int) or not isinstance(split, list) or not all(
                        isinstance(d, dict) and isinstance(d.get("nodes"), int) for d in split):
                    result.add("core", where, f"perft: malformed answer {show(got)}")
                    raise _Stop("stopped: the perft answer cannot be read")
                return nodes, [(d.get("action"), int(d["nodes"])) for d in split]
        return self._walk(record, depth, where, result)

    def _walk(self, record: dict[str, Json], depth: int, where: str,
              result: Result) -> tuple[int, list[tuple[Json, int]]] | None:
        budget = [self.walk_budget]

        def legal_after(path: list[Json]) -> list[Json]:
            budget[0] -= 1
            if budget[0] < 0:
                raise _Budget
            self._start({"variant": record["variant"], "actions": record["actions"] + path}, where,
                        result)
            out = self._answer({"cmd": "legal"}, "legal", where, result)
            if not isinstance(out, list):
                raise _Stop("stopped: the legal actions cannot be walked")
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

    def run_perft(self, entry: dict[str, Json], suite: str = "") -> Result:
        """Check one perft entry at every depth; at the deepest, the first differing first action."""
        result = Result(suite, entry["id"], "perft", description=entry["description"], at=entry["start"])
        counts: list[int] = entry["counts"]
        try:
            for depth, expected in enumerate(counts, start=1):
                deepest = depth == len(counts)
                where = f"depth {depth}"
                got = self._perft(entry["start"], depth, deepest, where, result)
                if got is None:
                    how = "the engine lists no perft command" if not self.capabilities.has("perft") \
                        else "the engine refused perft"
                    result.status = "skipped"
                    result.note = (f"depth {depth} and deeper not checked: {how}, and walking it "
                                   f"through the protocol takes more than {self.walk_budget:,} positions"
                                   + (f" (depths 1-{depth - 1} checked)" if depth > 1 else ""))
                    break
                nodes, split = got
                if nodes != expected:
                    result.add("core", where, f"perft: expected {expected}, got {nodes}")
                    if deepest:
                        for text in _first_disagreement(entry["divide"], split):
                            result.add("core", where, text)
        except _Stop as s:
            result.note = str(s)
        except _NotSupported as e:
            result.status, result.note = "not supported", str(e)
        return result

    # -- suites

    def run_suite(self, suite: dict[str, Json], perft: bool = True) -> Report:
        """Run every case (and perft entry) of one suite, adding to the report.

        Raises CouldNotRun when the engine cannot be started (or restarted three times)."""
        name = suite["ruleset"]["name"]
        items: list[tuple[dict[str, Json], Callable[[dict[str, Json], str], Result]]] = [
            (c, self.run_case) for c in suite["cases"]]
        if perft:
            items += [(p, self.run_perft) for p in suite["perft"]]
        self._engine()  # the capabilities come with the first hello
        if not self.capabilities.supports_suite(suite):
            note = f"ruleset {suite['ruleset']['canonical']} is not among the engine's rulesets"
            self.report.unsupported_suites.append(name)
            self.report.results += [Result(name, item["id"], "case" if run == self.run_case else "perft",
                                           status="not supported", note=note) for item, run in items]
            self.out(f"NOT SUPPORTED {name}: {note} ({len(items)} items)")
            return self.report
        for item, run in items:
            began = time.perf_counter()
            result = run(item, name)
            result.seconds = time.perf_counter() - began
            self.report.results.append(result)
            self.on_result(result)
            for line in result.lines():
                self.out(line)
        return self.report

    def run(self, suites: list[dict[str, Json]], perft: bool = True) -> Report:
        """Run the suites in order; a run that cannot go on is recorded in `could_not_run`. Each
        difference is blamed on one rule once all are known (`Report.blame`)."""
        try:
            for suite in suites:
                self.run_suite(suite, perft)
        except CouldNotRun as e:
            self.report.could_not_run = str(e)
        finally:
            self.close()
        self.report.blame()
        return self.report


def _first_disagreement(expected: list[dict[str, Json]], actual: list[tuple[Json, int]]) -> list[str]:
    want = {json.dumps(d["action"], sort_keys=True): d["nodes"] for d in expected}
    got = {json.dumps(a, sort_keys=True): n for a, n in actual}
    for key in [*want, *got]:
        if want.get(key) != got.get(key):
            return [f"divide: first disagreement at first action {key}: expected "
                    f"{show(want.get(key, 'no such action'))}, got {show(got.get(key, 'no such action'))}"]
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
