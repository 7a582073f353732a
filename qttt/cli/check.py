"""`qttt check NAME|FILE ... [--all]`: the consistency checker of verify/ (Z3 is loaded on use)."""

from verify.cli import register, run

__all__ = ["register", "run"]
