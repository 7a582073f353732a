"""`python -m qttt.docgen`: write the generated site files under a directory (`--check`: compare)."""

import sys

from .build import main

sys.exit(main())
