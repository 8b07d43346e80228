"""Card kinds, their tokens, and move tokens (docs/notation.md, "Cards" and "Moves and game records").

A kind is an index 0..10 in the canonical order ``5 6 7 8 +2 +3 +4 -1 -2 -3 C``;
the C core (ext/state.pxd) uses the same indices, and move 11 is the take. The kinds
and their number of copies are defined by the core; the names here are aliases.
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.errors import CardError, MoveError
from solver.rules import _core

KINDS: tuple[str, ...] = _core.KINDS
NKINDS: int = _core.NKINDS
COMPOSITION: tuple[int, ...] = _core.COMPOSITION
NCARDS: int = _core.NCARDS  # 45
CITY = KINDS.index("C")
TAKE = NKINDS  # the move index of a take
TAKE_TOKEN = "T"
UNKNOWN = "?"
EMPTY = "."

_KIND_OF = {token: kind for kind, token in enumerate(KINDS)}


def tokenize(text: str) -> list[str]:
    """Split a run of card tokens written without separators.

    >>> tokenize("5+2C8-1?")
    ['5', '+2', 'C', '8', '-1', '?']
    """
    tokens, i = [], 0
    while i < len(text):
        width = 2 if text[i] in "+-" else 1
        token = text[i:i + width]
        if token not in _KIND_OF and token != UNKNOWN:
            raise CardError(f"unknown card token {text[i:i + width]!r}")
        tokens.append(token)
        i += width
    return tokens


def parse_cards(text: str) -> list[int]:
    """Kinds of a field of known cards in the order written; '.' is the empty field.

    >>> parse_cards("8+3C")
    [3, 5, 10]
    """
    if text == EMPTY:
        return []
    tokens = tokenize(text)
    if UNKNOWN in tokens:
        raise CardError("'?' is not allowed here")
    return [_KIND_OF[t] for t in tokens]


def counts_of(kinds) -> tuple[int, ...]:
    """Counts per kind of a sequence of kinds.

    >>> counts_of([3, 3, 10])
    (0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 1)
    """
    counts = [0] * NKINDS
    for kind in kinds:
        counts[kind] += 1
    return tuple(counts)


def format_cards(kinds) -> str:
    """Tokens of a sequence of kinds in the order given; '.' when empty.

    >>> format_cards([10, 0, 4])
    'C5+2'
    """
    return "".join(KINDS[k] for k in kinds) or EMPTY


def format_counts(counts) -> str:
    """Tokens of an unordered field (counts per kind) in canonical order; '.' when empty.

    >>> format_counts((1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 1))
    '588C'
    """
    return "".join(KINDS[k] * n for k, n in enumerate(counts)) or EMPTY


@dataclass(frozen=True, order=True)
class Move:
    """A move: play one card of a kind, or take (docs/notation.md's tokens `8`, `+3`, `C`, `T`).

    >>> Move.parse("+3"), str(Move.parse("T")), Move.parse("T").is_take
    (Move('+3'), 'T', True)

    `Move(...)` takes a move index (a kind 0..10, or 11 for the take) or a token, so that
    the printed form can be typed back; anything else is a MoveError:

    >>> Move("6") == Move(1), Move("T").is_take
    (True, True)
    >>> Move(12)
    Traceback (most recent call last):
    ...
    solver.errors.MoveError: 12 is not a move (an index 0 to 11, or a token such as 8, +3, -1, C, T)
    """

    index: int  # a kind 0..10, or TAKE

    def __post_init__(self):
        index = self.index
        if type(index) is int and 0 <= index <= TAKE:
            return
        if isinstance(index, str):
            kind = TAKE if index == TAKE_TOKEN else _KIND_OF.get(index)
            if kind is not None:
                object.__setattr__(self, "index", kind)
                return
        shown = repr(index) if isinstance(index, str) else str(index)
        raise MoveError(f"{shown[:40]} is not a move (an index 0 to {TAKE}, or a token such as 8, +3, -1, C, T)")

    @classmethod
    def parse(cls, token: str) -> "Move":
        """The move of a token; CardError names the token if it is not one."""
        if token == TAKE_TOKEN:
            return cls(TAKE)
        if token in _KIND_OF:
            return cls(_KIND_OF[token])
        raise CardError(f"unknown move {token!r} (a card token such as 8, +3, -1, C, or T for take)")

    @property
    def is_take(self) -> bool:
        """True for the take, False for a play."""
        return self.index == TAKE

    def __str__(self) -> str:
        return TAKE_TOKEN if self.is_take else KINDS[self.index]

    def __repr__(self) -> str:
        return f"Move({str(self)!r})"
