"""`python -m verify NAME|FILE ... [--all] [--json]`: the checker without the `qttt` command line."""

import sys

from .cli import main

sys.exit(main())
