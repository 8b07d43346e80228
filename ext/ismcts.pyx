# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012), compiled as solver.solvers._ismcts.

One tree per `Searcher`, over the moves seen from the observer's side: every iteration
samples a world consistent with the observer's view (world.pxd), descends the tree
choosing among the children whose move is legal in that world by UCB1 with availability
counts (its constant may differ at the opponent's decisions; a margin term and UCB1-Tuned
are options, solver.solvers.searchconfig says which are on), adds one child, finishes the game with a playout (policy.pxd), and backs the result
up (win 1, draw 1/2, loss 0, plus the final margin) to every node of the path, each for
the player who made its move.

With `opponent_hands` K > 0 (solver.searchconfig's default; 0 here, in `start`), the
opponent's moves at a node with HAND_MIN_VISITS visits are also counted per hand the
opponent holds in the sampled world (a bounded hash table of HandStats, max_nodes / 8
entries): its selection then uses, for each move, the mean over the worlds that gave it
that hand, with the shared mean counted as K visits of prior, so that it chooses as a player
who knows its own hand. The exploration term stays the shared one.

Nodes live in a preallocated pool; when it is full the tree stops growing and iterations
go on with playouts from the deepest node reached, so memory never exceeds the pool.
Visit, availability and draw counts are 32 bits: no node's count exceeds the root's, and a tree
stops (`search` returns early, `saturated` is True) once its root has VISITS_LIMIT visits,
2**32 - 2**20, so no counter can wrap (about an hour of one thread; a longer search runs
more trees, one a thread, or starts a new one).
Everything in `run` holds no Python object and runs without the GIL, so several
Searchers on several threads give root parallelism.
"""

from libc.stdint cimport uint8_t, uint32_t, int32_t, uint64_t
from collections import namedtuple

from libc.stdlib cimport malloc, free
from libc.string cimport memset
from libc.math cimport sqrt, log
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC
from rng cimport Rng, rng_seed, rng_below
from state cimport (
    State, Score, NKINDS, NMOVES, ONGOING, DRAW, DN_POPCOUNT, legal_mask, apply_move, game_outcome, nth_move,
)
from world cimport Unseen, unseen_cards, sample_world
from policy cimport policy_move, policy_code
from solver.rules._core cimport CoreState
from solver.base.bounds import MAX_EXPLORATION, MAX_ITERATIONS, MAX_NODES, MAX_SECONDS

ctypedef struct Node:
    int32_t first_child
    int32_t next_sibling
    uint32_t visits
    uint32_t avail
    double reward       # summed rewards for `player`
    double margin       # summed final margins for `player`
    uint32_t draws      # drawn results among the visits: with `reward`, gives wins and the variance
    uint8_t move
    uint8_t player      # who made `move`

# The opponent's statistics for one (decision node, the opponent's hand in the sampled world):
# what each of its moves brought it in the worlds where it held exactly that hand
# (the `opponent_hands` option; see Searcher.hand_stats).
ctypedef struct HandStats:
    uint64_t key            # (node << 36) | hand code (3 bits a kind); 0 is never a key
    uint32_t visits[NMOVES]
    double reward[NMOVES]

cdef enum:
    NO_NODE = -1
    MAX_DEPTH = 64
    CLOCK_EVERY = 64
    HAND_MIN_VISITS = 16    # a node's per-hand statistics start once it has this many visits
    HAND_PROBES = 32        # linear probes of the hand table before giving up (a full table)


POLICY_NAMES = ("random", "greedy", "taker")  # the names policy_code accepts
# Margins enter the selection scaled by this: a margin of MARGIN_SCALE points counts as much as a win.
MARGIN_SCALE = 40.0
# The most memory one node of the pool can take: the node itself and its share of the per-hand
# table (max_nodes / 8 HandStats at most, allocated when opponent_hands is on). Every memory
# figure (--max-nodes, the engine's Hash, `memory_bound_mb`) counts nodes at this size.
NODE_BYTES = sizeof(Node) + (sizeof(HandStats) + 7) // 8
# The largest opponent_hands (the shared mean's weight, in visits, against one hand's own results).
MAX_HAND_PRIOR = 1000.0


class RootStats(namedtuple("RootStats", "visits reward margin draws")):
    """One root move's summed statistics, for the observer (Stockfish's RootMove in spirit):
    `visits`, `reward` (results 1, 1/2 or 0 summed), `margin` (final margins summed) and
    `draws`. Results are 1, 1/2 or 0, so the draws and the reward give the wins
    (reward - draws / 2). Records of several trees of one root add up (`+`, field by field)."""

    __slots__ = ()

    def __add__(self, other):
        return RootStats(*(a + b for a, b in zip(self, other)))

    @property
    def wins(self):
        """The won results among the visits."""
        return self.reward - self.draws / 2


NO_VISITS = RootStats(0, 0.0, 0.0, 0)
# A tree stops growing its counts here: the root counts every iteration and no node more.
VISITS_LIMIT = 2**32 - 2**20


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


cdef inline double extra_score(const Node *ch, double c, double mw, bint tuned) noexcept nogil:
    """The selection score with the margin term and/or UCB1-Tuned's exploration."""
    cdef double mean = ch.reward / ch.visits
    cdef double explore = log(<double>ch.avail) / ch.visits
    cdef double spread
    if tuned:
        # UCB1-Tuned (Auer et al. 2002), scaled so that a child whose results spread as a
        # fair coin's (variance 1/4) explores as UCB1 with c
        spread = (ch.reward - 0.25 * ch.draws) / ch.visits - mean * mean + sqrt(2 * explore)
        if spread < 0.25:
            explore *= 4 * spread
    return mean + mw * ch.margin / ch.visits + c * sqrt(explore)


cdef inline uint64_t hand_code(const State *s, int p) noexcept nogil:
    """Player p's hand as a number: its count of each kind (at most 5) in 3 bits."""
    cdef uint64_t code = 0
    cdef int k
    for k in range(NKINDS):
        code |= (<uint64_t>s.hand[p][k]) << (3 * k)
    return code


cdef class Searcher:
    """One ISMCTS tree with a bounded node pool.

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
    cdef double margin_weight
    cdef bint tuned         # UCB1-Tuned: the exploration term scaled by each child's spread of results
    cdef int policy
    cdef bint started
    cdef uint32_t visits_limit
    cdef double hand_prior          # opponent_hands: 0 off, else the shared mean's weight in visits
    cdef HandStats *hands           # a pool of per-hand entries, in the order they were made
    cdef int32_t *hand_index        # open-addressing hash table of entry numbers (-1: empty)
    cdef int32_t n_hands
    cdef int32_t max_hands
    cdef int hand_bits              # the table has 2**hand_bits slots

    def __cinit__(self, max_nodes=2_000_000, visits_limit=VISITS_LIMIT):
        """`max_nodes` (1 to MAX_NODES) sizes the pool; `visits_limit` (1 to VISITS_LIMIT, for
        tests) is the root visit count at which the tree stops."""
        if isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or not 1 <= max_nodes <= MAX_NODES:
            raise ValueError(f"max_nodes: {max_nodes!r} is out of range (1 to {MAX_NODES})")
        if isinstance(visits_limit, bool) or not isinstance(visits_limit, int) \
                or not 1 <= visits_limit <= VISITS_LIMIT:
            raise ValueError(f"visits_limit: {visits_limit!r} is out of range (1 to {VISITS_LIMIT})")
        self.visits_limit = visits_limit
        self.nodes = <Node *> malloc(<size_t>max_nodes * sizeof(Node))
        if self.nodes == NULL:
            raise MemoryError(f"cannot allocate {max_nodes} nodes")
        self.max_nodes = max_nodes
        self.n_nodes = 0
        self.started = False
        self.hands = NULL
        self.hand_index = NULL
        self.hand_prior = 0

    def __dealloc__(self):
        free(self.nodes)
        free(self.hands)
        free(self.hand_index)

    cdef HandStats *hand_stats(self, int32_t node, uint64_t code) noexcept nogil:
        """The entry of (node, hand code), made (zeroed) if new; NULL when the table is full."""
        cdef uint64_t key = ((<uint64_t>node) << 36) | code
        cdef uint64_t h = (key * <uint64_t>0x9E3779B97F4A7C15) >> (64 - self.hand_bits)
        cdef uint64_t mask = ((<uint64_t>1) << self.hand_bits) - 1
        cdef int probe
        cdef int32_t idx
        cdef HandStats *e
        for probe in range(HAND_PROBES):
            idx = self.hand_index[(h + probe) & mask]
            if idx < 0:
                if self.n_hands >= self.max_hands:
                    return NULL
                idx = self.n_hands
                self.n_hands += 1
                self.hand_index[(h + probe) & mask] = idx
                e = &self.hands[idx]
                memset(e, 0, sizeof(HandStats))
                e.key = key
                return e
            if self.hands[idx].key == key:
                return &self.hands[idx]
        return NULL

    cdef int32_t new_node(self, int move, int player) noexcept nogil:
        if self.n_nodes >= self.max_nodes:
            return NO_NODE
        cdef int32_t i = self.n_nodes
        self.n_nodes += 1
        self.nodes[i].first_child = NO_NODE
        self.nodes[i].next_sibling = NO_NODE
        self.nodes[i].visits = 0
        self.nodes[i].avail = 0
        self.nodes[i].draws = 0
        self.nodes[i].reward = 0
        self.nodes[i].margin = 0
        self.nodes[i].move = move
        self.nodes[i].player = player
        return i

    cdef void iterate(self, const State *view, const Unseen *unseen, Rng *r, double c_own,
                      double c_opp, int policy, double mw, bint tuned) noexcept nogil:
        cdef State world
        cdef int32_t path[MAX_DEPTH]
        cdef int depth = 0, i, m, winner, how, p
        cdef int32_t node = 0, child, best_child
        cdef uint32_t mask, tried
        cdef double best_score, score, reward, c
        cdef bint extra = tuned or mw != 0
        cdef Node *ch
        cdef Score scores[2]
        cdef HandStats *e
        cdef HandStats *epath[MAX_DEPTH]   # the opponent's per-hand entry of each path node's move
        cdef double K = self.hand_prior, mean
        sample_world(view, unseen, &world, r)
        path[depth] = 0
        epath[depth] = NULL
        depth += 1
        # selection and expansion
        while world.status == ONGOING:
            mask = legal_mask(&world)
            c = c_own if world.to_move == unseen.observer else c_opp
            tried = 0
            best_child = NO_NODE
            best_score = -1.0
            e = NULL
            if K > 0 and world.to_move != unseen.observer and self.nodes[node].visits >= HAND_MIN_VISITS:
                e = self.hand_stats(node, hand_code(&world, world.to_move))
            child = self.nodes[node].first_child
            while child != NO_NODE:
                ch = &self.nodes[child]
                if (mask >> ch.move) & 1:
                    tried |= 1u << ch.move
                    ch.avail += 1
                    score = ch.reward / ch.visits + c * sqrt(log(<double>ch.avail) / ch.visits)
                    if extra:  # off by default: the default path stays 388581d's formula and cost
                        score = extra_score(ch, c, mw, tuned)
                    if e != NULL and e.visits[ch.move] != 0:
                        # the opponent's mean in the worlds where it held this hand, with the
                        # shared mean counted as K visits of prior
                        mean = ch.reward / ch.visits
                        score += (e.reward[ch.move] + K * mean) / (e.visits[ch.move] + K) - mean
                    if score > best_score:
                        best_score = score
                        best_child = child
                child = ch.next_sibling
            if mask & ~tried:
                # expand one untried move, chosen at random
                mask &= ~tried
                m = nth_move(mask, rng_below(r, DN_POPCOUNT(mask)))
                child = self.new_node(m, world.to_move)
                apply_move(&world, m)
                if child != NO_NODE:
                    self.nodes[child].next_sibling = self.nodes[node].first_child
                    self.nodes[node].first_child = child
                    self.nodes[child].avail = 1
                    if depth < MAX_DEPTH:
                        path[depth] = child
                        epath[depth] = e
                        depth += 1
                break
            apply_move(&world, self.nodes[best_child].move)
            node = best_child
            if depth < MAX_DEPTH:
                path[depth] = node
                epath[depth] = e
                depth += 1
        # playout
        m = policy_move(&world, r, policy)
        while m >= 0:
            apply_move(&world, m)
            m = policy_move(&world, r, policy)
        winner = game_outcome(&world, scores, &how)
        # backpropagation (the root, path[0], counts iterations only)
        self.nodes[0].visits += 1
        for i in range(1, depth):
            ch = &self.nodes[path[i]]
            p = ch.player
            ch.visits += 1
            if winner == DRAW:
                ch.reward += 0.5
                ch.draws += 1
            elif winner == p:
                ch.reward += 1.0
            ch.margin += scores[p].total - scores[1 - p].total
            e = epath[i]
            if e != NULL:
                e.visits[ch.move] += 1
                if winner == DRAW:
                    e.reward[ch.move] += 0.5
                elif winner == p:
                    e.reward[ch.move] += 1.0

    def start(self, CoreState view not None, int observer, seed=0, double exploration=0.7,
              str policy="random", double margin_weight=0.0, bint tuned=False,
              opponent_exploration=None, double opponent_hands=0.0):
        """Begin a new tree for `view` (the CoreState of the observer's view, observer to move).

        ValueError, before anything is stored, for a finished game, an observer not to move, or an
        exploration constant outside 0..MAX_EXPLORATION (a negative or NaN one would leave
        the selection without a child).
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
        if not (0 <= opponent_hands <= MAX_HAND_PRIOR):
            raise ValueError(f"opponent_hands: {opponent_hands!r} is out of range (0 to {MAX_HAND_PRIOR:g})")
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
        # the selection adds margin_weight / MARGIN_SCALE points of reward per point of final margin
        self.margin_weight = margin_weight / MARGIN_SCALE
        self.tuned = tuned
        self.policy = policy_code(policy)
        if opponent_hands > 0:
            self.start_hands()
        self.hand_prior = opponent_hands
        self.n_nodes = 0
        self.new_node(0, 1 - observer)
        self.iterations = 0
        self.started = True

    cdef start_hands(self):
        """An empty per-hand table (allocated at the first use: max_nodes / 8 entries)."""
        cdef int bits = 4
        if self.hands == NULL:
            self.max_hands = self.max_nodes // 8 if self.max_nodes >= 8 * 1024 else 1024
            while (1 << bits) < 2 * self.max_hands:
                bits += 1
            self.hand_bits = bits
            self.hands = <HandStats *> malloc(<size_t>self.max_hands * sizeof(HandStats))
            self.hand_index = <int32_t *> malloc((<size_t>1 << bits) * sizeof(int32_t))
            if self.hands == NULL or self.hand_index == NULL:
                free(self.hands)
                free(self.hand_index)
                self.hands = NULL
                self.hand_index = NULL
                raise MemoryError(f"cannot allocate {self.max_hands} hand entries")
        memset(self.hand_index, 0xFF, (<size_t>1 << self.hand_bits) * sizeof(int32_t))
        self.n_hands = 0

    @property
    def hand_entries(self):
        """Per-hand entries of the opponent made in this tree (0 unless opponent_hands > 0)."""
        return self.n_hands if self.hand_prior > 0 else 0

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
        if not self.started:
            raise ValueError("call start() first")
        if budget <= 0 and limit <= 0:
            raise ValueError("give a number of iterations or a time")
        with nogil:
            deadline = now_seconds() + limit
            while self.nodes[0].visits < self.visits_limit:
                self.iterate(&self.root, &self.unseen, &self.rng, self.exploration,
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
        cdef Node *n
        cdef int32_t child = self.nodes[0].first_child if self.started else NO_NODE
        moves = {}
        while child != NO_NODE:
            n = &self.nodes[child]
            moves[n.move] = RootStats(n.visits, n.reward, n.margin, n.draws)
            child = n.next_sibling
        return moves

    @property
    def nodes_used(self):
        """Nodes in the tree (at most max_nodes)."""
        return self.n_nodes


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
