"""How often a search's root choice agrees with a much longer search's, and what the others cost.

    python -m solver.bench.root_choice [--positions 100] [--iterations 20000]
                                       [--reference 1280000] [--seed 7] [--out FILE]

A cheap look at a search change before a match (bench/STRENGTH.md, round 7). Positions come from
uniformly random play (the view of the player to move, in rounds 1 to 3, with at least three
actions left in the round and a choice to make). Each is searched once at `--reference`
iterations by the raw searcher with the per-hand statistics (opponent_hands 10 at the constant
0.7, playouts to the game's end: the `7d9ffe8` preset, the default when this was written), then
twice at `--iterations`
and twice at 4 × `--iterations`, with other seeds (they depend on the position's number only,
and a 4× search has its 1× search's seed: the budgets are compared on paired samples). For each
way of choosing the root move the report gives the share of choices equal to the reference's
most-visited move and the mean regret: the reference's mean result of its own choice less its
mean result of the move chosen, in thousandths of a win (the reference's means are themselves
estimates: the regret of a reference against itself is 0 by definition, not a measured figure),
then that regret less the regret of `visits 1x`, position by position, with the standard error
of that paired difference.

The ways: `visits` (the most-visited move: the engine's rule without its overrule by a mean
higher by a standard error), `mean` (the best mean among moves with 100 visits or more; the
most-visited move when none has) and `mixmax` (each move's mean mixed, a quarter to three
quarters, with one minus the best reply's value, recursively over four plies, counting only
nodes with 30 visits or more). Seeded: the same arguments print the same report. With --out,
one JSON line a position is written as it is done. A tree's pool is the engine's (5 M nodes,
about 2.6 an iteration), so no budget may pass 1.9 M iterations.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable

from solver.rules.position import Position
from solver.solvers._ismcts import Searcher

OPPONENT_HANDS = 10.0     # the per-hand prior of the default search (SearchConfig.opponent_hands)
MAX_NODES = 5_000_000     # the trees' pool, the engine's default
MAX_BUDGET = 1_900_000    # iterations that a pool of MAX_NODES holds (about 2.6 nodes an iteration)
MEAN_MIN_VISITS = 100     # `mean` ignores moves with fewer visits than this
MIXMAX_WEIGHT = 0.25      # `mixmax`: the weight of the best reply's value
MIXMAX_MIN_VISITS = 30    # `mixmax`: nodes with fewer visits keep their mean
MIXMAX_PLIES = 4
ROUND_ACTIONS = 12


def study_positions(count: int, seed: int) -> list[Position]:
    """`count` views, to move, from random play; at least 3 actions left in the round."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = Position.random_deal(rng.getrandbits(32))
        for _ in range(rng.randrange(0, 36)):
            if pos.is_over:
                break
            pos = pos.play(rng.choice(pos.legal_moves()))
        if pos.is_over or len(pos.legal_moves()) < 2 or ROUND_ACTIONS - sum(pos.actions) < 3:
            continue
        out.append(pos.view("ab"[pos.to_move]))
    return out


def mean_result(stats) -> float:
    return stats.reward / stats.visits


def mixmax_values(searcher: Searcher, path: tuple, plies: int, weight: float, min_visits: int) -> dict:
    """{move: value for the player who makes it} at the node `path` leads to: the move's mean,
    mixed with one minus its best reply's value where the reply's node has `min_visits`."""
    values = {}
    for move, stats in searcher.node_stats(path).items():
        if stats.visits == 0:
            continue
        value = mean_result(stats)
        if plies > 1 and stats.visits >= min_visits:
            below = searcher.node_stats(path + (move,))
            replies = mixmax_values(searcher, path + (move,), plies - 1, weight, min_visits)
            counted = [v for m, v in replies.items() if below[m].visits >= min_visits]
            if counted:
                value = (1 - weight) * value + weight * (1 - max(counted))
        values[move] = value
    return values


def choices(searcher: Searcher, plies: int) -> dict[str, int]:
    """The root move each way of choosing picks from the searcher's tree."""
    stats = searcher.root_stats()
    visited = max(stats, key=lambda m: stats[m].visits)
    mix = mixmax_values(searcher, (), plies, MIXMAX_WEIGHT, MIXMAX_MIN_VISITS)
    return {
        "visits": visited,
        "mean": max((m for m in stats if stats[m].visits >= MEAN_MIN_VISITS),
                    key=lambda m: mean_result(stats[m]), default=visited),
        "mixmax": max(mix, key=mix.get),
    }


def study(positions: int, iterations: int, reference: int, seed: int,
          progress: Callable[[dict], None] = lambda row: None) -> list[dict]:
    """One row a position: the reference's stats and choice, and each budget's choices."""
    searcher = Searcher(max_nodes=MAX_NODES)
    rows = []
    for k, view in enumerate(study_positions(positions, seed)):
        left = ROUND_ACTIONS - sum(view.actions)
        searcher.start(view.core, observer=view.to_move, seed=1000 + k, opponent_hands=OPPONENT_HANDS)
        searcher.search(iterations=reference)
        ref = {int(m): (s.visits, mean_result(s)) for m, s in searcher.root_stats().items()}
        row = {"position": str(view), "reference": ref, "best": max(ref, key=lambda m: ref[m][0]), "picks": {}}
        for scale in (1, 4):
            for rep in range(2):
                searcher.start(view.core, observer=view.to_move, seed=50 * k + rep, opponent_hands=OPPONENT_HANDS)
                searcher.search(iterations=scale * iterations)
                for way, move in choices(searcher, min(left, MIXMAX_PLIES)).items():
                    row["picks"].setdefault(f"{way} {scale}x", []).append(int(move))
        rows.append(row)
        progress(row)
    return rows


def regret(row: dict, way: str) -> float:
    """The mean regret of a way's picks in one row, by the reference's means (a KeyError for a
    pick the reference has no figure for: every root move is among its children)."""
    ref = {int(m): v for m, v in row["reference"].items()}
    best = ref[int(row["best"])][1]
    picks = row["picks"][way]
    return sum(best - ref[move][1] for move in picks) / len(picks)


def report(rows: list[dict]) -> str:
    """Each way and budget: agreement, mean regret, and its paired difference from `visits 1x`
    with that difference's standard error, as a table."""
    lines = [f"{len(rows)} positions; regret in thousandths of a win (the reference's means)",
             f"{'way':12s} {'agree':>6s} {'regret':>7s} {'-visits 1x':>10s} {'se':>5s}"]
    ways = sorted({w for r in rows for w in r["picks"]}, key=lambda w: (w.split()[1], w))
    for way in ways:
        agreed = [move == int(r["best"]) for r in rows for move in r["picks"][way]]
        diffs = [regret(r, way) - regret(r, "visits 1x") for r in rows]
        mean = sum(diffs) / len(diffs)
        spread = (sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)) ** 0.5 if len(diffs) > 1 else 0.0
        lines.append(f"{way:12s} {sum(agreed) / len(agreed):6.3f} {1000 * sum(regret(r, way) for r in rows) / len(rows):7.2f}"
                     f" {1000 * mean:+10.2f} {1000 * spread / len(diffs) ** 0.5:5.2f}")
    return "\n".join(lines)


class OneLineParser(argparse.ArgumentParser):
    """A bad argument is one line naming the problem, and exit code 2 (no usage block)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message}\n")


def whole(low: int, high: int):
    """An argparse type: a whole number from low to high, or one line naming the problem."""
    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is out of range ({low} to {high})")
        return value
    return read


def main(argv=None) -> None:
    ap = OneLineParser(prog="python -m solver.bench.root_choice", description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=whole(1, 10_000), default=100, metavar="1..10000")
    ap.add_argument("--iterations", type=whole(100, MAX_BUDGET // 4), default=20000, metavar=f"100..{MAX_BUDGET // 4}")
    ap.add_argument("--reference", type=whole(100, MAX_BUDGET), default=1_280_000, metavar=f"100..{MAX_BUDGET}")
    ap.add_argument("--seed", type=whole(0, 2**32 - 1), default=7, metavar="0..4294967295")
    ap.add_argument("--out", help="write one JSON line a position as it is done")
    args = ap.parse_args(argv)
    if args.reference <= 4 * args.iterations:
        ap.error(f"--reference {args.reference} must be more than 4 x --iterations ({4 * args.iterations})")
    try:
        out = open(args.out, "w") if args.out is not None else None
    except OSError as e:
        ap.error(f"--out {args.out!r}: {e.strerror}")

    def progress(row):
        print(f"position {progress.done + 1}/{args.positions}", file=sys.stderr, flush=True)
        progress.done += 1
        if out:
            out.write(json.dumps(row) + "\n")
            out.flush()
    progress.done = 0
    try:
        print(report(study(args.positions, args.iterations, args.reference, args.seed, progress)))
    finally:
        if out:
            out.close()


if __name__ == "__main__":
    main()
