# cython: language_level=3
"""The C-level game state of District Noir and the rules that act on it.

This file is the one implementation of the rules (RULES.md). Everything is
`cdef inline ... noexcept nogil` so that search modules (perft, playouts, the
endgame solver, ISMCTS) cimport it and run without touching Python.

Card kinds are indices 0..10 in the canonical order
5 6 7 8 +2 +3 +4 -1 -2 -3 C. A move is a kind (play one card of it) or
MOVE_TAKE. Players are 0 (a) and 1 (b).
"""

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdio cimport fflush, fprintf, stderr
from libc.stdlib cimport abort
from libc.string cimport memcpy, memset
from rng cimport Rng, rng_below


cdef extern from *:
    """
    /* With -mpopcnt (setup.py asks for it where the CPU has it) one instruction; without,
       __builtin_popcount is a call into libgcc: count bits inline. */
    #if defined(__POPCNT__)
    #define DN_POPCOUNT(x) __builtin_popcount(x)
    #else
    static inline int DN_POPCOUNT(unsigned x) {
        x = x - ((x >> 1) & 0x55555555u);
        x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
        x = (x + (x >> 4)) & 0x0F0F0F0Fu;
        return (int)((x * 0x01010101u) >> 24);
    }
    #endif
    #if defined(__GNUC__) || defined(__clang__)
    #define DN_CTZ(x) __builtin_ctz(x)
    #else
    static inline int DN_CTZ(unsigned x) { int n = 0; while (!(x & 1u)) { x >>= 1; n++; } return n; }
    #endif
    """
    int DN_POPCOUNT(uint32_t x) nogil
    int DN_CTZ(uint32_t x) nogil


cdef extern from *:
    """
    /* Popcount and select of a 6-bit group, for random_move: the legal-move mask's 12
       bits are two groups, so the n-th legal move is two table reads and no loop. */
    static const unsigned char DN_POP6[64] = {0,1,1,2,1,2,2,3,1,2,2,3,2,3,3,4,1,2,2,3,2,3,3,4,2,3,3,4,3,4,4,5,1,2,2,3,2,3,3,4,2,3,3,4,3,4,4,5,2,3,3,4,3,4,4,5,3,4,4,5,4,5,5,6};
    static const unsigned char DN_SEL6[64][8] = {
        {0,0,0,0,0,0},
        {0,0,0,0,0,0},
        {1,0,0,0,0,0},
        {0,1,0,0,0,0},
        {2,0,0,0,0,0},
        {0,2,0,0,0,0},
        {1,2,0,0,0,0},
        {0,1,2,0,0,0},
        {3,0,0,0,0,0},
        {0,3,0,0,0,0},
        {1,3,0,0,0,0},
        {0,1,3,0,0,0},
        {2,3,0,0,0,0},
        {0,2,3,0,0,0},
        {1,2,3,0,0,0},
        {0,1,2,3,0,0},
        {4,0,0,0,0,0},
        {0,4,0,0,0,0},
        {1,4,0,0,0,0},
        {0,1,4,0,0,0},
        {2,4,0,0,0,0},
        {0,2,4,0,0,0},
        {1,2,4,0,0,0},
        {0,1,2,4,0,0},
        {3,4,0,0,0,0},
        {0,3,4,0,0,0},
        {1,3,4,0,0,0},
        {0,1,3,4,0,0},
        {2,3,4,0,0,0},
        {0,2,3,4,0,0},
        {1,2,3,4,0,0},
        {0,1,2,3,4,0},
        {5,0,0,0,0,0},
        {0,5,0,0,0,0},
        {1,5,0,0,0,0},
        {0,1,5,0,0,0},
        {2,5,0,0,0,0},
        {0,2,5,0,0,0},
        {1,2,5,0,0,0},
        {0,1,2,5,0,0},
        {3,5,0,0,0,0},
        {0,3,5,0,0,0},
        {1,3,5,0,0,0},
        {0,1,3,5,0,0},
        {2,3,5,0,0,0},
        {0,2,3,5,0,0},
        {1,2,3,5,0,0},
        {0,1,2,3,5,0},
        {4,5,0,0,0,0},
        {0,4,5,0,0,0},
        {1,4,5,0,0,0},
        {0,1,4,5,0,0},
        {2,4,5,0,0,0},
        {0,2,4,5,0,0},
        {1,2,4,5,0,0},
        {0,1,2,4,5,0},
        {3,4,5,0,0,0},
        {0,3,4,5,0,0},
        {1,3,4,5,0,0},
        {0,1,3,4,5,0},
        {2,3,4,5,0,0},
        {0,2,3,4,5,0},
        {1,2,3,4,5,0},
        {0,1,2,3,4,5}};
    """
    const uint8_t DN_POP6[64]
    const uint8_t DN_SEL6[64][8]


cdef enum:
    NKINDS = 11
    NCARDS = 45
    KIND_C = 10
    MOVE_TAKE = 11
    NMOVES = 12
    HAND_SIZE = 5
    TAKE_SIZE = 5
    LINE_START = 2      # cards the deal puts on the line
    LINE_MAX = 48
    REMOVED = 3
    DECK_MAX = NCARDS - REMOVED - 2 * HAND_SIZE - LINE_START  # 30: the deck after the deal
    LAST_ROUND = 4
    ACTIONS_PER_ROUND = 6
    NOBODY = 2

# state.status
cdef enum:
    ONGOING = 0
    OVER_POINTS = 1
    OVER_CITY = 2

# how a finished game was decided (see game_outcome)
cdef enum:
    HOW_POINTS = 0
    HOW_TIEBREAK = 1
    HOW_CITY = 2
    HOW_DRAW = 3

# game_outcome's winner when nobody wins
cdef enum:
    DRAW = 2


ctypedef struct State:
    uint8_t hand[2][NKINDS]     # cards in hand, counts per kind
    uint8_t coll[2][NKINDS]     # collected cards, counts per kind
    uint8_t line[LINE_MAX]      # kinds, oldest first; plays and takes act on the end
    uint8_t deck[DECK_MAX]      # undealt cards, next to draw at deck_pos
    uint8_t removed[REMOVED]
    uint8_t line_len
    uint8_t deck_pos
    uint8_t deck_len
    uint8_t deck_known          # 0: the deck order is unknown, dealing leaves hands empty
    uint8_t round               # 1..4
    uint8_t to_move             # 0, 1, or NOBODY once the game is over
    uint8_t first               # first player of the current round
    uint8_t actions[2]          # actions made this round
    uint8_t taken               # bit p: player p has taken this round
    uint8_t status              # ONGOING, OVER_POINTS, OVER_CITY
    uint8_t city_winner         # the owner of the three cities when status is OVER_CITY
    uint16_t hand_mask[2]       # bit k: the hand holds a card of kind k (kept in step with hand)


ctypedef struct Score:
    int majorities
    int sets
    int alliances
    int betrayals               # positive: subtracted from the total
    int total


# Each kind's copies in the game, in kind order; the deal shuffles this.
cdef extern from *:
    """
    static const unsigned char DN_COMPOSITION[11] = {5, 6, 7, 8, 4, 2, 1, 3, 4, 2, 3};
    """
    const uint8_t DN_COMPOSITION[NKINDS]

# The 45 cards in kind order, as DN_COMPOSITION counts them: what deal_game shuffles.
cdef extern from *:
    """
    static const unsigned char DN_CARDS[45] = {0,0,0,0,0, 1,1,1,1,1,1, 2,2,2,2,2,2,2, 3,3,3,3,3,3,3,3,
                                               4,4,4,4, 5,5, 6, 7,7,7, 8,8,8,8, 9,9, 10,10,10};
    """
    const uint8_t DN_CARDS[NCARDS]


cdef inline int kind_value(int kind) noexcept nogil:
    """Face value: 5..8 for supports, the signed value for alliances and betrayals, 0 for a city."""
    if kind < 4:
        return kind + 5
    if kind < 7:
        return kind - 2
    if kind < 10:
        return 6 - kind
    return 0


cdef inline int deck_cards(int round) noexcept nogil:
    """Cards left in the deck during a round: a hand for each player in each round still to deal.
    The one statement of this rule: core.pyx exports it to Python (`deck_size`), world.pxd samples by it."""
    return 2 * HAND_SIZE * (LAST_ROUND - round)


cdef inline int hand_size(const State *s, int p) noexcept nogil:
    # Six actions a round: five plays and one take, so the hand follows from the actions.
    return HAND_SIZE - s.actions[p] + ((s.taken >> p) & 1)


cdef inline uint32_t legal_mask(const State *s) noexcept nogil:
    """Bit m is set when move m is legal for the side to move (bits 0..10 plays, 11 the take)."""
    if s.status != ONGOING:
        return 0
    cdef int p = s.to_move
    cdef uint32_t mask = s.hand_mask[p]   # only kinds held; a hand of 0 cards forces the take
    if not ((s.taken >> p) & 1) and s.line_len > 0:
        mask |= 1u << MOVE_TAKE
    return mask


cdef inline int legal_moves(const State *s, uint8_t *out) noexcept nogil:
    """Writes the distinct legal moves in canonical order (take last); returns how many."""
    cdef uint32_t mask = legal_mask(s)
    cdef int n = 0
    while mask:
        out[n] = DN_CTZ(mask)
        n += 1
        mask &= mask - 1
    return n


cdef inline int nth_move(uint32_t mask, int n) noexcept nogil:
    """The n-th (from 0) set bit of a move mask."""
    while n > 0:
        mask &= mask - 1
        n -= 1
    return DN_CTZ(mask)


cdef inline int random_move(const State *s, Rng *r) noexcept nogil:
    """A move drawn uniformly among the distinct legal moves; -1 if there is none.

    The same move as nth_move(mask, rng_below(r, popcount(mask))), by table: the low and
    high six bits of the mask are counted and searched apart."""
    cdef uint32_t mask = legal_mask(s)
    cdef uint32_t low = mask & 63, high = mask >> 6
    cdef int n_low, n
    if mask == 0:
        return -1
    n_low = DN_POP6[low]
    n = rng_below(r, n_low + DN_POP6[high])
    # both reads are in the tables whatever n is, so the choice compiles without a branch
    # (n is random: a branch would be mispredicted half the time)
    cdef int from_low = DN_SEL6[low][n & 7]
    cdef int from_high = 6 + DN_SEL6[high][(n - n_low) & 7]
    return from_low if n < n_low else from_high


cdef inline void update_hand_masks(State *s) noexcept nogil:
    """Recompute hand_mask from hand; call after any change to hand made outside apply_move."""
    cdef int p, k
    for p in range(2):
        s.hand_mask[p] = 0
        for k in range(NKINDS):
            s.hand_mask[p] |= (<uint32_t>(s.hand[p][k] != 0)) << k


cdef inline void deal_round(State *s) noexcept nogil:
    """Deal a new round from the ordered deck: the round's first player draws the top 5, then the other."""
    cdef int i, p
    cdef int k
    memset(s.hand, 0, sizeof(s.hand))
    s.hand_mask[0] = s.hand_mask[1] = 0
    if not s.deck_known:
        return
    for i in range(2 * HAND_SIZE):
        p = s.first if i < HAND_SIZE else 1 - s.first
        k = s.deck[s.deck_pos + i]
        s.hand[p][k] += 1
        s.hand_mask[p] |= 1u << k  # kept in step here: no update_hand_masks pass
    s.deck_pos += 2 * HAND_SIZE


cdef inline bint settled(const State *s) noexcept nogil:
    """True once the result can no longer change (RULES.md, facts for search): in the last
    round, both players have taken, so no card changes owner again and no city can be won."""
    return s.round == LAST_ROUND and s.taken == 3


cdef inline void end_round(State *s) noexcept nogil:
    if s.round == LAST_ROUND:
        s.status = OVER_POINTS
        s.to_move = NOBODY
        return
    s.round += 1
    s.first = 1 - s.first
    s.to_move = s.first
    s.actions[0] = 0
    s.actions[1] = 0
    s.taken = 0
    deal_round(s)


cdef inline void apply_move(State *s, int move) noexcept nogil:
    """Play `move` for the side to move. The move must be legal (see legal_mask)."""
    cdef int p = s.to_move
    cdef int n, i
    if move == MOVE_TAKE:
        n = s.line_len if s.line_len < TAKE_SIZE else TAKE_SIZE
        for i in range(s.line_len - n, s.line_len):
            s.coll[p][s.line[i]] += 1
        s.line_len -= n
        s.taken |= 1 << p
        s.actions[p] += 1
        if s.coll[p][KIND_C] == 3:
            s.status = OVER_CITY
            s.city_winner = p
            s.to_move = NOBODY
            if DNOIR_CHECKED:
                check_after_move(s, move)
            return
    else:
        s.hand[p][move] -= 1
        s.hand_mask[p] &= ~((<uint32_t>(s.hand[p][move] == 0)) << move)
        s.line[s.line_len] = move
        s.line_len += 1
        s.actions[p] += 1
    s.to_move = 1 - p
    if s.actions[1 - p] == ACTIONS_PER_ROUND and s.actions[p] == ACTIONS_PER_ROUND:
        end_round(s)
    if DNOIR_CHECKED:
        check_after_move(s, move)


cdef inline void score_player(const State *s, int p, Score *out) noexcept nogil:
    """Player p's score from the collections as they stand (RULES.md, Scoring)."""
    cdef const uint8_t *mine = s.coll[p]
    cdef const uint8_t *theirs = s.coll[1 - p]
    cdef int k, sets = mine[0]
    out.majorities = 0
    for k in range(4):
        # branch-free: searches score positions whose counts no predictor can guess
        out.majorities += (mine[k] > theirs[k]) * (k + 5)
        sets = mine[k] if mine[k] < sets else sets
    out.sets = 5 * sets
    out.alliances = 2 * mine[4] + 3 * mine[5] + 4 * mine[6]
    out.betrayals = mine[7] + 2 * mine[8] + 3 * mine[9]
    out.total = out.majorities + out.sets + out.alliances - out.betrayals


cdef inline int game_outcome(const State *s, Score *scores, int *how) noexcept nogil:
    """Winner (0, 1 or DRAW) of the game as if it ended now; fills both scores and how.

    A city win overrides the points. Equal totals go to more 8s, then 7s, 6s, 5s.
    """
    cdef int k
    score_player(s, 0, &scores[0])
    score_player(s, 1, &scores[1])
    if s.status == OVER_CITY:
        how[0] = HOW_CITY
        return s.city_winner
    if scores[0].total != scores[1].total:
        how[0] = HOW_POINTS
        return 0 if scores[0].total > scores[1].total else 1
    for k in range(3, -1, -1):
        if s.coll[0][k] != s.coll[1][k]:
            how[0] = HOW_TIEBREAK
            return 0 if s.coll[0][k] > s.coll[1][k] else 1
    how[0] = HOW_DRAW
    return DRAW


cdef inline void deal_game(State *s, Rng *r) noexcept nogil:
    """A uniformly random full deal (RULES.md, Setup); the round-1 first player by a coin flip.

    From the shuffled 45 cards: 3 removed, 5 to a, 5 to b, 2 start the line, 30 form the deck
    (REMOVED, HAND_SIZE, LINE_START, DECK_MAX).
    """
    cdef uint8_t cards[NCARDS]
    cdef int i, j, n = 0
    cdef uint8_t t
    memcpy(cards, DN_CARDS, NCARDS)  # every card in kind order (DN_COMPOSITION)
    for i in range(NCARDS - 1, 0, -1):
        j = rng_below(r, i + 1)
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t
    memset(s, 0, sizeof(State))
    # in the shuffled order: the removed cards, a's hand, b's hand, the line, the deck
    n = 0
    for i in range(REMOVED):
        s.removed[i] = cards[n + i]
    n += REMOVED
    for i in range(HAND_SIZE):
        s.hand[0][cards[n + i]] += 1
        s.hand_mask[0] |= 1u << cards[n + i]
        s.hand[1][cards[n + HAND_SIZE + i]] += 1
        s.hand_mask[1] |= 1u << cards[n + HAND_SIZE + i]
    n += 2 * HAND_SIZE
    for i in range(LINE_START):
        s.line[i] = cards[n + i]
    s.line_len = LINE_START
    n += LINE_START
    for i in range(DECK_MAX):
        s.deck[i] = cards[n + i]
    s.deck_len = DECK_MAX
    s.deck_known = 1
    s.round = 1
    s.first = rng_below(r, 2)
    s.to_move = s.first


cdef inline const char *state_problem(const State *s) noexcept nogil:
    """NULL if s keeps every invariant the rules rely on, else what is wrong.

    A CoreState built from Python values (ext/core.pyx: `checked`, `build`) ends with this
    check, and deals and moves keep these invariants, so no State reaches a rule without
    them. Each rule indexes arrays by kinds, counts, players and
    positions in the line and deck; these checks are what keeps every such index inside its array
    (and every write inside the struct): kinds below NKINDS, lengths within their arrays,
    no kind with more cards in sight than the game has (so the line never outgrows
    LINE_MAX), hands no bigger than the actions allow, and a known deck holding exactly
    the cards of the rounds still to deal.
    """
    cdef int p, k, i, n, plays, took
    cdef uint32_t mask
    if s.round < 1 or s.round > LAST_ROUND:
        return "round is not 1 to 4"
    if s.status > OVER_CITY:
        return "status is not ongoing, over on points or over by a city"
    if s.status == ONGOING and s.to_move > 1:
        return "to_move is not a player in an ongoing game"
    if s.status != ONGOING and s.to_move != NOBODY:
        return "to_move is not NOBODY in a finished game"
    if s.first > 1 or s.city_winner > 1 or s.taken > 3 or s.deck_known > 1:
        return "first, city_winner, taken or deck_known is out of range"
    if s.line_len > LINE_MAX or s.deck_len > DECK_MAX or s.deck_pos > s.deck_len:
        return "line_len, deck_len or deck_pos is out of range"
    if s.deck_known and s.deck_len - s.deck_pos != deck_cards(s.round):
        return "the known deck does not hold the cards of the rounds still to deal"
    for i in range(s.line_len):
        if s.line[i] >= NKINDS:
            return "a card of the line is not a kind"
    for i in range(s.deck_len):
        if s.deck[i] >= NKINDS:
            return "a card of the deck is not a kind"
    for i in range(REMOVED):
        if s.removed[i] >= NKINDS:
            return "a removed card is not a kind"
    for p in range(2):
        took = (s.taken >> p) & 1
        plays = s.actions[p] - took
        if plays < 0 or plays > HAND_SIZE:
            return "actions and taken do not fit a round (at most five plays and one take)"
        n = 0
        mask = 0
        for k in range(NKINDS):
            n += s.hand[p][k]
            mask |= (<uint32_t>(s.hand[p][k] != 0)) << k
        if n > hand_size(s, p):
            return "a hand holds more cards than its player's actions leave"
        if mask != s.hand_mask[p]:
            return "hand_mask does not match the hand"
    for k in range(NKINDS):
        n = s.hand[0][k] + s.hand[1][k] + s.coll[0][k] + s.coll[1][k]
        for i in range(s.line_len):
            n += s.line[i] == k
        if s.deck_known:
            for i in range(s.deck_pos, s.deck_len):
                n += s.deck[i] == k
        if n > DN_COMPOSITION[k]:
            return "more cards of a kind in sight than the game has"
    return NULL


# The checked build (setup.py, DNOIR_CHECKED=1 defines the macro): apply_move verifies
# that the state it leaves keeps every invariant above, and aborts with the reason if not.
# In a normal build DNOIR_CHECKED is the constant 0 and the C compiler drops the check.
cdef extern from *:
    """
    #ifndef DNOIR_CHECKED
    #define DNOIR_CHECKED 0
    #endif
    """
    const int DNOIR_CHECKED


cdef inline void check_after_move(const State *s, int move) noexcept nogil:
    """Abort the process, naming the move and the broken invariant, unless s keeps every one."""
    cdef const char *problem = state_problem(s)
    if problem != NULL:
        fprintf(stderr, b"dnoir checked build: the state after move %d breaks an invariant: %s\n",
                move, problem)
        fflush(stderr)
        abort()
