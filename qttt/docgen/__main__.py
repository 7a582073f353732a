"""`python -m qttt.docgen`: write the generated files (`--check`: compare them)."""

import sys

from .build import main

sys.exit(main())
