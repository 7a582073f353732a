"""The entry of the command line: `qttt` (the console script) and `python -m qttt`. The signals
that end a command are answered from its first instruction (qttt.stops), before the command line
is imported: Ctrl-C during start-up prints one line and exits 130, never a traceback. Keep this
module's imports to the standard library and qttt.stops."""

import sys

from .stops import early, exit_within


def main() -> None:
    """Run the command line and exit with its status; stopped by a signal (status 128 + its number),
    within a few seconds whatever a library's exit handlers wait for."""
    early()
    from .cli import main as run

    code = run()
    if code > 128:
        exit_within(code)
    sys.exit(code)


if __name__ == "__main__":
    main()
