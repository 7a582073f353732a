"""The `qttt` command line: a thin layer over the library. Each subcommand is a module here
with `register(subparsers)`; errors the toolkit reports become one line on standard error.

A command's module is imported when the command is chosen (`COMMANDS`), so that `qttt --version`
and `qttt show NAME` load only what they use; listing the commands (`qttt --help`) loads them all.

Exit status: 0 success, 1 a negative finding (an illegal record, a violated property, a failed
case), 2 input the command cannot use (a bad flag, file, ruleset or record format), 3 a bug of
ours, 130 interrupted.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import errno
import importlib
import io
import os
import pkgutil
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any, NoReturn

from .. import __version__, stops
from ..errors import QtttError, Terminated
from ..safe import SafeStream, escape

if TYPE_CHECKING:
    from rich.console import Console

    SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]
else:  # not subscriptable at run time
    SubParsers = argparse._SubParsersAction

# Each subcommand and the module of this package that registers it.
COMMANDS = {"analyze": "analyze", "check": "check", "conform": "conform", "engine": "engine",
            "match": "match", "perft": "perft", "play": "play", "random": "sample", "replay": "replay",
            "show": "variants", "tour": "tour", "tournament": "tournament", "variants": "variants",
            "vectors": "vectors"}


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: the problem, then where to find help."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {escape(message)} (see {self.prog} --help)\n")


# -- the options every command spells the same way (tests/cli/test_flags.py walks every parser and
# holds it to them): --core, --workers, --json, --quiet; old spellings stay, with a note (Deprecated)


def add_core(p: argparse.ArgumentParser, help: str, choices: tuple[str, ...] | None = None,
             default: str = "auto") -> None:
    """`--core`: the rules engine, among qttt.family.CORES (auto, compiled, python)."""
    from ..family import CORES  # here: not loaded at start-up

    p.add_argument("--core", choices=choices or CORES, default=default, help=help)


def add_engine_alias(p: argparse.ArgumentParser) -> None:
    """The old `--engine {auto,c,python}` of the solver: --core, with c read as compiled."""
    from ..argtypes import Deprecated  # here: not loaded at start-up

    p.add_argument("--engine", dest="core", choices=("auto", "compiled", "python"), metavar="{auto,c,python}",
                   type=lambda v: "compiled" if v == "c" else v, action=Deprecated,
                   help="deprecated spelling of --core (c: compiled)")


def add_workers(p: argparse.ArgumentParser, what: str, default: int = 0) -> None:
    """`--workers N`: processes (or threads) the work is spread over; 0 is one per core."""
    from ..argtypes import integer  # here: not loaded at start-up
    from ..bounds import WORKERS

    shown = "0: one per core" if default == 0 else f"{default}; 0: one per core"
    p.add_argument("--workers", type=integer(WORKERS), default=default, metavar="N",
                   help=f"{what} (default {shown})")


def workers(n: int) -> int:
    """The number of workers `--workers n` asks for: n, or one per core for 0."""
    return n or os.cpu_count() or 1


def add_json(p: argparse.ArgumentParser, what: str) -> None:
    """`--json`: the command's report as JSON on standard output instead of text."""
    p.add_argument("--json", action="store_true", help=what)


class JsonFlag(argparse.Action):
    """`--json` (nargs ?) where an old `--json FILE` wrote the JSON report to FILE: alone, the flag;
    with a value, the old meaning (the `output` option) and a one-line note."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        if values is True or values is None:
            setattr(namespace, self.dest, True)
            return
        print(f"{parser.prog}: {option_string} FILE is deprecated; use --output FILE (--json alone "
              "prints the JSON report)", file=sys.stderr)
        from ..argtypes import output_file  # here: not loaded at start-up

        try:
            namespace.output = output_file(values)  # the one output rule, as --output takes it
        except argparse.ArgumentTypeError as e:
            raise argparse.ArgumentError(self, str(e)) from None


def add_quiet(p: argparse.ArgumentParser, what: str = "no progress on standard error") -> None:
    """`--quiet`: no progress display."""
    p.add_argument("--quiet", action="store_true", help=what)


class Commands(SubParsers):
    """The subcommands of `COMMANDS`: each is a choice from the start and gets its parser when its
    module registers it, on first use (chosen, or listed in a help text)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pending = set(COMMANDS)  # commands whose module has not registered them yet
        for name in COMMANDS:  # a placeholder, so that an unknown command's error lists them all
            self._name_parser_map[name] = self._parser_class(add_help=False)

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        if name not in self.pending:
            return super().add_parser(name, **kwargs)
        self.pending.discard(name)
        del self._name_parser_map[name]
        parser = super().add_parser(name, **kwargs)
        table = dict(self._name_parser_map)  # back in its place: the choices keep one order
        self._name_parser_map.clear()
        rank = {n: i for i, n in enumerate(COMMANDS)}
        self._name_parser_map.update(sorted(table.items(), key=lambda item: rank.get(item[0], len(rank))))
        return parser

    def load(self, names: set[str]) -> None:
        """Register `names` (and whatever else their modules register)."""
        for module in sorted({COMMANDS[n] for n in names & self.pending}):
            importlib.import_module(f"{__name__}.{module}").register(self)

    def _get_subactions(self) -> list[argparse.Action]:
        self.load(self.pending)  # a help text lists every command with its own words
        return super()._get_subactions()

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        self.load({values[0]})
        super().__call__(parser, namespace, values, option_string)


def command_modules() -> list[str]:
    """The subcommand modules of this package, by name."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def build_parser(lazy: bool = False) -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered (`lazy`: each when it is chosen)."""
    parser = Parser(prog="qttt", description="Quantum tic-tac-toe: rules, engine, verification.")
    parser.add_argument("--version", action="version", version=f"qttt {__version__}")
    parser.register("action", "commands", Commands)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", action="commands")
    assert isinstance(sub, Commands)
    if not lazy:
        sub.load(set(COMMANDS))
    return parser


def _broken_pipe(self: Console) -> None:
    """A reader gone away from a rich console is the BrokenPipeError it is (rich would exit 1),
    so that every command answers it the same way: quietly, status 0."""
    self.quiet = True
    raise BrokenPipeError


def _answer_broken_pipes() -> None:
    """Make rich's consoles answer a reader gone away with BrokenPipeError (`_broken_pipe`), once
    a command's module has loaded rich (never loaded for the commands that do not print with it)."""
    rich = sys.modules.get("rich.console")
    if rich is not None:
        rich.Console.on_broken_pipe = _broken_pipe


def console(**options: Any) -> Console:
    """The rich console of every command: no markup or highlighting in what it prints (names
    from files print as they are, through SafeStream), so a `[` in a name is text."""
    from rich.console import Console  # 25 ms of start-up (measured): for commands that print with it

    _answer_broken_pipes()
    return Console(highlight=False, markup=False, **options)


def _escaped(e: UnicodeError) -> tuple[str, int]:
    """A codec error handler: characters the stream's encoding cannot write as JSON-style
    `\\uXXXX` escapes (a pair of them beyond U+FFFF), so that any encoding prints everything."""
    if not isinstance(e, UnicodeEncodeError):
        raise e
    out = []
    for ch in e.object[e.start:e.end]:
        n = ord(ch)
        if n > 0xFFFF:
            n -= 0x10000
            out.append(f"\\u{0xD800 + (n >> 10):04x}\\u{0xDC00 + (n & 0x3FF):04x}")
        else:
            out.append(f"\\u{n:04x}")
    return "".join(out), e.end


codecs.register_error("qttt-escape", _escaped)


def _encodings(streams: tuple[Any, ...], errors: list[str | None]) -> list[str | None]:
    """Set each text stream's error handler to `errors` (qttt-escape on entry, the old ones on the
    way out); the handlers replaced."""
    old: list[str | None] = []
    for stream, handler in zip(streams, errors, strict=True):
        old.append(getattr(stream, "errors", None))
        if handler is not None and isinstance(stream, io.TextIOWrapper):
            with contextlib.suppress(OSError, ValueError):
                stream.reconfigure(errors=handler)
    return old


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status. Standard output and error go through
    qttt.safe.SafeStream (control characters escaped) and print every character whatever their
    encoding (`_escaped`); every signal that ends a command stops it like Ctrl-C (qttt.stops)."""
    if sys.stderr is None:  # started with standard error closed: messages go nowhere
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    if sys.stdout is None:
        print("qttt: standard output is closed; nothing can be written", file=sys.stderr)
        return 2
    streams = sys.stdout, sys.stderr
    errors = _encodings(streams, ["qttt-escape", "qttt-escape"])
    sys.stdout, sys.stderr = SafeStream(sys.stdout), SafeStream(sys.stderr)
    handlers = stops.install()
    hook, threading.excepthook = threading.excepthook, stops.quiet_threads(threading.excepthook)
    try:
        return _run(argv)
    finally:
        threading.excepthook = hook
        stops.restore(handlers)
        sys.stdout, sys.stderr = streams
        _encodings(streams, errors)


def _quiet_stdout() -> None:
    """Point standard output at /dev/null: the reader went away or the disk is full, and the
    interpreter's final flush must not fail again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _run(argv: list[str] | None) -> int:
    try:
        args = build_parser(lazy=True).parse_args(argv)
        from .. import io as files  # loaded by the command's own modules anyway
        from ..argtypes import OutputPath

        files.start_command(v for v in vars(args).values() if isinstance(v, OutputPath))
        _answer_broken_pipes()
        status: int = args.run(args)
        sys.stdout.flush()
    except QtttError as e:
        print(f"qttt: {escape(str(e))}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, Terminated) as e:
        return _stopped(e)
    except BrokenPipeError:
        _quiet_stdout()  # the reader went away (as `| head` does): stop quietly, status 0
        return 0
    except UnicodeDecodeError as e:  # a file read without qttt.io: still input, not a bug
        print(f"qttt: input is not UTF-8 text (byte 0x{e.object[e.start]:02x} at offset {e.start})",
              file=sys.stderr)
        return 2
    except UnicodeEncodeError as e:  # a stream not set up by main (a child's, a reconfigured one)
        print(f"qttt: cannot print a character in the encoding {e.encoding}; set PYTHONIOENCODING=utf-8",
              file=sys.stderr)
        return 2
    except (MemoryError, RuntimeError, OSError, ImportError) as e:
        limit = stops.exhausted(e)
        if limit is not None:  # the environment's limit, not a bug of ours
            _stop_workers()
            print(f"qttt: {limit}", file=sys.stderr)
            return 2
        if not isinstance(e, OSError):
            return _bug(e)
        if e.filename is None and e.errno in (errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EDQUOT):
            _quiet_stdout()
            print(f"qttt: cannot write standard output: {e.strerror}", file=sys.stderr)
        else:
            name = f"{escape(str(e.filename))}: " if e.filename is not None else ""
            print(f"qttt: {name}{e.strerror or e}", file=sys.stderr)
        return 2
    except Exception as e:
        return _bug(e)
    return status


def _stop_workers() -> None:
    """Kill the worker processes this command started and has not stopped: a pool whose own
    thread could not start (a limit reached) leaves its workers waiting, and the interpreter
    would wait for them at exit."""
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is not None:
        for child in multiprocessing.active_children():
            child.kill()


def _stopped(e: BaseException) -> int:
    """Ctrl-C or a stopping signal answered: one line, its status (qttt.stops)."""
    signum = e.signum if isinstance(e, Terminated) else signal.SIGINT
    print(f"qttt: {stops.WORDS.get(signal.Signals(signum), 'stopped')}", file=sys.stderr)
    stops.answered()
    return stops.status(signum)


def _bug(e: Exception) -> int:
    """A bug of ours: one line, the traceback on request (QTTT_DEBUG), status 3; unless it was a
    stop in disguise (Ctrl-C while a class was made is a RuntimeError caused by KeyboardInterrupt)
    or the memory limit was reached, when whatever failed is the limit's (qttt.stops.exhausted)."""
    cause: BaseException | None = e
    while cause is not None:
        if isinstance(cause, KeyboardInterrupt | Terminated):
            return _stopped(cause)
        cause = cause.__cause__ or cause.__context__
    try:
        limit = stops.exhausted(e) if stops.memory_short() else None
    except MemoryError:
        limit = "out of memory"
    if limit is not None:
        _stop_workers()
        print(f"qttt: {limit}", file=sys.stderr)
        return 2
    if os.environ.get("QTTT_DEBUG"):
        raise e
    print(f"qttt: internal error: {type(e).__name__}: {escape(str(e))[:300]} (set QTTT_DEBUG=1 "
          "for the traceback; please report it)", file=sys.stderr)
    return 3


if __name__ == "__main__":
    sys.exit(main())
