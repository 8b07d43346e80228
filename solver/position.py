"""`Position`: the immutable public face of a District Noir position.

A Position holds the fields of its DNP (NOTATION.md) as plain tuples. Every rule
question (legal moves, the result of a move, the score) is answered by the C core
in ext/state.pxd through `solver._core.CoreState`; nothing here re-implements a rule.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from ._core import CoreState
from .cards import Move, counts_of
from .notation import (
    ACTIONS_PER_ROUND, PLAYERS, ROUNDS, PositionError, actions_made, first_player, format_fields,
    check_rules, normalize, parse_fields,
)


# The built-in example: round 2, b to move holding 8 8 +3, a holds two of the three cities.
EXAMPLE_DNP = "68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a"


from .errors import MoveError  # noqa: E402,F401 - defined in solver.errors, importable from here


@dataclass(frozen=True)
class PlayerScore:
    """One player's score broken down as RULES.md's Scoring section adds it up."""

    majorities: int
    sets: int
    alliances: int
    betrayals: int  # positive; subtracted from the total
    total: int


@dataclass(frozen=True)
class Result:
    """The outcome of a finished game, or the score so far of an unfinished one.

    `winner` is 'a', 'b' or 'draw' and `how` one of 'points', 'tie-break', 'city',
    'draw' once the game is over; both are None before.
    """

    scores: tuple[PlayerScore, PlayerScore]
    over: bool
    winner: str | None
    how: str | None


def _player_index(player) -> int:
    if player in (0, 1):
        return int(player)
    if player in ("a", "b"):
        return PLAYERS.index(player)
    raise ValueError(f"unknown player {player!r} (use 'a' or 'b')")


@dataclass(frozen=True)
class Position:
    """A District Noir position, parsed from and printed as DNP.

    Hands and collections are counts per kind (indices of `solver.cards.KINDS`); a
    hidden hand is None with its size in `hand_sizes`; `taken` has bit 0 for a and
    bit 1 for b; `deck` (top first) and `removed` are None when unknown.

    >>> pos = Position.parse("5+2 678+3C/????? ./. 1 a -")
    >>> [str(m) for m in pos.legal_moves()]
    ['6', '7', '8', '+3', 'C', 'T']
    >>> str(pos.play("T"))
    '. 678+3C/????? 5+2/. 1 b a'
    """

    line: tuple[int, ...]
    hands: tuple[tuple[int, ...] | None, tuple[int, ...] | None]
    hand_sizes: tuple[int, int]
    colls: tuple[tuple[int, ...], tuple[int, ...]]
    round: int
    to_move: int | None
    taken: int
    deck: tuple[int, ...] | None = None
    removed: tuple[int, ...] | None = None

    def __post_init__(self):
        # Built through the API (or by dataclasses.replace) a field may be of any type:
        # check it as the parser would, store sequences as tuples, then check the rules.
        for name, value in normalize(**self._fields()).items():
            if value is not getattr(self, name):
                object.__setattr__(self, name, value)
        check_rules(**self._fields())

    def _fields(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def parse(cls, text: str) -> "Position":
        """Parse one DNP line; PositionError (a ValueError) names the field and the reason."""
        return cls(**parse_fields(text))

    def __str__(self) -> str:
        return format_fields(**self._fields())

    @classmethod
    def random_deal(cls, seed: int) -> "Position":
        """A uniformly random full deal (hands, deck and removed cards known); same seed, same deal.

        >>> str(Position.random_deal(1)) == str(Position.random_deal(1))
        True
        """
        core = CoreState.deal(seed)
        return cls._from_core(core, hidden=(False, False), removed=tuple(sorted(core.export()["removed"])))

    @classmethod
    def _from_core(cls, core: CoreState, hidden: tuple[bool, bool], removed) -> "Position":
        """The Position of a core state; `hidden` says which hands stay unknown."""
        f = core.export()
        sizes = f["hand_sizes"]
        hands = tuple(None if hidden[p] and sizes[p] else f["hands"][p] for p in range(2))
        return cls(line=f["line"], hands=hands, hand_sizes=sizes, colls=f["colls"], round=f["round"],
                   to_move=None if f["over"] else f["to_move"], taken=f["taken"], deck=f["deck"],
                   removed=removed)

    # -- derived facts -------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """True once the game has ended (round 4 complete or a city win)."""
        return self.to_move is None

    @property
    def actions(self) -> tuple[int, int]:
        """Actions each player has made this round."""
        return tuple(actions_made(self.hand_sizes[p], bool(self.taken >> p & 1)) for p in range(2))

    @property
    def first(self) -> int:
        """The first player of the current round (0 = a, 1 = b)."""
        return first_player(self.actions, self.to_move)

    @property
    def moves_left(self) -> int:
        """The most moves the game can still last (fewer if a city win ends it): the actions
        left in this round and in the rounds still to deal. Perft beyond it counts 0.

        >>> Position.random_deal(1).moves_left
        48
        """
        if self.is_over:
            return 0
        this_round = 2 * ACTIONS_PER_ROUND - sum(self.actions)
        return this_round + 2 * ACTIONS_PER_ROUND * (ROUNDS - self.round)

    @property
    def is_full(self) -> bool:
        """True if both hands, the deck and the removed cards are known."""
        return None not in self.hands and self.deck is not None and self.removed is not None

    # -- the rules, through the C core -----------------------------------------------

    def _core(self) -> CoreState:
        empty = counts_of([])
        hands = tuple(h if h is not None else empty for h in self.hands)
        return CoreState.build(
            line=self.line, hands=hands, colls=self.colls, round=self.round,
            to_move=self.to_move if self.to_move is not None else 2, first=self.first,
            actions=self.actions, taken=self.taken, deck=self.deck, removed=self.removed)

    def _require_mover_hand(self) -> None:
        if self.to_move is not None and self.hands[self.to_move] is None:
            raise MoveError(f"the hand of {PLAYERS[self.to_move]}, the side to move, is hidden")

    def legal_moves(self) -> list[Move]:
        """The distinct legal moves, canonical order with the take last; [] once the game is over."""
        if self.is_over:
            return []
        self._require_mover_hand()
        return [Move(m) for m in self._core().legal_moves()]

    def play(self, move: Move | str) -> "Position":
        """The position after `move` (a Move or a token such as '8', '+3', 'T').

        At the end of rounds 1-3 the next hands are dealt from the deck when it is known;
        when it is not, both new hands are hidden.
        """
        if self.to_move is not None and self.hands[self.to_move] is None:
            return self._play_hidden(move)
        if isinstance(move, str):
            move = Move.parse(move)
        if self.is_over:
            raise MoveError(f"the game is over, {move} cannot be played")
        self._require_mover_hand()
        core = self._core()
        if move.index not in core.legal_moves():
            legal = " ".join(str(Move(m)) for m in core.legal_moves())
            raise MoveError(f"{move} is not legal here (legal: {legal})")
        child = core.play(move.index)
        new_round = child.export()["round"] != self.round
        hidden = (self.deck is None,) * 2 if new_round else tuple(h is None for h in self.hands)
        return Position._from_core(child, hidden, self.removed)

    def result(self) -> Result:
        """Scores broken down, and once over the winner and how the game was decided."""
        winner, how, score_a, score_b = self._core().outcome()
        scores = (PlayerScore(**score_a), PlayerScore(**score_b))
        if not self.is_over:
            return Result(scores=scores, over=False, winner=None, how=None)
        return Result(scores=scores, over=True, how=how,
                      winner="draw" if winner is None else PLAYERS[winner])

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
            raise ValueError("divide needs a depth of at least 1")
        if depth > self.moves_left:
            self._require_hands()
            return {str(m): 0 for m in self.legal_moves()}
        core = self._perft_core(depth)
        return {str(Move(m)): core.play(m).perft(depth - 1) for m in core.legal_moves()}

    @staticmethod
    def _perft_depth(depth) -> int:
        if isinstance(depth, bool) or not isinstance(depth, int):
            raise ValueError(f"depth {depth!r} is not a whole number")
        if depth < 0:
            raise ValueError(f"depth {depth} is negative")
        return depth

    def _require_hands(self) -> None:
        if None in self.hands:
            raise PositionError("hands", "perft needs both hands known")

    def _perft_core(self, depth: int) -> CoreState:
        self._require_hands()
        core = self._core()
        if self.deck is None and core.needs_deck(depth):
            raise PositionError("deck", f"depth {depth} reaches the end of round {self.round}: "
                                        "the deck must be given to deal the next round")
        return core

    def view(self, player) -> "Position":
        """The position as `player` ('a' or 'b') sees it: the other hand hidden, deck and removed unknown.

        >>> pos = Position.parse("7-2+3 58/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a . 7+2C")
        >>> str(pos.view("b"))
        '7-2+3 ??/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a'
        """
        p = _player_index(player)
        hands = tuple(self.hands[q] if q == p or not self.hand_sizes[q] else None for q in range(2))
        return replace(self, hands=hands, deck=None, removed=None)

    def zobrist(self) -> int:
        """The 64-bit Zobrist hash of the position (hidden hands count as empty)."""
        return self._core().zobrist()

    # -- following a real game from one player's view ------------------------------------

    def _play_hidden(self, move: Move | str) -> "Position":
        """`play` for a side to move whose hand is hidden: the card named becomes public.

        The hidden hand shrinks by one. The play is refused when no copy of that kind is
        left among the cards the other player cannot see; a take works as for a known hand.
        """
        if isinstance(move, str):
            move = Move.parse(move)
        mover = self.to_move
        hands = list(self.hands[q] if self.hands[q] is not None else counts_of([]) for q in range(2))
        if not move.is_take:
            if not self._unplaced_counts()[move.index]:
                raise MoveError(f"{PLAYERS[mover]} cannot play {move}: every {move} is already in sight "
                                "(line, collections or the known hand)")
            # the core plays from a one-card hand; the hand size follows from the actions
            hands[mover] = counts_of([move.index])
        core = CoreState.build(
            line=self.line, hands=tuple(hands), colls=self.colls, round=self.round, to_move=mover,
            first=self.first, actions=self.actions, taken=self.taken, deck=self.deck, removed=self.removed)
        if move.index not in core.legal_moves():
            why = f"{PLAYERS[mover]} has taken this round already" if self.taken >> mover & 1 else "the line is empty"
            raise MoveError(f"{move} is not legal here ({why})")
        child = core.play(move.index)
        new_round = child.export()["round"] != self.round
        hidden = (self.deck is None,) * 2 if new_round else tuple(h is None for h in self.hands)
        return Position._from_core(child, hidden, self.removed)

    def deal(self, player, hand) -> "Position":
        """The view after `player` ('a' or 'b') learns its own hidden hand (a new round's deal).

        `hand` is a field of card tokens ('568+2C') or counts per kind. It must have as many
        cards as the hidden hand and only cards `player` has not seen; PositionError says why not.

        >>> view = Position.parse("5+2 ?????/????? ./. 1 a -")
        >>> str(view.deal("a", "678+3C"))
        '5+2 678+3C/????? ./. 1 a -'
        """
        p = _player_index(player)
        name = f"hand {PLAYERS[p]}"
        if self.hands[p] is not None:
            raise PositionError(name, "this hand is already known")
        if isinstance(hand, str):
            from .cards import CardError, parse_cards
            try:
                hand = counts_of(parse_cards(hand))
            except CardError as e:
                raise PositionError(name, str(e)) from None
        hand = tuple(hand)
        if sum(hand) != self.hand_sizes[p]:
            raise PositionError(name, f"{sum(hand)} cards given, the hand holds {self.hand_sizes[p]}")
        from .cards import KINDS
        for kind, (n, left) in enumerate(zip(hand, self._unplaced_counts())):
            if n > left:
                raise PositionError(name, f"{n} x {KINDS[kind]} given, but only {left} {KINDS[kind]} "
                                          f"{'is' if left == 1 else 'are'} unseen by {PLAYERS[p]}")
        hands = tuple(hand if q == p else self.hands[q] for q in range(2))
        return replace(self, hands=hands)

    def _unplaced_counts(self) -> tuple[int, ...]:
        """Counts per kind of the cards in no known field: the hidden hands, the deck, the removed.

        For a view whose own hand is known this is what the core's `unseen_counts` gives; it
        also holds when both hands are hidden (a round start before the observer's deal),
        which the core's count refuses.
        """
        from .cards import COMPOSITION  # local: this block is added to the class as one piece
        fields_known = [counts_of(self.line), *self.colls, *(h for h in self.hands if h is not None)]
        fields_known += [counts_of(cards) for cards in (self.deck, self.removed) if cards is not None]
        return tuple(total - sum(field[k] for field in fields_known) for k, total in enumerate(COMPOSITION))
