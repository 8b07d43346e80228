"""Positions as the page's JSON: the fields of the DNP as card tokens, the legal moves, the
score so far (or the result), and where an impossible position goes wrong.

>>> data = position_json(Position.parse("5+2 678+3C/????? ./. 1 a -"))
>>> data["dnp"], data["line"], data["hands"][1], data["legal"]
('5+2 678+3C/????? ./. 1 a -', ['5', '+2'], None, ['6', '7', '8', '+3', 'C', 'T'])
>>> position_json(Position.random_deal(5))["removed"]   # the 3 cards removed at the deal
['5', '6', '+4']
>>> error_json(Position.parse, "5+2 678+3C/????? ./. 5 a -")["field"]
'round'
"""

from __future__ import annotations

from solver.agents.arena import result_dict
from solver.errors import DnoirError, EventError, FieldError, PositionError
from solver.interfaces.board import render_board, render_score
from solver.rules.cards import KINDS, TAKE_TOKEN
from solver.rules.events import apply_events, observer_of
from solver.rules.notation import PLAYERS
from solver.rules.position import Position

# The longest text a request may give where a DNP or a list of events is expected: a DNP
# is under 150 characters and a whole game's events under 400.
MAX_DNP_CHARS = 300
MAX_EVENTS_CHARS = 2000
TAKEN = ("-", "a", "b", "ab")


def _tokens(counts) -> list[str]:
    """Card tokens of counts per kind, in canonical order."""
    return [KINDS[k] for k, n in enumerate(counts) for _ in range(n)]


def position_json(pos: Position) -> dict:
    """The page's form of a position: every field as tokens, the legal moves, the score.

    `legal` is empty when the game is over; when the side to move's hand is hidden (a game
    followed from the other seat) `legal` is None and `playable` lists the cards that side
    could still play (those not all in sight) and `T` when a take is allowed.
    """
    mover = pos.to_move
    hidden_mover = mover is not None and pos.hands[mover] is None
    if hidden_mover:
        legal = None
        playable = [k for k in KINDS if _can_play_unseen(pos, k)]
        if _can_play_unseen(pos, TAKE_TOKEN):
            playable.append(TAKE_TOKEN)
    else:
        legal = [str(m) for m in pos.legal_moves()]
        playable = legal
    take = pos.in_reach
    result = pos.result()
    return dict(
        dnp=str(pos), round=pos.round, to_move=None if mover is None else PLAYERS[mover],
        taken=TAKEN[pos.taken], line=[KINDS[k] for k in pos.line],
        hands=[None if h is None else _tokens(h) for h in pos.hands], hand_sizes=list(pos.hand_sizes),
        colls=[_tokens(c) for c in pos.colls],
        deck=None if pos.deck is None else [KINDS[k] for k in pos.deck],
        removed=None if pos.removed is None else [KINDS[k] for k in sorted(pos.removed)],
        over=pos.is_over, legal=legal, playable=playable, take=[KINDS[k] for k in take],
        observer=None if observer_of(pos) is None else PLAYERS[observer_of(pos)],
        result=result_dict(pos) if pos.is_over else None,
        scores={PLAYERS[p]: s.total for p, s in enumerate(result.scores)},
        board=render_board(pos), score=render_score(pos))


def _can_play_unseen(pos: Position, token: str) -> bool:
    try:
        pos.play(token)
    except DnoirError:
        return False
    return True


def error_json(fn, *args) -> dict | None:
    """None if `fn(*args)` succeeds, else the error as the page shows it: `error` (the
    one line the CLI prints), `field` and `reason` (for a field's mistake)."""
    try:
        fn(*args)
    except DnoirError as e:
        return mistake(e)
    return None


def mistake(e: DnoirError, field: str | None = None) -> dict:
    """The JSON of an input mistake: the CLI's one line, and the field at fault when known."""
    out = dict(error=" ".join(str(e).split()))
    if isinstance(e, FieldError):
        out.update(field=e.field, reason=e.reason)
    elif isinstance(e, EventError):
        out.update(field=field or "moves", index=e.index, token=e.token, reason=e.reason)
    elif field is not None:
        out.update(field=field)
    return out


def parse_position(dnp: str | None, moves: str | None = None) -> Position:
    """The position of a request: its DNP (length-capped) and then its events, if any.

    Raises DnoirError (PositionError, EventError) for the caller to answer with a 400.
    """
    if not isinstance(dnp, str) or not dnp.strip():
        raise PositionError("position", "empty: give a DNP")
    if len(dnp) > MAX_DNP_CHARS:
        raise PositionError("position", f"{len(dnp)} characters, a DNP is at most {MAX_DNP_CHARS}")
    pos = Position.parse(" ".join(dnp.split()))
    if moves:
        if not isinstance(moves, str) or len(moves) > MAX_EVENTS_CHARS:
            raise EventError(0, "moves", f"give at most {MAX_EVENTS_CHARS} characters of events")
        pos = apply_events(pos, moves)
    return pos
