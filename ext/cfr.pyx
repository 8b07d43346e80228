# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The hidden-information round-4 game solved by vector-form CFR+ over the public tree.

Compiled as solver.solvers._cfr. The game: from a public round-4 position (the line, both
collections, who has taken, how many actions each made), both hands (of the sizes the
position states) and the 3 removed cards are dealt uniformly from the cards not public.
Chance acts at the root only; afterwards every action is public (a play shows its card),
so the game is a public tree in which the acting player holds a strategy per private hand.

Facts the solver relies on (docs/rules.md):
- the cards a player holds at a public node are its initial hand minus the cards it
  played, which are public: an information set is (own initial hand, public node);
- once both players have taken in round 4, or a take completes three cities, the result
  is fixed and depends only on the collections, which are public: terminal values are
  public scalars (win 1, draw 1/2, loss 0 for player a, scored by `game_outcome`);
- a hand pair (i, j) is weighted by the number of card-level deals that give it, i.e.
  by the product over kinds of C(U_k, i_k) C(U_k - i_k, j_k), the removed cards being
  the rest of the pool U; pairs that need more copies of a kind than exist weigh 0.

Vector form: a traversal carries, for each player, the list of its hands still possible
at the node (hands holding every card it played and no more of a kind than remain unseen)
and their reach probabilities. A terminal returns, for the updating player's hand i,
u * sum_j W(i, j) reach_opp(j). Plays a hand cannot make (it does not hold the kind) have
probability 0 for that hand. A discounted CFR+ converges to an equilibrium: regret
matching+ with alternating updates, the accumulated (non-negative) regrets multiplied by
t^1.5 / (t^1.5 + 1) before iteration t adds its own (DCFR's positive-regret discount,
Brown & Sandholm 2019, with CFR+'s floor at 0 for the negative ones), and the average
strategy weighted by t^4 at iteration t. On the `dnoir bench game` positions that reaches
exploitability 1e-3 in about 0.55 times the iterations of plain CFR+ with t^2 weights (and
those took several times fewer than linear weights). The exploitability of the average
strategy is computed exactly by a best response for each seat over the same tree.

Speed: the average strategy of a player is accumulated while the other is updated, so a
child that no hand of the acting (not updated) player reaches can be skipped whole: it
adds nothing to the updated player's values, regrets or average. CFR+ sets many
actions to probability 0 in every hand, so this prunes much of each walk.
"""

from libc.stdint cimport uint8_t, int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy, memset
from libc.math cimport pow
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC
from cpython.exc cimport PyErr_CheckSignals
from cpython.ref cimport PyObject
from value cimport RANK, final_value, settled, value_rank
from state cimport (
    State, Score, NKINDS, MOVE_TAKE, NMOVES, LAST_ROUND, ONGOING, DRAW,
    apply_move, game_outcome, hand_size, update_hand_masks,
)
from solver.rules._core cimport CoreState
from rng cimport Rng, rng_seed, rng_below

cdef enum:
    MAXD = 16          # 12 actions a round at most: depth never exceeds 13
    TERMINAL = 2

# walk modes
cdef enum:
    MODE_CFR = 0       # CFR+ iteration for the updating player
    MODE_BR = 1        # best response of the updating player to the fixed strategy
    MODE_EVAL = 2      # values of the fixed strategy profile


ctypedef struct Node:
    # 12 bytes: the tree's memory is mostly one Node per public node and two numbers per
    # (hand, action) slot. The hands possible at a node are not stored: every walk derives
    # them from the root's (`child_lists`), and `infosets` / `set_policy` rebuild the lists
    # (and the parents) in side arrays only when asked (`GameTree._index`).
    uint32_t slot          # first (hand, action) entry of a decision node (entries < 2^32)
    uint32_t first_child   # children are consecutive, in move order (plays by kind, take last)
    uint8_t player         # 0, 1, or TERMINAL
    uint8_t nact
    uint8_t move           # the move that led here (root: 255)
    uint8_t score2         # terminal: twice player a's score (2 win, 1 draw, 0 loss)


# The CFR+ state of a slot: its regret and its average-strategy weight, side by side
# (one cache line brings both), as floats or doubles (`GameTree.build(single=...)`).
ctypedef fused real:
    float
    double


ctypedef struct Ctx:
    # the public state at one depth of a walk and the hands still possible there
    State s
    uint8_t played[2][NKINDS]
    uint8_t remaining[NKINDS]     # unseen cards: both current hands and the removed cards
    int32_t *list[2]
    double *reach[2]
    int32_t *parent_pos[2]        # position in the parent's list (NULL: same list)
    int n[2]


ctypedef struct Game:
    int nhands[2]
    uint8_t *hands[2]              # hands[p][i * NKINDS + k]: initial hand i of p
    double *weight[2]              # weight[p][i * nhands[1-p] + j]: P(p holds i, other holds j)
    Node *nodes
    uint64_t nnodes
    uint64_t nslots
    uint64_t nhand_entries
    void *slots                    # 2 * nslots reals: slots[2 s] regret, slots[2 s + 1] average
    bint single                    # the reals are floats (else doubles)
    double *policy                 # nslots probabilities (set_policy), or NULL
    double avg_weight              # the average's weight of iteration t: t^AVERAGE_POWER
    double regret_discount         # t^1.5 / (t^1.5 + 1): kept of the accumulated regrets at iteration t
    # side arrays for infosets / set_policy (NULL until GameTree._index builds them)
    uint32_t *parent               # [node]
    uint32_t *hand_off             # [node]: offset of the mover's hand list in node_hands
    uint32_t *node_nh              # [node]: how many hands in it
    int32_t *node_hands
    # per-depth buffers
    Ctx ctx[MAXD]
    int32_t *list_buf[MAXD][2]
    double *reach_buf[MAXD][2]
    int32_t *pos_buf[MAXD][2]
    double *value[MAXD]            # values of the updating player's hands at a depth
    double *child_values[MAXD]     # [h * nact + a]
    double *strategy[MAXD]         # [h * nact + a]
    double *root_cv                # MODE_EVAL and MODE_BR: the root mover's child values
    bint tremble                   # this iteration's walks carry the root mover's tremble (see ROOT_TREMBLE)
    # counting
    uint64_t count_cap
    uint64_t slot_cap
    uint64_t work
    bint over_cap
    # stopping: every walk calls `stopping` at each node; every POLL_TICKS calls it reads
    # the clock, and every POLL_SECONDS it takes the GIL to run the signal handlers (the
    # main thread) and the owner's stop test
    int stop
    uint32_t ticks
    double last_poll
    PyObject *owner


# The discounted CFR+ (see the module docstring): iteration t weighs t^AVERAGE_POWER in the
# average strategy, and the accumulated regrets keep t^p / (t^p + 1) of themselves, p =
# REGRET_DISCOUNT_POWER, before it adds its own.
cdef double AVERAGE_POWER = 4.0
cdef double REGRET_DISCOUNT_POWER = 1.5

cdef enum:
    POLL_TICKS = 256
# How often a running walk looks at Ctrl-C and at its stop test.
cdef double POLL_SECONDS = 0.002


cdef inline double now_seconds() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


class Stopped(Exception):
    """A walk ended early: its stop test answered True (see `GameTree.stop_when`)."""


cdef class GameTree


cdef int poll_owner(Game *g) noexcept nogil:
    """Take the GIL and ask the owning GameTree whether to stop (sets g.stop)."""
    cdef double now = now_seconds()
    if now - g.last_poll < POLL_SECONDS:
        return g.stop
    g.last_poll = now
    if g.owner != NULL:
        with gil:
            (<GameTree><object>g.owner)._poll()
    return g.stop


cdef inline bint stopping(Game *g) noexcept nogil:
    """True once the walk must stop: checked at every node, polled every few milliseconds."""
    if g.stop:
        return True
    g.ticks += 1
    if g.ticks < POLL_TICKS:
        return False
    g.ticks = 0
    return poll_owner(g) != 0


cdef inline double terminal_utility(const State *s) noexcept nogil:
    cdef Score scores[2]
    cdef int how
    cdef int winner = game_outcome(s, scores, &how)
    if winner == DRAW:
        return 0.5
    return 1.0 if winner == 0 else 0.0


cdef inline int public_moves(const Ctx *c, uint8_t *out) noexcept nogil:
    """The public actions at c: a play of every kind some possible hand holds, and the take."""
    cdef const State *s = &c.s
    cdef int p = s.to_move
    cdef int n = 0, k
    if hand_size(s, p) > 0:
        for k in range(NKINDS):
            if c.remaining[k] > 0:
                out[n] = k
                n += 1
    if not ((s.taken >> p) & 1) and s.line_len > 0:
        out[n] = MOVE_TAKE
        n += 1
    return n


cdef inline bint hand_can(const Game *g, const Ctx *c, int p, int32_t hand, int move) noexcept nogil:
    """True when player p's hand (a global index) can make `move` at c."""
    if move == MOVE_TAKE:
        return True
    return g.hands[p][hand * NKINDS + move] > c.played[p][move]


cdef void child_lists(Game *g, int d, int p, int move, const double *mover_prob, int nact, int a) noexcept nogil:
    """Fill the hand lists of ctx[d + 1] from ctx[d] after player p's `move` (action a of nact).

    The mover's reach is multiplied by mover_prob[h * nact + a] (NULL: kept). A play of
    kind k keeps the mover's hands holding k and the other's hands holding no more k
    than remain unseen after it. The public State of ctx[d + 1] is left alone: the walks
    read everything public from the stored nodes.
    """
    cdef Ctx *c = &g.ctx[d]
    cdef Ctx *n = &g.ctx[d + 1]
    cdef int q = 1 - p
    cdef int h, k
    memcpy(n.played, c.played, sizeof(c.played))
    memcpy(n.remaining, c.remaining, sizeof(c.remaining))
    if move == MOVE_TAKE:
        n.list[q] = c.list[q]
        n.reach[q] = c.reach[q]
        n.n[q] = c.n[q]
        n.parent_pos[q] = NULL
        n.list[p] = c.list[p]
        n.n[p] = c.n[p]
        n.parent_pos[p] = NULL
        if mover_prob == NULL:
            n.reach[p] = c.reach[p]
        else:
            n.reach[p] = g.reach_buf[d + 1][p]
            for h in range(c.n[p]):
                n.reach[p][h] = c.reach[p][h] * mover_prob[h * nact + a]
        return
    k = move
    n.played[p][k] += 1
    n.remaining[k] -= 1
    # the mover keeps the hands holding k (more than it had played before); the other,
    # the hands holding no more k than it has played and the cards still unseen
    filter_hands(g, d, p, k, c.played[p][k] + 1, 255, mover_prob, nact, a)
    filter_hands(g, d, q, k, 0, c.played[q][k] + n.remaining[k], NULL, 0, 0)


cdef inline void filter_hands(Game *g, int d, int p, int k, int low, int high,
                              const double *prob, int nact, int a) noexcept nogil:
    """ctx[d + 1]'s list of p: the hands of ctx[d]'s list holding from `low` to `high` cards of
    kind k, their reach multiplied by prob[h * nact + a] (NULL: kept), each with its parent position."""
    cdef Ctx *c = &g.ctx[d]
    cdef Ctx *n = &g.ctx[d + 1]
    cdef const uint8_t *hands = g.hands[p] + k
    cdef const int32_t *src_list = c.list[p]
    cdef const double *src_reach = c.reach[p]
    cdef int32_t *dst_list = g.list_buf[d + 1][p]
    cdef double *dst_reach = g.reach_buf[d + 1][p]
    cdef int32_t *dst_pos = g.pos_buf[d + 1][p]
    cdef int h, held, m = 0
    cdef int32_t hand
    n.list[p] = dst_list
    n.reach[p] = dst_reach
    n.parent_pos[p] = dst_pos
    for h in range(c.n[p]):
        hand = src_list[h]
        held = hands[hand * NKINDS]
        if low <= held <= high:
            dst_list[m] = hand
            dst_reach[m] = src_reach[h] * prob[h * nact + a] if prob != NULL else src_reach[h]
            dst_pos[m] = h
            m += 1
    n.n[p] = m


cdef void child_ctx(Game *g, int d, int move) noexcept nogil:
    """Fill ctx[d + 1], public State included, from ctx[d] after `move` (tree building)."""
    cdef Ctx *c = &g.ctx[d]
    cdef Ctx *n = &g.ctx[d + 1]
    cdef int p = c.s.to_move
    child_lists(g, d, p, move, NULL, 0, 0)
    n.s = c.s
    if move != MOVE_TAKE:
        n.s.hand[p][move] = 1
        update_hand_masks(&n.s)
    apply_move(&n.s, move)
    memset(n.s.hand, 0, sizeof(n.s.hand))
    n.s.hand_mask[0] = n.s.hand_mask[1] = 0


# ---------------------------------------------------------------------------------
# Counting and building the public tree

cdef void count_walk(Game *g, int d, uint64_t *nodes, uint64_t *slots, uint64_t *hand_entries) noexcept nogil:
    """Count the nodes, (hand, action) slots and terminal work below ctx[d] (a decision node)."""
    cdef Ctx *c = &g.ctx[d]
    cdef uint8_t moves[NMOVES]
    cdef int nact = public_moves(c, moves)
    cdef int a, p = c.s.to_move
    if g.over_cap or stopping(g):
        return
    nodes[0] += nact
    slots[0] += <uint64_t>c.n[p] * nact
    hand_entries[0] += c.n[p]
    g.work += <uint64_t>c.n[p] * nact
    if nodes[0] > g.count_cap or slots[0] > g.slot_cap:
        g.over_cap = True
        return
    for a in range(nact):
        child_ctx(g, d, moves[a])
        if settled(&g.ctx[d + 1].s):
            g.work += <uint64_t>g.ctx[d + 1].n[0] * g.ctx[d + 1].n[1]
        else:
            count_walk(g, d + 1, nodes, slots, hand_entries)


cdef void sample_walk(Game *g, Rng *r, int probes, double *acc) noexcept nogil:
    """Knuth's estimate of count_walk's figures: each probe walks from the root (ctx[0])
    to a leaf, choosing each action uniformly, and adds every node's figures times the
    product of the branching factors above it; acc (nodes, slots, hand entries, work)
    receives the sums, whose mean over the probes is unbiased."""
    cdef uint8_t moves[NMOVES]
    cdef int i, d, nact, p
    cdef double w
    cdef Ctx *c
    for i in range(probes):
        d = 0
        w = 1.0
        acc[0] += 1.0
        while True:
            if stopping(g):
                return
            c = &g.ctx[d]
            nact = public_moves(c, moves)
            p = c.s.to_move
            acc[0] += w * nact
            acc[1] += w * c.n[p] * nact
            acc[2] += w * c.n[p]
            acc[3] += w * c.n[p] * nact
            child_ctx(g, d, moves[rng_below(r, nact)])
            w *= nact
            if settled(&g.ctx[d + 1].s):
                acc[3] += w * g.ctx[d + 1].n[0] * g.ctx[d + 1].n[1]
                break
            d += 1


cdef void build_walk(Game *g, int d, uint32_t index, uint64_t *next_node, uint64_t *next_slot,
                     uint64_t *next_hand) noexcept nogil:
    """Store the decision node `index` at ctx[d] and, recursively, its subtree.

    With g.parent set (`GameTree._index`), the tree is already stored: record instead
    each node's parent and the mover's hand list.
    """
    cdef Ctx *c = &g.ctx[d]
    cdef Node *node = &g.nodes[index]
    cdef Node *child
    cdef uint8_t moves[NMOVES]
    cdef int nact = public_moves(c, moves)
    cdef int a, h, p = c.s.to_move
    cdef uint32_t first = <uint32_t>next_node[0]
    cdef bint indexing = g.parent != NULL
    if stopping(g):
        return
    if indexing:
        g.hand_off[index] = <uint32_t>next_hand[0]
        g.node_nh[index] = c.n[p]
        for h in range(c.n[p]):
            g.node_hands[next_hand[0] + h] = c.list[p][h]
    else:
        node.player = p
        node.nact = nact
        node.first_child = first
        node.slot = <uint32_t>next_slot[0]
    next_hand[0] += c.n[p]
    next_slot[0] += <uint64_t>c.n[p] * nact
    next_node[0] += nact
    for a in range(nact):
        child = &g.nodes[first + a]
        child_ctx(g, d, moves[a])
        if indexing:
            g.parent[first + a] = index
        else:
            child.move = moves[a]
        if settled(&g.ctx[d + 1].s):
            if not indexing:
                child.player = TERMINAL
                child.nact = 0
                child.score2 = <uint8_t>(2.0 * terminal_utility(&g.ctx[d + 1].s))
        else:
            build_walk(g, d + 1, first + a, next_node, next_slot, next_hand)
            if g.stop:
                return


# ---------------------------------------------------------------------------------
# The walks: CFR+ iteration, best response, profile evaluation

cdef inline void normalized_rows(Game *g, const Node *node, const Ctx *c, const real *src, int stride,
                                 const double *policy, double *out) noexcept nogil:
    """Each of the mover's hands plays its legal actions in proportion to its row of weights
    (uniformly when the row has no positive weight); actions its hand cannot make get 0.

    The row of hand h and action a is src[(slot + h * nact + a) * stride], or the policy's
    entry when `policy` is not NULL.
    """
    cdef int nact = node.nact, p = node.player
    cdef int h, a
    cdef double total, x
    cdef int nlegal
    cdef uint64_t base
    cdef double w[NMOVES]
    cdef uint8_t legal[NMOVES]
    cdef uint8_t kinds[NMOVES]
    cdef const uint8_t *hand
    cdef const uint8_t *played = c.played[p]
    cdef Node *children = &g.nodes[node.first_child]
    for a in range(nact):
        kinds[a] = children[a].move
    for h in range(c.n[p]):
        base = node.slot + <uint64_t>h * nact
        hand = &g.hands[p][c.list[p][h] * NKINDS]
        total = 0.0
        nlegal = 0
        for a in range(nact):
            legal[a] = kinds[a] == MOVE_TAKE or hand[kinds[a]] > played[kinds[a]]
            if legal[a]:
                x = policy[base + a] if policy != NULL else src[(base + a) * stride]
                w[a] = x
                total += x
                nlegal += 1
        for a in range(nact):
            if not legal[a]:
                out[h * nact + a] = 0.0
            elif total > 0.0:
                out[h * nact + a] = w[a] / total
            else:
                out[h * nact + a] = 1.0 / nlegal


cdef inline void fixed_strategy(Game *g, const real *rs, const Node *node, const Ctx *c, double *out) noexcept nogil:
    """The average (or policy) strategy at node for each of the mover's hands, normalized."""
    normalized_rows(g, node, c, rs + 1, 2, g.policy, out)


cdef inline void current_strategy(Game *g, const real *rs, const Node *node, const Ctx *c, double *out) noexcept nogil:
    """Regret matching+: each hand plays its legal actions in proportion to positive regret
    (regrets are kept non-negative by CFR+, so the row is the weights)."""
    normalized_rows(g, node, c, rs, 2, <double *>NULL, out)


cdef void terminal_values(Game *g, int d, int upd, double utility_a) noexcept nogil:
    """value[d][h] = u * sum_j W(i_h, j) reach_opp(j) for the updating player's hands."""
    cdef Ctx *c = &g.ctx[d]
    cdef int q = 1 - upd
    cdef double u = utility_a if upd == 0 else 1.0 - utility_a
    cdef double *out = g.value[d]
    cdef const double *w
    cdef const int32_t *lq = c.list[q]
    cdef const double *rq = c.reach[q]
    cdef int nq = c.n[q], stride = g.nhands[q]
    cdef int h, j
    cdef double acc
    if u == 0.0:
        memset(out, 0, c.n[upd] * sizeof(double))
        return
    for h in range(c.n[upd]):
        w = &g.weight[upd][<uint64_t>c.list[upd][h] * stride]
        acc = 0.0
        for j in range(nq):
            acc += w[lq[j]] * rq[j]
        out[h] = u * acc


# The root mover's smallest probability of a move its hand can make, in the reach that the
# CFR+ iterations carry below the root (not in its strategy, nor in any value or best response),
# every TREMBLE_EVERY-th iteration. Without it a root move that no hand plays gets reach 0: the
# other player's strategy below it is never trained (those walks are pruned), so the move's
# expected score (`root_hand_values`) would be measured against play no one chose (a move that
# hands the opponent the third city scored 0.57, not 0, with the mover's best play after it,
# against an opponent left near uniform there). With it the other player learns
# to answer the move as if the mover's hands that can make it made it with this weight (a
# tremble, as in a perfect equilibrium), which moves the other figures by about this much.
# Every second iteration: the subtrees below such moves are then walked half as often, which
# costs about nothing measurable (every iteration cost 15-30% more time; bench/RESULTS.md).
cdef double ROOT_TREMBLE = 1e-9
cdef int TREMBLE_EVERY = 2


cdef inline const double *trembled(const Game *g, const Node *node, const Ctx *c, const double *sigma,
                                   double *out) noexcept nogil:
    """sigma with every move a hand can make at `node` raised to at least ROOT_TREMBLE, into `out`."""
    cdef int nact = node.nact, p = node.player, h, a, i
    cdef const Node *children = &g.nodes[node.first_child]
    for h in range(c.n[p]):
        for a in range(nact):
            i = h * nact + a
            if sigma[i] >= ROOT_TREMBLE:
                out[i] = sigma[i]
            elif hand_can(g, c, p, c.list[p][h], children[a].move):
                out[i] = ROOT_TREMBLE
            else:
                out[i] = 0.0
    return out


cdef void walk(Game *g, real *rs, uint32_t index, int d, int upd, int mode) noexcept nogil:
    """Values of the updating player's hands at node `index` (context ctx[d]) into value[d].

    MODE_CFR also updates the regrets of upd's nodes and the average strategy of the
    other's. `rs` is g.slots (floats or doubles).
    """
    cdef Node *node = &g.nodes[index]
    cdef Ctx *c = &g.ctx[d]
    cdef Ctx *nc = &g.ctx[d + 1]
    cdef int p = node.player, nact = node.nact
    cdef int a, h, hc, nh_upd = c.n[upd], nh = c.n[p]
    cdef double *sigma = g.strategy[d]
    cdef double *cv = g.child_values[d]
    cdef double *out = g.value[d]
    cdef double *child_out = g.value[d + 1]
    cdef real *reg
    cdef real *avg
    cdef double v, best, x, wt
    cdef Node *child
    cdef const double *mover_prob
    if stopping(g):
        return
    if p == TERMINAL:
        terminal_values(g, d, upd, 0.5 * node.score2)
        return
    if mode == MODE_CFR:
        current_strategy(g, rs, node, c, sigma)
    elif mode == MODE_EVAL or p != upd or d == 0:
        # (at the root in a best response too: root_hand_values reads the mover's frequencies there)
        fixed_strategy(g, rs, node, c, sigma)
    mover_prob = sigma if (mode != MODE_BR or p != upd) else NULL
    if mode == MODE_CFR and d == 0 and p != upd and g.tremble:
        # the root mover trembles (cv is free here: the root's mover is not the one updated)
        mover_prob = trembled(g, node, c, sigma, cv)
    if p == upd:
        memset(cv, 0, <size_t>nh * nact * sizeof(double))
    else:
        memset(out, 0, <size_t>nh_upd * sizeof(double))
        if mode == MODE_CFR:
            # the average strategy of the player not updated, weighted by its reach
            wt = g.avg_weight
            for h in range(nh):
                avg = &rs[2 * (node.slot + <uint64_t>h * nact) + 1]
                x = c.reach[p][h] * wt
                if x != 0.0:
                    for a in range(nact):
                        avg[2 * a] += x * sigma[h * nact + a]
    for a in range(nact):
        child = &g.nodes[node.first_child + a]
        if p != upd:
            # pruning: no hand of the other player reaches this child, so it adds nothing
            # to upd's values (and upd's regrets below it would not move)
            x = 0.0
            for h in range(nh):
                x += c.reach[p][h] * mover_prob[h * nact + a]
            if x == 0.0:
                continue
        child_lists(g, d, p, child.move, mover_prob, nact, a)
        if child.player == TERMINAL:
            if stopping(g):
                return
            terminal_values(g, d + 1, upd, 0.5 * child.score2)
        else:
            walk(g, rs, node.first_child + a, d + 1, upd, mode)
            if g.stop:  # what this walk would write now is incomplete: leave it unwritten
                return
        if p == upd:
            if nc.parent_pos[upd] == NULL:
                for h in range(nh):
                    cv[h * nact + a] = child_out[h]
            else:
                for hc in range(nc.n[upd]):
                    cv[nc.parent_pos[upd][hc] * nact + a] = child_out[hc]
        else:
            if nc.parent_pos[upd] == NULL:
                for h in range(nh_upd):
                    out[h] += child_out[h]
            else:
                for hc in range(nc.n[upd]):
                    out[nc.parent_pos[upd][hc]] += child_out[hc]
    if p != upd:
        return
    # An action hand h cannot make has cv 0 (h is in no list below it) and regret 0; every
    # value is at least 0. So the best response's maximum and the regret update run over
    # every action without asking which the hand can make: the same numbers, fewer loads.
    if d == 0 and g.root_cv != NULL:
        memcpy(g.root_cv, cv, <size_t>nh * nact * sizeof(double))
    if mode == MODE_BR:
        for h in range(nh):
            best = cv[h * nact]
            for a in range(1, nact):
                if cv[h * nact + a] > best:
                    best = cv[h * nact + a]
            out[h] = best
        return
    for h in range(nh):
        v = 0.0
        for a in range(nact):
            v += sigma[h * nact + a] * cv[h * nact + a]
        out[h] = v
    if mode == MODE_EVAL:
        return
    for h in range(nh):
        reg = &rs[2 * (node.slot + <uint64_t>h * nact)]
        for a in range(nact):
            v = reg[2 * a] * g.regret_discount + cv[h * nact + a] - out[h]
            reg[2 * a] = v if v > 0.0 else 0.0


cdef void run_walk(Game *g, int upd, int mode) noexcept nogil:
    """walk() from the root (ctx[0] set) over the tree's slots, floats or doubles."""
    if g.single:
        walk(g, <float *>g.slots, 0, 0, upd, mode)
    else:
        walk(g, <double *>g.slots, 0, 0, upd, mode)


# ---------------------------------------------------------------------------------
# The view policy: the one-player-view solver's choice at every information set
#
# solver.solvers.endgame's view mode gives each move of the mover's hand the sum, over every hand
# the opponent may hold (weighted by the number of ways a uniform deal gives it from the
# cards the mover cannot see), of the move's open-hands minimax value; it picks the best
# expected score, then the best expected margin, then the first move in canonical order.
# The open-hands values of every pair of hands at every node come from one backward pass
# over the public tree (a perfect-information minimax per pair), with the exact value
# order of ext/value.pxd (shared with solver.solvers._endgame): RANK * rank + margin, rank +-2 city, +-1 win, 0 draw.

cdef enum:
    NO_VALUE = 1 << 30


cdef inline void split_value(int value, int *rank, int *margin) noexcept nogil:
    rank[0] = value_rank(value)
    margin[0] = value - rank[0] * RANK


cdef double COMB[46][46]


cdef void _init_comb():
    cdef int n, k
    for n in range(46):
        for k in range(46):
            COMB[n][k] = comb(n, k)


ctypedef struct ViewBuffers:
    int *pairval[MAXD]          # [h_a * n_b + h_b]: a's open-hands value of the pair
    int64_t *score[MAXD]        # [h * nact + a]: sum over worlds of weight * (2 win, 1 draw, 0 loss)
    int64_t *margin[MAXD]       # [h * nact + a]: sum over worlds of weight * margin
    int64_t *world_w[MAXD]      # [h_p * n_q + h_q]: the view's weight of the world


cdef void view_walk(Game *g, ViewBuffers *vb, uint32_t index, int d, double *policy) noexcept nogil:
    """Open-hands values of every pair at node `index` into vb.pairval[d]; the view's choice
    of every mover hand into policy (1 for the chosen move)."""
    cdef Node *node = &g.nodes[index]
    cdef Ctx *c = &g.ctx[d]
    cdef Ctx *nc = &g.ctx[d + 1]
    cdef int p = node.player, q = 1 - node.player, nact = node.nact
    cdef int na = c.n[0], nb = c.n[1], np_ = c.n[p], nq = c.n[q]
    cdef int *out = vb.pairval[d]
    cdef int *cv
    cdef int64_t *score = vb.score[d]
    cdef int64_t *margin = vb.margin[d]
    cdef int64_t *ww = vb.world_w[d]
    cdef int a, h, j, hc, jc, k, v, vp, rank, mg, best_a, cnb, ha_, hb_
    cdef int hp, hq
    cdef int64_t wgt
    cdef double w
    cdef const uint8_t *hand_p
    cdef const uint8_t *hand_q
    cdef int pool[NKINDS]
    cdef Node *child
    cdef int32_t *pos_p
    cdef int32_t *pos_q
    cdef bint terminal
    cdef int const_value = 0
    if stopping(g):
        return
    # the view's world weights: prod_k C(pool_k, held_k), pool = unseen by the mover
    for h in range(np_):
        hand_p = &g.hands[p][c.list[p][h] * NKINDS]
        for k in range(NKINDS):
            pool[k] = c.remaining[k] - (hand_p[k] - c.played[p][k])
        for j in range(nq):
            hand_q = &g.hands[q][c.list[q][j] * NKINDS]
            w = 1.0
            for k in range(NKINDS):
                v = hand_q[k] - c.played[q][k]
                if v > pool[k] or pool[k] < 0:
                    w = 0.0
                    break
                w *= COMB[pool[k]][v]
            ww[h * nq + j] = <int64_t>w
    memset(score, 0, <size_t>np_ * nact * sizeof(int64_t))
    memset(margin, 0, <size_t>np_ * nact * sizeof(int64_t))
    for h in range(na * nb):
        out[h] = NO_VALUE
    for a in range(nact):
        child = &g.nodes[node.first_child + a]
        child_ctx(g, d, child.move)
        terminal = child.player == TERMINAL
        if terminal:
            const_value = final_value(&nc.s, 0)
        else:
            view_walk(g, vb, node.first_child + a, d + 1, policy)
            if g.stop:
                return
        cv = vb.pairval[d + 1]
        cnb = nc.n[1]
        pos_p = nc.parent_pos[p]
        pos_q = nc.parent_pos[q]
        for hc in range(nc.n[p]):
            hp = pos_p[hc] if pos_p != NULL else hc
            for jc in range(nc.n[q]):
                hq = pos_q[jc] if pos_q != NULL else jc
                if p == 0:
                    v = const_value if terminal else cv[hc * cnb + jc]
                    ha_ = hp
                    hb_ = hq
                else:
                    v = const_value if terminal else cv[jc * cnb + hc]
                    ha_ = hq
                    hb_ = hp
                if v == NO_VALUE:
                    continue
                if out[ha_ * nb + hb_] == NO_VALUE or (p == 0 and v > out[ha_ * nb + hb_]) or \
                        (p == 1 and v < out[ha_ * nb + hb_]):
                    out[ha_ * nb + hb_] = v
                wgt = ww[hp * nq + hq]
                if wgt == 0:
                    continue
                vp = v if p == 0 else -v
                split_value(vp, &rank, &mg)
                score[hp * nact + a] += wgt * (2 if rank > 0 else (1 if rank == 0 else 0))
                margin[hp * nact + a] += wgt * mg
    # the choice: best expected score, then margin, then the first legal move in order
    for h in range(np_):
        best_a = -1
        for a in range(nact):
            if not hand_can(g, c, p, c.list[p][h], g.nodes[node.first_child + a].move):
                continue
            if best_a < 0 or score[h * nact + a] > score[h * nact + best_a] or \
                    (score[h * nact + a] == score[h * nact + best_a] and
                     margin[h * nact + a] > margin[h * nact + best_a]):
                best_a = a
        for a in range(nact):
            policy[node.slot + <uint64_t>h * nact + a] = 1.0 if a == best_a else 0.0


# ---------------------------------------------------------------------------------
# Python access

cdef double comb(int n, int k) noexcept nogil:
    cdef double r = 1.0
    cdef int i
    if k < 0 or k > n:
        return 0.0
    for i in range(k):
        r = r * (n - i) / (i + 1)
    return r


_init_comb()


def _enumerate_hands(pool, int size):
    """Every multiset of `size` cards from `pool` (counts per kind), in lexicographic order."""
    out = []
    cur = [0] * NKINDS

    def rec(kind, left):
        if kind == NKINDS:
            if left == 0:
                out.append(tuple(cur))
            return
        for c in range(min(pool[kind], left) + 1):
            cur[kind] = c
            rec(kind + 1, left - c)
        cur[kind] = 0

    rec(0, size)
    return out


cdef class GameTree:
    """The public tree of one round-4 position and the CFR+ state over it.

    `state` is the CoreState of the position (its hands are ignored); `pool` the
    count per kind of the cards not public; `sizes` the two hand sizes. Build with
    `count()` (sizes, cheap) then `build()` (allocates), then `iterate()`.

    >>> from solver.rules.position import Position
    >>> from solver.solvers.equilibrium import game_pool
    >>> pos = Position.parse("-287-18C5 788/C 6666777788+2+2+2+2+3+3-1-2-3/555678+4-1-2-2-3C 4 a a")
    >>> tree = GameTree(pos.core, game_pool(pos), pos.hand_sizes)
    >>> tree.build()["nodes"]
    178
    >>> tree.iterate(200)
    >>> br_a, br_b, exploitability = tree.exploitability()
    >>> exploitability < 1e-5, round(tree.profile_value(), 4)
    (True, 0.8571)
    """

    cdef Game g
    cdef readonly object hands_a, hands_b
    cdef readonly int iterations
    cdef readonly bint built
    cdef State root
    cdef uint8_t pool[NKINDS]
    cdef object _stop_test
    cdef object _pending
    cdef bint _requested
    cdef object _size       # the last complete count(): the tree's exact size, for build()

    def __cinit__(self, CoreState state not None, pool, sizes):
        cdef int p, i, j, k, d, nmax
        cdef double total, w
        memset(&self.g, 0, sizeof(Game))
        self.root = state.s
        if self.root.round != LAST_ROUND or self.root.status != ONGOING or settled(&self.root):
            raise ValueError("the game solver needs an unfinished round-4 position")
        memset(self.root.hand, 0, sizeof(self.root.hand))
        update_hand_masks(&self.root)
        for k in range(NKINDS):
            self.pool[k] = pool[k]
        hands = [_enumerate_hands(pool, sizes[0]), _enumerate_hands(pool, sizes[1])]
        self.hands_a, self.hands_b = hands
        for p in range(2):
            self.g.nhands[p] = len(hands[p])
            if self.g.nhands[p] == 0:
                raise ValueError("no hand of that size can be dealt from the pool")
            self.g.hands[p] = <uint8_t *>malloc(len(hands[p]) * NKINDS)
            for i, hand in enumerate(hands[p]):
                for k in range(NKINDS):
                    self.g.hands[p][i * NKINDS + k] = hand[k]
        cdef int na = self.g.nhands[0], nb = self.g.nhands[1]
        self.g.weight[0] = <double *>malloc(<size_t>na * nb * sizeof(double))
        self.g.weight[1] = <double *>malloc(<size_t>na * nb * sizeof(double))
        if self.g.weight[0] == NULL or self.g.weight[1] == NULL:
            raise MemoryError("cannot allocate the deal weights")
        total = 0.0
        for i in range(na):
            for j in range(nb):
                w = 1.0
                for k in range(NKINDS):
                    w *= comb(self.pool[k], self.g.hands[0][i * NKINDS + k]) * \
                         comb(self.pool[k] - self.g.hands[0][i * NKINDS + k], self.g.hands[1][j * NKINDS + k])
                self.g.weight[0][i * nb + j] = w
                total += w
        for i in range(na):
            for j in range(nb):
                w = self.g.weight[0][i * nb + j] / total
                self.g.weight[0][i * nb + j] = w
                self.g.weight[1][j * na + i] = w
        nmax = na if na > nb else nb
        for d in range(MAXD):
            for p in range(2):
                self.g.list_buf[d][p] = <int32_t *>malloc(self.g.nhands[p] * sizeof(int32_t))
                self.g.reach_buf[d][p] = <double *>malloc(self.g.nhands[p] * sizeof(double))
                self.g.pos_buf[d][p] = <int32_t *>malloc(self.g.nhands[p] * sizeof(int32_t))
            self.g.value[d] = <double *>malloc(nmax * sizeof(double))
            self.g.child_values[d] = <double *>malloc(<size_t>nmax * NMOVES * sizeof(double))
            self.g.strategy[d] = <double *>malloc(<size_t>nmax * NMOVES * sizeof(double))
            if self.g.value[d] == NULL or self.g.child_values[d] == NULL or self.g.strategy[d] == NULL:
                raise MemoryError("cannot allocate the walk buffers")

    # Stopping. Every walk (counting, building, iterating, best responses, values) checks a
    # flag at each node and, every few milliseconds, takes the GIL to run the signal
    # handlers (in the main thread: Ctrl-C) and the stop test: a long walk ends within
    # milliseconds of either.

    def stop_when(self, test):
        """Stop any walk once `test` (a callable, a `threading.Event`, or None: never) says so.

        A stopped walk raises Stopped (or the KeyboardInterrupt a signal handler raised);
        what it had not finished is left as it was (an iteration cut short has updated part
        of the tree: the average strategy is still a strategy, its values exact for it).
        """
        if test is not None and hasattr(test, "is_set"):
            test = test.is_set
        self._stop_test = test

    def request_stop(self):
        """Stop the running walk (from another thread) and every later one: raises Stopped."""
        self._requested = True
        self.g.stop = 1

    cdef void _poll(self) noexcept:
        try:
            PyErr_CheckSignals()  # the main thread runs its handlers; elsewhere a no-op
            if self._requested or (self._stop_test is not None and self._stop_test()):
                self.g.stop = 1
        except BaseException as e:  # a handler's KeyboardInterrupt, or the test's own error
            self._pending = e
            self.g.stop = 1

    cdef void _arm(self):
        self._pending = None
        self.g.stop = 0
        self.g.ticks = 0
        self.g.last_poll = 0.0
        self.g.owner = <PyObject *>self
        self._poll()  # a stop asked before the walk: it does not start

    cdef int _disarm(self) except -1:
        """After a walk: raise what stopped it, if anything did."""
        self.g.owner = NULL
        if not self.g.stop:
            return 0
        pending, self._pending = self._pending, None
        if pending is not None:
            raise pending
        raise Stopped("stopped")

    def __dealloc__(self):
        cdef int d, p
        for p in range(2):
            free(self.g.hands[p])
            free(self.g.weight[p])
        for d in range(MAXD):
            for p in range(2):
                free(self.g.list_buf[d][p])
                free(self.g.reach_buf[d][p])
                free(self.g.pos_buf[d][p])
            free(self.g.value[d])
            free(self.g.child_values[d])
            free(self.g.strategy[d])
        self._free_tree()

    cdef void _free_tree(self):
        with nogil:  # returning a big tree's pages takes tens of milliseconds: other threads run
            free(self.g.nodes)
            free(self.g.slots)
            free(self.g.policy)
        self.g.nodes = NULL
        self.g.slots = NULL
        self.g.policy = NULL
        self._free_index()

    cdef void _free_index(self):
        free(self.g.parent)
        free(self.g.hand_off)
        free(self.g.node_nh)
        free(self.g.node_hands)
        self.g.parent = NULL
        self.g.hand_off = NULL
        self.g.node_nh = NULL
        self.g.node_hands = NULL

    cdef int _index(self) except -1:
        """The side arrays of infosets / set_policy: each node's parent and the mover's hands
        (one more walk over the stored tree, the first time they are asked for)."""
        cdef uint64_t nodes = self.g.nnodes, entries = self.g.nhand_entries
        cdef uint64_t next_node = 1, next_slot = 0, next_hand = 0
        if self.g.parent != NULL:
            return 0
        self.g.parent = <uint32_t *>calloc(nodes, sizeof(uint32_t))
        self.g.hand_off = <uint32_t *>calloc(nodes, sizeof(uint32_t))
        self.g.node_nh = <uint32_t *>calloc(nodes, sizeof(uint32_t))
        self.g.node_hands = <int32_t *>malloc(max(entries, 1) * sizeof(int32_t))
        if self.g.parent == NULL or self.g.hand_off == NULL or self.g.node_nh == NULL or self.g.node_hands == NULL:
            self._free_index()
            raise MemoryError("cannot allocate the information-set index")
        self._arm()
        if not self.g.stop:
            with nogil:
                self._root_ctx()
                build_walk(&self.g, 0, 0, &next_node, &next_slot, &next_hand)
        if self.g.stop:
            self._free_index()
        self._disarm()
        return 0

    cdef void _root_ctx(self) noexcept nogil:
        """ctx[0]: the root, every hand possible with reach 1."""
        cdef Ctx *c = &self.g.ctx[0]
        cdef int p, i
        c.s = self.root
        memset(c.played, 0, sizeof(c.played))
        memcpy(c.remaining, self.pool, sizeof(self.pool))
        for p in range(2):
            c.list[p] = self.g.list_buf[0][p]
            c.reach[p] = self.g.reach_buf[0][p]
            c.parent_pos[p] = NULL
            c.n[p] = self.g.nhands[p]
            for i in range(self.g.nhands[p]):
                c.list[p][i] = i
                c.reach[p][i] = 1.0

    def count(self, uint64_t cap=0xFFFFFFFF, uint64_t slot_cap=0xFFFFFFFF):
        """Sizes of the public tree: nodes, decision slots, hand entries and work per iteration.

        Stops once more than `cap` nodes or `slot_cap` slots are counted (`complete` is
        then False and the figures are lower bounds).
        """
        cdef uint64_t nodes = 1, slots = 0, hand_entries = 0
        if cap > 0xFFFFFFF0:
            cap = 0xFFFFFFF0
        self.g.count_cap = cap
        self.g.slot_cap = slot_cap
        self.g.over_cap = False
        self.g.work = 0
        self._arm()
        if not self.g.stop:
            with nogil:
                self._root_ctx()
                count_walk(&self.g, 0, &nodes, &slots, &hand_entries)
        self._disarm()
        size = dict(nodes=nodes, slots=slots, hand_entries=hand_entries, work=self.g.work,
                    complete=not self.g.over_cap, hands=(self.g.nhands[0], self.g.nhands[1]))
        if size["complete"]:
            self._size = size
        return dict(size)

    def sample(self, int probes=2000, uint64_t seed=0):
        """Estimates of `count()`'s figures (floats) from `probes` random root-to-leaf walks
        (Knuth's estimator: unbiased; milliseconds where counting takes seconds)."""
        cdef double acc[4]
        cdef Rng r
        memset(acc, 0, sizeof(acc))
        rng_seed(&r, seed)
        if probes < 1:
            raise ValueError("probes must be at least 1")
        self._arm()
        if not self.g.stop:
            with nogil:
                self._root_ctx()
                sample_walk(&self.g, &r, probes, acc)
        self._disarm()
        return dict(nodes=acc[0] / probes, slots=acc[1] / probes, hand_entries=acc[2] / probes,
                    work=acc[3] / probes, hands=(self.g.nhands[0], self.g.nhands[1]))

    @staticmethod
    def bytes_needed(nodes, slots, hand_entries=0, bint single=False):
        """Memory of a built tree of that size, in bytes: its nodes, and a regret and an
        average per slot (floats when `single`, else doubles). The hand lists (`hand_entries`)
        are not kept: they cost nothing here."""
        return nodes * sizeof(Node) + slots * 2 * (sizeof(float) if single else sizeof(double))

    def build(self, bint single=False):
        """Allocate and store the public tree; MemoryError if it does not fit.

        `single`: keep the regrets and averages as floats (half the memory of the slots,
        and faster walks); their rounding (about 1e-7 of a value) bounds the exploitability
        reachable, so ask it for targets of 1e-5 and more only. Else doubles.
        """
        # a complete count is the tree's exact size (the root never changes): the count that
        # decided whether the tree fits is not made a second time
        size = dict(self._size) if self._size is not None else self.count()
        cdef uint64_t nodes = size["nodes"], slots = size["slots"], entries = size["hand_entries"]
        cdef uint64_t next_node = 1, next_slot = 0, next_hand = 0
        self._free_tree()
        if slots > 0xFFFFFFFF:
            raise MemoryError(f"the public tree has too many slots to index ({nodes} nodes, {slots} slots)")
        self.g.single = single
        self.g.nodes = <Node *>calloc(nodes, sizeof(Node))
        self.g.slots = calloc(max(slots, 1), 2 * (sizeof(float) if single else sizeof(double)))
        if self.g.nodes == NULL or self.g.slots == NULL:
            self._free_tree()
            raise MemoryError(f"cannot allocate the public tree ({nodes} nodes, {slots} slots)")
        self.g.nnodes = nodes
        self.g.nslots = slots
        self.g.nhand_entries = entries
        self._arm()
        if not self.g.stop:
            with nogil:
                self._root_ctx()
                self.g.nodes[0].move = 255
                build_walk(&self.g, 0, 0, &next_node, &next_slot, &next_hand)
        if self.g.stop:  # a tree half built is never walked; its memory goes with the tree
            self.built = False
        self._disarm()
        assert next_node == nodes and next_slot == slots and next_hand == entries
        self.iterations = 0
        self.built = True
        return size

    def _require_built(self):
        if not self.built:
            raise RuntimeError("build() the tree first")

    def iterate(self, int n):
        """Run n CFR+ iterations (each updates a then b)."""
        self._require_built()
        cdef int t, upd
        cdef double x
        self._arm()
        if not self.g.stop:
            with nogil:
                for t in range(n):
                    self.iterations += 1
                    self.g.avg_weight = pow(<double>self.iterations, AVERAGE_POWER)
                    x = pow(<double>self.iterations, REGRET_DISCOUNT_POWER)
                    self.g.regret_discount = x / (x + 1.0)
                    self.g.tremble = self.iterations % TREMBLE_EVERY == 0
                    for upd in range(2):
                        self._root_ctx()
                        run_walk(&self.g, upd, MODE_CFR)
                    if self.g.stop:
                        break
        self._disarm()

    cdef double _root_total(self, int player, int mode, bint use_policy) except? -1:
        cdef double total = 0.0
        cdef int h
        cdef double *saved = self.g.policy
        if not use_policy:
            self.g.policy = NULL
        elif self.g.policy == NULL:
            raise RuntimeError("no policy set")
        self._arm()
        if not self.g.stop:
            with nogil:
                self._root_ctx()
                run_walk(&self.g, player, mode)
                for h in range(self.g.ctx[0].n[player]):
                    total += self.g.value[0][h]
        self.g.policy = saved
        self._disarm()
        return total

    def best_response(self, int player, bint policy=False):
        """The best-response value of `player` (0 = a, 1 = b) against the other's strategy.

        The other's strategy is the CFR average, or the policy set by `set_policy` when
        `policy` is True. Values are on the expected-score scale of `player`.
        """
        self._require_built()
        return self._root_total(player, MODE_BR, policy)

    def profile_value(self, bint policy=False):
        """Player a's expected score when both play the average strategy (or the policy)."""
        self._require_built()
        return self._root_total(0, MODE_EVAL, policy)

    def exploitability(self):
        """(best response of a, best response of b, exploitability) of the average strategy."""
        br_a = self.best_response(0)
        br_b = self.best_response(1)
        return br_a, br_b, (br_a + br_b - 1.0) / 2.0

    def root_hand_values(self, hand, bint policy=False, bint best_after=False):
        """{move: (probability, expected score)} for the root mover holding `hand` (counts).

        The expected score is the mover's, given that hand, if it makes that move and both
        then follow the average strategy (or the policy). With `best_after`, the mover instead
        plays its best below the move against the other's strategy (a best response): for a
        move an exact equilibrium plays that is the same score, and it stays meaningful for a
        move the equilibrium never plays, below which CFR never trained the mover's own
        average strategy at this hand (it stays near uniform there, so following it scores the
        move as if the mover then played at random).
        """
        self._require_built()
        cdef int p = self.g.nodes[0].player
        cdef Node *root = &self.g.nodes[0]
        cdef int nact = root.nact, a, h = -1, i, j, nq = self.g.nhands[1 - p]
        cdef double *buf
        cdef double *sigma
        hands = self.hands_a if p == 0 else self.hands_b
        hand = tuple(hand)
        for i in range(len(hands)):
            if hands[i] == hand:
                h = i
        if h < 0:
            raise ValueError("that hand cannot be dealt in this game")
        buf = <double *>malloc(<size_t>self.g.nhands[p] * nact * sizeof(double))
        if buf == NULL:
            raise MemoryError()
        self.g.root_cv = buf
        try:
            # either walk leaves the mover's root strategy (its frequencies) in strategy[0]
            self._root_total(p, MODE_BR if best_after else MODE_EVAL, policy)
            sigma = self.g.strategy[0]
            prob_hand = 0.0
            for j in range(nq):
                prob_hand += self.g.weight[p][<uint64_t>h * nq + j]
            out = {}
            for a in range(nact):
                move = self.g.nodes[root.first_child + a].move
                if move == MOVE_TAKE or hand[move] > 0:
                    out[move] = (sigma[h * nact + a], buf[h * nact + a] / prob_hand)
            return out
        finally:
            self.g.root_cv = NULL
            free(buf)

    @property
    def root_player(self):
        return self.g.nodes[0].player if self.built else self.root.to_move

    @property
    def memory_bytes(self):
        """Bytes held by the built tree (nodes, regrets, averages; the policy and the
        information-set index when made)."""
        extra = self.g.nslots * sizeof(double) if self.g.policy != NULL else 0
        if self.g.parent != NULL:
            extra += self.g.nnodes * 3 * sizeof(uint32_t) + self.g.nhand_entries * sizeof(int32_t)
        return self.bytes_needed(self.g.nnodes, self.g.nslots, 0, self.g.single) + extra

    def infosets(self, bint policy=False):
        """Every information set: (player, initial hand, current hand, history, {move: prob}).

        `history` is the tuple of public moves from the root; probabilities are the
        normalized average strategy (or the policy). Hands are counts per kind.
        """
        self._require_built()
        cdef uint64_t n
        cdef uint32_t i, up
        cdef int a, h, p, nact
        cdef Node *node
        cdef double total
        cdef const double *src = self.g.policy
        cdef const float *fs = <const float *>self.g.slots
        cdef const double *ds = <const double *>self.g.slots
        cdef uint64_t e
        if policy and src == NULL:
            raise RuntimeError("no policy set")
        self._index()

        def weight(uint64_t e):  # the policy's entry, or the average's weight
            return src[e] if policy else (fs[2 * e + 1] if self.g.single else ds[2 * e + 1])

        for n in range(self.g.nnodes):
            node = &self.g.nodes[n]
            if node.player == TERMINAL:
                continue
            p = node.player
            nact = node.nact
            history = []
            up = <uint32_t>n
            while up != 0:
                history.append(self.g.nodes[up].move)
                up = self.g.parent[up]
            history.reverse()
            played = [0] * NKINDS
            moves = [self.g.nodes[node.first_child + a].move for a in range(nact)]
            player_of = self._movers(history)
            for i, m in enumerate(history):
                if m != MOVE_TAKE and player_of[i] == p:
                    played[m] += 1
            hands = self.hands_a if p == 0 else self.hands_b
            for h in range(self.g.node_nh[n]):
                initial = hands[self.g.node_hands[self.g.hand_off[n] + h]]
                current = tuple(initial[k] - played[k] for k in range(NKINDS))
                legal = [a for a in range(nact) if moves[a] == MOVE_TAKE or current[moves[a]] > 0]
                e = node.slot + <uint64_t>h * nact
                total = sum(weight(e + a) for a in legal)
                probs = {moves[a]: (weight(e + a) / total if total > 0 else 1.0 / len(legal))
                         for a in legal}
                yield (n, h, p, initial, current, tuple(history), probs)

    cdef State _replay(self, history, list movers):
        """The public state after `history` (moves from the root), with the hands left empty;
        appends to `movers` (if not None) the player who made each move."""
        cdef State s = self.root
        for m in history:
            if movers is not None:
                movers.append(s.to_move)
            if m != MOVE_TAKE:  # the core plays from a hand: give the mover that one card
                s.hand[s.to_move][m] = 1
                update_hand_masks(&s)
            apply_move(&s, m)
            memset(s.hand, 0, sizeof(s.hand))
            update_hand_masks(&s)
        return s

    def _movers(self, history):
        """The player who made each move of a history from the root."""
        out = []
        self._replay(history, out)
        return out

    def public_fields(self, history):
        """The public state after `history` (moves from the root): line, colls, taken, to_move, sizes."""
        cdef State s = self._replay(history, None)
        return dict(line=tuple(s.line[i] for i in range(s.line_len)),
                    colls=tuple(tuple(s.coll[p][k] for k in range(NKINDS)) for p in range(2)),
                    taken=s.taken, to_move=s.to_move,
                    hand_sizes=(hand_size(&s, 0), hand_size(&s, 1)))

    def set_policy(self, uint64_t node, int h, probs):
        """Set the policy at information set (node, hand position h): {move: probability}."""
        self._require_built()
        cdef Node *nd
        cdef int a
        if node >= self.g.nnodes or self.g.nodes[node].player == TERMINAL:
            raise ValueError("not a decision node")
        nd = &self.g.nodes[node]
        self._index()
        if h < 0 or <uint32_t>h >= self.g.node_nh[node]:
            raise ValueError("no such hand at this node")
        if self.g.policy == NULL:
            self.g.policy = <double *>calloc(max(self.g.nslots, 1), sizeof(double))
            if self.g.policy == NULL:
                raise MemoryError("cannot allocate the policy")
        for a in range(nd.nact):
            self.g.policy[nd.slot + <uint64_t>h * nd.nact + a] = probs.get(self.g.nodes[nd.first_child + a].move, 0.0)

    def set_view_policy(self):
        """Set the policy to the one-player-view solver's choice at every information set."""
        self._require_built()
        cdef ViewBuffers vb
        cdef int d, nmax = max(self.g.nhands[0], self.g.nhands[1])
        cdef bint ok = True
        memset(&vb, 0, sizeof(vb))
        if self.g.policy == NULL:
            self.g.policy = <double *>calloc(max(self.g.nslots, 1), sizeof(double))
            if self.g.policy == NULL:
                raise MemoryError("cannot allocate the policy")
        try:
            for d in range(MAXD):
                vb.pairval[d] = <int *>malloc(<size_t>self.g.nhands[0] * self.g.nhands[1] * sizeof(int))
                vb.score[d] = <int64_t *>malloc(<size_t>nmax * NMOVES * sizeof(int64_t))
                vb.margin[d] = <int64_t *>malloc(<size_t>nmax * NMOVES * sizeof(int64_t))
                vb.world_w[d] = <int64_t *>malloc(<size_t>self.g.nhands[0] * self.g.nhands[1] * sizeof(int64_t))
                if vb.pairval[d] == NULL or vb.score[d] == NULL or vb.margin[d] == NULL or vb.world_w[d] == NULL:
                    raise MemoryError("cannot allocate the view buffers")
            self._arm()
            if not self.g.stop:
                with nogil:
                    self._root_ctx()
                    view_walk(&self.g, &vb, 0, 0, self.g.policy)
            self._disarm()
        finally:
            for d in range(MAXD):
                free(vb.pairval[d])
                free(vb.score[d])
                free(vb.margin[d])
                free(vb.world_w[d])

    def clear_policy(self):
        """Forget the policy set by `set_policy`."""
        free(self.g.policy)
        self.g.policy = NULL

    def deal_weight(self, hand_a, hand_b):
        """P(a is dealt hand_a and b hand_b) in this game."""
        cdef int i = self.hands_a.index(tuple(hand_a)), j = self.hands_b.index(tuple(hand_b))
        return self.g.weight[0][<uint64_t>i * self.g.nhands[1] + j]

    @property
    def size(self):
        """(nodes, slots, information sets) of the built tree."""
        return self.g.nnodes, self.g.nslots, self.g.nhand_entries
