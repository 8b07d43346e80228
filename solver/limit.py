"""The public path `solver.limit` (the search budget: Limit), kept as the README shows it.

The code lives in `solver.solvers.limit` (the layers: README, "Layout"); this module only
re-exports its public names, so that both paths give the very same objects.
"""

from solver.solvers.limit import *  # noqa: F401,F403
