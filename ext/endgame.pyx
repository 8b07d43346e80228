# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Exact round-4 solver: negamax alpha-beta with a Zobrist-keyed transposition table.

Compiled as solver.solvers._endgame. Works on positions whose deck is empty and whose two hands
are known. The value of a position for the side to move orders outcomes first and the
final score margin second:

    value = RANK * rank + margin,   rank: +2 city win, +1 win, 0 draw, -1 loss, -2 city loss

where margin is the mover's total minus the opponent's (|margin| < RANK / 2), so a city win
ranks above every points win and a tie-break win (margin 0) above a draw.

The game's structure prunes the tree: once both players have taken in round 4 nothing can
change owner, so the position is scored at once; a take completing three cities ends the
game; and only the newest 5 x (takes left) cards of the line, the ones a take can still
reach, belong in the key, so positions differing only deeper in the line transpose.

The table is a fixed array of two-entry buckets (slot 0 keeps the entry with the larger
subtree, slot 1 is always replaced), so memory never grows. Keys cover everything that
decides the game from a node, so the table stays valid across solves and across the
worlds of a one-player-view solve.
"""

from libc.stdint cimport int8_t, uint8_t, int16_t, uint32_t, int64_t, uint64_t
from libc.stdlib cimport free
from libc.string cimport memcpy, memset
from rng cimport splitmix64
from solver.rules._core cimport CoreState
from value cimport RANK, final_value, settled, value_rank
from state cimport (
    State, Score, NKINDS, KIND_C, HAND_SIZE, MOVE_TAKE, NMOVES, TAKE_SIZE, LAST_ROUND, ACTIONS_PER_ROUND,
    LINE_MAX, ONGOING, OVER_CITY, DRAW, legal_mask, legal_moves, apply_move, game_outcome,
    update_hand_masks, kind_value,
)

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define DN_CLZ(x) __builtin_clz(x)
    #else
    static inline int DN_CLZ(unsigned x) { int n = 0; while (!(x & 0x80000000u)) { x <<= 1; n++; } return n; }
    #endif
    """
    int DN_CLZ(uint32_t x) nogil

cdef enum:
    INF = 32000
    REACH_MAX = 2 * TAKE_SIZE
    BOUND_EXACT = 1
    BOUND_LOWER = 2
    BOUND_UPPER = 3
    NO_MOVE = 255

cdef extern from *:
    """
    #include <stdlib.h>
    #include <string.h>
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    /* A zeroed table on 2 MB boundaries, backed by huge pages where the kernel allows:
       a search probes it at random, and small pages would cost a TLB miss per probe. */
    static void *dn_table_alloc(size_t bytes) {
        void *p = NULL;
        if (posix_memalign(&p, (size_t)1 << 21, bytes) != 0) return NULL;
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        madvise(p, bytes, MADV_HUGEPAGE);
    #endif
        memset(p, 0, bytes);  /* touch every page now, not in the middle of a search */
        return p;
    }
    """
    void *dn_table_alloc(size_t bytes) nogil


ctypedef struct Entry:
    uint64_t key
    int16_t value
    uint8_t bound       # 0: empty
    uint8_t move        # best move found, or NO_MOVE
    uint8_t depth       # actions left in the round: the size of the subtree, for replacement
    uint8_t pad[3]

ctypedef struct Table:
    Entry *entries      # 2 * (bucket_mask + 1) entries: buckets of two slots
    uint64_t bucket_mask
    uint64_t nodes      # positions searched since the last reset
    bint use_tt


# Zobrist keys: hand and collection counts, the reachable line by its position in the line,
# the side to move, the taken flags. Filled once at import from splitmix64.
cdef uint64_t Z_HAND[2][NKINDS][8]
cdef uint64_t Z_COLL[2][NKINDS][16]
cdef uint64_t Z_LINE[LINE_MAX][NKINDS]
cdef uint64_t Z_TO_MOVE[3]
cdef uint64_t Z_TAKEN[4]
cdef uint64_t Z_SIDE            # Z_TO_MOVE[0] ^ Z_TO_MOVE[1]: a move passes the turn
# The points a collected card of each kind adds to its owner's total outside the
# majorities and sets: alliances count for, betrayals against.
cdef int FLAT[NKINDS]
# settled_value's tables: MAJORITY[k][a | b << 4] is what kind k's majority adds to the
# margin of the player holding a cards of it against one holding b (k + 5, -(k + 5) or
# 0), and SETS[x] five points for each complete set in the support counts x (kinds 0..3
# packed 4 bits a kind, as in Node.coll)
cdef int8_t MAJORITY[4][256]
cdef int8_t SETS[65536]


cdef void _init_keys():
    global Z_SIDE
    cdef uint64_t x = 0x5EED_D15C_0000_0001
    cdef int p, k, c, d, a, b, y, low
    for p in range(2):
        for k in range(NKINDS):
            for c in range(8):
                Z_HAND[p][k][c] = splitmix64(&x)
            for c in range(16):
                Z_COLL[p][k][c] = splitmix64(&x)
    for d in range(LINE_MAX):
        for k in range(NKINDS):
            Z_LINE[d][k] = splitmix64(&x)
    for p in range(3):
        Z_TO_MOVE[p] = splitmix64(&x)
    for p in range(4):
        Z_TAKEN[p] = splitmix64(&x)
    Z_SIDE = Z_TO_MOVE[0] ^ Z_TO_MOVE[1]
    for k in range(NKINDS):
        FLAT[k] = kind_value(k) if 4 <= k < KIND_C else 0
    for k in range(4):
        for a in range(16):
            for b in range(16):
                MAJORITY[k][a | (b << 4)] = (k + 5) * ((a > b) - (b > a))
    for y in range(65536):
        low = 15
        for k in range(4):
            low = min(low, (y >> (4 * k)) & 15)
        SETS[y] = 5 * low


_init_keys()


# The search's own round-4 state, changed in place by make/unmake (a State is 140 bytes
# of which a round-4 search needs the hands, the collections and the line): the keys,
# the collections as per-kind counts packed 4 bits a kind in one word, each player's
# alliance-minus-betrayal points, and the same counts and points of the newest
# min(5, line length) cards (what a take would collect) are kept up to date move by move,
# so that a take that settles the game is scored without touching the line.
ctypedef struct Node:
    uint64_t key        # hands, collections, side to move, taken flags
    uint64_t line_key   # the cards of the line the takes still to come can reach
    uint64_t coll[2]    # collections: kind k's count in bits 4k..4k+3
    uint64_t window     # the newest min(5, line_len) cards, packed the same way
    int window_flat     # their alliance-minus-betrayal points
    int flat[2]         # alliances minus betrayals collected
    int line_len
    int to_move
    int taken           # bit p: p has taken this round
    int left            # actions left in the round: the size of the subtree
    uint32_t hand_mask[2]
    uint8_t hand[2][NKINDS]
    uint8_t line[LINE_MAX + TAKE_SIZE]  # room for a 5-card copy at any end


cdef inline int nib(uint64_t packed, int k) noexcept nogil:
    """Kind k's count in a packed word."""
    return (packed >> (4 * k)) & 15


cdef inline int reach_of(int taken) noexcept nogil:
    """How many of the newest line cards the takes still to come can reach."""
    return TAKE_SIZE * (2 - (taken & 1) - (taken >> 1))


cdef inline uint64_t line_key_of(const Node *s) noexcept nogil:
    """Key of the newest cards of the line that the takes still to come can reach.

    Keyed by position in the line: within one solve two nodes with the same hands and
    collections have made the same plays and takes, so their lines are equally long.
    """
    cdef int lo = s.line_len - reach_of(s.taken)
    cdef uint64_t h = 0
    cdef int i
    if lo < 0:
        lo = 0
    for i in range(lo, s.line_len):
        h ^= Z_LINE[i][s.line[i]]
    return h


cdef inline void set_window(Node *s) noexcept nogil:
    """The packed counts and points of the newest min(5, line_len) cards, from the line."""
    cdef int lo = s.line_len - TAKE_SIZE
    cdef int i
    if lo < 0:
        lo = 0
    s.window = 0
    s.window_flat = 0
    for i in range(lo, s.line_len):
        s.window += (<uint64_t>1) << (4 * s.line[i])
        s.window_flat += FLAT[s.line[i]]


cdef void node_from_state(const State *st, Node *s) noexcept nogil:
    """The search node of a round-4 State that is not settled."""
    cdef int p, k
    s.line_len = st.line_len
    s.to_move = st.to_move
    s.taken = st.taken
    s.left = 2 * ACTIONS_PER_ROUND - st.actions[0] - st.actions[1]
    s.key = Z_TO_MOVE[st.to_move] ^ Z_TAKEN[st.taken]
    for p in range(2):
        s.hand_mask[p] = st.hand_mask[p]
        s.flat[p] = 0
        s.coll[p] = 0
        for k in range(NKINDS):
            s.hand[p][k] = st.hand[p][k]
            s.coll[p] |= (<uint64_t>st.coll[p][k]) << (4 * k)
            s.flat[p] += FLAT[k] * st.coll[p][k]
            s.key ^= Z_HAND[p][k][st.hand[p][k]] ^ Z_COLL[p][k][st.coll[p][k]]
    memcpy(s.line, st.line, st.line_len)
    s.line_key = line_key_of(s)
    set_window(s)


cdef inline int settled_value(uint64_t mine, uint64_t theirs, int flat_mine, int flat_theirs) noexcept nogil:
    """Value for p, who has just taken, of the settled position where p's collection is
    `mine` and the other's `theirs` (packed), with these alliance-minus-betrayal points:
    final_value of the same position (both have taken, or p holds the three cities).

    The supports' part of the margin comes from tables (MAJORITY, SETS)."""
    cdef int k, a, b
    cdef int margin = flat_mine - flat_theirs + SETS[mine & 0xFFFF] - SETS[theirs & 0xFFFF]
    margin += MAJORITY[0][(mine & 15) | ((theirs & 15) << 4)]
    margin += MAJORITY[1][((mine >> 4) & 15) | (((theirs >> 4) & 15) << 4)]
    margin += MAJORITY[2][((mine >> 8) & 15) | (((theirs >> 8) & 15) << 4)]
    margin += MAJORITY[3][((mine >> 12) & 15) | (((theirs >> 12) & 15) << 4)]
    if nib(mine, KIND_C) == 3:
        return 2 * RANK + margin
    if margin > 0:
        return RANK + margin
    if margin < 0:
        return margin - RANK
    for k in range(3, -1, -1):
        a = nib(mine, k)
        b = nib(theirs, k)
        if a != b:
            return RANK if a > b else -RANK
    return 0


cdef inline int actions_left(const State *s) noexcept nogil:
    return 2 * ACTIONS_PER_ROUND - s.actions[0] - s.actions[1]


cdef inline int take_value(Table *t, Node *s, int alpha, int beta) noexcept nogil:
    """Value for the side to move of its take (made and unmade in place)."""
    cdef int p = s.to_move
    cdef int q = 1 - p
    cdef int n = s.line_len if s.line_len < TAKE_SIZE else TAKE_SIZE
    cdef int len0 = s.line_len
    cdef int i, k, c, value
    cdef uint64_t key0, line_key0, coll0, window0, packed
    cdef int flat0, window_flat0
    cdef uint8_t cards[TAKE_SIZE]
    if (s.taken >> q) & 1:
        # the second take settles the game: score it from the window, nothing to change
        return settled_value(s.coll[p] + s.window, s.coll[q], s.flat[p] + s.window_flat, s.flat[q])
    packed = s.coll[p] + s.window
    if nib(packed, KIND_C) == 3:
        return settled_value(packed, s.coll[q], s.flat[p] + s.window_flat, s.flat[q])
    key0 = s.key
    line_key0 = s.line_key
    coll0 = s.coll[p]
    flat0 = s.flat[p]
    window0 = s.window
    window_flat0 = s.window_flat
    for i in range(len0 - n, len0):
        k = s.line[i]
        c = nib(s.coll[p], k)
        s.key ^= Z_COLL[p][k][c] ^ Z_COLL[p][k][c + 1]
        s.coll[p] += (<uint64_t>1) << (4 * k)
    s.flat[p] += s.window_flat
    # the plays below overwrite the line beyond its new end: keep the cards taken
    memcpy(cards, &s.line[len0 - n], TAKE_SIZE)
    s.line_len = len0 - n
    s.key ^= Z_TAKEN[s.taken] ^ Z_TAKEN[s.taken | (1 << p)] ^ Z_SIDE
    s.taken |= 1 << p
    s.to_move = q
    s.left -= 1
    s.line_key = line_key_of(s)
    set_window(s)
    value = -search(t, s, -beta, -alpha)
    s.left += 1
    s.to_move = p
    s.taken &= ~(1 << p)
    s.line_len = len0
    s.key = key0
    s.line_key = line_key0
    s.coll[p] = coll0
    s.flat[p] = flat0
    s.window = window0
    s.window_flat = window_flat0
    memcpy(&s.line[len0 - n], cards, TAKE_SIZE)
    return value


cdef inline int play_value(Table *t, Node *s, int m, int alpha, int beta) noexcept nogil:
    """Value for the side to move of playing a card of kind m (made and unmade in place).
    A play never settles the game: that takes the second take."""
    cdef int p = s.to_move
    cdef int c = s.hand[p][m]
    cdef int L = s.line_len
    cdef int lo = L - reach_of(s.taken)
    cdef int out
    cdef uint64_t key0 = s.key, line_key0 = s.line_key, window0 = s.window
    cdef int window_flat0 = s.window_flat
    cdef uint32_t mask0 = s.hand_mask[p]
    cdef int value
    s.hand[p][m] = c - 1
    if c == 1:
        s.hand_mask[p] = mask0 & ~(1u << m)
    s.key ^= Z_HAND[p][m][c] ^ Z_HAND[p][m][c - 1] ^ Z_SIDE
    s.line[L] = m
    s.line_key ^= Z_LINE[L][m]
    if lo >= 0:
        s.line_key ^= Z_LINE[lo][s.line[lo]]  # out of reach now
    s.window += (<uint64_t>1) << (4 * m)
    s.window_flat += FLAT[m]
    if L >= TAKE_SIZE:
        out = s.line[L - TAKE_SIZE]  # no longer among the newest five
        s.window -= (<uint64_t>1) << (4 * out)
        s.window_flat -= FLAT[out]
    s.line_len = L + 1
    if s.hand_mask[1 - p] == 0 and (s.taken >> p) & 1:
        # the other has no card left and p has taken: its take is forced and settles
        value = -settled_value(s.coll[1 - p] + s.window, s.coll[p], s.flat[1 - p] + s.window_flat, s.flat[p])
    else:
        s.to_move = 1 - p
        s.left -= 1
        value = -search(t, s, -beta, -alpha)
        s.left += 1
    s.to_move = p
    s.line_len = L
    s.key = key0
    s.line_key = line_key0
    s.window = window0
    s.window_flat = window_flat0
    s.hand_mask[p] = mask0
    s.hand[p][m] = c
    return value


cdef inline int move_value(Table *t, Node *s, int m, int alpha, int beta) noexcept nogil:
    if m == MOVE_TAKE:
        return take_value(t, s, alpha, beta)
    return play_value(t, s, m, alpha, beta)


cdef int search(Table *t, Node *s, int alpha, int beta) noexcept nogil:
    """Negamax value of s for its side to move, exact when alpha < value < beta."""
    cdef uint64_t key = 0
    cdef Entry *bucket = NULL
    cdef Entry *slot
    cdef int alpha0 = alpha
    cdef int best = -INF, value, i, m, n = 0, lo, hi
    cdef int best_move = NO_MOVE, tt_move = NO_MOVE
    cdef uint8_t moves[NMOVES]
    cdef uint32_t mask
    cdef int p = s.to_move
    t.nodes += 1  # s is never settled: the moves that settle are scored in take_value
    if t.use_tt:
        key = s.key ^ s.line_key
        bucket = &t.entries[2 * (key & t.bucket_mask)]
        for i in range(2):
            slot = &bucket[i]
            if slot.bound and slot.key == key:
                tt_move = slot.move
                if slot.bound == BOUND_EXACT:
                    return slot.value
                if slot.bound == BOUND_LOWER and slot.value >= beta:
                    return slot.value
                if slot.bound == BOUND_UPPER and slot.value <= alpha:
                    return slot.value
                break

    # Move ordering: the table's move, then the take, then plays from the city down to 5.
    mask = s.hand_mask[p]
    if not ((s.taken >> p) & 1) and s.line_len > 0:
        mask |= 1u << MOVE_TAKE
    if tt_move != NO_MOVE and (mask >> tt_move) & 1:
        moves[n] = tt_move
        n += 1
        mask &= ~(1u << tt_move)
    while mask:
        m = 31 - DN_CLZ(mask)
        moves[n] = m
        n += 1
        mask &= ~(1u << m)

    for i in range(n):
        m = moves[i]
        # Principal variation search: the first move gets the full window, the
        # others a null window around the best so far, searched again if they beat it.
        if best > alpha:
            alpha = best
        # one call site, so that the compiler can inline the move into this loop
        lo = alpha
        hi = beta if i == 0 else alpha + 1
        while True:
            value = move_value(t, s, m, lo, hi)
            # a take that settles the game is scored exactly whatever the window
            if hi == beta or not (alpha < value < beta) or (m == MOVE_TAKE and (s.taken >> (1 - p)) & 1):
                break
            lo = value
            hi = beta
        if value > best:
            best = value
            best_move = m
            if best >= beta:
                break
    if t.use_tt:
        store(bucket, key, best, alpha0, beta, best_move, s.left)
    return best

cdef inline void store(Entry *bucket, uint64_t key, int value, int alpha0, int beta,
                       int move, int depth) noexcept nogil:
    cdef Entry *slot = &bucket[1]
    if bucket[0].key == key or bucket[0].bound == 0 or depth >= bucket[0].depth:
        if bucket[0].bound and bucket[0].key != key:
            bucket[1] = bucket[0]  # the displaced deep entry gets a second chance
        slot = &bucket[0]
    slot.key = key
    slot.value = value
    slot.move = move
    slot.depth = depth
    if value <= alpha0:
        slot.bound = BOUND_UPPER
    elif value >= beta:
        slot.bound = BOUND_LOWER
    else:
        slot.bound = BOUND_EXACT


cdef int node_value(Table *t, Node *s) noexcept nogil:
    """Exact value of an unsettled node for its side to move.

    The outcome first, then the margin inside its band: a null-window probe at the win
    boundary (is the node won?), then one search of the band it found."""
    cdef int v = search(t, s, RANK // 2 - 1, RANK // 2)
    if v >= RANK // 2:
        return search(t, s, RANK // 2 - 1, INF)
    return search(t, s, -INF, RANK // 2)


cdef int child_value(Table *t, const State *s, int move) noexcept nogil:
    """Exact value, for the side to move in s, of playing move."""
    cdef State child = s[0]
    cdef Node node
    apply_move(&child, move)
    if settled(&child):
        return final_value(&child, s.to_move)
    node_from_state(&child, &node)
    return -node_value(t, &node)


ctypedef struct Sums:
    int pool[NKINDS]
    int64_t worlds
    int64_t win[NMOVES]
    int64_t draw[NMOVES]
    int64_t loss[NMOVES]
    int64_t margin[NMOVES]


# BINOMIAL[n][k]: the deals of k cards of a kind out of n unseen ones
cdef int64_t BINOMIAL[16][16]


cdef void _init_binomials():
    cdef int n, k
    for n in range(16):
        BINOMIAL[n][0] = 1
        for k in range(1, 16):
            BINOMIAL[n][k] = 0 if k > n else BINOMIAL[n - 1][k - 1] + (BINOMIAL[n - 1][k] if k < n else 0)


_init_binomials()


cdef void view_worlds(Table *t, State *s, int opponent, Sums *sums, int kind, int left,
                      int64_t weight) noexcept nogil:
    """Solve each world (opponent hand) from `kind` on, adding its weighted values to sums."""
    cdef int c, most, i, n, m, value, rank
    cdef uint8_t moves[NMOVES]
    if kind == NKINDS:
        if left != 0:
            return
        update_hand_masks(s)
        sums.worlds += 1
        n = legal_moves(s, moves)
        for i in range(n):
            m = moves[i]
            value = child_value(t, s, m)
            rank = value_rank(value)
            if rank > 0:
                sums.win[m] += weight
            elif rank == 0:
                sums.draw[m] += weight
            else:
                sums.loss[m] += weight
            sums.margin[m] += weight * (value - rank * RANK)
        return
    most = sums.pool[kind] if sums.pool[kind] < left else left
    for c in range(most + 1):
        s.hand[opponent][kind] = c
        view_worlds(t, s, opponent, sums, kind + 1, left - c, weight * BINOMIAL[sums.pool[kind]][c])
    s.hand[opponent][kind] = 0


cdef class EndgameSolver:
    """Exact solver of round-4 positions with both hands known, holding one table.

    >>> from solver.rules.position import Position
    >>> pos = Position.parse("7-2+3 58/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a . 7+2C")
    >>> solver = EndgameSolver(tt_mb=1)
    >>> values = solver.move_values(pos.core)
    >>> sorted(values)  # move indices: 3 = '8', 8 = '-2', 11 = take
    [3, 8, 11]
    """

    cdef Table t
    cdef readonly size_t tt_bytes

    def __cinit__(self, double tt_mb=2, bint use_tt=True):
        cdef uint64_t buckets = 1
        while buckets * 2 * 2 * sizeof(Entry) <= tt_mb * 1024 * 1024:
            buckets *= 2
        self.t.entries = <Entry *> dn_table_alloc(buckets * 2 * sizeof(Entry))
        if self.t.entries == NULL:
            raise MemoryError(f"cannot allocate a {tt_mb} MB transposition table")
        self.t.bucket_mask = buckets - 1
        self.t.use_tt = use_tt
        self.t.nodes = 0
        self.tt_bytes = buckets * 2 * sizeof(Entry)

    def __dealloc__(self):
        free(self.t.entries)

    def clear(self):
        """Empty the table (never needed for correctness: for measurements from a cold start)."""
        memset(self.t.entries, 0, self.tt_bytes)

    def move_values(self, CoreState state):
        """{move index: exact value for the side to move} for every legal move.

        `state` is the CoreState of a round-4 position with both hands known.
        """
        cdef State s = load_state(state)
        return self._move_values(&s)

    cdef dict _move_values(self, const State *s):
        cdef uint8_t moves[NMOVES]
        cdef int n = legal_moves(s, moves)
        cdef int values[NMOVES]
        cdef int i
        with nogil:
            for i in range(n):
                values[i] = child_value(&self.t, s, moves[i])
        return {moves[i]: values[i] for i in range(n)}

    def value(self, CoreState state):
        """Exact value of the position for its side to move (the best move only: faster)."""
        cdef State s = load_state(state)
        cdef int v
        if settled(&s):
            return final_value(&s, s.to_move)
        cdef Node node
        with nogil:
            node_from_state(&s, &node)
            v = node_value(&self.t, &node)
        return v

    def principal_variation(self, CoreState state, int first=-1):
        """The moves of best play from the position until the result is settled.

        `first`, if given, is the root's best move (from `move_values`). Each next move is
        the best move of the table's exact entry for the position, or, where the table no
        longer holds one, the best of the children's exact values.
        """
        cdef State s = load_state(state)
        cdef int m = first
        pv = []
        while not settled(&s):
            if m < 0 or not (legal_mask(&s) >> m) & 1:
                m = self._best_move(&s)
            pv.append(m)
            apply_move(&s, m)
            m = self._table_move(&s)
        return pv

    cdef int _table_move(self, const State *s) noexcept nogil:
        """The best move stored with an exact value for s, or -1."""
        cdef Node node
        cdef uint64_t key
        cdef Entry *bucket
        cdef int i
        node_from_state(s, &node)
        key = node.key ^ node.line_key
        bucket = &self.t.entries[2 * (key & self.t.bucket_mask)]
        if not self.t.use_tt:
            return -1
        for i in range(2):
            if bucket[i].key == key and bucket[i].bound == BOUND_EXACT and bucket[i].move != NO_MOVE:
                return bucket[i].move
        return -1

    cdef int _best_move(self, const State *s) noexcept nogil:
        cdef uint8_t moves[NMOVES]
        cdef int n = legal_moves(s, moves)
        cdef int i, v, best = -INF, best_move = moves[0]
        for i in range(n):
            v = child_value(&self.t, s, moves[i])
            if v > best:
                best, best_move = v, moves[i]
        return best_move

    def world_values(self, CoreState state, int opponent, pool, int hand_size):
        """Solve every hand the opponent may hold: [(hand counts, {move: value})].

        `pool` is the count per kind of the cards the side to move cannot see (the
        opponent's hand and the removed cards); each world gives the opponent `hand_size`
        of them. Worlds are distinct multisets, in lexicographic order of their counts.
        """
        cdef State s = load_state(state)
        cdef int pool_counts[NKINDS]
        cdef int k
        for k in range(NKINDS):
            pool_counts[k] = pool[k]
            s.hand[opponent][k] = 0
        out = []
        self._worlds(&s, opponent, pool_counts, 0, hand_size, out)
        return out

    cdef void _worlds(self, State *s, int opponent, int *pool, int kind, int left, list out):
        cdef int c, most
        if kind == NKINDS:
            if left == 0:
                update_hand_masks(s)
                out.append((tuple(s.hand[opponent][k] for k in range(NKINDS)), self._move_values(s)))
            return
        most = pool[kind] if pool[kind] < left else left
        for c in range(most + 1):
            s.hand[opponent][kind] = c
            self._worlds(s, opponent, pool, kind + 1, left - c, out)
        s.hand[opponent][kind] = 0

    def view_sums(self, CoreState state, int opponent, pool, int hand_size):
        """The one-player view's sums over every hand the opponent may hold, in C.

        The worlds of `world_values` (same order), each weighted by the number of deals
        giving it (the product over kinds of binomial(pool count, hand count)): returns
        (worlds, {move: (win, draw, loss, margin)}) where win, draw and loss are the
        weights of the worlds where the move wins, draws or loses and margin the sum of
        weight times margin: whole numbers, divided by the number of deals by the caller.
        """
        cdef State s = load_state(state)
        cdef Sums sums
        cdef int k, n
        cdef uint8_t moves[NMOVES]
        if opponent != 0 and opponent != 1 or opponent == s.to_move:
            raise ValueError("opponent must be the player not to move")
        if hand_size < 0 or hand_size > HAND_SIZE:
            raise ValueError(f"hand_size must be 0 to {HAND_SIZE}")
        memset(&sums, 0, sizeof(Sums))
        for k in range(NKINDS):
            sums.pool[k] = pool[k]
            if not 0 <= sums.pool[k] <= 15:
                raise ValueError("a pool count is not 0 to 15")
            s.hand[opponent][k] = 0
        n = legal_moves(&s, moves)
        with nogil:
            view_worlds(&self.t, &s, opponent, &sums, 0, hand_size, 1)
        return sums.worlds, {moves[i]: (sums.win[moves[i]], sums.draw[moves[i]], sums.loss[moves[i]],
                                        sums.margin[moves[i]]) for i in range(n)}

    @property
    def nodes(self):
        """Positions searched since the last `reset_nodes`."""
        return self.t.nodes

    def reset_nodes(self):
        """Set the node counter back to 0."""
        self.t.nodes = 0


cdef State load_state(CoreState state) except *:
    """A copy of the State of `state`, checked to be an unfinished round-4 position."""
    if state is None:
        raise TypeError("a CoreState is needed, not None")
    cdef State s = state.s
    if s.round != LAST_ROUND or s.deck_pos < s.deck_len:
        raise ValueError("the exact solver needs an empty deck (round 4)")
    if s.status != ONGOING:
        raise ValueError("the game is over")
    return s


def split_value(int value):
    """(rank, margin) of a solver value: rank +2 city win .. -2 city loss, margin in points.

    >>> split_value(1024 + 7), split_value(-2048 + 3), split_value(0)
    ((1, 7), (-2, 3), (0, 0))
    """
    cdef int rank = value_rank(value)
    return rank, value - rank * RANK
