"""Fit the round-end model (solver/solvers/roundmodel.py) from uniformly random games.

    python -m solver.bench.round_model [--games-per-seed 60000] [--seeds 8] [--round4 random|open|view]
                                       [--jobs 1] [--truth N] [--out FILE]

Each seed plays its games with random.Random(seed) (deals by Position.random_deal, moves by
random.choice over the legal moves); every state just after a round ended is a sample, labelled
with the game's result for a (1, 1/2, 0); with `--round4 open`, a game that reaches round 4 is
labelled instead by round 4 played perfectly with open hands from its start (solver.solvers.endgame,
what the engine's exact round 4 comes nearer to than random play does); with `--round4 view`, by
round 4 played out by each side's one-player view (solver.solvers.endgame's hidden-hands solve, the
engine's own round 4 below its equilibrium's reach). The same games and states either way (the
random game still goes on, so the random stream is the same). The first eighth of the samples is held out; the rest,
with each state mirrored (a and b swapped, the label 1 - y), fits one logistic regression per
round by Newton's method (L2 weight 1). The held-out log-loss and Brier score are printed
against the constant 1/2, and, with --truth N, the root mean square error against the mean of
40 playouts from N fresh states of each round end (what the model is meant to predict).
The default arguments reproduce the shipped weights.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from solver.bench.round4_swing import open_value
from solver.rules.position import Position
from solver.solvers.endgame import solve
from solver.solvers.search import mover_view
from solver.solvers.roundmodel import ROUNDS_MODELLED, WEIGHTS_FILE, features, line_top

SEED_BITS = 50  # Position.random_deal takes seeds below 2**53


def result_for_a(pos: Position) -> float:
    winner = pos.result().winner
    return 1.0 if winner == "a" else (0.5 if winner is None else 0.0)


def view_value(pos: Position, player: int) -> float:
    """`player`'s result (1, 1/2 or 0) when the rest of round 4 is played by each side's
    one-player view: every choice the view solver's best move for the mover's hand, the
    opponent's hand unseen (a forced move is played without a solve)."""
    while not pos.is_over:
        moves = pos.legal_moves()
        pos = pos.play(moves[0] if len(moves) == 1 else solve(mover_view(pos), mode="view").best)
    return result_for_a(pos) if player == 0 else 1.0 - result_for_a(pos)


LABELS = {"open": open_value, "view": view_value}


def samples(seed: int, games: int, round4: str = "random") -> np.ndarray:
    """Rows of: ended round, next first player, a's 11 counts, b's 11 counts, 5 line kinds, label."""
    rng = random.Random(seed)
    rows = []
    for _ in range(games):
        pos = Position.random_deal(rng.getrandbits(SEED_BITS))
        states, current, label = [], pos.round, None
        while not pos.is_over:
            pos = pos.play(rng.choice(pos.legal_moves()))
            if not pos.is_over and pos.round != current:
                current = pos.round
                states.append([current - 1, pos.first, *pos.colls[0], *pos.colls[1], *line_top(pos.line)])
                if current == 4 and round4 in LABELS:
                    label = LABELS[round4](pos, 0)
        if label is None:
            label = result_for_a(pos)
        rows.extend(state + [label] for state in states)
    return np.array(rows, dtype=float)


def matrix(data: np.ndarray) -> np.ndarray:
    return features(data[:, 1], data[:, 2:13], data[:, 13:24], data[:, 24:29])


def mirrored(data: np.ndarray) -> np.ndarray:
    out = data.copy()
    out[:, 2:13], out[:, 13:24] = data[:, 13:24], data[:, 2:13]
    out[:, 1] = 1 - data[:, 1]
    out[:, -1] = 1 - data[:, -1]
    return out


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 12) -> np.ndarray:
    """Logistic regression by Newton's method."""
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-x @ w))
        gradient = x.T @ (p - y) + l2 * w
        hessian = (x * (p * (1 - p))[:, None]).T @ x + l2 * np.eye(x.shape[1])
        w -= np.linalg.solve(hessian, gradient)
    return w


def log_loss(p, y) -> float:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def truth_error(weights, states: int, rollouts: int = 40, seed: int = 99) -> None:
    rng = random.Random(seed)

    def playout(pos):
        while not pos.is_over:
            pos = pos.play(rng.choice(pos.legal_moves()))
        return result_for_a(pos)

    for ended in range(1, ROUNDS_MODELLED + 1):
        rows, means = [], []
        while len(rows) < states:
            pos = Position.random_deal(rng.getrandbits(SEED_BITS))
            while not pos.is_over and pos.round <= ended:
                pos = pos.play(rng.choice(pos.legal_moves()))
            if pos.is_over:
                continue
            rows.append([ended, pos.first, *pos.colls[0], *pos.colls[1], *line_top(pos.line)])
            means.append(np.mean([playout(pos) for _ in range(rollouts)]))
        m = np.array(means)
        p = 1 / (1 + np.exp(-matrix(np.array(rows, dtype=float)) @ np.array(weights[ended - 1])))
        noise = np.mean(m * (1 - m)) / (rollouts - 1)
        print(f"end of round {ended}: variance of the truth {np.var(m) - noise:.4f}, of the model {np.var(p):.4f}, "
              f"model's RMS error {np.sqrt(max(0.0, np.mean((p - m) ** 2) - noise)):.3f} ({states} states)")


def positive(text: str) -> int:
    """An argparse type: a whole number of 1 or more."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not 1 or more")
    return value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games-per-seed", type=int, default=60000)
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--out", default=str(WEIGHTS_FILE))
    parser.add_argument("--round4", choices=("random", *LABELS), default="random",
                        help="round 4 in the labels: played at random, perfectly with open hands, "
                             "or by each side's one-player view")
    parser.add_argument("--jobs", type=positive, default=1, help="processes playing the seeds' games")
    parser.add_argument("--truth", type=int, default=0, metavar="N")
    args = parser.parse_args(argv)
    seeds = range(1, args.seeds + 1)
    games, labels = [args.games_per_seed] * len(seeds), [args.round4] * len(seeds)
    if args.jobs == 1:
        data = np.vstack(list(map(samples, seeds, games, labels)))
    else:
        with ProcessPoolExecutor(args.jobs) as pool:  # the seeds' samples are independent, in seed order
            data = np.vstack(list(pool.map(samples, seeds, games, labels)))
    held_out, train = data[: len(data) // 8], data[len(data) // 8:]
    train = np.vstack([train, mirrored(train)])
    weights = []
    for ended in range(1, ROUNDS_MODELLED + 1):
        part, test = train[train[:, 0] == ended], held_out[held_out[:, 0] == ended]
        w = fit(matrix(part), part[:, -1])
        weights.append(w.tolist())
        p, y = 1 / (1 + np.exp(-matrix(test) @ w)), test[:, -1]
        print(f"end of round {ended}: {len(part)} samples; held out: log-loss {log_loss(p, y):.4f} "
              f"(1/2: {log_loss(np.full(len(y), 0.5), y):.4f}), Brier {np.mean((p - y) ** 2):.4f} "
              f"(1/2: {np.mean((0.5 - y) ** 2):.4f})")
    Path(args.out).write_text(json.dumps({
        "fitted_by": " ".join(["python -m solver.bench.round_model", *(argv if argv is not None else sys.argv[1:])]),
        "games_per_seed": args.games_per_seed, "seeds": args.seeds, **({"round4": args.round4} if args.round4 in LABELS else {}),
        "weights": weights}) + "\n")
    print(f"wrote {args.out}")
    if args.truth:
        truth_error(weights, args.truth)
    return 0


if __name__ == "__main__":
    sys.exit(main())
