# cython: language_level=3
"""Cheap move policies for playouts and the greedy bot, inline and nogil.

The greedy policy judges a take by what the newest cards of the line are worth to the
taker (supports by face value over 4, alliances and betrayals by their sign and size,
a city by how close it brings the taker to three) and otherwise plays the card it values
least, so that what it gives away is worth least to a taker.

The taker policy plays uniformly and takes by what the line is worth; the guard policy is
taker that does not hand the opponent its third city within the round where a move avoids it
(the one immediate loss a playout can see coming one move ahead).
"""

from libc.stdint cimport uint32_t
from rng cimport Rng, rng_below
from state cimport (
    State, NKINDS, KIND_C, MOVE_TAKE, TAKE_SIZE, DN_POPCOUNT, kind_value, legal_mask, nth_move, random_move,
)

cdef enum:
    POLICY_RANDOM = 0
    POLICY_GREEDY = 1
    POLICY_TAKER = 2
    POLICY_GUARD = 3


cdef inline int card_worth(const State *s, int p, int kind) noexcept nogil:
    """What one more card of `kind` is worth to player p, in quarter points."""
    if kind == KIND_C:
        # a city: worth little until it threatens the immediate win
        return 40 if s.coll[p][KIND_C] == 2 else (12 if s.coll[p][KIND_C] == 1 else 4)
    if kind < 4 and s.coll[p][kind] > s.coll[1 - p][kind]:
        return 8  # a support whose majority p already holds
    # a support (while its majority is open), an alliance or a betrayal: its face value
    return 4 * kind_value(kind)


cdef inline int take_worth(const State *s, int p) noexcept nogil:
    """What taking now would bring player p (sum of card_worth of the reachable cards)."""
    cdef int n = s.line_len if s.line_len < TAKE_SIZE else TAKE_SIZE
    cdef int i, total = 0
    for i in range(s.line_len - n, s.line_len):
        total += card_worth(s, p, s.line[i])
    return total


cdef inline int greedy_move(const State *s) noexcept nogil:
    """Take when the reachable cards are worth at least 16 quarter points (or must), else
    play the card of the lowest worth to the opponent; -1 if the game is over."""
    cdef uint32_t mask = legal_mask(s)
    cdef int p = s.to_move
    cdef int k, best = -1, best_worth = 1 << 30, w
    if mask == 0:
        return -1
    if (mask >> MOVE_TAKE) & 1:
        if mask == (1u << MOVE_TAKE) or take_worth(s, p) >= 16:
            return MOVE_TAKE
    for k in range(NKINDS):
        if (mask >> k) & 1:
            w = card_worth(s, 1 - p, k)
            if w < best_worth:
                best_worth = w
                best = k
    return best


cdef inline int cities_in_reach(const State *s) noexcept nogil:
    """How many cities are among the cards a take would get now."""
    cdef int n = s.line_len if s.line_len < TAKE_SIZE else TAKE_SIZE
    cdef int i, cities = 0
    for i in range(s.line_len - n, s.line_len):
        cities += s.line[i] == KIND_C
    return cities


cdef inline int city_win_take(const State *s, int p) noexcept nogil:
    """1 if taking now gives player p the third city (the immediate win)."""
    return s.coll[p][KIND_C] + cities_in_reach(s) == 3


cdef inline int taker_from(const State *s, Rng *r, uint32_t mask) noexcept nogil:
    """taker_move's choice among the legal moves in `mask` (not empty)."""
    cdef uint32_t plays
    cdef int p = s.to_move, w
    if (mask >> MOVE_TAKE) & 1:
        plays = mask & ~(1u << MOVE_TAKE)
        if plays == 0 or city_win_take(s, p):
            return MOVE_TAKE
        w = take_worth(s, p)
        if w >= 16:
            if rng_below(r, 2) == 0:
                return MOVE_TAKE
        elif w <= 0:
            if rng_below(r, 16) == 0:
                return MOVE_TAKE
        elif rng_below(r, 8) == 0:
            return MOVE_TAKE
        mask = plays
    return nth_move(mask, rng_below(r, DN_POPCOUNT(mask)))


cdef inline int taker_move(const State *s, Rng *r) noexcept nogil:
    """Random plays, but a take that follows what the line is worth to the taker.

    A uniform playout takes at a random turn, on average after one or two plays, whatever the
    line holds; players wait for a line worth taking. So: the take that wins three cities at
    once always; otherwise the take with probability 1/2 when the reachable cards are worth
    at least 16 quarter points to the mover (greedy's threshold), 1/16 when they are worth
    nothing or less, 1/8 between; a card kind from the hand uniformly otherwise.
    """
    cdef uint32_t mask = legal_mask(s)
    if mask == 0:
        return -1
    return taker_from(s, r, mask)


cdef inline int guard_move(const State *s, Rng *r) noexcept nogil:
    """taker_move, but not handing the opponent its third city within the round.

    While the opponent holds two cities, the mover none, and the opponent may still take this
    round, a city within reach of a take wins the game for it on its next move: the mover
    takes the line first if it may (the take gives it a city: the threat is over), and plays
    no city while it holds another card. Elsewhere taker_move, from the same random numbers
    (a hand of cities alone is left to taker's choice, and a city left within reach when the
    round ends is the third_city setting's business, not the playout's).
    """
    cdef uint32_t mask = legal_mask(s)
    cdef int p = s.to_move
    if mask == 0:
        return -1
    if s.coll[1 - p][KIND_C] == 2 and s.coll[p][KIND_C] == 0 and not (s.taken >> (1 - p)) & 1:
        if (mask >> MOVE_TAKE) & 1 and cities_in_reach(s):
            return MOVE_TAKE
        if mask & ~((1u << KIND_C) | (1u << MOVE_TAKE)):
            mask &= ~(1u << KIND_C)
    return taker_from(s, r, mask)


cdef inline int policy_move(const State *s, Rng *r, int policy) noexcept nogil:
    """The next playout move under `policy` (POLICY_RANDOM, POLICY_GREEDY, POLICY_TAKER or POLICY_GUARD)."""
    if policy == POLICY_RANDOM:  # the default, tested first
        return random_move(s, r)
    if policy == POLICY_TAKER:
        return taker_move(s, r)
    if policy == POLICY_GUARD:
        return guard_move(s, r)
    if policy == POLICY_GREEDY:
        # a little randomness keeps greedy playouts from repeating one line
        if rng_below(r, 8) == 0:
            return random_move(s, r)
        return greedy_move(s)
    return random_move(s, r)


cdef inline int policy_code(str name) except -1:
    """The code of the playout policy named 'random', 'greedy', 'taker' or 'guard'; ValueError for any other name."""
    if name == "random":
        return POLICY_RANDOM
    if name == "greedy":
        return POLICY_GREEDY
    if name == "taker":
        return POLICY_TAKER
    if name == "guard":
        return POLICY_GUARD
    raise ValueError(f"unknown playout policy {name!r} (random, greedy, taker or guard)")
