"""The public path `solver.openspiel` (the OpenSpiel game python_district_noir (registered on import) and DnoirBot), kept as the README shows it.

The code lives in `solver.interfaces.openspiel` (the layers: README, "Layout"); this module only
re-exports its public names, so that both paths give the very same objects.
"""

from solver.interfaces.openspiel import *  # noqa: F401,F403
