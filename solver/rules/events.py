"""Event strings: what one player saw of a game, applied to a starting position.

An event string is a list of events separated by spaces. An event is either

- a move token (docs/notation.md: `8`, `+3`, `-1`, `C`, `T`): the action of the side to move,
  whoever that is; a play from a hidden hand names the card that became public; or
- `hand:<cards>` (for example `hand:568+2C`): the observer's own new hand at a round start,
  when the deck is unknown and the new hands are therefore hidden.

The observer is the player whose hand is known while the other's is hidden (it can also be
given). A wrong event is refused with an `EventError` naming its index (from 1), its token
and the reason.

>>> start = Position.parse("5+2 678+3C/????? ./. 1 a -")
>>> str(apply_events(start, "8 -1 T"))
'. 67+3C/???? 58+2-1/. 1 b a'
>>> apply_events(start, "8 +4 +4")
Traceback (most recent call last):
...
solver.errors.EventError: event 3 (+4): a cannot play +4: the legal moves are 6 7 +3 C T
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.errors import DnoirError, EventError, OptionError
from solver.rules.cards import CardError, Move, counts_of, parse_cards
from solver.rules.notation import PLAYERS
from solver.rules.position import Position

HAND_PREFIX = "hand:"


@dataclass(frozen=True)
class Event:
    """One parsed event: a move, or the observer's new hand (counts per kind)."""

    token: str
    move: Move | None = None
    hand: tuple[int, ...] | None = None

    def __str__(self) -> str:
        return self.token


def parse_event(token: str, index: int = 1) -> Event:
    """The event of one token; EventError says why a token is not one.

    >>> parse_event("hand:568+2C").hand
    (1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 1)
    """
    if token.startswith(HAND_PREFIX):
        cards = token[len(HAND_PREFIX):]
        try:
            kinds = parse_cards(cards) if cards else None
        except CardError as e:
            raise EventError(index, token, str(e)) from None
        if not kinds:
            raise EventError(index, token, "give the cards of the hand after 'hand:' (for example hand:568+2C)")
        return Event(token, hand=counts_of(kinds))
    try:
        return Event(token, move=Move.parse(token))
    except CardError as e:
        raise EventError(index, token, f"{e}, or hand:<cards> for a new hand") from None


def parse_events(text: str) -> list[Event]:
    """The events of an event string, in order; EventError names the first bad one."""
    return [parse_event(token, i) for i, token in enumerate(text.split(), 1)]


def observer_of(pos: Position) -> int | None:
    """The player whose hand is known while the other's is hidden (0 = a, 1 = b), else None."""
    hidden = [h is None for h in pos.hands]
    if hidden.count(True) != 1:
        return None
    return hidden.index(False)


def apply_event(pos: Position, event: Event, observer: int | None = None, index: int = 1) -> Position:
    """The position after one event; EventError (with `index`) says why it cannot be applied.

    `observer` is the player a `hand:` event deals to; None: the one `observer_of` finds.
    """
    if observer is None:
        observer = observer_of(pos)
    try:
        if event.move is not None:
            if pos.is_over:
                raise EventError(index, event.token, "the game is over")
            mover_hand = pos.hands[pos.to_move]
            if mover_hand is not None and event.move not in pos.legal_moves():
                legal = " ".join(str(m) for m in pos.legal_moves())
                raise EventError(index, event.token,
                                 f"{PLAYERS[pos.to_move]} cannot play {event.move}: the legal moves are {legal}")
            return pos.play(event.move)
        if pos.is_over:
            raise EventError(index, event.token, "the game is over")
        if observer is None:
            raise EventError(index, event.token, "cannot tell whose hand this is: start from a view with your "
                             "own hand known and the other hidden")
        if pos.hands[observer] is not None:
            raise EventError(index, event.token, f"the hand of {PLAYERS[observer]} is already known (a new hand "
                             "is given only at a round start, before it is played from)")
        return pos.deal(observer, event.hand)
    except EventError:
        raise
    except DnoirError as e:  # the position's own verdict (MoveError, PositionError), not a bug
        raise EventError(index, event.token, str(e)) from None


def apply_events(pos: Position, text: str, observer: int | None = None) -> Position:
    """The position after every event of `text`; EventError names the first that fails.

    The observer, when not given, is found from the first position that shows it.
    """
    for index, event in enumerate(parse_events(text), 1):
        if observer is None:
            observer = observer_of(pos)
        pos = apply_event(pos, event, observer, index)
    return pos


def apply_option(pos: Position, text: str | None) -> Position:
    """The position reached by the `--moves EVENTS` option (unchanged when not given).

    The error names the option: `--moves: event 3 (+4): ...`.
    """
    if not text:
        return pos
    try:
        return apply_events(pos, text)
    except EventError as e:
        raise OptionError(f"--moves: {e}") from None
