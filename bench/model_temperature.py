"""How surely a lead at a round's end wins in recorded games, against the round-end model.

    python -m solver.bench.model_temperature MATCH.jsonl[.gz] [MATCH ...] [--boot 200] [--seed 1]

The round-end model (solver.solvers.roundmodel) is the chance of a win under random play
from the end of rounds 1, 2 and 3. Real players turn a lead into a win more surely than
random play does, so on the round ends of recorded games (as `dnoir match --out` writes them,
gzipped or not; a game that appears in several files is read once) the model's logit
predicts the result best when it is multiplied by some T > 1: the search setting
`model_temperature`. For each round it prints the round ends read, the log-loss of the results
(a draw counts as half a win) at T = 1 and at the best T, and that T with a 95% interval from
resampling the deals (--boot times, --seed): the two games of a duplicate pair share their
deal, so a deal and all its games are the unit drawn. A best T at the end of the range
searched (MIN_MODEL_TEMPERATURE to MAX_MODEL_TEMPERATURE) is marked as such.

>>> import math, random
>>> rng = random.Random(1)
>>> z = [rng.gauss(0.0, 1.0) for _ in range(4000)]
>>> y = [1.0 if rng.random() < 1 / (1 + math.exp(-2 * x)) else 0.0 for x in z]
>>> round(best_temperature(z, y), 1)
2.0
"""

from __future__ import annotations

import math
import random

from solver.agents.arena import score_for
from solver.base.bounds import MAX_MODEL_TEMPERATURE, MIN_MODEL_TEMPERATURE
from solver.bench.round4_loss import is_finished_game, load_records
from solver.bench.root_choice import OneLineParser, whole
from solver.errors import DnoirError
from solver.rules.position import Position
from solver.solvers import roundmodel
from solver.solvers.roundmodel import ROUNDS_MODELLED, logit


def round_ends(record: dict) -> list[tuple[int, float]]:
    """(the round that ended, the model's logit for a there) at each end of rounds 1-3 of a game."""
    return [(pos.round - 1, logit(pos))
            for pos in roundmodel.round_ends(Position.parse(record["deal"]), record["moves"].split())]


def log_loss(z, y, temperature: float) -> float:
    """The mean log-loss of results `y` (1, 1/2 or 0 for a) by the chances sigmoid(T z)."""
    import numpy as np

    t = temperature * np.asarray(z, float)
    target = np.asarray(y, float)
    # -log sigmoid(t) = log(1 + e^-t), -log(1 - sigmoid(t)) = log(1 + e^t), neither overflowing
    return float(np.mean(target * np.logaddexp(0.0, -t) + (1.0 - target) * np.logaddexp(0.0, t)))


def best_temperature(z, y, low: float = MIN_MODEL_TEMPERATURE, high: float = MAX_MODEL_TEMPERATURE) -> float:
    """The T in [low, high] with the least log-loss (golden-section search: the loss is convex in T;
    each step keeps one of its two inner points and their losses, so it computes one loss a step)."""
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = low, high
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    loss_c, loss_d = log_loss(z, y, c), log_loss(z, y, d)
    for _ in range(60):
        if loss_c <= loss_d:  # the least loss lies in [a, d]: c becomes its upper inner point
            b, d, loss_d = d, c, loss_c
            c = b - ratio * (b - a)
            loss_c = log_loss(z, y, c)
        else:  # in [c, b]: d becomes its lower inner point
            a, c, loss_c = c, d, loss_d
            d = a + ratio * (b - a)
            loss_d = log_loss(z, y, d)
    return (a + b) / 2.0


def _shown(t: float) -> str:
    at_end = min(t - MIN_MODEL_TEMPERATURE, MAX_MODEL_TEMPERATURE - t) < 1e-3
    return f"{t:.2f}" + (" (the end of the range searched)" if at_end else "")


def main(argv=None) -> None:
    import numpy as np

    parser = OneLineParser(prog="python -m solver.bench.model_temperature", description=__doc__.split("\n\n")[0])
    parser.add_argument("games_files", metavar="MATCH.jsonl[.gz]", nargs="+")
    parser.add_argument("--boot", type=whole(0, 10_000), default=200, help="resamples of the deals (0: no interval)")
    parser.add_argument("--seed", type=whole(0, 2**53 - 1), default=1, help="seed of the resampling")
    args = parser.parse_args(argv)
    deals: dict[str, list] = {}  # deal -> its games' round ends, each (round, logit, result for a)
    seen = set()
    for path in args.games_files:
        records = load_records(parser, path, 0, 10**9, valid=is_finished_game,
                               what="a finished game record (a deal, its moves and a winner a, b or draw)")
        for number, record in enumerate(records, start=1):
            key = (record["deal"], record["moves"])
            if key in seen:
                continue
            seen.add(key)
            try:
                ends = round_ends(record)
            except (DnoirError, ValueError) as e:
                parser.error(f"{path}: line {number}: {e}")
            result = score_for(record, "a")
            deals.setdefault(record["deal"], []).extend((r, z, result) for r, z in ends)
    if not seen:
        parser.error("no finished games in " + ", ".join(args.games_files))
    print(f"{len(seen)} games")
    rng = random.Random(args.seed)
    for ended in range(1, ROUNDS_MODELLED + 1):
        units = [[(z, y) for r, z, y in rows if r == ended] for rows in deals.values()]
        units = [rows for rows in units if rows]  # the deals with games that reached this round's end
        if not units:
            print(f"end of round {ended}: no round ends")
            continue
        z = [x for rows in units for x, _ in rows]
        y = [t for rows in units for _, t in rows]
        best = best_temperature(z, y)
        line = (f"end of round {ended}: {len(z)} round ends of {len(units)} deals, log-loss "
                f"{log_loss(z, y, 1.0):.4f} at T = 1, {log_loss(z, y, best):.4f} at the best T = {_shown(best)}")
        if args.boot:
            draws = []
            for _ in range(args.boot):
                sample = []  # as many deals as were read, drawn with replacement, each with its round ends
                for _ in units:
                    sample.extend(units[rng.randrange(len(units))])
                draws.append(best_temperature([x for x, _ in sample], [t for _, t in sample]))
            low, high = np.quantile(draws, [0.025, 0.975])
            line += f" [{low:.2f}, {high:.2f}]"
        print(line)


if __name__ == "__main__":
    main()
