"""The entry of the command line: `qttt` (the console script) and `python -m qttt`. The signals
that end a command are answered from its first instruction (qttt.stops), before the command line
is imported: Ctrl-C during start-up prints one line and exits 130, never a traceback. Keep this
module's imports to the standard library and qttt.stops."""

import sys

from .stops import early


def main() -> None:
    """Run the command line and exit with its status."""
    early()
    from .cli import main as run

    sys.exit(run())


if __name__ == "__main__":
    main()
