"""How a match's score splits between the first three rounds and round 4.

    python -m solver.bench.round4_swing MATCH.jsonl[.gz] [--games N] [--first K]

A match's score says how much better one engine did, not where. Round 4 is played apart from
the rest (the engine searches it below EXACT_MIN_SECONDS a move, the in-process bots solve
it), so a change can gain before round 4 and give it back there, or the other way round.
For each game of the records (as `dnoir match --out` writes them, gzipped or not) that
reaches round 4, its first position in round 4 is solved with open hands
(solver.solvers.endgame: both hands known, both sides playing perfectly: a win, a draw or a
loss). From the side of the match's first engine (A of `dnoir match A B`, the candidate),
that value is what it brought into round 4, and its final score minus that value is its
swing in round 4. Perfect play with open hands is a yardstick, not what either engine could
reach: both sides are measured by it alike, so the swing tells which of the two did better
in round 4, and by about how much.

It prints the games read and those that ended before round 4 (a third city) with A's score
in them; then, to see which of the first three rounds the gain was made in, A's mean chance
of a win at the end of rounds 1, 2 and 3 by the round-end model (solver.solvers.roundmodel:
random play from there on, a yardstick for both sides alike, as open hands are in round 4,
but one that a search using the model steers towards: read its changes from round to
round, not its size against such an engine);
then for the games that reached round 4 A's mean value entering round 4, its mean swing
there and its mean score. Each mean has its 95% interval (over games, not duplicate pairs)
and its logistic Elo.

A game that starts in round 4, won by b with open hands (a loses whatever it plays), which
b (the candidate, engine "y") lost: it entered round 4 with 1.0 and swung −1.0 there.

>>> record = {"deal": "-287-18C5 788/C 6666777788+2+2+2+2+3+3-1-2-3/555678+4-1-2-2-3C 4 a a",
...           "moves": "8 T 7 C 8", "players": {"a": "x", "b": "y"}, "pairing": ["y", "x"],
...           "result": {"winner": "a"}}
>>> split = round4_split([record])
>>> split.reached, split.before, split.entering[0], split.swing[0], split.score[0]
(1, 0, 1.0, -1.0, 0.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from solver.agents.arena import score_for
from solver.agents.stats import elo_from_score
from solver.bench.round4_loss import is_finished_game, load_records, mean_interval
from solver.bench.root_choice import OneLineParser, whole
from solver.errors import DnoirError
from solver.rules.position import Position
from solver.solvers.endgame import solve
from solver.solvers.roundmodel import ROUNDS_MODELLED, round_ends, win_probability

OUTCOME_SCORE = {"win": 1.0, "draw": 0.5, "loss": 0.0}


def open_value(pos: Position, player: int) -> float:
    """`player`'s result (1, 1/2 or 0) when the rest of the game is played perfectly with open
    hands (solver.solvers.endgame), whoever is to move."""
    value = OUTCOME_SCORE[solve(pos, mode="open").moves[0].outcome]  # for the side to move
    return value if pos.to_move == player else 1.0 - value


@dataclass(frozen=True)
class Round4Split:
    """A match's games split at round 4, from the side of the pairing's first engine.

    `games` read, `before` of them ended before round 4, with `before_score` its summed score
    there; of the `reached` ones, `entering`, `swing` and `score` are (mean, half-width of the
    95% interval) of its open-hands value at round 4's start, of its final score minus that,
    and of its final score. `round_ends` holds, for each end of rounds 1, 2 and 3 that some game
    reached (a game from an opening book starts later), the round, the number of games that
    reached its end and (mean, half-width) of its chance of a win there by the round-end model
    (solver.solvers.roundmodel: random play from there on).
    """

    games: int
    before: int
    before_score: float
    reached: int
    entering: tuple[float, float]
    swing: tuple[float, float]
    score: tuple[float, float]
    round_ends: tuple[tuple[int, int, tuple[float, float]], ...] = ()


def candidate_seat(record: dict) -> str:
    """The seat ('a' or 'b') of the record's pairing's first engine; ValueError if none."""
    first = record["pairing"][0]
    seats = [seat for seat, spec in record["players"].items() if spec == first]
    if len(seats) != 1:
        raise ValueError(f"the pairing's first engine {first!r:.60} sits in {len(seats)} seats")
    return seats[0]


def is_match_record(record) -> bool:
    """Whether `record` is a game record with the players, pairing and result (a winner: a seat or
    "draw") a match writes."""
    return is_finished_game(record) and isinstance(record.get("players"), dict) \
        and isinstance(record.get("pairing"), list) and bool(record["pairing"])


def round4_split(records) -> Round4Split:
    """The split of `records` (game records with a deal, moves, players, pairing and result)."""
    games = before = 0
    before_score = 0.0
    entering, swing, score = [], [], []
    ends = {ended: [] for ended in range(1, ROUNDS_MODELLED + 1)}
    for record in records:
        games += 1
        seat = candidate_seat(record)
        final = score_for(record, seat)
        pos = Position.parse(record["deal"])
        if pos.round < 4:  # (a record may start in round 4: an opening book's)
            for pos in round_ends(pos, record["moves"].split()):
                value = win_probability(pos)
                ends[pos.round - 1].append(value if seat == "a" else 1.0 - value)
                if pos.round == 4:
                    break
        if pos.is_over or pos.round != 4:
            before += 1
            before_score += final
            continue
        value = open_value(pos, "ab".index(seat))
        entering.append(value)
        swing.append(final - value)
        score.append(final)
    return Round4Split(games=games, before=before, before_score=before_score, reached=len(score),
                       entering=mean_interval(entering), swing=mean_interval(swing), score=mean_interval(score),
                       round_ends=tuple((ended, len(v), mean_interval(v)) for ended, v in ends.items() if v))


def _elo(score: float) -> str:
    elo = elo_from_score(score) if not math.isnan(score) else math.nan
    return f"{elo:+.1f} Elo" if math.isfinite(elo) else "Elo unbounded"


def main(argv=None) -> None:
    parser = OneLineParser(prog="python -m solver.bench.round4_swing", description=__doc__.split("\n\n")[0])
    parser.add_argument("games_file", metavar="MATCH.jsonl[.gz]")
    parser.add_argument("--games", type=whole(1, 100_000_000), default=100_000_000, metavar="1..100000000",
                        help="at most this many records [default: all]")
    parser.add_argument("--first", type=whole(0, 100_000_000), default=0, metavar="0..100000000")
    args = parser.parse_args(argv)
    records = load_records(parser, args.games_file, args.first, args.games, valid=is_match_record,
                           what="a match's game record (a deal, its moves, players, pairing and a result with its winner)")
    try:
        split = round4_split(records)
    except (DnoirError, ValueError, KeyError) as e:
        parser.error(f"{args.games_file}: {e}")
    except KeyboardInterrupt:
        parser.exit(130, f"{parser.prog}: interrupted (nothing is written before the end)\n")
    if not split.games:
        parser.error(f"{args.games_file}: no game records")
    print(f"{split.games} games; {split.before} ended before round 4"
          + (f" (A scored {split.before_score / split.before:.3f} in them)" if split.before else ""))
    if split.round_ends:
        print("A's chance by the round-end model (random play from there on):")
        for ended, count, (mean, half) in split.round_ends:
            print(f"  end of round {ended}: {mean:.4f} ± {half:.4f}  ({_elo(mean)}, {count} games)")
    if not split.reached:
        return
    print(f"{split.reached} reached round 4, from A's side:")
    for name, (mean, half), signed in (("entering round 4 (open hands)", split.entering, False),
                                       ("swing in round 4", split.swing, True),
                                       ("final score", split.score, False)):
        # a swing is read as the score 1/2 + swing would be: its Elo the same scale
        figure = f"{mean:+.4f}" if signed else f"{mean:.4f}"
        print(f"  {name}: {figure} ± {half:.4f}  ({_elo(0.5 + mean if signed else mean)})")


if __name__ == "__main__":
    main()
