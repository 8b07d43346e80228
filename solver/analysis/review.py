"""Game review: the expected score each decision of a game lost against the best move.

A record is a `dnoir match` game record (`deal` and `moves`: every decision of both
players is reviewed), a game saved by `dnoir play` (`seat`, `deal`, `moves`) or one
followed with `dnoir play --track` (`seat`, `start`, `events`); the last two are reviewed
from the seat they were played from.

Each decision (a move played where there was a choice; a forced move is none) is judged
from the mover's view. In round 4 the figures are exact and the same as `dnoir analyse`
gives (`solver.analysis.exact.grade`: the equilibrium of the hidden-information game when it is
small enough, else the one-player view's best move). In rounds 1 to 3 they come from the
information-set search of `dnoir advise`: the best move is the one the search
recommends, and the loss gets a 95% confidence interval from the standard errors of the
two moves' estimated scores. A mark (`?` a mistake, `??` a blunder, the thresholds of
solver.analysis.exact) is given only when the whole interval lies at or above the threshold.

>>> record = {"deal": "885565 78+3-1-2/57+2+3+4 6667788+2+2-2-2-3-3C/6677788+2-1-1-2C 4 a - . 58C",
...           "moves": "T T 7 +4"}
>>> [(d.player, d.played, d.best, d.mark) for d in review_record(record)]
[('a', 'T', 'T', ''), ('b', 'T', '5', '??'), ('a', '7', '7', ''), ('b', '+4', '5', '')]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass

from solver.analysis.exact import BLUNDER, DEFAULT_EQUILIBRIUM_NODES, MISTAKE, grade
from solver.errors import MoveError, RecordError
from solver.rules.events import HAND_PREFIX, EventError, apply_event, observer_of, parse_event
from solver.rules.notation import PLAYERS, ROUNDS
from solver.rules.position import Position
from solver.rules.records import check_record, check_result_matches
from solver.solvers.limit import Limit
from solver.solvers.search import advise

Z95 = 1.959964  # two-sided 95% normal quantile
# Below this many visits a move's sample spread is too unsteady to trust (a few equal
# results give a spread of 0): the interval uses the bound that holds for any scores.
MIN_VISITS_FOR_SE = 30


@dataclass(frozen=True)
class Decision:
    """One reviewed decision: the move played, the best move and the expected score lost.

    `ply` is the move's number in the game (from 1; a new hand is no move). `low`/`high`
    bound the loss (95%); they equal `loss` when `exact` (round 4).
    `expected_played`/`expected_best` are the estimated scores (win 1, draw 1/2).
    `method` says what judged it: 'equilibrium' or 'view' in round 4, 'ismcts' before.
    """

    ply: int
    player: str
    round: int
    dnp: str
    played: str
    best: str
    expected_played: float
    expected_best: float
    loss: float
    low: float
    high: float
    exact: bool
    mark: str
    method: str = "ismcts"

    def to_dict(self) -> dict:
        """The JSON form: one object a decision, as `dnoir review --json` prints it."""
        out = asdict(self)
        for key in ("expected_played", "expected_best", "loss", "low", "high"):
            # JSON has no infinity: an unbounded end (a move the search never tried) is null
            out[key] = round(out[key], 6) if math.isfinite(out[key]) else None
        return out


def mark_for(low: float) -> str:
    """'??', '?' or '' for a loss whose interval starts at `low`."""
    return "??" if low >= BLUNDER else "?" if low >= MISTAKE else ""


def game_of(record: dict) -> tuple[Position, list[str], set[str]]:
    """(start position, event tokens, seats to review) of a record; RecordError names a bad field."""
    if not isinstance(record, dict):
        raise RecordError("record", "a game record is one JSON object")
    if "start" in record:
        start_field, events_field = "start", "events"
    else:
        start_field, events_field = "deal", "moves"
    for name in (start_field, events_field):
        if not isinstance(record.get(name), str):
            raise RecordError(f"field {name!r}", "missing or not a string")
    seat = record.get("seat")
    if seat is not None and seat not in ("a", "b"):
        raise RecordError("field 'seat'", f"{seat!r} is not a or b")
    if start_field == "start" and seat is None:
        raise RecordError("field 'seat'", "a tracked game needs the seat it was followed from")
    seats = {seat} if seat is not None else set(PLAYERS)
    if start_field == "deal":
        # every other known field checked as `dnoir replay` and `dnoir analyse` check it (the
        # deal may be any full position here; its moves are checked as they are replayed,
        # and the result against them, by review_record)

        check_record({k: v for k, v in record.items()
                      if k not in ("deal", "moves") and not (k == "seed" and v is None)}, required=())
    return Position.parse(record[start_field]), record[events_field].split(), seats


def judge(view: Position, played: str, limit: Limit | None = None, seed: int = 0, threads: int | None = None,
          ply: int = 0, equilibrium_nodes: int = DEFAULT_EQUILIBRIUM_NODES) -> Decision:
    """The decision of the side to move of `view` to play `played`, judged from that view
    (before round 4 by a search within `limit`, default 1 s; in round 4 by
    `solver.analysis.exact.grade` with `equilibrium_nodes`)."""
    mover = PLAYERS[view.to_move]
    if played not in {str(m) for m in view.legal_moves()}:
        raise MoveError(f"judge: {played!r:.20} is not a legal move here ({' '.join(map(str, view.legal_moves()))})")
    if view.round == ROUNDS:
        judged = grade(view, equilibrium_nodes)
        loss = float(judged.loss(played))
        return Decision(ply, mover, view.round, str(view), played, judged.best, float(judged.expected[played]),
                        float(judged.reference), loss, loss, loss, True, mark_for(loss), judged.method)
    advice = advise(view, limit, seed=seed, threads=threads)
    stats = {m.move: m for m in advice.moves}
    best = advice.best
    if played == best:
        e = stats[best].expected
        return Decision(ply, mover, view.round, str(view), played, best, e, e, 0.0, 0.0, 0.0, False, "")
    b, p = stats[best], stats[played]
    loss = b.expected - p.expected
    spread = Z95 * math.hypot(_standard_error(b), _standard_error(p))
    low, high = loss - spread, loss + spread
    return Decision(ply, mover, view.round, str(view), played, best, p.expected, b.expected, loss, low, high,
                    False, mark_for(low))


def _standard_error(stats) -> float:
    """The standard error of a move's estimated score.

    The search's own figure (`MoveStats.se`: the spread of the move's results over the
    square root of its visits) once the move has had MIN_VISITS_FOR_SE visits and its results
    differ; otherwise the bound sqrt(p(1-p)/n), which no score in [0, 1] with mean p exceeds
    (at p = 0 or 1, where a few equal results say little, sqrt(1/4n)). A move never visited
    has no estimate: an infinite error, so it is never marked.
    """
    if not stats.visits:
        return math.inf
    se = getattr(stats, "se", None)
    if se and stats.visits >= MIN_VISITS_FOR_SE:
        return float(se)
    p = min(max(stats.expected, 0.0), 1.0)
    return math.sqrt(p * (1 - p) / stats.visits) if 0 < p < 1 else math.sqrt(0.25 / stats.visits)


def review_record(record: dict, limit: Limit | None = None, seed: int = 0,
                  threads: int | None = None, seats: set[str] | None = None,
                  on_decision: Callable[[Decision], None] | None = None,
                  equilibrium_nodes: int = DEFAULT_EQUILIBRIUM_NODES) -> list[Decision]:
    """Every reviewed decision of a game record, in order (see the module docstring).

    `limit` is the search budget of each decision before round 4 (default 1 s); `seats`
    limits the review to those players; `equilibrium_nodes` is the largest round-4 game
    graded against the equilibrium (as `dnoir analyse --equilibrium-nodes`). RecordError names what is wrong with
    the record (a field, or the move that cannot be played, with its index).
    """
    pos, tokens, reviewed = game_of(record)
    if seats is not None:
        reviewed = reviewed & seats
    observer = observer_of(pos)
    decisions, ply = [], 0
    for index, token in enumerate(tokens, 1):
        event = parse_event(token, index)
        ply += event.move is not None  # moves are numbered from 1; a new hand is no move
        if event.move is not None and not pos.is_over and PLAYERS[pos.to_move] in reviewed \
                and pos.hands[pos.to_move] is not None:
            view = pos.view(PLAYERS[pos.to_move])
            legal = view.legal_moves()
            if event.move in legal and len(legal) > 1:  # a forced move is no decision
                decision = judge(view, token, limit, seed=seed, threads=threads, ply=ply,
                                 equilibrium_nodes=equilibrium_nodes)
                decisions.append(decision)
                if on_decision is not None:
                    on_decision(decision)
        try:
            pos = apply_event(pos, event, observer, index)
        except EventError as e:
            raise RecordError(f"{'event' if 'start' in record else 'move'} {index} ({token})", e.reason) from None
    if "result" in record and "start" not in record:
        check_result_matches(record, pos.core)
    return decisions


def render_review(record: dict, decisions: list[Decision], seats: set[str] | None = None) -> str:
    """The game move by move, each reviewed decision with its mark, best move and loss; a summary."""
    pos, tokens, reviewed = game_of(record)
    if seats is not None:
        reviewed = reviewed & seats
    by_ply = {d.ply: d for d in decisions}
    out = [f"review of {' and '.join(sorted(reviewed))} (loss = expected score lost against the best move; "
           "? mistake, ?? blunder, marked only when the 95% interval says so)"]
    observer = observer_of(pos)
    ply = 0
    for index, token in enumerate(tokens, 1):
        event = parse_event(token, index)
        if pos.round != _round_before(out):
            out.append(f"-- round {pos.round}")
        if event.hand is not None:
            out.append(f"      new hand: {token[len(HAND_PREFIX):]}")
        else:
            ply += 1
            mover = PLAYERS[pos.to_move]
            d = by_ply.get(ply)
            line = f"{ply:>4}. {mover}  {token:<3}"
            forced = pos.hands[pos.to_move] is not None and len(pos.legal_moves()) == 1
            if d is None and mover in reviewed and forced:
                line += "   (forced)"
            if d is not None:
                line += f"{d.mark:<3}"
                if d.played != d.best and not (d.exact and d.loss <= 0):
                    interval = "exact" if d.exact else f"95% [{_three(d.low, '+')}, {_three(d.high, '+')}]"
                    line += f"  best {d.best:<3} loss {_three(d.loss)} ({interval})"
                else:
                    line += "  best"
            out.append(line.rstrip())
        pos = apply_event(pos, event, observer, index)
    out.append("")
    for player in sorted(reviewed):
        mine = [d for d in decisions if d.player == player]
        if not mine:
            continue
        total = sum(max(d.loss, 0.0) for d in mine)
        out.append(f"{player}: {len(mine)} decisions, {sum(d.mark == '?' for d in mine)} mistakes, "
                   f"{sum(d.mark == '??' for d in mine)} blunders, expected score lost {total:.3f} "
                   f"(exact in round 4: {sum(max(d.loss, 0.0) for d in mine if d.exact):.3f})")
    return "\n".join(out)


def _round_before(lines: list[str]) -> int | None:
    """The round of the last '-- round N' header written so far."""
    for line in reversed(lines):
        if line.startswith("-- round "):
            return int(line.split()[-1])
    return None


def _three(x: float, sign: str = "") -> str:
    """`x` to three decimals, never '-0.000' (a loss that small is no loss either way)."""
    text = f"{x:{sign}.3f}"
    return text.replace("-0.000", f"{sign}0.000") if text.strip("+-") == "0.000" else text
