# cython: language_level=3
"""The exact value of a round-4 result, once, for the endgame solver (ext/endgame.pyx) and the
equilibrium solver (ext/cfr.pyx):

    value = RANK * rank + margin,   rank: +2 city win, +1 win, 0 draw, -1 loss, -2 city loss

where margin is the player's total minus the opponent's. |margin| < RANK / 2, so the value
orders results first by rank, then by margin, and `split_value` gives both back.
"""

from state cimport State, Score, ONGOING, OVER_CITY, DRAW, game_outcome

cdef enum:
    RANK = 1024


cdef inline bint settled(const State *s) noexcept nogil:
    """True once the result can no longer change: the game is over, or both took in round 4."""
    return s.status != ONGOING or s.taken == 3


cdef inline int final_value(const State *s, int p) noexcept nogil:
    """Value for player p of a settled state (a finished game, or round 4 once both have taken)."""
    cdef Score scores[2]
    cdef int how
    cdef int winner = game_outcome(s, scores, &how)
    cdef int margin = scores[p].total - scores[1 - p].total
    cdef int rank
    if winner == DRAW:
        rank = 0
    elif s.status == OVER_CITY:
        rank = 2 if winner == p else -2
    else:
        rank = 1 if winner == p else -1
    return rank * RANK + margin


cdef inline int value_rank(int value) noexcept nogil:
    """The rank of a value (+2 .. -2), rounding the margin away."""
    return (value + RANK // 2) // RANK if value >= 0 else -((-value + RANK // 2) // RANK)
