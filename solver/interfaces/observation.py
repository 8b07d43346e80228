"""One player's view of a position as a flat vector, shared by the OpenSpiel and PettingZoo adapters.

The vector holds what the player can see and nothing else: their own hand, the line in
order, both collections, the round, who is to move, who has taken, and how many cards each
hidden place holds (both hand sizes, the deck, the removed cards). Players are absolute
(a = 0, b = 1) and an `observer` piece says whose view it is. Counts are raw card counts.

>>> from solver.rules.position import Position
>>> pos = Position.parse("5+2 678+3C/????? ./. 1 a -")
>>> vec = encode_view(pos, 0)
>>> len(vec) == OBSERVATION_SIZE, vec[PIECES["own_hand"]].tolist()
(True, [0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0])
"""

from __future__ import annotations

import numpy as np

from solver.rules.cards import NCARDS, NKINDS
from solver.rules.notation import REMOVED, deck_size

# The line never holds a removed card, so it is never longer than this.
MAX_LINE = NCARDS - 3
# The largest count any one number of the vector reaches (the deck at the start: 30 cards).
MAX_VALUE = 30

_LAYOUT = (
    ("observer", 2),           # one-hot: whose view this is
    ("to_move", 2),            # one-hot, all zero once the game is over or while cards are dealt
    ("round", 4),              # one-hot, rounds 1-4
    ("taken", 2),              # 1 for each player who has taken this round
    ("own_hand", NKINDS),      # counts per kind of the observer's hand
    ("hand_sizes", 2),         # cards in each hand (the other one is hidden)
    ("deck_size", 1),          # cards left in the deck (hidden)
    ("removed", 1),            # removed cards (hidden): always 3
    ("collections", 2 * NKINDS),  # counts per kind, a then b
    ("line", MAX_LINE * NKINDS),  # one-hot kind of each line card, oldest first
)


def _slices(layout):
    out, start = {}, 0
    for name, size in layout:
        out[name] = slice(start, start + size)
        start += size
    return out, start


PIECES, OBSERVATION_SIZE = _slices(_LAYOUT)
_NO_HAND = (0,) * NKINDS


_LINE_OFFSETS = PIECES["line"].start + NKINDS * np.arange(MAX_LINE)


def encode_view(pos, observer: int, out: np.ndarray | None = None, own_hand_visible: bool = True) -> np.ndarray:
    """Write `observer`'s view of `pos` (a solver.Position) into `out` (float32, zeroed here).

    `pos` may have hidden hands; only the observer's own hand is read, and only when known
    and `own_hand_visible` (False gives the public view). Returns `out`.
    """
    if out is None:
        out = np.zeros(OBSERVATION_SIZE, np.float32)
    else:
        out[:OBSERVATION_SIZE] = 0.0
    out[PIECES["observer"].start + observer] = 1.0
    if pos.to_move is not None:
        out[PIECES["to_move"].start + pos.to_move] = 1.0
    out[PIECES["round"].start + pos.round - 1] = 1.0
    taken = PIECES["taken"].start
    out[taken] = pos.taken & 1
    out[taken + 1] = pos.taken >> 1 & 1
    hand = pos.hands[observer]
    # the counts pieces sit next to each other: own hand, hand sizes, deck, removed, collections
    counts = (hand if own_hand_visible and hand is not None else _NO_HAND) + pos.hand_sizes + \
        (deck_size(pos.round), REMOVED) + pos.colls[0] + pos.colls[1]
    out[PIECES["own_hand"].start:PIECES["collections"].stop] = counts
    if pos.line:
        out[_LINE_OFFSETS[:len(pos.line)] + np.array(pos.line)] = 1.0
    return out
