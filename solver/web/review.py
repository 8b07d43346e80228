"""Reviews for the web page: a record's moves with the board before and after each, and its
decisions graded by `solver.analysis.review.review_record`, streamed one at a time and cancellable.

>>> record = {"deal": "885565 78+3-1-2/57+2+3+4 6667788+2+2-2-2-3-3C/6677788+2-1-1-2C 4 a - . 58C",
...           "moves": "T T 7 +4"}
>>> replay = replay_of(record)
>>> [(m["ply"], m["player"], m["move"]) for m in replay["moves"]], replay["seats"]
([(1, 'a', 'T'), (2, 'b', 'T'), (3, 'a', '7'), (4, 'b', '+4')], ['a', 'b'])
>>> lines = []
>>> run_review(record, None, None, lines.append, lambda: False)
>>> [line["decision"]["mark"] for line in lines[:-1]], lines[-1]["summary"]["b"]["blunders"]
(['', '??', '', ''], 1)
"""

from __future__ import annotations

from solver.analysis.review import game_of, review_record
from solver.errors import EventError, RecordError
from solver.rules.events import apply_event, observer_of, parse_event
from solver.rules.notation import PLAYERS
from solver.web.board import position_json

REVIEW_SECONDS = 0.3  # a decision's search before round 4, unless the request says otherwise
MAX_EVENTS = 200  # a game has 48 moves and 3 new hands


class Cancelled(Exception):
    """The client went away or the server is stopping: the review ends after this decision."""


def replay_of(record: dict) -> dict:
    """The record's game move by move: each event with the DNP before and after it, the
    seats reviewed and the final position; RecordError names the field or move at fault."""
    pos, tokens, seats = game_of(record)
    if len(tokens) > MAX_EVENTS:
        raise RecordError("moves", f"{len(tokens)} events, a game has at most {MAX_EVENTS}")
    observer = observer_of(pos)
    start, moves, ply = str(pos), [], 0
    for index, token in enumerate(tokens, 1):
        try:
            event = parse_event(token, index)
            before = pos
            pos = apply_event(pos, event, observer, index)
        except EventError as e:
            raise RecordError(f"{'event' if 'start' in record else 'move'} {index} ({token})", e.reason) from None
        is_move = event.move is not None
        ply += is_move
        moves.append(dict(index=index, ply=ply if is_move else None, move=token,
                          player=PLAYERS[before.to_move] if is_move else PLAYERS[observer],
                          round=before.round, before=str(before), after=str(pos)))
    return dict(start=start, moves=moves, seats=sorted(seats), final=position_json(pos))


def run_review(record: dict, limit, seats, emit, cancelled) -> None:
    """Grade the record's decisions, calling `emit({"decision": ...})` for each (the JSON of
    `dnoir review --json`) and `emit({"done": True, "summary": ...})` at the end; stops after
    the decision in progress once `cancelled()` is True."""
    decisions = []

    def on_decision(decision):
        decisions.append(decision)
        emit(dict(decision=decision.to_dict()))
        if cancelled():
            raise Cancelled

    try:
        review_record(record, limit, seats=seats, threads=1, on_decision=on_decision)
    except Cancelled:
        return
    summary = {}
    for player in sorted({d.player for d in decisions}):
        mine = [d for d in decisions if d.player == player]
        summary[player] = dict(decisions=len(mine), mistakes=sum(d.mark == "?" for d in mine),
                               blunders=sum(d.mark == "??" for d in mine),
                               lost=round(sum(max(d.loss, 0.0) for d in mine), 6))
    emit(dict(done=True, summary=summary))
