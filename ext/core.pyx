# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Python access to the C rules core (compiled as solver._core).

`CoreState` wraps one C `State`; `solver.position.Position` builds one for every
rule question, so that the rules live only in ext/state.pxd. Module functions run
whole loops (perft, random games) in C without the GIL.
"""

from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memset
from rng cimport Rng, rng_seed
from policy cimport greedy_move
from world cimport Unseen, unseen_cards
from state cimport (
    State, Score, NKINDS, KIND_C, NMOVES, LINE_MAX, DECK_MAX,
    REMOVED, LAST_ROUND, ACTIONS_PER_ROUND, NOBODY, ONGOING, OVER_POINTS, OVER_CITY,
    DRAW, legal_mask, legal_moves, apply_move, random_move, game_outcome, zobrist,
    deal_game, update_hand_masks, hand_size,
)

HOW_NAMES = ("points", "tie-break", "city", "draw")


cdef uint64_t perft_c(const State *s, int depth) noexcept nogil:
    cdef uint8_t moves[NMOVES]
    cdef int n = legal_moves(s, moves)
    cdef int i
    cdef uint64_t total = 0
    cdef State child
    if depth == 1:
        return n
    for i in range(n):
        child = s[0]
        apply_move(&child, moves[i])
        total += perft_c(&child, depth - 1)
    return total


cdef class CoreState:
    """One District Noir state held in the C struct of ext/state.pxd.

    >>> s = CoreState.build(line=(0, 4), hands=((1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 2), (0,) * 11),
    ...     colls=((0,) * 11, (0,) * 11), round=4, to_move=0, first=0, actions=(0, 0), taken=0)
    >>> s.legal_moves()
    [0, 1, 2, 10, 11]
    """

    cdef State s

    @staticmethod
    def build(line, hands, colls, int round, int to_move, int first, actions, int taken,
              deck=None, removed=None):
        """A state from plain fields; hands/colls are 11 counts each, cards are kind indices.

        `deck` is the undealt cards top first (None: unknown); `removed` the 3 removed
        cards (None: unknown). The caller has validated the fields (see solver.notation).
        """
        cdef CoreState c = CoreState.__new__(CoreState)
        cdef State *s = &c.s
        cdef int p, k, i
        memset(s, 0, sizeof(State))
        if len(line) > LINE_MAX:
            raise ValueError("line too long")
        for i, k in enumerate(line):
            s.line[i] = k
        s.line_len = len(line)
        for p in range(2):
            for k in range(NKINDS):
                s.hand[p][k] = hands[p][k]
                s.coll[p][k] = colls[p][k]
            s.actions[p] = actions[p]
        update_hand_masks(s)
        if deck is not None:
            if len(deck) > DECK_MAX:
                raise ValueError("deck too long")
            for i, k in enumerate(deck):
                s.deck[i] = k
            s.deck_len = len(deck)
            s.deck_known = 1
        if removed is not None:
            for i, k in enumerate(removed):
                s.removed[i] = k
        s.round = round
        s.first = first
        s.taken = taken
        s.to_move = to_move
        s.status = ONGOING
        for p in range(2):
            if s.coll[p][KIND_C] == 3:
                s.status = OVER_CITY
                s.city_winner = p
        if s.status == ONGOING and round == LAST_ROUND and \
                s.actions[0] == ACTIONS_PER_ROUND and s.actions[1] == ACTIONS_PER_ROUND:
            s.status = OVER_POINTS
        if s.status != ONGOING:
            s.to_move = NOBODY
        return c

    @staticmethod
    def deal(seed):
        """A uniformly random full deal from a seed (same seed, same deal)."""
        cdef CoreState c = CoreState.__new__(CoreState)
        cdef Rng r
        rng_seed(&r, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
        deal_game(&c.s, &r)
        return c

    def to_bytes(self):
        """The raw C State, for other compiled modules (solver._endgame) to load."""
        return (<char *>&self.s)[:sizeof(State)]

    def export(self):
        """The state as plain Python fields (the inverse of `build`)."""
        cdef State *s = &self.s
        return dict(
            line=tuple(s.line[i] for i in range(s.line_len)),
            hands=tuple(tuple(s.hand[p][k] for k in range(NKINDS)) for p in range(2)),
            colls=tuple(tuple(s.coll[p][k] for k in range(NKINDS)) for p in range(2)),
            round=s.round, to_move=s.to_move, first=s.first,
            actions=(s.actions[0], s.actions[1]), taken=s.taken,
            hand_sizes=(hand_size(s, 0), hand_size(s, 1)),
            deck=tuple(s.deck[i] for i in range(s.deck_pos, s.deck_len)) if s.deck_known else None,
            removed=tuple(s.removed[i] for i in range(REMOVED)),
            over=s.status != ONGOING,
        )

    @property
    def is_over(self):
        return self.s.status != ONGOING

    def legal_moves(self):
        """Distinct legal moves as ints (kinds 0..10, 11 = take), canonical order."""
        cdef uint8_t moves[NMOVES]
        cdef int n = legal_moves(&self.s, moves)
        return [moves[i] for i in range(n)]

    def play(self, int move):
        """A new CoreState after `move`; ValueError if it is not legal here."""
        if move < 0 or move >= NMOVES or not (legal_mask(&self.s) >> move) & 1:
            raise ValueError(f"illegal move {move}")
        cdef CoreState c = CoreState.__new__(CoreState)
        c.s = self.s
        apply_move(&c.s, move)
        return c

    def outcome(self):
        """(winner, how, score_a, score_b) as if the game ended now.

        winner is 0, 1 or None for a draw; how is one of HOW_NAMES; each score is a dict
        with majorities, sets, alliances, betrayals (positive, subtracted) and total.
        """
        cdef Score scores[2]
        cdef int how = 0
        cdef int winner = game_outcome(&self.s, scores, &how)
        return (
            None if winner == DRAW else winner,
            HOW_NAMES[how],
            *[dict(majorities=scores[p].majorities, sets=scores[p].sets,
                   alliances=scores[p].alliances, betrayals=scores[p].betrayals,
                   total=scores[p].total) for p in range(2)],
        )

    def unseen_counts(self, int observer):
        """Counts per kind of the cards `observer` cannot see: the other hand, the deck, the removed.

        ValueError if the visible cards leave a count that no deal can have.
        """
        cdef Unseen unseen
        cdef int i
        if unseen_cards(&self.s, observer, &unseen) != 0:
            raise ValueError("the position's unseen cards do not add up")
        counts = [0] * NKINDS
        for i in range(unseen.n):
            counts[unseen.cards[i]] += 1
        return tuple(counts)

    def greedy_move(self):
        """The greedy policy's move (ext/policy.pxd), or None once the game is over."""
        cdef int m = greedy_move(&self.s)
        return None if m < 0 else m

    def zobrist(self):
        """The 64-bit Zobrist hash of the state."""
        return zobrist(&self.s)

    def needs_deck(self, int depth):
        """True if playing `depth` more actions could reach a deal (the end of a round 1-3)."""
        cdef State *s = &self.s
        if s.status != ONGOING or s.round == LAST_ROUND:
            return False
        return 2 * ACTIONS_PER_ROUND - s.actions[0] - s.actions[1] <= depth

    def perft(self, int depth):
        """Number of distinct move sequences of exactly `depth` moves (chess-style perft)."""
        if depth < 0:
            raise ValueError("depth must be >= 0")
        if depth == 0:
            return 1
        cdef uint64_t n
        with nogil:
            n = perft_c(&self.s, depth)
        return n


def random_games(long n_games, seed):
    """Play `n_games` uniformly random games from random deals; return outcome counts.

    Moves are uniform over the distinct legal moves. The counts are keyed by
    'first' (won by the round-1 first player), 'second', 'draw' and 'city'
    (ended by a city win, whoever won).

    >>> sorted(random_games(10, seed=1))
    ['city', 'draw', 'first', 'second']
    """
    cdef Rng r
    cdef State s
    cdef Score scores[2]
    cdef int how, winner, m, first
    cdef long g, first_wins = 0, second_wins = 0, draws = 0, cities = 0
    rng_seed(&r, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
    with nogil:
        for g in range(n_games):
            deal_game(&s, &r)
            first = s.first
            m = random_move(&s, &r)
            while m >= 0:
                apply_move(&s, m)
                m = random_move(&s, &r)
            winner = game_outcome(&s, scores, &how)
            if winner == DRAW:
                draws += 1
            elif winner == first:
                first_wins += 1
            else:
                second_wins += 1
            if s.status == OVER_CITY:
                cities += 1
    return dict(first=first_wins, second=second_wins, draw=draws, city=cities)
