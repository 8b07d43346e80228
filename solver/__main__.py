"""`python -m solver ...` runs the `dnoir` command line."""

import sys

from .cli import main

sys.exit(main())
