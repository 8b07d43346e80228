"""How surely a lead at a round's end wins in recorded games, against the round-end model.

    python -m solver.bench.model_temperature MATCH.jsonl[.gz] [MATCH ...] [--boot 200] [--seed 1]

The round-end model (solver.solvers.roundmodel) is the chance of a win under random play
from the end of rounds 1, 2 and 3. Real players turn a lead into a win more surely than
random play does, so on the round ends of recorded games (as `dnoir match --out` writes them,
gzipped or not; a game that appears in several files is read once) the model's logit
predicts the result best when it is multiplied by some T > 1: the search setting
`model_temperature` (bench/STRENGTH.md, test 34). For each round it prints the round ends
read, the log-loss of the results (a draw counts as half a win) at T = 1 and at the best T,
and that T with a 95% interval from resampling whole games (--boot times, --seed).

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

from solver.bench.round4_loss import load_records
from solver.bench.root_choice import OneLineParser, whole
from solver.rules.position import Position
from solver.solvers.roundmodel import ROUNDS_MODELLED, win_probability

RESULT_FOR_A = {"a": 1.0, "b": 0.0, None: 0.5}


def round_ends(record: dict) -> list[tuple[int, float]]:
    """(the round that ended, the model's logit for a there) at each end of rounds 1-3 of a game."""
    pos, ends = Position.parse(record["deal"]), []
    current = pos.round
    for move in record["moves"].split():
        pos = pos.play(move)
        if not pos.is_over and pos.round != current:
            current = pos.round
            if current - 1 <= ROUNDS_MODELLED:
                p = win_probability(pos)
                ends.append((current - 1, math.log(p / (1.0 - p))))
    return ends


def log_loss(z, y, temperature: float) -> float:
    """The mean log-loss of results `y` (1, 1/2 or 0 for a) by the chances sigmoid(T z)."""
    import numpy as np

    t = temperature * np.asarray(z, float)
    target = np.asarray(y, float)
    # -log sigmoid(t) = log(1 + e^-t), -log(1 - sigmoid(t)) = log(1 + e^t), neither overflowing
    return float(np.mean(target * np.logaddexp(0.0, -t) + (1.0 - target) * np.logaddexp(0.0, t)))


def best_temperature(z, y, low: float = 0.1, high: float = 10.0) -> float:
    """The T in [low, high] with the least log-loss (golden-section search: the loss is convex in T)."""
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = low, high
    for _ in range(60):
        c, d = b - ratio * (b - a), a + ratio * (b - a)
        if log_loss(z, y, c) <= log_loss(z, y, d):
            b = d
        else:
            a = c
    return (a + b) / 2.0


def main(argv=None) -> None:
    parser = OneLineParser(prog="python -m solver.bench.model_temperature", description=__doc__.split("\n\n")[0])
    parser.add_argument("games_files", metavar="MATCH.jsonl[.gz]", nargs="+")
    parser.add_argument("--boot", type=whole(0, 10_000), default=200, help="bootstrap resamples of the games (0: none)")
    parser.add_argument("--seed", type=whole(0, 2**53 - 1), default=1, help="seed of the resampling")
    args = parser.parse_args(argv)
    games, seen = [], set()
    for path in args.games_files:
        for record in load_records(parser, path, 0, 10**9):
            key = (record["deal"], record["moves"])
            if key not in seen and record.get("result"):
                seen.add(key)
                games.append((round_ends(record), RESULT_FOR_A.get(record["result"].get("winner"), 0.5)))
    print(f"{len(games)} games")
    rng = random.Random(args.seed)
    for ended in range(1, ROUNDS_MODELLED + 1):
        per_game = [[(z, y) for r, z in ends if r == ended] for ends, y in games]
        z = [x for rows in per_game for x, _ in rows]
        y = [t for rows in per_game for _, t in rows]
        if not z:
            print(f"end of round {ended}: no round ends")
            continue
        best = best_temperature(z, y)
        line = (f"end of round {ended}: {len(z)} round ends, log-loss {log_loss(z, y, 1.0):.4f} at T = 1, "
                f"{log_loss(z, y, best):.4f} at the best T = {best:.2f}")
        if args.boot:
            draws = []
            for _ in range(args.boot):
                sample = []  # as many games as were read, drawn with replacement, each with all its round ends
                for _ in per_game:
                    sample.extend(per_game[rng.randrange(len(per_game))])
                if sample:
                    draws.append(best_temperature([x for x, _ in sample], [t for _, t in sample]))
            draws.sort()
            line += f" [{draws[int(0.025 * len(draws))]:.2f}, {draws[int(0.975 * len(draws)) - 1]:.2f}]"
        print(line)


if __name__ == "__main__":
    main()
