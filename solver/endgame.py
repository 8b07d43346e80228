"""The public path `solver.endgame` (round 4 solved exactly: solve, SolveResult), kept as the README shows it.

The code lives in `solver.solvers.endgame` (the layers: README, "Layout"); this module only
re-exports its public names, so that both paths give the very same objects.
"""

from solver.solvers.endgame import *  # noqa: F401,F403
