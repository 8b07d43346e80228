"""The position notation DNP (docs/notation.md): parsing with full validation, and printing.

``<line> <handA>/<handB> <collA>/<collB> <round> <to-move> <taken> [<deck> [<removed>]]``

`read_fields` turns one line into the plain fields of a `solver.rules.position.Position`
(`normalize` does the same for fields given through the API) and `check_rules` rejects,
with a `PositionError` naming the field and the reason, every invalid case docs/notation.md
lists: this module reads and checks the syntax and the types, and reports the verdict of
the core's one consistency check (`solver.rules._core.position_problem`) on the rules.
`format_fields` prints the canonical form.
"""

from __future__ import annotations

from numbers import Integral

from solver.rules import _core
from solver.rules.cards import (
    EMPTY,
    KINDS,
    NCARDS,
    NKINDS,
    UNKNOWN,
    CardError,
    counts_of,
    format_cards,
    format_counts,
    parse_cards,
    tokenize,
)

# The players' names and the rules' sizes, defined by the core (ext/state.pxd, exported by
# solver.rules._core, whose consistency check names them in its reasons); the names here are aliases.
PLAYERS: str = _core.PLAYERS
HAND_SIZE: int = _core.HAND_SIZE
ACTIONS_PER_ROUND: int = _core.ACTIONS_PER_ROUND
TAKE_SIZE: int = _core.TAKE_SIZE
REMOVED: int = _core.REMOVED
LINE_START: int = _core.LINE_START
ROUNDS: int = _core.ROUNDS
TAKEN_FIELDS = {"-": 0, "a": 1, "b": 2, "ab": 3}


from solver.errors import PositionError  # noqa: E402,F401 - defined in solver.errors, importable from here


deck_size = _core.deck_size  # cards left in the deck during a round: 10 for each round still to deal


def _cards_field(name: str, text: str) -> list[int]:
    try:
        return parse_cards(text)
    except CardError as e:
        raise PositionError(name, f"{e} in {text!r}") from None


def _hand_field(name: str, text: str) -> tuple[tuple[int, ...] | None, int]:
    """(counts or None when hidden, size) of one hand."""
    if text == EMPTY:
        return counts_of([]), 0
    try:
        tokens = tokenize(text)
    except CardError as e:
        raise PositionError(name, f"{e} in {text!r}") from None
    hidden = tokens.count(UNKNOWN)
    if hidden and hidden != len(tokens):
        raise PositionError(name, f"{text!r} mixes known cards and '?': a hand is all known or all unknown")
    if len(tokens) > HAND_SIZE:
        raise PositionError(name, f"{len(tokens)} cards, a hand holds at most {HAND_SIZE}")
    if hidden:
        return None, hidden
    return counts_of(_cards_field(name, text)), len(tokens)


def _pair(name: str, text: str) -> tuple[str, str]:
    parts = text.split("/")
    if len(parts) != 2 or not all(parts):
        raise PositionError(name, f"{text!r} is not two fields separated by '/' (use '.' for an empty one)")
    return parts[0], parts[1]


def read_fields(text: str) -> dict:
    """The keyword fields of one DNP line, read and well formed but not yet checked against
    the rules (`check_rules` does that); PositionError names a field that cannot be read."""
    if not isinstance(text, str):
        raise PositionError("position", "not a string")
    text = text.strip()
    if not text:
        raise PositionError("position", "empty")
    fields = text.split(" ")
    if "" in fields:
        raise PositionError("position", "fields must be separated by single spaces")
    if not 6 <= len(fields) <= 8:
        raise PositionError("position", f"{len(fields)} fields, a position has 6 to 8 "
                                        "(line hands collections round to-move taken [deck [removed]])")
    line_text, hands_text, colls_text, round_text, to_move_text, taken_text = fields[:6]
    deck_text = fields[6] if len(fields) > 6 else UNKNOWN
    removed_text = fields[7] if len(fields) > 7 else UNKNOWN

    line = tuple(_cards_field("line", line_text))
    hand_texts = _pair("hands", hands_text)
    parsed_hands = [_hand_field(f"hand {PLAYERS[p]}", hand_texts[p]) for p in range(2)]
    hands = tuple(h for h, _ in parsed_hands)
    hand_sizes = tuple(n for _, n in parsed_hands)
    coll_texts = _pair("collections", colls_text)
    colls = tuple(counts_of(_cards_field(f"collection {PLAYERS[p]}", coll_texts[p])) for p in range(2))

    if round_text not in ("1", "2", "3", "4"):
        raise PositionError("round", f"{round_text!r} is not a round (1 to 4)")
    round_ = int(round_text)
    if to_move_text not in ("a", "b", "-"):
        raise PositionError("to-move", f"{to_move_text!r} is not 'a', 'b' or '-'")
    to_move = None if to_move_text == "-" else PLAYERS.index(to_move_text)
    if taken_text not in TAKEN_FIELDS:
        raise PositionError("taken", f"{taken_text!r} is not '-', 'a', 'b' or 'ab'")
    taken = TAKEN_FIELDS[taken_text]

    deck = None if deck_text == UNKNOWN else tuple(_cards_field("deck", deck_text))
    removed = None if removed_text == UNKNOWN else tuple(sorted(_cards_field("removed", removed_text)))

    return dict(line=line, hands=hands, hand_sizes=hand_sizes, colls=colls, round=round_,
                to_move=to_move, taken=taken, deck=deck, removed=removed)


def _whole(field: str, value, low: int, high: int, what: str) -> int:
    """`value` as an int in [low, high]; bools, floats and other types are refused."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise PositionError(field, f"{_short(value)} is not {what} (a whole number {low} to {high})")
    if not low <= value <= high:
        raise PositionError(field, f"{_short(value)} is out of range for {what} ({low} to {high})")
    return int(value)


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."


def _sequence(field: str, value, length: int | None = None, most: int | None = None) -> tuple:
    """`value` (a tuple or list) as a tuple, of exactly `length` or at most `most` items."""
    if not isinstance(value, (tuple, list)):
        raise PositionError(field, f"{_short(value)} is not a tuple")
    if length is not None and len(value) != length:
        raise PositionError(field, f"{len(value)} items, expected {length}")
    if most is not None and len(value) > most:
        raise PositionError(field, f"{len(value)} cards, at most {most}")
    return tuple(value)


def _kinds(field: str, value, most: int) -> tuple[int, ...]:
    return tuple(_whole(field, k, 0, NKINDS - 1, "a card kind") for k in _sequence(field, value, most=most))


def _counts(field: str, value, high: int) -> tuple[int, ...]:
    # at most `high` of a kind here; more than the game has of a kind is the rules' check ("cards")
    return tuple(_whole(field, n, 0, high, f"a count of {KINDS[k]}")
                 for k, n in enumerate(_sequence(field, value, length=NKINDS)))


def normalize(line, hands, hand_sizes, colls, round, to_move, taken, deck, removed) -> dict:
    """The fields with every type, length and range checked, sequences as tuples and
    `removed` sorted; PositionError names the first field that is not well formed.

    This is what a Position built through the API (not parsed) is checked with first,
    so that no value can reach the C core that the DNP parser would not produce.

    >>> normalize(line=[0, 4], hands=(None, None), hand_sizes=(5, 5), colls=((0,) * 11, (0,) * 11),
    ...           round=1, to_move=0, taken=0, deck=None, removed=None)["line"]
    (0, 4)
    >>> normalize(line=(0, 11), hands=(None, None), hand_sizes=(5, 5), colls=((0,) * 11, (0,) * 11),
    ...           round=1, to_move=0, taken=0, deck=None, removed=None)
    Traceback (most recent call last):
    ...
    solver.errors.PositionError: line: 11 is out of range for a card kind (0 to 10)
    """
    line = _kinds("line", line, NCARDS)
    hands = _sequence("hands", hands, length=2)
    hand_sizes = tuple(_whole("hand sizes", n, 0, HAND_SIZE, "a hand size")
                       for n in _sequence("hand sizes", hand_sizes, length=2))
    known = []
    for p in range(2):
        name = f"hand {PLAYERS[p]}"
        if hands[p] is None:
            if hand_sizes[p] == 0:
                raise PositionError(name, "hidden (None) with 0 cards: an empty hand is known, give 11 zero counts")
            known.append(None)
            continue
        counts = _counts(name, hands[p], HAND_SIZE)
        if sum(counts) != hand_sizes[p]:
            raise PositionError(name, f"{sum(counts)} cards, but its hand size is {hand_sizes[p]}")
        known.append(counts)
    colls = tuple(_counts(f"collection {PLAYERS[p]}", c, NCARDS)
                  for p, c in enumerate(_sequence("collections", colls, length=2)))
    round = _whole("round", round, 1, ROUNDS, "a round")
    if to_move is not None:
        to_move = _whole("to-move", to_move, 0, 1, "a player (0 for a, 1 for b, None once over)")
    taken = _whole("taken", taken, 0, 3, "a set of taken flags (bit 0 a, bit 1 b)")
    if deck is not None:
        deck = _kinds("deck", deck, deck_size(1))
    if removed is not None:
        removed = tuple(sorted(_kinds("removed", removed, NCARDS)))
    return dict(line=line, hands=tuple(known), hand_sizes=hand_sizes, colls=colls, round=round,
                to_move=to_move, taken=taken, deck=deck, removed=removed)


def check_rules(line, hands, hand_sizes, colls, round, to_move, taken, deck, removed) -> _core.CoreState:
    """The rules' check of fields already well formed (by `read_fields` or `normalize`): the core's
    verdict (`solver.rules._core.CoreState.checked`) reported as a PositionError, or the core
    state of the position when it breaks no rule."""
    core, problem = _core.CoreState.checked(line=line, hands=hands, hand_sizes=hand_sizes, colls=colls,
                                            round=round, to_move=to_move, taken=taken, deck=deck,
                                            removed=removed)
    if problem is not None:
        raise PositionError(*problem)
    return core


def format_fields(line, hands, hand_sizes, colls, round, to_move, taken, deck, removed) -> str:
    """The canonical DNP of position fields (the inverse of `read_fields`).

    >>> f = read_fields("5+2 678+3C/????? ./. 1 a -")
    >>> f["line"], f["hands"][1], f["hand_sizes"], f["deck"]
    ((0, 4), None, (5, 5), None)

    >>> format_fields(line=(0, 4), hands=(counts_of([1, 2, 3, 5, 10]), None), hand_sizes=(5, 5),
    ...     colls=(counts_of([]), counts_of([])), round=1, to_move=0, taken=0, deck=None, removed=None)
    '5+2 678+3C/????? ./. 1 a -'
    """
    hand_texts = [format_counts(h) if h is not None else (UNKNOWN * n or EMPTY)
                  for h, n in zip(hands, hand_sizes)]
    taken_text = next(t for t, bits in TAKEN_FIELDS.items() if bits == taken)
    out = [format_cards(line), "/".join(hand_texts), "/".join(format_counts(c) for c in colls),
           str(round), "-" if to_move is None else PLAYERS[to_move], taken_text]
    if deck is not None or removed is not None:
        out.append(UNKNOWN if deck is None else format_cards(deck))
    if removed is not None:
        out.append(format_cards(sorted(removed)))
    return " ".join(out)
