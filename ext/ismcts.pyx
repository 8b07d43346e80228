# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012), compiled as solver.solvers._ismcts.

One tree per `Searcher`, over the moves seen from the observer's side: every iteration
samples a world consistent with the observer's view (world.pxd), descends the tree
choosing among the children whose move is legal in that world by UCB1 with availability
counts (its constant may differ at the opponent's decisions and at the root; a margin term and
UCB1-Tuned are options, solver.solvers.searchconfig says which are on), adds one child, finishes the game with a playout (policy.pxd), and backs the result
up (win 1, draw 1/2, loss 0, plus the final margin) to every node of the path, each for
the player who made its move. With the round-end model (`round_model`, the default of
solver.solvers.searchconfig since bench/STRENGTH.md's test 19), the playout ends with its round
and backs up the model's chance of a win from there instead.

With `opponent_hands` K > 0 (solver.searchconfig's default; 0 here, in `start`), the
opponent's moves at a node with HAND_MIN_VISITS visits are also counted per hand the
opponent holds in the sampled world (a bounded hash table of HandStats, max_nodes / 8
entries): its selection then uses, for each move, the mean over the worlds that gave it
that hand, with the shared mean counted as K visits of prior, so that it chooses as a player
who knows its own hand. The exploration term stays the shared one, unless `hand_bandit`
gives each hand its own (see `start`).

Nodes live in a preallocated pool; when it is full the tree stops growing and iterations
go on with playouts from the deepest node reached, so memory never exceeds the pool.
Visit, availability and draw counts are 32 bits: no node's count exceeds the root's, and a tree
stops (`search` returns early, `saturated` is True) once its root has VISITS_LIMIT visits,
2**31 - 2**20, so no counter can wrap (about an hour of one thread; a longer search runs
more trees, one a thread, or starts a new one).
Everything in `run` holds no Python object and runs without the GIL, so several
Searchers on several threads give root parallelism.
"""

from libc.stdint cimport uint8_t, uint16_t, uint32_t, int32_t, uint64_t
import math
from collections import namedtuple

from libc.stdlib cimport calloc, malloc, free
from libc.string cimport memcpy, memset
from libc.math cimport sqrt, log, exp, fmax
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC
from rng cimport Rng, rng_seed, rng_below
from state cimport (
    State, Score, NKINDS, NMOVES, MOVE_TAKE, HAND_SIZE, KIND_C, ONGOING, DRAW, DN_COMPOSITION, DN_POPCOUNT, DN_CTZ,
    DNOIR_CHECKED, LAST_ROUND, hand_size, legal_mask, apply_move, game_outcome, nth_move, settled,
)
from libc.stdio cimport fflush, fprintf, stderr
from libc.stdlib cimport abort
from world cimport Unseen, unseen_cards, sample_world
from policy cimport policy_move, policy_code, cities_in_reach
from solver.rules._core cimport CoreState
from solver.base.bounds import MAX_EXPLORATION, MAX_ITERATIONS, MAX_NODES, MAX_SECONDS

ctypedef struct Node:
    int32_t children    # the first slot of this node's block of children; NO_NODE until it is expanded
    uint32_t visits
    uint32_t avail
    uint32_t half_reward  # summed rewards for the player who made `move`, in half points (win 2, draw 1)
    uint32_t draws      # drawn results among the visits: with `half_reward`, gives wins and the variance
                        # (with the round-end model, whose results are fractions, the two words hold
                        # instead the results' summed squares in 2**-32 units: see add_square)
    uint16_t child_mask # the moves the block of children has a slot for, one slot per bit, in move order
    uint8_t move
    uint8_t order       # low 4 bits: which child of its parent this was, in the order they were made;
                        # high 4 bits: how many of its own children have been made
    double margin       # summed final margins for the player who made `move` (whole points: exact);
                        # with the round-end model, the summed results instead (the model's
                        # probabilities, exact), which its selection reads: it has no margins

# The opponent's statistics for one (decision node, the opponent's hand in the sampled world):
# what each of its moves brought it in the worlds where it held exactly that hand
# (the `opponent_hands` option; see Searcher.hand_stats). One cache line: the moves of a hand are
# its kinds (at most HAND_SIZE) and the take, a slot each in move order (hand_slot).
ctypedef struct HandStats:
    uint64_t key                    # (node << 36) | hand code (3 bits a kind); 0: a free slot
    uint32_t visits[HAND_SIZE + 1]
    uint32_t reward[HAND_SIZE + 1]  # summed results, in half points (win 2, draw 1); with
                                    # hand_bandit, in HAND_UNITS a win (the model's exact values)
    uint32_t total                  # the visits of all its slots (hand_bandit's exploration term reads it)
    uint32_t unused                 # (a whole cache line an entry)

cdef enum:
    NO_NODE = -1
    MAX_DEPTH = 64
    CLOCK_EVERY = 64
    HAND_MIN_VISITS = 16    # a node's per-hand statistics start once it has this many visits
    HAND_PROBES = 32        # linear probes of the hand table before giving up (a full table)
    HAND_MIN_BITS = 11      # the hand table starts with 2**11 slots
    HAND_UNITS = 2048       # hand_bandit: a HandStats reward counts wins in 1/2048ths
    HAND_BANDIT_CAP = 1 << 20  # hand_bandit: a slot stops counting here (its reward fits 32 bits)


POLICY_NAMES = ("random", "greedy", "taker", "guard")  # the names policy_code accepts
# Margins enter the selection scaled by this: a margin of MARGIN_SCALE points counts as much as a win.
MARGIN_SCALE = 40.0
# The most memory one node of the pool can take: the node itself and its share of the per-hand
# table (at most max_nodes / 4 slots of HandStats when opponent_hands is on, and half as much
# again while it doubles). Every memory figure (--max-nodes, the engine's Hash,
# `memory_bound_mb`) counts nodes at this size.
NODE_BYTES = sizeof(Node) + 3 * sizeof(HandStats) // 8
# The largest poly_bonus (k of the polynomial bonus; 0.467 makes it UCB1's at 1,000 visits).
MAX_POLY_BONUS = 10.0
# The largest opponent_hands (the shared mean's weight, in visits, against one hand's own results).
MAX_HAND_PRIOR = 1000.0


class RootStats(namedtuple("RootStats", "visits reward margin draws squares")):
    """One root move's summed statistics, for the observer (Stockfish's RootMove in spirit):
    `visits`, `reward` (results summed: 1, 1/2 or 0 for played-out games, the model's
    probabilities with the round-end model), `margin` (final margins summed), `draws` and
    `squares` (the results' squares summed, which give their spread). Played-out results are
    1, 1/2 or 0, so the draws and the reward give the wins (reward - draws / 2) and the squares
    (reward - draws / 4), which `squares` is when not given. Records of several trees of one root
    add up (`+`, field by field)."""

    __slots__ = ()

    def __new__(cls, visits, reward, margin, draws, squares=None):
        return super().__new__(cls, visits, reward, margin, draws,
                               reward - draws / 4 if squares is None else squares)

    def __add__(self, other):
        return RootStats(*(a + b for a, b in zip(self, other)))

    @property
    def wins(self):
        """The won results among the visits."""
        return self.reward - self.draws / 2


NO_VISITS = RootStats(0, 0.0, 0.0, 0)
# A tree stops growing its counts here: the root counts every iteration and no node more, and
# a node's half-point rewards (at most twice its visits) still fit in 32 bits.
VISITS_LIMIT = 2**31 - 2**20


cdef object _budget(str name, object value, object high):
    """A search budget as given from Python: a finite number 0..high (0: no limit of that kind)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name}: {value!r} is not a number (0 to {high})")
    if not (0 <= value <= high):  # False for NaN too
        raise ValueError(f"{name}: {value!r} is out of range (0 to {high})")
    return value


cdef inline double now_seconds() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


# log(n) for the availability counts that most children of a tree have, computed by the
# same log() as the selection would (the same values, so the same tree), read instead of a call:
# up to 131,072, the root's children's counts of a 100 ms search too (1 MB; a search touches
# the entries near its children's counts only, a few cache lines a child).
cdef enum:
    LOG_TABLE_SIZE = 131072

cdef double LOG_TABLE[LOG_TABLE_SIZE]
cdef int _n
LOG_TABLE[0] = 0.0
for _n in range(1, LOG_TABLE_SIZE):
    LOG_TABLE[_n] = log(<double>_n)


cdef inline double log_count(uint32_t n) noexcept nogil:
    """log(n) of a count n >= 1."""
    return LOG_TABLE[n] if n < LOG_TABLE_SIZE else log(<double>n)


# sqrt(n), for the polynomial bonus (Searcher.start's poly_bonus) as LOG_TABLE is for UCB1's,
# at the same cost.
cdef double SQRT_TABLE[LOG_TABLE_SIZE]
for _n in range(LOG_TABLE_SIZE):
    SQRT_TABLE[_n] = sqrt(<double>_n)


cdef inline double sqrt_count(uint32_t n) noexcept nogil:
    """sqrt(n) of a count n >= 1."""
    return SQRT_TABLE[n] if n < LOG_TABLE_SIZE else sqrt(<double>n)


cdef extern from *:
    """
    #define DN_PREFETCH(p) __builtin_prefetch((const void *)(p))
    """
    void DN_PREFETCH(const void *p) nogil


cdef extern from *:
    """
    #include <stdlib.h>
    #include <sys/mman.h>
    /* A node pool: aligned to 2 MB and, where the system has them, asked to be backed by
       huge pages, so that a tree spread over megabytes costs few TLB misses. The memory is
       only touched (and counted by the system) as the tree grows. free() releases it. */
    static void *dn_pool_alloc(size_t bytes) {
        void *p = NULL;
        size_t huge = (size_t)2 << 20;
        if (posix_memalign(&p, huge, (bytes + huge - 1) / huge * huge) != 0)
            return NULL;
    #ifdef MADV_HUGEPAGE
        madvise(p, (bytes + huge - 1) / huge * huge, MADV_HUGEPAGE);
    #endif
        return p;
    }
    """
    void *pool_alloc "dn_pool_alloc"(size_t bytes) nogil


cdef inline void prefetch_block(const Node *first) noexcept nogil:
    """Ask the cache for the first lines of a block of children (6 nodes, the usual most)."""
    DN_PREFETCH(first)
    DN_PREFETCH(<const char *>first + 64)
    DN_PREFETCH(<const char *>first + 128)


cdef inline void add_square(Node *n, double result) noexcept nogil:
    """With the round-end model: add result**2 to the node's summed squares, a 64-bit count of
    2**-32 units kept in its `half_reward` (low word) and `draws` (high word), which the model's
    search does not otherwise use. At most 2**32 units a visit and VISITS_LIMIT visits: it fits."""
    cdef uint64_t total = ((<uint64_t>n.draws) << 32) | n.half_reward
    total += <uint64_t>(result * result * 4294967296.0 + 0.5)
    n.half_reward = <uint32_t>total
    n.draws = <uint32_t>(total >> 32)


cdef inline double node_squares(const Node *n) noexcept nogil:
    """The summed squares that add_square keeps, as a number of results squared."""
    return <double>(((<uint64_t>n.draws) << 32) | n.half_reward) / 4294967296.0


cdef inline double extra_score(const Node *ch, double c, double mw, bint tuned) noexcept nogil:
    """The selection score with the margin term and/or UCB1-Tuned's exploration."""
    cdef double reward = 0.5 * ch.half_reward
    cdef double mean = reward / ch.visits
    cdef double explore = log_count(ch.avail) / ch.visits
    cdef double spread
    if tuned:
        # UCB1-Tuned (Auer et al. 2002), scaled so that a child whose results spread as a
        # fair coin's (variance 1/4) explores as UCB1 with c
        spread = (reward - 0.25 * ch.draws) / ch.visits - mean * mean + sqrt(2 * explore)
        if spread < 0.25:
            explore *= 4 * spread
    return mean + mw * ch.margin / ch.visits + c * sqrt(explore)


cdef inline double shared_score(const Node *ch, double c, double mw, bint tuned, bint extra, bint model,
                                bint poly) noexcept nogil:
    """A tried child's selection score from its own statistics (the options' terms with `extra`).
    With the model and `poly`, the polynomial bonus of Searcher.start's `poly_bonus`, whose k
    the caller has multiplied into c: c sqrt(sqrt(avail) / visits) instead of UCB1's log."""
    if not extra:  # the plain variant: 388581d's formula and cost
        return 0.5 * ch.half_reward / ch.visits + c * sqrt(log_count(ch.avail) / ch.visits)
    if model:  # the exact results (start refuses the model with mw or tuned)
        return ch.margin / ch.visits + c * sqrt((sqrt_count(ch.avail) if poly else log_count(ch.avail)) / ch.visits)
    return extra_score(ch, c, mw, tuned)


cdef inline uint64_t hand_code(const State *s, int p) noexcept nogil:
    """Player p's hand as a number: its count of each kind (at most 5) in 3 bits."""
    cdef uint64_t code = 0
    cdef int k
    for k in range(NKINDS):
        code |= (<uint64_t>s.hand[p][k]) << (3 * k)
    return code


cdef inline int slot_of(uint32_t moves, int move) noexcept nogil:
    """Where `move` sits among the set bits of `moves` (which holds it), counting from 0."""
    return DN_POPCOUNT(moves & ((1u << move) - 1))


cdef inline int hand_slot(const State *s, int move) noexcept nogil:
    """The slot of the mover's `move` in a HandStats entry: its kinds in order, then the take."""
    return slot_of(s.hand_mask[s.to_move] | (1u << MOVE_TAKE), move)


# The round-end model (solver.solvers.roundmodel): its layout, which round_end_value reads.
cdef enum:
    MODEL_FEATURES = 162
    MODEL_ROUNDS = 3
MODEL_SHAPE = (MODEL_ROUNDS, MODEL_FEATURES)

cdef int MODEL_POINTS[11]   # a collected card's points, alliances and betrayals only
MODEL_POINTS[:] = [0, 0, 0, 0, 2, 3, 4, -1, -2, -3, 0]


cdef inline double round_end_value(const State *s, const double *w) noexcept nogil:
    """P(player 0 wins) under random play from `s`, a state just after round s.round - 1 ended,
    by that round's logistic model `w` (MODEL_FEATURES weights): solver.solvers.roundmodel.features,
    the same features in the same order."""
    cdef double z = w[161]
    cdef double sign = 1.0 if s.first == 0 else -1.0
    cdef int k, d, free, bucket, a, b, i, n, line_points = 0
    cdef int line_supports[4]
    for k in range(4):
        a = s.coll[0][k]
        b = s.coll[1][k]
        d = a - b
        d = -4 if d < -4 else (4 if d > 4 else d)
        free = DN_COMPOSITION[k] - a - b
        bucket = 0 if free <= 0 else (1 if free <= 2 else (2 if free <= 4 else 3))
        z += w[k * 36 + (d + 4) * 4 + bucket]
        line_supports[k] = 0
    a = 0
    b = 0
    for k in range(4, 10):
        a += MODEL_POINTS[k] * s.coll[0][k]
        b += MODEL_POINTS[k] * s.coll[1][k]
    z += w[144] * (a - b) / 10.0
    a = s.coll[0][0]
    b = s.coll[1][0]
    for k in range(1, 4):
        a = s.coll[0][k] if s.coll[0][k] < a else a
        b = s.coll[1][k] if s.coll[1][k] < b else b
    z += w[145] * (a - b)
    a = s.coll[0][10] if s.coll[0][10] < 2 else 2
    b = s.coll[1][10] if s.coll[1][10] < 2 else 2
    z += w[146 + a * 3 + b]
    z += w[155] * sign
    n = s.line_len if s.line_len < 5 else 5
    for i in range(s.line_len - n, s.line_len):
        k = s.line[i]
        if k < 4:
            line_supports[k] += 1
        line_points += MODEL_POINTS[k]
    for k in range(4):
        z += w[156 + k] * line_supports[k] * sign
    z += w[160] * line_points * sign / 10.0
    return 1.0 / (1.0 + exp(-z))


cdef inline double round_end_score(const State *s, const double *w, bint third_city) noexcept nogil:
    """round_end_value; with `third_city`, a round end whose next first player holds two cities
    with a city within reach of a take is its win (its first move takes the third city), where
    the model, which reads no city in the line, puts it near 1/2."""
    if third_city and s.coll[s.first][KIND_C] == 2 and cities_in_reach(s):
        return 1.0 if s.first == 0 else 0.0
    return round_end_value(s, w)


cdef inline int model_half_points(double value, Rng *r) noexcept nogil:
    """A probability of a win as a result in half points (0, 1 or 2) whose mean is 2 * value:
    2 * value rounded down or up at random, so that the counts stay whole numbers."""
    cdef int half = <int>(2 * value)
    if rng_below(r, 1u << 30) < (2 * value - half) * (1u << 30):
        half += 1
    return half


# The four compiled variants of Searcher.iterate: the plain search (no margin term, UCB1-Tuned
# or round-end model: 388581d's and the default up to 7d9ffe8), the round-end model's (the
# default since 1da0d9a; start refuses it with the margin term or UCB1-Tuned) and the same with
# the polynomial bonus (`poly_bonus`; as a run-time test in the model's variant it cost 2% of
# its instructions), each with the options' tests left out at compile time (they cost 1.7% of
# the instructions as run-time tests), and the search with the margin term or UCB1-Tuned,
# which keeps them. Empty marker types: a fused type is Cython's way to compile one body
# several times.
ctypedef struct DefaultSearch:
    char unused

ctypedef struct ModelSearch:
    char unused

ctypedef struct PolySearch:
    char unused

ctypedef struct OptionsSearch:
    char unused

ctypedef fused Variant:
    DefaultSearch
    ModelSearch
    PolySearch
    OptionsSearch


cdef class Searcher:
    """One ISMCTS tree with a bounded node pool.

    The children of a node are one block of the pool, made when the node is first expanded,
    with a slot for every move that any world consistent with the observer's view could allow
    there (`possible_moves`), in move order: the selection reads a node's children from one
    place instead of following a list through the pool. A slot is a child once its move has
    been tried (avail > 0). Among children of equal score the selection takes the one made
    last, as a list of children newest first would, so the tree is the same node for node as
    that of a list (388581d's), whatever the layout.

    >>> from solver.rules.position import Position
    >>> view = Position.random_deal(1).view("a")
    >>> s = Searcher(max_nodes=10_000)
    >>> s.start(view.core, observer=view.to_move, seed=1)
    >>> s.search(iterations=500)
    500
    >>> sum(stats.visits for stats in s.root_stats().values())
    500
    """

    cdef Node *nodes
    cdef int32_t n_nodes
    cdef int32_t max_nodes
    cdef readonly uint64_t iterations
    cdef State root
    cdef Unseen unseen
    cdef Rng rng
    cdef double exploration
    cdef double opponent_exploration    # at the opponent's decisions
    cdef double root_exploration        # at the root, whose visits are the advice
    cdef double round4_exploration      # at round-4 decisions below a root of rounds 1-3 (< 0: off)
    cdef double poly_bonus              # with the model, k of the polynomial bonus (0: UCB1's)
    cdef int tree_rounds                # rounds the tree spans from the root's (0: to the game's end)
    cdef bint settled_stop              # the descent and the playout end at a settled result
    cdef double margin_weight
    cdef bint tuned         # UCB1-Tuned: the exploration term scaled by each child's spread of results
    cdef int policy
    cdef bint started
    cdef uint32_t visits_limit
    cdef double hand_prior          # opponent_hands: 0 off, else the shared mean's weight in visits
    cdef bint hand_bandit           # each hand its own bandit: its own exploration term, exact sums
    cdef HandStats *hands           # open-addressing hash table of per-hand entries
    cdef int32_t n_hands
    cdef int hand_bits              # the table has 2**hand_bits slots, at most half of them used
    cdef int max_hand_bits          # the table grows up to 2**max_hand_bits slots
    cdef uint32_t root_only         # the root's moves the iterations may take (pondering); 0: all
    cdef bint use_model             # playouts end with their round, scored by the round-end model
    cdef bint third_city            # with it, a round end that hands the next first player its third city is its win
    cdef double model[MODEL_ROUNDS * MODEL_FEATURES]  # its weights (solver.solvers.roundmodel)

    def __cinit__(self, max_nodes=2_000_000, visits_limit=VISITS_LIMIT):
        """`max_nodes` (1 to MAX_NODES) sizes the pool; `visits_limit` (1 to VISITS_LIMIT, for
        tests) is the root visit count at which the tree stops."""
        if isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or not 1 <= max_nodes <= MAX_NODES:
            raise ValueError(f"max_nodes: {max_nodes!r} is out of range (1 to {MAX_NODES})")
        if isinstance(visits_limit, bool) or not isinstance(visits_limit, int) \
                or not 1 <= visits_limit <= VISITS_LIMIT:
            raise ValueError(f"visits_limit: {visits_limit!r} is out of range (1 to {VISITS_LIMIT})")
        self.visits_limit = visits_limit
        self.nodes = <Node *> pool_alloc(<size_t>max_nodes * sizeof(Node))
        if self.nodes == NULL:
            raise MemoryError(f"cannot allocate {max_nodes} nodes")
        self.max_nodes = max_nodes
        self.n_nodes = 0
        self.started = False
        self.hands = NULL
        self.hand_prior = 0
        self.hand_bandit = False
        self.max_hand_bits = HAND_MIN_BITS
        while (1 << (self.max_hand_bits + 1)) <= max_nodes // 4:
            self.max_hand_bits += 1

    def __dealloc__(self):
        free(self.nodes)
        free(self.hands)

    cdef inline uint64_t hand_home(self, int32_t node, uint64_t code) noexcept nogil:
        """The slot where the entry of (node, hand code) is looked for first."""
        return ((((<uint64_t>node) << 36) | code) * <uint64_t>0x9E3779B97F4A7C15) >> (64 - self.hand_bits)

    cdef HandStats *hand_stats(self, int32_t node, uint64_t code) noexcept nogil:
        """The entry of (node, hand code), made (zeroed) if new; NULL when the table is full."""
        cdef uint64_t key = ((<uint64_t>node) << 36) | code
        cdef uint64_t h = self.hand_home(node, code)
        cdef uint64_t mask = ((<uint64_t>1) << self.hand_bits) - 1
        cdef int probe
        cdef HandStats *e
        for probe in range(HAND_PROBES):
            e = &self.hands[(h + probe) & mask]
            if e.key == key:
                return e
            if e.key == 0:
                if self.n_hands >= (1 << self.hand_bits) // 2:
                    return NULL  # full: half the slots of the largest table
                self.n_hands += 1
                e.key = key
                return e
        return NULL

    cdef void grow_hands(self) noexcept nogil:
        """Double the hand table (its entries move: call it only between iterations); as it was
        if the memory cannot be had."""
        cdef int bits = self.hand_bits + 1
        cdef HandStats *table = <HandStats *> calloc((<size_t>1 << bits), sizeof(HandStats))
        cdef HandStats *old = self.hands
        cdef HandStats *e
        cdef size_t i, h, mask = ((<size_t>1) << bits) - 1
        if table == NULL:
            return
        for i in range((<size_t>1) << self.hand_bits):
            if old[i].key != 0:
                h = (old[i].key * <uint64_t>0x9E3779B97F4A7C15) >> (64 - bits)
                while table[h & mask].key != 0:
                    h += 1
                table[h & mask] = old[i]
        self.hands = table
        self.hand_bits = bits
        free(old)

    cdef int32_t new_node(self, int move, int order) noexcept nogil:
        """Make a node in the pool (the root, move 0); NO_NODE if the pool is full."""
        if self.n_nodes >= self.max_nodes:
            return NO_NODE
        cdef int32_t i = self.n_nodes
        self.n_nodes += 1
        memset(&self.nodes[i], 0, sizeof(Node))
        self.nodes[i].children = NO_NODE
        self.nodes[i].move = move
        self.nodes[i].order = order
        return i

    cdef uint32_t possible_moves(self, const State *w) noexcept nogil:
        """Every move that some world consistent with the observer's view of the path to `w`
        allows the side to move: its legal moves when that is the observer in the root's round
        (its hand is known), else the take when legal and every kind the observer cannot see
        there (the line, the collections and, in the root's round, its own hand are public to it)."""
        cdef int p = w.to_move, k, i
        cdef int hidden[NKINDS]
        cdef uint32_t moves = legal_mask(w) & (1u << MOVE_TAKE)
        if (p == self.unseen.observer and w.round == self.root.round) or hand_size(w, p) == 0:
            return legal_mask(w)
        for k in range(NKINDS):
            hidden[k] = DN_COMPOSITION[k] - w.coll[0][k] - w.coll[1][k]
            if w.round == self.root.round:
                hidden[k] -= w.hand[self.unseen.observer][k]
        for i in range(w.line_len):
            hidden[w.line[i]] -= 1
        for k in range(NKINDS):
            if hidden[k] > 0:
                moves |= 1u << k
        return moves

    cdef bint expand(self, int32_t node, const State *w) noexcept nogil:
        """Give `node` its block of children (see possible_moves); False if the pool is full."""
        cdef uint32_t moves = self.possible_moves(w)
        cdef int n = DN_POPCOUNT(moves), i
        if n == 0 or self.n_nodes > self.max_nodes - n:
            return False
        self.nodes[node].children = self.n_nodes
        self.nodes[node].child_mask = moves
        memset(&self.nodes[self.n_nodes], 0, n * sizeof(Node))
        for i in range(n):
            self.nodes[self.n_nodes + i].children = NO_NODE
        self.n_nodes += n
        return True

    cdef void iterate(self, Variant *variant, const State *view, const Unseen *unseen, Rng *r,
                      double c_own, double c_opp, int policy, double mw, bint tuned) noexcept nogil:
        cdef State world
        cdef int32_t path[MAX_DEPTH]
        cdef uint8_t players[MAX_DEPTH]    # who made the move of each path node
        cdef uint8_t slots[MAX_DEPTH]      # that move's slot in the per-hand entry
        cdef HandStats *epath[MAX_DEPTH]   # the opponent's per-hand entry of each path node's move
        cdef int depth = 0, i, m, winner, how, p, made
        cdef int32_t node = 0, child, best_child
        cdef uint32_t mask, tried, todo
        cdef double best_score, score, c, mean, result = 0.0
        cdef double base[NMOVES]           # the tried children's scores before the per-hand term
        cdef int32_t children[NMOVES]      # and their nodes, in move order
        cdef int scored, j
        cdef uint64_t code
        cdef bint per_hand
        cdef bint hand_scored  # per_hand with hand_bandit: the children's shared scores are not needed
        cdef bint bandit = self.hand_bandit and self.hand_prior > 0  # nothing without per-hand statistics
        cdef double hand_unit = 1.0 / HAND_UNITS if bandit else 0.5  # a HandStats reward unit, in wins
        cdef uint32_t hand_cap = HAND_BANDIT_CAP if bandit else 0xFFFFFFFFu
        cdef double hand_log = 0           # hand_bandit: log of the entry's visits over all its moves, plus K
        # the plain variant compiles without the options' tests (constants the compiler folds)
        cdef bint model = False if Variant is DefaultSearch else \
            (True if Variant is ModelSearch or Variant is PolySearch else self.use_model)
        cdef bint extra = False if Variant is DefaultSearch else \
            (True if Variant is ModelSearch or Variant is PolySearch else (tuned or mw != 0 or model))
        # the tree ends with this round (or never: 0 would be reached only after round 4)
        cdef int tree_end = self.root.round + self.tree_rounds if self.tree_rounds else LAST_ROUND + 1
        # the descent and the playout stop once the result is settled (the model's playouts too)
        cdef bint stop = model or self.settled_stop
        cdef int best_order, half, playout_round
        cdef double model_value
        cdef Node *n
        cdef Node *ch
        cdef Score scores[2]
        cdef HandStats *e
        cdef double K = self.hand_prior
        # the polynomial bonus (with the model, its own variant): k sqrt(sqrt(avail) / visits), k in cs
        cdef bint poly = Variant is PolySearch
        cdef double cs                     # the constant of the children's shared scores: c, times k with poly
        if K > 0 and self.n_hands + MAX_DEPTH > (1 << self.hand_bits) // 2 and self.hand_bits < self.max_hand_bits:
            self.grow_hands()  # before the descent: no entry of this iteration moves
        sample_world(view, unseen, &world, r)
        path[depth] = 0
        epath[depth] = NULL
        depth += 1
        # selection and expansion, within the tree's rounds; with the round-end model or the
        # settled stop, only down to a settled result (below the root, whose moves are asked
        # for): without them and with no round limit, the tree of 388581d node for node
        while world.status == ONGOING and world.round < tree_end \
                and (not stop or node == 0 or not settled(&world)):
            mask = legal_mask(&world)
            if node == 0 and self.root_only:
                mask &= self.root_only  # a legal move of the observer's in every world
            n = &self.nodes[node]
            c = c_own if world.to_move == unseen.observer else c_opp
            if node == 0:
                c = self.root_exploration
            elif (Variant is ModelSearch or Variant is PolySearch) \
                    and world.round == LAST_ROUND and self.round4_exploration >= 0 \
                    and self.root.round < LAST_ROUND:
                c = self.round4_exploration  # round 4's played-out results below a root of rounds 1-3
            cs = c * self.poly_bonus if poly else c
            tried = 0
            best_child = NO_NODE
            best_score = -1e300
            best_order = -1
            e = NULL
            # (a hand with one legal move has no choice to learn: the same hand at the same node
            # always has that one move, so no entry is made for it)
            code = 0
            per_hand = K > 0 and world.to_move != unseen.observer and n.visits >= HAND_MIN_VISITS \
                and mask & (mask - 1)
            if per_hand:
                # the entry is looked up after the children are scored: ask for its line now
                code = hand_code(&world, world.to_move)
                DN_PREFETCH(&self.hands[self.hand_home(node, code)])
            hand_scored = per_hand and bandit
            scored = 0
            if n.children != NO_NODE:
                if DNOIR_CHECKED and mask & ~n.child_mask:
                    # possible_moves must hold every move of every world that reaches the node
                    fprintf(stderr, b"dnoir checked build: ISMCTS: legal moves %x outside the node's block %x\n",
                            mask, n.child_mask)
                    fflush(stderr)
                    abort()
                todo = mask
                while todo:
                    m = DN_CTZ(todo)
                    todo &= todo - 1
                    child = n.children + slot_of(n.child_mask, m)
                    ch = &self.nodes[child]
                    if ch.avail == 0:
                        continue  # not tried yet
                    tried |= 1u << m
                    ch.avail += 1
                    if not hand_scored:  # (a hand's own bandit scores its children from its entry)
                        base[scored] = shared_score(ch, cs, mw, tuned, extra, model, poly)
                    children[scored] = child
                    scored += 1
            if per_hand:
                e = self.hand_stats(node, code)
                if bandit and e != NULL:
                    # once a node, not a child (the same value each time: the same tree)
                    hand_log = log(fmax(<double>e.total + K, 1.0))
            for j in range(scored):
                ch = &self.nodes[children[j]]
                if hand_scored and e == NULL:  # no entry after all (a full table): the shared score
                    base[j] = shared_score(ch, cs, mw, tuned, extra, model, poly)
                score = base[j]
                if e != NULL:
                    i = hand_slot(&world, ch.move)
                    if bandit or e.visits[i] != 0:
                        mean = ch.margin / ch.visits if model else 0.5 * ch.half_reward / ch.visits
                        if bandit:
                            # each hand its own bandit: the per-hand mean (the shared one as K
                            # visits of prior) and an exploration term from this hand's own
                            # counts, so a move this hand has rarely tried is explored for it even
                            # where the shared statistics have settled (the log at least 0: a new
                            # entry with K < 1 would otherwise make every score NaN, no child chosen)
                            score = (hand_unit * e.reward[i] + K * mean) / (e.visits[i] + K) \
                                + c * sqrt(hand_log / (e.visits[i] + K))
                        else:
                            # the opponent's mean in the worlds where it held this hand, with the
                            # shared mean counted as K visits of prior
                            score += (0.5 * e.reward[i] + K * mean) / (e.visits[i] + K) - mean
                # ties go to the child made last (the order of 388581d's newest-first list)
                if score > best_score or (score == best_score and (ch.order & 15) > best_order):
                    best_score = score
                    best_order = ch.order & 15
                    best_child = children[j]
            if mask & ~tried:
                # expand one untried move, chosen at random
                mask &= ~tried
                m = nth_move(mask, rng_below(r, DN_POPCOUNT(mask)))
                p = world.to_move
                i = hand_slot(&world, m) if e != NULL else 0
                if n.children == NO_NODE:
                    self.expand(node, &world)  # n stays valid: the pool never moves
                if n.children != NO_NODE:
                    child = n.children + slot_of(n.child_mask, m)
                    made = n.order >> 4
                    ch = &self.nodes[child]
                    ch.move = m
                    ch.order = made
                    ch.avail = 1
                    n.order += 16
                    if depth < MAX_DEPTH:
                        path[depth] = child
                        players[depth] = p
                        slots[depth] = i
                        epath[depth] = e
                        depth += 1
                apply_move(&world, m)
                break
            p = world.to_move
            m = self.nodes[best_child].move
            i = hand_slot(&world, m) if e != NULL else 0
            if self.nodes[best_child].children != NO_NODE:
                # start loading the next block of children while the move is made
                prefetch_block(&self.nodes[self.nodes[best_child].children])
            apply_move(&world, m)
            node = best_child
            if depth < MAX_DEPTH:
                path[depth] = node
                players[depth] = p
                slots[depth] = i
                epath[depth] = e
                depth += 1
        # playout: to the end; with the round-end model, until the round it starts in has ended;
        # with the model or the settled stop, until the result is settled (the plays left would
        # change nothing: game_outcome scores the collections as they stand)
        model_value = -1.0
        playout_round = world.round
        if model and world.round >= tree_end and world.status == ONGOING:
            # the tree ended with a round (tree_rounds): the model scores that round's end at
            # once, so every iteration that reaches it backs up the same public judgement
            model_value = round_end_score(&world, &self.model[(world.round - 2) * MODEL_FEATURES], self.third_city)
        while model_value < 0 and not (stop and settled(&world)):
            m = policy_move(&world, r, policy)
            if m < 0:
                break
            apply_move(&world, m)
            if model and world.round != playout_round and world.status == ONGOING:
                model_value = round_end_score(&world, &self.model[(playout_round - 1) * MODEL_FEATURES], self.third_city)
                break
        if model_value >= 0:
            # the per-hand counts take a result of 0, 1/2 or 1 drawn with the model's mean, or
            # with hand_bandit its exact value (and no draw: the random stream differs)
            half = 1 if bandit else model_half_points(model_value, r)
            winner = 0 if half == 2 else (1 if half == 0 else DRAW)
            scores[0].total = 0  # no margin: the game was not played out
            scores[1].total = 0
        else:
            winner = game_outcome(&world, scores, &how)
        # backpropagation (the root, path[0], counts iterations only)
        self.nodes[0].visits += 1
        for i in range(1, depth):
            ch = &self.nodes[path[i]]
            p = players[i]
            ch.visits += 1
            half = 1 if winner == DRAW else (2 if winner == p else 0)
            if not model:
                ch.half_reward += half
                ch.draws += winner == DRAW
                ch.margin += scores[p].total - scores[1 - p].total
            else:
                # the model's exact probability (the per-hand counts take `half`, or with
                # hand_bandit this result too), or the
                # result of a game that ended before its round did (a city, or the last round)
                result = (model_value if p == 0 else 1.0 - model_value) if model_value >= 0 else 0.5 * half
                ch.margin += result
                add_square(ch, result)
            e = epath[i]
            if e != NULL and e.visits[slots[i]] < hand_cap:
                e.visits[slots[i]] += 1
                e.total += 1
                if bandit:  # the exact result (the one the model branch above summed)
                    e.reward[slots[i]] += <uint32_t>((result if model else 0.5 * half) * HAND_UNITS + 0.5)
                else:
                    e.reward[slots[i]] += half

    def start(self, CoreState view not None, int observer, seed=0, double exploration=0.7,
              str policy="random", double margin_weight=0.0, bint tuned=False,
              opponent_exploration=None, double opponent_hands=0.0, round_model=None,
              root_exploration=None, int tree_rounds=0, bint settled_stop=False,
              bint hand_bandit=False, round4_exploration=None, bint third_city=False,
              double poly_bonus=0.0):
        """Begin a new tree for `view` (the CoreState of the observer's view, observer to move).

        `round_model` (MODEL_SHAPE weights: solver.solvers.roundmodel.weights()), when given, ends
        each playout with the round it starts in and backs up the model's probability of a win
        from there instead of playing on (exactly, in the sums the selection reads; the per-hand
        counts take a result of 0, 1/2 or 1 drawn with that mean, unless `hand_bandit`).

        `root_exploration` (None: `exploration`) is the constant at the root, whose visits
        choose the advice: a larger one spreads them for the choice at the root (simple regret)
        while the nodes below keep theirs. `round4_exploration` (None: the usual constants) is
        the constant at the round-4 decisions of a tree whose root is in rounds 1-3, both
        players': with the round-end model, those are the only nodes whose results are all played
        out (0, 1/2 or 1) rather than the model's probabilities, and a constant tuned for the
        one over- or under-explores the other.

        `tree_rounds` (0 to 4; 0: no limit) is how many rounds the tree spans, the root's
        first: with 1, an iteration leaves the tree when the root's round ends and plays the
        rest out (the later rounds' nodes would mix the hands that the worlds deal there, and
        cost more an action than a playout does); with the round-end model, the model scores
        the state where the tree ends at once (a depth-limited search with the model as its
        evaluation). `settled_stop` ends the descent and the
        playout once the result is settled (round 4, both players have taken: no card changes
        owner again), scoring the collections as they stand: the same results, fewer moves.

        `third_city` (with `round_model`; nothing otherwise) scores a round end whose next first
        player holds two cities, with a city within reach of a take, as that player's win (its
        first move takes the third city: the game ends there), where the model, which reads no
        city in the line, puts it near 1/2.

        `hand_bandit` (with opponent_hands > 0; nothing otherwise) makes each of the opponent's
        hands at a node its own bandit: its moves are chosen by their per-hand means (the
        shared mean as opponent_hands visits of prior) plus an exploration term from that hand's
        own counts, and the per-hand sums hold the model's exact values (to 1/2048 of a win)
        instead of a result drawn with them. That score replaces the shared one at such a node,
        the margin term and UCB1-Tuned included.

        `poly_bonus` k > 0 (with `round_model`; nothing otherwise) replaces UCB1's bonus
        c * sqrt(ln(avail) / visits) by the polynomial c * k * avail**(1/4) / sqrt(visits) (Shah, Xie
        and Xu 2020: a bonus polynomial in the parent's count where the values below a node
        drift as its subtree learns). The two agree where avail = n for k = sqrt(ln n) / n**(1/4):
        k = 0.467 at n = 1,000, below which the polynomial explores less, above more. The
        per-hand bandit's own term stays UCB1's.

        ValueError, before anything is stored, for a finished game, an observer not to move, an
        exploration constant outside 0..MAX_EXPLORATION (a negative or NaN one would leave
        the selection without a child), or model weights of another shape or not finite.
        """
        if not (0 <= exploration <= MAX_EXPLORATION):  # False for NaN too
            raise ValueError(f"exploration: {exploration!r} is out of range (0 to {MAX_EXPLORATION:g})")
        if opponent_exploration is None:
            opponent_exploration = exploration
        if not (0 <= opponent_exploration <= MAX_EXPLORATION):  # False for NaN too
            raise ValueError(f"opponent_exploration: {opponent_exploration!r} is out of range "
                             f"(0 to {MAX_EXPLORATION:g})")
        if not (0 <= margin_weight <= 1):
            raise ValueError(f"margin_weight: {margin_weight!r} is out of range (0 to 1)")
        if root_exploration is None:
            root_exploration = exploration
        if not (0 <= root_exploration <= MAX_EXPLORATION):  # False for NaN too
            raise ValueError(f"root_exploration: {root_exploration!r} is out of range (0 to {MAX_EXPLORATION:g})")
        if round4_exploration is not None and not (0 <= round4_exploration <= MAX_EXPLORATION):
            raise ValueError(f"round4_exploration: {round4_exploration!r} is out of range "
                             f"(0 to {MAX_EXPLORATION:g})")
        if not (0 <= poly_bonus <= MAX_POLY_BONUS):  # False for NaN too
            raise ValueError(f"poly_bonus: {poly_bonus!r} is out of range (0 to {MAX_POLY_BONUS:g})")
        if not (0 <= tree_rounds <= LAST_ROUND):
            raise ValueError(f"tree_rounds: {tree_rounds!r} is out of range (0 to {LAST_ROUND})")
        if not (0 <= opponent_hands <= MAX_HAND_PRIOR):
            raise ValueError(f"opponent_hands: {opponent_hands!r} is out of range (0 to {MAX_HAND_PRIOR:g})")
        if round_model is not None:
            if margin_weight != 0 or tuned:
                raise ValueError("round_model: the margin term and UCB1-Tuned need played-out games")
            rows = [list(row) for row in round_model]
            if len(rows) != MODEL_ROUNDS or any(len(row) != MODEL_FEATURES for row in rows):
                raise ValueError(f"round_model: {MODEL_ROUNDS} rows of {MODEL_FEATURES} weights expected")
            flat = [float(x) for row in rows for x in row]
            if not all(math.isfinite(x) for x in flat):
                raise ValueError("round_model: every weight must be a finite number")
        if view.s.status != ONGOING:
            raise ValueError("the game is over")
        if view.s.to_move != observer:
            raise ValueError("the observer must be the side to move")
        if unseen_cards(&view.s, observer, &self.unseen) != 0:
            raise ValueError("the position's unseen cards do not add up")
        self.root = view.s
        rng_seed(&self.rng, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
        self.exploration = exploration
        self.opponent_exploration = opponent_exploration
        self.root_exploration = root_exploration
        self.round4_exploration = -1.0 if round4_exploration is None else round4_exploration
        self.poly_bonus = poly_bonus
        self.tree_rounds = tree_rounds
        self.settled_stop = settled_stop
        self.third_city = third_city
        # the selection adds margin_weight / MARGIN_SCALE points of reward per point of final margin
        self.margin_weight = margin_weight / MARGIN_SCALE
        self.tuned = tuned
        self.policy = policy_code(policy)
        if opponent_hands > 0:
            self.start_hands()
        self.hand_prior = opponent_hands
        self.hand_bandit = hand_bandit
        self.use_model = round_model is not None
        if self.use_model:
            for i in range(MODEL_ROUNDS * MODEL_FEATURES):
                self.model[i] = flat[i]
        self.n_nodes = 0
        self.new_node(0, 0)
        self.iterations = 0
        self.root_only = 0
        self.started = True

    cdef start_hands(self):
        """An empty per-hand table of 2**HAND_MIN_BITS slots: it grows with the tree (to at most
        max_nodes / 4 slots), so that a short search touches little memory."""
        if self.hands == NULL or self.hand_bits != HAND_MIN_BITS:
            free(self.hands)
            self.hands = <HandStats *> malloc((<size_t>1 << HAND_MIN_BITS) * sizeof(HandStats))
            if self.hands == NULL:
                raise MemoryError(f"cannot allocate {1 << HAND_MIN_BITS} hand entries")
        self.hand_bits = HAND_MIN_BITS
        memset(self.hands, 0, (<size_t>1 << HAND_MIN_BITS) * sizeof(HandStats))
        self.n_hands = 0

    @property
    def hand_entries(self):
        """Per-hand entries of the opponent made in this tree (0 unless opponent_hands > 0)."""
        return self.n_hands if self.hand_prior > 0 else 0

    cdef int32_t child_of(self, int32_t node, int move) noexcept nogil:
        """The child of `node` made by `move`, or NO_NODE if that move was never tried there."""
        cdef Node *n = &self.nodes[node]
        cdef int32_t child
        if n.children == NO_NODE or not (n.child_mask >> move) & 1:
            return NO_NODE
        child = n.children + slot_of(n.child_mask, move)
        return child if self.nodes[child].avail > 0 else NO_NODE

    def follow(self, CoreState view not None, int own_move, int their_move, seed=0):
        """Keep the subtree below the root's `own_move` then the opponent's `their_move` as the
        tree of `view`, the observer's view after those two moves (the caller checks that it
        is: solver.solvers.search.IsmctsSearch.follow), and go on searching it with `seed`.

        Every node and per-hand entry below that node is kept, moved to the front of a new pool;
        the rest is dropped. Returns the visits kept (the new root's), or 0 when that node was
        never reached, has no children, or the view is not the observer's to move: the tree is
        then as it was and the caller starts a new one.
        """
        cdef int32_t keep, i, j, n, block, kept_nodes = 0
        cdef int32_t *where = NULL
        cdef Node *fresh = NULL
        cdef HandStats *table = NULL
        cdef HandStats *old_table
        cdef uint64_t node, h, mask
        cdef size_t s
        cdef Unseen unseen
        if not self.started or view.s.status != ONGOING or view.s.to_move != self.unseen.observer:
            return 0
        if not (0 <= own_move < NMOVES and 0 <= their_move < NMOVES):
            return 0
        keep = self.child_of(0, own_move)
        keep = self.child_of(keep, their_move) if keep != NO_NODE else NO_NODE
        if keep == NO_NODE or self.nodes[keep].children == NO_NODE:
            return 0
        if unseen_cards(&view.s, self.unseen.observer, &unseen) != 0:
            return 0
        fresh = <Node *> pool_alloc(<size_t>self.max_nodes * sizeof(Node))
        where = <int32_t *> malloc(<size_t>self.n_nodes * sizeof(int32_t))
        if self.hand_prior > 0:
            table = <HandStats *> calloc((<size_t>1) << self.hand_bits, sizeof(HandStats))
        if fresh == NULL or where == NULL or (self.hand_prior > 0 and table == NULL):
            free(fresh)
            free(where)
            free(table)
            return 0
        with nogil:
            for i in range(self.n_nodes):
                where[i] = NO_NODE
            # Copy block by block, breadth first: every node copied before position i has had
            # its block copied, and a node's `children` is the old index until then.
            fresh[0] = self.nodes[keep]
            where[keep] = 0
            kept_nodes = 1
            i = 0
            while i < kept_nodes:
                block = fresh[i].children
                if block != NO_NODE:
                    n = DN_POPCOUNT(fresh[i].child_mask)
                    memcpy(&fresh[kept_nodes], &self.nodes[block], n * sizeof(Node))
                    for j in range(n):
                        where[block + j] = kept_nodes + j
                    fresh[i].children = kept_nodes
                    kept_nodes += n
                i += 1
            # the per-hand entries of the kept nodes, under their new numbers
            if table != NULL:
                mask = ((<uint64_t>1) << self.hand_bits) - 1
                old_table = self.hands
                self.n_hands = 0
                for s in range((<size_t>1) << self.hand_bits):
                    if old_table[s].key == 0:
                        continue
                    node = old_table[s].key >> 36
                    if where[node] == NO_NODE:
                        continue
                    old_table[s].key = ((<uint64_t>where[node]) << 36) | (old_table[s].key & ((<uint64_t>1 << 36) - 1))
                    h = (old_table[s].key * <uint64_t>0x9E3779B97F4A7C15) >> (64 - self.hand_bits)
                    while table[h & mask].key != 0:
                        h += 1
                    table[h & mask] = old_table[s]
                    self.n_hands += 1
        free(where)
        free(self.nodes)
        self.nodes = fresh
        self.n_nodes = kept_nodes
        if table != NULL:
            free(self.hands)
            self.hands = table
        self.root = view.s
        self.unseen = unseen
        rng_seed(&self.rng, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
        self.iterations = 0
        self.root_only = 0
        return self.nodes[0].visits

    def restrict_root(self, move=None):
        """From now on, iterations take only `move` at the root (a move number legal there), or
        every move again with None: pondering, the search going on below the answer given while
        the opponent thinks (`follow` then keeps what went below its actual reply). `start` and
        `follow` lift the restriction. ValueError for a move that is not legal at the root."""
        if not self.started:
            raise ValueError("call start() first")
        if move is None:
            self.root_only = 0
            return
        if isinstance(move, bool) or not isinstance(move, int) or not 0 <= move < NMOVES \
                or not (legal_mask(&self.root) >> move) & 1:
            raise ValueError(f"restrict_root: {move!r} is not a legal move at the root")
        self.root_only = 1u << move

    def search(self, iterations=0, seconds=0):
        """Grow the tree by `iterations` (if > 0) or for `seconds` (if > 0), whichever ends first.

        `iterations` is 0 to MAX_ITERATIONS and `seconds` 0 to MAX_SECONDS (ValueError
        otherwise, NaN included). Returns the number of iterations made by this call: fewer
        than asked once the tree is `saturated` (its root has VISITS_LIMIT visits), 0 after.
        """
        cdef long budget = _budget("iterations", iterations, MAX_ITERATIONS)
        cdef double limit = _budget("seconds", seconds, MAX_SECONDS)
        cdef long done = 0
        cdef double deadline
        cdef bint options = self.tuned or self.margin_weight != 0
        cdef bint poly = self.use_model and self.poly_bonus > 0  # the model with the polynomial bonus
        if not self.started:
            raise ValueError("call start() first")
        if budget <= 0 and limit <= 0:
            raise ValueError("give a number of iterations or a time")
        with nogil:
            deadline = now_seconds() + limit
            while self.nodes[0].visits < self.visits_limit:
                if poly:
                    self.iterate(<PolySearch *>NULL, &self.root, &self.unseen, &self.rng, self.exploration,
                                 self.opponent_exploration, self.policy, 0.0, False)
                elif self.use_model:
                    self.iterate(<ModelSearch *>NULL, &self.root, &self.unseen, &self.rng, self.exploration,
                                 self.opponent_exploration, self.policy, 0.0, False)
                elif options:
                    self.iterate(<OptionsSearch *>NULL, &self.root, &self.unseen, &self.rng, self.exploration,
                                 self.opponent_exploration, self.policy, self.margin_weight, self.tuned)
                else:
                    self.iterate(<DefaultSearch *>NULL, &self.root, &self.unseen, &self.rng, self.exploration,
                                 self.opponent_exploration, self.policy, self.margin_weight, self.tuned)
                done += 1
                if budget > 0 and done >= budget:
                    break
                if limit > 0 and done % CLOCK_EVERY == 0 and now_seconds() >= deadline:
                    break
        self.iterations += done
        return done

    @property
    def saturated(self):
        """True once the root has VISITS_LIMIT visits: the tree takes no more iterations."""
        return self.started and self.nodes[0].visits >= self.visits_limit

    def root_stats(self):
        """{move: RootStats} of the root's children, for the observer."""
        return self.node_stats(())

    def node_stats(self, moves):
        """{move: RootStats} of the children of the node that `moves` (move numbers, from the
        root) lead to, each for the player who makes it; {} if the tree has no such node. With the
        round-end model, `reward` is the exact sum of the results (the model's probabilities)
        and `margin` and `draws` are 0: no game was played out."""
        cdef int32_t node = 0 if self.started else NO_NODE
        cdef Node *n
        cdef uint32_t todo
        cdef int i = 0
        for move in moves:
            if node == NO_NODE or not (isinstance(move, int) and 0 <= move < NMOVES):
                return {}
            node = self.child_of(node, move)
        if node == NO_NODE or self.nodes[node].children == NO_NODE:
            return {}
        todo = self.nodes[node].child_mask
        stats = {}
        while todo:
            n = &self.nodes[self.nodes[node].children + i]
            if n.avail > 0:
                stats[n.move] = RootStats(n.visits, n.margin, 0.0, 0, node_squares(n)) if self.use_model \
                    else RootStats(n.visits, 0.5 * n.half_reward, n.margin, n.draws)
            todo &= todo - 1
            i += 1
        return stats

    @property
    def nodes_used(self):
        """Nodes in the tree (at most max_nodes)."""
        return self.n_nodes

    @property
    def nodes_free(self):
        """Nodes of the pool not yet used: once 0, the tree stops growing."""
        return self.max_nodes - self.n_nodes


def sample_counts(CoreState view not None, int observer, samples, seed=0):
    """Sum, over `samples` sampled worlds, of the cards per kind dealt to the opponent's
    hand, the deck and the removed cards: ([11 counts], [11 counts], [11 counts]).

    For testing the sampler: each unseen card must land in each place in proportion
    to the place's size.
    """
    cdef State root, world
    cdef Unseen unseen
    cdef Rng r
    cdef long i, n_samples
    cdef int k, j, opp = 1 - observer
    cdef long hand[NKINDS]
    cdef long deck[NKINDS]
    cdef long removed[NKINDS]
    root = view.s
    if observer not in (0, 1):
        raise ValueError(f"observer must be 0 or 1, not {observer}")
    if isinstance(samples, bool) or not 0 <= samples <= MAX_ITERATIONS:
        raise ValueError(f"samples: {samples!r} is out of range (0 to {MAX_ITERATIONS})")
    n_samples = samples
    if unseen_cards(&root, observer, &unseen) != 0:
        raise ValueError("the position's unseen cards do not add up")
    rng_seed(&r, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
    for k in range(NKINDS):
        hand[k] = deck[k] = removed[k] = 0
    with nogil:
        for i in range(n_samples):
            sample_world(&root, &unseen, &world, &r)
            for k in range(NKINDS):
                hand[k] += world.hand[opp][k]
            for j in range(world.deck_len):
                deck[world.deck[j]] += 1
            for j in range(3):
                removed[world.removed[j]] += 1
    return ([hand[k] for k in range(NKINDS)], [deck[k] for k in range(NKINDS)],
            [removed[k] for k in range(NKINDS)])


def round_end_win_probability(CoreState state not None, round_model, bint third_city=False):
    """What the search's round_end_score gives `state` (just after round 1, 2 or 3 ended) with the
    weights `round_model` (MODEL_SHAPE) and `third_city`: for tests against solver.solvers.roundmodel."""
    cdef double w[MODEL_FEATURES]
    if not 2 <= state.s.round <= MODEL_ROUNDS + 1:
        raise ValueError("a state of round 2, 3 or 4 is needed")
    row = [float(x) for x in list(round_model)[state.s.round - 2]]
    if len(row) != MODEL_FEATURES:
        raise ValueError(f"{MODEL_FEATURES} weights a row expected")
    for i in range(MODEL_FEATURES):
        w[i] = row[i]
    return round_end_score(&state.s, w, third_city)


def model_results(double value, long n, seed=0):
    """The sum of `n` results in half points that the search backs up for a round-end model's
    probability `value` (0 to 1), for tests: its mean must be 2 * value."""
    cdef Rng r
    cdef long i, total = 0
    if not 0 <= value <= 1:
        raise ValueError(f"value: {value!r} is out of range (0 to 1)")
    rng_seed(&r, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
    for i in range(n):
        total += model_half_points(value, &r)
    return total
