"""`python -m solver ...` runs the `dnoir` command line."""

import sys

from solver.cli.main import main

sys.exit(main())
