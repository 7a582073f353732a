"""Typed errors: each names the rule id (from spec/rules.toml) that the input breaks, when one does."""

from __future__ import annotations


class Terminated(BaseException):
    """A signal that ends the command arrived: SIGTERM (15, the default), SIGHUP, SIGQUIT, SIGUSR1
    or SIGUSR2 (the command line raises it from its handler, qttt.stops): a command stops as after
    Ctrl-C, with exit status 128 + the signal's number rather than 130."""

    def __init__(self, signum: int = 15) -> None:
        super().__init__(signum)
        self.signum = signum


class QtttError(Exception):
    """Base of every error the toolkit reports as a one-line message."""

    kind = "error"

    def __init__(self, rule: str | None, message: str) -> None:
        super().__init__(message)
        self.rule: str = rule or ""  # "" when no rule applies (a flag, a file, a limit)
        self.message = message
        self.index: int | None = None  # the failing action's position in a record, when known

    def __str__(self) -> str:
        return f"{self.message} (rule {self.rule})" if self.rule else self.message

    def __reduce__(self) -> tuple[type[QtttError], tuple[str | None, str], dict[str, object]]:
        """Pickled as its class, rule, message and attributes: an error crosses from a worker
        process to the command that reports it."""
        return type(self), (self.rule or None, self.message), dict(self.__dict__)


class IllegalAction(QtttError):
    """An action that the rules forbid in the current state."""

    kind = "illegal"


class RecordError(QtttError):
    """A record, action or state that is not well formed."""

    kind = "malformed"


class VariantError(QtttError):
    """A ruleset name or variant file that cannot be resolved or is invalid."""

    kind = "variant"


class FileError(QtttError):
    """A file that cannot be read or written as asked: missing, not UTF-8, a directory, corrupted."""

    kind = "file"


class UsageError(QtttError):
    """A command-line value out of range, or work beyond a documented limit without --force."""

    kind = "usage"


class MatchError(QtttError):
    """A match, tournament or tour that cannot be set up: a bad player, clock or tour file."""

    kind = "match"
