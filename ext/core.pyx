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
    deal_game, update_hand_masks, hand_size, state_problem, NCARDS,
)
from cpython.exc cimport PyErr_CheckSignals

HOW_NAMES = ("points", "tie-break", "city", "draw")


cdef enum:
    # perft looks for a pending signal (Ctrl-C) once every this many interior nodes: a few
    # milliseconds of counting, and no measurable cost.
    SIGNAL_EVERY = 1 << 16


cdef int perft_c(const State *s, int depth, uint64_t *total, uint64_t *interior) except -1 nogil:
    """Add the number of move sequences of `depth` (>= 1) moves from s to total[0].

    Runs without the GIL; every SIGNAL_EVERY interior nodes it takes the GIL to run the
    Python signal handlers, so Ctrl-C raises KeyboardInterrupt out of a count of hours.
    """
    cdef uint8_t moves[NMOVES]
    cdef int n = legal_moves(s, moves)
    cdef int i
    cdef State child
    if depth == 1:
        total[0] += n
        return 0
    interior[0] += 1
    if interior[0] % SIGNAL_EVERY == 0:
        with gil:
            PyErr_CheckSignals()
    for i in range(n):
        child = s[0]
        apply_move(&child, moves[i])
        perft_c(&child, depth - 1, total, interior)
    return 0


cdef uint8_t _byte(str field, object value, int low, int high) except? 255:
    """value as an int in [low, high] (all within 0..254): checked before it is stored in a uint8_t."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{field}: {value!r} is not a whole number ({low} to {high})")
    if not low <= value <= high:
        raise ValueError(f"{field}: {value!r} is out of range ({low} to {high})")
    return value


cdef int _cards(str field, object cards, uint8_t *out, int most, int exactly) except -1:
    """Store kind indices into out; their number is checked first (at most `most`, or
    `exactly` unless it is -1), so nothing is written past the array."""
    cdef int i
    cards = tuple(cards)
    if len(cards) > most or (exactly >= 0 and len(cards) != exactly):
        raise ValueError(f"{field}: {len(cards)} cards, "
                         f"{'exactly ' + str(exactly) if exactly >= 0 else 'at most ' + str(most)}")
    for i in range(len(cards)):
        out[i] = _byte(field, cards[i], 0, NKINDS - 1)
    return len(cards)


cdef int _counts(str field, object counts, uint8_t *out) except -1:
    """Store 11 counts per kind into out; exactly 11, each 0..NCARDS."""
    cdef int k
    counts = tuple(counts)
    if len(counts) != NKINDS:
        raise ValueError(f"{field}: {len(counts)} counts, one per kind ({NKINDS})")
    for k in range(NKINDS):
        out[k] = _byte(field, counts[k], 0, NCARDS)
    return 0


cdef class CoreState:
    """One District Noir state held in the C struct of ext/state.pxd.

    >>> s = CoreState.build(line=(0, 4), hands=((1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 2), (0,) * 11),
    ...     colls=((0,) * 11, (0,) * 11), round=4, to_move=0, first=0, actions=(0, 0), taken=0)
    >>> s.legal_moves()
    [0, 1, 2, 10, 11]
    """

    cdef State s

    @staticmethod
    def build(line, hands, colls, round, to_move, first, actions, taken, deck=None, removed=None):
        """A state from plain fields; hands/colls are 11 counts each, cards are kind indices.

        `deck` is the undealt cards top first (None: unknown); `removed` the 3 removed
        cards (None: unknown). solver.notation validates positions by the rules; here every
        length and value is checked before it is stored, and the finished state against the
        invariants of ext/state.pxd (`state_problem`), so no input writes outside the State
        or gives the rules an index outside their arrays: ValueError instead.
        """
        cdef CoreState c = CoreState.__new__(CoreState)
        cdef State *s = &c.s
        cdef const char *problem
        cdef int p
        memset(s, 0, sizeof(State))
        s.line_len = _cards("line", line, s.line, LINE_MAX, -1)
        hands, colls, actions = tuple(hands), tuple(colls), tuple(actions)
        if len(hands) != 2 or len(colls) != 2 or len(actions) != 2:
            raise ValueError("hands, colls and actions are pairs, one for each player")
        for p in range(2):
            _counts("hands", hands[p], s.hand[p])
            _counts("colls", colls[p], s.coll[p])
            s.actions[p] = _byte("actions", actions[p], 0, ACTIONS_PER_ROUND)
        update_hand_masks(s)
        if deck is not None:
            s.deck_len = _cards("deck", deck, s.deck, DECK_MAX, -1)
            s.deck_known = 1
        if removed is not None:
            _cards("removed", removed, s.removed, REMOVED, REMOVED)
        s.round = _byte("round", round, 1, LAST_ROUND)
        s.first = _byte("first", first, 0, 1)
        s.taken = _byte("taken", taken, 0, 3)
        s.to_move = _byte("to_move", to_move, 0, NOBODY)
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
        problem = state_problem(s)
        if problem != NULL:
            raise ValueError("not a valid state: " + problem.decode())
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
        if observer not in (0, 1):
            raise ValueError(f"observer must be 0 or 1, not {observer}")
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
        """Number of distinct move sequences of exactly `depth` moves (chess-style perft).

        Interruptible: a pending signal (Ctrl-C) raises out of the count within milliseconds.
        """
        if depth < 0:
            raise ValueError("depth must be >= 0")
        if depth == 0:
            return 1
        cdef uint64_t total = 0, interior = 0
        with nogil:
            perft_c(&self.s, depth, &total, &interior)
        return total


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
            if g % 4096 == 4095:
                with gil:
                    PyErr_CheckSignals()  # Ctrl-C ends a long run
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
