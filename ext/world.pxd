# cython: language_level=3
"""Sampling worlds consistent with one player's view (determinization), inline and nogil.

From a player's view the unseen cards are exactly the opponent's hand, the deck and the
3 removed cards (docs/rules.md). Every arrangement of them is equally likely under a uniform
deal, whatever has been played, so a uniformly random permutation of the unseen cards
over those places is a uniform sample of the consistent worlds.
"""

from libc.stdint cimport uint8_t
from rng cimport Rng, rng_below
from state cimport (
    State, NKINDS, NCARDS, DN_COMPOSITION, HAND_SIZE, REMOVED, LAST_ROUND, hand_size, deck_cards,
    update_hand_masks,
)


ctypedef struct Unseen:
    uint8_t cards[NCARDS]   # the unseen cards, one entry each
    int n                   # how many
    int observer            # the player whose view this is


cdef inline int unseen_cards(const State *s, int observer, Unseen *out) noexcept nogil:
    """Collect the cards `observer` cannot see in s; returns 0, or -1 if the count is wrong."""
    cdef int k, i, c
    cdef int expected = hand_size(s, 1 - observer) + deck_cards(s.round) + REMOVED
    out.n = 0
    out.observer = observer
    for k in range(NKINDS):
        c = DN_COMPOSITION[k] - s.hand[observer][k] - s.coll[0][k] - s.coll[1][k]
        for i in range(s.line_len):
            if s.line[i] == k:
                c -= 1
        if c < 0:
            return -1
        for i in range(c):
            out.cards[out.n] = k
            out.n += 1
    return 0 if out.n == expected else -1


cdef inline void sample_world(const State *view, const Unseen *u, State *world, Rng *r) noexcept nogil:
    """A uniformly random full state consistent with `view` as u.observer sees it."""
    cdef uint8_t cards[NCARDS]
    cdef int i, j, n = u.n, opp = 1 - u.observer
    cdef int opp_size = hand_size(view, opp)
    cdef int deck_size = deck_cards(view.round)
    cdef uint8_t t
    for i in range(n):
        cards[i] = u.cards[i]
    # only the first n - 1 draws matter: a partial Fisher-Yates over the places we fill
    for i in range(n - 1):
        j = i + <int>rng_below(r, n - i)
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t
    world[0] = view[0]
    for i in range(NKINDS):
        world.hand[opp][i] = 0
    for i in range(opp_size):
        world.hand[opp][cards[i]] += 1
    for i in range(deck_size):
        world.deck[i] = cards[opp_size + i]
    world.deck_pos = 0
    world.deck_len = deck_size
    world.deck_known = 1
    for i in range(REMOVED):
        world.removed[i] = cards[opp_size + deck_size + i]
    update_hand_masks(world)
