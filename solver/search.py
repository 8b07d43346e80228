"""The public path `solver.search` (the move advice: advise, Advice), kept as the README shows it.

The code lives in `solver.solvers.search` (the layers: README, "Layout"); this module only
re-exports its public names, so that both paths give the very same objects.
"""

from solver.solvers.search import *  # noqa: F401,F403
