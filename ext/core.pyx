# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Python access to the C rules core (compiled as solver.rules._core).

`CoreState` wraps one C `State`; a `solver.rules.position.Position` holds one and asks it
every rule question, so that the rules live only in ext/state.pxd. `position_problem`
is the one consistency check of a position's fields. Module functions run whole loops
(perft, random games) in C without the GIL.
"""

from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memset
from rng cimport Rng, rng_seed
from policy cimport greedy_move, policy_move, policy_code
from world cimport Unseen, unseen_cards
from state cimport (
    State, Score, NKINDS, KIND_C, NMOVES, MOVE_TAKE, LINE_MAX, DECK_MAX, DN_COMPOSITION,
    HAND_SIZE, TAKE_SIZE, LINE_START, REMOVED, LAST_ROUND, ACTIONS_PER_ROUND, NOBODY, ONGOING, OVER_POINTS, OVER_CITY,
    DRAW, legal_mask, legal_moves, apply_move, random_move, game_outcome,
    deal_game, update_hand_masks, hand_size, state_problem, NCARDS, DNOIR_CHECKED, kind_value, score_player, deck_cards,
)
from libc.string cimport memset as _memset
from cpython.exc cimport PyErr_CheckSignals

HOW_NAMES = ("points", "tie-break", "city", "draw")
# A view's hidden flags (hand a hidden, hand b hidden) by view_of's bits (bit q: hand q);
# Position tells them apart by identity, so each is made once, here (the first is its
# _NO_HIDDEN: no hand hidden, the deck unknown).
VIEW_HIDDEN = (tuple([False, False]), (True, False), (False, True), (True, True))


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


# The rule constants of ext/state.pxd, for Python: solver.rules.cards and solver.rules.notation read
# them from here, so that a rule change is a change in ext/state.pxd alone. KINDS names the
# kinds in index order (docs/rules.md's cards; docs/notation.md's tokens).
KINDS = ("5", "6", "7", "8", "+2", "+3", "+4", "-1", "-2", "-3", "C")
RULE_CONSTANTS = dict(
    NKINDS=NKINDS, NCARDS=NCARDS, COMPOSITION=tuple(DN_COMPOSITION[k] for k in range(NKINDS)),
    HAND_SIZE=HAND_SIZE, TAKE_SIZE=TAKE_SIZE, ACTIONS_PER_ROUND=ACTIONS_PER_ROUND,
    ROUNDS=LAST_ROUND, REMOVED=REMOVED, LINE_START=LINE_START,
)


cdef int _max_margin() noexcept:
    """The largest point margin the scoring allows, by the one scoring rule (score_player):
    one player holds every support and alliance (every majority, every set), the other
    every betrayal."""
    cdef State s
    cdef Score mine, theirs
    cdef int k
    _memset(&s, 0, sizeof(State))
    for k in range(NKINDS):
        if kind_value(k) > 0:
            s.coll[0][k] = DN_COMPOSITION[k]
        elif kind_value(k) < 0:
            s.coll[1][k] = DN_COMPOSITION[k]
    score_player(&s, 0, &mine)
    score_player(&s, 1, &theirs)
    return mine.total - theirs.total


RULE_CONSTANTS["MAX_MARGIN"] = _max_margin()
# the same as module attributes (the C names above are compile-time constants in this file)
globals().update(RULE_CONSTANTS)
PLAYERS = "ab"  # the players' names (0 and 1), as the reasons of position_problem give them
# True in the checked build (setup.py, DNOIR_CHECKED=1): every move checks the state it leaves.
CHECKED = bool(DNOIR_CHECKED)


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


def deck_size(int round) -> int:
    """Cards left in the deck during `round` (1 to 4): 10 for each round still to deal (state.pxd's deck_cards)."""
    if not 1 <= round <= LAST_ROUND:
        raise ValueError(f"round: {round} is not a round (1 to {LAST_ROUND})")
    return deck_cards(round)


cdef void set_status(State *s) noexcept nogil:
    """Derive status (and city_winner) from the collections and the actions; a finished game
    has nobody to move."""
    cdef int p
    s.status = ONGOING
    for p in range(2):
        if s.coll[p][KIND_C] == 3:
            s.status = OVER_CITY
            s.city_winner = p
    if s.status == ONGOING and s.round == LAST_ROUND and \
            s.actions[0] == ACTIONS_PER_ROUND and s.actions[1] == ACTIONS_PER_ROUND:
        s.status = OVER_POINTS
    if s.status != ONGOING:
        s.to_move = NOBODY


cdef object position_fields_problem(State *s, line, hands, hand_sizes, colls, round, to_move,
                                    taken, deck, removed):
    """Fill s from the fields of a position and return the first rule they break, as
    (field, reason), or None when a legal game reaches them (docs/notation.md's list).

    This is the one consistency check of a position (Stockfish's `pos_is_ok`): the card
    counts against the composition, the deck and removed sizes, the actions of the round,
    the turn order, the end of the game, the line's length and the city rule. The fields
    must be well formed (solver.rules.notation.normalize: types, lengths, ranges); whatever
    they hold, nothing is written outside s. A hidden hand is None: its cards are
    unknown, its size is in hand_sizes, and s holds it as empty.
    """
    cdef int p, k, i, n, total, plays, takes, most
    cdef int sizes[2]
    cdef int counts[NKINDS]
    cdef bint known_hand[2]
    cdef bint took[2]
    cdef bint finished
    memset(s, 0, sizeof(State))
    if removed is not None and len(removed) != REMOVED:
        return ("removed", f"{len(removed)} cards, the game removes {REMOVED}")
    s.round = _byte("round", round, 1, LAST_ROUND)
    if deck is not None and len(deck) != deck_cards(s.round):
        return ("deck", f"{len(deck)} cards, round {s.round} leaves {deck_cards(s.round)} in the deck")
    if len(line) > LINE_MAX:
        return ("line", f"{len(line)} cards, more than the game has")
    s.line_len = _cards("line", line, s.line, LINE_MAX, -1)
    if deck is not None:
        s.deck_len = _cards("deck", deck, s.deck, DECK_MAX, -1)
        s.deck_known = 1
    if removed is not None:
        _cards("removed", removed, s.removed, REMOVED, REMOVED)
    s.taken = _byte("taken", taken, 0, 3)
    for p in range(2):
        sizes[p] = _byte("hand sizes", hand_sizes[p], 0, HAND_SIZE)
        known_hand[p] = hands[p] is not None
        if known_hand[p]:
            _counts("hands", hands[p], s.hand[p])
        _counts("colls", colls[p], s.coll[p])
        took[p] = (s.taken >> p) & 1
        s.actions[p] = HAND_SIZE - sizes[p] + took[p]

    for k in range(NKINDS):
        counts[k] = s.coll[0][k] + s.coll[1][k] + s.hand[0][k] + s.hand[1][k]
    for i in range(s.line_len):
        counts[s.line[i]] += 1
    for i in range(s.deck_len):
        counts[s.deck[i]] += 1
    if removed is not None:
        for i in range(REMOVED):
            counts[s.removed[i]] += 1
    for k in range(NKINDS):
        if counts[k] > DN_COMPOSITION[k]:
            return ("cards", f"{counts[k]} cards of kind {KINDS[k]}, the game has {DN_COMPOSITION[k]}")

    parts = dict(line=s.line_len, hands=sizes[0] + sizes[1],
                 collections=sum(s.coll[p][k] for p in range(2) for k in range(NKINDS)),
                 deck=deck_cards(s.round), removed=REMOVED)
    total = sum(parts.values())
    if total != NCARDS:
        detail = " + ".join(f"{name} {n}" for name, n in parts.items())
        return ("cards", f"{total} cards in all ({detail}), the game has {NCARDS}")

    if abs(s.actions[0] - s.actions[1]) > 1:
        return ("hands", f"a has made {s.actions[0]} actions this round and b {s.actions[1]}: "
                         "players alternate, so they differ by at most one")
    finished = s.coll[0][KIND_C] == 3 or s.coll[1][KIND_C] == 3 or (
        s.round == LAST_ROUND and s.actions[0] == ACTIONS_PER_ROUND and s.actions[1] == ACTIONS_PER_ROUND)
    if finished and to_move is not None:
        return ("to-move", "the game is finished, so to-move must be '-'")
    if not finished and to_move is None:
        return ("to-move", "'-' but the game is not finished")
    if to_move is not None:
        p = _byte("to-move", to_move, 0, 1)
        if s.actions[p] >= ACTIONS_PER_ROUND:
            return ("to-move", f"{PLAYERS[p]} has made all {ACTIONS_PER_ROUND} actions "
                               "of the round and cannot make a 7th")
        if s.actions[1 - p] < s.actions[p]:
            return ("to-move", f"{PLAYERS[p]} has made more actions this round than "
                               f"{PLAYERS[1 - p]}, so it is {PLAYERS[1 - p]}'s turn")
        s.to_move = p
    else:
        s.to_move = NOBODY

    plays = 2 * HAND_SIZE - sizes[0] - sizes[1]
    takes = took[0] + took[1]
    if s.line_len < plays - TAKE_SIZE * takes:
        return ("line", f"{s.line_len} cards, but {plays} plays and {takes} take(s) this round "
                        f"leave at least {plays - TAKE_SIZE * takes}")

    for p in range(2):
        if s.coll[p][KIND_C] == 3 and (not took[p] or s.actions[p] < s.actions[1 - p]):
            return (f"collection {PLAYERS[p]}",
                    f"holds the three cities but {PLAYERS[p]} did not make the last action, a take")

    # the round's first player has made as many actions as the other (and moves next) or one more
    if s.actions[0] != s.actions[1]:
        s.first = 0 if s.actions[0] > s.actions[1] else 1
    else:
        s.first = s.to_move if s.to_move != NOBODY else 0
    update_hand_masks(s)
    set_status(s)
    problem = state_problem(s)
    if problem != NULL:  # implied by the rules above; kept so that no State escapes unchecked
        return ("position", problem.decode())
    return None


def position_problem(line, hands, hand_sizes, colls, round, to_move, taken, deck=None, removed=None):
    """The first rule that the (well formed) fields of a position break, as (field, reason),
    or None if a legal game reaches them. See `CoreState.checked`.

    >>> position_problem(line=(0, 4), hands=(None, None), hand_sizes=(5, 5),
    ...     colls=((0,) * 11, (0,) * 11), round=1, to_move=None, taken=0)
    ('to-move', "'-' but the game is not finished")
    """
    cdef State s
    return position_fields_problem(&s, line, hands, hand_sizes, colls, round, to_move, taken, deck, removed)


cdef class CoreState:
    """One District Noir state held in the C struct of ext/state.pxd (declared in
    ext/solver/rules/_core.pxd, so that the search modules take it directly).

    Every constructor checks what it stores; a move keeps the rules' invariants, so a
    CoreState is never checked again. A bare `CoreState()` is an empty finished game.

    >>> s = CoreState.build(line=(0, 4), hands=((1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 2), (0,) * 11),
    ...     colls=((0,) * 11, (0,) * 11), round=4, to_move=0, first=0, actions=(0, 0), taken=0)
    >>> s.legal_moves()
    [0, 1, 2, 10, 11]
    """

    def __cinit__(self):
        # whatever creates it, a CoreState holds a valid state: a finished game with no cards
        memset(&self.s, 0, sizeof(State))
        self.s.round = LAST_ROUND
        self.s.status = OVER_POINTS
        self.s.to_move = NOBODY

    @staticmethod
    def checked(line, hands, hand_sizes, colls, round, to_move, taken, deck=None, removed=None):
        """(CoreState, None) for the fields of a position, or (None, (field, reason)) naming
        the first rule they break (`position_problem`).

        The fields are those of `solver.rules.position.Position`, well formed (see
        solver.rules.notation.normalize): a hidden hand is None, `to_move` None once over.
        """
        cdef CoreState c = CoreState.__new__(CoreState)
        problem = position_fields_problem(&c.s, line, hands, hand_sizes, colls, round, to_move,
                                          taken, deck, removed)
        if problem is not None:
            return None, problem
        return c, None

    @staticmethod
    def build(line, hands, colls, round, to_move, first, actions, taken, deck=None, removed=None):
        """A state from raw core fields; hands/colls are 11 counts each, cards are kind indices.

        `deck` is the undealt cards top first (None: unknown); `removed` the 3 removed
        cards (None: unknown). For positions use `checked`; here every length and value is
        checked before it is stored, and the finished state against the invariants of
        ext/state.pxd (`state_problem`), so no input writes outside the State or gives the
        rules an index outside their arrays: ValueError instead.
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
        set_status(s)
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

    # -- facts read straight from the State (cheap: what Position answers per move) ----

    @property
    def is_over(self):
        """True once the game has ended."""
        return self.s.status != ONGOING

    @property
    def round(self):
        """The round, 1..4."""
        return self.s.round

    @property
    def to_move(self):
        """The side to move (0 or 1), or None once the game is over."""
        return None if self.s.status != ONGOING else self.s.to_move

    @property
    def first(self):
        """The first player of the current round."""
        return self.s.first

    @property
    def actions(self):
        """Actions each player has made this round."""
        return (self.s.actions[0], self.s.actions[1])

    @property
    def hand_sizes(self):
        """Cards in each hand (known or not): they follow from the actions."""
        return (hand_size(&self.s, 0), hand_size(&self.s, 1))

    @property
    def removed(self):
        """The removed cards as stored (meaningful when the caller knows them: a deal)."""
        return (self.s.removed[0], self.s.removed[1], self.s.removed[2])

    @property
    def deck_known(self):
        """True if the order of the undealt cards is known."""
        return self.s.deck_known != 0

    @property
    def legal_mask(self):
        """Bit m set when move m is legal for the side to move (0..10 plays, 11 the take)."""
        return legal_mask(&self.s)

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

    def _play_unchecked(self, int move):
        """The checked build's own test only: `move` applied without asking whether it is
        legal (a card not in hand, a second take), so that the state breaks an invariant and
        the checked build aborts the process. RuntimeError in a normal build, which would
        keep the broken state."""
        if not DNOIR_CHECKED:
            raise RuntimeError("_play_unchecked exists for the checked build (DNOIR_CHECKED=1) only")
        if self.s.status != ONGOING or move < 0 or move >= NMOVES or self.s.line_len >= LINE_MAX:
            raise ValueError(f"move {move} would write outside the state")
        cdef CoreState c = CoreState.__new__(CoreState)
        c.s = self.s
        apply_move(&c.s, move)
        return c

    def play_unseen(self, int move):
        """`play` for a side to move whose hand is unknown (held as empty): a play takes one
        card of that kind from the unseen cards (the caller checks that one is left), a take
        is as usual. ValueError if the move is not legal for that reason."""
        cdef CoreState c = CoreState.__new__(CoreState)
        cdef int p = self.s.to_move
        if self.s.status != ONGOING or move < 0 or move >= NMOVES:
            raise ValueError(f"illegal move {move}")
        c.s = self.s
        if move != MOVE_TAKE:
            if hand_size(&c.s, p) == 0:
                raise ValueError(f"illegal move {move}")
            c.s.hand[p][move] += 1
            c.s.hand_mask[p] |= 1u << move
        if not (legal_mask(&c.s) >> move) & 1:
            raise ValueError(f"illegal move {move}")
        apply_move(&c.s, move)  # the hand is empty again: its other cards stay unknown
        return c

    def view(self, int player):
        """A copy as `player` sees it: the other hand empty (unknown), the deck and the
        removed cards unknown."""
        cdef CoreState c = CoreState.__new__(CoreState)
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, not {player}")
        c.s = self.s
        memset(c.s.hand[1 - player], 0, NKINDS)
        c.s.hand_mask[1 - player] = 0
        memset(c.s.deck, 0, DECK_MAX)
        memset(c.s.removed, 0, REMOVED)
        c.s.deck_len = c.s.deck_pos = c.s.deck_known = 0
        return c

    def view_of(self, player, tuple hidden):
        """(`view(player)`, its hidden flags), in one call for Position.view: `player` is
        'a', 'b', 0 or 1 (anything else gives None, for the caller to name the mistake) and
        `hidden` the position's flags, of which only `player`'s own matters. The flags are
        one of VIEW_HIDDEN's tuples: hand q is hidden when it holds cards and is the other
        player's, or `player`'s own hidden in `hidden`."""
        cdef int p
        if type(player) is str:
            if player == "a":
                p = 0
            elif player == "b":
                p = 1
            else:
                return None
        elif type(player) is int and (player == 0 or player == 1):
            p = player
        else:
            return None
        cdef CoreState c = CoreState.__new__(CoreState)
        cdef int other = 1 - p
        cdef int flags
        c.s = self.s
        memset(c.s.hand[other], 0, NKINDS)
        c.s.hand_mask[other] = 0
        memset(c.s.deck, 0, DECK_MAX)
        memset(c.s.removed, 0, REMOVED)
        c.s.deck_len = c.s.deck_pos = c.s.deck_known = 0
        flags = (hand_size(&c.s, other) > 0) << other
        if hidden[p] and hand_size(&c.s, p) > 0:
            flags |= 1 << p
        return c, VIEW_HIDDEN[flags]

    def outcome(self):
        """(winner, how, score_a, score_b) as if the game ended now.

        winner is 0, 1 or None for a draw; how is one of HOW_NAMES; each score is a tuple
        (majorities, sets, alliances, betrayals (positive, subtracted), total).
        """
        cdef Score scores[2]
        cdef int how = 0
        cdef int winner = game_outcome(&self.s, scores, &how)
        return (
            None if winner == DRAW else winner,
            HOW_NAMES[how],
            (scores[0].majorities, scores[0].sets, scores[0].alliances, scores[0].betrayals, scores[0].total),
            (scores[1].majorities, scores[1].sets, scores[1].alliances, scores[1].betrayals, scores[1].total),
        )

    def outcome_key(self):
        """One whole number that determines `outcome()` and whether the game is over (the
        score parts of both players, the winner, how, and the status), so that a caller can
        keep the objects it builds from an outcome by this key: cheaper than the tuples."""
        cdef Score scores[2]
        cdef int how = 0
        cdef int winner = game_outcome(&self.s, scores, &how)
        cdef uint64_t key = (<uint64_t>winner) | (<uint64_t>how << 2) | (<uint64_t>(self.s.status != ONGOING) << 4)
        cdef int p
        for p in range(2):
            # each part is at most 5 x 8 (26 majorities, 25 sets, 18 alliances, 17 betrayals)
            key |= (<uint64_t>(scores[p].majorities | (scores[p].sets << 6) | (scores[p].alliances << 12)
                               | (scores[p].betrayals << 18))) << (5 + 24 * p)
        return key

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

    def playout_move(self, str policy, seed):
        """The move a playout under `policy` (a name policy_code accepts) makes here with a
        generator seeded `seed`, or None once the game is over; ValueError for another name."""
        cdef Rng r
        cdef int code = policy_code(policy)
        rng_seed(&r, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
        cdef int m = policy_move(&self.s, &r, code)
        return None if m < 0 else m

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
