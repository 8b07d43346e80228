"""District Noir analysis engine.

>>> from solver import Position
>>> Position.parse("5+2 678+3C/????? ./. 1 a -").to_move
0
"""

from .cards import KINDS, Move
from .notation import PositionError
from .position import MoveError, PlayerScore, Position, Result

__all__ = ["KINDS", "Move", "MoveError", "PlayerScore", "Position", "PositionError", "Result"]
__version__ = "0.1.0"
