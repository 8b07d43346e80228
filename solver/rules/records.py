"""Checking a game record as `dnoir match --out` writes it, before anything reads it.

A record (see solver.agents.arena.play_game and solver.agents.match.play_job) is one JSON object:
`deal` (the full DNP of a round-1 start), `moves` (tokens separated by spaces, each legal
in turn), `result` (winner, how, both scores), `players`, `settings`, `seed`, and from a
match `pairing`, `pair`, `game`, `match_seed` and `deal_seed` (the seed `dnoir play --seed`
and `Position.random_deal` deal the same cards from); `fault` and `engines` when an external
engine played. A game started from an opening book (`dnoir match --book`) has `book`, the
book's digest, instead of `deal_seed`, and its `deal` is the book's position: any full
position of an unfinished game. Files are edited, cut and concatenated by hand, so every reader checks a
record first and reports a bad one by its field instead of failing somewhere later.

Each reader names the fields it needs (`required`); a field that is present is always
checked, needed or not, and fields this module does not know are allowed.

>>> from solver.agents.match import make_jobs, play_job
>>> record = play_job(make_jobs([("greedy", "random")], pairs=1, seed=1)[0])
>>> check_record(record, MATCH_FIELDS) is record
True
>>> try:
...     check_record(dict(record, result=None))
... except RecordError as e:
...     print(e.field, "|", e.reason)
result | must be an object, not null
"""

from __future__ import annotations

import re

from solver.base.bounds import MAX_SEED
from solver.errors import RecordError
from solver.rules.cards import CardError, Move
from solver.rules.notation import PLAYERS, PositionError
from solver.rules.position import Position

# What each reader needs: a replay only the game itself; a match resume every field its
# record key and its summary read.
REPLAY_FIELDS = ("deal", "moves")
BOOK_DIGEST = re.compile(r"[0-9a-f]{16}")  # how a match record names its opening book (solver.agents.book)
MATCH_FIELDS = ("deal", "moves", "result", "pairing", "pair", "game", "match_seed")

WINNERS = ("a", "b", "draw")
FAULT_KINDS = ("timeout", "illegal", "crash")  # the kinds solver.agents.match.summarise counts
SCORE_FIELDS = ("majorities", "sets", "alliances", "betrayals", "total")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _kind(value) -> str:
    """The JSON name of a value's type, for messages."""
    if value is None:
        return "null"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "an object"}.get(type(value), type(value).__name__)


def check_record(record, required=REPLAY_FIELDS):
    """`record` itself if it is a usable game record; RecordError naming the field otherwise.

    Every field of `required` must be present; every known field present is checked
    (so `"result": null` is refused even where the result is not needed).
    """
    if not isinstance(record, dict):
        raise RecordError("record", f"a game record is a JSON object, not {_kind(record)}")
    for name in required:
        if name not in record:
            raise RecordError(name, "missing")
    for name in ("pair", "game"):
        if name in record and not (_is_int(record[name]) and record[name] >= 0):
            raise RecordError(name, f"must be a whole number 0 or more, not {record[name]!r}")
    if "game" in record and record["game"] not in (0, 1):
        raise RecordError("game", f"must be 0 or 1, not {record['game']!r}")
    for name in ("match_seed", "seed", "deal_seed"):
        if name in record and not _is_int(record[name]):
            raise RecordError(name, f"must be an integer, not {_kind(record[name])}")
    if "book" in record and not (isinstance(record["book"], str) and BOOK_DIGEST.fullmatch(record["book"])):
        raise RecordError("book", f"must be 16 hexadecimal digits (the digest of an opening book), not {record['book']!r:.40}")
    if "deal_seed" in record and not 0 <= record["deal_seed"] <= MAX_SEED:
        raise RecordError("deal_seed", f"{record['deal_seed']} is out of range (0 to {MAX_SEED})")
    if "pairing" in record:
        pairing = record["pairing"]
        if not (isinstance(pairing, list) and len(pairing) == 2 and all(isinstance(s, str) for s in pairing)):
            raise RecordError("pairing", f"must be a list of two strings, not {pairing!r:.80}")
    for name in ("players", "engines"):
        if name in record:
            _check_seats(name, record[name])
    for name in ("settings", "result", "fault"):
        if name in record and not isinstance(record[name], dict):
            raise RecordError(name, f"must be an object, not {_kind(record[name])}")
    if "fault" in record:
        _check_fault(record["fault"])
    if "result" in record:
        _check_result(record["result"])
    if "deal" in record or "moves" in record:
        if "deal" not in record or "moves" not in record:
            raise RecordError("moves" if "deal" in record else "deal", "missing (deal and moves go together)")
        end = _replay(record["deal"], record["moves"], from_book="book" in record)
        if "result" in record:
            check_result_matches(record, end)
    if "deal_seed" in record and "deal" in record and str(Position.random_deal(record["deal_seed"])) != record["deal"]:
        raise RecordError("deal_seed", "deals other cards than the record's `deal`")
    return record


def _check_seats(name: str, value) -> None:
    if not isinstance(value, dict) or not set(value) <= set(PLAYERS):
        raise RecordError(name, f"must be an object with the seats 'a' and 'b', not {value!r:.80}")
    for seat, who in value.items():
        if who is not None and not isinstance(who, str):
            raise RecordError(f"{name}.{seat}", f"must be a string, not {_kind(who)}")


def _check_fault(fault: dict) -> None:
    if fault.get("player") not in PLAYERS:
        raise RecordError("fault.player", f"must be 'a' or 'b', not {fault.get('player')!r:.40}")
    if fault.get("kind") not in FAULT_KINDS:
        raise RecordError("fault.kind", f"must be one of {', '.join(FAULT_KINDS)}, not {fault.get('kind')!r:.40}")


def _check_result(result: dict) -> None:
    if result.get("winner") not in WINNERS:
        raise RecordError("result.winner", f"must be 'a', 'b' or 'draw', not {result.get('winner')!r:.40}")
    if not isinstance(result.get("how"), str):
        raise RecordError("result.how", f"must be a string, not {_kind(result.get('how'))}")
    scores = result.get("scores")
    if not isinstance(scores, dict):
        raise RecordError("result.scores", f"must be an object, not {_kind(scores)}")
    for seat in PLAYERS:
        score = scores.get(seat)
        if not isinstance(score, dict):
            raise RecordError(f"result.scores.{seat}", f"must be an object, not {_kind(score)}")
        for name in SCORE_FIELDS:
            if not _is_int(score.get(name)):
                raise RecordError(f"result.scores.{seat}.{name}", f"must be an integer, not {_kind(score.get(name))}")


def _replay(deal, moves, from_book=False):
    """The C core state after the moves, each checked legal in turn (the core directly: fast enough for big files).

    The deal is a full deal at the start of round 1, or for a game started from an opening
    book (`from_book`: the record names one) any full position of an unfinished game."""
    if not isinstance(deal, str):
        raise RecordError("deal", f"must be a DNP string, not {_kind(deal)}")
    if not isinstance(moves, str):
        raise RecordError("moves", f"must be a string of move tokens, not {_kind(moves)}")
    try:
        start = Position.parse(deal)
    except PositionError as e:
        raise RecordError("deal", str(e)) from None
    if from_book and (not start.is_full or start.is_over):
        raise RecordError("deal", "must be a full position (both hands, deck and removed cards) of an unfinished game")
    if not from_book and (not start.is_full or start.round != 1 or start.actions != (0, 0) or start.is_over):
        raise RecordError("deal", "must be a full deal (both hands, deck and removed cards) at the start of round 1")
    core = start.core
    for ply, token in enumerate(moves.split(), 1):
        shown = token[:12]
        try:
            move = Move.parse(token).index
        except CardError:
            raise RecordError("moves", f"move {ply} ({shown!r}) is not a move token") from None
        if core.is_over:
            raise RecordError("moves", f"move {ply} ({shown}) comes after the end of the game")
        if move not in core.legal_moves():
            raise RecordError("moves", f"move {ply} ({shown}) is not legal there")
        core = core.play(move)
    return core


def check_result_matches(record: dict, end) -> None:
    """A game not cut by a fault must be over, with the result its moves give (`end`: the
    core state after them); RecordError otherwise."""
    result = record["result"]
    if "fault" in record:
        if result["winner"] == record["fault"]["player"]:
            raise RecordError("result.winner", "the player at fault cannot be the winner")
        return
    if not end.is_over:
        raise RecordError("moves", "the game is not over after them, and no fault ended it")
    winner, how, _, _ = end.outcome()
    winner = "draw" if winner is None else PLAYERS[winner]
    if (result["winner"], result["how"]) != (winner, how):
        raise RecordError("result", f"says {result['winner']} ({result['how']:.20}) but the moves give {winner} ({how})")
