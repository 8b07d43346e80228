"""District Noir analysis engine.

>>> from solver import Position
>>> Position.parse("5+2 678+3C/????? ./. 1 a -").to_move
0
"""

import importlib as _importlib

try:  # the compiled core (ext/*.pyx): in a source checkout it exists only once built
    _importlib.import_module(f"{__name__}.rules._core")
except ModuleNotFoundError as e:
    if e.name != f"{__name__}.rules._core":
        raise
    raise ImportError("the solver package is not built (its compiled core solver.rules._core is missing for this "
                      "Python): install it with `pip install .`, or build it in place with `pip install -e .` "
                      "from the checkout", name=__name__) from None  # name: `python -m` prints just this line

from solver.errors import DnoirError, MoveError, PositionError
from solver.rules.cards import KINDS, Move
from solver.rules.position import PlayerScore, Position, Result

__all__ = ["DnoirError", "KINDS", "Move", "MoveError", "PlayerScore", "Position", "PositionError", "Result"]
__version__ = "0.1.0"
