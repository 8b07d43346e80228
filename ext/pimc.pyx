# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Flat Monte Carlo over sampled worlds (PIMC with playouts), compiled as solver.solvers._pimc.

For each sampled world consistent with the observer's view, every legal move is played
and the game finished by a playout; each move's rewards (win 1, draw 1/2, loss 0) and
final margins are summed over the worlds. All moves share the same worlds, so their
difference is not blurred by the luck of the deal.
"""

from cpython.exc cimport PyErr_CheckSignals
from libc.stdint cimport uint8_t, uint64_t
from rng cimport Rng, rng_seed
from state cimport (
    State, Score, NMOVES, ONGOING, DRAW, legal_moves, apply_move, game_outcome,
)
from world cimport Unseen, unseen_cards, sample_world
from policy cimport policy_move, policy_code
from solver.rules._core cimport CoreState
from solver.base.bounds import MAX_WORLDS


def flat_values(CoreState view not None, int observer, worlds, seed=0, str policy="random"):
    """{move: (reward sum, margin sum)} over `worlds` (1 to MAX_WORLDS) sampled worlds, for the
    observer to move. `view` is the CoreState of the observer's view.

    >>> from solver.rules.position import Position
    >>> deal = Position.random_deal(2)
    >>> values = flat_values(deal.view("ab"[deal.to_move]).core, deal.to_move, 10, seed=1)
    >>> sorted(values) == sorted(m.index for m in deal.legal_moves())
    True
    """
    cdef State root, world, game
    cdef Unseen unseen
    cdef Rng r
    cdef Score scores[2]
    cdef uint8_t moves[NMOVES]
    cdef double rewards[NMOVES]
    cdef double margins[NMOVES]
    cdef int n, i, w, m, winner, how, n_worlds
    cdef int pol = policy_code(policy)
    root = view.s
    if isinstance(worlds, bool) or not isinstance(worlds, int) or not 1 <= worlds <= MAX_WORLDS:
        raise ValueError(f"worlds: {worlds!r} is out of range (1 to {MAX_WORLDS})")
    n_worlds = worlds
    if root.status != ONGOING or root.to_move != observer:
        raise ValueError("the observer must be the side to move in an unfinished game")
    if unseen_cards(&root, observer, &unseen) != 0:
        raise ValueError("the position's unseen cards do not add up")
    rng_seed(&r, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
    n = legal_moves(&root, moves)
    with nogil:
        for i in range(n):
            rewards[i] = 0
            margins[i] = 0
        for w in range(n_worlds):
            if (w & 255) == 255:  # every few milliseconds: Ctrl-C ends a long evaluation at once
                with gil:
                    PyErr_CheckSignals()
            sample_world(&root, &unseen, &world, &r)
            for i in range(n):
                game = world
                apply_move(&game, moves[i])
                m = policy_move(&game, &r, pol)
                while m >= 0:
                    apply_move(&game, m)
                    m = policy_move(&game, &r, pol)
                winner = game_outcome(&game, scores, &how)
                if winner == DRAW:
                    rewards[i] += 0.5
                elif winner == observer:
                    rewards[i] += 1.0
                margins[i] += scores[observer].total - scores[1 - observer].total
    return {moves[i]: (rewards[i], margins[i]) for i in range(n)}
