"""`Position`: the immutable public face of a District Noir position.

A Position holds the C core's state of the game (`solver.rules._core.CoreState`), which of
the two hands are hidden and the removed cards. It is checked once, when it is built
(`Position(...)` with keyword fields, `parse`), by the core's one consistency check;
every rule question (legal moves, the result of a move, the score) is then answered
by the core (ext/state.pxd), and a child made by `play` is never checked again.
The fields of its DNP (docs/notation.md) are derived from the core when first asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from solver.base.bounds import MAX_SEED
from solver.errors import ArgumentError, MoveError  # MoveError is importable from here, as it always was
from solver.rules._core import VIEW_HIDDEN, CoreState
from solver.rules.cards import COMPOSITION, KINDS, NKINDS, TAKE, CardError, Move, counts_of, parse_cards
from solver.rules.notation import (
    ACTIONS_PER_ROUND,
    PLAYERS,
    ROUNDS,
    TAKE_SIZE,
    PositionError,
    check_rules,
    format_fields,
    normalize,
    read_fields,
)

# The built-in example: round 2, b to move holding 8 8 +3, a holds two of the three cities.
EXAMPLE_DNP = "68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a"

# The hidden flags of a position are tested by identity on every move: _OPEN when no hand
# is hidden and the deck is known (a full game: every child is open too), _NO_HIDDEN when
# no hand is hidden but the deck is not (the next round's hands will be), else a tuple.
_OPEN = tuple([False, False])
_NO_HIDDEN = VIEW_HIDDEN[0]
# Move objects are immutable: one per move index, and the moves of every legal-move mask
# (bit m: move m, 12 bits), so that `legal_moves` builds no Move.
_MOVES = tuple(Move(m) for m in range(TAKE + 1))
_MOVE_OF_TOKEN = {str(m): m for m in _MOVES}
_MOVES_OF_MASK = tuple(tuple(_MOVES[m] for m in range(TAKE + 1) if mask >> m & 1)
                       for mask in range(1 << (TAKE + 1)))
_new = object.__new__


@dataclass(frozen=True)
class PlayerScore:
    """One player's score broken down as docs/rules.md's scoring section adds it up."""

    majorities: int
    sets: int
    alliances: int
    betrayals: int  # positive; subtracted from the total
    total: int


class Termination(str, Enum):
    """How a game ended (python-chess's `Termination` in spirit). A str whose value is the
    word records, JSON and the board print, so `result.how == "city"` holds and
    `json.dumps` writes "city".

    >>> pos = Position.parse("7-2+3 58/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a . 7+2C")
    >>> while not pos.is_over:
    ...     pos = pos.play(pos.legal_moves()[-1])
    >>> pos.result().how, pos.result().how == "points"
    (<Termination.POINTS: 'points'>, True)
    """

    POINTS = "points"        # the higher total at the end of round 4
    TIE_BREAK = "tie-break"  # equal totals, more 8s (then 7s, 6s, 5s)
    CITY = "city"            # a take gave one player all three cities
    DRAW = "draw"            # equal totals and equal supports

    def __str__(self) -> str:
        return self.value


_TERMINATIONS = {t.value: t for t in Termination}


@dataclass(frozen=True)
class Result:
    """The outcome of a finished game, or the score so far of an unfinished one.

    `winner` is 'a', 'b' or 'draw' and `how` a Termination (POINTS, TIE_BREAK, CITY, DRAW;
    a str, equal to 'points', 'tie-break', 'city' or 'draw') once the game is over; both are
    None before.
    """

    scores: tuple[PlayerScore, PlayerScore]
    over: bool
    winner: str | None
    how: Termination | None


# Results by the core's outcome key (CoreState.outcome_key: the scores, the winner, how
# and whether the game is over): a Result and its PlayerScores are immutable, so positions
# with the same outcome share one, and `result()` builds nothing for an outcome seen before.
_RESULTS: dict = {}
_RESULTS_MAX = 1 << 12  # small: plays leave the score as it was, so most calls hit anyway, and
# a large cache of GC-tracked objects makes every full collection of a long loop dearer


def _make_result(core: CoreState, key: int) -> "Result":
    winner, how, score_a, score_b = core.outcome()
    scores = (_player_score(score_a), _player_score(score_b))
    # a frozen dataclass's __init__ sets each field through object.__setattr__: filling the
    # instance dict directly gives the same object in a third of the time
    result = _new(Result)
    fields = result.__dict__
    fields["scores"] = scores
    if not core.is_over:
        fields["over"], fields["winner"], fields["how"] = False, None, None
    else:
        fields["over"], fields["how"] = True, _TERMINATIONS[how]
        fields["winner"] = "draw" if winner is None else PLAYERS[winner]
    if len(_RESULTS) >= _RESULTS_MAX:
        _RESULTS.clear()
    _RESULTS[key] = result
    return result


def _player_score(parts) -> "PlayerScore":
    score = _new(PlayerScore)
    fields = score.__dict__
    fields["majorities"], fields["sets"], fields["alliances"], fields["betrayals"], fields["total"] = parts
    return score


def _player_index(player) -> int:
    if type(player) is int and player in (0, 1):  # not True/False, not 1.0
        return player
    if isinstance(player, str) and player in ("a", "b"):
        return PLAYERS.index(player)
    raise ArgumentError(f"unknown player {str(player)[:40]!r} (use 'a' or 'b')")


def _as_move(move) -> Move:
    """A Move from a Move or a move token; CardError names a token that is not a move."""
    if isinstance(move, Move):
        return move
    if isinstance(move, str):
        return _MOVE_OF_TOKEN.get(move) or Move.parse(move)
    raise MoveError(f"{move!r} is not a move (a Move or a token such as 8, +3, T)")


def _hidden_flags(core: CoreState, hidden: tuple[bool, bool]) -> tuple[bool, bool]:
    """`hidden` where a hand has cards (an empty hand is always known), as _OPEN or
    _NO_HIDDEN when no hand is hidden."""
    sizes = core.hand_sizes
    flags = (bool(hidden[0]) and sizes[0] > 0, bool(hidden[1]) and sizes[1] > 0)
    if flags != (False, False):
        return flags
    return _OPEN if core.deck_known else _NO_HIDDEN


def _position(core: CoreState, hidden: tuple[bool, bool], removed) -> "Position":
    """A Position around a core state that needs no check (a deal, a child, a view)."""
    pos = _new(Position)
    pos._core = core
    pos._hidden = hidden
    pos._removed = removed
    return pos


class Position:
    """A District Noir position, parsed from and printed as DNP.

    Hands and collections are counts per kind (indices of `solver.rules.cards.KINDS`); a
    hidden hand is None with its size in `hand_sizes`; `taken` has bit 0 for a and
    bit 1 for b; `deck` (top first) and `removed` are None when unknown. Built from
    these keyword fields (`Position(line=..., hands=..., ...)`) or by `parse`; every
    field is checked then, and never again. Positions are immutable, compare and hash
    by their DNP, and pickle (their public fields are read-only properties).

    >>> pos = Position.parse("5+2 678+3C/????? ./. 1 a -")
    >>> [str(m) for m in pos.legal_moves()]
    ['6', '7', '8', '+3', 'C', 'T']
    >>> str(pos.play("T"))
    '. 678+3C/????? 5+2/. 1 b a'
    """

    __slots__ = ("_core", "_hidden", "_removed", "_fields", "_hash")

    FIELDS = ("line", "hands", "hand_sizes", "colls", "round", "to_move", "taken", "deck", "removed")
    __match_args__ = FIELDS  # `case Position(line, hands, ...)` as with the dataclass it was

    def __init__(self, line, hands, hand_sizes, colls, round, to_move, taken, deck=None, removed=None):
        # Built through the API a field may be of any type: check it as the parser would,
        # then the rules (the core's check); PositionError names the field.
        fields = normalize(line=line, hands=hands, hand_sizes=hand_sizes, colls=colls, round=round,
                           to_move=to_move, taken=taken, deck=deck, removed=removed)
        self._init(fields)

    def _init(self, fields: dict) -> None:
        self._core = check_rules(**fields)
        self._hidden = _hidden_flags(self._core, tuple(h is None for h in fields["hands"]))
        self._removed = fields["removed"]
        self._fields = fields

    @classmethod
    def parse(cls, text: str) -> "Position":
        """Parse one DNP line; PositionError (a ValueError) names the field and the reason."""
        pos = _new(cls)
        pos._init(read_fields(text))
        return pos

    def __str__(self) -> str:
        return format_fields(**self._field_values())

    def __repr__(self) -> str:
        return f"Position.parse({str(self)!r})"

    def __reduce__(self):
        # Pickled as its DNP, which holds all of it (Dask and multiprocessing send positions).
        return Position.parse, (str(self),)

    def __eq__(self, other) -> bool:
        if other.__class__ is not Position:
            return NotImplemented
        return self._field_values() == other._field_values()

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:  # first asked: memos key positions, so it is kept
            self._hash = hash(tuple(self._field_values().values()))
            return self._hash

    def fields(self) -> dict:
        """The keyword fields of the position (a fresh dict: `Position(**pos.fields())` == pos)."""
        return dict(self._field_values())

    def replace(self, **changes) -> "Position":
        """A new position with some fields changed, checked like any built position.

        >>> Position.parse("5+2 678+3C/????? ./. 1 a -").replace(line=(0, 5)).line
        (0, 5)
        """
        unknown = set(changes) - set(Position.FIELDS)
        if unknown:
            raise TypeError(f"unknown field(s) {', '.join(sorted(unknown))}")
        return Position(**{**self._field_values(), **changes})

    __replace__ = replace  # copy.replace(pos, ...) (Python 3.13) works as pos.replace(...)

    def _field_values(self) -> dict:
        try:
            return self._fields
        except AttributeError:  # not derived yet: a child of `play` leaves it unset
            f = self._core.export()
            hidden = self._hidden
            fields = dict(
                line=f["line"], hands=tuple(None if hidden[p] else f["hands"][p] for p in range(2)),
                hand_sizes=f["hand_sizes"], colls=f["colls"], round=f["round"],
                to_move=None if f["over"] else f["to_move"], taken=f["taken"], deck=f["deck"],
                removed=self._removed)
            self._fields = fields
            return fields

    def _hand_hidden(self, player: int) -> bool:
        """`self.hands[player] is None`, without deriving the fields of a child of `play`."""
        try:
            return self._fields["hands"][player] is None
        except AttributeError:  # a child: its hands are None exactly where _hidden says
            return self._hidden[player]

    # -- the fields (read-only) ----------------------------------------------------------

    @property
    def line(self) -> tuple[int, ...]:
        """The line's cards (kinds), oldest first."""
        return self._field_values()["line"]

    @property
    def in_reach(self) -> tuple[int, ...]:
        """The cards (kinds) a take would get now: the newest TAKE_SIZE of the line, oldest first."""
        return self.line[-TAKE_SIZE:]

    @property
    def hands(self) -> tuple[tuple[int, ...] | None, tuple[int, ...] | None]:
        """Each hand as counts per kind, or None when hidden."""
        return self._field_values()["hands"]

    @property
    def hand_sizes(self) -> tuple[int, int]:
        """Cards in each hand, hidden or not."""
        return self._core.hand_sizes

    @property
    def colls(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Each player's collection as counts per kind."""
        return self._field_values()["colls"]

    @property
    def round(self) -> int:
        """The round, 1 to 4."""
        return self._core.round

    @property
    def to_move(self) -> int | None:
        """The side to move (0 = a, 1 = b), None once the game is over."""
        return self._core.to_move

    @property
    def taken(self) -> int:
        """Who has taken this round: bit 0 a, bit 1 b."""
        return self._field_values()["taken"]

    @property
    def deck(self) -> tuple[int, ...] | None:
        """The undealt cards, top first; None when unknown."""
        return self._field_values()["deck"]

    @property
    def removed(self) -> tuple[int, ...] | None:
        """The three removed cards, sorted; None when unknown."""
        return self._removed

    @property
    def core(self) -> CoreState:
        """The core state the rules act on, for the compiled search modules (hidden hands
        are held as empty there; a CoreState has no method that changes it)."""
        return self._core

    @classmethod
    def random_deal(cls, seed: int) -> "Position":
        """A uniformly random full deal (hands, deck and removed cards known); same seed, same deal.

        `seed` is a whole number 0 to 2**53 - 1, the range of the CLI's `--seed` (and of the
        deal seeds the match runner derives), so that every seed printed anywhere replays its
        deal here and stays exact in any JSON reader; anything else is an ArgumentError,
        never wrapped round.

        >>> str(Position.random_deal(1)) == str(Position.random_deal(1))
        True
        >>> Position.random_deal(-1)
        Traceback (most recent call last):
        ...
        solver.errors.ArgumentError: random_deal: seed: -1 is out of range (0 to 9007199254740991)
        """
        if type(seed) is not int:
            raise ArgumentError(f"random_deal: seed: {str(seed)[:40]!r} is not a whole number (0 to {MAX_SEED})")
        if not 0 <= seed <= MAX_SEED:
            raise ArgumentError(f"random_deal: seed: {seed} is out of range (0 to {MAX_SEED})")
        core = CoreState.deal(seed)
        return _position(core, _OPEN, tuple(sorted(core.removed)))

    # -- derived facts -------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """True once the game has ended (round 4 complete or a city win)."""
        return self._core.is_over

    @property
    def actions(self) -> tuple[int, int]:
        """Actions each player has made this round."""
        return self._core.actions

    @property
    def first(self) -> int:
        """The first player of the current round (0 = a, 1 = b).

        DNP does not record it once the game is over: a finished position parsed from DNP
        gives the player its actions imply (a when they are equal), one played to its end
        the round's actual first player.
        """
        return self._core.first

    @property
    def moves_left(self) -> int:
        """The most moves the game can still last (fewer if a city win ends it): the actions
        left in this round and in the rounds still to deal. Perft beyond it counts 0.

        >>> Position.random_deal(1).moves_left
        48
        """
        core = self._core
        if core.is_over:
            return 0
        return 2 * ACTIONS_PER_ROUND * (ROUNDS - core.round + 1) - sum(core.actions)

    @property
    def is_full(self) -> bool:
        """True if both hands, the deck and the removed cards are known."""
        return self._hidden is _OPEN and self._removed is not None

    # -- the rules, through the C core -----------------------------------------------

    def _require_mover_hand(self) -> None:
        mover = self._core.to_move
        if mover is not None and self._hidden[mover]:
            raise MoveError(f"the hand of {PLAYERS[mover]}, the side to move, is hidden")

    def legal_moves(self) -> list[Move]:
        """The distinct legal moves, canonical order with the take last; [] once the game is over."""
        hidden = self._hidden
        if hidden is not _OPEN and hidden is not _NO_HIDDEN:
            self._require_mover_hand()
        return list(_MOVES_OF_MASK[self._core.legal_mask])

    def play(self, move: Move | str) -> "Position":
        """The position after `move` (a Move or a token such as '8', '+3', 'T').

        Legality is the core's move mask; the child is not checked again. At the end of
        rounds 1-3 the next hands are dealt from the deck when it is known; when it is
        not, both new hands are hidden. When the side to move's hand is hidden (a view
        following a real game), the card named is played from it: see `deal`.
        """
        if self._hidden is not _OPEN or move.__class__ is not Move:
            return self._play_from_view(_as_move(move))
        try:
            child = self._core.play(move.index)
        except ValueError:
            raise self._illegal(move) from None
        pos = _new(Position)
        pos._core = child
        pos._hidden = _OPEN
        pos._removed = self._removed
        return pos

    def _illegal(self, move: Move) -> MoveError:
        if self.is_over:
            return MoveError(f"the game is over, {move} cannot be played")
        legal = " ".join(str(m) for m in self.legal_moves())
        return MoveError(f"{move} is not legal here (legal: {legal})")

    def _play_from_view(self, move: Move) -> "Position":
        """`play` for all but a full position and a Move (a token, a hand or the deck hidden).
        A hidden side to move plays the card named: it
        becomes public and the hidden hand shrinks by one. The play is refused when no copy
        of that kind is left among the cards the other player cannot see; a take works as
        for a known hand."""
        core, hidden = self._core, self._hidden
        mover = core.to_move
        if mover is None or not hidden[mover]:
            try:
                child = core.play(move.index)
            except ValueError:
                raise self._illegal(move) from None
        else:
            if not move.is_take and not self._unplaced_counts()[move.index]:
                raise MoveError(f"{PLAYERS[mover]} cannot play {move}: every {move} is already in sight "
                                "(line, collections or the known hand)")
            try:
                child = core.play_unseen(move.index)
            except ValueError:
                why = (f"{PLAYERS[mover]} has taken this round already" if self.taken >> mover & 1
                       else "the line is empty")
                raise MoveError(f"{move} is not legal here ({why})") from None
        if child.round != core.round:
            hidden = (not child.deck_known,) * 2
        return _position(child, _hidden_flags(child, hidden), self._removed)

    def result(self) -> Result:
        """Scores broken down, and once over the winner and how the game was decided."""
        key = self._core.outcome_key()
        result = _RESULTS.get(key)
        if result is None:
            result = _make_result(self._core, key)
        return result

    def score(self) -> tuple[PlayerScore, PlayerScore]:
        """Both players' scores as the collections stand (the final scores once over).

        >>> a, b = Position.parse("5+2 678+3C/????? ./. 1 a -").score()
        >>> a.total, b.total
        (0, 0)
        """
        return self.result().scores

    def perft(self, depth: int) -> int:
        """Number of move sequences of exactly `depth` moves (chess-style perft).

        Needs both hands known, and the deck too when the depth reaches a deal. A depth
        beyond `moves_left` counts 0 (no game lasts that long). Ctrl-C (any signal whose
        handler raises) interrupts the count in C within milliseconds.
        """
        depth = self._perft_depth(depth)
        if depth > self.moves_left:
            self._require_hands()
            return 0
        return self._perft_core(depth).perft(depth)

    def divide(self, depth: int) -> dict[str, int]:
        """perft(depth - 1) of the position after each legal move, keyed by move token."""
        depth = self._perft_depth(depth)
        if depth < 1:
            raise ArgumentError("divide needs a depth of at least 1")
        if depth > self.moves_left:
            self._require_hands()
            return {str(m): 0 for m in self.legal_moves()}
        core = self._perft_core(depth)
        return {str(_MOVES[m]): core.play(m).perft(depth - 1) for m in core.legal_moves()}

    @staticmethod
    def _perft_depth(depth) -> int:
        if isinstance(depth, bool) or not isinstance(depth, int):
            raise ArgumentError(f"depth {depth!r} is not a whole number")
        if depth < 0:
            raise ArgumentError(f"depth {depth} is negative")
        return depth

    def _require_hands(self) -> None:
        if self._hidden is not _OPEN and self._hidden is not _NO_HIDDEN:
            raise PositionError("hands", "perft needs both hands known")

    def _perft_core(self, depth: int) -> CoreState:
        self._require_hands()
        core = self._core
        if not core.deck_known and core.needs_deck(depth):
            raise PositionError("deck", f"depth {depth} reaches the end of round {core.round}: "
                                        "the deck must be given to deal the next round")
        return core

    def view(self, player) -> "Position":
        """The position as `player` ('a' or 'b') sees it: the other hand hidden, deck and removed unknown.

        >>> pos = Position.parse("7-2+3 58/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a . 7+2C")
        >>> str(pos.view("b"))
        '7-2+3 ??/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a'
        """
        seen = self._core.view_of(player, self._hidden)
        if seen is None:
            _player_index(player)  # raises ArgumentError, naming the player
        pos = _new(Position)
        pos._core, pos._hidden = seen
        pos._removed = None
        return pos

    # -- following a real game from one player's view ------------------------------------

    def deal(self, player, hand=None) -> "Position":
        """The view after `player` ('a' or 'b') learns its own hidden hand (a new round's deal).

        `hand` is a field of card tokens ('568+2C') or counts per kind. It must have as many
        cards as the hidden hand and only cards `player` has not seen; PositionError says why not.

        >>> view = Position.parse("5+2 ?????/????? ./. 1 a -")
        >>> str(view.deal("a", "678+3C"))
        '5+2 678+3C/????? ./. 1 a -'
        """
        p = _player_index(player)
        name = f"hand {PLAYERS[p]}"
        if not self._hidden[p]:
            raise PositionError(name, "this hand is already known")
        if isinstance(hand, str):
            try:
                hand = counts_of(parse_cards(hand))
            except CardError as e:
                raise PositionError(name, str(e)) from None
        elif not (isinstance(hand, (tuple, list)) and len(hand) == NKINDS
                  and all(type(n) is int and n >= 0 for n in hand)):
            raise PositionError(name, f"a hand is card tokens such as '568+2C' or {NKINDS} counts per kind, "
                                      f"not {str(hand)[:40]!r}")
        hand = tuple(hand)
        size = self.hand_sizes[p]
        if sum(hand) != size:
            raise PositionError(name, f"{sum(hand)} cards given, the hand holds {size}")
        for kind, (n, left) in enumerate(zip(hand, self._unplaced_counts())):
            if n > left:
                raise PositionError(name, f"{n} x {KINDS[kind]} given, but only {left} {KINDS[kind]} "
                                          f"{'is' if left == 1 else 'are'} unseen by {PLAYERS[p]}")
        # checked as a built position: the hand's counts are well formed and fit the rules
        return self.replace(hands=tuple(hand if q == p else self.hands[q] for q in range(2)))

    def _unplaced_counts(self) -> tuple[int, ...]:
        """Counts per kind of the cards in no known field: the hidden hands, the deck, the removed.

        For a view whose own hand is known this is what the core's `unseen_counts` gives; it
        also holds when both hands are hidden (a round start before the observer's deal),
        which the core's count refuses.
        """
        fields_known = [counts_of(self.line), *self.colls, *(h for h in self.hands if h is not None)]
        fields_known += [counts_of(cards) for cards in (self.deck, self.removed) if cards is not None]
        return tuple(total - sum(field[k] for field in fields_known) for k, total in enumerate(COMPOSITION))

